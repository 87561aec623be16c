package dbload

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/sqljudge/sqljudge/internal/engine"
	mysqleng "github.com/sqljudge/sqljudge/internal/engine/mysql"
	"github.com/sqljudge/sqljudge/internal/engine/open"
	pgeng "github.com/sqljudge/sqljudge/internal/engine/postgres"
	"github.com/sqljudge/sqljudge/internal/engine/sqlite"
	"github.com/sqljudge/sqljudge/internal/result"
	"github.com/sqljudge/sqljudge/internal/testserver"
)

func TestSplitScript(t *testing.T) {
	src := "-- a comment; with a semicolon\nCREATE TABLE t (a text); /* block ; /* nested ; */ */\n" +
		"INSERT INTO t VALUES ('x;y'), (E'it\\'s;'), ($$dollar;$$), ($q$tag;$q$);\n" +
		"COPY t (a) FROM stdin;\nline one\n\\N\nsemi;colon\n\\.\nSELECT 1"
	sts, err := splitScript("f.sql", src)
	if err != nil {
		t.Fatal(err)
	}
	if len(sts) != 4 {
		t.Fatalf("%d statements, want 4: %+v", len(sts), sts)
	}
	wantLines := []int{2, 3, 4, 9}
	for i, st := range sts {
		if st.Line != wantLines[i] {
			t.Errorf("statement %d starts on line %d, want %d", i, st.Line, wantLines[i])
		}
	}
	var vals []string
	for _, tk := range sts[1].Tokens {
		if tk.Kind == tString {
			vals = append(vals, tk.Val)
		}
	}
	if strings.Join(vals, "|") != "x;y|it's;|dollar;|tag;" {
		t.Errorf("string values %q", vals)
	}
	if sts[2].Copy == nil || len(sts[2].Copy.Lines) != 3 || sts[2].Copy.Lines[2] != "semi;colon" {
		t.Errorf("COPY data: %+v", sts[2].Copy)
	}
}

func TestDumpErrors(t *testing.T) {
	for _, c := range []struct{ src, want string }{
		{"CREATE TABLE t (a text);\nINSERT INTO t VALUES ('unterminated);", "f.sql:2: unterminated string"},
		{"CREATE TABLE t (a text);\n\nINSERT INTO t SELECT 1;", "f.sql:3: INSERT INTO t: only INSERT ... VALUES is supported"},
		{"CREATE TABLE t (a text\n;", "f.sql:1:"},
		{"COPY t FROM stdin;\nx\n", `f.sql:2: COPY data not terminated by a \. line`},
		{"\\connect x\nSELECT 1;", "f.sql:1: psql meta-commands"},
	} {
		_, err := ParseDump("f.sql", "f", c.src)
		var de *Error
		if err == nil || !errors.As(err, &de) || !strings.HasPrefix(err.Error(), c.want) {
			t.Errorf("%q: err = %v, want it to start with %q", c.src, err, c.want)
		}
	}
	// Evaluation errors name the file, line, table and column.
	for _, c := range []struct{ src, want string }{
		{"CREATE TABLE t (a date);\nINSERT INTO t VALUES\n(random());", "f.sql:3: t.a: unsupported function random()"},
		{"CREATE TABLE t (a integer);\nINSERT INTO t VALUES ('x');", `f.sql:2: t.a: invalid input syntax for type integer: "x"`},
		{"CREATE TABLE t (a varchar(2));\nINSERT INTO t VALUES ('abc');", "f.sql:2: t.a: value too long"},
		{"CREATE TABLE t (a integer NOT NULL);\nINSERT INTO t VALUES (NULL);", "f.sql:2: t.a: NULL in a NOT NULL column"},
		{"CREATE TABLE t (a integer);\nINSERT INTO u VALUES (1);", "f.sql:2: INSERT into u, which the dump does not create"},
		{"CREATE TABLE t (a point);", "f.sql:1: table t, column a: type point cannot be translated"},
		{"CREATE TABLE t (a date);\nINSERT INTO t VALUES (TO_CHAR(NOW(), 'YYYY'));", "f.sql:2: t.a: cannot store a text as date"},
	} {
		d, err := ParseDump("f.sql", "f", c.src)
		if err == nil {
			_, err = d.evaluate(time.Now())
		}
		if err == nil || !strings.HasPrefix(err.Error(), c.want) {
			t.Errorf("%q: err = %v, want it to start with %q", c.src, err, c.want)
		}
	}
}

