package check

import (
	"slices"

	"github.com/sqljudge/sqljudge/internal/sqlast"
)

// The rules beside rename, each with its side condition.
const (
	// RuleCountStar: COUNT(x) is COUNT(*) when x is a column that is NOT
	// NULL in the rows of its SELECT (declared so, or by a top-level
	// conjunct never TRUE on NULL) and not on the NULL-extended side of an
	// outer join. At: the COUNT call.
	RuleCountStar = "count_star"
	// RuleInDistinct: DISTINCT inside x [NOT] IN (SELECT DISTINCT ...)
	// or EXISTS (SELECT DISTINCT ...) changes nothing: IN reads the
	// subquery's values as a set, EXISTS its emptiness (the subquery has
	// no LIMIT). At: the IN or EXISTS.
	RuleInDistinct = "in_distinct"
	// RuleGroupByFD: a GROUP BY term determined by the others (by keys
	// and by equalities of the conditions) groups nothing further: it is
	// dropped, unless it may fail (failFree). At: the term.
	RuleGroupByFD = "group_by_fd"
	// RuleDistinctKey: SELECT DISTINCT returns no duplicate to remove
	// when the output columns determine a NOT NULL key of every table of
	// the FROM (or, grouped, the GROUP BY terms; or a single row): DISTINCT
	// is dropped. At: the SELECT.
	RuleDistinctKey = "distinct_key"
	// RuleInToJoin: a top-level conjunct x IN (SELECT y FROM ... WHERE p)
	// of a WHERE is a join: the subquery's tables join the FROM, the
	// conjunct becomes x = y AND p, when y determines a NOT NULL key of
	// every table of the subquery (each row then matches at most one of
	// its rows, so the join neither repeats nor loses a row) and x and y
	// are columns of one family, Int or Text. A * of the outer SELECT is
	// spelled out first, as the columns of its FROM items. At: the IN.
	RuleInToJoin = "in_to_join"
	// RuleJoinElim: a table p joined by a conjunct c.f = p.k, where
	// c.f references p.k by a one-column foreign key and p.k is a
	// one-column key of p (PRIMARY KEY or UNIQUE), both of one family,
	// Int or Text (so = is identity and is the comparison the key and
	// the foreign key are enforced with), is removed when nothing but
	// p.k reads it (p.k becomes c.f); the ON conditions move to WHERE.
	// Every row of c whose c.f is not NULL matches exactly one row of p
	// (at least one by the foreign key, at most one by the key: = is
	// never TRUE on NULL, so rows of p whose key is NULL match nothing),
	// and a row whose c.f is NULL matches none: the joining conjunct is
	// dropped when c.f is NOT NULL and becomes c.f IS NOT NULL otherwise.
	// At: p's FROM item.
	RuleJoinElim = "join_elim"
)

func init() {
	rules[RuleCountStar] = countStar
	rules[RuleInDistinct] = inDistinct
	rules[RuleGroupByFD] = groupByFD
	rules[RuleDistinctKey] = distinctKey
	rules[RuleInToJoin] = inToJoin
	rules[RuleJoinElim] = joinElim
}

func notNullFact(o *occurrence, i int) Fact {
	return Fact{Fact: FactNotNull, Table: o.table.Name, Column: o.table.Columns[i].Name}
}

func countStar(c *Canon, at int, facts *factSet) error {
	f, ok := nodeAt[*sqlast.FuncCall](c, at)
	if !ok || lowerASCII(f.Name.Name) != "count" || f.Star || f.Distinct || len(f.Args) != 1 {
		return refuse("rule", "no COUNT(column) at %d", at)
	}
	o, i, ok := c.colOf(f.Args[0])
	switch {
	case !ok:
		return refuse("rule", "COUNT of %s, not of a column", sqlast.Format(f.Args[0]))
	case o.join == joinLeft:
		return refuse("rule", "%s is on the NULL-extended side of an outer join", sqlast.Format(f.Args[0]))
	}
	nn, err := notNullIn(c, o, i)
	if err != nil {
		return err
	}
	facts.addAll(nn)
	f.Star, f.Args = true, nil
	return nil
}

