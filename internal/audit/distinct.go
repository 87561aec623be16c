package audit

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/sqljudge/sqljudge/internal/result"
	"github.com/sqljudge/sqljudge/internal/sqlast"
)

// distinctKeys reports whether core is a SELECT DISTINCT (no GROUP BY, no
// aggregate, no *) sorted by some key it does not return: the case
// newOrderedSelect leaves to distinctOrder.
func distinctKeys(p *parsed, core *sqlast.SelectQuery) bool {
	if core.Distinct != sqlast.DistinctDistinct || len(core.GroupBy) > 0 || core.Having != nil || hasStar(core.Columns) || isAggregate(core) {
		return false
	}
	for _, t := range core.OrderBy {
		if _, col, ok := resolveKey(p, core, t.Expr); ok && col < 0 {
			return true
		}
	}
	return false
}

// distinctOrder checks a SELECT DISTINCT sorted by a key it does not
// return (distinctKeys). A returned row may stand for rows with several
// values of that key; which one it sorts by is the engine's choice
// (PostgreSQL refuses the query). The SELECT runs twice as a GROUP BY of
// its result columns, sorted by each row's smallest value of the key
// (MIN) and by its largest (MAX); when the rows kept (or, compared in
// order, their order) differ, and a row whose key takes several values is
// among the differing ones, the finding shows both.
func (a *auditor) distinctOrder(p *parsed, s *sqlast.SelectStmt, core *sqlast.SelectQuery, top, inOrder bool) {
	o, reason := newDistinctSelect(p, s, core, top)
	if o == nil {
		a.skip("order", reason)
		return
	}
	if !o.limit && !inOrder {
		return
	}
	orig := o.keyText
	var runs [2]*result.Set
	for i, fn := range []string{"min", "max"} {
		keys := make([]string, len(orig))
		for k, col := range o.cols {
			keys[k] = orig[k]
			if col < 0 {
				keys[k] = fn + "(" + orig[k] + ")"
			}
		}
		o.keyText = keys
		q := o.query(func(k int, t *sqlast.OrderingTerm) string {
			return keys[k] + p.sql[p.end(t.Expr):p.end(t)]
		})
		if runs[i] = a.aux("distinct_order", q); runs[i] == nil {
			return
		}
	}
	c, differ := o.compare(runs[0], runs[1], inOrder)
	if !differ || !o.spreadAmong(runs, c) {
		return
	}
	f := o.finding(DistinctOrder, runs[0])
	c.evidence(&f, a.c.maxEvidence())
	var hidden []string
	for k, col := range o.cols {
		if col < 0 {
			hidden = append(hidden, orig[k])
		}
	}
	f.Detail = fmt.Sprintf("SELECT DISTINCT sorts by %s, which it does not return: a returned row stands for rows with several values of it, and the query %s when each row sorts by its smallest value (kept) than by its largest (instead); which value the engine sorts a row by is its choice (PostgreSQL refuses the query)",
		strings.Join(hidden, ", "), o.changes())
	a.add(f)
}

// newDistinctSelect reads a SELECT DISTINCT sorted by keys it may not
// return as an orderedSelect that runs as a GROUP BY of its result
// columns: DISTINCT dropped, "GROUP BY 1, ..., n" after its FROM and
// WHERE, its keys appended (distinctOrder sets keyText and the terms to
// each key's aggregate).
func newDistinctSelect(p *parsed, s *sqlast.SelectStmt, core *sqlast.SelectQuery, top bool) (*orderedSelect, string) {
	o := &orderedSelect{p: p, s: s, core: core, top: top, appended: true}
	if !o.readLimit() {
		return nil, ReasonLimit
	}
	for _, t := range core.OrderBy {
		text, col, ok := resolveKey(p, core, t.Expr)
		if !ok {
			return nil, ReasonKeys
		}
		o.keyText = append(o.keyText, text)
		o.cols = append(o.cols, col)
	}
	positions := make([]string, len(core.Columns))
	for i := range positions {
		positions[i] = strconv.Itoa(i + 1)
	}
	after := p.end(core.From[len(core.From)-1])
	if core.Where != nil {
		after = p.end(core.Where)
	}
	o.extra = []edit{
		{core.Pos(), core.Columns[0].Pos(), "SELECT "},
		{after, after, " GROUP BY " + strings.Join(positions, ", ")},
	}
	return o, ""
}

// spreadAmong reports whether a row that differs between the MIN and the
// MAX run (c) has a smaller key than largest one, read from the two runs.
func (o *orderedSelect) spreadAmong(runs [2]*result.Set, c comparison) bool {
	lows := map[string][]result.Value{}
	out, keys := o.rowsOf(runs[0])
	for i := range out {
		lows[result.RowKey(out[i])] = keys[i]
	}
	highOut, highKeys := o.rowsOf(runs[1])
	highs := map[string][]result.Value{}
	for i := range highOut {
		highs[result.RowKey(highOut[i])] = highKeys[i]
	}
	differs := func(row []result.Value) bool {
		k := result.RowKey(row)
		lo, ok1 := lows[k]
		hi, ok2 := highs[k]
		return ok1 && ok2 && !keysEqual(lo, hi)
	}
	for _, i := range c.onlyX {
		if differs(c.xOut[i]) {
			return true
		}
	}
	for _, i := range c.onlyY {
		if differs(c.yOut[i]) {
			return true
		}
	}
	return false
}
