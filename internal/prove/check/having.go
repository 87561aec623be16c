package check

import (
	"github.com/sqljudge/sqljudge/internal/sqlast"
)

// RuleHavingToWhere: a conjunct of the HAVING of a SELECT with GROUP BY
// that reads no aggregate and no subquery, and no column but GROUP BY
// terms of that SELECT that are columns of its own FROM and tie-safe
// (values the engine takes for equal are the same value: every row of a
// group holds the one the group shows), moves to the WHERE. Such a
// conjunct has one value on all the rows of a group, the value it has on
// the group: keeping the groups where it is TRUE keeps the rows where it
// is TRUE, and no group loses a row (SELECT x, count(*) … GROUP BY x
// HAVING x > 5 is … WHERE x > 5 GROUP BY x). Not under NOCASE or RTRIM,
// not an untyped, REAL or NUMERIC column of SQLite (5 and 5.0 make one
// group, and typeof reads which row the group shows), not PostgreSQL's
// numeric or CHAR(n) (tieSafe). No fact: the families it reads are the
// schema's. At: the SELECT.
const RuleHavingToWhere = "having_to_where"

func init() { rules[RuleHavingToWhere] = havingToWhere }

func havingToWhere(c *Canon, at int, _ *factSet) error {
	sq, ok := nodeAt[*sqlast.SelectQuery](c, at)
	if !ok || sq.Having == nil || len(sq.GroupBy) == 0 {
		return refuse("rule", "no SELECT with GROUP BY and HAVING at %d", at)
	}
	sc := c.scopes[sq]
	if sc == nil {
		return refuse("rule", "no scope for the SELECT at %d", at)
	}
	grouped := map[string]bool{}
	for _, g := range sq.GroupBy {
		r, ok := stripParens(g).(*sqlast.QualifiedRef)
		if !ok {
			continue
		}
		o, _, ok := c.colOf(r)
		if ok && o.core == sq && c.tieSafe(r, false) {
			grouped[sqlast.Format(r)] = true
		}
	}
	var keep, move []sqlast.Expr
	for _, h := range conjuncts(sq.Having) {
		if groupConstant(h, grouped) {
			move = append(move, h)
		} else {
			keep = append(keep, h)
		}
	}
	if len(move) == 0 {
		return refuse("rule", "no HAVING conjunct reads only tie-safe GROUP BY columns")
	}
	sq.Where = andAll(append(optConjuncts(sq.Where), move...))
	sq.Having = nil
	if len(keep) > 0 {
		sq.Having = andAll(keep)
	}
	return nil
}

// groupConstant reports whether h reads no aggregate, no subquery and
// no column outside grouped (the canonical text of columns).
func groupConstant(h sqlast.Expr, grouped map[string]bool) bool {
	if containsAggregate(h) || holdsSubquery(h) {
		return false
	}
	ok := true
	walkExpr(h, func(x sqlast.Expr) bool {
		switch t := x.(type) {
		case *sqlast.QualifiedRef:
			ok = ok && grouped[sqlast.Format(t)]
		case *sqlast.Ident, *sqlast.Star:
			ok = false
		}
		return ok
	})
	return ok
}
