// Package enginetest is the one test suite every sqljudge engine passes
// (SQLite, PostgreSQL, MySQL/MariaDB, DuckDB): value types and their
// normalisation into the typed value model, ordering, column names, the row
// cap, one statement per call, read-only execution against hostile
// statements, timeouts and cancellation, unknown databases, and concurrent
// use. It follows golang-migrate's database/testing: each engine package's
// test builds the fixture with a writable connection of its own, then calls
// Run with an engine built with MaxRows.
//
//	for _, s := range enginetest.Fixture("postgres") { adminConn.Exec(s) }
//	e, _ := postgres.New(dsn, postgres.Options{MaxRows: enginetest.MaxRows})
//	enginetest.Run(t, e, "fixture_db")
package enginetest

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/sqljudge/sqljudge/internal/engine"
	"github.com/sqljudge/sqljudge/internal/result"
)

// MaxRows is the row cap the engine under test must be built with. The
// fixture's sj_order table has 12 rows, its cross join with itself 144.
const MaxRows = 20

// orderRows is the content of sj_order: (id, k, s).
var orderRows = []struct {
	id, k int
	s     string
}{
	{1, 5, "d"}, {2, 3, "a"}, {3, 5, "b"}, {4, 1, "c"}, {5, 9, "a"}, {6, 3, "e"},
	{7, 7, "b"}, {8, 2, "d"}, {9, 9, "c"}, {10, 4, "a"}, {11, 6, "e"}, {12, 8, "b"},
}

// Fixture returns the statements that create the suite's tables, in the
// given dialect ("sqlite", "postgres", "mysql", "duckdb"), in an empty
// database: sj_types (one column per value type, a row of values, a row of
// NULLs, a row of edge values) and sj_order (12 rows of ids, keys and
// letters). For MySQL, run them in a session with time_zone '+00:00'. It
// returns nil for an unknown dialect.
func Fixture(dialect string) []string {
	ddl, ok := typesDDL[dialect]
	if !ok {
		return nil
	}
	out := []string{ddl}
	for _, r := range typeRows(dialect) {
		out = append(out, "INSERT INTO sj_types (id, i, f, r, n, b, d, ts, tstz, tm, t, bt) VALUES ("+strings.Join(r, ", ")+")")
	}
	out = append(out, "CREATE TABLE sj_order (id INTEGER PRIMARY KEY, k INTEGER NOT NULL, s VARCHAR(10) NOT NULL)")
	var vals []string
	for _, r := range orderRows {
		vals = append(vals, fmt.Sprintf("(%d, %d, '%s')", r.id, r.k, r.s))
	}
	out = append(out, "INSERT INTO sj_order (id, k, s) VALUES "+strings.Join(vals, ", "))
	if dialect == "postgres" {
		out = append(out, "CREATE SEQUENCE sj_seq")
	}
	return out
}

var typesDDL = map[string]string{
	"postgres": `CREATE TABLE sj_types (id INTEGER PRIMARY KEY, i BIGINT, f DOUBLE PRECISION, r REAL,
		n NUMERIC(20,6), b BOOLEAN, d DATE, ts TIMESTAMP, tstz TIMESTAMPTZ, tm TIME, t TEXT, bt BYTEA)`,
	"mysql": `CREATE TABLE sj_types (id INTEGER PRIMARY KEY, i BIGINT, f DOUBLE, r FLOAT,
		n DECIMAL(20,6), b BOOLEAN, d DATE, ts DATETIME(6), tstz TIMESTAMP(6) NULL, tm TIME(6), t TEXT, bt VARBINARY(16))
		CHARACTER SET utf8mb4`,
	"duckdb": `CREATE TABLE sj_types (id INTEGER PRIMARY KEY, i BIGINT, f DOUBLE, r REAL,
		n DECIMAL(20,6), b BOOLEAN, d DATE, ts TIMESTAMP, tstz TIMESTAMPTZ, tm TIME, t VARCHAR, bt BLOB)`,
	"sqlite": `CREATE TABLE sj_types (id INTEGER PRIMARY KEY, i INTEGER, f REAL, r REAL,
		n NUMERIC, b BOOLEAN, d DATE, ts TIMESTAMP, tstz TIMESTAMPTZ, tm TIME, t TEXT, bt BLOB)`,
}

