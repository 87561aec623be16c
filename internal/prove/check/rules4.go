package check

import (
	"slices"

	"github.com/sqljudge/sqljudge/internal/sqlast"
)

// RuleDerivedMerge: a FROM subquery (SELECT e1 AS c1, ... FROM F WHERE p)
// AS d that neither groups, aggregates, removes duplicates nor limits is
// merged into the query, and every d.ci becomes ei (view merging). Where
// d is read:
//
//   - in a FROM of inner joins only: F joins the FROM, p and every ON go
//     to the WHERE (each row of the outer FROM with d is a row of it with
//     F's rows);
//   - in a FROM with LEFT JOINs, d not the right side of one: d's place
//     takes F's tables, joined by commas, and d's ON, F's ONs and p go to
//     the WHERE. A LEFT JOIN keeps every row of its left side as it is, so
//     a condition on columns of its left side (d's are) gives the same
//     rows before the join as after it;
//   - as the right side of a LEFT JOIN (X LEFT JOIN d ON c): F is one
//     table, and d's place takes it with ON c AND p (a LEFT JOIN of a
//     filtered table is a LEFT JOIN on the filter too). The row the LEFT
//     JOIN adds for an X row without a match holds NULL in d's columns, so
//     each ei the query reads outside c must be NULL when F's columns are
//     (nullWhenNull: a column, arithmetic and comparisons of one, CASE
//     whose every reachable branch is; not a literal, COALESCE or IS NULL).
//
// An ORDER BY of d without LIMIT is dropped when its terms are columns
// (nothing to fail on): it decides only the order the outer query reads
// d's rows in, which the normal form never compares (order-dependent
// aggregates, LIMIT over ties and scalar subqueries of several rows are
// refused after any rule). F has no outer join of its own. At: d's FROM
// item.
const RuleDerivedMerge = "derived_merge"

func init() { rules[RuleDerivedMerge] = derivedMerge }

func derivedMerge(c *Canon, at int, _ *factSet) error {
	t, d, err := c.derivedAt(at)
	if err != nil {
		return err
	}
	outer := d.core
	pos := slices.Index(outer.From, t)
	if pos < 0 {
		return refuse("rule", "%s is not an item of its FROM", d.alias)
	}
	outerJoins := false
	for _, item := range outer.From {
		outerJoins = outerJoins || (item.Join != nil && item.Join.Type&sqlast.JoinLeft != 0)
	}
	nullSide := t.Join != nil && t.Join.Type&sqlast.JoinLeft != 0
	sub, ok := oneSelect(t.Select)
	if !ok {
		return refuse("rule", "the subquery is a compound, VALUES or has a WITH")
	}
	switch {
	case sub.Distinct == sqlast.DistinctDistinct || len(sub.GroupBy) > 0 || sub.Having != nil || sub.Limit != nil || len(sub.Windows) > 0 || len(sub.From) == 0:
		return refuse("rule", "the subquery removes duplicates, groups, limits or reads no table")
	case !plainOrder(sub.OrderBy):
		return refuse("rule", "the subquery orders by an expression (which may fail where the query without it runs)")
	}
	for _, col := range sub.Columns {
		if containsAggregate(col.Expr) {
			return refuse("rule", "the subquery aggregates")
		}
	}
	for _, item := range sub.From {
		if item.Join != nil && item.Join.Type&sqlast.JoinLeft != 0 {
			return refuse("rule", "the subquery has an outer join")
		}
	}
	if nullSide && (len(sub.From) != 1 || sub.From[0].Name == nil || sub.From[0].Alias == nil) {
		return refuse("rule", "the right side of a LEFT JOIN reads more than one table")
	}
	// The outer query's * becomes its columns, d's among them, before d
	// goes.
	expandOuterStars(c, outer)
	if nullSide {
		f := c.byAlias[lowerASCII(sub.From[0].Alias.Name)]
		for _, name := range columnsReadOutside(c.Stmt, d.alias, t.On) {
			i := d.column(name)
			if i < 0 || i >= len(sub.Columns) {
				return refuse("rule", "a column of %s that its subquery does not give", d.alias)
			}
			if f == nil || !nullWhenNull(sub.Columns[i].Expr, f.alias) {
				return refuse("rule", "%s.%s (%s) is read where the LEFT JOIN adds a row of NULLs, and is not known to be NULL there", d.alias, name, sqlast.Format(sub.Columns[i].Expr))
			}
		}
	}
	// d.ci becomes ei, wherever the query reads it.
	var bad bool
	sqlast.Rewrite(c.Stmt, func(e sqlast.Expr) sqlast.Expr {
		r, ok := e.(*sqlast.QualifiedRef)
		if !ok || len(r.Parts) != 2 || lowerASCII(r.Parts[0].Name) != d.alias {
			return e
		}
		i := d.column(r.Parts[1].Name)
		if i < 0 || i >= len(sub.Columns) {
			bad = true
			return e
		}
		x := cloneExpr(sub.Columns[i].Expr)
		if !atomic(x) {
			x = &sqlast.ParenExpr{X: x}
		}
		return x
	})
	if bad {
		return refuse("rule", "a column of %s that its subquery does not give", d.alias)
	}
	switch {
	case nullSide:
		f := sub.From[0]
		f.Join, f.On = t.Join, andAll(append(optConjuncts(t.On), optConjuncts(sub.Where)...))
		outer.From[pos] = f
	case outerJoins:
		conds := optConjuncts(t.On)
		for k, item := range sub.From {
			conds = append(conds, optConjuncts(item.On)...)
			item.On, item.Join = nil, &sqlast.JoinOperator{Type: sqlast.JoinInner | sqlast.JoinComma}
			if k == 0 && pos == 0 {
				item.Join = nil
			}
		}
		outer.From = slices.Concat(outer.From[:pos], sub.From, outer.From[pos+1:])
		conds = append(append(conds, optConjuncts(sub.Where)...), optConjuncts(outer.Where)...)
		outer.Where = andAll(conds)
	default:
		// FROM: the outer items without d, then d's; every ON to WHERE.
		conds := commaFromWithout(outer, t, sub.From...)
		conds = append(append(conds, optConjuncts(sub.Where)...), optConjuncts(outer.Where)...)
		outer.Where = andAll(conds)
	}
	return nil
}

