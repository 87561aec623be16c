// Package enginetest is the one test suite every sqljudge engine passes
// (SQLite, PostgreSQL, MySQL/MariaDB, DuckDB): value types and their
// normalisation into the typed value model, ordering, column names, the row
// cap, one statement per call, read-only execution against hostile
// statements, timeouts and cancellation, unknown databases, and concurrent
// use. It follows golang-migrate's database/testing: each engine package's
// test builds the fixture with a writable connection of its own, then calls
// Run with an engine built with MaxRows and MaxBytes.
//
//	for _, s := range enginetest.Fixture("postgres") { adminConn.Exec(s) }
//	e, _ := postgres.New(dsn, postgres.Options{MaxRows: enginetest.MaxRows, MaxBytes: enginetest.MaxBytes})
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

// MaxBytes is the byte cap (engine.CellBytes) the engine under test must be
// built with: 64 KiB, which sj_order's 12 rows pass with 8,000 letters
// each (and stay under with 1,000).
const MaxBytes = 64 << 10

// orderRows is the content of sj_order: (id, k, s).
var orderRows = []struct {
	id, k int
	s     string
}{
	{1, 5, "d"}, {2, 3, "a"}, {3, 5, "b"}, {4, 1, "c"}, {5, 9, "a"}, {6, 3, "e"},
	{7, 7, "b"}, {8, 2, "d"}, {9, 9, "c"}, {10, 4, "a"}, {11, 6, "e"}, {12, 8, "b"},
}

// Fixture returns the statements that create the suite's tables in
// dialect d, in an empty database: sj_types (one column per value type, a
// row of values, a row of NULLs, a row of edge values) and sj_order (12
// rows of ids, keys and letters). For MySQL, run them in a session with
// time_zone '+00:00'. It returns nil for a dialect the suite does not know.
func Fixture(d engine.Dialect) []string {
	sp := specFor(d)
	if sp == nil {
		return nil
	}
	out := []string{sp.typesDDL}
	for _, r := range [][]string{sp.row1, nullRow(), sp.row3} {
		out = append(out, "INSERT INTO sj_types (id, i, f, r, n, b, d, ts, tstz, tm, t, bt) VALUES ("+strings.Join(r, ", ")+")")
	}
	out = append(out, "CREATE TABLE sj_order (id INTEGER PRIMARY KEY, k INTEGER NOT NULL, s VARCHAR(10) NOT NULL)")
	var vals []string
	for _, r := range orderRows {
		vals = append(vals, fmt.Sprintf("(%d, %d, '%s')", r.id, r.k, r.s))
	}
	out = append(out, "INSERT INTO sj_order (id, k, s) VALUES "+strings.Join(vals, ", "))
	return append(out, sp.extra...)
}

// nullRow is sj_types' row 2: an id and NULLs.
func nullRow() []string {
	return []string{"2", "NULL", "NULL", "NULL", "NULL", "NULL", "NULL", "NULL", "NULL", "NULL", "NULL", "NULL"}
}

// expectedTypes returns the values an engine of sp's dialect must return
// for `SELECT id, i, f, r, n, b, d, ts, tstz, tm, t, bt FROM sj_types ORDER
// BY id`: the same stored data, normalised as the dialect's official
// Python driver would return it (see each engine's decode rules).
func expectedTypes(sp *spec) [][]result.Value {
	r1 := []result.Value{result.IntValue(1), result.IntValue(42), result.FloatValue(2.5), result.FloatValue(1.1)}
	r3 := []result.Value{result.IntValue(3), result.IntValue(9007199254740993), result.FloatValue(0.1), result.FloatValue(-2.25)}
	null := []result.Value{result.IntValue(2)}
	for range 11 {
		null = append(null, result.NullValue())
	}
	t1, t3 := sp.tail()
	r1 = append(append(r1, t1...), result.TextValue("héllo ☃"), result.BlobValue([]byte{0, 0xff, 0x41}))
	r3 = append(append(r3, t3...), result.TextValue("it's"), result.BlobValue(nil))
	return [][]result.Value{r1, null, r3}
}

// SlowQuery returns a query that runs for hours in dialect d (CPU-bound,
// constant memory): what the timeout tests stop. It contains marker in a
// comment so that a test can find it in the server's process list. It
// returns "" for a dialect the suite does not know.
func SlowQuery(d engine.Dialect, marker string) string {
	if sp := specFor(d); sp != nil {
		return sp.slow(marker)
	}
	return ""
}

// SleepQuery returns a query that sleeps for an hour in dialect d, or ""
// where there is no sleep function (SQLite, DuckDB).
func SleepQuery(d engine.Dialect, marker string) string {
	if sp := specFor(d); sp != nil && sp.sleep != nil {
		return sp.sleep(marker)
	}
	return ""
}

