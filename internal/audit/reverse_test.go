package audit_test

import (
	"context"
	"database/sql"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/mattn/go-sqlite3"

	"github.com/sqljudge/sqljudge/internal/audit"
	"github.com/sqljudge/sqljudge/internal/bench"
	"github.com/sqljudge/sqljudge/internal/shareddata"
	"github.com/sqljudge/sqljudge/internal/sqllex"
)

// TestSpiderDevReversedRows is the audit's independent check on all of
// Spider dev: every gold runs on its database and on a copy whose tables
// hold the same rows in reverse order, and a gold whose result changes
// under Spider's comparison (rows in order when it says ORDER BY) depends
// on the scan order: the audit must flag it with an order-dependent
// finding (audit.ScanOrder) carrying its evidence. Two copies: "schema
// kept" reinserts each table's rows by descending rowid into the same
// schema (a table keyed by an INTEGER PRIMARY KEY or WITHOUT ROWID keeps
// its order, which its key fixes, and a query reading through an index
// keeps the index's order); "keys dropped" recreates each table with its
// columns and their declared types only (no key, no index), so every
// scan meets the rows the other way round. The copies live in temporary
// folders.
func TestSpiderDevReversedRows(t *testing.T) {
	gold, db := shareddata.Path(t, "spider", "dev_gold.sql"), shareddata.Path(t, "spider", "database")
	items, err := bench.LoadGold(gold, bench.FormatSpider)
	if err != nil {
		t.Fatal(err)
	}
	got, _ := byItem(t, options(gold, db, ""))
	for _, c := range []struct {
		name    string
		keyless bool
		least   int // the fewest golds that must change: fewer means the copy was not reversed
	}{{"schema kept", false, 30}, {"keys dropped", true, 45}} {
		t.Run(c.name, func(t *testing.T) {
			rev := reversedCopies(t, db, items, c.keyless)
			changed := changedUnderReverse(t, db, rev, items)
			t.Logf("changed: %v", changed)
			if len(changed) < c.least {
				t.Fatalf("only %d golds change under reversed rows (want at least %d): the copies were not reversed", len(changed), c.least)
			}
			flaggedScanOrder(t, items, got, changed)
		})
	}
}

// flaggedScanOrder requires the audit's findings got to flag at least 34
// of the changed golds (all but one) with an order-dependent finding that
// carries its evidence, and logs the ones it misses.
func flaggedScanOrder(t *testing.T, items []bench.Item, got map[int][]audit.Finding, changed []int) {
	t.Helper()
	var flagged, missed []int
	for _, i := range changed {
		if f, ok := scanOrderFinding(got[i]); ok {
			flagged = append(flagged, i)
			if !hasEvidence(f) {
				t.Errorf("item %d: %s finding without evidence: %+v", i, f.Kind, f)
			}
			continue
		}
		missed = append(missed, i)
		t.Logf("missed item %d (%s): %s; findings %v", i, items[i].DBID, items[i].Gold[0], kinds(got[i]))
	}
	t.Logf("%d golds change under reversed rows, the audit flags %d: %v", len(changed), len(flagged), flagged)
	if len(flagged) < min(34, len(changed)) || len(missed) > 1 {
		t.Errorf("the audit flags %d of the %d golds whose result follows the scan order; missed %v", len(flagged), len(changed), missed)
	}
}

// scanOrderFinding returns the first finding of fs whose kind depends on
// the order the engine reads rows in.
func scanOrderFinding(fs []audit.Finding) (audit.Finding, bool) {
	for _, f := range fs {
		if f.Kind.ScanOrder() {
			return f, true
		}
	}
	return audit.Finding{}, false
}

// hasEvidence reports whether f carries rows or values that show it.
func hasEvidence(f audit.Finding) bool {
	return f.Detail != "" && (len(f.Tied) > 0 || len(f.Values) == 2 || len(f.Kept) > 0)
}

