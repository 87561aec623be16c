package duckdb_test

import (
	"context"
	"database/sql"
	"path/filepath"
	"testing"
	"time"

	"github.com/sqljudge/sqljudge/internal/engine"
	engduckdb "github.com/sqljudge/sqljudge/internal/engine/duckdb"
	"github.com/sqljudge/sqljudge/internal/equiv"
	"github.com/sqljudge/sqljudge/internal/result"
	"github.com/sqljudge/sqljudge/internal/sandbox"
	"github.com/sqljudge/sqljudge/internal/sandbox/duckdb"
	"github.com/sqljudge/sqljudge/internal/sandbox/sandboxtest"
)

// freshDuckDB builds a DuckDB file in the test's temporary folder through
// the driver, outside any sandbox.
func freshDuckDB(t testing.TB, stmts []string) (engine.Engine, string) {
	t.Helper()
	dir := t.TempDir()
	db, err := sql.Open("duckdb", filepath.Join(dir, "fresh.duckdb"))
	if err != nil {
		t.Fatal(err)
	}
	for _, st := range stmts {
		if _, err := db.Exec(st); err != nil {
			t.Fatalf("%s: %v", sandbox.Abbreviate(st), err)
		}
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	eng := engduckdb.New(dir, engduckdb.Options{})
	t.Cleanup(func() { eng.Close() })
	return eng, "fresh"
}

// TestSandboxSuite runs the shared sandbox suite on scratch DuckDB files.
func TestSandboxSuite(t *testing.T) {
	sandboxtest.Run(t, sandboxtest.Config{
		New: func(t *testing.T) sandbox.Sandbox {
			sb, err := duckdb.New(t.TempDir())
			if err != nil {
				t.Fatal(err)
			}
			return sb
		},
		Fresh: freshDuckDB,
		Leftovers: func(t *testing.T, sb sandbox.Sandbox) []string {
			files, err := filepath.Glob(filepath.Join(sb.(*duckdb.Sandbox).Dir(), "*"))
			if err != nil {
				t.Fatal(err)
			}
			return files
		},
	})
}

const empDDL = `CREATE TABLE dept (deptno INT PRIMARY KEY, name VARCHAR(20) NOT NULL);
CREATE TABLE emp (empno INT PRIMARY KEY, ename VARCHAR(20), sal INT NOT NULL, deptno INT REFERENCES dept(deptno));`

// pairs are hand-written pairs whose verdict is known, over the schema in
// SQLite/PostgreSQL spelling and in MySQL spelling.
var pairs = []struct {
	name, q1, q2, ddl string
	want              equiv.Verdict
}{
	{"comparison", "SELECT ename FROM emp WHERE sal > 10", "SELECT ename FROM emp WHERE sal >= 10", empDDL, equiv.Inequivalent},
	{"not null makes equal", "SELECT empno FROM emp WHERE sal = sal", "SELECT empno FROM emp", empDDL, equiv.EquivalentBounded},
	{"null breaks equal", "SELECT empno FROM emp WHERE ename = ename", "SELECT empno FROM emp", empDDL, equiv.Inequivalent},
	{"key makes distinct redundant", "SELECT DISTINCT empno FROM emp", "SELECT empno FROM emp", empDDL, equiv.EquivalentBounded},
	{"bag: duplicates", "SELECT DISTINCT sal FROM emp", "SELECT sal FROM emp", empDDL, equiv.Inequivalent},
	{"NOT IN vs NOT EXISTS", "SELECT name FROM dept WHERE deptno NOT IN (SELECT deptno FROM emp)",
		"SELECT name FROM dept d WHERE NOT EXISTS (SELECT 1 FROM emp e WHERE e.deptno = d.deptno)", empDDL, equiv.Inequivalent},
	{"order", "SELECT empno FROM emp ORDER BY empno", "SELECT empno FROM emp ORDER BY empno DESC", empDDL, equiv.Inequivalent},
	{"mysql ddl: count a nullable column", "SELECT deptno, COUNT(*) FROM emp GROUP BY deptno", "SELECT deptno, COUNT(ename) FROM emp GROUP BY deptno",
		"CREATE TABLE `emp` (`empno` INT UNSIGNED NOT NULL AUTO_INCREMENT, `ename` VARCHAR(10), `deptno` INT NOT NULL, PRIMARY KEY (`empno`)) ENGINE=InnoDB;", equiv.Inequivalent},
}

// TestDuckDBPairs decides the pairs on DuckDB and re-verifies every
// witness on a file the test writes itself (sandboxtest.Reverify: the
// witness SQL through the driver, both queries through an engine of its
// own).
func TestDuckDBPairs(t *testing.T) {
	sb, err := duckdb.New(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer sb.Close()
	for _, c := range pairs {
		t.Run(c.name, func(t *testing.T) {
			start := time.Now()
			// The search is bounded by work (MaxDatabases), not by time:
			// with a 30 s budget a loaded machine ended it after 34
			// databases and the test's verdict depended on the load.
			out, err := equiv.Decide(context.Background(), equiv.Pair{Q1: c.q1, Q2: c.q2, Schema: c.ddl}, equiv.Options{Sandbox: sb, Seed: 1, Budget: 20 * time.Minute, MaxDatabases: 80})
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("%s after %d databases in %v", out.Verdict, out.Search.Databases, time.Since(start).Round(time.Millisecond))
			if out.Verdict != c.want {
				t.Fatalf("verdict %s (%s), want %s; %+v", out.Verdict, out.Reason, c.want, out.Witness)
			}
			if c.want == equiv.EquivalentBounded && (out.Search.Databases < 60 || out.Search.LargestTable < 3) {
				t.Errorf("bounded after a small search: %+v", out.Search)
			}
			if out.Witness != nil {
				reverify(t, out.Witness, c.q1, c.q2)
			}
		})
	}
}

func reverify(t *testing.T, w *equiv.Witness, q1, q2 string) {
	t.Helper()
	r := sandboxtest.Reverify(t, freshDuckDB, w.SQL, q1, q2)
	if err := w.Recheck(r[0], r[1]); err != nil {
		t.Fatalf("%v\n%s", err, w.SQL)
	}
}

// BenchmarkDatabase measures what one database of the search costs on
// DuckDB: a Load of two rows and two queries.
func BenchmarkDatabase(b *testing.B) {
	sb, err := duckdb.New(b.TempDir())
	if err != nil {
		b.Fatal(err)
	}
	defer sb.Close()
	ctx := context.Background()
	sc, err := sb.Open(ctx, []string{"CREATE TABLE t (x INT PRIMARY KEY, y INT)"})
	if err != nil {
		b.Fatal(err)
	}
	defer sc.Close()
	for b.Loop() {
		if err := sc.Load(ctx, []sandbox.TableRows{{Name: `"t"`, Cols: 2, Rows: [][]result.Value{{result.IntValue(1), result.IntValue(2)}, {result.IntValue(2), result.IntValue(3)}}}}); err != nil {
			b.Fatal(err)
		}
		for range 2 {
			if _, err := sc.Query(ctx, "SELECT y FROM t WHERE x > 1"); err != nil {
				b.Fatal(err)
			}
		}
	}
}
