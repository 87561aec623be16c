package check

import (
	"strings"

	"github.com/sqljudge/sqljudge/internal/sqlast"
)

// Group goals of ConditionCover (issue 38): a HAVING that compares an
// aggregate with a literal (HAVING SUM(salary) > 100 against >= 100,
// COUNT(*) > 4 against > 5) tells two queries apart only on a group
// whose aggregate sits on the literal, which random rows almost never
// make. The goals here model one group exactly: a few copies
// (groupCopies) of the FROM row in which every occurrence but one (the one the
// aggregates read) is copy 1's own row, so the join of the rows the model
// puts in the database is these copies and nothing else; each copy after
// the first is in the database only when the model says so (its
// CoverRow.Present flag), every copy present meets the ON and WHERE
// conditions and has copy 1's GROUP BY values, and the aggregates of
// HAVING are their definitions over the copies present: COUNT, SUM,
// TOTAL, AVG, MIN and MAX of a column or of *, DISTINCT included. Goals:
// "group holds" (every HAVING conjunct TRUE) and, for each conjunct that
// compares with a literal, "group boundary i" (its two sides equal, the
// others TRUE). An aggregate the definitions do not cover is left
// unconstrained, and the engine decides as everywhere else.

// groupGoals adds the group goals of a core with a HAVING.
func (cv *Cover) groupGoals(c *Canon, cc coverCore, o CoverOptions) {
	if len(cc.having) == 0 || len(cc.occs) == 0 {
		return
	}
	vary := cc.varying(c)
	n := groupCopies(cc.having, o.MaxLimitRows)
	cs := cv.encode(c, cc, n)
	nOcc := len(cc.occs)
	present := make([]string, n)
	present[0] = "true"
	var base []string
	for k := 1; k < n; k++ {
		present[k] = "|present#" + itoa(k+1) + "|"
		cs.s.declare(present[k], "(declare-const "+present[k]+" Bool)")
		cv.Rows[cs.rows[k*nOcc+vary]].Present = present[k]
		for j := range cc.occs {
			if j != vary {
				base = append(base, sameConsts(cs.cols[k*nOcc+j], cs.cols[j]))
			}
		}
	}
	for k := range n {
		base = append(base, "(=> "+present[k]+" "+cs.all(k)+")")
		if len(cs.occs[vary].table.Keys) > 0 {
			for j := 1; j < k; j++ {
				base = append(base, "(=> (and "+present[j]+" "+present[k]+") "+not(cs.sameRow(vary, j, k, nOcc))+")")
			}
		}
	}
	same, ok := cs.sameGroup(c, cc, present)
	if !ok {
		return
	}
	base = append(base, same...)
	e := cs.encoder(c, 1)
	e.agg, e.grouped = true, true
	var conds []pred
	for _, h := range cc.having {
		p, err := e.cond(h)
		if err != nil {
			return
		}
		conds = append(conds, p)
	}
	base = append(base, cs.defineAggregates(c, cc.having, present)...)
	for _, x := range append(append([]sqlast.Expr{}, cc.having...), cc.groupBy...) {
		walkExpr(x, func(y sqlast.Expr) bool {
			if r, ok := y.(*sqlast.QualifiedRef); ok {
				cv.markRead(cs, c, r, n)
			}
			return true
		})
	}
	rows := []int{}
	for k := range n {
		if k == 0 {
			rows = append(rows, cs.rows[:nOcc]...)
			continue
		}
		rows = append(rows, cs.rows[k*nOcc+vary])
	}
	holds := append([]string{}, base...)
	for _, p := range conds {
		holds = append(holds, p.t)
	}
	cv.add("group holds", cs, holds, rows)
	for i, h := range cc.having {
		eq, ok := cs.onLiteral(e, h)
		if !ok {
			continue
		}
		goal := append([]string{}, base...)
		for j, p := range conds {
			if j != i {
				goal = append(goal, p.t)
			}
		}
		cv.add("group boundary "+itoa(i+1), cs, append(goal, eq), rows)
	}
}

