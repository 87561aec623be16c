package check

import (
	"slices"

	"github.com/sqljudge/sqljudge/internal/sqlast"
)

// RuleInNotNull: x IN (SELECT y FROM ... WHERE ... AND y IS NOT NULL),
// a top-level conjunct of a WHERE, is the same filter without the
// conjunct y IS NOT NULL: the rows that conjunct removes give the
// subquery NULL outputs, and x = NULL is never TRUE, so x IN (...) is
// TRUE with them exactly when it is without them (it is NULL rather
// than FALSE, which a WHERE treats alike). Not: NOT IN (FALSE becomes
// NULL and NOT NULL stays NULL), an IN under NOT, OR or any other
// operator, or in an output, ON or HAVING; a subquery that aggregates,
// groups, limits or is a compound (the removed rows change its other
// rows); y anything but a column the subquery returns alone. At: the IN.
const RuleInNotNull = "in_not_null"

func init() { rules[RuleInNotNull] = inNotNull }

func inNotNull(c *Canon, at int, _ *factSet) error {
	in, ok := nodeAt[*sqlast.InExpr](c, at)
	if !ok || in.Select == nil || in.Not || len(in.Select.Cores) != 1 {
		return refuse("rule", "no x IN (SELECT ...) at %d", at)
	}
	if !whereConjunct(c, in) {
		return refuse("rule", "the IN is not a top-level conjunct of a WHERE")
	}
	sub := in.Select.Cores[0].(*sqlast.SelectQuery)
	sb, err := blockOfCore(c, sub)
	if err != nil {
		return err
	}
	if sb.aggregate || sub.Limit != nil || len(sb.outputs) != 1 || sub.Where == nil {
		return refuse("rule", "the subquery aggregates, limits, returns several columns or has no WHERE")
	}
	yo, yi, ok := c.colOf(sb.outputs[0])
	if !ok {
		return refuse("rule", "the subquery's output is not a column")
	}
	conds := conjuncts(sub.Where)
	k := slices.IndexFunc(conds, func(x sqlast.Expr) bool {
		o, i, ok := c.colOf(NotNullOperand(x))
		return ok && o == yo && i == yi
	})
	if k < 0 {
		return refuse("rule", "no top-level conjunct of the subquery's WHERE reads %s IS NOT NULL", sqlast.Format(sb.outputs[0]))
	}
	sub.Where = andAll(slices.Delete(conds, k, k+1))
	return nil
}

// NotNullOperand returns x of a condition x IS NOT NULL (x NOTNULL, x
// NOT NULL), nil for any other.
func NotNullOperand(e sqlast.Expr) sqlast.Expr {
	switch t := stripParens(e).(type) {
	case *sqlast.IsExpr:
		if l, ok := t.Y.(*sqlast.Literal); ok && l.Kind == sqlast.LitNull && t.Not && !t.Distinct {
			return t.X
		}
	case *sqlast.NullCheckExpr:
		if t.Test != sqlast.TestIsNull {
			return t.X
		}
	}
	return nil
}

// whereConjunct reports whether e is a top-level conjunct of the WHERE of
// a SELECT of c.
func whereConjunct(c *Canon, e sqlast.Expr) bool {
	found := false
	sqlast.Walk(c.Stmt, func(n sqlast.Node) bool {
		if sq, ok := n.(*sqlast.SelectQuery); ok && sq.Where != nil && slices.Contains(conjuncts(sq.Where), e) {
			found = true
		}
		return !found
	})
	return found
}

// RuleAggNotNull: SELECT … FROM … WHERE p AND x IS NOT NULL is SELECT …
// FROM … WHERE p when the SELECT has no GROUP BY and no window, and
// every aggregate call of its outputs and HAVING (COUNT, SUM, TOTAL,
// AVG, MIN, MAX, DISTINCT or not, without FILTER or an inner ORDER BY)
// takes the column x alone as its argument, with no column read outside
// them and no subquery there: each such aggregate skips the rows whose
// argument is NULL, which are the rows the conjunct removes, and without
// GROUP BY the SELECT returns its one row either way. (COUNT(*), an
// aggregate of another column or of an expression of x, or a bare
// column read the removed rows; GROUP BY would lose a group whose x are
// all NULL.) It lets join_elim's `c.f IS NOT NULL` go where only
// aggregates of c.f read the rows (Spider dev #305: COUNT(DISTINCT
// template_id) of Documents against the same over its join with
// Templates). At: the conjunct x IS NOT NULL.
const RuleAggNotNull = "agg_not_null"

func init() { rules[RuleAggNotNull] = aggNotNull }

func aggNotNull(c *Canon, at int, _ *factSet) error {
	sq, cs, i := whereOf(c, at)
	if sq == nil {
		return refuse("rule", "no top-level conjunct of a WHERE at %d", at)
	}
	xo, xi, ok := c.colOf(NotNullOperand(cs[i]))
	if !ok || xo.core != sq {
		return refuse("rule", "the conjunct is not x IS NOT NULL of a column of its SELECT")
	}
	if len(sq.GroupBy) > 0 || len(sq.Windows) > 0 {
		return refuse("rule", "the SELECT groups or has windows")
	}
	aggs := 0
	var bad string
	var visit func(e sqlast.Expr)
	visit = func(e sqlast.Expr) {
		walkExpr(e, func(x sqlast.Expr) bool {
			if bad != "" {
				return false
			}
			switch t := x.(type) {
			case *sqlast.FuncCall:
				if t.Over != nil {
					bad = "a window function"
					return false
				}
				if !isAggregateCall(t) {
					return true
				}
				name := lowerASCII(t.Name.Name)
				if name == "group_concat" || t.Star || len(t.Args) != 1 || t.Filter != nil || len(t.OrderBy) > 0 {
					bad = "an aggregate other than COUNT, SUM, TOTAL, AVG, MIN or MAX of one argument"
					return false
				}
				if o, k, ok := c.colOf(t.Args[0]); !ok || o != xo || k != xi {
					bad = "an aggregate of something other than " + sqlast.Format(NotNullOperand(cs[i]))
					return false
				}
				aggs++
				return false
			case *sqlast.SubqueryExpr, *sqlast.ExistsExpr:
				bad = "a subquery"
				return false
			case *sqlast.Star:
				bad = "a *"
				return false
			case *sqlast.InExpr:
				if t.Select != nil {
					bad = "a subquery"
					return false
				}
			}
			if _, _, ok := c.colOf(x); ok {
				bad = "a column read outside an aggregate"
				return false
			}
			return true
		})
	}
	for _, col := range sq.Columns {
		visit(col.Expr)
	}
	visit(sq.Having)
	if bad != "" {
		return refuse("rule", "the SELECT reads %s", bad)
	}
	if aggs == 0 {
		return refuse("rule", "the SELECT does not aggregate")
	}
	sq.Where = andAll(slices.Delete(cs, i, i+1))
	return nil
}
