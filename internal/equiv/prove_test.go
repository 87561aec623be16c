package equiv

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/sqljudge/sqljudge/internal/catalog"
	"github.com/sqljudge/sqljudge/internal/engine"
	"github.com/sqljudge/sqljudge/internal/prove/check"
	"github.com/sqljudge/sqljudge/internal/testserver"
)

// z3Solver returns Z3's executable; without it the test fails in CI
// (testserver.Required) and is skipped elsewhere, saying why.
func z3Solver(t testing.TB) check.Solver {
	t.Helper()
	z, err := check.FindZ3()
	if err != nil {
		if testserver.Required() {
			t.Fatalf("%v: CI must install z3 (.ci/run does)", err)
		}
		t.Skipf("skipped: %v", err)
	}
	return z
}

// proverWant is what the prover must make of each hand-written pair:
// proved (and the search, cut to TripwireDatabases, finds nothing), or no
// proof (an inequivalent pair, or one whose equality the kernel does not
// model: ties, a FROM subquery).
var proverWant = map[string]Verdict{
	"not null makes equal": EquivalentProved,
	// SQLite lets an INT PRIMARY KEY column hold NULL (only an INTEGER
	// PRIMARY KEY is kept from it): these rest on the key being NOT NULL,
	// so on SQLite they are not proved, and the search shows the NULL key
	// (sqliteNullKey); proverKeyPairs are them on keys SQLite keeps NOT
	// NULL.
	"key makes distinct redundant":   Inequivalent,
	"NOT IN vs NOT EXISTS, NOT NULL": Inequivalent,
	// A key that may hold NULL is still a key for a join: a NULL key
	// matches no foreign key, so each emp row joins one dept row
	// (join_elim, issue 40's second slice).
	"foreign key join, not null":                          EquivalentProved,
	"key makes distinct redundant, INTEGER PRIMARY KEY":   EquivalentProved,
	"NOT IN vs NOT EXISTS, NOT NULL, INTEGER PRIMARY KEY": EquivalentProved,
	"foreign key join, not null, NOT NULL key":            EquivalentProved,
	"order of a bag":            EquivalentBounded,
	"ties under ORDER BY":       EquivalentProved, // up to ties (proof.ties)
	"comparison":                Inequivalent,
	"null breaks equal":         Inequivalent,
	"bag: duplicates":           Inequivalent,
	"NOT IN vs NOT EXISTS":      Inequivalent,
	"order":                     Inequivalent,
	"ties, the other direction": Inequivalent,
	"foreign key join":          Inequivalent,
	"like":                      Inequivalent,
	"count vs count column":     Inequivalent,
	"empty table aggregate":     Inequivalent,
}

// proverKeyPairs are three of handPairs on keys SQLite keeps from NULL
// (an INTEGER PRIMARY KEY, a key column declared NOT NULL): proved there.
var proverKeyPairs = []struct {
	name, q1, q2, ddl string
}{
	{"key makes distinct redundant, INTEGER PRIMARY KEY", "SELECT DISTINCT empno FROM emp", "SELECT empno FROM emp",
		"CREATE TABLE emp (empno INTEGER PRIMARY KEY, ename VARCHAR(20), sal INT)"},
	{"NOT IN vs NOT EXISTS, NOT NULL, INTEGER PRIMARY KEY", "SELECT name FROM dept WHERE deptno NOT IN (SELECT deptno FROM emp)",
		"SELECT name FROM dept d WHERE NOT EXISTS (SELECT 1 FROM emp e WHERE e.deptno = d.deptno)",
		"CREATE TABLE dept (deptno INTEGER PRIMARY KEY, name TEXT); CREATE TABLE emp (empno INTEGER PRIMARY KEY, deptno INT NOT NULL REFERENCES dept)"},
	{"foreign key join, not null, NOT NULL key", "SELECT e.empno FROM emp e JOIN dept d ON e.deptno = d.deptno", "SELECT empno FROM emp",
		"CREATE TABLE dept (deptno INT NOT NULL PRIMARY KEY); CREATE TABLE emp (empno INT PRIMARY KEY, deptno INT NOT NULL, FOREIGN KEY (deptno) REFERENCES dept (deptno))"},
}

