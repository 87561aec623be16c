package equiv

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/sqljudge/sqljudge/internal/sandbox"
	sqlitesb "github.com/sqljudge/sqljudge/internal/sandbox/sqlite"
)

func newSQLite(t testing.TB) sandbox.Sandbox {
	t.Helper()
	sb, err := sqlitesb.New(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { sb.Close() })
	return sb
}

func decide(t testing.TB, sb sandbox.Sandbox, p Pair) Outcome {
	t.Helper()
	out, err := Decide(context.Background(), p, Options{NoProof: true, Sandbox: sb, Seed: 1, Budget: 20 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

const empDDL = `CREATE TABLE dept (deptno INT PRIMARY KEY, name VARCHAR(20) NOT NULL);
CREATE TABLE emp (empno INT PRIMARY KEY, ename VARCHAR(20), sal INT NOT NULL, deptno INT REFERENCES dept(deptno));`

// handPairs are hand-written pairs whose verdict is known: a NOT NULL or a
// key that makes two queries equivalent, bag semantics, NULL semantics of
// NOT IN against NOT EXISTS, ORDER BY.
var handPairs = []struct {
	name, q1, q2, ddl string
	want              Verdict
	witnessHas        string // a piece of the witness SQL
}{
	{"comparison", "SELECT ename FROM emp WHERE sal > 10", "SELECT ename FROM emp WHERE sal >= 10", empDDL, Inequivalent, ", 10, "},
	{"not null makes equal", "SELECT empno FROM emp WHERE sal = sal", "SELECT empno FROM emp", empDDL, EquivalentBounded, ""},
	{"null breaks equal", "SELECT empno FROM emp WHERE ename = ename", "SELECT empno FROM emp", empDDL, Inequivalent, "NULL"},
	{"key makes distinct redundant", "SELECT DISTINCT empno FROM emp", "SELECT empno FROM emp", empDDL, EquivalentBounded, ""},
	{"bag: duplicates", "SELECT DISTINCT sal FROM emp", "SELECT sal FROM emp", empDDL, Inequivalent, ""},
	{"NOT IN vs NOT EXISTS", "SELECT name FROM dept WHERE deptno NOT IN (SELECT deptno FROM emp)",
		"SELECT name FROM dept d WHERE NOT EXISTS (SELECT 1 FROM emp e WHERE e.deptno = d.deptno)", empDDL, Inequivalent, "NULL"},
	{"NOT IN vs NOT EXISTS, NOT NULL", "SELECT name FROM dept WHERE deptno NOT IN (SELECT deptno FROM emp)",
		"SELECT name FROM dept d WHERE NOT EXISTS (SELECT 1 FROM emp e WHERE e.deptno = d.deptno)",
		"CREATE TABLE dept (deptno INT PRIMARY KEY, name TEXT); CREATE TABLE emp (empno INT PRIMARY KEY, deptno INT NOT NULL REFERENCES dept)", EquivalentBounded, ""},
	{"order", "SELECT empno FROM emp ORDER BY empno", "SELECT empno FROM emp ORDER BY empno DESC", empDDL, Inequivalent, ""},
	{"order of a bag", "SELECT empno FROM emp ORDER BY empno", "SELECT empno FROM emp", empDDL, EquivalentBounded, ""},
	{"ties under ORDER BY", "SELECT ename, sal FROM emp ORDER BY sal",
		"SELECT ename, sal FROM (SELECT ename, sal FROM emp ORDER BY ename DESC) AS t ORDER BY sal", empDDL, EquivalentBounded, ""},
	{"ties, the other direction", "SELECT ename, sal FROM emp ORDER BY sal", "SELECT ename, sal FROM emp ORDER BY sal DESC", empDDL, Inequivalent, ""},
	{"foreign key join", "SELECT e.empno FROM emp e JOIN dept d ON e.deptno = d.deptno", "SELECT empno FROM emp", empDDL, Inequivalent, "NULL"},
	{"foreign key join, not null", "SELECT e.empno FROM emp e JOIN dept d ON e.deptno = d.deptno", "SELECT empno FROM emp",
		"CREATE TABLE dept (deptno INT PRIMARY KEY); CREATE TABLE emp (empno INT PRIMARY KEY, deptno INT NOT NULL, FOREIGN KEY (deptno) REFERENCES dept (deptno))", EquivalentBounded, ""},
	{"like", "SELECT empno FROM emp WHERE ename LIKE 'Sm%'", "SELECT empno FROM emp WHERE ename = 'Sm'", empDDL, Inequivalent, "'Sm"},
	{"count vs count column", "SELECT count(*) FROM emp", "SELECT count(ename) FROM emp", empDDL, Inequivalent, "NULL"},
	{"empty table aggregate", "SELECT max(sal) FROM emp", "SELECT sal FROM emp ORDER BY sal DESC LIMIT 1", empDDL, Inequivalent, ""},
}

// sqliteNullKey are the hand-written pairs that rest on a key column being
// NOT NULL, which SQLite does not enforce on an INT PRIMARY KEY: there the
// search shows a row whose key is NULL (two, for DISTINCT), its witness
// resting on that NULL (schema.nullableKeys). PostgreSQL keeps NULL out of
// every key: the verdict of handPairs.
var sqliteNullKey = map[string]bool{"key makes distinct redundant": true, "NOT IN vs NOT EXISTS, NOT NULL": true}

func TestHandWrittenPairs(t *testing.T) {
	sb := newSQLite(t)
	for _, c := range handPairs {
		t.Run(c.name, func(t *testing.T) {
			out := decide(t, sb, Pair{ID: c.name, Q1: c.q1, Q2: c.q2, Schema: c.ddl})
			if sqliteNullKey[c.name] {
				c.want, c.witnessHas = Inequivalent, "NULL"
				if out.Witness != nil && !slices.Contains(out.Witness.RestsOn, RestsNull) {
					t.Errorf("witness rests on %v, want null (the key's NULL)", out.Witness.RestsOn)
				}
			}
			if out.Verdict != c.want {
				t.Fatalf("verdict %s (%s), want %s; witness %+v", out.Verdict, out.Reason, c.want, out.Witness)
			}
			if c.want != Inequivalent {
				if out.Search.Databases < 100 || out.Search.LargestTable < 3 {
					t.Errorf("bounded after a small search: %+v", out.Search)
				}
				return
			}
			// Compared without case: a case variant of a literal separates
			// as well where it does (SQLite's LIKE ignores ASCII case).
			if !strings.Contains(strings.ToLower(out.Witness.SQL), strings.ToLower(c.witnessHas)) {
				t.Errorf("witness lacks %q:\n%s", c.witnessHas, out.Witness.SQL)
			}
			if out.Witness.Rows > 3 {
				t.Errorf("witness of %d rows, want at most 3:\n%s", out.Witness.Rows, out.Witness.SQL)
			}
			reverifySQLite(t, out.Witness, c.q1, c.q2)
		})
	}
}

func TestUnknown(t *testing.T) {
	sb := newSQLite(t)
	cases := []struct{ name, q1, q2, ddl, reason string }{
		{"ddl does not parse", "SELECT 1", "SELECT 1", "CREATE TABLE t (a INT", "schema: statement 1"},
		{"not ddl", "SELECT 1", "SELECT 1", "SELECT * FROM t", "expected CREATE TABLE"},
		{"generated column", "SELECT * FROM t", "SELECT a FROM t", "CREATE TABLE t (a INT, b INT AS (a + 1))", "generated column b is not modelled"},
		{"unique index on an unknown table", "SELECT a FROM t", "SELECT a FROM t", "CREATE TABLE t (a INT); CREATE UNIQUE INDEX i ON nowhere (x)", "no such table: main.nowhere"},
		{"nondeterministic", "SELECT a, random() FROM t", "SELECT a, random() FROM t", "CREATE TABLE t (a INT)", "q1 is not deterministic"},
		{"query fails everywhere", "SELECT nosuch FROM t", "SELECT a FROM t", "CREATE TABLE t (a INT)", "q1 fails on every database"},
		{"query fails on every row", "SELECT abs(-9223372036854775807 - 1) FROM t", "SELECT 1 FROM t", "CREATE TABLE t (a INT)", "q1 fails on every database with rows"},
		{"unsatisfiable: a CHECK", "SELECT * FROM t", "SELECT * FROM t WHERE a > 0", "CREATE TABLE t (a INT CHECK (a IS NOT NULL AND a <> a))", "refused every database with rows"},
		{"unsatisfiable: a foreign key to a table that refuses rows", "SELECT * FROM c", "SELECT * FROM c WHERE x > 0",
			"CREATE TABLE p (x INT PRIMARY KEY CHECK (x IS NOT NULL AND x <> x)); CREATE TABLE c (x INT NOT NULL REFERENCES p)", "admit only the empty database"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			out := decide(t, sb, Pair{ID: c.name, Q1: c.q1, Q2: c.q2, Schema: c.ddl})
			if out.Verdict != Unknown || !strings.Contains(out.Reason, c.reason) {
				t.Fatalf("got %s (%s), want unknown with %q; %+v", out.Verdict, out.Reason, c.reason, out.Witness)
			}
		})
	}
}

func TestBudgetIsKept(t *testing.T) {
	sb := newSQLite(t)
	// A self cross join of 80-row tables is slow; the budget must stop it.
	q := "SELECT count(*) FROM t a, t b, t c, t d, t e WHERE a.x + b.x + c.x + d.x + e.x > 0"
	start := time.Now()
	out, err := Decide(context.Background(), Pair{Q1: q, Q2: q + " AND 1 = 1", Schema: "CREATE TABLE t (x INT)"},
		Options{NoProof: true, Sandbox: sb, Seed: 1, Budget: time.Second, QueryTimeout: 300 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	if took := time.Since(start); took > 3*time.Second {
		t.Fatalf("a 1s budget took %v", took)
	}
	if out.Verdict == Inequivalent {
		t.Fatalf("equal queries refuted: %+v", out.Witness)
	}
	if !out.Search.BudgetExhausted {
		t.Fatalf("queries ran into their timeout, the record does not say so: %+v", out.Search)
	}
}

// TestWithTiebreak: every output column is appended to the top-level ORDER
// BY, before a top-level LIMIT or FETCH, after comments and a final ';' are
// set aside; no tiebreak where a query does not order at the top level or
// uses TOP.
func TestWithTiebreak(t *testing.T) {
	cases := []struct{ q, want string }{
		{"SELECT a, b FROM t ORDER BY a", "SELECT a, b FROM t ORDER BY a, 1, 2"},
		{"SELECT a, b FROM t ORDER BY a DESC; -- note\n", "SELECT a, b FROM t ORDER BY a DESC, 1, 2"},
		{"SELECT a, b FROM (SELECT a, b FROM t ORDER BY b) ORDER BY a", "SELECT a, b FROM (SELECT a, b FROM t ORDER BY b) ORDER BY a, 1, 2"},
		{"SELECT a, b FROM (SELECT a, b FROM t ORDER BY b LIMIT 3)", ""},
		{"SELECT a, b FROM t ORDER BY a LIMIT 3;", "SELECT a, b FROM t ORDER BY a, 1, 2 LIMIT 3"},
		{"SELECT a, b FROM t ORDER BY a\nFETCH NEXT 3 ROWS ONLY", "SELECT a, b FROM t ORDER BY a, 1, 2\nFETCH NEXT 3 ROWS ONLY"},
		{"SELECT TOP 3 a, b FROM t ORDER BY a", ""},
		{"SELECT a, b FROM t", ""},
	}
	for _, c := range cases {
		got, ok := withTiebreak(c.q, 2)
		if ok != (c.want != "") || got != c.want {
			t.Errorf("withTiebreak(%q) = %q, %v; want %q", c.q, got, ok, c.want)
		}
	}
}

// TestTiebreakAll: subqueries that keep some rows of an ordered result get
// their own tiebreak (their column count from cols), those that keep every
// row are left alone, and a subquery that cannot run alone stops the
// rewrite.
func TestTiebreakAll(t *testing.T) {
	cols := func(sub string) (int, error) {
		if strings.Contains(sub, "outer_t") {
			return 0, errors.New("correlated")
		}
		return 3, nil
	}
	q := "SELECT x FROM (SELECT a, b, c FROM t ORDER BY a FETCH NEXT 2 ROWS ONLY) AS s JOIN (SELECT a FROM u ORDER BY a) AS v ON s.a = v.a ORDER BY x LIMIT 1"
	want := "SELECT x FROM (SELECT a, b, c FROM t ORDER BY a, 1, 2, 3 FETCH NEXT 2 ROWS ONLY) AS s JOIN (SELECT a FROM u ORDER BY a) AS v ON s.a = v.a ORDER BY x, 1 LIMIT 1"
	if got, ok := tiebreakAll(q, 1, cols); !ok || got != want {
		t.Errorf("tiebreakAll = %q, %v\nwant %q", got, ok, want)
	}
	if got, ok := tiebreakAll("SELECT a FROM t WHERE b = (SELECT b FROM outer_t ORDER BY c LIMIT 1)", 1, cols); ok {
		t.Errorf("a correlated subquery was rewritten: %q", got)
	}
	// EXISTS reads only whether its operand keeps a row: its own ORDER BY …
	// LIMIT needs no tiebreak, correlated or not; a subquery inside it does.
	exists := "SELECT a FROM t WHERE NOT EXISTS (SELECT k FROM outer_t WHERE k = t.a ORDER BY k LIMIT 1) ORDER BY a"
	if got, ok := tiebreakAll(exists, 1, cols); !ok || got != exists+", 1" {
		t.Errorf("EXISTS operand: %q, %v", got, ok)
	}
	if got, ok := tiebreakAll("SELECT a FROM t WHERE EXISTS (SELECT k FROM z WHERE k = (SELECT b FROM outer_t ORDER BY c LIMIT 1))", 1, cols); ok {
		t.Errorf("a correlated subquery inside EXISTS was rewritten: %q", got)
	}
	if got, ok := tiebreakAll("SELECT a FROM t", 1, cols); !ok || got != "SELECT a FROM t" {
		t.Errorf("no ORDER BY: %q, %v", got, ok)
	}
}