// notNullIn returns what keeps column i of o from NULL in the rows of its
// SELECT: a NOT NULL declaration (the fact), or a top-level conjunct that
// is never TRUE on NULL (no fact: the query says it); a refusal when
// neither does.
func notNullIn(c *Canon, o *occurrence, i int) ([]Fact, error) {
	if o.table.Columns[i].NotNull {
		return []Fact{notNullFact(o, i)}, nil
	}
	b, err := blockOfCore(c, o.core)
	if err != nil {
		return nil, err
	}
	if !newDeps(c, b).nonNull[keyOf(o, i)] {
		return nil, refuse("rule", "%s.%s may be NULL", o.alias, o.colName(i))
	}
	return nil, nil
}

func inDistinct(c *Canon, at int, _ *factSet) error {
	var st *sqlast.SelectStmt
	in, isIn := nodeAt[*sqlast.InExpr](c, at)
	if isIn && in.Select != nil {
		st = in.Select
	} else if ex, ok := nodeAt[*sqlast.ExistsExpr](c, at); ok {
		st, isIn = ex.Select, false
	}
	if st == nil || len(st.Cores) != 1 {
		return refuse("rule", "no IN or EXISTS subquery of one SELECT at %d", at)
	}
	sq := st.Cores[0].(*sqlast.SelectQuery)
	if sq.Distinct != sqlast.DistinctDistinct || sq.Limit != nil {
		return refuse("rule", "the subquery has no DISTINCT, or has a LIMIT")
	}
	if isIn {
		// x IN (SELECT DISTINCT y): which of the y the engine takes for
		// equal DISTINCT keeps may decide the comparison with x.
		b, err := blockOfCore(c, sq)
		if err != nil {
			return err
		}
		for _, e := range b.outputs {
			if !c.tieSafe(e, false) {
				return refuse("rule", "DISTINCT on %s, whose values the engine may take for equal while they differ", sqlast.Format(e))
			}
		}
	}
	sq.Distinct = sqlast.DistinctNone
	return nil
}

// blockOfCore compiles c and returns the block of core sq.
func blockOfCore(c *Canon, sq *sqlast.SelectQuery) (*block, error) {
	_, blocks, err := compile(c)
	if err != nil {
		return nil, err
	}
	for _, b := range blocks {
		if b.core == sq {
			return b, nil
		}
		for _, br := range b.branches {
			if br.core == sq {
				return br, nil
			}
		}
	}
	return nil, refuse("rule", "no block for the SELECT")
}

// cores lists the SELECT cores of c.
func cores(c *Canon) []*sqlast.SelectQuery {
	var out []*sqlast.SelectQuery
	sqlast.Walk(c.Stmt, func(n sqlast.Node) bool {
		if sq, ok := n.(*sqlast.SelectQuery); ok {
			out = append(out, sq)
		}
		return true
	})
	return out
}

func groupByFD(c *Canon, at int, facts *factSet) error {
	for _, sq := range cores(c) {
		for i, g := range sq.GroupBy {
			if g.Pos() != at {
				continue
			}
			if len(sq.GroupBy) < 2 {
				return refuse("rule", "the only GROUP BY term")
			}
			if !failFree(g, c.d) {
				// Dropped, it would no longer be evaluated: a correlated
				// subquery whose x + 1 overflows on PostgreSQL failed the
				// query before and not after (the soundness fuzzer's
				// fail_wrap found it).
				return refuse("rule", "GROUP BY term %s may fail: without it the query would not", sqlast.Format(g))
			}
			b, err := blockOfCore(c, sq)
			if err != nil {
				return err
			}
			others := slices.Delete(slices.Clone(sq.GroupBy), i, i+1)
			d := newDeps(c, b)
			k := &kernel{c1: c}
			if !k.determinedBy(d, side{c: c}, others, []sqlast.Expr{g}) {
				return refuse("rule", "%s is not determined by the other GROUP BY terms", sqlast.Format(g))
			}
			facts.addAll(d.facts.list)
			sq.GroupBy = others
			return nil
		}
	}
	return refuse("rule", "no GROUP BY term at %d", at)
}

