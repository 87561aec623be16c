package equiv

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"
)

// alwaysTrueTieHatch is a correlated NOT EXISTS holding an ORDER BY …
// LIMIT that is always true: before, adding it to both queries made the
// search call every difference "the engine's choice among ties" (its
// subquery cannot run alone to be tiebroken), so a wrong proof passed the
// tripwire (issue 37, "the tripwire is blind").
const alwaysTrueTieHatch = " NOT EXISTS (SELECT z.k FROM z WHERE z.k = t.a AND 1 = 0 ORDER BY z.k LIMIT 1)"

// tripwireDDL is the schema of the tripwire's pairs.
const tripwireDDL = `CREATE TABLE t (a INT NOT NULL, b INT NOT NULL);
CREATE TABLE z (k INT PRIMARY KEY);`

// TestTripwireSeesEverythingOnAProvedPair: a proof (here a prover that
// lies, as a wrong kernel rule would) claims the two queries agree on
// every database, so the tripwire search reports any difference as a
// disagreement: one behind the tie hatch above, and one that needs a
// value only a condition's solution gives (a * 3 = 122883: a = 40961,
// which no literal of the queries is). Before, both pairs were
// equivalent_proved.
func TestTripwireSeesEverythingOnAProvedPair(t *testing.T) {
	sb := newSQLite(t)
	for _, p := range []Pair{
		{ID: "tie hatch", Schema: tripwireDDL,
			Q1: "SELECT count(*) FROM t WHERE" + alwaysTrueTieHatch,
			Q2: "SELECT count(*) FROM t WHERE a > 0 AND" + alwaysTrueTieHatch},
		{ID: "condition value", Schema: tripwireDDL,
			Q1: "SELECT b FROM t WHERE a * 3 = 122883",
			Q2: "SELECT b FROM t WHERE 1 = 0"},
		{ID: "condition value in ORDER BY (issue 37, R1)", Schema: tripwireDDL,
			Q1: "SELECT b AS a FROM t ORDER BY a * 3 = 122883, a",
			Q2: "SELECT b AS a FROM t ORDER BY b * 3 = 122883, b"},
	} {
		out, err := Decide(context.Background(), p, Options{Sandbox: sb, Seed: 1, Budget: 20 * time.Second, prover: lyingProver})
		if err != nil {
			t.Fatal(err)
		}
		if out.Verdict != Unknown || out.Reason != ReasonDisagree || out.Witness == nil || out.Proof == nil {
			t.Errorf("%s: the tripwire missed a difference on a proved pair: %s %q after %d databases %v", p.ID, out.Verdict, out.Reason, out.Search.Databases, out.Search.Phases)
			continue
		}
		reverifySQLite(t, out.Witness, p.Q1, p.Q2)
	}
}

// TestConditionValuesRefuteWithoutAProof: the real prover does not prove
// the R1 pair of issue 37 (or, if the kernel still reads the alias, the
// tripwire refutes it), and without a proof the search finds the witness
// with a = 40961 in the conditions phase: no pair that differs only there
// is equivalent_bounded or proved.
func TestConditionValuesRefuteWithoutAProof(t *testing.T) {
	sb := newSQLite(t)
	p := Pair{ID: "R1", Schema: tripwireDDL,
		Q1: "SELECT b AS a FROM t ORDER BY a * 3 = 122883, a",
		Q2: "SELECT b AS a FROM t ORDER BY b * 3 = 122883, b"}
	for _, noProof := range []bool{true, false} {
		o := Options{Sandbox: sb, Seed: 1, Budget: 20 * time.Second, NoProof: noProof}
		if !noProof {
			o.Solver = z3Solver(t)
		}
		out, err := Decide(context.Background(), p, o)
		if err != nil {
			t.Fatal(err)
		}
		if out.Verdict == EquivalentProved || out.Verdict == EquivalentBounded || out.Witness == nil {
			t.Fatalf("no proof %v: %s %q, phases %v", noProof, out.Verdict, out.Reason, out.Search.Phases)
		}
		reverifySQLite(t, out.Witness, p.Q1, p.Q2)
	}
}

// TestSolvedValues reads the linear conditions the search solves.
func TestSolvedValues(t *testing.T) {
	sch, err := ReadSchema(context.Background(), Pair{Schema: tripwireDDL})
	if err != nil {
		t.Fatal(err)
	}
	s := newSchema(sch)
	for q, want := range map[string][]string{
		"SELECT b FROM t WHERE a * 3 = 122883":            {"a=40961"},
		"SELECT b FROM t WHERE 122883 = 3 * t.a":          {"a=40961"},
		"SELECT b FROM t WHERE a + 7 > 9 AND b - 2 <= -4": {"a=2", "b=-2"},
		"SELECT b FROM t WHERE a / 4 < 10.5":              {"a=42"},
		"SELECT b FROM t WHERE 100 - a = 1":               {"a=99"},
		"SELECT b FROM t WHERE a * 2 = 7":                 {"a=3.5", "a=3", "a=4"},
		"SELECT b FROM t WHERE a * 1 = 7 OR a + 0 = 5":    nil,
		"SELECT b FROM t WHERE a * 3 + 1 = 10":            nil,
		"SELECT b FROM t WHERE 2 * a * 3 = 10":            nil,
		"SELECT b FROM t WHERE a = 5":                     nil,
	} {
		var got []string
		for _, sv := range s.solvedValues(false, q) {
			got = append(got, fmt.Sprintf("%s=%v", sv.col, cellJSON(sv.v)))
		}
		if len(got) != len(want) {
			t.Errorf("%s: %v, want %v", q, got, want)
			continue
		}
		for i := range got {
			if got[i] != want[i] {
				t.Errorf("%s: %v, want %v", q, got, want)
				break
			}
		}
	}
}

// TestSolvedValuesPlain reads, as the search does on an engine the solver
// phase does not model (MariaDB, MySQL), a bare column's comparison with
// a number too: its literal is the boundary where > and >= part.
func TestSolvedValuesPlain(t *testing.T) {
	sch, err := ReadSchema(context.Background(), Pair{Schema: tripwireDDL})
	if err != nil {
		t.Fatal(err)
	}
	s := newSchema(sch)
	for q, want := range map[string]string{
		"SELECT b FROM t WHERE a > 40":                    "a=40",
		"SELECT b FROM t WHERE 40 <= t.a AND b <> -3":     "a=40 b=-3",
		"SELECT b FROM t WHERE a * 3 = 122883 OR b = 2.5": "a=40961 b=2.5 b=2 b=3",
		"SELECT b FROM t WHERE a + b > 4":                 "",
		"SELECT b FROM t WHERE abs(a) > 4 AND -a < 2":     "",
		"SELECT b FROM t WHERE a = 'x'":                   "",
	} {
		var got []string
		for _, sv := range s.solvedValues(true, q) {
			got = append(got, fmt.Sprintf("%s=%v", sv.col, cellJSON(sv.v)))
		}
		if strings.Join(got, " ") != want {
			t.Errorf("%s: %v, want %q", q, got, want)
		}
		if q == "SELECT b FROM t WHERE a > 40" && len(s.solvedValues(false, q)) != 0 {
			t.Errorf("%s: read without plain", q)
		}
	}
}