// typeRows returns the literals of sj_types' three rows in a dialect.
func typeRows(dialect string) [][]string {
	null := []string{"2", "NULL", "NULL", "NULL", "NULL", "NULL", "NULL", "NULL", "NULL", "NULL", "NULL", "NULL"}
	switch dialect {
	case "postgres":
		return [][]string{
			{"1", "42", "2.5", "1.1", "12.5", "TRUE", "DATE '2024-02-29'", "TIMESTAMP '2024-02-29 13:05:09.123456'",
				"TIMESTAMPTZ '2024-02-29 23:30:00+02'", "TIME '13:05:09'", "'héllo ☃'", `'\x00ff41'::bytea`},
			null,
			{"3", "9007199254740993", "0.1", "-2.25", "-0.000001", "FALSE", "DATE '1999-12-31'", "TIMESTAMP '1999-12-31 23:59:59'",
				"TIMESTAMPTZ '2000-01-01 00:00:00+00'", "TIME '00:00:00.5'", "'it''s'", `''::bytea`},
		}
	case "mysql":
		return [][]string{
			{"1", "42", "2.5", "1.1", "12.5", "TRUE", "'2024-02-29'", "'2024-02-29 13:05:09.123456'",
				"'2024-02-29 21:30:00'", "'13:05:09'", "'héllo ☃'", "x'00ff41'"},
			null,
			{"3", "9007199254740993", "0.1", "-2.25", "-0.000001", "FALSE", "'1999-12-31'", "'1999-12-31 23:59:59'",
				"'2000-01-01 00:00:00'", "'00:00:00.5'", "'it''s'", "x''"},
		}
	case "duckdb":
		return [][]string{
			{"1", "42", "2.5", "1.1", "12.5", "TRUE", "DATE '2024-02-29'", "TIMESTAMP '2024-02-29 13:05:09.123456'",
				"TIMESTAMPTZ '2024-02-29 23:30:00+02'", "TIME '13:05:09'", "'héllo ☃'", `'\x00\xFF\x41'::BLOB`},
			null,
			{"3", "9007199254740993", "0.1", "-2.25", "-0.000001", "FALSE", "DATE '1999-12-31'", "TIMESTAMP '1999-12-31 23:59:59'",
				"TIMESTAMPTZ '2000-01-01 00:00:00+00'", "TIME '00:00:00.5'", "'it''s'", `''::BLOB`},
		}
	case "sqlite":
		return [][]string{
			{"1", "42", "2.5", "1.1", "12.5", "1", "'2024-02-29'", "'2024-02-29 13:05:09.123456'",
				"'2024-02-29 21:30:00+00:00'", "'13:05:09'", "'héllo ☃'", "x'00ff41'"},
			null,
			{"3", "9007199254740993", "0.1", "-2.25", "-0.000001", "0", "'1999-12-31'", "'1999-12-31 23:59:59'",
				"'2000-01-01 00:00:00+00:00'", "'00:00:00.5'", "'it''s'", "x''"},
		}
	}
	return nil
}

func dec(s string) result.Value {
	v, ok := result.DecimalValue(s)
	if !ok {
		panic("enginetest: bad decimal " + s)
	}
	return v
}

func mustTime(layout, s string) time.Time {
	t, err := time.Parse(layout, s)
	if err != nil {
		panic(err)
	}
	return t
}