// changedUnderReverse runs every gold on the databases under db and under
// rev and returns the indexes of the items whose results differ (rows in
// order when the gold says ORDER BY, as Spider's rule compares them; a
// gold that fails on either is left out).
func changedUnderReverse(t *testing.T, db, rev string, items []bench.Item) []int {
	t.Helper()
	conns := map[string]*sql.DB{}
	defer func() {
		for _, c := range conns {
			c.Close()
		}
	}()
	open := func(dir, dbID string, ro bool) *sql.DB {
		path := filepath.Join(dir, dbID, dbID+".sqlite")
		if c := conns[path]; c != nil {
			return c
		}
		dsn := "file:" + path
		if ro {
			dsn += "?mode=ro&immutable=1"
		}
		c, err := sql.Open(leftSumDriver, dsn)
		if err != nil {
			t.Fatal(err)
		}
		conns[path] = c
		return c
	}
	var out []int
	for _, it := range items {
		q := it.Gold[0]
		x, errx := rowTexts(open(db, it.DBID, true), q)
		y, erry := rowTexts(open(rev, it.DBID, false), q)
		if errx != nil || erry != nil {
			continue
		}
		if !sqllex.ContainsOrderBy(q) {
			slices.Sort(x)
			slices.Sort(y)
		}
		if !slices.Equal(x, y) {
			out = append(out, it.Index)
		}
	}
	return out
}

// rowTexts runs q and returns each row printed (%#v of each value: 1 and
// 1.0 differ, a float prints all its digits).
func rowTexts(c *sql.DB, q string) ([]string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	rows, err := c.QueryContext(ctx, q)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	cols, err := rows.Columns()
	if err != nil {
		return nil, err
	}
	var out []string
	for rows.Next() {
		vals := make([]any, len(cols))
		ptrs := make([]any, len(cols))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		if err := rows.Scan(ptrs...); err != nil {
			return nil, err
		}
		for i, v := range vals {
			if b, ok := v.([]byte); ok {
				vals[i] = string(b)
			}
		}
		out = append(out, fmt.Sprintf("%#v", vals))
	}
	return out, rows.Err()
}

// leftSumDriver is SQLite with SUM, AVG and TOTAL summing their values
// left to right in the order the engine reads them, as SQLite did before
// 3.43 (Python 3.11's sqlite3, 3.40), and as PostgreSQL and MySQL sum
// floats: SQLite 3.43 and later compensate the sum, which hides most (not
// all) of what the order changes.
const leftSumDriver = "sqlite3-left-sum"

func init() {
	sql.Register(leftSumDriver, &sqlite3.SQLiteDriver{ConnectHook: func(c *sqlite3.SQLiteConn) error {
		for name, kind := range map[string]int{"sum": sumKind, "avg": avgKind, "total": totalKind} {
			kind := kind
			if err := c.RegisterAggregator(name, func() *leftSum { return &leftSum{kind: kind} }, true); err != nil {
				return err
			}
		}
		return nil
	}})
}

const (
	sumKind = iota
	avgKind
	totalKind
)

// leftSum is SQLite 3.40's sum, avg and total (func.c sumStep,
// sumFinalize, avgFinalize, totalFinalize): every value is added to a
// double in the order given; sum is an integer while every value is one.
type leftSum struct {
	kind   int
	r      float64
	i      int64
	approx bool
	n      int64
}

// Step adds one value: NULL is skipped, text is read as a number as
// SQLite's numeric conversion reads it (0 when it is none).
func (s *leftSum) Step(v any) {
	switch x := v.(type) {
	case nil:
		return
	case int64:
		s.r += float64(x)
		s.i += x
	case float64:
		s.r += x
		s.approx = true
	case string:
		s.text(x)
	case []byte:
		s.text(string(x))
	}
	s.n++
}

// text adds a text value as SQLite's numeric conversion reads it.
func (s *leftSum) text(x string) {
	t := strings.TrimSpace(x)
	if i, err := strconv.ParseInt(t, 10, 64); err == nil {
		s.r += float64(i)
		s.i += i
		return
	}
	f, _ := strconv.ParseFloat(t, 64)
	s.r += f
	s.approx = true
}

// Done returns the aggregate's value.
func (s *leftSum) Done() any {
	switch {
	case s.kind == totalKind:
		return s.r
	case s.n == 0:
		return nil
	case s.kind == avgKind:
		return s.r / float64(s.n)
	case s.approx:
		return s.r
	}
	return s.i
}

// reversedCopies copies the database of every db_id of items into a
// temporary folder (db_id/db_id.sqlite) with each table's rows in reverse
// rowid order (keyless: into tables of the same columns and declared
// types without keys or indexes), and returns the folder.
func reversedCopies(t *testing.T, db string, items []bench.Item, keyless bool) string {
	t.Helper()
	dir := t.TempDir()
	seen := map[string]bool{}
	for _, it := range items {
		if seen[it.DBID] {
			continue
		}
		seen[it.DBID] = true
		src := filepath.Join(db, it.DBID, it.DBID+".sqlite")
		dst := filepath.Join(dir, it.DBID, it.DBID+".sqlite")
		var err error
		if keyless {
			err = keylessReversed(src, dst)
		} else if err = copyFile(src, dst); err == nil {
			err = reverseTables(dst)
		}
		if err != nil {
			t.Fatalf("%s: %v", it.DBID, err)
		}
	}
	return dir
}

