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