// expectedTypes returns the values each engine must return for
// `SELECT id, i, f, r, n, b, d, ts, tstz, tm, t, bt FROM sj_types ORDER BY
// id`: the same stored data, normalised as each dialect's official Python
// driver would return it (see each engine's decode rules).
func expectedTypes(dialect string) [][]result.Value {
	const dt = "2006-01-02 15:04:05.999999"
	date1, date3 := mustTime("2006-01-02", "2024-02-29"), mustTime("2006-01-02", "1999-12-31")
	ts1, ts3 := mustTime(dt, "2024-02-29 13:05:09.123456"), mustTime(dt, "1999-12-31 23:59:59")
	tz1, tz3 := mustTime(dt, "2024-02-29 21:30:00"), mustTime(dt, "2000-01-01 00:00:00")
	r1 := []result.Value{result.IntValue(1), result.IntValue(42), result.FloatValue(2.5), result.FloatValue(1.1)}
	r3 := []result.Value{result.IntValue(3), result.IntValue(9007199254740993), result.FloatValue(0.1), result.FloatValue(-2.25)}
	null := []result.Value{result.IntValue(2)}
	for range 11 {
		null = append(null, result.NullValue())
	}
	text1, text3 := result.TextValue("héllo ☃"), result.TextValue("it's")
	blob1, blob3 := result.BlobValue([]byte{0, 0xff, 0x41}), result.BlobValue(nil)
	switch dialect {
	case "postgres", "duckdb":
		r1 = append(r1, dec("12.5"), result.BoolValue(true), result.DateOf(date1), result.TimestampOf(ts1),
			result.TimestampTZOf(tz1), result.TimeOfDay(13, 5, 9, 0), text1, blob1)
		r3 = append(r3, dec("-0.000001"), result.BoolValue(false), result.DateOf(date3), result.TimestampOf(ts3),
			result.TimestampTZOf(tz3), result.TimeOfDay(0, 0, 0, 500000), text3, blob3)
	case "mysql":
		r1 = append(r1, dec("12.5"), result.IntValue(1), result.DateOf(date1), result.TimestampOf(ts1),
			result.TimestampOf(tz1), result.IntervalOf((13*3600+5*60+9)*1000000), text1, blob1)
		r3 = append(r3, dec("-0.000001"), result.IntValue(0), result.DateOf(date3), result.TimestampOf(ts3),
			result.TimestampOf(tz3), result.IntervalOf(500000), text3, blob3)
	case "sqlite":
		r1 = append(r1, result.FloatValue(12.5), result.IntValue(1), result.TextValue("2024-02-29"),
			result.TextValue("2024-02-29 13:05:09.123456"), result.TextValue("2024-02-29 21:30:00+00:00"),
			result.TextValue("13:05:09"), text1, blob1)
		r3 = append(r3, result.FloatValue(-0.000001), result.IntValue(0), result.TextValue("1999-12-31"),
			result.TextValue("1999-12-31 23:59:59"), result.TextValue("2000-01-01 00:00:00+00:00"),
			result.TextValue("00:00:00.5"), text3, blob3)
	default:
		return nil
	}
	return [][]result.Value{r1, null, r3}
}

// SlowQuery returns a query that runs for hours in the dialect (CPU-bound,
// constant memory): what the timeout tests stop. It contains marker in a
// comment so that a test can find it in the server's process list.
func SlowQuery(dialect, marker string) string {
	switch dialect {
	case "postgres":
		return "SELECT count(*) /* " + marker + " */ FROM generate_series(1, 100000) a, generate_series(1, 100000) b, generate_series(1, 100000) c"
	case "mysql":
		return "WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r WHERE n < 1000) SELECT COUNT(*) /* " + marker + " */ FROM r a, r b, r c, r d"
	case "duckdb":
		return "SELECT sum(a.range * b.range + c.range) /* " + marker + " */ FROM range(100000) a, range(100000) b, range(100000) c"
	case "sqlite":
		return "WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r) SELECT count(*) /* " + marker + " */ FROM r"
	}
	return ""
}

// SleepQuery returns a query that sleeps for an hour in the dialect, or ""
// where there is no sleep function (SQLite, DuckDB).
func SleepQuery(dialect, marker string) string {
	switch dialect {
	case "postgres":
		return "SELECT pg_sleep(3600) /* " + marker + " */"
	case "mysql":
		return "SELECT SLEEP(3600) /* " + marker + " */"
	}
	return ""
}

