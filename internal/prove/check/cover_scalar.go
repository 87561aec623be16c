package check

import (
	"github.com/sqljudge/sqljudge/internal/sqlast"
)

// Scalar subquery goals of ConditionCover (issue 38): a conjunct that
// compares a value with an uncorrelated scalar subquery that aggregates
// one base table without GROUP BY (`amount < (SELECT AVG(amount) FROM
// trans WHERE year = '1998')`, BIRD's most common subquery) is left out
// of the other goals, so the rows that decide it are the draws'. Here
// the subquery's value is its aggregates' definitions (cover_group.go)
// over the rows of its table the goal puts in the database: the core's
// own rows of that table (copy 1; "mirrors", present always) and up to
// scalarRows - mirrors more, each present when the model says so and
// distinct from the others by key, each counted when it meets the
// subquery's WHERE. Goals: the conjunct TRUE ("scalar 1 holds"), TRUE
// with a NULL where the aggregate reads ("… null": AVG(x) against
// SUM(x) / COUNT(*)), the two sides equal ("… boundary"), and both.

// scalarRows is the number of rows of the subquery's table a scalar goal
// models, mirrors included.
const scalarRows = 4

// scalarGoals adds the scalar subquery goals of each such conjunct of cc
// and returns their flips (coverFlip), for goals to use in place of the
// core's own "false j" and "null j", which leave the scalar conjunct to
// the draws (a LEFT JOIN whose ON is NULL beside `amount < (SELECT
// AVG(amount) …)`: BIRD 145), and their duplicates (coverDup: two outer
// rows sharing one table's row, the comparison TRUE for each, COUNT
// against COUNT(DISTINCT) over a join beside it).
func (cv *Cover) scalarGoals(c *Canon, cc coverCore) ([]coverFlip, []coverDup) {
	var flips []coverFlip
	var dups []coverDup
	for i, x := range cc.conds {
		b, st, sq := scalarComparison(c, x)
		if sq == nil {
			continue
		}
		sub := c.byAlias[lowerASCII(sq.From[0].Alias.Name)]
		merged := coverCore{occs: append(append([]*occurrence{}, cc.occs...), sub)}
		merged.conds = append(append([]sqlast.Expr{}, cc.conds[:i]...), cc.conds[i+1:]...)
		if f, _ := cv.scalarGoalsOf(c, merged, b, st, sq, "scalar "+itoa(i+1), 1); f != nil {
			flips = append(flips, f)
			_, d := cv.scalarGoalsOf(c, merged, b, st, sq, "scalar "+itoa(i+1), 2)
			if d != nil {
				dups = append(dups, d)
			}
		}
	}
	return flips, dups
}

// scalarGoalsOf writes the goals of one conjunct b: merged holds the
// core's occurrences and, last, the subquery's; st is the subquery, sq
// its SELECT. With outer = 1 it writes the goals above and returns the
// conjunct's flip; with outer = 2 the core's rows of two copies are in
// the database (each of the subquery's table mirrored, so counted) and it
// writes nothing but returns the conjunct's duplicate. Nil when it
// cannot.
func (cv *Cover) scalarGoalsOf(c *Canon, merged coverCore, b *sqlast.BinaryExpr, st *sqlast.SelectStmt, sq *sqlast.SelectQuery, name string, outer int) (coverFlip, coverDup) {
	n := len(merged.occs)
	s := n - 1
	var mirrors []int // the rows (copy * n + occurrence) of the subquery's table
	for k := range outer {
		for j, oc := range merged.occs[:s] {
			if oc.table == merged.occs[s].table {
				mirrors = append(mirrors, k*n+j)
			}
		}
	}
	if len(mirrors) >= scalarRows {
		return nil, nil
	}
	cs := cv.encode(c, merged, scalarRows)
	base := []string{cs.all(0)}
	rows := append([]int{}, cs.rows[:s]...)
	if outer == 2 {
		rows = append(rows, cs.rows[n:n+s]...)
	}
	present := make([]string, scalarRows)
	for k := range scalarRows {
		if k < len(mirrors) {
			present[k] = "true"
			base = append(base, sameConsts(cs.cols[k*n+s], cs.cols[mirrors[k]]))
		} else {
			present[k] = "|" + name + " present#" + itoa(k+1) + "|"
			cs.s.declare(present[k], "(declare-const "+present[k]+" Bool)")
			cv.Rows[cs.rows[k*n+s]].Present = present[k]
			rows = append(rows, cs.rows[k*n+s])
		}
		if len(merged.occs[s].table.Keys) > 0 {
			for j := range k {
				base = append(base, "(=> (and "+present[j]+" "+present[k]+") "+not(cs.sameRow(s, j, k, n))+")")
			}
		}
	}
	// Counted: a row present that meets the subquery's WHERE.
	counted := make([]string, scalarRows)
	for k := range scalarRows {
		w := []string{present[k]}
		if sq.Where != nil {
			for _, x := range conjuncts(sq.Where) {
				p, err := cs.encoder(c, k+1).cond(x)
				if err != nil {
					return nil, nil
				}
				w = append(w, p.t)
			}
		}
		counted[k] = and(w...)
	}
	e := cs.encoder(c, 1)
	e.agg = true
	value, ok, err := e.scalar(sq.Columns[0].Expr)
	if err != nil || !ok || value.srt == "" {
		return nil, nil
	}
	base = append(base, cs.defineAggregates(c, []sqlast.Expr{sq.Columns[0].Expr}, counted)...)
	oe := cs.encoder(c, 1)
	oe.subTerms = map[*sqlast.SelectStmt]term{st: value}
	p, err := oe.cond(b)
	if err != nil {
		return nil, nil
	}
	other := b.X
	if _, ok := stripParens(b.X).(*sqlast.SubqueryExpr); ok {
		other = b.Y
	}
	o, ok, err := oe.scalar(other)
	if err != nil || !ok || o.srt == "" {
		return nil, nil
	}
	eq, ok := oe.relate(sqlast.OpEq, o, value)
	if !ok || eq == "false" {
		return nil, nil
	}
	boundary := and(not(o.n), not(value.n), eq)
	null := cs.nullCounted(c, sq.Columns[0].Expr, counted)
	for _, x := range []sqlast.Expr{sq.Columns[0].Expr, sq.Where, other} {
		walkExpr(x, func(y sqlast.Expr) bool {
			if r, ok := y.(*sqlast.QualifiedRef); ok {
				cv.markRead(cs, c, merged, r, scalarRows)
			}
			return true
		})
	}
	if outer == 2 {
		oe2 := cs.encoder(c, 2)
		oe2.subTerms = oe.subTerms
		p2, err := oe2.cond(b)
		if err != nil {
			return nil, nil
		}
		d := cv.dupOf(cs, name+" holds", append(base[:len(base):len(base)], cs.all(1), p.t, p2.t), s, rows)
		return nil, func(i int) bool {
			// One row shared by both copies would be counted twice.
			return merged.occs[i].table != merged.occs[s].table && d(i)
		}
	}
	cv.add(name+" holds", cs, append(base, p.t), rows)
	if null != "" {
		cv.add(name+" null", cs, append(base, p.t, null), rows)
	}
	cv.add(name+" boundary", cs, append(base, boundary), rows)
	if null != "" {
		cv.add(name+" null boundary", cs, append(base, boundary, null), rows)
	}
	// base[0] is cs.all(0): the flip writes every condition but one.
	return cv.flipOf(cs, name+" holds", append(base[1:len(base):len(base)], p.t), rows), nil
}

