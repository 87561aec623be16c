package duckdbsandbox

import (
	"context"
	"database/sql"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/sqljudge/sqljudge/internal/engine/duckdb"
	"github.com/sqljudge/sqljudge/internal/equiv"
	"github.com/sqljudge/sqljudge/internal/result"
)

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
// witness on a file the test writes itself (the witness SQL through the
// driver, both queries through an engine of its own).
func TestDuckDBPairs(t *testing.T) {
	sb, err := New(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer sb.Close()
	for _, c := range pairs {
		t.Run(c.name, func(t *testing.T) {
			start := time.Now()
			out, err := equiv.Decide(context.Background(), equiv.Pair{Q1: c.q1, Q2: c.q2, Schema: c.ddl}, equiv.Options{Sandbox: sb, Seed: 1, Budget: 30 * time.Second, MaxDatabases: 80})
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
	dir := t.TempDir()
	db, err := sql.Open("duckdb", filepath.Join(dir, "w.duckdb"))
	if err != nil {
		t.Fatal(err)
	}
	for _, st := range strings.Split(w.SQL, ";\n") {
		if strings.TrimSpace(st) == "" {
			continue
		}
		if _, err := db.Exec(st); err != nil {
			t.Fatalf("witness SQL does not run on DuckDB: %v\n%s", err, w.SQL)
		}
	}
	db.Close()
	eng := duckdb.New(dir, duckdb.Options{})
	defer eng.Close()
	var got [2]string
	for i, q := range []string{q1, q2} {
		set, err := eng.Query(context.Background(), "w", q)
		if err != nil {
			t.Fatalf("q%d fails on the witness: %v", i+1, err)
		}
		b, _ := json.Marshal(equiv.ResultOf(set))
		got[i] = string(b)
	}
	want1, _ := json.Marshal(w.Q1)
	want2, _ := json.Marshal(w.Q2)
	if got[0] != string(want1) || got[1] != string(want2) {
		t.Fatalf("witness results differ from the record:\n got %s / %s\nwant %s / %s\n%s", got[0], got[1], want1, want2, w.SQL)
	}
	if got[0] == got[1] {
		t.Fatalf("the queries agree on the witness: %s", got[0])
	}
}

// TestDuckDBCommand runs `equiv --db duckdb:DIR` (the sandbox registered
// by this package's init): the verdicts, and no scratch file left in DIR.
func TestDuckDBCommand(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "pairs.jsonl")
	body := `{"id": "a", "q1": "SELECT x FROM t WHERE x > 1", "q2": "SELECT x FROM t WHERE x >= 1", "schema": "CREATE TABLE t (x INT PRIMARY KEY)"}
{"id": "b", "q1": "SELECT x FROM t WHERE y = y", "q2": "SELECT x FROM t", "schema": "CREATE TABLE t (x INT PRIMARY KEY, y INT NOT NULL)"}
{"id": "c", "q1": "SELECT 1", "q2": "SELECT 2", "schema": "CREATE TABLE t (x INT"}
`
	if err := os.WriteFile(file, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	scratch := filepath.Join(dir, "scratch")
	if err := os.Mkdir(scratch, 0o755); err != nil {
		t.Fatal(err)
	}
	var console strings.Builder
	out := filepath.Join(dir, "out")
	if err := equiv.RunCommand(context.Background(), equiv.CommandOptions{Pairs: file, Out: out, DB: "duckdb:" + scratch, Seed: 1, Budget: 30 * time.Second, MaxDatabases: 60}, &console); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(out, equiv.ResultsFile))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	if len(lines) != 3 || !strings.HasPrefix(lines[0], `{"id":"a","verdict":"inequivalent"`) || !strings.HasPrefix(lines[1], `{"id":"b","verdict":"equivalent_bounded"`) || !strings.HasPrefix(lines[2], `{"id":"c","verdict":"unknown"`) {
		t.Fatalf("records:\n%s", b)
	}
	if left, _ := os.ReadDir(scratch); len(left) != 0 {
		t.Fatalf("scratch files left: %v", left)
	}
}

// BenchmarkDatabase measures what one database of the search costs on
// DuckDB: a Load of two rows and two queries.
func BenchmarkDatabase(b *testing.B) {
	sb, err := New(b.TempDir())
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
		if err := sc.Load(ctx, []equiv.TableRows{{Name: `"t"`, Cols: 2, Rows: [][]result.Value{{result.IntValue(1), result.IntValue(2)}, {result.IntValue(2), result.IntValue(3)}}}}); err != nil {
			b.Fatal(err)
		}
		for range 2 {
			if _, err := sc.Query(ctx, "SELECT y FROM t WHERE x > 1"); err != nil {
				b.Fatal(err)
			}
		}
	}
}