// hostile returns statements that must fail without changing anything:
// writes, DDL, a second statement, session changes, file access. file is a
// path that none of them may create.
func hostile(dialect, file string) []string {
	common := []string{
		"INSERT INTO sj_order (id, k, s) VALUES (99, 0, 'z')",
		"UPDATE sj_order SET k = 0",
		"DELETE FROM sj_order",
		"DROP TABLE sj_order",
		"CREATE TABLE sj_evil (x INTEGER)",
		"CREATE TEMPORARY TABLE sj_evil (x INTEGER)",
		"ALTER TABLE sj_order ADD COLUMN evil INTEGER",
		"SELECT 1; DELETE FROM sj_order",
		"SELECT 1 AS x; DROP TABLE sj_order;",
		"/* comment */ DELETE FROM sj_order",
		"(DELETE FROM sj_order)",
	}
	switch dialect {
	case "postgres":
		return append(common,
			"WITH d AS (DELETE FROM sj_order RETURNING id) SELECT count(*) FROM d",
			"WITH d AS (UPDATE sj_order SET k = 0 RETURNING id) SELECT count(*) FROM d",
			"SELECT * INTO sj_evil FROM sj_order",
			"SELECT nextval('sj_seq')",
			"COPY sj_order TO '"+file+"'",
			"SET default_transaction_read_only = off",
			"SET SESSION CHARACTERISTICS AS TRANSACTION READ WRITE",
			"TRUNCATE sj_order",
			"LOCK TABLE sj_order",
			"VACUUM sj_order",
			"DO $$ BEGIN DELETE FROM sj_order; END $$",
			"COMMIT",
			"EXPLAIN ANALYZE DELETE FROM sj_order",
		)
	case "mysql":
		return append(common,
			"SELECT * FROM sj_order INTO OUTFILE '"+file+"'",
			"SELECT id INTO @x FROM sj_order LIMIT 1",
			"SELECT id FROM sj_order LIMIT 1 INTO @x",
			"SET SESSION TRANSACTION READ WRITE",
			"SET SESSION max_statement_time = 0",
			"REPLACE INTO sj_order (id, k, s) VALUES (1, 0, 'z')",
			"TRUNCATE TABLE sj_order",
			"LOCK TABLES sj_order WRITE",
			"COMMIT",
			"WITH d AS (SELECT 1) DELETE FROM sj_order",
		)
	case "duckdb":
		return append(common,
			"COPY sj_order TO '"+file+"'",
			"EXPORT DATABASE '"+file+"'",
			"ATTACH '"+file+"' AS evil",
			"SET enable_external_access = true",
			"INSTALL httpfs",
			"CREATE MACRO evil() AS 1",
			"CHECKPOINT",
			"SELECT * FROM read_csv('"+file+"')",
			"WITH d AS (SELECT 1) INSERT INTO sj_order VALUES (99, 0, 'z')",
		)
	case "sqlite":
		return append(common,
			"ATTACH DATABASE '"+file+"' AS evil",
			"PRAGMA writable_schema = ON",
			"VACUUM INTO '"+file+"'",
			"WITH d AS (SELECT 1) INSERT INTO sj_order SELECT 99, 0, 'z' FROM d",
		)
	}
	return common
}