// groupCopies is the number of copies of a group goal: 4, or, when a
// HAVING conjunct compares a COUNT with a whole number v, v + 2 (its
// boundary and one past it), at most max (CoverOptions.MaxLimitRows).
// Each copy costs Z3 its conditions and keys again: Spider's HAVING
// count(*) > 1 needs two rows, not twelve.
func groupCopies(having []sqlast.Expr, most int) int {
	n := 4
	for _, h := range having {
		b, ok := stripParens(h).(*sqlast.BinaryExpr)
		if !ok || !comparison(b) {
			continue
		}
		for _, side := range [][2]sqlast.Expr{{b.X, b.Y}, {b.Y, b.X}} {
			f, ok := stripParens(side[0]).(*sqlast.FuncCall)
			if !ok || lowerASCII(f.Name.Name) != "count" {
				continue
			}
			if v, ok := intLiteralValue(side[1]); ok && v >= 0 && v < int64(most) {
				n = max(n, int(v)+2)
			}
		}
	}
	return min(n, max(2, most))
}

// varying is the occurrence whose rows make the group: that of the first
// column an aggregate of HAVING reads, else the last occurrence no GROUP
// BY term reads (COUNT(*) counts its rows), else the last.
func (cc *coverCore) varying(c *Canon) int {
	index := func(r *sqlast.QualifiedRef) int {
		if o, _, ok := c.colOf(r); ok {
			for j, oc := range cc.occs {
				if oc == o {
					return j
				}
			}
		}
		return -1
	}
	for _, h := range cc.having {
		found := -1
		walkExpr(h, func(x sqlast.Expr) bool {
			if f, ok := x.(*sqlast.FuncCall); ok && found < 0 && isAggregateCall(f) {
				for _, l := range f.Args {
					for _, leaf := range leavesOf(l) {
						if r, ok := leaf.(*sqlast.QualifiedRef); ok && found < 0 {
							found = index(r)
						}
					}
				}
			}
			return found < 0
		})
		if found >= 0 {
			return found
		}
	}
	grouped := map[int]bool{}
	for _, g := range cc.groupBy {
		for _, leaf := range leavesOf(g) {
			if r, ok := leaf.(*sqlast.QualifiedRef); ok {
				grouped[index(r)] = true
			}
		}
	}
	for j := len(cc.occs) - 1; j >= 0; j-- {
		if !grouped[j] {
			return j
		}
	}
	return len(cc.occs) - 1
}

// sameGroup is the formulas: each copy present has copy 1's value of
// every GROUP BY term (NULL with NULL: one group); false when a term is
// not encoded.
func (cs *coverScript) sameGroup(c *Canon, cc coverCore, present []string) ([]string, bool) {
	var out []string
	for _, g := range cc.groupBy {
		first, ok, err := cs.encoder(c, 1).scalar(g)
		if err != nil || !ok || first.srt == "" {
			return nil, false
		}
		for k := 1; k < len(present); k++ {
			t, ok, err := cs.encoder(c, k+1).scalar(g)
			if err != nil || !ok || t.srt != first.srt {
				return nil, false
			}
			out = append(out, "(=> "+present[k]+" (and (= "+t.n+" "+first.n+") (or "+t.n+" (= "+t.v+" "+first.v+"))))")
		}
	}
	return out, true
}

// defineAggregates is the formulas that define each aggregate of exprs
// that the encoder met (cs.s.aggs) over the copies present.
func (cs *coverScript) defineAggregates(c *Canon, exprs []sqlast.Expr, present []string) []string {
	var out []string
	seen := map[string]bool{}
	for _, h := range exprs {
		walkExpr(h, func(x sqlast.Expr) bool {
			f, ok := x.(*sqlast.FuncCall)
			if !ok || !isAggregateCall(f) {
				return true
			}
			key := sqlast.Format(f)
			if t := cs.s.aggs[key]; t != nil && !seen[key] {
				seen[key] = true
				out = append(out, cs.defineAggregate(c, f, *t, present)...)
			}
			return false
		})
	}
	return out
}