func distinctKey(c *Canon, at int, facts *factSet) error {
	sq, ok := nodeAt[*sqlast.SelectQuery](c, at)
	if !ok || sq.Distinct != sqlast.DistinctDistinct {
		return refuse("rule", "no SELECT DISTINCT at %d", at)
	}
	b, err := blockOfCore(c, sq)
	if err != nil {
		return err
	}
	d := newDeps(c, b)
	k := &kernel{c1: c}
	switch {
	case b.scalarAggregate():
	case b.aggregate:
		if !k.determinedBy(d, side{c: c}, b.outputs, b.groupBy) {
			return refuse("rule", "the outputs do not determine the groups")
		}
	default:
		in := d.closure(d.plainColumns(b.outputs))
		for _, o := range b.occs {
			if !d.keyed(o, in) {
				return refuse("rule", "the outputs do not determine a NOT NULL key of %s", o.table.Name)
			}
		}
	}
	facts.addAll(d.facts.list)
	sq.Distinct = sqlast.DistinctNone
	return nil
}

// andAll joins conditions with AND, each in parentheses unless it is a
// comparison of plain operands or atomic.
func andAll(cs []sqlast.Expr) sqlast.Expr {
	var out sqlast.Expr
	for _, x := range cs {
		if u, ok := x.(*sqlast.UnaryExpr); ok && u.Op == sqlast.OpNot && atomic(u.X) {
			// NOT binds tighter than AND: NOT EXISTS (...) needs none.
		} else if !plainComparison(x) && !atomic(x) {
			x = &sqlast.ParenExpr{X: x}
		}
		if out == nil {
			out = x
		} else {
			out = &sqlast.BinaryExpr{Op: sqlast.OpAnd, X: out, Y: x}
		}
	}
	return out
}

func plainComparison(e sqlast.Expr) bool {
	b, ok := e.(*sqlast.BinaryExpr)
	if !ok {
		return false
	}
	switch b.Op {
	case sqlast.OpEq, sqlast.OpNe, sqlast.OpLt, sqlast.OpLe, sqlast.OpGt, sqlast.OpGe:
		return atomic(b.X) && atomic(b.Y)
	}
	return false
}

// whereOf finds the core whose WHERE has a top-level conjunct at offset
// at, and its conjuncts.
func whereOf(c *Canon, at int) (*sqlast.SelectQuery, []sqlast.Expr, int) {
	for _, sq := range cores(c) {
		if sq.Where == nil {
			continue
		}
		cs := conjuncts(sq.Where)
		for i, x := range cs {
			if x.Pos() == at {
				return sq, cs, i
			}
		}
	}
	return nil, nil, -1
}

