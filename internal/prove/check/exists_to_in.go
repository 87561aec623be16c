package check

import (
	"slices"

	"github.com/sqljudge/sqljudge/internal/sqlast"
)

// RuleExistsToIn: a top-level conjunct EXISTS (SELECT e FROM F WHERE p1
// AND y = x AND p2) of a WHERE is x IN (SELECT y FROM F WHERE p1 AND
// p2), when y is a column of F's occurrences, x a column of an
// occurrence outside the subquery, both of one family, Int or Text (so
// that = is identity, and the IN's comparison, under x's affinity and
// collation, is the subquery's y = x), and the subquery is one SELECT
// that neither groups, aggregates, removes duplicates, orders, limits nor
// has a window or a WITH, and outputs *, literals or columns.
//
// Both are TRUE exactly when a row of F satisfies p1, p2 and y = x. Else
// EXISTS is FALSE while IN is FALSE or NULL (x NULL, or a NULL y), and a
// top-level conjunct of a WHERE keeps no row on either, so the WHERE
// keeps the same rows. It is the first step of a semi-join turned into a
// join: in_to_join takes the IN when y determines a key of F (calcite-17,
// Calcite's SemiJoinRule read backwards). At: the EXISTS.
const RuleExistsToIn = "exists_to_in"

func init() { rules[RuleExistsToIn] = existsToIn }

// existsConjunct reads the top-level WHERE conjunct at at as EXISTS of
// one SELECT without WITH: the SELECT whose WHERE holds it, that WHERE's
// conjuncts and its index among them, the EXISTS and its SELECT; a
// refusal otherwise. Used by exists_to_in, exists_one_row and
// exists_self.
func existsConjunct(c *Canon, at int) (*sqlast.SelectQuery, []sqlast.Expr, int, *sqlast.ExistsExpr, *sqlast.SelectQuery, error) {
	sq, cs, i := whereOf(c, at)
	if sq == nil {
		return nil, nil, 0, nil, nil, refuse("rule", "no top-level conjunct of a WHERE at %d", at)
	}
	ex, ok := cs[i].(*sqlast.ExistsExpr)
	if !ok || ex.Select == nil || ex.Select.With != nil || len(ex.Select.Cores) != 1 {
		return nil, nil, 0, nil, nil, refuse("rule", "not EXISTS (SELECT ...) at %d", at)
	}
	sub, ok := ex.Select.Cores[0].(*sqlast.SelectQuery)
	if !ok {
		return nil, nil, 0, nil, nil, refuse("rule", "the EXISTS reads VALUES, not a SELECT")
	}
	return sq, cs, i, ex, sub, nil
}

// plainOutputs refuses a SELECT whose outputs are not all *, literals
// or columns (nothing that may fail, and no aggregate the kernel may not
// know).
func plainOutputs(sub *sqlast.SelectQuery) error {
	for _, col := range sub.Columns {
		switch e := stripParens(col.Expr).(type) {
		case *sqlast.Star, *sqlast.Literal, *sqlast.QualifiedRef:
		default:
			return refuse("rule", "the subquery outputs %s, not *, a literal or a column", sqlast.Format(e))
		}
	}
	return nil
}