// Run runs the suite on e against database db, which holds Fixture(
// e.Dialect()). e must have been built with MaxRows as its row cap.
func Run(t *testing.T, e engine.Engine, db string) {
	t.Helper()
	dialect := e.Dialect()
	if expectedTypes(dialect) == nil {
		t.Fatalf("enginetest: no expectations for dialect %q", dialect)
	}
	ctx := context.Background()
	if err := e.Check(ctx, db); err != nil {
		t.Fatalf("Check(%q): %v (build the fixture first)", db, err)
	}
	t.Run("Types", func(t *testing.T) { testTypes(t, e, db) })
	t.Run("Aggregates", func(t *testing.T) { testAggregates(t, e, db) })
	t.Run("Ordering", func(t *testing.T) { testOrdering(t, e, db) })
	t.Run("RowCap", func(t *testing.T) { testRowCap(t, e, db) })
	t.Run("OneStatement", func(t *testing.T) { testOneStatement(t, e, db) })
	t.Run("ReadOnly", func(t *testing.T) { testReadOnly(t, e, db) })
	t.Run("Timeout", func(t *testing.T) { testTimeout(t, e, db) })
	t.Run("Cancel", func(t *testing.T) { testCancel(t, e, db) })
	t.Run("Errors", func(t *testing.T) { testErrors(t, e, db) })
	t.Run("NoDatabase", func(t *testing.T) { testNoDatabase(t, e) })
	t.Run("Concurrent", func(t *testing.T) { testConcurrent(t, e, db) })
}

func query(t *testing.T, e engine.Engine, db, q string) *result.Set {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	s, err := e.Query(ctx, db, q)
	if err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	return s
}

const typesQuery = "SELECT id, i, f, r, n, b, d, ts, tstz, tm, t, bt FROM sj_types ORDER BY id"

func describe(v result.Value) string {
	return fmt.Sprintf("%s %s", v.K, result.PyStr(v))
}

func checkTypes(t *testing.T, dialect string, got *result.Set) {
	t.Helper()
	want := expectedTypes(dialect)
	cols := []string{"id", "i", "f", "r", "n", "b", "d", "ts", "tstz", "tm", "t", "bt"}
	if strings.Join(got.Columns, ",") != strings.Join(cols, ",") {
		t.Errorf("columns = %v, want %v", got.Columns, cols)
	}
	if len(got.Rows) != len(want) {
		t.Fatalf("%d rows, want %d: %s", len(got.Rows), len(want), got)
	}
	for i := range want {
		if len(got.Rows[i]) != len(want[i]) {
			t.Fatalf("row %d has %d cells, want %d", i, len(got.Rows[i]), len(want[i]))
		}
		for j := range want[i] {
			g, w := got.Rows[i][j], want[i][j]
			if g != w {
				t.Errorf("row %d column %s = %s, want %s", i+1, cols[j], describe(g), describe(w))
			}
		}
	}
}

func testTypes(t *testing.T, e engine.Engine, db string) {
	checkTypes(t, e.Dialect(), query(t, e, db, typesQuery))
	// Normalisation: a NUMERIC/DECIMAL equals the float or int of the same
	// value, and a boolean equals 1/0, as under Python's ==.
	s := query(t, e, db, "SELECT n, b FROM sj_types WHERE id = 1")
	if !result.Equal(s.Rows[0][0], result.FloatValue(12.5)) || !result.Equal(s.Rows[0][1], result.IntValue(1)) {
		t.Errorf("12.5 and TRUE read as %s and %s: not equal to 12.5 and 1", describe(s.Rows[0][0]), describe(s.Rows[0][1]))
	}
}

func testAggregates(t *testing.T, e engine.Engine, db string) {
	s := query(t, e, db, "SELECT COUNT(*) AS c, SUM(k) AS total, MIN(s) AS lo, MAX(id) AS hi FROM sj_order")
	want := []result.Value{result.IntValue(12), result.IntValue(62), result.TextValue("a"), result.IntValue(12)}
	if len(s.Rows) != 1 {
		t.Fatalf("aggregate: %s", s)
	}
	for j, w := range want {
		if !result.Equal(s.Rows[0][j], w) {
			t.Errorf("aggregate column %s = %s, want %s", s.Columns[j], describe(s.Rows[0][j]), describe(w))
		}
	}
	if k := s.Rows[0][1].K; k == result.Float {
		t.Errorf("SUM of integers is a float (%s): exact integers must stay exact", describe(s.Rows[0][1]))
	}
	s = query(t, e, db, "SELECT AVG(k) AS a FROM sj_order WHERE id IN (4, 8)")
	if !result.Equal(s.Rows[0][0], result.FloatValue(1.5)) {
		t.Errorf("AVG(1, 2) = %s, want 1.5", describe(s.Rows[0][0]))
	}
}

