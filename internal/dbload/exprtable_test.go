package dbload

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/sqljudge/sqljudge/internal/testserver"
)

var recordPG = flag.Bool("record", false, "re-record "+exprTableFile+" from the PostgreSQL server in $"+testserver.PostgresEnv)

// exprTableFile holds PostgreSQL's own output for every exprCases entry,
// recorded by
//
//	source .ci/servers.sh; start_postgres /tmp/sj/pg
//	go test ./internal/dbload -run TestExprTable -record
//
// so that the evaluator's table test needs no server.
const exprTableFile = "testdata/postgres_exprs.jsonl"

// exprCase is one value expression of a dump. With typ empty it is
// selected (SELECT expr: eval.go's operators, functions and explicit
// casts); with typ set it is assigned to a column of that type (INSERT:
// cast.go's assignment rules). clock indexes parityClocks: CURRENT_DATE,
// NOW() and friends read it. refused marks an input PostgreSQL reads and
// the evaluator does not support: it must refuse it with an error, never
// load a different value.
type exprCase struct {
	expr, typ string
	clock     int
	refused   bool
}

// exprCases cover the evaluator's paths: literals, arithmetic on every
// numeric and date/time type, intervals, DATE_TRUNC and EXTRACT fields,
// TO_CHAR, the clock functions, explicit casts and assignments of every
// family with modifiers, rounding and overflow, and the errors PostgreSQL
// raises.
var exprCases = []exprCase{
	// literals and numeric arithmetic
	{expr: "42"}, {expr: "-42"}, {expr: "4.50"}, {expr: "1e3"}, {expr: "9223372036854775807"},
	{expr: "9223372036854775808"}, {expr: "7 / 2"}, {expr: "-7 / 2"}, {expr: "7 % 3"}, {expr: "-7 % 3"},
	{expr: "1.0 / 3"}, {expr: "10 / 4.0"}, {expr: "2.50 * 2"}, {expr: "1.5 + 1"}, {expr: "0.1 + 0.2"},
	{expr: "1 / 0"}, {expr: "1.0 / 0"}, {expr: "9223372036854775807 + 1"}, {expr: "'5' + 1"}, {expr: "- (3 - 5)"},
	{expr: "2 * 3 + 4 * 5"}, {expr: "(2 + 3) * 4"}, {expr: "1.5::real * 2"}, {expr: "1.1::double precision + 2.2"},
	{expr: "3::real / 7"}, {expr: "100000000::real"}, {expr: "1e-7::double precision"}, {expr: "123456789.123::real"},
	// text
	{expr: "'a' || 'b'"}, {expr: "'n=' || 5"}, {expr: "1 || '-' || 2.50"}, {expr: "'x' || NULL"}, {expr: "concat('a', 1, NULL, true)"},
	{expr: "lower('ÀBC')"}, {expr: "upper('straße')"}, {expr: "E'tab\\there'"}, {expr: "'it''s'"}, {expr: "$$dollar 'quoted'$$"},
	// explicit casts
	{expr: "'42'::integer"}, {expr: "' 42 '::integer"}, {expr: "'4.5'::integer"}, {expr: "2.5::integer"}, {expr: "-2.5::integer"},
	{expr: "3.5::smallint"}, {expr: "2.5::double precision::integer"}, {expr: "3.5::double precision::integer"},
	{expr: "40000::smallint"}, {expr: "CAST(12.345 AS numeric(5,2))"}, {expr: "1.005::numeric(5,2)"}, {expr: "-1.005::numeric(5,2)"},
	{expr: "999.995::numeric(5,2)"}, {expr: "'12.5'::numeric"}, {expr: "12.5000::numeric"}, {expr: "12::numeric(6,3)"},
	{expr: "'1e2'::numeric"}, {expr: "'abc'::integer"}, {expr: "'3.14159265358979'::real"}, {expr: "'1e39'::real"},
	{expr: "'yes'::boolean"}, {expr: "'off'::boolean"}, {expr: "' TRUE '::boolean"}, {expr: "'1'::boolean"}, {expr: "'maybe'::boolean"},
	{expr: "1::boolean"}, {expr: "true::text"}, {expr: "42::text"}, {expr: "'abcdef'::varchar(3)"}, {expr: "'ab'::char(5)"},
	{expr: "'ab'::char(5) || 'c'"}, {expr: "'abc'::character varying"}, {expr: "'\\x00ff'::bytea"},
	// dates, times, timestamps
	{expr: "DATE '2024-02-29'"}, {expr: "'2024-02-29'::date + 1"}, {expr: "DATE '2024-03-01' - 1"},
	{expr: "DATE '2024-03-01' - DATE '2023-03-01'"}, {expr: "DATE '2024-01-31' + INTERVAL '1 month'"},
	{expr: "DATE '2024-03-31' - INTERVAL '1 month'"}, {expr: "TIMESTAMP '2024-02-29 13:05:09.123456'"},
	{expr: "TIMESTAMP '2024-02-29 13:05:09.1234567'"}, {expr: "TIMESTAMPTZ '2024-02-29 23:30:00+02'"},
	{expr: "TIMESTAMP WITH TIME ZONE '2024-02-29 23:30:00-05:30'"}, {expr: "'2024-02-29 13:05'::timestamp::date"},
	{expr: "TIME '13:05:09'"}, {expr: "TIME '24:00:00'", refused: true}, {expr: "TIMESTAMP '2024-02-29 13:05:09'::time"},
	{expr: "TIMESTAMP '2024-02-29 13:05:09' + INTERVAL '1 day 2 hours'"}, {expr: "TIMESTAMP '2024-01-31 10:00' + INTERVAL '1 month'"},
	{expr: "TIMESTAMPTZ '2024-03-01 00:00+00' - TIMESTAMPTZ '2024-02-28 12:30+00'"},
	{expr: "TIMESTAMP '2024-03-01 00:00' - TIMESTAMP '2023-02-28 12:30'"}, {expr: "'2024-02-30'::date"}, {expr: "'20240229'::date", refused: true},
	{expr: "'Feb 29, 2024'::date", refused: true}, {expr: "'2024-02-29T13:05:09Z'::timestamptz"}, {expr: "'2024-02-29 13:05:09'::timestamp(0)"},
	// intervals
	{expr: "INTERVAL '1 year 2 months 3 days'"}, {expr: "INTERVAL '2 days 03:04:05.5'"}, {expr: "INTERVAL '-1 day'"},
	{expr: "INTERVAL '1.5 hours'"}, {expr: "INTERVAL '90 minutes'"}, {expr: "INTERVAL '5' DAY"}, {expr: "INTERVAL '1 week'"},
	{expr: "INTERVAL '1 mon' * 2"}, {expr: "2 * INTERVAL '1 day 1 hour'"}, {expr: "INTERVAL '1 day' - INTERVAL '1 hour'"},
	{expr: "- INTERVAL '1 year 1 day'"}, {expr: "INTERVAL '100 years'"}, {expr: "INTERVAL '1 year -1 mon'"}, {expr: "INTERVAL '7 days ago'"},
	// the clock
	{expr: "CURRENT_DATE"}, {expr: "NOW()"}, {expr: "CURRENT_TIMESTAMP"}, {expr: "CURRENT_DATE - 30", clock: 1},
	{expr: "CURRENT_DATE - INTERVAL '1 month'", clock: 2}, {expr: "NOW() - INTERVAL '2 years'", clock: 1},
	{expr: "NOW() + INTERVAL '1 month'", clock: 3}, {expr: "CURRENT_DATE + 1", clock: 4},
	// date_trunc
	{expr: "date_trunc('year', TIMESTAMP '2024-02-29 13:05:09.5')"}, {expr: "date_trunc('quarter', TIMESTAMP '2024-05-29 13:05')"},
	{expr: "date_trunc('month', CURRENT_DATE)", clock: 1}, {expr: "date_trunc('week', TIMESTAMP '2021-01-03 08:30')"},
	{expr: "date_trunc('day', NOW())", clock: 3}, {expr: "date_trunc('hour', TIMESTAMP '2024-02-29 13:05:09')"},
	{expr: "date_trunc('minute', TIMESTAMP '2024-02-29 13:05:09')"}, {expr: "date_trunc('second', TIMESTAMP '2024-02-29 13:05:09.9')"},
	{expr: "date_trunc('decade', TIMESTAMP '2024-02-29')"}, {expr: "date_trunc('century', TIMESTAMP '2001-02-03')"},
	{expr: "date_trunc('millennium', TIMESTAMP '2001-02-03')"}, {expr: "date_trunc('MONTH', DATE '2024-02-29')"},
	{expr: "date_trunc('fortnight', TIMESTAMP '2024-02-29')"},
	// extract
	{expr: "EXTRACT(YEAR FROM DATE '2024-02-29')"}, {expr: "EXTRACT(month FROM TIMESTAMP '2024-02-29 13:05')"},
	{expr: "EXTRACT(DAY FROM NOW())", clock: 1}, {expr: "EXTRACT(DOW FROM DATE '2026-11-22')"}, {expr: "EXTRACT(ISODOW FROM DATE '2026-11-22')"},
	{expr: "EXTRACT(DOY FROM DATE '2024-12-31')"}, {expr: "EXTRACT(WEEK FROM DATE '2021-01-03')"}, {expr: "EXTRACT(ISOYEAR FROM DATE '2021-01-03')"},
	{expr: "EXTRACT(QUARTER FROM DATE '2024-11-30')"}, {expr: "EXTRACT(EPOCH FROM TIMESTAMP '2024-02-29 13:05:09.5')"},
	{expr: "EXTRACT(EPOCH FROM TIMESTAMPTZ '1970-01-02 00:00:00+00')"}, {expr: "EXTRACT(SECOND FROM TIMESTAMP '2024-02-29 13:05:09.25')"},
	{expr: "EXTRACT(MILLISECONDS FROM TIME '13:05:09.25')"}, {expr: "EXTRACT(MICROSECONDS FROM TIME '13:05:09.25')"},
	{expr: "EXTRACT(HOUR FROM TIME '13:05:09')"}, {expr: "EXTRACT(MINUTE FROM TIMESTAMP '2024-02-29 13:05')"},
	{expr: "EXTRACT(CENTURY FROM DATE '2001-01-01')"}, {expr: "EXTRACT(MILLENNIUM FROM DATE '2000-12-31')"},
	{expr: "EXTRACT(DECADE FROM DATE '2024-02-29')"}, {expr: "EXTRACT(JULIAN FROM DATE '2024-02-29')"},
	{expr: "EXTRACT(EPOCH FROM INTERVAL '1 day 2 hours')"}, {expr: "EXTRACT(DAY FROM INTERVAL '40 days')"},
	{expr: "EXTRACT(MONTH FROM INTERVAL '14 months')"}, {expr: "EXTRACT(YEAR FROM INTERVAL '14 months')"},
	{expr: "EXTRACT(HOUR FROM INTERVAL '26 hours')"}, {expr: "EXTRACT('year' FROM DATE '2024-02-29')"},
	// to_char
	{expr: "to_char(DATE '2024-02-29', 'YYYY-MM-DD Dy')"}, {expr: "to_char(NOW(), 'FMMonth DD, YYYY HH12:MI AM')", clock: 0},
	{expr: "to_char(TIMESTAMPTZ '2024-02-29 23:30:00+02', 'IYYY-IW TZ')"},
	// NULL propagation
	{expr: "NULL"}, {expr: "NULL + 1"}, {expr: "date_trunc('day', NULL::timestamp)"}, {expr: "EXTRACT(YEAR FROM NULL::date)"},
	{expr: "CAST(NULL AS integer)"}, {expr: "lower(NULL)"},

	// assignment to a column (INSERT)
	{expr: "'abc'", typ: "varchar(3)"}, {expr: "'abc   '", typ: "varchar(3)"}, {expr: "'abcd'", typ: "varchar(3)"},
	{expr: "'ab'", typ: "char(4)"}, {expr: "'abcde'", typ: "char(4)"}, {expr: "'x'", typ: "character"},
	{expr: "12.345", typ: "numeric(5,2)"}, {expr: "12.345", typ: "numeric(4,2)"}, {expr: "'1.005'", typ: "numeric(10,2)"},
	{expr: "12", typ: "numeric(10,2)"}, {expr: "1.5", typ: "numeric"}, {expr: "1.50", typ: "numeric"}, {expr: "'0.000'", typ: "numeric"},
	{expr: "2.5", typ: "integer"}, {expr: "3.5", typ: "integer"}, {expr: "'7'", typ: "integer"}, {expr: "'7.0'", typ: "integer"},
	{expr: "1.5::double precision", typ: "bigint"}, {expr: "2.5::double precision", typ: "smallint"}, {expr: "70000", typ: "smallint"},
	{expr: "0.1", typ: "real"}, {expr: "'0.1'", typ: "double precision"}, {expr: "1", typ: "double precision"},
	{expr: "16777217", typ: "real"}, {expr: "'Infinity'", typ: "double precision"}, {expr: "'NaN'", typ: "real"},
	{expr: "true", typ: "text"}, {expr: "true", typ: "varchar(3)"}, {expr: "42", typ: "text"}, {expr: "4.20", typ: "varchar(10)"},
	{expr: "'t'", typ: "boolean"}, {expr: "1", typ: "boolean"}, {expr: "'2024-02-29'", typ: "date"},
	{expr: "TIMESTAMP '2024-02-29 13:05:09'", typ: "date"}, {expr: "DATE '2024-02-29'", typ: "timestamp"},
	{expr: "DATE '2024-02-29'", typ: "timestamptz"}, {expr: "'2024-02-29 13:05:09.5+01'", typ: "timestamptz"},
	{expr: "'2024-02-29 13:05:09.5+01'", typ: "timestamp"}, {expr: "TIMESTAMPTZ '2024-02-29 13:05:09+03'", typ: "time"},
	{expr: "'13:05'", typ: "time"}, {expr: "'1 day'", typ: "interval"}, {expr: "'P1Y2M3DT4H5M6S'", typ: "interval", refused: true},
	{expr: "NOW()", typ: "date", clock: 1}, {expr: "CURRENT_DATE", typ: "timestamptz", clock: 3},
	{expr: "'\\x414243'", typ: "bytea"}, {expr: "'{\"a\": 1}'", typ: "json"}, {expr: "'8d2ae5d6-0f1b-4b5e-9f1e-2b0a6d3c4e5f'", typ: "uuid"},
	{expr: "DATE '2024-02-29'", typ: "integer"}, {expr: "'abc'", typ: "date"},
}