func existsToIn(c *Canon, at int, facts *factSet) error {
	_, _, _, ex, sub, err := existsConjunct(c, at)
	if err != nil {
		return err
	}
	if sub.Where == nil || len(sub.From) == 0 {
		return refuse("rule", "the subquery is not a SELECT with a FROM and a WHERE")
	}
	if sub.Distinct == sqlast.DistinctDistinct || len(sub.GroupBy) > 0 || sub.Having != nil || len(sub.Windows) > 0 || len(sub.OrderBy) > 0 || sub.Limit != nil {
		return refuse("rule", "the subquery removes duplicates, groups, orders, limits or has a window")
	}
	// Its outputs, which IN replaces, are *, literals or columns: an
	// aggregate the kernel does not know (json_group_array) would make
	// the subquery one row.
	if err := plainOutputs(sub); err != nil {
		return err
	}
	sb, err := blockOfCore(c, sub)
	if err != nil {
		return err
	}
	if sb.aggregate {
		return refuse("rule", "the subquery aggregates")
	}
	conds := conjuncts(sub.Where)
	for j, cond := range conds {
		eq, ok := stripParens(cond).(*sqlast.BinaryExpr)
		if !ok || eq.Op != sqlast.OpEq {
			continue
		}
		for _, side := range [][2]sqlast.Expr{{eq.X, eq.Y}, {eq.Y, eq.X}} {
			y, x := stripParens(side[0]), stripParens(side[1])
			yo, yi, yok := c.colOf(y)
			xo, xi, xok := c.colOf(x)
			if !yok || !xok || !slices.Contains(sb.occs, yo) || slices.Contains(sb.occs, xo) {
				continue
			}
			if fx, fy := c.fam(xo, xi), c.fam(yo, yi); fx != fy || fx != Int && fx != Text {
				continue
			}
			facts.add(c.familyFact(xo, xi))
			facts.add(c.familyFact(yo, yi))
			sub.Where = andAll(slices.Delete(slices.Clone(conds), j, j+1))
			sub.Columns = []*sqlast.ResultColumn{{Expr: cloneExpr(y)}}
			return replaceExpr(c, ex, &sqlast.InExpr{X: cloneExpr(x), Select: ex.Select})
		}
	}
	return refuse("rule", "no conjunct y = x of the subquery's WHERE with y its column and x an outer one, both Int or both Text")
}

// RuleExistsOneRow: a top-level conjunct EXISTS (SELECT … ) of a WHERE
// whose subquery is one SELECT with an aggregate among its outputs and
// no GROUP BY, HAVING, LIMIT or window is TRUE: an aggregate without
// GROUP BY returns one row, on an empty input too (SQLite's and
// PostgreSQL's scalar aggregate), so the conjunct is dropped (and the
// WHERE with it when it was the only one). That the subquery's WHERE
// never fails is the pair's condition check's (it refuses a condition
// that may fail). calcite-216. At: the EXISTS.
const RuleExistsOneRow = "exists_one_row"

func init() { rules[RuleExistsOneRow] = existsOneRow }

func existsOneRow(c *Canon, at int, facts *factSet) error {
	sq, cs, i, _, sub, err := existsConjunct(c, at)
	if err != nil {
		return err
	}
	if len(sub.GroupBy) > 0 || sub.Having != nil || sub.Limit != nil || len(sub.Windows) > 0 {
		return refuse("rule", "the subquery is not one SELECT without GROUP BY, HAVING, LIMIT and windows")
	}
	if _, err := blockOfCore(c, sub); err != nil {
		return err
	}
	window := false
	sqlast.Walk(sub, func(n sqlast.Node) bool {
		if f, ok := n.(*sqlast.FuncCall); ok && f.Over != nil {
			window = true
		}
		return !window
	})
	if window {
		return refuse("rule", "a window function in the subquery (a row for each of its input rows)")
	}
	if !slices.ContainsFunc(sub.Columns, func(col *sqlast.ResultColumn) bool { return containsAggregate(col.Expr) }) {
		return refuse("rule", "no aggregate among the subquery's outputs")
	}
	sq.Where = andAll(slices.Delete(slices.Clone(cs), i, i+1))
	return nil
}

// RuleExistsSelf: a top-level conjunct EXISTS (SELECT e FROM T AS x
// WHERE p) of a WHERE whose FROM, of inner joins only, holds an
// occurrence o of the same base table T (so that its row is a row of
// T), is TRUE on every
// row the WHERE's other conjuncts keep when p with x read as o holds
// there: o's row is then a row of the subquery. It is dropped when each
// conjunct of p, with x's columns read as o's, is one of the WHERE's
// other conjuncts (printed alike), or o.c = o.c for a column c of o that
// is NOT NULL (declared, and o on no outer join's NULL-extended side),
// of family Int or Text (= is reflexive there). The subquery reads T
// alone, has no DISTINCT, GROUP BY, HAVING, aggregate, window, ORDER BY,
// LIMIT or subquery, and outputs *, literals or columns (nothing that
// may fail). Calcite's semi-join of a table with itself on one column
// (calcite-70, 355). At: the EXISTS.
const RuleExistsSelf = "exists_self"

