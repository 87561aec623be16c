package check

import "github.com/sqljudge/sqljudge/internal/sqlast"

// An aggregate call belongs to the innermost SELECT whose FROM one of its
// arguments' columns comes from (SQLite's resolve.c walks outward until
// sqlite3ReferencesSrcList finds one; PostgreSQL's agglevelsup is the
// same rule): COUNT(t.a) written inside (SELECT ... FROM s) with t outer
// is an aggregate of the outer query, which it makes an aggregate query.
// The normal form reads every aggregate as one of the SELECT it is
// written in, so such a query is refused by every rule and by the
// comparison (the identical method, the same query up to renaming, still
// proves it).

// outerAggregate returns a refusal naming the first aggregate of c that
// belongs to a SELECT outside the one it is written in, nil when none.
func (c *Canon) outerAggregate() error {
	var err error
	sqlast.Walk(c.Stmt, func(n sqlast.Node) bool {
		sq, ok := n.(*sqlast.SelectQuery)
		if !ok || err != nil {
			return err == nil
		}
		sc := c.scopes[sq]
		for _, e := range coreExprs(sq) {
			walkExpr(e, func(x sqlast.Expr) bool {
				if f, ok := x.(*sqlast.FuncCall); ok && isAggregateCall(f) && err == nil && !c.readsScope(f, sc) {
					err = refuse("outer aggregate", "%s reads only columns of an outer query: it is that query's aggregate", sqlast.Format(f))
				}
				return err == nil
			})
		}
		return err == nil
	})
	return err
}

// readsScope reports whether aggregate call f reads a column of scope
// sc's FROM items (subqueries in its arguments included), or no column
// at all.
func (c *Canon) readsScope(f *sqlast.FuncCall, sc *scope) bool {
	any, local := false, false
	sqlast.Walk(f, func(n sqlast.Node) bool {
		r, ok := n.(*sqlast.QualifiedRef)
		if !ok || len(r.Parts) != 2 {
			return true
		}
		any = true
		if o := c.byAlias[lowerASCII(r.Parts[0].Name)]; o != nil && sc != nil {
			for _, x := range sc.occs {
				local = local || x == o
			}
		}
		return true
	})
	return !any || local
}

// coreExprs lists the expressions of a SELECT core written in it (not in
// its subqueries): outputs, ON clauses, WHERE, GROUP BY, HAVING, ORDER BY.
func coreExprs(sq *sqlast.SelectQuery) []sqlast.Expr {
	var out []sqlast.Expr
	for _, c := range sq.Columns {
		if c.Expr != nil {
			out = append(out, c.Expr)
		}
	}
	for _, t := range sq.From {
		if t.On != nil {
			out = append(out, t.On)
		}
	}
	if sq.Where != nil {
		out = append(out, sq.Where)
	}
	out = append(out, sq.GroupBy...)
	if sq.Having != nil {
		out = append(out, sq.Having)
	}
	for _, o := range sq.OrderBy {
		out = append(out, o.Expr)
	}
	return out
}
