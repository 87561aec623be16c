package catalog

import (
	"strings"
	"testing"

	"github.com/sqljudge/sqljudge/internal/engine"
)

// checkTable is the table the CHECK tests parse over.
func checkTable() *Table {
	return &Table{Name: "t", Unquoted: true, Columns: []Column{
		{Name: "a", Family: Integer, Type: "INTEGER", Unquoted: true},
		{Name: "Name", Family: Text, Type: "TEXT"},
		{Name: "status", Family: Text, Type: "CHARACTER VARYING(10)", Unquoted: true},
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
