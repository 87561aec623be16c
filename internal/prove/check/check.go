package check

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/sqljudge/sqljudge/internal/sqllex"
)

// Input is what a certificate is checked against: the two queries as
// the pair gives them, the schema (re-read by the caller from the pair's
// source, never from the certificate), the comparison rule ("bag" or
// "spider") and the solver (nil: a certificate with obligations fails).
type Input struct {
	Q1, Q2 string
	Schema Schema
	Rule   string
	Solver Solver
}

// Ordered reports whether rows must come in the same order under rule:
// bag, when either query has an ORDER BY outside parentheses; spider,
// when the first (the gold) contains "order by" anywhere (Spider's
// evaluator reads the text).
func Ordered(rule, q1, q2 string) bool {
	if rule == "spider" {
		return sqllex.ContainsOrderBy(q1)
	}
	return sqllex.TopLevelOrderBy(q1) || sqllex.TopLevelOrderBy(q2)
}

// CheckError is a certificate that does not check: Where names the part
// (a step of a query, the bijection, an obligation).
type CheckError struct {
	Where string
	Err   error
}

// Error prints the part and what is wrong with it.
func (e *CheckError) Error() string { return e.Where + ": " + e.Err.Error() }

// Unwrap returns the cause.
func (e *CheckError) Unwrap() error { return e.Err }

func fail(where string, format string, args ...any) error {
	return &CheckError{Where: where, Err: fmt.Errorf(format, args...)}
}

// MaxQueryBytes is the longest query the kernel reads, in bytes: 64 KiB,
// seven times the longest gold of Spider and BIRD, so that a query padded
// with a list of 300,000 values (2 MB), read again by every rewrite and
// every step's check, neither holds a worker for minutes nor takes a
// gigabyte.
const MaxQueryBytes = 64 << 10

// Check re-checks a certificate: every step's rule applied again to its
// Before gives its After and needs exactly its Facts; the steps chain from
// each query to its normal form; every fact holds in the schema; the
// normal forms are in canonical form and are the same query (identical)
// or compare block by block under the bijection with exactly the
// certificate's facts and obligations, each answered unsat by the solver.
// The error is a *CheckError naming the failing part: "query size" for
// a query over MaxQueryBytes, "may fail" for a pair whose failures the
// kernel cannot show to agree (ConditionRisk, DerivedRisk, FormRisk), "type" for a
// query PostgreSQL refuses to type (TypeRisk).
func Check(ctx context.Context, in Input, c *Certificate) error {
	if c.Kernel != KernelVersion {
		return fail("kernel", "certificate of kernel %q, want %q", c.Kernel, KernelVersion)
	}
	if in.Rule != "bag" && in.Rule != "spider" {
		return fail("rule", "unknown comparison rule %q (bag or spider)", in.Rule)
	}
	if n := max(len(in.Q1), len(in.Q2)); n > MaxQueryBytes {
		return fail("query size", "a query of %d bytes, over the %d the kernel reads", n, MaxQueryBytes)
	}
	for i, q := range []string{in.Q1, in.Q2} {
		if r := SizeRisk(q, in.Schema); r != "" {
			return fail("query size", "q%d: %s", i+1, r)
		}
		if r := RowValueRisk(q); r != "" {
			return fail("row value", "q%d: %s", i+1, r)
		}
	}
	if in.Q1 != in.Q2 {
		for i, q := range []string{in.Q1, in.Q2} {
			if r := ConditionRisk(q, in.Schema); r != "" {
				return fail("may fail", "q%d: %s, in a condition, may fail on some row, and whether the engine reaches it depends on its order of evaluation, which the kernel does not model", i+1, r)
			}
			if r := DerivedRisk(q, in.Schema); r != "" {
				return fail("may fail", "q%d: %s, in an output of a FROM subquery or a WITH, may fail, and the engine may evaluate it where the query does not read it (PostgreSQL types it and folds its constants; SQLite computes every column of a WITH and of a subquery it does not flatten)", i+1, r)
			}
			if r := TypeRisk(q, in.Schema); r != "" {
				return fail("type", "q%d: %s: PostgreSQL types every query before it runs it (and refuses one it cannot type, on every database), by rules the kernel does not model", i+1, r)
			}
		}
	}
	if err := checkSteps("q1", in.Q1, c.Q1Steps, c.NormalForms.Q1, in.Schema); err != nil {
		return err
	}
	if err := checkSteps("q2", in.Q2, c.Q2Steps, c.NormalForms.Q2, in.Schema); err != nil {
		return err
	}
	switch c.Method {
	case MethodIdentical:
		return checkIdentical(in, c)
	case MethodNormalForm:
		return checkNormalForm(ctx, in, c)
	}
	return fail("method", "unknown method %q", c.Method)
}

