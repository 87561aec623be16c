// Package prove proves that two SQL queries return the same result on
// every database satisfying a schema, and writes the proof as a
// certificate that package check (the kernel, small and separate) re-checks
// without trusting this package.
//
// The method follows the symbolic approach of SPES (Zhou, Sun, Gan, Zhu,
// "SPES: A Symbolic Approach to Proving Query Equivalence Under Bag
// Semantics", ICDE 2022) and the use of integrity constraints as side
// conditions of rewrites of SQLSolver (Ding et al., SIGMOD 2024): each
// query is rewritten by the kernel's rules, each relying on schema facts
// (keys, NOT NULL, foreign keys), into a normal form of
// select-project-join blocks; the two forms are then compared under a
// bijection between their table occurrences, the equivalence of their
// conditions and outputs discharged by an SMT solver (Z3's executable
// fed SMT-LIB 2 text). When the two queries differ only by renaming, the
// proof is that alone. See docs/equiv.md, "Proofs".
package prove

import (
	"context"
	"errors"
	"fmt"

	"github.com/sqljudge/sqljudge/internal/prove/check"
)

// Schema is the schema a proof is about (the kernel's model).
type Schema = check.Schema

// Certificate is a proof (the kernel's format).
type Certificate = check.Certificate

// Options configure Prove.
type Options struct {
	// Rule is the comparison rule: "bag" (columns by position) or
	// "spider" (Spider's execution match: any column order).
	Rule string
	// Solver discharges the obligations; nil proves only what needs none
	// (queries equal up to renaming, or forms equal without a condition
	// to compare).
	Solver check.Solver
	// MaxBijections bounds the pairings of table occurrences tried
	// (default 24).
	MaxBijections int
}

// Attempt is the outcome of Prove: a Certificate, or what stopped the
// proof (Stopped names the construct or the step, Detail says more).
type Attempt struct {
	Certificate *Certificate
	Stopped     string
	Detail      string
	// SolverCalls counts the obligations run on the solver.
	SolverCalls int
}

// Proved reports whether the attempt found a proof.
func (a Attempt) Proved() bool { return a.Certificate != nil }

// MaxQueryBytes is the longest query the prover tries, in bytes: the
// kernel's check.MaxQueryBytes (64 KiB).
const MaxQueryBytes = check.MaxQueryBytes

// cancelled returns the Attempt of a proof stopped by the end of its
// context (err).
func cancelled(err error) Attempt {
	return Attempt{Stopped: "cancelled", Detail: err.Error()}
}

// stop returns an Attempt stopped by err.
func stop(err error) Attempt {
	var r *check.Refusal
	if errors.As(err, &r) {
		return Attempt{Stopped: r.Construct, Detail: r.Detail}
	}
	return Attempt{Stopped: "internal", Detail: err.Error()}
}

// Prove tries to prove that q1 and q2 return the same result on every
// database satisfying s, under o.Rule. It never errs: a pair it cannot
// prove is an Attempt without a certificate. Every certificate it returns
// has passed check.Check (the obligations' answers reused).
//
// It stops, without a proof, when ctx ends (Stopped "cancelled", checked
// between the rewrites and the pairings, each of which reads the whole
// query again), and does not try a query longer than MaxQueryBytes
// (Stopped "query size").
func Prove(ctx context.Context, q1, q2 string, s Schema, o Options) Attempt {
	if o.MaxBijections <= 0 {
		o.MaxBijections = 24
	}
	if o.Rule != "bag" && o.Rule != "spider" {
		return Attempt{Stopped: "rule", Detail: fmt.Sprintf("unknown comparison rule %q (bag or spider)", o.Rule)}
	}
	if n := max(len(q1), len(q2)); n > MaxQueryBytes {
		return Attempt{Stopped: "query size", Detail: fmt.Sprintf("a query of %d bytes, over the %d the prover reads (each rewrite reads the whole query again)", n, MaxQueryBytes)}
	}
	for i, q := range []string{q1, q2} {
		if r := check.SizeRisk(q, s); r != "" {
			return Attempt{Stopped: "query size", Detail: fmt.Sprintf("q%d: %s", i+1, r)}
		}
		if r := check.RowValueRisk(q); r != "" {
			return Attempt{Stopped: "row value", Detail: fmt.Sprintf("q%d: %s", i+1, r)}
		}
	}
	if err := ctx.Err(); err != nil {
		return cancelled(err)
	}
	if q1 != q2 {
		for i, q := range []string{q1, q2} {
			if r := check.ConditionRisk(q, s); r != "" {
				return Attempt{Stopped: "may fail", Detail: fmt.Sprintf("q%d: %s, in a condition, may fail on some row, and whether the engine reaches it depends on its order of evaluation, which the kernel does not model", i+1, r)}
			}
			if r := check.DerivedRisk(q, s); r != "" {
				return Attempt{Stopped: "may fail", Detail: fmt.Sprintf("q%d: %s, in an output of a FROM subquery or a WITH, may fail, and the engine may evaluate it where the query does not read it (PostgreSQL types it and folds its constants; SQLite computes every column of a WITH and of a subquery it does not flatten)", i+1, r)}
			}
			if r := check.TypeRisk(q, s); r != "" {
				return Attempt{Stopped: "type", Detail: fmt.Sprintf("q%d: %s: PostgreSQL types every query before it runs it (and refuses one it cannot type, on every database), by rules the kernel does not model", i+1, r)}
			}
		}
	}
	p := &prover{ctx: ctx, s: s, o: o, q: [2]string{q1, q2}, ordered: check.Ordered(o.Rule, q1, q2), answers: map[string]string{}}
	c1, err := check.Canonicalize(q1, s, "a")
	if withRefused(err) {
		return p.normalForm() // WITH inlined or an outer join turned first, never identical
	}
	if err != nil {
		return stop(err)
	}
	c2, err := check.Canonicalize(q2, s, "a")
	if withRefused(err) {
		return p.normalForm()
	}
	if err != nil {
		return stop(err)
	}
	if c1.SQL() == c2.SQL() {
		return p.identical(c1)
	}
	return p.normalForm()
}