func testOrdering(t *testing.T, e engine.Engine, db string) {
	s := query(t, e, db, "SELECT id, k FROM sj_order ORDER BY k DESC, id")
	rows := append(orderRows[:0:0], orderRows...)
	// insertion sort by (k desc, id asc): the expectation, computed here
	for i := 1; i < len(rows); i++ {
		for j := i; j > 0 && (rows[j].k > rows[j-1].k || rows[j].k == rows[j-1].k && rows[j].id < rows[j-1].id); j-- {
			rows[j], rows[j-1] = rows[j-1], rows[j]
		}
	}
	if len(s.Rows) != len(rows) {
		t.Fatalf("%d rows, want %d", len(s.Rows), len(rows))
	}
	for i, r := range rows {
		if s.Rows[i][0] != result.IntValue(int64(r.id)) || s.Rows[i][1] != result.IntValue(int64(r.k)) {
			t.Errorf("row %d = %s, want (%d, %d)", i, s, r.id, r.k)
			break
		}
	}
	s = query(t, e, db, "SELECT s AS letter, COUNT(*) AS n FROM sj_order GROUP BY s ORDER BY s DESC")
	if got := strings.Join(s.Columns, ","); got != "letter,n" {
		t.Errorf("column names %q, want letter,n", got)
	}
	count := map[string]int{}
	for _, r := range orderRows {
		count[r.s]++
	}
	letters := []string{"e", "d", "c", "b", "a"}
	if len(s.Rows) != len(letters) {
		t.Fatalf("group by: %s", s)
	}
	for i, l := range letters {
		if s.Rows[i][0] != result.TextValue(l) || !result.Equal(s.Rows[i][1], result.IntValue(int64(count[l]))) {
			t.Errorf("group %d = [%s, %s], want [%s, %d]", i, describe(s.Rows[i][0]), describe(s.Rows[i][1]), l, count[l])
		}
	}
}

func testRowCap(t *testing.T, e engine.Engine, db string) {
	s := query(t, e, db, fmt.Sprintf("SELECT a.id, b.id FROM sj_order a, sj_order b ORDER BY a.id, b.id LIMIT %d", MaxRows))
	if len(s.Rows) != MaxRows {
		t.Errorf("LIMIT %d returned %d rows", MaxRows, len(s.Rows))
	}
	_, err := e.Query(context.Background(), db, "SELECT a.id, b.id FROM sj_order a, sj_order b")
	if !errors.Is(err, engine.ErrTooLarge) {
		t.Errorf("144 rows with a cap of %d: err = %v, want ErrTooLarge", MaxRows, err)
	}
	// The engine still works after abandoning a result.
	if s := query(t, e, db, "SELECT COUNT(*) FROM sj_order"); !result.Equal(s.Rows[0][0], result.IntValue(12)) {
		t.Errorf("after a capped query: count = %s", s)
	}
}

func testOneStatement(t *testing.T, e engine.Engine, db string) {
	for _, q := range []string{"SELECT 1; SELECT 2", "SELECT 1;SELECT 2;", "SELECT 'a;b'; SELECT 2"} {
		if _, err := e.Query(context.Background(), db, q); !errors.Is(err, engine.ErrRejected) {
			t.Errorf("%q: err = %v, want ErrRejected", q, err)
		}
	}
	for _, q := range []string{"SELECT 1 AS x;", "SELECT 'a;b' AS x", "SELECT 1 AS x; -- done", "SELECT 1 AS x -- no semicolon"} {
		s := query(t, e, db, q)
		if len(s.Rows) != 1 {
			t.Errorf("%q: %s", q, s)
		}
	}
	for _, q := range []string{"", "  ", "-- nothing", ";"} {
		s := query(t, e, db, q)
		if len(s.Rows) != 0 || len(s.Columns) != 0 {
			t.Errorf("blank %q returned %s", q, s)
		}
	}
}

