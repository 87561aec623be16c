package check

import (
	"github.com/sqljudge/sqljudge/internal/sqlast"
)

// Subquery goals of ConditionCover (issue 38): a conjunct `e [NOT] IN
// (SELECT y FROM … WHERE …)` or `[NOT] EXISTS (SELECT … FROM … WHERE …)`
// is left out of the other goals (the encoding has no symbol for a
// subquery), so the rows that decide it are the draws'. Here the
// subquery's FROM rows join the core's copies as occurrences of their
// own, its ON and WHERE conditions are encoded with the core's (a
// correlated reference reads the same copy of the outer row), and the
// goals ask for the rows that make such a conjunct differ from its near
// misses: a subquery row meeting its conditions whose y is e
// ("member": IN against a join), is NULL ("null in subquery": NOT IN
// against NOT EXISTS, or against a join that drops the NULL), or is
// another value ("other in subquery": NOT IN TRUE over a non-empty
// subquery); e NULL beside a subquery row ("null outer"); and two
// subquery rows for one outer row ("two in subquery": IN or EXISTS
// against a join that repeats the outer row). Only a plain subquery is
// taken: one SELECT over base tables, without GROUP BY, HAVING, an
// aggregate or LIMIT.

// subqueryGoals adds the subquery goals of each such conjunct of cc and
// returns, of those that are positive (IN, EXISTS), the flips (coverFlip:
// the core's other conditions flipped with a subquery row that makes the
// conjunct TRUE, a LEFT JOIN whose ON is NULL beside `x IN (SELECT …
// WHERE genre = 'Wuxia')`) and the duplicates (coverDup: two outer rows
// sharing one table's row, each with a subquery row that makes the
// conjunct TRUE, COUNT against COUNT(DISTINCT) under such an IN).
func (cv *Cover) subqueryGoals(c *Canon, cc coverCore) ([]coverFlip, []coverDup) {
	var flips []coverFlip
	var dups []coverDup
	for i, x := range cc.conds {
		e, st := subqueryOf(x)
		sq := plainSubquery(c, st, e != nil)
		if sq == nil {
			continue
		}
		merged := withSubquery(c, coverCore{occs: cc.occs, conds: cc.conds}, i, sq)
		if f, d := cv.subqueryGoalsOf(c, merged, len(cc.occs), e, sq, "subquery "+itoa(i+1)); f != nil && positive(x) {
			flips, dups = append(flips, f), append(dups, d)
		}
	}
	return flips, dups
}

// withSubquery is cc with its i-th condition, a subquery conjunct whose
// SELECT is sq (a plainSubquery), replaced by that subquery's rows: cc's
// occurrences then sq's FROM, cc's other conditions then sq's ON and
// WHERE conjuncts (a correlated reference reads the same copy of the
// outer row). cc's outputs, aggregates, HAVING and GROUP BY are kept.
func withSubquery(c *Canon, cc coverCore, i int, sq *sqlast.SelectQuery) coverCore {
	merged := cc
	merged.occs = append([]*occurrence{}, cc.occs...)
	merged.conds = append(append([]sqlast.Expr{}, cc.conds[:i]...), cc.conds[i+1:]...)
	for _, t := range sq.From {
		merged.occs = append(merged.occs, c.byAlias[lowerASCII(t.Alias.Name)])
		if t.On != nil {
			merged.conds = append(merged.conds, conjuncts(t.On)...)
		}
	}
	if sq.Where != nil {
		merged.conds = append(merged.conds, conjuncts(sq.Where)...)
	}
	return merged
}

// inMatch is, for copy k of cs, the formulas of `e IN (sq)` over the
// copy's subquery row: its output equal to e, both non-NULL (match); its
// output NULL, e not (yNull); e NULL, the output not (eNull); both
// non-NULL and different (other). ok is false when the encoder cannot
// write e, the output or their equality.
func inMatch(cs *coverScript, c *Canon, e sqlast.Expr, sq *sqlast.SelectQuery, k int) (inForms, bool) {
	l, okl, err := cs.encoder(c, k+1).scalar(e)
	if err != nil || !okl || l.srt == "" {
		return inForms{}, false
	}
	r, okr, err := cs.encoder(c, k+1).scalar(sq.Columns[0].Expr)
	if err != nil || !okr || r.srt == "" {
		return inForms{}, false
	}
	eq, ok := cs.encoder(c, k+1).relate(sqlast.OpEq, l, r)
	if !ok {
		return inForms{}, false
	}
	return inForms{match: and(not(l.n), not(r.n), eq), yNull: and(not(l.n), r.n), eNull: and(l.n, not(r.n)), other: and(not(l.n), not(r.n), not(eq))}, true
}

// inForms are inMatch's formulas.
type inForms struct{ match, yNull, eNull, other string }

// positive reports whether x is IN (subquery) or EXISTS (subquery), not
// their negations: the conjunct one matching subquery row makes TRUE.
func positive(x sqlast.Expr) bool {
	switch t := stripParens(x).(type) {
	case *sqlast.InExpr:
		return !t.Not
	case *sqlast.ExistsExpr:
		return true
	}
	return false
}

