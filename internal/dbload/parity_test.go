package dbload

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/sqljudge/sqljudge/internal/shareddata"
	"github.com/sqljudge/sqljudge/internal/testserver"
)

// pinClock rewrites a dump so that PostgreSQL evaluates it at a fixed
// clock: CURRENT_DATE, CURRENT_TIMESTAMP and NOW() become literals.
func pinClock(t *testing.T, src string, now time.Time) string {
	t.Helper()
	toks, err := lexAll(src, "pin")
	if err != nil {
		t.Fatal(err)
	}
	ts := "TIMESTAMPTZ '" + now.Format("2006-01-02 15:04:05.999999") + "+00'"
	var b strings.Builder
	for i := 0; i < len(toks); i++ {
		tk := toks[i]
		switch {
		case tk.Kind == tWord && tk.Val == "current_date":
			b.WriteString("DATE '" + now.Format("2006-01-02") + "'")
		case tk.Kind == tWord && tk.Val == "current_timestamp":
			b.WriteString(ts)
		case tk.Kind == tWord && tk.Val == "now" && i+2 < len(toks) && toks[i+1].Text == "(" && toks[i+2].Text == ")":
			b.WriteString(ts)
			i += 2
		default:
			b.WriteString(tk.Text)
		}
	}
	return b.String()
}

// lexAll lexes src (named file in errors) into all its tokens, blanks and
// comments included.
func lexAll(src, file string) ([]token, error) {
	lx := &lexer{src: src, line: 1, file: file}
	var toks []token
	for {
		tk, ok, err := lx.next()
		if err != nil {
			return nil, err
		}
		if !ok {
			return toks, nil
		}
		toks = append(toks, tk)
	}
}

// parityClocks exercise month ends, leap days, ISO weeks across years and
// fractional seconds.
var parityClocks = []time.Time{
	time.Date(2026, 11, 22, 3, 9, 29, 167011000, time.UTC), // a Sunday
	time.Date(2024, 2, 29, 23, 59, 59, 999999000, time.UTC),
	time.Date(2024, 3, 31, 12, 0, 0, 0, time.UTC),        // - 1 month clamps to Feb 29
	time.Date(2021, 1, 3, 8, 30, 0, 500000000, time.UTC), // ISO year 2020, week 53
	time.Date(2023, 1, 1, 0, 0, 0, 0, time.UTC),
}

// TestEvaluatorMatchesPostgres loads every Defog dump into PostgreSQL with
// the clock pinned, evaluates the same dump in Go at the same clock, and
// compares every stored cell as PostgreSQL prints it: the data the
// translating targets (SQLite, MySQL, DuckDB) receive is the data a
// PostgreSQL load holds.
func TestEvaluatorMatchesPostgres(t *testing.T) {
	server := testserver.Postgres(t)
	files := shareddata.DefogDumps(t)
	prefix := testserver.Name("sjt_parity_")
	ctx := context.Background()
	cells := 0
	for _, f := range files {
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		clocks := parityClocks
		if !strings.Contains(strings.ToLower(string(src)), "current_") && !strings.Contains(strings.ToLower(string(src)), "now()") {
			clocks = clocks[:1]
		}
		orig, err := ParseDump(f, filepath.Base(filepath.Dir(f)), string(src))
		if err != nil {
			t.Fatal(err)
		}
		for ci, now := range clocks {
			name := fmt.Sprintf("%s_%d", orig.Name, ci)
			pinned, err := ParseDump(f, name, pinClock(t, string(src), now))
			if err != nil {
				t.Fatal(err)
			}
			if _, err := Load(ctx, server, []*Dump{pinned}, Options{Prefix: prefix, Replace: true}); err != nil {
				t.Fatalf("load %s into PostgreSQL: %v", name, err)
			}
			t.Cleanup(func() { testserver.DropPostgresDB(t, server, prefix+name) })
			ev, err := orig.evaluate(now)
			if err != nil {
				t.Fatalf("%s at %s: %v", orig.Name, now, err)
			}
			c := testserver.ConnectPostgres(t, server, prefix+name)
			for _, td := range ev.Tables {
				cells += compareTable(t, c, td, now)
			}
			c.Close(ctx)
		}
	}
	t.Logf("%d cells equal to PostgreSQL's", cells)
	if cells < 5000 {
		t.Errorf("only %d cells compared", cells)
	}
}

func compareTable(t *testing.T, c *pgx.Conn, td *tableData, now time.Time) int {
	t.Helper()
	tbl := pgx.Identifier{td.Table.Name}
	if td.Table.Schema != "" {
		tbl = pgx.Identifier{td.Table.Schema, td.Table.Name}
	}
	res, err := c.PgConn().Exec(context.Background(), "SELECT * FROM "+tbl.Sanitize()+" ORDER BY ctid").ReadAll()
	if err != nil {
		t.Fatalf("%s: %v", td.Table.Name, err)
	}
	rows := res[0].Rows
	if len(rows) != len(td.Rows) {
		t.Errorf("%s at %s: PostgreSQL has %d rows, Go %d", td.Table.Name, now, len(rows), len(td.Rows))
		return 0
	}
	n, bad := 0, 0
	for i, r := range rows {
		for j, cell := range r {
			v := td.Rows[i][j]
			got := "NULL"
			if v.t != vNull {
				got = textOut(v)
			}
			want := "NULL"
			if cell != nil {
				want = string(cell)
			}
			if got != want && bad < 5 {
				bad++
				t.Errorf("%s row %d column %s at %s: Go %q, PostgreSQL %q", td.Table.Name, i+1, td.Table.Columns[j].Name, now.Format(time.RFC3339Nano), got, want)
			}
			n++
		}
	}
	return n
}