func testReadOnly(t *testing.T, e engine.Engine, db string) {
	file := filepath.Join(t.TempDir(), "evil.out")
	dialect := e.Dialect()
	ctx := context.Background()
	if dialect == "postgres" {
		// A query may flip session settings; they must not outlive it.
		_, _ = e.Query(ctx, db, "SELECT set_config('default_transaction_read_only', 'off', false), set_config('transaction_read_only', 'off', false)")
	}
	for _, q := range hostile(dialect, file) {
		s, err := e.Query(ctx, db, q)
		if err == nil {
			t.Errorf("hostile statement ran: %q returned %s", q, s)
			continue
		}
		var qe *engine.QueryError
		if !errors.As(err, &qe) {
			t.Errorf("%q: error %T %v is not a *engine.QueryError", q, err, err)
		}
		t.Logf("refused %q: %v", q, err)
	}
	s := query(t, e, db, "SELECT COUNT(*), SUM(k), MIN(k) FROM sj_order")
	if !result.Equal(s.Rows[0][0], result.IntValue(12)) || !result.Equal(s.Rows[0][1], result.IntValue(62)) || !result.Equal(s.Rows[0][2], result.IntValue(1)) {
		t.Errorf("sj_order changed: count, sum, min = %s", s)
	}
	s = query(t, e, db, "SELECT * FROM sj_order WHERE id = 1")
	if len(s.Columns) != 3 {
		t.Errorf("sj_order's columns changed: %v", s.Columns)
	}
	if _, err := e.Query(ctx, db, "SELECT * FROM sj_evil"); err == nil {
		t.Errorf("table sj_evil exists")
	}
	if _, err := os.Stat(file); err == nil {
		t.Errorf("a hostile statement wrote %s", file)
	}
	checkTypes(t, dialect, query(t, e, db, typesQuery))
}

func testTimeout(t *testing.T, e engine.Engine, db string) {
	for _, q := range []string{SlowQuery(e.Dialect(), "sj-timeout"), SleepQuery(e.Dialect(), "sj-timeout")} {
		if q == "" {
			continue
		}
		ctx, cancel := context.WithTimeout(context.Background(), 500*time.Millisecond)
		start := time.Now()
		_, err := e.Query(ctx, db, q)
		cancel()
		if !errors.Is(err, engine.ErrTimeout) {
			t.Errorf("%s: err = %v, want ErrTimeout", q, err)
		}
		if took := time.Since(start); took > 20*time.Second {
			t.Errorf("%s: returned %v after a 500ms deadline", q, took)
		}
		// The engine serves the next query.
		if s := query(t, e, db, "SELECT COUNT(*) FROM sj_order"); !result.Equal(s.Rows[0][0], result.IntValue(12)) {
			t.Errorf("after a timeout: %s", s)
		}
	}
}

func testCancel(t *testing.T, e engine.Engine, db string) {
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(300*time.Millisecond, cancel)
	_, err := e.Query(ctx, db, SlowQuery(e.Dialect(), "sj-cancel"))
	if !errors.Is(err, context.Canceled) || errors.Is(err, engine.ErrTimeout) {
		t.Errorf("cancelled query: err = %v, want context.Canceled (a cancellation is not a timeout verdict)", err)
	}
	if s := query(t, e, db, "SELECT COUNT(*) FROM sj_order"); !result.Equal(s.Rows[0][0], result.IntValue(12)) {
		t.Errorf("after a cancellation: %s", s)
	}
}

