package equiv

import (
	"context"
	"database/sql"
	"path/filepath"
	"testing"
	"time"

	"github.com/sqljudge/sqljudge/internal/catalog"
	"github.com/sqljudge/sqljudge/internal/prove/check"
)

// TestProofUpToTiesTripwire: two joins written in the other order under
// CROSS JOIN (which fixes SQLite's loop order) sort the same rows by a key
// that ties. On a database where three employees of two departments earn
// the same, SQLite returns them in the order of the outer loop, so the
// queries return different rows, with the rows inserted in either order
// (checked on the engine first). The
// prover proves the pair up to ties (proof.ties), and the tripwire, which
// tries that database first (a suite file), counts the difference only
// when it survives the tie rule, q2 tiebroken through the proof's column
// map: the pair stays equivalent_proved, and the certificate re-checks.
// (q2 lists its outputs in another order; tiebroken by position, it would
// keep employee 1 where q1 keeps 'a', employee 2: a tie broken on another
// column, which is no difference of the queries.)
// A difference the tiebreak does not explain still refutes such a proof
// (the last pair: ename is not the same key).
func TestProofUpToTiesTripwire(t *testing.T) {
	z := z3Solver(t)
	sb := newSQLite(t)
	const (
		q1 = "SELECT e.ename, e.empno FROM emp e CROSS JOIN dept d WHERE e.deptno = d.deptno ORDER BY e.sal LIMIT 1"
		q2 = "SELECT e.empno, e.ename FROM dept d CROSS JOIN emp e WHERE e.deptno = d.deptno ORDER BY e.sal LIMIT 1"
	)
	path := filepath.Join(t.TempDir(), "ties.sqlite")
	db, err := sql.Open("sqlite3", path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Exec(empDDL + `INSERT INTO dept VALUES (1, 'a'), (2, 'b');
INSERT INTO emp VALUES (1, 'z', 5, 2), (2, 'a', 5, 1), (3, 'y', 5, 2);`); err != nil {
		t.Fatal(err)
	}
	var n1, n2 string
	var e1, e2 int
	if err := db.QueryRow(q1).Scan(&n1, &e1); err != nil {
		t.Fatal(err)
	}
	if err := db.QueryRow(q2).Scan(&e2, &n2); err != nil {
		t.Fatal(err)
	}
	if n1 == n2 {
		t.Fatalf("SQLite returns %q to both queries: the database no longer shows the tie", n1)
	}
	s, err := catalog.ParseDDL(empDDL)
	if err != nil {
		t.Fatal(err)
	}
	for _, rule := range []Rule{RuleBag, RuleSpider} {
		out, err := Decide(context.Background(), Pair{ID: "ties", Q1: q1, Q2: q2, Schema: empDDL}, Options{Sandbox: sb, Seed: 1, Budget: 20 * time.Second, Solver: z, Rule: rule, SuiteFiles: []string{path}})
		if err != nil {
			t.Fatal(err)
		}
		if rule == RuleBag {
			// Columns compared by position: no proof, and a witness.
			if out.Verdict != Inequivalent || out.Proof != nil {
				t.Errorf("bag: %s (proof %v), want inequivalent without a proof", out.Verdict, out.Proof != nil)
			}
			continue
		}
		if out.Verdict != EquivalentProved || out.Proof == nil || !out.Proof.Ties {
			t.Fatalf("spider: %s (%s, %+v), want equivalent_proved up to ties", out.Verdict, out.Reason, out.Prover)
		}
		if out.Search.Databases == 0 {
			t.Errorf("spider: the tripwire tried no database")
		}
		in := check.Input{Q1: q1, Q2: q2, Schema: proveSchema(s, sb.Dialect()), Rule: string(RuleSpider), Solver: z}
		if err := check.Check(context.Background(), in, out.Proof); err != nil {
			t.Errorf("spider: the certificate does not check: %v", err)
		}
	}
	// Without a proof, under the spider rule, q2's tiebreak tries every
	// order of its columns: a tie q2 breaks on empno where q1 breaks it on
	// ename is no witness (it was one before: the false-witness round's
	// family E).
	out, err := Decide(context.Background(), Pair{ID: "ties", Q1: q1, Q2: q2, Schema: empDDL}, Options{Sandbox: sb, Seed: 1, Budget: 20 * time.Second, NoProof: true, Rule: RuleSpider, SuiteFiles: []string{path}, MaxDatabases: 1})
	if err != nil {
		t.Fatal(err)
	}
	if out.Verdict != EquivalentBounded || out.Search.Databases != 1 {
		t.Errorf("no proof: %s on %d databases, want equivalent_bounded on the suite's database", out.Verdict, out.Search.Databases)
	}
	// The same pair with q2 keyed on ename: not the same keys, no proof,
	// and the database separates it beyond ties.
	q3 := "SELECT e.empno, e.ename FROM dept d CROSS JOIN emp e WHERE e.deptno = d.deptno ORDER BY e.ename DESC LIMIT 1"
	out, err = Decide(context.Background(), Pair{ID: "keys", Q1: q1, Q2: q3, Schema: empDDL}, Options{Sandbox: sb, Seed: 1, Budget: 20 * time.Second, Solver: z, Rule: RuleSpider, SuiteFiles: []string{path}})
	if err != nil {
		t.Fatal(err)
	}
	if out.Verdict != Inequivalent || out.Proof != nil {
		t.Errorf("other keys: %s (proof %v), want inequivalent without a proof", out.Verdict, out.Proof != nil)
	}
}