// TestToCharMatchesPostgres compares to_char's template patterns with
// PostgreSQL's on timestamps chosen for edge cases.
func TestToCharMatchesPostgres(t *testing.T) {
	server := testserver.Postgres(t)
	c := testserver.ConnectPostgres(t, server, "")
	if _, err := c.Exec(context.Background(), "SET TimeZone = 'UTC'"); err != nil {
		t.Fatal(err)
	}
	formats := []string{
		"%Y%m%d %H:%i:%s", "Month", "FMMonth", "MONTH", "month", "Mon DD, YYYY", "Day", "FMDay", "DY dy Dy",
		"YYYY-MM-DD HH24:MI:SS.US", "HH12:MI AM", "hh:mi pm", "A.M. a.m.", "Y,YYY YYY YY Y", "IYYY-IW-ID IDDD",
		"DDD D W WW Q CC J", "RM rm", "FF1 FF3 FF6 MS", "SSSS SSSSS", "DDth ddTH FMDDth", "\"quoted YYYY\" YYYY",
		"TZ tz OF TZH:TZM", "FMHH24:FMMI", "yyyy-mm-dd", "BC AD b.c.", "\\YYYY",
	}
	times := []time.Time{
		time.Date(2026, 11, 22, 3, 9, 29, 167011000, time.UTC),
		time.Date(2021, 1, 3, 0, 0, 0, 0, time.UTC),
		time.Date(2024, 12, 30, 12, 0, 5, 500000000, time.UTC),
		time.Date(2001, 2, 3, 23, 4, 5, 6000, time.UTC),
		time.Date(1999, 12, 31, 11, 59, 59, 0, time.UTC),
	}
	for _, tm := range times {
		for _, withZone := range []bool{false, true} {
			typ := "timestamp"
			if withZone {
				typ = "timestamptz"
			}
			for _, f := range formats {
				var want string
				lit := tm.Format("2006-01-02 15:04:05.999999")
				if err := c.QueryRow(context.Background(), "SELECT to_char($1::"+typ+", $2)", lit, f).Scan(&want); err != nil {
					t.Fatal(err)
				}
				if got := toChar(tm, withZone, f); got != want {
					t.Errorf("to_char(%s '%s', %q) = %q, PostgreSQL %q", typ, lit, f, got, want)
				}
			}
		}
	}
}

// TestSampleMatchesPostgres does the same for the sample dump: COPY data,
// SERIAL values and DEFAULTs for omitted columns, a schema, char padding,
// real and numeric rounding.
func TestSampleMatchesPostgres(t *testing.T) {
	server := testserver.Postgres(t)
	prefix := testserver.Name("sjt_sample_")
	now := parityClocks[2]
	pinned, err := ParseDump("sample.sql", "sample", pinClock(t, sampleDump, now))
	if err != nil {
		t.Fatal(err)
	}
	reps, err := Load(context.Background(), server, []*Dump{pinned}, Options{Prefix: prefix})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { testserver.DropPostgresDB(t, server, prefix+"sample") })
	if reps[0].Tables != 1 || reps[0].Rows != 5 || reps[0].Statements != 5 {
		t.Errorf("report %+v", reps[0])
	}
	orig, err := ParseDump("sample.sql", "sample", sampleDump)
	if err != nil {
		t.Fatal(err)
	}
	ev, err := orig.evaluate(now)
	if err != nil {
		t.Fatal(err)
	}
	c := testserver.ConnectPostgres(t, server, prefix+"sample")
	if n := compareTable(t, c, ev.Tables[0], now); n != 5*11 {
		t.Errorf("%d cells compared", n)
	}
}

// TestPostgresLoadErrors: a failing statement is reported with its file
// and line, and an existing database is not replaced unless asked.
func TestPostgresLoadErrors(t *testing.T) {
	server := testserver.Postgres(t)
	prefix := testserver.Name("sjt_err_")
	bad, err := ParseDump("bad.sql", "bad", "CREATE TABLE t (a int);\n\nINSERT INTO nosuch VALUES (1);\n")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { testserver.DropPostgresDB(t, server, prefix+"bad") })
	_, err = Load(context.Background(), server, []*Dump{bad}, Options{Prefix: prefix})
	if err == nil || !strings.HasPrefix(err.Error(), `bad.sql:3: PostgreSQL: relation "nosuch" does not exist`) {
		t.Errorf("err = %v", err)
	}
	_, err = Load(context.Background(), server, []*Dump{bad}, Options{Prefix: prefix})
	if err == nil || !strings.Contains(err.Error(), "--replace") {
		t.Errorf("second load without Replace: %v", err)
	}
}