func testErrors(t *testing.T, e engine.Engine, db string) {
	for _, q := range []string{"SELECT no_such_column FROM sj_order", "SELECT * FROM no_such_table", "SELEC 1"} {
		_, err := e.Query(context.Background(), db, q)
		var qe *engine.QueryError
		if !errors.As(err, &qe) {
			t.Errorf("%q: err = %v, want a *engine.QueryError", q, err)
			continue
		}
		for _, s := range []error{engine.ErrTimeout, engine.ErrTooLarge, engine.ErrNoDatabase} {
			if errors.Is(err, s) {
				t.Errorf("%q: err %v wraps %v", q, err, s)
			}
		}
	}
}

func testNoDatabase(t *testing.T, e engine.Engine) {
	const missing = "sj_no_such_database"
	if err := e.Check(context.Background(), missing); !errors.Is(err, engine.ErrNoDatabase) {
		t.Errorf("Check(%q) = %v, want ErrNoDatabase", missing, err)
	}
	if _, err := e.Query(context.Background(), missing, "SELECT 1"); !errors.Is(err, engine.ErrNoDatabase) {
		t.Errorf("Query on %q: err = %v, want ErrNoDatabase", missing, err)
	}
}

func testConcurrent(t *testing.T, e engine.Engine, db string) {
	var wg sync.WaitGroup
	errs := make(chan error, 16)
	for i := range 16 {
		wg.Go(func() {
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			q := typesQuery
			if i%2 == 1 {
				q = "SELECT id, k FROM sj_order ORDER BY k DESC, id"
			}
			s, err := e.Query(ctx, db, q)
			if err != nil {
				errs <- err
				return
			}
			if len(s.Rows) != 3 && len(s.Rows) != len(orderRows) {
				errs <- fmt.Errorf("%d rows", len(s.Rows))
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Errorf("concurrent query: %v", err)
	}
}

// ServerTimeout checks that a query stopped by a 700ms timeout is gone
// from the server's process list within a second of the deadline: a
// CPU-bound query (SlowQuery) and a sleeping one (SleepQuery), each with
// the deadline in the query's context and with only the engine's own
// server-side timeout (the engine must be built with a 700ms statement
// timeout). running counts the server sessions whose query text contains a
// marker (pg_stat_activity, information_schema.PROCESSLIST).
func ServerTimeout(t *testing.T, e engine.Engine, db string, running func(marker string) int) {
	t.Helper()
	const timeout = 700 * time.Millisecond
	for i, q := range []string{SlowQuery(e.Dialect(), "%s"), SleepQuery(e.Dialect(), "%s")} {
		for _, withDeadline := range []bool{true, false} {
			marker := fmt.Sprintf("sj-ps-%d-%v-%d", i, withDeadline, time.Now().UnixNano())
			q := fmt.Sprintf(q, marker)
			ctx := context.Background()
			cancel := func() {}
			if withDeadline {
				ctx, cancel = context.WithTimeout(ctx, timeout)
			}
			done := make(chan error, 1)
			start := time.Now()
			go func() { _, err := e.Query(ctx, db, q); done <- err }()
			// It runs on the server before the deadline...
			seen := false
			for time.Since(start) < timeout {
				if running(marker) > 0 {
					seen = true
					break
				}
				time.Sleep(20 * time.Millisecond)
			}
			if !seen {
				t.Errorf("%s: never seen running on the server", q)
			}
			err := <-done
			returned := time.Since(start)
			cancel()
			if !errors.Is(err, engine.ErrTimeout) {
				t.Errorf("%s (deadline in ctx: %v): err = %v, want ErrTimeout", q, withDeadline, err)
			}
			// ...and is gone within a second of it.
			deadline := start.Add(timeout)
			for running(marker) > 0 {
				if time.Since(deadline) > time.Second {
					t.Errorf("%s (deadline in ctx: %v): still running on the server %v after the timeout", q, withDeadline, time.Since(deadline))
					break
				}
				time.Sleep(10 * time.Millisecond)
			}
			t.Logf("deadline in ctx %-5v: gone from the process list %4dms after the 700ms timeout (Query returned after %dms): %.40s",
				withDeadline, time.Since(deadline).Milliseconds(), returned.Milliseconds(), q)
		}
	}
}
