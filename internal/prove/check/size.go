package check

import (
	"fmt"
	"reflect"

	"github.com/sqljudge/sqljudge/internal/sqlast"
)

// Limits the engines enforce when they prepare a query, on every
// database. A rule that drops a term, an output or a join can take a
// query over a limit to one under it: the kernel proved `… GROUP BY t.i,
// t.x + 0 + … + 0` (a thousand additions) equal to `… GROUP BY t.i`,
// which SQLite runs while it refuses the first ("Expression tree is too
// large (maximum depth 1000)"); and so with 65 tables in a join (SQLite:
// "at most 64 tables in a join"), 2,001 outputs (SQLite's
// SQLITE_MAX_COLUMN) or 1,665 (PostgreSQL: "target lists can have at most
// 1664 entries"). SizeRisk refuses well below them, counting on the
// query's own tree, which is not the engines'.
const (
	// maxTreeDepth bounds the depth of q's syntax tree (SQLite:
	// SQLITE_MAX_EXPR_DEPTH, 1000, counted on its expression trees).
	maxTreeDepth = 250
	// maxTables bounds the FROM items of q, all SELECTs together
	// (SQLite: 64 tables in one join, which flattening may gather).
	maxTables = 60
	// maxTerms bounds the outputs (a * counted as every column of every
	// table q names), GROUP BY and ORDER BY terms of one SELECT (SQLite:
	// 2,000; PostgreSQL: 1,664 target entries).
	maxTerms = 1600
	// maxArgs bounds the arguments of one call (SQLite refuses more
	// than SQLITE_MAX_FUNCTION_ARG, 1,000 in 3.54 and 127 before;
	// PostgreSQL's functions take at most 100): the kernel proved
	// `coalesce(x, x, …)` of 1,001 arguments equal to x.
	maxArgs = 100
)

// SizeRisk returns why an engine may refuse q for its size whatever the
// database ("" when q is well inside the limits above, or does not
// parse: the canonical form then refuses it). Over schema s a * counts
// the columns of every table q names.
func SizeRisk(q string, s Schema) string {
	pq, err := sqlast.Parse(q)
	if err != nil {
		return ""
	}
	if d := treeDepth(pq.Stmt, 0); d > maxTreeDepth {
		return fmt.Sprintf("a syntax tree %d deep, over the %d the kernel reads (SQLite refuses an expression tree over 1000)", d, maxTreeDepth)
	}
	width := 0
	for _, u := range pq.Tables() {
		if t := s.Table(u.Name); t != nil {
			width += len(t.Columns)
		}
	}
	tables, risk := 0, ""
	sqlast.Walk(pq.Stmt, func(n sqlast.Node) bool {
		switch t := n.(type) {
		case *sqlast.TableRef:
			tables++
		case *sqlast.FuncCall:
			if len(t.Args) > maxArgs && risk == "" {
				risk = fmt.Sprintf("a call of %d arguments, over the %d the kernel reads (SQLite refuses 1,000, PostgreSQL's functions take 100)", len(t.Args), maxArgs)
			}
		case *sqlast.SelectQuery:
			cols := 0
			for _, c := range t.Columns {
				if _, star := c.Expr.(*sqlast.Star); star {
					cols += width
				} else {
					cols++
				}
			}
			if n := max(cols, len(t.GroupBy), len(t.OrderBy)); n > maxTerms && risk == "" {
				risk = fmt.Sprintf("a SELECT of %d outputs or terms, over the %d the kernel reads (SQLite refuses 2,000, PostgreSQL 1,664)", n, maxTerms)
			}
		}
		return risk == ""
	})
	if risk == "" && tables > maxTables {
		risk = fmt.Sprintf("%d FROM items, over the %d the kernel reads (SQLite joins at most 64 tables)", tables, maxTables)
	}
	return risk
}

// treeDepth is the depth of the tree under n (n at depth d), stopping
// once it passes maxTreeDepth.
func treeDepth(n sqlast.Node, d int) int {
	if nilNode(n) || d > maxTreeDepth {
		return d
	}
	deepest := d + 1
	for _, c := range n.Children() {
		deepest = max(deepest, treeDepth(c, d+1))
	}
	return deepest
}

// nilNode reports whether n is nil or a typed nil pointer (a node's
// children hold its optional fields as such).
func nilNode(n sqlast.Node) bool {
	if n == nil {
		return true
	}
	v := reflect.ValueOf(n)
	return (v.Kind() == reflect.Pointer || v.Kind() == reflect.Interface || v.Kind() == reflect.Slice) && v.IsNil()
}

// RowValueRisk returns why an engine refuses q whatever the database for
// a subquery of several columns where one value is wanted, "" when
// there is none (or q does not parse): a scalar subquery, or the
// subquery of `x [NOT] IN (SELECT …)`, must give one column, named
// without a *. SQLite refuses `x = (SELECT a, b …)` ("row value misused")
// when it resolves names, and `(SELECT a, b …)` alone when it generates
// code for a WITH it materializes ("sub-select returns 2 columns -
// expected 1"); the kernel dropped such a subquery in an unread output
// and proved `SELECT d.i FROM (SELECT i, x = (SELECT v.x, v.a FROM t AS
// v) AS z FROM t) AS d` equal to `SELECT i FROM t`.
func RowValueRisk(q string) string {
	pq, err := sqlast.Parse(q)
	if err != nil {
		return ""
	}
	risk := ""
	one := func(st *sqlast.SelectStmt) {
		for _, core := range st.Cores {
			sq, ok := core.(*sqlast.SelectQuery)
			if !ok {
				risk = "a subquery that is not one SELECT where one value is wanted"
				return
			}
			star := len(sq.Columns) == 1
			if star {
				_, star = sq.Columns[0].Expr.(*sqlast.Star)
			}
			if len(sq.Columns) != 1 || star {
				risk = fmt.Sprintf("a subquery of %d outputs or a * where one value is wanted: %s", len(sq.Columns), clip(sqlast.Format(st)))
				return
			}
		}
	}
	sqlast.Walk(pq.Stmt, func(n sqlast.Node) bool {
		switch t := n.(type) {
		case *sqlast.SubqueryExpr:
			if t.Select != nil && risk == "" {
				one(t.Select)
			}
		case *sqlast.InExpr:
			if t.Select != nil && risk == "" {
				one(t.Select)
			}
		}
		return risk == ""
	})
	return risk
}