// derivedAt returns the FROM subquery at byte offset at (a FROM item with
// a subquery and an alias) and its occurrence; a *Refusal when there is
// none.
func (c *Canon) derivedAt(at int) (*sqlast.TableRef, *occurrence, error) {
	t, ok := nodeAt[*sqlast.TableRef](c, at)
	if !ok || t.Select == nil || t.Alias == nil {
		return nil, nil, refuse("rule", "no FROM subquery at %d", at)
	}
	d := c.byAlias[lowerASCII(t.Alias.Name)]
	if d == nil || d.derived == nil {
		return nil, nil, refuse("rule", "no FROM subquery at %d", at)
	}
	return t, d, nil
}

// oneSelect returns the SELECT of st when st is one SELECT without WITH:
// not a compound, not VALUES.
func oneSelect(st *sqlast.SelectStmt) (*sqlast.SelectQuery, bool) {
	if st == nil || len(st.Cores) != 1 || st.With != nil {
		return nil, false
	}
	sq, ok := st.Cores[0].(*sqlast.SelectQuery)
	return sq, ok
}

// optConjuncts is conjuncts(e), none for a nil e.
func optConjuncts(e sqlast.Expr) []sqlast.Expr {
	if e == nil {
		return nil
	}
	return conjuncts(e)
}

// plainOrder reports whether every ORDER BY term is a column (under
// parentheses or COLLATE at most): a sort that cannot fail.
func plainOrder(terms []*sqlast.OrderingTerm) bool {
	for _, o := range terms {
		x, _, err := skipCollate(o.Expr)
		if _, ok := x.(*sqlast.QualifiedRef); err != nil || !ok {
			return false
		}
	}
	return true
}

// columnsReadOutside returns the names of the columns of occurrence alias
// that stmt reads outside the expression skip (subqueries included),
// sorted, each once.
func columnsReadOutside(stmt sqlast.Node, alias string, skip sqlast.Expr) []string {
	var read []string
	sqlast.Walk(stmt, func(n sqlast.Node) bool {
		if skip != nil && n == sqlast.Node(skip) {
			return false
		}
		if r, ok := n.(*sqlast.QualifiedRef); ok && len(r.Parts) == 2 && lowerASCII(r.Parts[0].Name) == alias {
			read = append(read, lowerASCII(r.Parts[1].Name))
		}
		return true
	})
	slices.Sort(read)
	return slices.Compact(read)
}