func inToJoin(c *Canon, at int, facts *factSet) error {
	sq, cs, i := whereOf(c, at)
	if sq == nil {
		return refuse("rule", "no top-level conjunct of a WHERE at %d", at)
	}
	in, ok := cs[i].(*sqlast.InExpr)
	if !ok || in.Not || in.Select == nil || len(in.Select.Cores) != 1 {
		return refuse("rule", "not x IN (SELECT ...) at %d", at)
	}
	sub := in.Select.Cores[0].(*sqlast.SelectQuery)
	if len(sub.GroupBy) > 0 || sub.Having != nil || sub.Limit != nil || len(sub.Columns) != 1 {
		return refuse("rule", "the subquery groups, limits, or returns several columns")
	}
	sb, err := blockOfCore(c, sub)
	if err != nil {
		return err
	}
	if sb.aggregate {
		return refuse("rule", "the subquery aggregates")
	}
	ob, err := blockOfCore(c, sq)
	if err != nil {
		return err
	}
	xo, xi, xok := c.colOf(in.X)
	yo, yi, yok := c.colOf(sb.outputs[0])
	if !xok || !yok || !slices.Contains(sb.occs, yo) {
		return refuse("rule", "x and y must be columns, y of the subquery")
	}
	fx, fy := c.fam(xo, xi), c.fam(yo, yi)
	if fx != fy || (fx != Int && fx != Text) {
		return refuse("rule", "x and y are not both Int or both Text")
	}
	d := newDeps(c, sb)
	// x IN (SELECT y ...) holds only through a row whose y equals x: y is
	// not NULL there, and neither in the join's rows (x = y).
	d.nonNull[keyOf(yo, yi)] = true
	cl := d.closure([]colKey{keyOf(yo, yi)})
	for _, o := range sb.occs {
		if !d.keyed(o, cl) {
			return refuse("rule", "%s does not determine a NOT NULL key of %s: a row may match several", sqlast.Format(sb.outputs[0]), o.table.Name)
		}
	}
	_ = ob
	facts.addAll(d.facts.list)
	facts.add(c.familyFact(xo, xi))
	facts.add(c.familyFact(yo, yi))
	// The outer * becomes its columns before the subquery's FROM joins
	// the outer one (it would gain the subquery's columns).
	expandOuterStars(c, sq)
	for k, t := range sub.From {
		if k == 0 {
			t.Join = &sqlast.JoinOperator{Type: sqlast.JoinInner | sqlast.JoinComma}
		}
		sq.From = append(sq.From, t)
	}
	eq := &sqlast.BinaryExpr{Op: sqlast.OpEq, X: in.X, Y: sb.outputs[0]}
	var conds []sqlast.Expr
	conds = append(conds, cs[:i]...)
	conds = append(conds, eq)
	if sub.Where != nil {
		conds = append(conds, conjuncts(sub.Where)...)
	}
	conds = append(conds, cs[i+1:]...)
	sq.Where = andAll(conds)
	return nil
}

