package equiv

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/sqljudge/sqljudge/internal/engine"
	"github.com/sqljudge/sqljudge/internal/testserver"
)

// checkTable is the table the CHECK tests parse over.
func checkTable() *Table {
	return &Table{Name: "t", Unquoted: true, Columns: []Column{
		{Name: "a", Kind: KInt, Type: "INTEGER", Unquoted: true},
		{Name: "Name", Kind: KText, Type: "TEXT"},
		{Name: "status", Kind: KText, Type: "CHARACTER VARYING(10)", Unquoted: true},
	}}
}

// TestParseCheckPrints: CHECKs as engines and DDL spell them are parsed
// and printed for each dialect, every operation in parentheses, names
// quoted, || as CONCAT on MySQL, PostgreSQL's ANY(ARRAY) as IN.
func TestParseCheckPrints(t *testing.T) {
	cases := []struct {
		in                      string
		sqlite, postgres, mysql string
	}{
		{"(a > 0)", `("a" > 0)`, `("a" > 0)`, "(`a` > 0)"},
		{"a BETWEEN 1 AND 100 AND Name <> ''", `(("a" BETWEEN 1 AND 100) AND ("Name" <> ''))`, `(("a" BETWEEN 1 AND 100) AND ("Name" <> ''))`, "((`a` BETWEEN 1 AND 100) AND (`Name` <> ''))"},
		{"status IN ('a', 'it''s')", `("status" IN ('a', 'it''s'))`, `("status" IN ('a', 'it''s'))`, "(`status` IN ('a', 'it''s'))"},
		{"((status)::text = ANY ((ARRAY['a'::character varying, 'b'::character varying])::text[]))", `("status" IN ('a', 'b'))`, `("status" IN ('a', 'b'))`, "(`status` IN ('a', 'b'))"},
		{"((status)::text <> ALL (ARRAY['x'::text]))", `("status" NOT IN ('x'))`, `("status" NOT IN ('x'))`, "(`status` NOT IN ('x'))"},
		{"((\"Name\")::text ~~ 'x%'::text)", `("Name" LIKE 'x%')`, `("Name" LIKE 'x%')`, "(`Name` LIKE 'x%')"},
		{"length(Name) <= 20 OR Name IS NULL", `((length("Name") <= 20) OR ("Name" IS NULL))`, `((char_length("Name") <= 20) OR ("Name" IS NULL))`, "((CHAR_LENGTH(`Name`) <= 20) OR (`Name` IS NULL))"},
		{"`Name` || 'x' <> 'y'", `(("Name" || 'x') <> 'y')`, `(("Name" || 'x') <> 'y')`, "(CONCAT(`Name`, 'x') <> 'y')"},
		{"NOT (a = -1) AND CAST(a AS TEXT) <> '2'", `((NOT ("a" = (-1))) AND (CAST("a" AS TEXT) <> '2'))`, `((NOT ("a" = (-1))) AND (CAST("a" AS TEXT) <> '2'))`, "((NOT (`a` = (-1))) AND (CAST(`a` AS CHAR) <> '2'))"},
		{"CASE WHEN a > 1 THEN 1 ELSE 0 END = 1", `((CASE WHEN ("a" > 1) THEN 1 ELSE 0 END) = 1)`, `((CASE WHEN ("a" > 1) THEN 1 ELSE 0 END) = 1)`, "((CASE WHEN (`a` > 1) THEN 1 ELSE 0 END) = 1)"},
		{"t.a != 2", `("a" <> 2)`, `("a" <> 2)`, "(`a` <> 2)"},
	}
	for _, c := range cases {
		tb := checkTable()
		ck, err := ParseCheck(c.in, tb)
		if err != nil {
			t.Errorf("%s: %v", c.in, err)
			continue
		}
		for d, want := range map[engine.Dialect]string{engine.SQLite: c.sqlite, engine.Postgres: c.postgres, engine.MySQL: c.mysql} {
			if got := ck.SQL(d, tb); got != want {
				t.Errorf("%s on %s:\n got %s\nwant %s", c.in, d, got, want)
			}
		}
	}
}