// keylessReversed writes to dst a database whose tables have the columns
// and declared types of src's (no key, constraint or index) and hold its
// rows in descending rowid order (a WITHOUT ROWID table's as read).
func keylessReversed(src, dst string) error {
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		return err
	}
	conn, err := sql.Open("sqlite3", dst)
	if err != nil {
		return err
	}
	defer conn.Close()
	conn.SetMaxOpenConns(1)
	if _, err := conn.Exec("ATTACH DATABASE ? AS src", "file:"+src+"?mode=ro&immutable=1"); err != nil {
		return err
	}
	tables, err := tableNames(conn, "src")
	if err != nil {
		return err
	}
	for _, tb := range tables {
		q := `"` + strings.ReplaceAll(tb.name, `"`, `""`) + `"`
		cols, err := columnDefs(conn, tb.name)
		if err != nil {
			return fmt.Errorf("table %s: %w", tb.name, err)
		}
		order := " ORDER BY _rowid_ DESC"
		if tb.withoutRowid {
			order = ""
		}
		for _, s := range []string{
			"CREATE TABLE main." + q + " (" + cols + ")",
			"INSERT INTO main." + q + " SELECT * FROM src." + q + order,
		} {
			if _, err := conn.Exec(s); err != nil {
				return fmt.Errorf("table %s: %s: %w", tb.name, s, err)
			}
		}
	}
	_, err = conn.Exec("DETACH DATABASE src")
	return err
}

// table is a table's name and whether it is declared WITHOUT ROWID.
type table struct {
	name         string
	withoutRowid bool
}

// tableNames lists the tables of schema (main, src), sorted by name.
func tableNames(conn *sql.DB, schema string) ([]table, error) {
	rows, err := conn.Query(`SELECT name, sql LIKE '%WITHOUT ROWID%' FROM ` + schema + `.sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []table
	for rows.Next() {
		var tb table
		if err := rows.Scan(&tb.name, &tb.withoutRowid); err != nil {
			return nil, err
		}
		out = append(out, tb)
	}
	return out, rows.Err()
}

// columnDefs returns the column list of src's table name ("a" INT,
// "b" TEXT) with each column's declared type and nothing else.
func columnDefs(conn *sql.DB, name string) (string, error) {
	rows, err := conn.Query("SELECT name, type FROM pragma_table_info(?, 'src')", name)
	if err != nil {
		return "", err
	}
	defer rows.Close()
	var defs []string
	for rows.Next() {
		var name, typ string
		if err := rows.Scan(&name, &typ); err != nil {
			return "", err
		}
		defs = append(defs, `"`+strings.ReplaceAll(name, `"`, `""`)+`" `+typ)
	}
	if err := rows.Err(); err != nil {
		return "", err
	}
	if len(defs) == 0 {
		return "", fmt.Errorf("no columns")
	}
	return strings.Join(defs, ", "), nil
}

// copyFile copies src to dst, creating dst's folder.
func copyFile(src, dst string) error {
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		return err
	}
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.Create(dst)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}

// reverseTables reinserts the rows of every rowid table of the SQLite
// file at path in descending rowid order (foreign keys are not enforced
// while it does).
func reverseTables(path string) error {
	conn, err := sql.Open("sqlite3", path)
	if err != nil {
		return err
	}
	defer conn.Close()
	conn.SetMaxOpenConns(1)
	all, err := tableNames(conn, "main")
	if err != nil {
		return err
	}
	var tables []string
	for _, tb := range all {
		if !tb.withoutRowid {
			tables = append(tables, tb.name)
		}
	}
	for _, name := range tables {
		q := `"` + strings.ReplaceAll(name, `"`, `""`) + `"`
		for _, s := range []string{
			"PRAGMA foreign_keys = OFF",
			"CREATE TEMP TABLE reversed_rows AS SELECT * FROM main." + q + " ORDER BY _rowid_ DESC",
			"DELETE FROM main." + q,
			"INSERT INTO main." + q + " SELECT * FROM reversed_rows",
			"DROP TABLE reversed_rows",
		} {
			if _, err := conn.Exec(s); err != nil {
				return fmt.Errorf("table %s: %s: %w", name, s, err)
			}
		}
	}
	return nil
}
