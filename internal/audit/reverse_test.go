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
// hold the same rows in reverse order (each table's rows reinserted by
// descending rowid, so a scan meets them the other way round; a table
// keyed by an INTEGER PRIMARY KEY or WITHOUT ROWID keeps its order, which
// its key fixes). A gold whose result changes under Spider's comparison
// (rows in order when it says ORDER BY) depends on the scan order, and the
// audit must flag it with an order-dependent finding (audit.ScanOrder)
// carrying its evidence. The copies live in a temporary folder.
func TestSpiderDevReversedRows(t *testing.T) {
	gold, db := shareddata.Path(t, "spider", "dev_gold.sql"), shareddata.Path(t, "spider", "database")
	items, err := bench.LoadGold(gold, bench.FormatSpider)
	if err != nil {
		t.Fatal(err)
	}
	rev := reversedCopies(t, db, items)
	changed := changedUnderReverse(t, db, rev, items)
	t.Logf("changed: %v", changed)
	if len(changed) < 20 {
		t.Fatalf("only %d golds change under reversed rows: the copies were not reversed", len(changed))
	}
	got, _ := byItem(t, options(gold, db, ""))
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
// temporary folder (db_id/db_id.sqlite) with each table's rows reinserted
// in reverse rowid order, and returns the folder.
func reversedCopies(t *testing.T, db string, items []bench.Item) string {
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
		if err := copyFile(src, dst); err != nil {
			t.Fatal(err)
		}
		if err := reverseTables(dst); err != nil {
			t.Fatalf("%s: %v", it.DBID, err)
		}
	}
	return dir
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
	rows, err := conn.Query(`SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' AND sql NOT LIKE '%WITHOUT ROWID%'`)
	if err != nil {
		return err
	}
	var tables []string
	for rows.Next() {
		var n string
		if err := rows.Scan(&n); err != nil {
			return err
		}
		tables = append(tables, n)
	}
	if err := rows.Close(); err != nil {
		return err
	}
	slices.Sort(tables)
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