func TestAddInterval(t *testing.T) {
	d := func(s string) time.Time {
		tm, err := time.Parse("2006-01-02 15:04:05", s)
		if err != nil {
			t.Fatal(err)
		}
		return tm
	}
	for _, c := range []struct {
		from string
		iv   string
		want string
	}{
		{"2024-03-31 12:00:00", "-1 month", "2024-02-29 12:00:00"},
		{"2024-01-31 00:00:00", "1 month", "2024-02-29 00:00:00"},
		{"2023-01-31 00:00:00", "1 mon", "2023-02-28 00:00:00"},
		{"2024-02-29 00:00:00", "1 year", "2025-02-28 00:00:00"},
		{"2024-01-01 00:00:00", "-15 months", "2022-10-01 00:00:00"},
		{"2024-01-01 00:00:00", "1.5 days", "2024-01-02 12:00:00"},
		{"2024-01-01 00:00:00", "2 weeks 30 min", "2024-01-15 00:30:00"},
		{"2024-01-01 00:00:00", "1 day ago", "2023-12-31 00:00:00"},
		{"2024-01-01 00:00:00", "1 year 2 mons 3 days 04:05:06", "2025-03-04 04:05:06"},
	} {
		iv, err := parseInterval(c.iv)
		if err != nil {
			t.Errorf("%q: %v", c.iv, err)
			continue
		}
		if got := addInterval(d(c.from), iv).Format("2006-01-02 15:04:05"); got != c.want {
			t.Errorf("%s + %q = %s, want %s", c.from, c.iv, got, c.want)
		}
	}
	if _, err := parseInterval("3 fortnights"); err == nil {
		t.Errorf("an unknown unit was accepted")
	}
}

// sampleDump has every supported type, defaults, a SERIAL column, a
// schema-qualified table and a COPY block (where \N is NULL only as a whole
// field: inside one, \N is an escaped N, as PostgreSQL's COPY reads it).
const sampleDump = `CREATE SCHEMA IF NOT EXISTS shop;
CREATE TABLE shop.item (
  id SERIAL PRIMARY KEY,
  name VARCHAR(20) NOT NULL,
  code CHAR(4),
  price NUMERIC(10,2),
  weight REAL,
  ratio DOUBLE PRECISION,
  active BOOLEAN DEFAULT TRUE,
  added DATE DEFAULT CURRENT_DATE,
  seen TIMESTAMP NOT NULL DEFAULT NOW(),
  opens TIME,
  note TEXT DEFAULT ''::text
);
INSERT INTO shop.item (name, code, price, weight, ratio, active, added, seen, opens) VALUES
('pen', 'AB', 12.345, 4.6, 0.1, false, '2024-02-29', '2024-02-29 13:05:09.5', '08:30'),
('ink', NULL, -0.5, NULL, 1e20, true, CURRENT_DATE - INTERVAL '1 month', DATE_TRUNC('month', NOW()) + INTERVAL '1 day', NULL);
INSERT INTO shop.item (name) VALUES ('cap');
COPY shop.item (id, name, price, seen) FROM stdin;
10	tab\tbed	3.10	2020-01-01 00:00:00
11	\N-is-not-null	\N	2020-01-02 00:00:00
\.
`