// defineAggregate is the definition of one aggregate (its term agg) over
// the copies present; none when its function, argument or sort is not
// modelled.
func (cs *coverScript) defineAggregate(c *Canon, f *sqlast.FuncCall, agg term, present []string) []string {
	name := lowerASCII(f.Name.Name)
	if f.Filter != nil || len(f.OrderBy) > 0 || f.Over != nil {
		return nil
	}
	if name == "count" && f.Star {
		return []string{"(= " + agg.v + " " + sum(present, nil, "Int") + ")"}
	}
	if len(f.Args) != 1 {
		return nil
	}
	args := make([]term, len(present))
	in := make([]string, len(present))
	for k := range present {
		t, ok, err := cs.encoder(c, k+1).scalar(f.Args[0])
		if err != nil || !ok || t.srt == "" {
			return nil
		}
		args[k] = t
		in[k] = and(present[k], not(t.n))
		if f.Distinct {
			// Counted once: the first copy present with this value.
			for j := range k {
				if args[j].srt == t.srt {
					in[k] = and(in[k], not(and(present[j], not(args[j].n), "(= "+args[j].v+" "+t.v+")")))
				}
			}
		}
	}
	empty := not(or(in...))
	srt := args[0].srt
	switch name {
	case "count":
		return []string{"(= " + agg.v + " " + sum(in, nil, "Int") + ")"}
	case "sum", "total":
		if !numericSort(srt) || !numericSort(agg.srt) {
			return nil
		}
		def := "(= " + agg.v + " " + sum(in, values(args, agg.srt), agg.srt) + ")"
		if name == "total" {
			return []string{def}
		}
		return []string{"(= " + agg.n + " " + empty + ")", "(=> " + not(agg.n) + " " + def + ")"}
	case "avg":
		if !numericSort(srt) || agg.srt != "Real" {
			return nil
		}
		total := sum(in, values(args, "Real"), "Real")
		return []string{"(= " + agg.n + " " + empty + ")", "(=> " + not(agg.n) + " (= (* " + agg.v + " " + sum(in, nil, "Real") + ") " + total + "))"}
	case "min", "max":
		if agg.srt != srt || !numericSort(srt) {
			return nil
		}
		op := map[string]string{"min": "<=", "max": ">="}[name]
		var bound, attained []string
		for k := range present {
			bound = append(bound, "(=> "+in[k]+" ("+op+" "+agg.v+" "+args[k].v+"))")
			attained = append(attained, and(in[k], "(= "+agg.v+" "+args[k].v+")"))
		}
		return []string{"(= " + agg.n + " " + empty + ")", "(=> " + not(agg.n) + " " + and(append(bound, or(attained...))...) + ")"}
	}
	return nil
}

// onLiteral is the formula: HAVING conjunct h, a comparison (< <= > >= =
// <>) of a value with a literal, has its two sides equal and not NULL;
// false when h is no such comparison or its sides are not modelled.
func (cs *coverScript) onLiteral(e *encoder, h sqlast.Expr) (string, bool) {
	b, ok := stripParens(h).(*sqlast.BinaryExpr)
	if !ok || !comparison(b) || !isLiteralValue(b.X) && !isLiteralValue(b.Y) {
		return "", false
	}
	x, okx, err := e.scalar(b.X)
	if err != nil || !okx || x.srt == "" {
		return "", false
	}
	y, oky, err := e.scalar(b.Y)
	if err != nil || !oky || y.srt == "" {
		return "", false
	}
	eq, ok := e.relate(sqlast.OpEq, x, y)
	if !ok || eq == "false" {
		return "", false
	}
	return and(not(x.n), not(y.n), eq), true
}

func numericSort(srt string) bool { return srt == "Int" || srt == "Real" }

// values is each argument's value in sort srt (an Int made Real).
func values(args []term, srt string) []string {
	out := make([]string, len(args))
	for k, a := range args {
		out[k] = a.v
		if srt == "Real" {
			out[k] = toReal(a)
		}
	}
	return out
}

// sum is Σ ite(in[k], v[k], 0) in sort srt (v nil: 1 for each).
func sum(in, v []string, srt string) string {
	zero, one := "0", "1"
	if srt == "Real" {
		zero, one = "0.0", "1.0"
	}
	var terms []string
	for k, c := range in {
		x := one
		if v != nil {
			x = v[k]
		}
		terms = append(terms, "(ite "+c+" "+x+" "+zero+")")
	}
	if len(terms) == 1 {
		return terms[0]
	}
	return "(+ " + strings.Join(terms, " ") + ")"
}