// checkSteps checks the chain of steps from q to nf.
func checkSteps(name, q string, steps []Step, nf string, s Schema) error {
	cur := q
	for i, st := range steps {
		where := fmt.Sprintf("%s step %d (%s)", name, i+1, st.Rule)
		if st.Before != cur {
			return fail(where, "its query before is not the query the previous step left (the chain is broken)")
		}
		if err := CheckStep(st, s); err != nil {
			return &CheckError{Where: where, Err: err}
		}
		cur = st.After
	}
	if cur != nf {
		return fail(name+" normal form", "the steps do not end at the normal form")
	}
	return nil
}

// CheckStep validates one step: its rule applied again gives its After,
// relying on exactly its Facts, each of which holds in s, and its Node is
// the SQL of the node at At (NodeText); a renaming names no node (At -1).
func CheckStep(st Step, s Schema) error {
	if st.Rule == RuleRename && (st.At != -1 || st.Node != "") {
		return fmt.Errorf("a renaming names no node (at -1, no node), not %d %q", st.At, st.Node)
	}
	if st.Rule != RuleRename && st.Node != NodeText(st.Before, st.At) {
		return fmt.Errorf("its node %q is not the node at %d: %q", st.Node, st.At, NodeText(st.Before, st.At))
	}
	if st.Rule == RuleRename {
		a, err := Rename(st.Before, s, "x")
		if err != nil {
			return err
		}
		b, err := Rename(st.After, s, "x")
		if err != nil {
			return err
		}
		if a != b {
			return fmt.Errorf("not a renaming: the canonical forms differ:\n%s\n%s", a, b)
		}
		if len(st.Facts) > 0 {
			return fmt.Errorf("a renaming relies on no fact")
		}
		return nil
	}
	after, facts, err := Apply(st.Rule, st.Before, st.At, s)
	if err != nil {
		return fmt.Errorf("the rule does not apply at %d: %w", st.At, err)
	}
	if after != st.After {
		return fmt.Errorf("the rule gives\n%s\nnot\n%s", after, st.After)
	}
	if !sameFacts(facts, st.Facts) {
		return fmt.Errorf("the step relies on %s, it lists %s", factList(facts), factList(st.Facts))
	}
	return factsHold(st.Facts, s)
}

func factList(fs []Fact) string {
	if len(fs) == 0 {
		return "no fact"
	}
	var out []string
	for _, f := range fs {
		out = append(out, f.String())
	}
	return strings.Join(out, ", ")
}

func factsHold(fs []Fact, s Schema) error {
	for _, f := range fs {
		if err := f.Holds(s); err != nil {
			return err
		}
	}
	return nil
}

// normalForm canonicalizes a normal form, which must be in canonical
// form already.
func normalForm(where, nf string, s Schema) (*Canon, error) {
	c, err := Canonicalize(nf, s, textPrefix(nf))
	if err != nil {
		return nil, &CheckError{Where: where, Err: err}
	}
	if c.SQL() != nf {
		return nil, fail(where, "not in canonical form (expected %s)", c.SQL())
	}
	return c, nil
}

func checkIdentical(in Input, c *Certificate) error {
	c1, err := normalForm("q1 normal form", c.NormalForms.Q1, in.Schema)
	if err != nil {
		return err
	}
	if c.NormalForms.Q1 != c.NormalForms.Q2 {
		return fail("normal forms", "method identical but the normal forms differ")
	}
	for _, st := range append(slices.Clone(c.Q1Steps), c.Q2Steps...) {
		if st.Rule != RuleRename {
			return fail("method", "method identical allows renaming steps only (a %s step changes what the engine runs)", st.Rule)
		}
	}
	if len(c.Obligations) > 0 || len(c.Facts) > 0 || c.Ties {
		return fail("method", "method identical needs no fact, no obligation and no claim up to ties")
	}
	if len(c.Bijection) != len(c1.Occs) {
		return fail("bijection", "%d pairs for %d occurrences", len(c.Bijection), len(c1.Occs))
	}
	want := c1.Matches()
	for i, m := range c.Bijection {
		if m != want[i] {
			return fail("bijection", "method identical pairs each occurrence with itself, of its table: %s -> %s (%s), want %s -> %s (%s)", m.Q1, m.Q2, m.Table, want[i].Q1, want[i].Q2, want[i].Table)
		}
	}
	if len(c.Columns) > 0 {
		return fail("columns", "method identical maps no column")
	}
	return nil
}