// nullWhenNull reports whether e is NULL on every row whose columns of
// occurrence alias are all NULL, whatever else it reads: a column of
// alias, NULL, an operator that gives NULL on a NULL operand (comparison,
// arithmetic, ||, bit operators, unary -, + and ~, NOT, CAST) with one
// such operand (AND and OR: both, as FALSE AND NULL is FALSE), a CASE
// whose ELSE (or its absence) and every THEN it may reach are (a WHEN
// that is NULL, or compares a NULL operand, is never taken). Anything else
// (a literal, a function, IS, IN, a subquery) is not known to be.
// The same in SQLite and PostgreSQL (TestNullWhenNull).
func nullWhenNull(e sqlast.Expr, alias string) bool {
	is := func(x sqlast.Expr) bool { return x != nil && nullWhenNull(x, alias) }
	switch t := e.(type) {
	case *sqlast.ParenExpr:
		return is(t.X)
	case *sqlast.CollateExpr:
		return is(t.X)
	case *sqlast.CastExpr:
		return is(t.X)
	case *sqlast.QualifiedRef:
		return len(t.Parts) == 2 && lowerASCII(t.Parts[0].Name) == alias
	case *sqlast.Literal:
		return t.Kind == sqlast.LitNull
	case *sqlast.UnaryExpr:
		switch t.Op {
		case sqlast.OpNot, sqlast.OpMinus, sqlast.OpPlus, sqlast.OpBitNot:
			return is(t.X)
		}
	case *sqlast.BinaryExpr:
		switch t.Op {
		case sqlast.OpAnd, sqlast.OpOr:
			return is(t.X) && is(t.Y)
		case sqlast.OpEq, sqlast.OpNe, sqlast.OpLt, sqlast.OpLe, sqlast.OpGt, sqlast.OpGe,
			sqlast.OpAdd, sqlast.OpSub, sqlast.OpMul, sqlast.OpDiv, sqlast.OpMod, sqlast.OpConcat,
			sqlast.OpBitAnd, sqlast.OpBitOr, sqlast.OpLShift, sqlast.OpRShift:
			return is(t.X) || is(t.Y)
		}
	case *sqlast.CaseExpr:
		if t.Else != nil && !is(t.Else) {
			return false
		}
		if t.Operand != nil && is(t.Operand) {
			return true // no WHEN matches: the ELSE
		}
		for _, w := range t.Whens {
			if !is(w.When) && !is(w.Then) {
				return false
			}
		}
		return true
	}
	return false
}

// expandOuterStars spells out the * and t.* outputs of core sq: the
// columns of its FROM items, in order.
func expandOuterStars(c *Canon, sq *sqlast.SelectQuery) { spellStars(c.scopes[sq], sq) }

// spellStars spells out the * and t.* outputs of sq with the occurrences
// of scope sc (that of sq, or of the core sq is a copy of).
func spellStars(sc *scope, sq *sqlast.SelectQuery) {
	if sc == nil {
		return
	}
	var out []*sqlast.ResultColumn
	for _, col := range sq.Columns {
		st, ok := col.Expr.(*sqlast.Star)
		if !ok {
			out = append(out, col)
			continue
		}
		for _, o := range sc.occs {
			if st.Table != nil && !equalFold(st.Table.Name, o.alias) {
				continue
			}
			for i := range o.width() {
				out = append(out, &sqlast.ResultColumn{Expr: qualified(o, i)})
			}
		}
	}
	sq.Columns = out
}

// RuleAntiJoin: FROM ... LEFT JOIN b ON c WHERE b.z IS NULL, with b.z NOT
// NULL and nothing else reading b, is FROM ... WHERE NOT EXISTS (SELECT
// b.z FROM b WHERE c): b.z is NULL exactly on the row the outer join adds
// for a row without a match, once. The LEFT JOIN must be the query's only
// one. At: b's FROM item.
const RuleAntiJoin = "anti_join"

func init() { rules[RuleAntiJoin] = antiJoin }