// TestParseCheckRefuses: what engines read differently, what calls a
// function outside the allow-list, and what names another table or
// column is refused, with the reason.
func TestParseCheckRefuses(t *testing.T) {
	cases := map[string]string{
		"a <> $$ )":                            `unexpected "$$ )"`,
		"a <> E'x'":                            "prefixed strings",
		"Name <> 'x\\' ) ; DROP TABLE t; -- '": "backslash",
		"a > 0 /*! ) ) SELECT 1 */":            "unexpected",
		"a > 0 # ) )":                          "unexpected",
		"a > 0 -- )":                           "unexpected",
		"a > 0; DROP TABLE t":                  "unexpected",
		"set_config('standard_conforming_strings', 'off', false) <> ''": "set_config is not one",
		"pg_sleep(1) IS NULL":           "pg_sleep is not one",
		"BENCHMARK(1000, MD5('x')) = 0": "BENCHMARK is not one",
		"a > (SELECT 1)":                "no column SELECT",
		"nosuch > 0":                    "no column nosuch",
		"u.a > 0":                       "another table",
		"a::date > '2000-01-01'":        "a cast to DATE",
		"a > ANY (ARRAY[1])":            "only = ANY",
		"Name ~ 'x'":                    "unexpected",
		"a > 0x10":                      "malformed number",
		"a IN (1, 2":                    `expected ","`,
		"length(Name, 2) > 0":           "LENGTH takes 1 to 1",
		strings.Repeat("(", 100) + "a" + strings.Repeat(")", 100): "nested deeper",
	}
	for in, want := range cases {
		_, err := ParseCheck(in, checkTable())
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("ParseCheck(%q) = %v, want an error with %q", in, err, want)
		}
	}
}

// TestPostgresDBIDChecks: the CHECKs of a db_id database on PostgreSQL,
// as pg_get_constraintdef prints them (ANY (ARRAY[…]), ::casts, ~~), are
// parsed and enforced in the scratch databases: a pair that is
// equivalent only under them is not refuted.
func TestPostgresDBIDChecks(t *testing.T) {
	server := testserver.Postgres(t)
	ctx := context.Background()
	name := strings.TrimSuffix(testserver.Name("sjt_checks_"), "_")
	conn := testserver.CreatePostgresDB(t, server, name)
	// A table per CHECK, so that a database drawn from the pools often
	// satisfies all three (a table may be empty).
	if _, err := conn.Exec(ctx, `CREATE TABLE t1 (id INT PRIMARY KEY, status VARCHAR(10) NOT NULL CHECK (status IN ('open', 'closed')));
		CREATE TABLE t2 (id INT PRIMARY KEY, code TEXT NOT NULL CHECK (code LIKE 'x%'));
		CREATE TABLE t3 (id INT PRIMARY KEY, n INT NOT NULL CHECK (n BETWEEN 1 AND 5));
		INSERT INTO t1 VALUES (1, 'open'), (2, 'closed');
		INSERT INTO t2 VALUES (1, 'x1'), (2, 'xy'), (3, 'x');
		INSERT INTO t3 VALUES (1, 1), (2, 5), (3, 3)`); err != nil {
		t.Fatal(err)
	}
	sb := readerSandbox(t, server, name)
	sch, _, err := sb.ReadDB(ctx, name)
	if err != nil {
		t.Fatal(err)
	}
	for _, tb := range []string{"t1", "t2", "t3"} {
		if got := len(sch.Table(tb).Checks); got != 1 {
			t.Fatalf("%s: %d CHECKs read, want 1", tb, got)
		}
	}
	for _, c := range []struct{ q1, q2 string }{
		{"SELECT id FROM t1 WHERE status IN ('open', 'closed')", "SELECT id FROM t1"},
		{"SELECT id FROM t2 WHERE code LIKE 'x%'", "SELECT id FROM t2"},
		{"SELECT id FROM t3 WHERE n >= 1 AND n <= 5", "SELECT id FROM t3"},
	} {
		out, err := Decide(ctx, Pair{Q1: c.q1, Q2: c.q2, DBID: name}, Options{NoProof: true, Sandbox: sb, Seed: 1, Budget: time.Minute, MaxDatabases: 100})
		if err != nil {
			t.Fatal(err)
		}
		if out.Verdict != EquivalentBounded {
			t.Errorf("%s / %s: %s (%s) %+v, want equivalent_bounded under the CHECKs", c.q1, c.q2, out.Verdict, out.Reason, out.Witness)
		}
	}
}