// hostile returns statements that must fail without changing anything:
// writes, DDL, a second statement, session changes, file access (the
// common ones, then the dialect's own). file is a path that none of them
// may create.
func hostile(sp *spec, file string) []string {
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
	return append(common, sp.hostile(file)...)
}

// Run runs the suite on e against database db, which holds Fixture(
// e.Dialect()). e must have been built with MaxRows as its row cap.
func Run(t *testing.T, e engine.Engine, db string) {
	t.Helper()
	sp := specFor(e.Dialect())
	if sp == nil {
		t.Fatalf("enginetest: no expectations for dialect %q", e.Dialect())
	}
	ctx := context.Background()
	if err := e.Check(ctx, db); err != nil {
		t.Fatalf("Check(%q): %v (build the fixture first)", db, err)
	}
	t.Run("Types", func(t *testing.T) { testTypes(t, sp, e, db) })
	t.Run("Aggregates", func(t *testing.T) { testAggregates(t, e, db) })
	t.Run("Ordering", func(t *testing.T) { testOrdering(t, e, db) })
	t.Run("RowCap", func(t *testing.T) { testRowCap(t, e, db) })
	t.Run("ByteCap", func(t *testing.T) { testByteCap(t, sp, e, db) })
	t.Run("OneStatement", func(t *testing.T) { testOneStatement(t, e, db) })
	t.Run("ReadOnly", func(t *testing.T) { testReadOnly(t, sp, e, db) })
	t.Run("Timeout", func(t *testing.T) { testTimeout(t, sp, e, db) })
	t.Run("Cancel", func(t *testing.T) { testCancel(t, sp, e, db) })
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

// One runs q on database db of e and returns its one value as Python's
// str prints it (result.PyStr), failing the test when q fails or returns
// other than one row: how the server engines' tests read session state.
func One(t *testing.T, e engine.Engine, db, q string) string {
	t.Helper()
	set, err := e.Query(context.Background(), db, q)
	if err != nil || set.Len() != 1 {
		t.Fatalf("%s: %v, %v", q, set, err)
	}
	return result.PyStr(set.Rows[0][0])
}

const typesQuery = "SELECT id, i, f, r, n, b, d, ts, tstz, tm, t, bt FROM sj_types ORDER BY id"

func describe(v result.Value) string {
	return fmt.Sprintf("%s %s", v.K, result.PyStr(v))
}

func checkTypes(t *testing.T, sp *spec, got *result.Set) {
	t.Helper()
	want := expectedTypes(sp)
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

func testTypes(t *testing.T, sp *spec, e engine.Engine, db string) {
	checkTypes(t, sp, query(t, e, db, typesQuery))
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

func testByteCap(t *testing.T, sp *spec, e engine.Engine, db string) {
	// 12 rows of 1,000 letters: about 13 KB with the cells' overhead.
	s := query(t, e, db, fmt.Sprintf("SELECT id, %s AS x FROM sj_order ORDER BY id", sp.repeat(1000)))
	if len(s.Rows) != len(orderRows) || len(s.Rows[0][1].S) != 1000 {
		t.Fatalf("12 rows of 1,000 letters: got %d rows, first %q", len(s.Rows), s.Rows[0][1].S[:min(len(s.Rows[0][1].S), 20)])
	}
	// 12 rows of 8,000 letters: 96,000 bytes of text, past the cap, in
	// fewer rows than the row cap.
	_, err := e.Query(context.Background(), db, fmt.Sprintf("SELECT id, %s AS x FROM sj_order", sp.repeat(8000)))
	if !errors.Is(err, engine.ErrTooLarge) || !strings.Contains(err.Error(), fmt.Sprintf("more than %d bytes", MaxBytes)) {
		t.Errorf("96,000 bytes with a cap of %d: err = %v, want ErrTooLarge (more than %d bytes)", MaxBytes, err, MaxBytes)
	}
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

func testReadOnly(t *testing.T, sp *spec, e engine.Engine, db string) {
	file := filepath.Join(t.TempDir(), "evil.out")
	ctx := context.Background()
	if sp.sessionFlip != "" {
		// A query may flip session settings; they must not outlive it.
		_, _ = e.Query(ctx, db, sp.sessionFlip)
	}
	for _, q := range hostile(sp, file) {
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
	checkTypes(t, sp, query(t, e, db, typesQuery))
}

func testTimeout(t *testing.T, sp *spec, e engine.Engine, db string) {
	queries := []string{sp.slow("sj-timeout")}
	if sp.sleep != nil {
		queries = append(queries, sp.sleep("sj-timeout"))
	}
	for _, q := range queries {
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

func testCancel(t *testing.T, sp *spec, e engine.Engine, db string) {
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(300*time.Millisecond, cancel)
	_, err := e.Query(ctx, db, sp.slow("sj-cancel"))
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