func antiJoin(c *Canon, at int, facts *factSet) error {
	t, ok := nodeAt[*sqlast.TableRef](c, at)
	if !ok || t.Alias == nil || t.Join == nil || t.Join.Type&sqlast.JoinLeft == 0 || t.Name == nil {
		return refuse("rule", "no LEFT JOIN of a table at %d", at)
	}
	b := c.byAlias[lowerASCII(t.Alias.Name)]
	sq := b.core
	for _, item := range sq.From {
		if item != t && item.Join != nil && item.Join.Type&sqlast.JoinLeft != 0 {
			return refuse("rule", "another outer join in the FROM")
		}
	}
	if bareStar(sq) || sq.Where == nil {
		return refuse("rule", "SELECT * or no WHERE")
	}
	// The WHERE conjunct b.z IS NULL, z NOT NULL.
	cs := conjuncts(sq.Where)
	k, z := -1, -1
	for i, x := range cs {
		var arg sqlast.Expr
		switch n := x.(type) {
		case *sqlast.NullCheckExpr:
			if n.Test == sqlast.TestIsNull {
				arg = n.X
			}
		case *sqlast.IsExpr:
			if l, ok := n.Y.(*sqlast.Literal); ok && l.Kind == sqlast.LitNull && !n.Not && !n.Distinct {
				arg = n.X
			}
		}
		if o, col, ok := c.colOf(arg); ok && o == b && o.table.Columns[col].NotNull && k < 0 {
			k, z = i, col
		}
	}
	if k < 0 {
		return refuse("rule", "no conjunct %s.column IS NULL on a NOT NULL column", b.alias)
	}
	on := t.On
	// Nothing but the ON and that conjunct reads b.
	reads := 0
	sqlast.Walk(c.Stmt, func(n sqlast.Node) bool {
		switch r := n.(type) {
		case *sqlast.QualifiedRef:
			if len(r.Parts) == 2 && lowerASCII(r.Parts[0].Name) == b.alias {
				reads++
			}
		case *sqlast.Star:
			if r.Table != nil && lowerASCII(r.Table.Name) == b.alias {
				reads += 1000
			}
		}
		return true
	})
	inOn := 0
	if on != nil {
		sqlast.Walk(on, func(n sqlast.Node) bool {
			if r, ok := n.(*sqlast.QualifiedRef); ok && len(r.Parts) == 2 && lowerASCII(r.Parts[0].Name) == b.alias {
				inOn++
			}
			return true
		})
	}
	if reads != inOn+1 {
		return refuse("rule", "the query reads %s outside its ON and the IS NULL", b.alias)
	}
	facts.add(notNullFact(b, z))
	// NOT EXISTS (SELECT b.z FROM b WHERE on).
	item := &sqlast.TableRef{Name: t.Name, Alias: t.Alias, HasAs: true}
	sub := &sqlast.SelectQuery{Columns: []*sqlast.ResultColumn{{Expr: qualified(b, z)}}, From: []*sqlast.TableRef{item}}
	if on != nil {
		sub.Where = stripParens(on)
	}
	notExists := &sqlast.UnaryExpr{Op: sqlast.OpNot, X: &sqlast.ExistsExpr{Select: &sqlast.SelectStmt{Cores: []sqlast.SelectCore{sub}}}}
	var from []*sqlast.TableRef
	for _, it := range sq.From {
		if it != t {
			from = append(from, it)
		}
	}
	sq.From = from
	if len(from) == 0 {
		return refuse("rule", "the LEFT JOIN is the only table")
	}
	from[0].Join = nil
	rest := append(append([]sqlast.Expr{}, cs[:k]...), cs[k+1:]...)
	sq.Where = andAll(append(rest, notExists))
	return nil
}

// RuleGroupSemijoin: SELECT e FROM A WHERE p AND A.k IN (SELECT y FROM F
// WHERE q GROUP BY y HAVING h) is SELECT e FROM A, F WHERE p AND A.k = y
// AND q GROUP BY A.k HAVING h, when A.k is a one-column key of A (so that
// each row of A is its own group, holding exactly the rows of F's group
// y = A.k; the key may hold NULL, as SQLite lets a PRIMARY KEY: A.k = y is
// never TRUE on NULL and NULL IN (…) never TRUE, so neither side keeps
// such a row), A is the only table of the outer FROM, the outer query
// neither groups, aggregates nor removes duplicates, the subquery is not
// correlated, and A.k and y are columns of one family, Int or Text. At:
// the IN.
const RuleGroupSemijoin = "group_semijoin"