// TestHandWrittenPairsProver decides the hand-written pairs with the
// prover: the pairs equal on every database by the schema's constraints
// are proved (their certificates re-check), the others are not (none of
// the inequivalent pairs is proved: they stay inequivalent).
func TestHandWrittenPairsProver(t *testing.T) {
	z := z3Solver(t)
	sb := newSQLite(t)
	type pair struct{ name, q1, q2, ddl string }
	var pairs []pair
	for _, c := range handPairs {
		pairs = append(pairs, pair{c.name, c.q1, c.q2, c.ddl})
	}
	for _, c := range proverKeyPairs {
		pairs = append(pairs, pair(c))
	}
	for _, c := range pairs {
		want, ok := proverWant[c.name]
		if !ok {
			t.Errorf("%s: no expectation in proverWant", c.name)
			continue
		}
		out, err := Decide(context.Background(), Pair{ID: c.name, Q1: c.q1, Q2: c.q2, Schema: c.ddl}, Options{Sandbox: sb, Seed: 1, Budget: 20 * time.Second, Solver: z})
		if err != nil {
			t.Fatal(err)
		}
		if out.Verdict != want {
			t.Errorf("%s: %s (%+v), want %s", c.name, out.Verdict, out.Prover, want)
			continue
		}
		if want != EquivalentProved {
			if out.Proof != nil || out.Prover.Result == ProverProved {
				t.Errorf("%s: proved (%+v)", c.name, out.Prover)
			}
			continue
		}
		if out.Search.MaxDatabases != TripwireDatabases || out.Search.Databases == 0 {
			t.Errorf("%s: search %+v, want the tripwire's %d databases", c.name, out.Search, TripwireDatabases)
		}
		// Only the pair whose rows tie on sal is proved up to ties: the
		// engine returns its tied rows in other orders (q2 reads them
		// sorted by ename DESC), which the tripwire's tie rule explains.
		if wantTies := strings.HasPrefix(c.name, "ties"); out.Proof.Ties != wantTies {
			t.Errorf("%s: proof.ties %v, want %v", c.name, out.Proof.Ties, wantTies)
		}
		s, err := catalog.ParseDDL(c.ddl)
		if err != nil {
			t.Fatal(err)
		}
		in := check.Input{Q1: c.q1, Q2: c.q2, Schema: proveSchema(s, sb.Dialect()), Rule: string(RuleBag), Solver: z}
		if err := check.Check(context.Background(), in, out.Proof); err != nil {
			t.Errorf("%s: the certificate does not check: %v", c.name, err)
		}
	}
}

// lyingSolver answers unsat to every obligation: the prover then "proves"
// pairs that differ, as a buggy prover would.
type lyingSolver struct{}

func (lyingSolver) Name() string { return "liar" }
func (lyingSolver) Check(_ context.Context, s []string) ([]string, error) {
	out := make([]string, len(s))
	for i := range out {
		out[i] = "unsat"
	}
	return out, nil
}

// TestTripwire: a pair both proved (by a prover fed a lying solver) and
// refuted (by the search, which still runs) is never reported as either:
// it is unknown with ReasonDisagree, the proof and the witness both kept,
// and the summary counts it.
func TestTripwire(t *testing.T) {
	const ddl = "CREATE TABLE emp (empno INT PRIMARY KEY, sal INT)"
	out, err := Decide(context.Background(), Pair{ID: "x", Q1: "SELECT empno FROM emp WHERE sal > 10", Q2: "SELECT empno FROM emp WHERE sal >= 10", Schema: ddl},
		Options{Sandbox: newSQLite(t), Seed: 1, Budget: 20 * time.Second, Solver: lyingSolver{}})
	if err != nil {
		t.Fatal(err)
	}
	if out.Verdict != Unknown || out.Reason != ReasonDisagree || out.Proof == nil || out.Witness == nil {
		t.Fatalf("%s (%s), proof %v, witness %v: want unknown, %q, both kept", out.Verdict, out.Reason, out.Proof != nil, out.Witness != nil, ReasonDisagree)
	}
	sum := summarize(CommandOptions{MaxDatabases: 600}, "sqlite", []Record{{ID: "x", Outcome: out}}, nil, 0, 0)
	if sum.Disagreements != 1 || sum.Verdicts[Unknown] != 1 {
		t.Fatalf("summary %+v: want 1 disagreement", sum)
	}
}

