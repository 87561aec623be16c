package check_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/sqljudge/sqljudge/internal/prove"
	"github.com/sqljudge/sqljudge/internal/prove/check"
	"github.com/sqljudge/sqljudge/internal/testserver"
)

// z3 returns Z3's executable; without it the test fails in CI
// (testserver.Required) and is skipped elsewhere, saying why.
func z3(t *testing.T) check.Solver {
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

func schema() *check.MapSchema {
	return &check.MapSchema{D: check.SQLite, Tables: []*check.Table{
		{Name: "singer", Columns: []check.Column{{Name: "singer_id", Family: check.Int, NotNull: true}, {Name: "name", Family: check.Text}, {Name: "age", Family: check.Int}},
			Keys: []check.Key{{Cols: []int{0}, Primary: true}}},
	}}
}

// certificate proves a pair and returns its certificate (as JSON, to
// tamper with a copy).
func certificate(t *testing.T, z check.Solver, q1, q2 string) []byte {
	t.Helper()
	a := prove.Prove(context.Background(), q1, q2, schema(), prove.Options{Rule: "bag", Solver: z})
	if !a.Proved() {
		t.Fatalf("not proved: %s: %s", a.Stopped, a.Detail)
	}
	b, err := json.Marshal(a.Certificate)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func checkJSON(t *testing.T, z check.Solver, q1, q2 string, b []byte) error {
	t.Helper()
	var c check.Certificate
	if err := json.Unmarshal(b, &c); err != nil {
		t.Fatal(err)
	}
	return check.Check(context.Background(), check.Input{Q1: q1, Q2: q2, Schema: schema(), Rule: "bag", Solver: z}, &c)
}

// alwaysUnsat answers unsat to every script: what a solver lying in the
// prover's favour would say.
type alwaysUnsat struct{}

func (alwaysUnsat) Name() string { return "liar" }
func (alwaysUnsat) Check(_ context.Context, s []string) ([]string, error) {
	out := make([]string, len(s))
	for i := range out {
		out[i] = "unsat"
	}
	return out, nil
}

// TestTamperedCertificates: a certificate that checks stops checking when
// a step, a fact, an obligation, the bijection, the expected answer or the
// chain is changed; each failure names the part.
func TestTamperedCertificates(t *testing.T) {
	z := z3(t)
	const (
		q1 = "SELECT count(s.singer_id) FROM singer s, singer t WHERE s.age = t.age AND (t.age = 20 OR t.age = 30) AND s.name = 'x'"
		q2 = "SELECT COUNT(*) FROM singer AS b, singer AS a WHERE b.age IN (30, 20) AND a.name = 'x' AND b.age = a.age"
	)
	good := certificate(t, z, q1, q2)
	if err := checkJSON(t, z, q1, q2, good); err != nil {
		t.Fatalf("the prover's certificate does not check: %v", err)
	}
	var c map[string]any
	tamper := func(f func(c map[string]any)) []byte {
		if err := json.Unmarshal(good, &c); err != nil {
			t.Fatal(err)
		}
		f(c)
		b, _ := json.Marshal(c)
		return b
	}
	step := func(c map[string]any, side string, i int) map[string]any {
		return c[side+"_steps"].([]any)[i].(map[string]any)
	}
	cases := []struct {
		name, where string
		edit        func(c map[string]any)
	}{
		{"a changed step", "q1 step 2 (count_star)", func(c map[string]any) {
			st := step(c, "q1", 1)
			st["after"] = strings.Replace(st["after"].(string), "count(*)", "count(a1.name)", 1)
		}},
		{"a dropped fact", "q1 step 2 (count_star)", func(c map[string]any) { delete(step(c, "q1", 1), "facts") }},
		{"an edited obligation", "obligation 1", func(c map[string]any) {
			o := c["obligations"].([]any)[0].(map[string]any)
			o["smt"] = strings.Replace(o["smt"].(string), " 30)", " 31)", 1)
		}},
		{"an obligation dropped", "obligations", func(c map[string]any) { c["obligations"] = []any{} }},
		{"a wrong bijection", "", func(c map[string]any) {
			b := c["bijection"].([]any)
			b[0].(map[string]any)["q2"], b[1].(map[string]any)["q2"] = b[1].(map[string]any)["q2"], b[0].(map[string]any)["q2"]
		}},
		{"an expected sat", "obligation 1", func(c map[string]any) { c["obligations"].([]any)[0].(map[string]any)["expect"] = "sat" }},
		{"a broken chain", "q1 step 1", func(c map[string]any) { c["q1_steps"] = c["q1_steps"].([]any)[1:] }},
		{"another normal form", "q2 normal form", func(c map[string]any) {
			c["normal_forms"].(map[string]any)["q2"] = c["normal_forms"].(map[string]any)["q1"]
		}},
		{"method identical", "normal forms", func(c map[string]any) { c["method"] = "identical" }},
		{"an unknown rule", "q1 step 2", func(c map[string]any) { step(c, "q1", 1)["rule"] = "trust_me" }},
		{"a comparison fact dropped", "comparison", func(c map[string]any) { c["facts"] = []any{} }},
		{"a step's node changed", "q1 step 2 (count_star)", func(c map[string]any) { step(c, "q1", 1)["node"] = "count(a1.age)" }},
		{"a renaming given a node", "q1 step 1 (rename)", func(c map[string]any) { step(c, "q1", 0)["node"] = "s.singer_id" }},
		{"a bijection's table changed", "bijection", func(c map[string]any) {
			c["bijection"].([]any)[0].(map[string]any)["table"] = "concert"
		}},
	}
	for _, tc := range cases {
		err := checkJSON(t, alwaysUnsat{}, q1, q2, tamper(tc.edit))
		if err == nil {
			t.Errorf("%s: the tampered certificate checks", tc.name)
			continue
		}
		var ce *check.CheckError
		if tc.where != "" && (!errorsAs(err, &ce) || !strings.HasPrefix(ce.Where, tc.where)) {
			t.Errorf("%s: error %q does not name %q", tc.name, err, tc.where)
		}
	}
}

// TestTamperedColumnMap: under the bag rule, columns pair by position: a
// certificate whose column map swaps two outputs fails (issue 37), even
// when the swapped outputs compare equal; under the spider rule the same
// map checks.
func TestTamperedColumnMap(t *testing.T) {
	z := z3(t)
	const q1, q2 = "SELECT age, age FROM singer WHERE age > 20", "SELECT age, age FROM singer WHERE 20 < age"
	good := certificate(t, z, q1, q2)
	var c check.Certificate
	if err := json.Unmarshal(good, &c); err != nil {
		t.Fatal(err)
	}
	c.Columns = []int{1, 0}
	for _, rule := range []string{"bag", "spider"} {
		err := check.Check(context.Background(), check.Input{Q1: q1, Q2: q2, Schema: schema(), Rule: rule, Solver: z}, &c)
		var ce *check.CheckError
		switch {
		case rule == "spider" && err != nil:
			t.Errorf("spider: a column permutation of equal outputs does not check: %v", err)
		case rule == "bag" && (err == nil || !errorsAs(err, &ce) || ce.Where != "columns"):
			t.Errorf("bag: a swapped column map: %v, want a failure of the columns", err)
		}
	}
	if err := check.Check(context.Background(), check.Input{Q1: q1, Q2: q2, Schema: schema(), Rule: "set", Solver: z}, &c); err == nil {
		t.Error("an unknown rule checks")
	}
}

// TestTamperedIdentical: a certificate of method identical whose
// bijection names another table, or that maps columns, fails.
func TestTamperedIdentical(t *testing.T) {
	z := z3(t)
	const q1, q2 = "SELECT name FROM singer", "select NAME from SINGER"
	good := certificate(t, z, q1, q2)
	for name, edit := range map[string]func(c *check.Certificate){
		"table":   func(c *check.Certificate) { c.Bijection[0].Table = "concert" },
		"columns": func(c *check.Certificate) { c.Columns = []int{0} },
	} {
		var c check.Certificate
		if err := json.Unmarshal(good, &c); err != nil {
			t.Fatal(err)
		}
		if c.Method != check.MethodIdentical {
			t.Fatalf("method %s", c.Method)
		}
		edit(&c)
		if err := check.Check(context.Background(), check.Input{Q1: q1, Q2: q2, Schema: schema(), Rule: "bag", Solver: z}, &c); err == nil {
			t.Errorf("%s: the tampered certificate checks", name)
		}
	}
}

// TestSolverSaysSat: an obligation the solver does not answer unsat fails
// the check, naming it.
func TestSolverSaysSat(t *testing.T) {
	z := z3(t)
	const q1, q2 = "SELECT name FROM singer WHERE age BETWEEN 20 AND 30", "SELECT name FROM singer WHERE age >= 20 AND age <= 30"
	good := certificate(t, z, q1, q2)
	// The same certificate for a pair it does not prove: the queries of
	// the input differ from those the steps start from.
	if err := checkJSON(t, z, q1, "SELECT name FROM singer WHERE age >= 20 AND age < 30", good); err == nil {
		t.Fatal("a certificate checks against another pair")
	}
	var c check.Certificate
	_ = json.Unmarshal(good, &c)
	err := check.Check(context.Background(), check.Input{Q1: q1, Q2: q2, Schema: schema(), Rule: "bag", Solver: sayer("sat")}, &c)
	if err == nil || !strings.Contains(err.Error(), "obligation 1") {
		t.Fatalf("a sat answer: %v", err)
	}
}

type sayer string

func (s sayer) Name() string { return string(s) }
func (s sayer) Check(_ context.Context, scripts []string) ([]string, error) {
	out := make([]string, len(scripts))
	for i := range out {
		out[i] = string(s)
	}
	return out, nil
}

func errorsAs(err error, target **check.CheckError) bool {
	for err != nil {
		if ce, ok := err.(*check.CheckError); ok {
			*target = ce
			return true
		}
		u, ok := err.(interface{ Unwrap() error })
		if !ok {
			return false
		}
		err = u.Unwrap()
	}
	return false
}

// TestTamperedTiesClaim: a certificate says whether it holds up to ties
// (Certificate.Ties), and Check recomputes it: a proof up to ties that
// drops the flag claims more than the kernel showed (the same rows on
// every database), and a strict proof that sets it claims another thing;
// both are refused, naming ties, and the flag set back checks again.
func TestTamperedTiesClaim(t *testing.T) {
	z := z3(t)
	for _, c := range []struct {
		q1, q2 string
		ties   bool
	}{
		{"SELECT name FROM singer ORDER BY age LIMIT 1", "SELECT name FROM singer WHERE age = age OR age IS NULL ORDER BY age LIMIT 1", true},
		{"SELECT name FROM singer ORDER BY singer_id LIMIT 1", "SELECT name FROM singer WHERE age = age OR age IS NULL ORDER BY singer_id LIMIT 1", false},
	} {
		b := certificate(t, z, c.q1, c.q2)
		var cert map[string]any
		if err := json.Unmarshal(b, &cert); err != nil {
			t.Fatal(err)
		}
		if got := cert["ties"] == true; got != c.ties {
			t.Fatalf("%s: ties %v, want %v", c.q1, got, c.ties)
		}
		if err := checkJSON(t, z, c.q1, c.q2, b); err != nil {
			t.Fatalf("%s: the untouched certificate does not check: %v", c.q1, err)
		}
		if c.ties {
			delete(cert, "ties")
		} else {
			cert["ties"] = true
		}
		tb, err := json.Marshal(cert)
		if err != nil {
			t.Fatal(err)
		}
		err = checkJSON(t, z, c.q1, c.q2, tb)
		if err == nil || !strings.Contains(err.Error(), "ties") {
			t.Errorf("%s: the certificate with ties flipped: %v, want a refusal naming ties", c.q1, err)
		}
	}
}

// TestTamperedDerivedPairing: a certificate that compares FROM subqueries
// as tables (opaqueDerived) lists facts of the schema's columns only, and
// is refused when its bijection says a FROM subquery is a table, or when
// it is presented for a pair whose subqueries differ.
func TestTamperedDerivedPairing(t *testing.T) {
	z := z3(t)
	const (
		q1 = "SELECT s.name FROM (SELECT age FROM singer WHERE age > 7 GROUP BY age) AS d, singer s WHERE s.age = d.age"
		q2 = "SELECT s.name FROM (SELECT age FROM singer WHERE age > 7 GROUP BY age) AS d, singer s WHERE s.age = d.age AND s.age > 7"
	)
	b := certificate(t, z, q1, q2)
	var c check.Certificate
	if err := json.Unmarshal(b, &c); err != nil {
		t.Fatal(err)
	}
	derived := -1
	for i, m := range c.Bijection {
		if m.Table == check.DerivedTable {
			derived = i
		}
	}
	if derived < 0 {
		t.Fatalf("no FROM subquery paired in %s", b)
	}
	for _, f := range c.Facts {
		if f.Table != "singer" {
			t.Errorf("fact %+v: want facts of the schema's tables only", f)
		}
	}
	if err := checkJSON(t, z, q1, q2, b); err != nil {
		t.Fatalf("the untouched certificate does not check: %v", err)
	}
	c.Bijection[derived].Table = "singer"
	tb, err := json.Marshal(&c)
	if err != nil {
		t.Fatal(err)
	}
	if err := checkJSON(t, z, q1, q2, tb); err == nil || !strings.Contains(err.Error(), "bijection") {
		t.Errorf("a FROM subquery paired as table singer: %v, want a refusal naming the bijection", err)
	}
	other := strings.Replace(q2, "age > 7 GROUP BY", "age > 8 GROUP BY", 1)
	if err := checkJSON(t, z, q1, other, b); err == nil {
		t.Errorf("the certificate checks for %s, whose FROM subquery differs", other)
	}
}