// subqueryGoalsOf writes the goals of one conjunct: merged holds the
// core's occurrences (the first nOuter) and the subquery's, and every
// condition but the conjunct's own; e is the IN's left operand (nil for
// EXISTS), sq the subquery. It returns the flip whose goals hold the
// subquery's first copy matching (for IN, its output equal to e) and the
// duplicate whose goals hold both copies matching; nils when it wrote no
// goal.
func (cv *Cover) subqueryGoalsOf(c *Canon, merged coverCore, nOuter int, e sqlast.Expr, sq *sqlast.SelectQuery, name string) (coverFlip, coverDup) {
	cs := cv.encode(c, merged, 2)
	n := len(merged.occs)
	one := cs.rows[:n]
	two := append(append([]int{}, one...), cs.rows[n+nOuter:2*n]...)
	var outerSame []string
	for j := range nOuter {
		outerSame = append(outerSame, sameConsts(cs.cols[j], cs.cols[n+j]))
	}
	var subDiffer []string
	for j := nOuter; j < n; j++ {
		subDiffer = append(subDiffer, not(cs.sameRow(j, 0, 1, n)))
	}
	both := cs.rows[:2*n]
	// dup(members) is the coverDup whose copies each meet members.
	dup := func(members ...string) coverDup {
		return cv.dupOf(cs, name+" member", append([]string{cs.all(0), cs.all(1)}, members...), nOuter, both)
	}
	if e == nil {
		cv.add(name+" member", cs, []string{cs.all(0)}, one)
		cv.add(name+" two in subquery", cs, append([]string{cs.all(0), cs.all(1), or(subDiffer...)}, outerSame...), two)
		return cv.flipOf(cs, name+" member", nil, one), dup()
	}
	f1, ok := inMatch(cs, c, e, sq, 0)
	if !ok {
		return nil, nil
	}
	f2, ok := inMatch(cs, c, e, sq, 1)
	if !ok {
		return nil, nil
	}
	m1, m2 := f1.match, f2.match
	cv.markReads(cs, c, 2, e, sq.Columns[0].Expr)
	cv.add(name+" member", cs, []string{cs.all(0), m1}, one)
	cv.add(name+" null in subquery", cs, []string{cs.all(0), f1.yNull}, one)
	cv.add(name+" two in subquery", cs, append([]string{cs.all(0), cs.all(1), m1, m2, or(subDiffer...)}, outerSame...), two)
	cv.add(name+" other in subquery", cs, []string{cs.all(0), f1.other}, one)
	cv.add(name+" null outer", cs, []string{cs.all(0), f1.eNull}, one)
	return cv.flipOf(cs, name+" member", []string{m1}, one), dup(m1, m2)
}

// subqueryOf reads x as [NOT] IN (subquery) — its left operand and the
// subquery — or [NOT] EXISTS (subquery) — nil and the subquery; nil, nil
// otherwise.
func subqueryOf(x sqlast.Expr) (sqlast.Expr, *sqlast.SelectStmt) {
	x = stripParens(x)
	if u, ok := x.(*sqlast.UnaryExpr); ok && u.Op == sqlast.OpNot {
		x = stripParens(u.X)
	}
	switch t := x.(type) {
	case *sqlast.InExpr:
		if t.Select != nil {
			return t.X, t.Select
		}
	case *sqlast.ExistsExpr:
		return nil, t.Select
	}
	return nil, nil
}

// plainSubquery is st's one SELECT when it is a simpleSelect without an
// aggregate that (column) outputs one column; nil otherwise.
func plainSubquery(c *Canon, st *sqlast.SelectStmt, column bool) *sqlast.SelectQuery {
	sq := simpleSelect(c, st)
	if sq == nil || column && (len(sq.Columns) != 1 || sq.Columns[0].Expr == nil) {
		return nil
	}
	agg := false
	for _, rc := range sq.Columns {
		walkExpr(rc.Expr, func(x sqlast.Expr) bool {
			if f, ok := x.(*sqlast.FuncCall); ok && isAggregateCall(f) {
				agg = true
			}
			return !agg
		})
	}
	if agg {
		return nil
	}
	return sq
}

// simpleSelect is st's one SELECT when it reads base tables (each an
// occurrence of c) without GROUP BY, HAVING, a compound, a WITH or
// LIMIT; nil otherwise.
func simpleSelect(c *Canon, st *sqlast.SelectStmt) *sqlast.SelectQuery {
	if st == nil || len(st.Cores) != 1 || st.With != nil {
		return nil
	}
	sq, ok := st.Cores[0].(*sqlast.SelectQuery)
	if !ok || len(sq.GroupBy) > 0 || sq.Having != nil || sq.Limit != nil || len(sq.From) == 0 {
		return nil
	}
	for _, t := range sq.From {
		if t.Alias == nil {
			return nil
		}
		if oc := c.byAlias[lowerASCII(t.Alias.Name)]; oc == nil || oc.table == nil {
			return nil
		}
	}
	return sq
}