// TestProofSizeBound: a proof whose JSON is over MaxProofBytes (queries of
// many kilobytes, each step repeating them) is not reported: the note says
// why, and the search decides the pair at its full cap.
func TestProofSizeBound(t *testing.T) {
	long := "'" + strings.Repeat("x", 20_000) + "'"
	q1 := "SELECT count(empno) FROM emp WHERE ename <> " + long
	q2 := "SELECT count(*) FROM emp WHERE ename <> " + long
	out, err := Decide(context.Background(), Pair{ID: "x", Q1: q1, Q2: q2, Schema: "CREATE TABLE emp (empno INTEGER PRIMARY KEY, ename TEXT)"},
		Options{Sandbox: newSQLite(t), Seed: 1, Budget: 20 * time.Second, MaxDatabases: 80})
	if err != nil {
		t.Fatal(err)
	}
	if out.Proof != nil || out.Verdict != EquivalentBounded || out.Prover.StoppedBy != "proof size" || out.Search.MaxDatabases != 80 {
		t.Fatalf("%s %+v, max databases %d", out.Verdict, out.Prover, out.Search.MaxDatabases)
	}
}

// TestSQLiteKeyColumnMayHoldNull: SQLite lets a PRIMARY KEY column hold
// NULL unless the key is an INTEGER PRIMARY KEY or the column is declared
// NOT NULL, so COUNT(*) and COUNT(id) are proved equal on SQLite only
// then; PostgreSQL keeps NULL out of every key column.
func TestSQLiteKeyColumnMayHoldNull(t *testing.T) {
	z := z3Solver(t)
	const q1, q2 = "SELECT count(*) FROM t", "SELECT count(id) FROM t"
	for _, c := range []struct {
		ddl            string
		sqlite, postgr bool // proved on each
	}{
		{"CREATE TABLE t (id TEXT PRIMARY KEY, name TEXT)", false, true},
		{"CREATE TABLE t (id INT PRIMARY KEY, name TEXT)", false, true},
		{"CREATE TABLE t (id TEXT, name TEXT, PRIMARY KEY (id))", false, true},
		{"CREATE TABLE t (id INTEGER PRIMARY KEY, name TEXT)", true, true},
		{"CREATE TABLE t (id INTEGER, name TEXT, PRIMARY KEY (id))", true, true},
		{"CREATE TABLE t (id TEXT PRIMARY KEY NOT NULL, name TEXT)", true, true},
		{"CREATE TABLE t (id TEXT NOT NULL PRIMARY KEY, name TEXT)", true, true},
		{"CREATE TABLE t (id TEXT NOT NULL, name TEXT, PRIMARY KEY (id))", true, true},
	} {
		s, err := catalog.ParseDDL(c.ddl)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range []struct {
			dialect engine.Dialect
			want    bool
		}{{engine.SQLite, c.sqlite}, {engine.Postgres, c.postgr}} {
			cert, note := proveKernel(context.Background(), q1, q2, s, d.dialect, RuleBag, z)
			if got := cert != nil; got != d.want {
				t.Errorf("%s on %s: proved %v (%+v), want %v", c.ddl, d.dialect, got, note, d.want)
			}
		}
	}
}