func TestLoadSQLite(t *testing.T) {
	d, err := ParseDump("sample.sql", "sample", sampleDump)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	now := time.Date(2024, 3, 31, 10, 11, 12, 0, time.UTC)
	reps, err := Load(context.Background(), "sqlite:"+dir, []*Dump{d}, Options{Now: now})
	if err != nil {
		t.Fatal(err)
	}
	if len(reps) != 1 || reps[0].Tables != 1 || reps[0].Rows != 5 || reps[0].Database != filepath.Join(dir, "sample.sqlite") {
		t.Fatalf("report %+v", reps)
	}
	// A second load without Replace refuses to overwrite.
	if _, err := Load(context.Background(), "sqlite:"+dir, []*Dump{d}, Options{Now: now}); err == nil || !strings.Contains(err.Error(), "--replace") {
		t.Errorf("overwrite without Replace: %v", err)
	}
	e := sqlite.New(dir, sqlite.Options{})
	defer e.Close()
	s, err := e.Query(context.Background(), "sample", "SELECT id, name, code, price, weight, ratio, active, added, seen, opens, note FROM item ORDER BY id")
	if err != nil {
		t.Fatal(err)
	}
	I, F, T, N := result.IntValue, result.FloatValue, result.TextValue, result.NullValue()
	want := [][]result.Value{
		{I(1), T("pen"), T("AB  "), F(12.35), F(4.6), F(0.1), I(0), T("2024-02-29"), T("2024-02-29 13:05:09.5"), T("08:30:00"), T("")},
		{I(2), T("ink"), N, F(-0.5), N, F(1e20), I(1), T("2024-02-29"), T("2024-03-02 00:00:00"), N, T("")},
		{I(3), T("cap"), N, N, N, N, I(1), T("2024-03-31"), T("2024-03-31 10:11:12"), N, T("")},
		{I(10), T("tab\tbed"), N, F(3.1), N, N, I(1), T("2024-03-31"), T("2020-01-01 00:00:00"), N, T("")},
		{I(11), T("N-is-not-null"), N, N, N, N, I(1), T("2024-03-31"), T("2020-01-02 00:00:00"), N, T("")},
	}
	if len(s.Rows) != len(want) {
		t.Fatalf("%d rows: %s", len(s.Rows), s)
	}
	for i := range want {
		for j := range want[i] {
			if s.Rows[i][j] != want[i][j] {
				t.Errorf("row %d %s = %s %q, want %s %q", i+1, s.Columns[j], s.Rows[i][j].K, result.PyStr(s.Rows[i][j]), want[i][j].K, result.PyStr(want[i][j]))
			}
		}
	}
}

func TestLoadTargets(t *testing.T) {
	d, err := ParseDump("sample.sql", "sample", sampleDump)
	if err != nil {
		t.Fatal(err)
	}
	for _, dsn := range []string{"oracle://x", "sqlite:"} {
		_, err := Load(context.Background(), dsn, []*Dump{d}, Options{})
		if err == nil {
			t.Errorf("Load(%q) succeeded", dsn)
		}
	}
	// DuckDB loads exactly when the binary has it (open.OptionalEngine,
	// the -tags duckdb build), and says which tag is missing otherwise.
	_, _, built := open.OptionalEngine(engine.DuckDB)
	_, err = Load(context.Background(), "duckdb:"+t.TempDir(), []*Dump{d}, Options{})
	if (built == nil) != (err == nil) || (err != nil && !strings.Contains(err.Error(), "built without DuckDB; rebuild with -tags duckdb")) {
		t.Errorf("Load(duckdb:) with DuckDB built in %v: %v", built == nil, err)
	}
	bad, _ := ParseDump("bad-name.sql", "bad-name", "SELECT 1;")
	if _, err := Load(context.Background(), t.TempDir(), []*Dump{bad}, Options{}); err == nil || !strings.Contains(err.Error(), "letters, digits and _") {
		t.Errorf("a database name with '-': %v", err)
	}
}