func joinElim(c *Canon, at int, facts *factSet) error {
	t, ok := nodeAt[*sqlast.TableRef](c, at)
	if !ok || t.Alias == nil {
		return refuse("rule", "no FROM item at %d", at)
	}
	p := c.byAlias[lowerASCII(t.Alias.Name)]
	if p == nil || p.table == nil {
		return refuse("rule", "not a table")
	}
	b, err := blockOfCore(c, p.core)
	if err != nil {
		return err
	}
	if len(b.occs) < 2 {
		return refuse("rule", "the only table of its FROM")
	}
	// The joining conjunct c.f = p.k.
	var child *occurrence
	var f, key int
	var eq sqlast.Expr
	for _, x := range b.conds {
		be, ok := x.(*sqlast.BinaryExpr)
		if !ok || be.Op != sqlast.OpEq {
			continue
		}
		for _, pair := range [][2]sqlast.Expr{{be.X, be.Y}, {be.Y, be.X}} {
			co, ci, ok1 := c.colOf(pair[0])
			po, pi, ok2 := c.colOf(pair[1])
			if ok1 && ok2 && po == p && co != p && slices.Contains(b.occs, co) && child == nil && fkJoins(c, co, ci, po, pi) {
				child, f, key, eq = co, ci, pi, x
			}
		}
	}
	if child == nil {
		return refuse("rule", "no conjunct joins %s by a foreign key to a key, both Int or both Text", p.table.Name)
	}
	// Nothing but p.key reads p.
	var bad bool
	sqlast.Walk(c.Stmt, func(n sqlast.Node) bool {
		switch r := n.(type) {
		case *sqlast.QualifiedRef:
			if len(r.Parts) == 2 && lowerASCII(r.Parts[0].Name) == p.alias {
				if p.table.Col(r.Parts[1].Name) != key {
					bad = true
				}
				r.Parts = []*sqlast.Ident{sqlast.Name(child.alias), child.colIdent(f)}
			}
		case *sqlast.Star:
			bad = bad || r.Table != nil && lowerASCII(r.Table.Name) == p.alias
		}
		return true
	})
	bad = bad || bareStar(p.core)
	if bad {
		return refuse("rule", "the query reads columns of %s other than the joined key", p.table.Name)
	}
	facts.add(Fact{Fact: FactForeignKey, Table: child.table.Name, Columns: []string{child.table.Columns[f].Name}, RefTable: p.table.Name, RefColumns: []string{p.table.Columns[key].Name}})
	facts.add(Fact{Fact: FactKey, Table: p.table.Name, Columns: []string{p.table.Columns[key].Name}})
	nullable := !child.table.Columns[f].NotNull
	if !nullable {
		facts.add(notNullFact(child, f))
	}
	facts.add(c.familyFact(child, f))
	facts.add(c.familyFact(p, key))
	// FROM as comma joins without p, every ON moved to WHERE, the
	// joining conjunct dropped (it reads c.f = c.f now).
	sq := p.core
	conds := commaFromWithout(sq, t)
	if sq.Where != nil {
		conds = append(conds, conjuncts(sq.Where)...)
	}
	var kept []sqlast.Expr
	dropped := false
	for _, x := range conds {
		if x == eq && !dropped {
			dropped = true
			if nullable {
				kept = append(kept, &sqlast.IsExpr{Not: true, X: qualified(child, f), Y: &sqlast.Literal{Kind: sqlast.LitNull, Value: "NULL", Raw: "NULL"}})
			}
			continue
		}
		kept = append(kept, x)
	}
	sq.Where = andAll(kept)
	return nil
}

// bareStar reports whether core sq outputs a bare *.
func bareStar(sq *sqlast.SelectQuery) bool {
	for _, col := range sq.Columns {
		if st, ok := col.Expr.(*sqlast.Star); ok && st.Table == nil {
			return true
		}
	}
	return false
}

// fkJoins reports whether column ci of co references column pi of po by
// a one-column foreign key, pi is a one-column key of po's table, and
// both are of one family, Int or Text.
func fkJoins(c *Canon, co *occurrence, ci int, po *occurrence, pi int) bool {
	if f := c.fam(co, ci); f != c.fam(po, pi) || f != Int && f != Text {
		return false
	}
	isKey := false
	for _, k := range po.table.Keys {
		isKey = isKey || len(k.Cols) == 1 && k.Cols[0] == pi
	}
	if !isKey {
		return false
	}
	for _, fk := range co.table.FKs {
		if len(fk.Cols) == 1 && fk.Cols[0] == ci && equalFold(fk.RefTable, po.table.Name) && fk.RefCols[0] == pi {
			return true
		}
	}
	return false
}

// commaFromWithout makes sq's FROM its items but t, then the items
// extra, joined by commas, and returns the conjuncts of every ON they
// held, in that order (for the WHERE: the FROM must have inner joins
// only).
func commaFromWithout(sq *sqlast.SelectQuery, t *sqlast.TableRef, extra ...*sqlast.TableRef) []sqlast.Expr {
	var conds []sqlast.Expr
	var from []*sqlast.TableRef
	for _, item := range slices.Concat(sq.From, extra) {
		conds = append(conds, optConjuncts(item.On)...)
		item.On = nil
		if item != t {
			from = append(from, item)
		}
	}
	for k, item := range from {
		item.Join = nil
		if k > 0 {
			item.Join = &sqlast.JoinOperator{Type: sqlast.JoinInner | sqlast.JoinComma}
		}
	}
	sq.From = from
	return conds
}