func init() { rules[RuleExistsSelf] = existsSelf }

func existsSelf(c *Canon, at int, facts *factSet) error {
	sq, cs, i, _, sub, err := existsConjunct(c, at)
	if err != nil {
		return err
	}
	if len(sub.From) != 1 || sub.From[0].Name == nil || sub.From[0].Join != nil {
		return refuse("rule", "the subquery does not read one table alone")
	}
	if sub.Distinct == sqlast.DistinctDistinct || len(sub.GroupBy) > 0 || sub.Having != nil || len(sub.Windows) > 0 || len(sub.OrderBy) > 0 || sub.Limit != nil {
		return refuse("rule", "the subquery removes duplicates, groups, orders, limits or has a window")
	}
	if err := plainOutputs(sub); err != nil {
		return err
	}
	if sub.Where != nil && holdsSubquery(sub.Where) {
		return refuse("rule", "a subquery in the subquery's WHERE")
	}
	sb, err := blockOfCore(c, sub)
	if err != nil {
		return err
	}
	if sb.aggregate || len(sb.occs) != 1 || sb.occs[0].table == nil {
		return refuse("rule", "the subquery aggregates or reads no base table")
	}
	x := sb.occs[0]
	ob, err := blockOfCore(c, sq)
	if err != nil {
		return err
	}
	rest := slices.Delete(slices.Clone(cs), i, i+1)
	have := map[string]bool{}
	for _, r := range rest {
		have[sqlast.Format(stripParens(r))] = true
	}
	var conds []sqlast.Expr
	if sub.Where != nil {
		conds = conjuncts(sub.Where)
	}
	// Every item of the FROM joined inner: a row of it holds a row of
	// each of its tables (an outer join's NULL-extended side does not).
	for _, o := range ob.occs {
		if o.join != joinInner {
			return refuse("rule", "an outer join in the FROM")
		}
	}
	for _, o := range ob.occs {
		if o.table != x.table {
			continue
		}
		var fs []Fact
		held := true
		for _, cond := range conds {
			// x's columns read as o's (in a SELECT, so that a bare
			// column conjunct is replaced too).
			holder := &sqlast.SelectQuery{Where: cloneExpr(stripParens(cond))}
			sqlast.Rewrite(holder, func(e sqlast.Expr) sqlast.Expr {
				if r, ok := e.(*sqlast.QualifiedRef); ok && len(r.Parts) == 2 && equalFold(r.Parts[0].Name, x.alias) {
					return &sqlast.QualifiedRef{Parts: []*sqlast.Ident{sqlast.Name(o.alias), r.Parts[1]}}
				}
				return e
			})
			read := holder.Where
			if have[sqlast.Format(read)] {
				continue
			}
			if eq, ok := read.(*sqlast.BinaryExpr); ok && eq.Op == sqlast.OpEq && sqlast.Format(eq.X) == sqlast.Format(eq.Y) {
				if yo, yi, ok := notNullColumn(c, eq.X); ok && yo == o {
					if f := c.fam(yo, yi); f == Int || f == Text {
						fs = append(fs, notNullFact(yo, yi), c.familyFact(yo, yi))
						continue
					}
				}
			}
			held = false
			break
		}
		if !held {
			continue
		}
		for _, f := range fs {
			facts.add(f)
		}
		sq.Where = andAll(rest)
		return nil
	}
	return refuse("rule", "no occurrence of %s in the FROM whose row the WHERE makes a row of the subquery", x.table.Name)
}
