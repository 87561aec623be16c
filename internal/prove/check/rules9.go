package check

import (
	"github.com/sqljudge/sqljudge/internal/sqlast"
)

// RuleGroupedMerge: a grouped FROM subquery that is its query's only FROM
// item is merged into that query (view merging of an aggregate view):
//
//	SELECT [DISTINCT] o1, … FROM (SELECT e1 AS c1, … FROM F WHERE p GROUP BY g1, … HAVING h) AS d WHERE w ORDER BY k1, … LIMIT n
//
// is SELECT [DISTINCT] o1', … FROM F WHERE p GROUP BY g1, … HAVING h AND
// w' ORDER BY k1', … LIMIT n, where x' is x with every d.ci read as ei.
// d has one row per group, each computed from its group as ei is in the
// merged query; the outer WHERE keeps the rows whose group the merged
// HAVING keeps (both keep a row where the condition is TRUE), and the
// outer outputs, sort keys and LIMIT read the same values of the same
// groups. A value of d carries ei's affinity and collation (SQLite's
// sqlite3SubqueryColumnTypes; a PostgreSQL column its expression's type),
// so a comparison of d.ci compares as one of ei does. A column that ei
// reads outside an aggregate and that the groups do not determine (a bare
// column, whose row SQLite chooses) is refused, in an ei read and in the
// subquery's HAVING (SQLite takes a bare column from the row of a MIN or
// MAX, which the merge may drop; the merged query may be planned
// otherwise), and so is an aggregate there whose value depends on the
// order of the group's rows (GroupDetermined, orderFree: their facts are
// the rule's).
//
// The outer query must not group, aggregate, or have a window; it reads d
// only outside subqueries (an aggregate ei inside a subquery would be the
// subquery's aggregate). d must group (without GROUP BY it is one row on
// no rows, and the merged query would be none once it drops the
// aggregates), and has no DISTINCT, ORDER BY, LIMIT or window, one
// SELECT, no WITH. Each ei read has no subquery and no window call; each
// ei not read is dropped, so it must be one that cannot fail (a column, a
// literal, COUNT, MIN, MAX, AVG or TOTAL of a column or of *, and on
// PostgreSQL SUM of a column: SQLite's SUM of integers fails on an
// overflow). At: d's FROM item.
const RuleGroupedMerge = "grouped_merge"

func init() { rules[RuleGroupedMerge] = groupedMerge }

func groupedMerge(c *Canon, at int, facts *factSet) error {
	t, d, err := c.derivedAt(at)
	if err != nil {
		return err
	}
	outer := d.core
	if len(outer.From) != 1 || outer.From[0] != t {
		return refuse("rule", "%s is not the only item of its FROM", d.alias)
	}
	sub, ok := oneSelect(t.Select)
	if !ok {
		return refuse("rule", "the subquery is a compound, VALUES or has a WITH")
	}
	switch {
	case len(sub.GroupBy) == 0:
		return refuse("rule", "the subquery does not group")
	case sub.Distinct == sqlast.DistinctDistinct || sub.Limit != nil || len(sub.OrderBy) > 0 || len(sub.Windows) > 0 || len(sub.From) == 0:
		return refuse("rule", "the subquery removes duplicates, orders, limits, has a window or reads no table")
	case len(outer.GroupBy) > 0 || outer.Having != nil || len(outer.Windows) > 0:
		return refuse("rule", "the query around the subquery groups or has a window")
	}
	expandOuterStars(c, outer)
	var exprs []sqlast.Expr
	for _, col := range outer.Columns {
		exprs = append(exprs, col.Expr)
	}
	if outer.Where != nil {
		exprs = append(exprs, outer.Where)
	}
	for _, o := range outer.OrderBy {
		exprs = append(exprs, o.Expr)
	}
	read := map[int]bool{}
	for _, e := range exprs {
		if _, star := e.(*sqlast.Star); star {
			return refuse("rule", "a * the query does not spell out")
		}
		if containsAggregate(e) || hasWindowCall(e) {
			return refuse("rule", "the query around the subquery aggregates or has a window")
		}
		outside, all := 0, 0
		var bad bool
		walkExpr(e, func(x sqlast.Expr) bool {
			if r, ok := x.(*sqlast.QualifiedRef); ok && len(r.Parts) == 2 && lowerASCII(r.Parts[0].Name) == d.alias {
				outside++
				i := d.column(r.Parts[1].Name)
				if i < 0 || i >= len(sub.Columns) {
					bad = true
				} else {
					read[i] = true
				}
			}
			return true
		})
		sqlast.Walk(e, func(n sqlast.Node) bool {
			if r, ok := n.(*sqlast.QualifiedRef); ok && len(r.Parts) == 2 && lowerASCII(r.Parts[0].Name) == d.alias {
				all++
			}
			return true
		})
		if bad {
			return refuse("rule", "a column of %s that its subquery does not give", d.alias)
		}
		if outside != all {
			return refuse("rule", "%s is read inside a subquery", d.alias)
		}
	}
	// The values read must not depend on the row of its group, nor on the
	// order of the group's rows, that the engine meets last: the merged
	// query may be planned otherwise (an ORDER BY of it read through an
	// index), and SQLite takes a bare column from the row of a MIN or MAX
	// the merge drops. GroupDetermined reads the subquery with the outputs
	// read alone (an output dropped is not compared).
	outputs := sub.Columns
	var kept []*sqlast.ResultColumn
	pos := map[int]int{}
	for i, col := range outputs {
		if read[i] {
			pos[i] = len(kept)
			kept = append(kept, col)
		}
	}
	// The subquery's HAVING stays, but reads a bare column from the row
	// of a MIN or MAX the merge may drop: it is read as an output too.
	if sub.Having != nil {
		kept = append(kept, &sqlast.ResultColumn{Expr: sub.Having})
	}
	var determined []Determined
	if len(kept) > 0 {
		sub.Columns = kept
		text := sqlast.Format(t.Select)
		sub.Columns = outputs
		var err error
		if determined, err = GroupDetermined(text, c.s); err != nil || len(determined) != len(kept) {
			return refuse("rule", "the subquery's outputs are not read on their own (%v)", err)
		}
	}
	var local factSet
	if sub.Having != nil {
		h := determined[len(determined)-1]
		if !h.Determined {
			return refuse("rule", "the subquery's HAVING reads a value its groups do not determine")
		}
		local.addAll(h.Facts)
		if err := c.orderFreeFacts(sub.Having, &local); err != nil {
			return err
		}
	}
	for i, col := range sub.Columns {
		e := col.Expr
		if _, star := e.(*sqlast.Star); star {
			return refuse("rule", "the subquery outputs *")
		}
		switch {
		case read[i] && (holdsSubquery(e) || hasWindowCall(e)):
			return refuse("rule", "%s reads %s, which has a subquery or a window call", d.alias, sqlast.Format(e))
		case read[i] && !determined[pos[i]].Determined:
			return refuse("rule", "%s reads %s, which its groups do not determine (the engine returns any row's value)", d.alias, sqlast.Format(e))
		case !read[i] && !cannotFail(e, c.d):
			return refuse("rule", "%s drops %s, which may fail where the query without it runs", d.alias, sqlast.Format(e))
		}
		if !read[i] {
			continue
		}
		local.addAll(determined[pos[i]].Facts)
		if err := c.orderFreeFacts(e, &local); err != nil {
			return err
		}
	}
	facts.addAll(local.list)
	subst := func(e sqlast.Expr) sqlast.Expr {
		if e == nil {
			return nil
		}
		return rewriteExpr(e, func(x sqlast.Expr) sqlast.Expr {
			r, ok := x.(*sqlast.QualifiedRef)
			if !ok || len(r.Parts) != 2 || lowerASCII(r.Parts[0].Name) != d.alias {
				return x
			}
			y := cloneExpr(sub.Columns[d.column(r.Parts[1].Name)].Expr)
			if !atomic(y) {
				y = &sqlast.ParenExpr{X: y}
			}
			return y
		})
	}
	for _, col := range outer.Columns {
		col.Expr = subst(col.Expr)
	}
	for _, o := range outer.OrderBy {
		o.Expr = subst(o.Expr)
	}
	having := append(optConjuncts(sub.Having), optConjuncts(subst(outer.Where))...)
	outer.From, outer.Where, outer.GroupBy = sub.From, sub.Where, sub.GroupBy
	outer.Having = nil
	if len(having) > 0 {
		outer.Having = andAll(having)
	}
	return nil
}

