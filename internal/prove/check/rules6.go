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
		o, i, ok := c.colOf(notNullOperand(x))
		return ok && o == yo && i == yi
	})
	if k < 0 {
		return refuse("rule", "no top-level conjunct of the subquery's WHERE reads %s IS NOT NULL", sqlast.Format(sb.outputs[0]))
	}
	sub.Where = andAll(slices.Delete(conds, k, k+1))
	return nil
}

// notNullOperand returns x of a condition x IS NOT NULL (x NOTNULL, x
// NOT NULL), nil for any other.
func notNullOperand(e sqlast.Expr) sqlast.Expr {
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