// TestProveSchemaFamilies: the adapter gives each column the family its
// declared type's affinity and its collation allow (issue 37: REAL and
// NUMERIC apart, an untyped column and a NOCASE one not text, CHAR(n) not
// text on PostgreSQL), its affinity and collation, and NOT NULL to an
// INTEGER PRIMARY KEY only when it is the rowid's alias; on PostgreSQL a
// UUID or JSON column is of no family the kernel reads.
func TestProveSchemaFamilies(t *testing.T) {
	db, err := catalog.ParseDDL(`CREATE TABLE t (i INTEGER PRIMARY KEY DESC, r REAL, n DECIMAL(10, 2), x TEXT, v, c TEXT COLLATE NOCASE, b CHAR(5), d DATE);
CREATE TABLE u (id INTEGER PRIMARY KEY, name VARCHAR(20), g UUID, j JSON)`)
	if err != nil {
		t.Fatal(err)
	}
	type col struct {
		fam     check.Family
		aff     check.Affinity
		notNull bool
	}
	want := map[engine.Dialect][]col{
		engine.SQLite: {{check.Int, check.AffinityInteger, false}, {check.Real, check.AffinityReal, false}, {check.Numeric, check.AffinityNumeric, false},
			{check.Text, check.AffinityText, false}, {check.Other, check.AffinityBlob, false}, {check.Text, check.AffinityText, false},
			{check.Text, check.AffinityText, false}, {check.Other, check.AffinityNumeric, false}},
		engine.Postgres: {{check.Int, 0, true}, {check.Other, 0, false}, {check.Other, 0, false}, {check.Text, 0, false},
			{check.Text, 0, false}, {check.Text, 0, false}, {check.Other, 0, false}, {check.Other, 0, false}},
	}
	for d, w := range want {
		s := proveSchema(db, d)
		tab := s.Table("t")
		for i, c := range tab.Columns {
			if got := (col{c.Family, c.Affinity, c.NotNull}); got != w[i] {
				t.Errorf("%s: t.%s: %+v, want %+v", d, c.Name, got, w[i])
			}
		}
		if coll := tab.Columns[5].Collation; coll != "nocase" {
			t.Errorf("%s: t.c collation %q", d, coll)
		}
		if u := s.Table("u"); !u.Columns[0].NotNull {
			t.Errorf("%s: u.id, an INTEGER PRIMARY KEY, may be NULL", d)
		}
		// A UUID or JSON column of a PostgreSQL server is no text there
		// (a UUID literal in upper case equals the value it prints in
		// lower case; JSON has no =): the kernel models neither.
		if u := s.Table("u"); d == engine.Postgres {
			for _, c := range u.Columns[2:] {
				if c.Family != check.Other || c.Class != check.ClassOpaque {
					t.Errorf("postgres: u.%s: family %v, class %v, want Other and opaque", c.Name, c.Family, c.Class)
				}
			}
			if c := u.Columns[1]; c.Family != check.Text || c.Class != check.ClassText {
				t.Errorf("postgres: u.name: family %v, class %v, want Text and text", c.Family, c.Class)
			}
		}
	}
}

// TestPostgresMixedCaseNames: on PostgreSQL a quoted mixed-case name
// ("Val", a table "Tab") names its column or table exactly, and the
// kernel's canonical text must keep it so (quoted): it once printed
// a1.val, which PostgreSQL does not resolve and the kernel's own
// self-check refused ("name case", 83 of the fuzzer's 400 PostgreSQL
// pairs). An unquoted Val (read val) still names no column there.
func TestPostgresMixedCaseNames(t *testing.T) {
	z := z3Solver(t)
	db, err := catalog.ParseDDL(`CREATE TABLE "Tab" ("Val" double precision, y varchar(10), k INT PRIMARY KEY, "Num" INT)`)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range [][2]string{
		{`SELECT DISTINCT "Tab".y FROM "Tab" WHERE "Num" IN (5) AND "Val" > 1`, `SELECT DISTINCT y FROM "Tab" WHERE "Num" = 5 AND "Val" > 1`},
		{`SELECT t2."Val" FROM "Tab" AS t2 WHERE k = 1`, `SELECT "Val" FROM "Tab" WHERE "Tab".k = 1`},
	} {
		cert, note := proveKernel(context.Background(), p[0], p[1], db, engine.Postgres, RuleBag, z)
		if cert == nil {
			t.Errorf("%s / %s: no proof: %+v", p[0], p[1], note)
			continue
		}
		if !strings.Contains(cert.NormalForms.Q1, `"Val"`) || !strings.Contains(cert.NormalForms.Q1, `"Tab"`) {
			t.Errorf("the canonical text loses the names' case: %s", cert.NormalForms.Q1)
		}
	}
	for _, q := range []string{`SELECT Val FROM "Tab"`, `SELECT "Val" FROM Tab`} {
		if cert, note := proveKernel(context.Background(), q, q, db, engine.Postgres, RuleBag, z); cert != nil || note.StoppedBy != "name case" {
			t.Errorf("%s: %+v, want no proof, stopped by name case", q, note)
		}
	}
}
