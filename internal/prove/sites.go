package prove

import (
	"strings"

	"github.com/sqljudge/sqljudge/internal/prove/check"
	"github.com/sqljudge/sqljudge/internal/sqlast"
)

// The sites of a query where a rule may apply: byte offsets of nodes, in
// the order the query is written.

func countSites(q *sqlast.Query) []int {
	var out []int
	sqlast.Walk(q.Stmt, func(n sqlast.Node) bool {
		if f, ok := n.(*sqlast.FuncCall); ok && strings.EqualFold(f.Name.Name, "count") && !f.Star && !f.Distinct && len(f.Args) == 1 {
			out = append(out, f.Pos())
		}
		return true
	})
	return out
}

func subquerySites(q *sqlast.Query) []int {
	var out []int
	sqlast.Walk(q.Stmt, func(n sqlast.Node) bool {
		switch t := n.(type) {
		case *sqlast.InExpr:
			if t.Select != nil {
				out = append(out, t.Pos())
			}
		case *sqlast.ExistsExpr:
			out = append(out, t.Pos())
		}
		return true
	})
	return out
}

// inSites are the IN subqueries (not NOT IN).
func inSites(q *sqlast.Query) []int {
	var out []int
	sqlast.Walk(q.Stmt, func(n sqlast.Node) bool {
		if t, ok := n.(*sqlast.InExpr); ok && t.Select != nil && !t.Not {
			out = append(out, t.Pos())
		}
		return true
	})
	return out
}

// existsSites are the EXISTS subqueries (exists_to_in takes those that
// are top-level conjuncts of a WHERE).
func existsSites(q *sqlast.Query) []int {
	var out []int
	sqlast.Walk(q.Stmt, func(n sqlast.Node) bool {
		if t, ok := n.(*sqlast.ExistsExpr); ok {
			out = append(out, t.Pos())
		}
		return true
	})
	return out
}

// notNullSites are the IS NOT NULL tests (x IS NOT NULL, x NOTNULL, x
// NOT NULL) of a WHERE that are not under OR or NOT (the rule takes those
// that are top-level conjuncts).
func notNullSites(q *sqlast.Query) []int {
	var out []int
	var conj func(e sqlast.Expr)
	conj = func(e sqlast.Expr) {
		switch t := e.(type) {
		case *sqlast.BinaryExpr:
			if t.Op == sqlast.OpAnd {
				conj(t.X)
				conj(t.Y)
			}
		default:
			if check.NotNullOperand(e) != nil {
				out = append(out, e.Pos())
			}
		}
	}
	sqlast.Walk(q.Stmt, func(n sqlast.Node) bool {
		if sq, ok := n.(*sqlast.SelectQuery); ok && sq.Where != nil {
			conj(sq.Where)
		}
		return true
	})
	return out
}

// groupBySites are the GROUP BY terms, the last first (dropping the
// later, usually the determined ones).
func groupBySites(q *sqlast.Query) []int {
	var out []int
	sqlast.Walk(q.Stmt, func(n sqlast.Node) bool {
		if sq, ok := n.(*sqlast.SelectQuery); ok {
			for i := len(sq.GroupBy) - 1; i >= 0; i-- {
				out = append(out, sq.GroupBy[i].Pos())
			}
		}
		return true
	})
	return out
}

// havingSites are the SELECTs with GROUP BY and HAVING.
func havingSites(q *sqlast.Query) []int {
	var out []int
	sqlast.Walk(q.Stmt, func(n sqlast.Node) bool {
		if sq, ok := n.(*sqlast.SelectQuery); ok && sq.Having != nil && len(sq.GroupBy) > 0 {
			out = append(out, sq.Pos())
		}
		return true
	})
	return out
}

func distinctSites(q *sqlast.Query) []int {
	var out []int
	sqlast.Walk(q.Stmt, func(n sqlast.Node) bool {
		if sq, ok := n.(*sqlast.SelectQuery); ok && sq.Distinct == sqlast.DistinctDistinct {
			out = append(out, sq.Pos())
		}
		return true
	})
	return out
}

// introSites are the SELECTs without DISTINCT that read a FROM subquery
// (distinct_intro's sites).
func introSites(q *sqlast.Query) []int {
	var out []int
	sqlast.Walk(q.Stmt, func(n sqlast.Node) bool {
		sq, ok := n.(*sqlast.SelectQuery)
		if !ok || sq.Distinct != sqlast.DistinctNone {
			return true
		}
		for _, t := range sq.From {
			if t.Select != nil {
				out = append(out, sq.Pos())
				break
			}
		}
		return true
	})
	return out
}

func countDistinctSites(q *sqlast.Query) []int {
	var out []int
	sqlast.Walk(q.Stmt, func(n sqlast.Node) bool {
		if f, ok := n.(*sqlast.FuncCall); ok && strings.EqualFold(f.Name.Name, "count") && f.Distinct && len(f.Args) == 1 {
			out = append(out, f.Pos())
		}
		return true
	})
	return out
}

func compoundSites(q *sqlast.Query) []int {
	var out []int
	sqlast.Walk(q.Stmt, func(n sqlast.Node) bool {
		if st, ok := n.(*sqlast.SelectStmt); ok && len(st.Cores) > 1 {
			out = append(out, st.Pos())
		}
		return true
	})
	return out
}

// inAnySites are the IN and NOT IN subqueries.
func inAnySites(q *sqlast.Query) []int {
	var out []int
	sqlast.Walk(q.Stmt, func(n sqlast.Node) bool {
		if t, ok := n.(*sqlast.InExpr); ok && t.Select != nil {
			out = append(out, t.Pos())
		}
		return true
	})
	return out
}

// derivedSites are the FROM subqueries, the last first (an inner one
// before the one holding it).
func derivedSites(q *sqlast.Query) []int {
	var out []int
	sqlast.Walk(q.Stmt, func(n sqlast.Node) bool {
		if t, ok := n.(*sqlast.TableRef); ok && t.Select != nil {
			out = append([]int{t.Pos()}, out...)
		}
		return true
	})
	return out
}

func leftJoinSites(q *sqlast.Query) []int {
	var out []int
	sqlast.Walk(q.Stmt, func(n sqlast.Node) bool {
		if t, ok := n.(*sqlast.TableRef); ok && t.Join != nil && t.Join.Type&sqlast.JoinLeft != 0 {
			out = append(out, t.Pos())
		}
		return true
	})
	return out
}

// groupSites are the SELECTs with GROUP BY.
func groupSites(q *sqlast.Query) []int {
	var out []int
	sqlast.Walk(q.Stmt, func(n sqlast.Node) bool {
		if sq, ok := n.(*sqlast.SelectQuery); ok && len(sq.GroupBy) > 0 {
			out = append(out, sq.Pos())
		}
		return true
	})
	return out
}