func init() { rules[RuleGroupSemijoin] = groupSemijoin }

func groupSemijoin(c *Canon, at int, facts *factSet) error {
	sq, cs, i := whereOf(c, at)
	if sq == nil {
		return refuse("rule", "no top-level conjunct of a WHERE at %d", at)
	}
	in, ok := cs[i].(*sqlast.InExpr)
	if !ok || in.Not || in.Select == nil || len(in.Select.Cores) != 1 {
		return refuse("rule", "not x IN (SELECT ...) at %d", at)
	}
	sub := in.Select.Cores[0].(*sqlast.SelectQuery)
	if len(sq.From) != 1 || sq.Distinct == sqlast.DistinctDistinct || len(sq.GroupBy) > 0 || sq.Having != nil || bareStar(sq) {
		return refuse("rule", "the outer query joins, groups, removes duplicates or selects *")
	}
	for _, col := range sq.Columns {
		if containsAggregate(col.Expr) {
			return refuse("rule", "the outer query aggregates")
		}
	}
	if len(sub.GroupBy) != 1 || sub.Limit != nil || sub.Distinct == sqlast.DistinctDistinct || len(sub.Columns) != 1 {
		return refuse("rule", "the subquery does not group by one term, or limits")
	}
	a, k, ok := c.colOf(in.X)
	if !ok || a.core != sq || a.join == joinLeft || !singleKey(a.table, k) {
		return refuse("rule", "%s is not a one-column key of the outer table", sqlast.Format(in.X))
	}
	yo, yi, ok := c.colOf(sub.Columns[0].Expr)
	if !ok || yo.core != sub || sqlast.Format(sub.GroupBy[0]) != sqlast.Format(sub.Columns[0].Expr) {
		return refuse("rule", "the subquery does not return the column it groups by")
	}
	fa, fy := c.fam(a, k), c.fam(yo, yi)
	if fa != fy || (fa != Int && fa != Text) {
		return refuse("rule", "the two columns are not both Int or both Text")
	}
	if _, err := blockOfCore(c, sub); err != nil {
		return err
	}
	if correlated(c, in.Select) {
		return refuse("rule", "the subquery is correlated")
	}
	facts.add(Fact{Fact: FactKey, Table: a.table.Name, Columns: []string{a.table.Columns[k].Name}})
	facts.add(c.familyFact(a, k))
	facts.add(c.familyFact(yo, yi))
	for j, t := range sub.From {
		if j == 0 {
			t.Join = &sqlast.JoinOperator{Type: sqlast.JoinInner | sqlast.JoinComma}
		}
		sq.From = append(sq.From, t)
	}
	var conds []sqlast.Expr
	conds = append(conds, cs[:i]...)
	conds = append(conds, &sqlast.BinaryExpr{Op: sqlast.OpEq, X: in.X, Y: sub.Columns[0].Expr})
	if sub.Where != nil {
		conds = append(conds, conjuncts(sub.Where)...)
	}
	conds = append(conds, cs[i+1:]...)
	sq.Where = andAll(conds)
	sq.GroupBy = []sqlast.Expr{cloneExpr(in.X)}
	sq.Having = sub.Having
	return nil
}

// singleKey reports whether column i alone is a key of t.
func singleKey(t *Table, i int) bool {
	for _, k := range t.Keys {
		if len(k.Cols) == 1 && k.Cols[0] == i {
			return true
		}
	}
	return false
}

// correlated reports whether st reads a column of an occurrence outside
// it.
func correlated(c *Canon, st *sqlast.SelectStmt) bool {
	inside := map[*occurrence]bool{}
	sqlast.Walk(st, func(n sqlast.Node) bool {
		if t, ok := n.(*sqlast.TableRef); ok && t.Alias != nil {
			inside[c.byAlias[lowerASCII(t.Alias.Name)]] = true
		}
		return true
	})
	out := false
	sqlast.Walk(st, func(n sqlast.Node) bool {
		if r, ok := n.(*sqlast.QualifiedRef); ok {
			if o, _, ok := c.colOf(r); ok && !inside[o] {
				out = true
			}
		}
		return !out
	})
	return out
}