// matchTables checks that a pairing names the table of both its
// occurrences.
func matchTables(c1, c2 *Canon, m Match) error {
	o1, o2 := c1.byAlias[m.Q1], c2.byAlias[m.Q2]
	if !pairsOccurrences(o1, o2) {
		return fail("bijection", "%s -> %s pairs no two occurrences of a table", m.Q1, m.Q2)
	}
	if o1.table == nil {
		if m.Table != DerivedTable {
			return fail("bijection", "%s -> %s is said to pair occurrences of %s, not two FROM subqueries", m.Q1, m.Q2, m.Table)
		}
		return nil
	}
	if m.Table != o1.table.Name || m.Table != o2.table.Name {
		return fail("bijection", "%s -> %s is said to pair occurrences of %s, not of %s and %s", m.Q1, m.Q2, m.Table, o1.table.Name, o2.table.Name)
	}
	return nil
}

func checkNormalForm(ctx context.Context, in Input, c *Certificate) error {
	c1, err := normalForm("q1 normal form", c.NormalForms.Q1, in.Schema)
	if err != nil {
		return err
	}
	c2, err := normalForm("q2 normal form", c.NormalForms.Q2, in.Schema)
	if err != nil {
		return err
	}
	bij := map[string]string{}
	for _, m := range c.Bijection {
		if _, dup := bij[m.Q1]; dup {
			return fail("bijection", "%s is paired twice", m.Q1)
		}
		if err := matchTables(c1, c2, m); err != nil {
			return err
		}
		bij[m.Q1] = m.Q2
	}
	if in.Q1 != in.Q2 {
		if r := FormRisk(c.NormalForms.Q1, c.NormalForms.Q2, bij, in.Schema); r != "" {
			return fail("may fail", "%s; the encoding compares values, not failures", r)
		}
	}
	if in.Rule == "bag" && !slices.Equal(c.Columns, identity(len(c.Columns))) {
		return fail("columns", "under the bag rule columns pair by position: the column map %v is not the identity", c.Columns)
	}
	cmp, err := compareForms(in.Schema.Dialect(), c1, c2, Pairing{Bijection: bij, Columns: c.Columns}, Ordered(in.Rule, in.Q1, in.Q2), in.Rule == "spider")
	if err != nil {
		return &CheckError{Where: "comparison", Err: err}
	}
	obls, facts := cmp.Obligations, cmp.Facts
	if cmp.Ties != c.Ties {
		if cmp.Ties {
			return fail("ties", "the ORDER BY keys do not determine the row: the forms are equal up to ties, which the certificate does not say (ties: false)")
		}
		return fail("ties", "the certificate claims equality up to ties, but the ORDER BY keys determine the row: the claim is stronger than that")
	}
	if !sameFacts(facts, c.Facts) {
		return fail("comparison", "relies on %s, the certificate lists %s", factList(facts), factList(c.Facts))
	}
	if err := factsHold(c.Facts, in.Schema); err != nil {
		return &CheckError{Where: "comparison", Err: err}
	}
	if len(obls) != len(c.Obligations) {
		return fail("obligations", "the comparison needs %d obligations, the certificate has %d", len(obls), len(c.Obligations))
	}
	var scripts []string
	for i, o := range obls {
		got := c.Obligations[i]
		where := fmt.Sprintf("obligation %d (%s)", i+1, o.Name)
		switch {
		case got.Name != o.Name || got.SMT != o.SMT:
			return fail(where, "its text is not the one the comparison needs:\n%s", o.SMT)
		case got.Expect != "unsat":
			return fail(where, "expected answer %q, want unsat", got.Expect)
		case !sameFacts(got.Facts, o.Facts):
			return fail(where, "relies on %s, it lists %s", factList(o.Facts), factList(got.Facts))
		}
		if err := factsHold(got.Facts, in.Schema); err != nil {
			return &CheckError{Where: where, Err: err}
		}
		scripts = append(scripts, o.SMT)
	}
	if len(scripts) == 0 {
		return nil
	}
	if in.Solver == nil {
		return fail("obligations", "%d obligations and no solver to run them", len(scripts))
	}
	answers, err := in.Solver.Check(ctx, scripts)
	if err != nil {
		return &CheckError{Where: "obligations", Err: err}
	}
	for i, a := range answers {
		if a != "unsat" {
			return fail(fmt.Sprintf("obligation %d (%s)", i+1, obls[i].Name), "the solver answers %s, not unsat", a)
		}
	}
	return nil
}