// TestLoadMySQL loads the sample dump into MariaDB and reads it back with
// the MySQL engine: the same stored values as in PostgreSQL, in MySQL's
// types (CHAR drops its padding when read, TIME is a duration).
func TestLoadMySQL(t *testing.T) {
	server := testserver.MySQL(t)
	d, err := ParseDump("sample.sql", "sample", sampleDump)
	if err != nil {
		t.Fatal(err)
	}
	prefix := testserver.Name("sjt_load_")
	now := time.Date(2024, 3, 31, 10, 11, 12, 0, time.UTC)
	t.Cleanup(func() {
		if _, err := testserver.OpenMySQL(t, server, "").Exec("DROP DATABASE IF EXISTS " + prefix + "sample"); err != nil {
			t.Error(err)
		}
	})
	if _, err := Load(context.Background(), server, []*Dump{d}, Options{Now: now, Prefix: prefix}); err != nil {
		t.Fatal(err)
	}
	if _, err := Load(context.Background(), server, []*Dump{d}, Options{Now: now, Prefix: prefix}); err == nil || !strings.Contains(err.Error(), "--replace") {
		t.Errorf("a second load without Replace: %v", err)
	}
	e, err := mysqleng.New(server, mysqleng.Options{DBPrefix: prefix})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	s, err := e.Query(context.Background(), "sample", "SELECT id, name, code, price, weight, ratio, active, added, seen, opens FROM item ORDER BY id")
	if err != nil {
		t.Fatal(err)
	}
	dec := func(x string) result.Value { v, _ := result.DecimalValue(x); return v }
	ts := func(x string) result.Value {
		tm, err := time.Parse("2006-01-02 15:04:05.999999", x)
		if err != nil {
			t.Fatal(err)
		}
		return result.TimestampOf(tm)
	}
	date := func(x string) result.Value { tm, _ := time.Parse("2006-01-02", x); return result.DateOf(tm) }
	I, F, T, N := result.IntValue, result.FloatValue, result.TextValue, result.NullValue()
	want := [][]result.Value{
		{I(1), T("pen"), T("AB"), dec("12.35"), F(4.6), F(0.1), I(0), date("2024-02-29"), ts("2024-02-29 13:05:09.5"), result.IntervalOf((8*3600 + 30*60) * 1000000)},
		{I(2), T("ink"), N, dec("-0.5"), N, F(1e20), I(1), date("2024-02-29"), ts("2024-03-02 00:00:00"), N},
		{I(3), T("cap"), N, N, N, N, I(1), date("2024-03-31"), ts("2024-03-31 10:11:12"), N},
		{I(10), T("tab\tbed"), N, dec("3.1"), N, N, I(1), date("2024-03-31"), ts("2020-01-01 00:00:00"), N},
		{I(11), T("N-is-not-null"), N, N, N, N, I(1), date("2024-03-31"), ts("2020-01-02 00:00:00"), N},
	}
	if len(s.Rows) != len(want) {
		t.Fatalf("%d rows: %s", len(s.Rows), s)
	}
	for i := range want {
		for j := range want[i] {
			if s.Rows[i][j] != want[i][j] {
				t.Errorf("row %d %s = %s %q, want %s %q", i+1, s.Columns[j], s.Rows[i][j].K, result.PyStr(s.Rows[i][j]), want[i][j].K, result.PyStr(want[i][j]))
			}
		}
	}
}