// nullCounted is the formula: some row counted has the first column an
// aggregate of x reads NULL ("" when none is a nullable column).
func (cs *coverScript) nullCounted(c *Canon, x sqlast.Expr, counted []string) string {
	var col *sqlast.QualifiedRef
	walkExpr(x, func(y sqlast.Expr) bool {
		if f, ok := y.(*sqlast.FuncCall); ok && isAggregateCall(f) && len(f.Args) == 1 && col == nil {
			col, _ = stripParens(f.Args[0]).(*sqlast.QualifiedRef)
		}
		return col == nil
	})
	if col == nil {
		return ""
	}
	if o, i, ok := c.colOf(col); !ok || o.table.Columns[i].NotNull {
		return ""
	}
	var some []string
	for k := range counted {
		t, err := cs.encoder(c, k+1).column(col)
		if err != nil {
			return ""
		}
		some = append(some, and(counted[k], t.n))
	}
	return or(some...)
}

// scalarComparison reads x as a comparison (= <> < <= > >=) of a value
// with an uncorrelated scalar subquery over one base table that
// aggregates without GROUP BY, HAVING, LIMIT or a nested subquery: the
// comparison, the subquery and its SELECT; nils otherwise.
func scalarComparison(c *Canon, x sqlast.Expr) (*sqlast.BinaryExpr, *sqlast.SelectStmt, *sqlast.SelectQuery) {
	b, ok := stripParens(x).(*sqlast.BinaryExpr)
	if !ok || !comparison(b) {
		return nil, nil, nil
	}
	var st *sqlast.SelectStmt
	for _, side := range []sqlast.Expr{b.X, b.Y} {
		if s, ok := stripParens(side).(*sqlast.SubqueryExpr); ok {
			if st != nil {
				return nil, nil, nil
			}
			st = s.Select
		}
	}
	sq := simpleSelect(c, st)
	if sq == nil || len(sq.From) != 1 || len(sq.Columns) != 1 || sq.Columns[0].Expr == nil {
		return nil, nil, nil
	}
	sub := c.byAlias[lowerASCII(sq.From[0].Alias.Name)]
	agg, own := false, true
	for _, y := range []sqlast.Expr{sq.Columns[0].Expr, sq.Where} {
		walkExpr(y, func(z sqlast.Expr) bool {
			switch t := z.(type) {
			case *sqlast.FuncCall:
				agg = agg || isAggregateCall(t)
			case *sqlast.QualifiedRef:
				if o, _, ok := c.colOf(t); !ok || o != sub {
					own = false // correlated
				}
			case *sqlast.SubqueryExpr, *sqlast.ExistsExpr:
				own = false // nested
			case *sqlast.InExpr:
				own = own && t.Select == nil
			}
			return true
		})
	}
	if !agg || !own {
		return nil, nil, nil
	}
	return b, st, sq
}