// exprRecord is one line of exprTableFile: a case, its clock, and what
// PostgreSQL printed (text output, "NULL" for a null) or the error it
// raised.
type exprRecord struct {
	Expr  string `json:"expr"`
	Type  string `json:"type,omitempty"`
	Now   string `json:"now"`
	PG    string `json:"pg,omitempty"`
	Error string `json:"error,omitempty"`
}

func (c exprCase) key() string { return c.typ + "\x00" + c.expr + "\x00" + fmt.Sprint(c.clock) }

// TestExprTable evaluates every exprCases entry with the Go evaluator and
// compares its text output with PostgreSQL's recorded one: the same text,
// or an error where PostgreSQL raised one.
func TestExprTable(t *testing.T) {
	if *recordPG {
		recordExprTable(t)
	}
	recs := readExprTable(t)
	if len(recs) != len(exprCases) {
		t.Fatalf("%s has %d records for %d cases: re-record with -record", exprTableFile, len(recs), len(exprCases))
	}
	for i, c := range exprCases {
		r := recs[i]
		now := parityClocks[c.clock]
		if r.Expr != c.expr || r.Type != c.typ || r.Now != now.Format(time.RFC3339Nano) {
			t.Fatalf("%s line %d is %q (%s) at %s, the case is %q (%s) at %s: re-record with -record",
				exprTableFile, i+1, r.Expr, r.Type, r.Now, c.expr, c.typ, now.Format(time.RFC3339Nano))
		}
		got, err := evalCase(c, now)
		name := c.expr
		if c.typ != "" {
			name = fmt.Sprintf("%s into %s", c.expr, c.typ)
		}
		switch {
		case c.refused && (err == nil || r.Error != ""):
			t.Errorf("%s: Go %q, %v; want an error for an input PostgreSQL reads (%q) and the evaluator does not support", name, got, err, r.PG)
		case c.refused:
		case r.Error != "" && err == nil:
			t.Errorf("%s: Go %q, PostgreSQL raised %s", name, got, r.Error)
		case r.Error == "" && err != nil:
			t.Errorf("%s: Go error %v, PostgreSQL %q", name, err, r.PG)
		case r.Error == "" && got != r.PG:
			t.Errorf("%s: Go %q, PostgreSQL %q", name, got, r.PG)
		}
	}
}