// TestLoadPostgresReader loads the sample dump into PostgreSQL with a
// reader role, then grades as that role: the engine accepts it (it cannot
// administer the server), it reads every schema's tables, and it cannot
// end another session of its own role (another worker of a run).
func TestLoadPostgresReader(t *testing.T) {
	server := testserver.Postgres(t)
	d, err := ParseDump("sample.sql", "sample", sampleDump)
	if err != nil {
		t.Fatal(err)
	}
	prefix, reader := testserver.Name("sjt_load_"), testserver.Name("sjt_rd_")
	admin := testserver.ConnectPostgres(t, server, "")
	ctx := context.Background()
	t.Cleanup(func() {
		if _, err := admin.Exec(ctx, "DROP ROLE IF EXISTS "+reader); err != nil {
			t.Error(err)
		}
	})
	t.Cleanup(func() { testserver.DropPostgresDB(t, server, prefix+"sample") })
	if _, err := Load(ctx, server, []*Dump{d}, Options{Prefix: prefix, Reader: reader, ReaderPassword: "pw'1"}); err != nil {
		t.Fatal(err)
	}
	if _, err := Load(ctx, "sqlite:"+t.TempDir(), []*Dump{d}, Options{Reader: reader}); !errors.Is(err, ErrTarget) {
		t.Errorf("a reader on SQLite: %v", err)
	}
	u, err := url.Parse(server)
	if err != nil {
		t.Fatal(err)
	}
	u.User = url.UserPassword(reader, "pw'1")
	dsn := u.String()
	e, err := pgeng.New(dsn, pgeng.Options{DBPrefix: prefix})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	if err := e.Check(ctx, "sample"); err != nil {
		t.Fatalf("the reader was refused: %v", err)
	}
	if s, err := e.Query(ctx, "sample", "SELECT count(*) FROM shop.item"); err != nil || s.Len() != 1 {
		t.Fatalf("the reader cannot read shop.item: %v, %v", s, err)
	}
	sibling := testserver.ConnectPostgres(t, dsn, prefix+"sample")
	var pid int
	if err := sibling.QueryRow(ctx, "SELECT pg_backend_pid()").Scan(&pid); err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{fmt.Sprintf("SELECT pg_terminate_backend(%d)", pid), fmt.Sprintf("SELECT pg_cancel_backend(%d)", pid), "SELECT pg_read_file('/etc/hostname')"} {
		if _, err := e.Query(ctx, "sample", q); err == nil {
			t.Errorf("%s ran as the reader", q)
		}
	}
	if err := sibling.Ping(ctx); err != nil {
		t.Errorf("the sibling session was ended: %v", err)
	}
	// An administering role is refused as a reader, and so (issue 41) is
	// a role that reaches one through its memberships, inheriting or not.
	if _, err := Load(ctx, server, []*Dump{d}, Options{Prefix: prefix, Replace: true, Reader: "postgres"}); !errors.Is(err, ErrTarget) {
		t.Errorf("postgres as the reader: %v", err)
	}
	members, _ := testserver.PostgresMemberRoles(t, server, "")
	for _, m := range members {
		if _, err := Load(ctx, server, []*Dump{d}, Options{Prefix: prefix, Replace: true, Reader: m.Role}); !errors.Is(err, ErrTarget) {
			t.Errorf("%s as the reader: %v", m.Why, err)
		}
	}
}

// TestReadDumps: dumps come back in the order of their paths, each named
// after its file; the first that cannot be parsed ends the read with an
// error naming its file and line, and a missing one with one naming it.
func TestReadDumps(t *testing.T) {
	dir := t.TempDir()
	write := func(name, src string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	b := write("b.sql", "CREATE TABLE t (a integer);\nINSERT INTO t VALUES (1);\n")
	a := write("a.sql", "CREATE TABLE u (x text);\n")
	bad := write("bad.sql", "CREATE TABLE t (a text);\nINSERT INTO t VALUES ('unterminated);")
	ds, err := ReadDumps(b, a)
	if err != nil || len(ds) != 2 || ds[0].Name != "b" || ds[1].Name != "a" {
		t.Fatalf("ReadDumps(b, a) = %v, %v", ds, err)
	}
	if _, err := ReadDumps(a, bad, b); err == nil || !strings.HasPrefix(err.Error(), bad+":2: unterminated string") {
		t.Errorf("a dump that does not parse: %v", err)
	}
	missing := filepath.Join(dir, "missing.sql")
	if _, err := ReadDumps(a, missing); err == nil || !errors.Is(err, os.ErrNotExist) || !strings.Contains(err.Error(), missing) {
		t.Errorf("a missing dump: %v", err)
	}
}