// withRefused reports whether err is the canonical form's refusal of a
// construct that a rule before the canonical form may remove: a WITH
// clause (cte_inline), a RIGHT or FULL JOIN (full_to_outer,
// right_to_left).
func withRefused(err error) bool {
	var r *check.Refusal
	return errors.As(err, &r) && (r.Construct == "WITH" || r.Construct == "RIGHT/FULL JOIN")
}

// preCanonical are the rules a query goes through, in this order, where
// they apply, before its renaming into canonical form (each at -1): a
// WITH inlined, then a FULL JOIN whose WHERE rejects one side's NULLs
// made LEFT or RIGHT, then a RIGHT JOIN made LEFT.
var preCanonical = []string{check.RuleInlineCTE, check.RuleFullToOuter, check.RuleRightToLeft}

// prover is the state of one Prove.
type prover struct {
	ctx     context.Context
	s       Schema
	o       Options
	q       [2]string
	ordered bool
	steps   [2][]check.Step
	cur     [2]string
	calls   int
	answers map[string]string // obligation text → the solver's answer
	// keepGroups: normalize leaves GROUP BY without aggregates as it is
	// (group_distinct off), for a pair whose other query groups with an
	// aggregate the normal form cannot drop.
	keepGroups bool
}

// renameStep appends the step from the query to its canonical form (none
// when the query is in canonical form already).
func (p *prover) rename(i int, prefix string) error {
	p.cur[i] = p.q[i]
	for _, rule := range preCanonical {
		if after, _, err := check.Apply(rule, p.cur[i], -1, p.s); err == nil {
			p.steps[i] = append(p.steps[i], check.Step{Rule: rule, At: -1, Before: p.cur[i], After: after})
			p.cur[i] = after
		}
	}
	c, err := check.Canonicalize(p.cur[i], p.s, prefix)
	if err != nil {
		return err
	}
	if c.SQL() != p.cur[i] {
		p.steps[i] = append(p.steps[i], check.Step{Rule: check.RuleRename, At: -1, Before: p.cur[i], After: c.SQL()})
		p.cur[i] = c.SQL()
	}
	return nil
}

// identical proves a pair equal up to renaming.
func (p *prover) identical(c *check.Canon) Attempt {
	for i := range 2 {
		if err := p.rename(i, "a"); err != nil {
			return stop(err)
		}
	}
	cert := &Certificate{Kernel: check.KernelVersion, Method: check.MethodIdentical,
		Q1Steps: p.steps[0], Q2Steps: p.steps[1], NormalForms: check.NormalForms{Q1: p.cur[0], Q2: p.cur[1]},
		Bijection: c.Matches(), Columns: []int{}, Obligations: []check.Obligation{}}
	return p.finish(cert)
}

// finish self-checks a certificate with the kernel (reusing the solver's
// answers) and returns it.
func (p *prover) finish(cert *Certificate) Attempt {
	in := check.Input{Q1: p.q[0], Q2: p.q[1], Schema: p.s, Rule: p.o.Rule, Solver: answered(p.answers)}
	if err := check.Check(p.ctx, in, cert); err != nil {
		if ce := (*check.CheckError)(nil); errors.As(err, &ce) && ce.Where == "may fail" {
			return Attempt{Stopped: "may fail", Detail: ce.Err.Error(), SolverCalls: p.calls}
		}
		return Attempt{Stopped: "internal", Detail: fmt.Sprintf("the kernel rejects the prover's certificate: %v", err), SolverCalls: p.calls}
	}
	return Attempt{Certificate: cert, SolverCalls: p.calls}
}

// answered is a solver that repeats answers already given.
type answered map[string]string

// Name returns "answers".
func (a answered) Name() string { return "answers" }

// Check returns the recorded answer of each script; a script without one
// is an error.
func (a answered) Check(_ context.Context, scripts []string) ([]string, error) {
	out := make([]string, len(scripts))
	for i, s := range scripts {
		ans, ok := a[s]
		if !ok {
			return nil, fmt.Errorf("no answer for script %d", i+1)
		}
		out[i] = ans
	}
	return out, nil
}