// evalCase evaluates c at clock now with the Go evaluator and returns
// its text output ("NULL" for a null).
func evalCase(c exprCase, now time.Time) (string, error) {
	env := &evalEnv{now: now.UTC().Truncate(time.Microsecond), file: "expr"}
	toks, err := exprTokens(c.expr)
	if err != nil {
		return "", err
	}
	v, err := env.evalExpr(toks)
	if err != nil {
		return "", err
	}
	if c.typ != "" {
		tt, err := exprTokens(c.typ)
		if err != nil {
			return "", err
		}
		p := &exprParser{env: env, toks: tt}
		typ, mods, err := p.typeName()
		if err != nil {
			return "", err
		}
		if p.i != len(tt) {
			return "", fmt.Errorf("type %q: trailing tokens", c.typ)
		}
		if v, err = env.assign(v, &Column{Name: "c", Type: typ, Mods: mods}); err != nil {
			return "", err
		}
	}
	if v.t == vNull {
		return "NULL", nil
	}
	return textOut(v), nil
}

// exprTokens lexes src without its blanks and comments.
func exprTokens(src string) ([]token, error) {
	toks, err := lexAll(src, "expr")
	if err != nil {
		return nil, err
	}
	var out []token
	for _, tk := range toks {
		if tk.Kind != tSpace && tk.Kind != tComment {
			out = append(out, tk)
		}
	}
	return out, nil
}

