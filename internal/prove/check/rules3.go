package check

import (
	"slices"

	"github.com/sqljudge/sqljudge/internal/sqlast"
)

const (
	// RuleCountDistinctKey: COUNT(DISTINCT x) is COUNT(*) when x is a
	// column NOT NULL in its SELECT's rows (declared so, or by a
	// conjunct; not on an outer join's NULL-extended side) that,
	// together with the GROUP BY terms, determines a NOT NULL key of
	// every table of the FROM: the rows of a group then differ in x. At:
	// the COUNT call.
	RuleCountDistinctKey = "count_distinct_key"
	// RuleSetOpDistinct: DISTINCT on a SELECT of a compound whose
	// operators are all UNION, INTERSECT or EXCEPT (without ALL) changes
	// nothing: every step of the compound removes duplicates. At: the
	// SELECT.
	RuleSetOpDistinct = "set_op_distinct"
	// RuleExceptToNotIn: SELECT a FROM ... WHERE p EXCEPT SELECT b FROM
	// ... WHERE q is SELECT DISTINCT a FROM ... WHERE p AND a NOT IN
	// (SELECT b FROM ... WHERE q) when a and b are NOT NULL columns (of
	// no outer join's NULL-extended side) of one family, Int or Text, and
	// neither SELECT aggregates (EXCEPT compares rows with NULLs equal,
	// NOT IN is unknown on a NULL: without NULLs they agree). At: the
	// compound.
	RuleExceptToNotIn = "except_to_not_in"
)

func init() {
	rules[RuleCountDistinctKey] = countDistinctKey
	rules[RuleSetOpDistinct] = setOpDistinct
	rules[RuleExceptToNotIn] = exceptToNotIn
}

func countDistinctKey(c *Canon, at int, facts *factSet) error {
	f, ok := nodeAt[*sqlast.FuncCall](c, at)
	if !ok || lowerASCII(f.Name.Name) != "count" || !f.Distinct || len(f.Args) != 1 {
		return refuse("rule", "no COUNT(DISTINCT column) at %d", at)
	}
	o, i, ok := c.colOf(f.Args[0])
	switch {
	case !ok:
		return refuse("rule", "COUNT(DISTINCT %s), not of a column", sqlast.Format(f.Args[0]))
	case o.join == joinLeft:
		return refuse("rule", "%s is on the NULL-extended side of an outer join", sqlast.Format(f.Args[0]))
	}
	nn, err := notNullIn(c, o, i)
	if err != nil {
		return err
	}
	b, err := blockOfCore(c, o.core)
	if err != nil {
		return err
	}
	if !b.aggregate || !containsNode(b, f) {
		return refuse("rule", "the COUNT is not an aggregate of its column's SELECT")
	}
	d := newDeps(c, b)
	start := append(d.plainColumns(b.groupBy), keyOf(o, i))
	if len(d.plainColumns(b.groupBy)) != len(b.groupBy) {
		return refuse("rule", "a GROUP BY term is no plain column")
	}
	in := d.closure(start)
	for _, occ := range b.occs {
		if !d.keyed(occ, in) {
			return refuse("rule", "%s and the groups do not determine a NOT NULL key of %s", sqlast.Format(f.Args[0]), occ.table.Name)
		}
	}
	facts.addAll(d.facts.list)
	facts.addAll(nn)
	f.Distinct, f.Star, f.Args = false, true, nil
	return nil
}

// containsNode reports whether the aggregate call f is in an output,
// HAVING or ORDER BY of b (not of a subquery).
func containsNode(b *block, f *sqlast.FuncCall) bool {
	es := append([]sqlast.Expr{}, b.outputs...)
	if b.having != nil {
		es = append(es, b.having)
	}
	for _, o := range b.orderBy {
		es = append(es, o.Expr)
	}
	found := false
	for _, e := range es {
		walkExpr(e, func(x sqlast.Expr) bool {
			found = found || x == sqlast.Expr(f)
			return !found
		})
	}
	return found
}

func setOpDistinct(c *Canon, at int, _ *factSet) error {
	sq, ok := nodeAt[*sqlast.SelectQuery](c, at)
	if !ok || sq.Distinct != sqlast.DistinctDistinct {
		return refuse("rule", "no SELECT DISTINCT at %d", at)
	}
	var st *sqlast.SelectStmt
	sqlast.Walk(c.Stmt, func(n sqlast.Node) bool {
		if s, ok := n.(*sqlast.SelectStmt); ok && len(s.Cores) > 1 {
			for _, core := range s.Cores {
				if core == sqlast.SelectCore(sq) {
					st = s
				}
			}
		}
		return st == nil
	})
	if st == nil {
		return refuse("rule", "the SELECT is no part of a compound")
	}
	for _, op := range st.Ops {
		if op.All {
			return refuse("rule", "a compound with %s ALL keeps duplicates", op.Op)
		}
	}
	sq.Distinct = sqlast.DistinctNone
	return nil
}