// orderFreeFacts refuses an aggregate of e (outside subqueries) whose value
// depends on the order of its group's rows (orderFree), and adds to facts
// what makes the others free of it (aggOrderFacts, as the comparison
// lists them).
func (c *Canon) orderFreeFacts(e sqlast.Expr, facts *factSet) error {
	var err error
	walkExpr(e, func(x sqlast.Expr) bool {
		if f, ok := x.(*sqlast.FuncCall); ok && isAggregateCall(f) && err == nil {
			if err = c.orderFree(f); err == nil {
				c.aggOrderFacts(f, facts)
			}
		}
		return err == nil
	})
	return err
}

// hasWindowCall reports whether e holds a window function call outside
// subqueries.
func hasWindowCall(e sqlast.Expr) bool {
	found := false
	walkExpr(e, func(x sqlast.Expr) bool {
		if f, ok := x.(*sqlast.FuncCall); ok && f.Over != nil {
			found = true
		}
		return !found
	})
	return found
}

// cannotFail reports whether e, an output of a grouped SELECT, is one whose
// evaluation never raises an error on dialect d: a column, a literal (under
// parentheses), COUNT(*), or COUNT, MIN, MAX, AVG or TOTAL of a column,
// without DISTINCT, FILTER or ORDER BY; on PostgreSQL also SUM of a column
// (SQLite's SUM of integers fails on an overflow, "integer overflow").
func cannotFail(e sqlast.Expr, d Dialect) bool {
	e = stripParens(e)
	switch t := e.(type) {
	case *sqlast.QualifiedRef, *sqlast.Literal:
		return true
	case *sqlast.FuncCall:
		if t.Over != nil || t.Filter != nil || len(t.OrderBy) > 0 || t.Distinct {
			return false
		}
		name := lowerASCII(t.Name.Name)
		if name == "count" && t.Star && len(t.Args) == 0 {
			return true
		}
		if t.Star || len(t.Args) != 1 {
			return false
		}
		if _, col := stripParens(t.Args[0]).(*sqlast.QualifiedRef); !col {
			return false
		}
		switch name {
		case "count", "min", "max", "avg", "total":
			return name != "total" || d == SQLite
		case "sum":
			return d == Postgres
		}
	}
	return false
}

// rewriteExpr is sqlast.Rewrite of an expression, its root included.
func rewriteExpr(e sqlast.Expr, fn func(sqlast.Expr) sqlast.Expr) sqlast.Expr {
	box := &sqlast.ParenExpr{X: e}
	sqlast.Rewrite(box, fn)
	return box.X
}