func readExprTable(t *testing.T) []exprRecord {
	f, err := os.Open(exprTableFile)
	if err != nil {
		t.Fatalf("%v (record it with -record against a PostgreSQL server)", err)
	}
	defer f.Close()
	var out []exprRecord
	sc := bufio.NewScanner(f)
	for line := 1; sc.Scan(); line++ {
		var r exprRecord
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			t.Fatalf("%s:%d: %v", exprTableFile, line, err)
		}
		out = append(out, r)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// recordExprTable runs every case on the PostgreSQL server (session zone
// UTC, the clock pinned by pinClock) and writes exprTableFile.
func recordExprTable(t *testing.T) {
	server := testserver.Postgres(t)
	c := testserver.ConnectPostgres(t, server, "")
	ctx := context.Background()
	if _, err := c.Exec(ctx, "SET TimeZone = 'UTC'"); err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	seen := map[string]bool{}
	for _, ec := range exprCases {
		if seen[ec.key()] {
			t.Fatalf("case %q (%s) twice", ec.expr, ec.typ)
		}
		seen[ec.key()] = true
		now := parityClocks[ec.clock]
		expr := pinClock(t, ec.expr, now)
		sql, last := "SELECT "+expr, 0
		if ec.typ != "" {
			sql = "CREATE TEMP TABLE sj_expr (c " + ec.typ + "); INSERT INTO sj_expr VALUES (" + expr + "); SELECT c FROM sj_expr; DROP TABLE sj_expr"
			last = 2
		}
		rec := exprRecord{Expr: ec.expr, Type: ec.typ, Now: now.Format(time.RFC3339Nano)}
		res, err := c.PgConn().Exec(ctx, sql).ReadAll()
		var pe *pgconn.PgError
		switch {
		case errors.As(err, &pe):
			rec.Error = pe.Message + " (SQLSTATE " + pe.Code + ")"
		case err != nil:
			t.Fatalf("%s: %v", sql, err)
		case len(res[last].Rows) != 1 || len(res[last].Rows[0]) != 1:
			t.Fatalf("%s: %d rows", sql, len(res[last].Rows))
		case res[last].Rows[0][0] == nil:
			rec.PG = "NULL"
		default:
			rec.PG = string(res[last].Rows[0][0])
		}
		line, err := json.Marshal(rec)
		if err != nil {
			t.Fatal(err)
		}
		b.Write(line)
		b.WriteByte('\n')
	}
	if err := os.MkdirAll(filepath.Dir(exprTableFile), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(exprTableFile, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("recorded %d cases in %s", len(exprCases), exprTableFile)
}