func exceptToNotIn(c *Canon, at int, facts *factSet) error {
	st, ok := nodeAt[*sqlast.SelectStmt](c, at)
	if !ok || len(st.Cores) != 2 || st.Ops[0].Op != "EXCEPT" || st.Ops[0].All {
		return refuse("rule", "no A EXCEPT B at %d", at)
	}
	a, b := st.Cores[0].(*sqlast.SelectQuery), st.Cores[1].(*sqlast.SelectQuery)
	if len(b.OrderBy) > 0 || b.Limit != nil {
		return refuse("rule", "ORDER BY or LIMIT on the compound")
	}
	var cols [2]struct {
		o *occurrence
		i int
		e sqlast.Expr
	}
	for k, sq := range []*sqlast.SelectQuery{a, b} {
		blk, err := blockOfCore(c, sq)
		if err != nil {
			return err
		}
		if blk.aggregate || len(blk.outputs) != 1 {
			return refuse("rule", "a SELECT of the EXCEPT aggregates or returns several columns")
		}
		o, i, ok := c.colOf(blk.outputs[0])
		if !ok || !o.table.Columns[i].NotNull || o.join == joinLeft || o.core != sq {
			return refuse("rule", "%s is not a NOT NULL column of its SELECT", sqlast.Format(blk.outputs[0]))
		}
		cols[k].o, cols[k].i, cols[k].e = o, i, blk.outputs[0]
	}
	fa, fb := c.fam(cols[0].o, cols[0].i), c.fam(cols[1].o, cols[1].i)
	if fa != fb || (fa != Int && fa != Text) {
		return refuse("rule", "the two columns are not both Int or both Text")
	}
	for _, x := range cols {
		facts.add(notNullFact(x.o, x.i))
		facts.add(c.familyFact(x.o, x.i))
	}
	sub := &sqlast.SelectStmt{Cores: []sqlast.SelectCore{b}}
	notIn := &sqlast.InExpr{Not: true, X: cols[0].e, Parens: true, Select: sub}
	var conds []sqlast.Expr
	if a.Where != nil {
		conds = conjuncts(a.Where)
	}
	a.Where = andAll(append(conds, notIn))
	a.Distinct = sqlast.DistinctDistinct
	st.Cores, st.Ops = []sqlast.SelectCore{a}, nil
	return nil
}

// RuleInToExists: x [NOT] IN (SELECT y FROM ... WHERE p) is [NOT] EXISTS
// (SELECT y FROM ... WHERE p AND y = x) when x and y are NOT NULL
// columns (of no outer join's NULL-extended side) of one family, Int or
// Text, and the subquery neither groups, aggregates nor limits: without
// NULLs, IN is true exactly when a row matches, and false otherwise. At:
// the IN.
const RuleInToExists = "in_to_exists"

func init() { rules[RuleInToExists] = inToExists }

// notNullColumn returns the column e names when it is NOT NULL and on no
// outer join's NULL-extended side.
func notNullColumn(c *Canon, e sqlast.Expr) (*occurrence, int, bool) {
	o, i, ok := c.colOf(e)
	if !ok || !o.table.Columns[i].NotNull || o.join == joinLeft {
		return nil, 0, false
	}
	return o, i, true
}

func inToExists(c *Canon, at int, facts *factSet) error {
	in, ok := nodeAt[*sqlast.InExpr](c, at)
	if !ok || in.Select == nil || len(in.Select.Cores) != 1 {
		return refuse("rule", "no x IN (SELECT ...) at %d", at)
	}
	sub := in.Select.Cores[0].(*sqlast.SelectQuery)
	sb, err := blockOfCore(c, sub)
	if err != nil {
		return err
	}
	if sb.aggregate || sub.Limit != nil || len(sb.outputs) != 1 {
		return refuse("rule", "the subquery aggregates, limits or returns several columns")
	}
	xo, xi, xok := notNullColumn(c, in.X)
	yo, yi, yok := notNullColumn(c, sb.outputs[0])
	if !xok || !yok || !slices.Contains(sb.occs, yo) {
		return refuse("rule", "x and y must be NOT NULL columns, y of the subquery")
	}
	fx, fy := c.fam(xo, xi), c.fam(yo, yi)
	if fx != fy || (fx != Int && fx != Text) {
		return refuse("rule", "x and y are not both Int or both Text")
	}
	for _, x := range []struct {
		o *occurrence
		i int
	}{{xo, xi}, {yo, yi}} {
		facts.add(notNullFact(x.o, x.i))
		facts.add(c.familyFact(x.o, x.i))
	}
	var conds []sqlast.Expr
	if sub.Where != nil {
		conds = conjuncts(sub.Where)
	}
	sub.Where = andAll(append(conds, &sqlast.BinaryExpr{Op: sqlast.OpEq, X: sb.outputs[0], Y: in.X}))
	var repl sqlast.Expr = &sqlast.ExistsExpr{Select: in.Select}
	if in.Not {
		repl = &sqlast.UnaryExpr{Op: sqlast.OpNot, X: repl}
	}
	return replaceExpr(c, in, repl)
}

// replaceExpr replaces the expression old (by identity) with repl in c's
// tree.
func replaceExpr(c *Canon, old, repl sqlast.Expr) error {
	done := false
	sqlast.Rewrite(c.Stmt, func(e sqlast.Expr) sqlast.Expr {
		if e == old {
			done = true
			return repl
		}
		return e
	})
	if !done {
		return refuse("rule", "the expression to replace is not in the query")
	}
	return nil
}
