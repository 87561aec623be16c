package check

import (
	"slices"
	"strings"

	"github.com/sqljudge/sqljudge/internal/sqlast"
)

// RuleGroupDistinct: SELECT e1, ..., ek FROM F WHERE p GROUP BY g1, ...,
// gm, with no aggregate anywhere in the SELECT, is SELECT DISTINCT e1,
// ..., ek FROM F WHERE p when the outputs and the GROUP BY terms are the
// same expressions (each ei is some gj and each gj some ei, by text; a
// literal may be an output or a term alone: it is one value) and
// every output is tie-safe (two values the engine takes for equal are the
// same value: a column of a non-BLOB affinity under BINARY on SQLite, of a
// modelled family on PostgreSQL, a literal, COUNT, MIN or MAX of such a
// column; a column of a FROM subquery is when its expression is). GROUP BY
// makes one row of each class of rows equal on the terms, and each output
// is a term, so that row is the class's values, which DISTINCT keeps
// once; NULLs group and are kept together in both (lang_select.html,
// "the GROUP BY clause" and "DISTINCT"). Not: HAVING, a window, LIMIT (the
// rows before it come in another order), an ORDER BY term that is no
// output, a * output, a subquery in an output or a term, an output that is
// not tie-safe (GROUP BY returns one row's value and DISTINCT another: 'a'
// and 'A' under NOCASE). At: the SELECT.
const RuleGroupDistinct = "group_distinct"

// RuleDistinctDerived: a FROM subquery (SELECT DISTINCT e1, ..., ek FROM
// F WHERE p) AS d loses its DISTINCT where the query around it cannot
// tell a row of d from two of it (copyBlind): its SELECT is DISTINCT with
// tie-safe outputs, sorted by outputs only, and neither groups,
// aggregates, limits nor has a window, or it is the body of an EXISTS or
// of an IN subquery and neither groups, aggregates nor limits. Every ei is tie-safe (RuleGroupDistinct), so the
// rows DISTINCT removes are the same values as a row it keeps: without
// it, d holds more copies of the same rows, and the query around it more
// copies of the same rows (EXISTS: the same emptiness; IN: the same set of
// values; DISTINCT: the same rows once). Not: d's SELECT groups,
// aggregates, limits, orders, has a window or is a compound. At: d's FROM
// item.
const RuleDistinctDerived = "distinct_derived"

// RuleDistinctSemijoin: SELECT ... FROM A, (SELECT DISTINCT e1, ..., ek
// FROM F WHERE p) AS d WHERE q AND d.c1 = x1 AND ... (inner joins only, ON
// conditions read as WHERE conjuncts) is SELECT ... FROM A WHERE q AND
// EXISTS (SELECT 1 FROM (SELECT DISTINCT ...) AS d WHERE d.c1 = x1 AND
// ...) when the conjuncts d.ci = xi (top-level, of the WHERE or of an ON
// of the same FROM, xi reading no column of d and no subquery) are all
// that read d's columns, and every output of d is pinned by one of them or
// is a literal. A row of A then meets at most one row of d: two rows of d
// are distinct (DISTINCT) and differ on some pinned column, whose values
// cannot both equal xi — each pinned ei is COUNT, or a column compared
// without converting its own values (SQLite: INTEGER, REAL or NUMERIC
// affinity, or TEXT affinity against an xi of TEXT, BLOB or no affinity;
// PostgreSQL: a column of the Int or Text family), tie-safe, under the
// BINARY collation (xi without COLLATE). So the join keeps each row of A
// once when it meets a row of d and drops it when it meets none: the
// semijoin. Not: an outer join in the FROM, USING, d read anywhere else
// (an output, a GROUP BY, a subquery), d's SELECT grouping, aggregating,
// limiting or a compound. At: d's FROM item.
const RuleDistinctSemijoin = "distinct_semijoin"

func init() {
	rules[RuleGroupDistinct] = groupDistinct
	rules[RuleDistinctDerived] = distinctDerived
	rules[RuleDistinctSemijoin] = distinctSemijoin
}

func groupDistinct(c *Canon, at int, _ *factSet) error {
	sq, ok := nodeAt[*sqlast.SelectQuery](c, at)
	if !ok || len(sq.GroupBy) == 0 {
		return refuse("rule", "no SELECT with GROUP BY at %d", at)
	}
	if sq.Having != nil || len(sq.Windows) > 0 || sq.Limit != nil {
		return refuse("rule", "the SELECT has HAVING, a window or LIMIT")
	}
	var outs []string
	for _, col := range sq.Columns {
		if _, star := col.Expr.(*sqlast.Star); star {
			return refuse("rule", "a * output")
		}
		if containsAggregate(col.Expr) || holdsSubquery(col.Expr) {
			return refuse("rule", "an output aggregates or holds a subquery")
		}
		if !c.tieSafeThrough(col.Expr) {
			return refuse("rule", "output %s is not tie-safe: GROUP BY may return another of the values it takes for equal than DISTINCT", sqlast.Format(col.Expr))
		}
		outs = append(outs, sqlast.Format(stripParens(col.Expr)))
	}
	var terms []string
	for _, g := range sq.GroupBy {
		if holdsSubquery(g) {
			return refuse("rule", "a GROUP BY term holds a subquery")
		}
		terms = append(terms, sqlast.Format(stripParens(g)))
	}
	for _, o := range sq.OrderBy {
		if containsAggregate(o.Expr) || !slices.Contains(outs, sqlast.Format(stripParens(o.Expr))) {
			return refuse("rule", "ORDER BY %s, which is no output", sqlast.Format(o.Expr))
		}
	}
	for k, o := range outs {
		if _, lit := stripParens(sq.Columns[k].Expr).(*sqlast.Literal); lit {
			continue // a constant: the same on every row of a group
		}
		if !slices.Contains(terms, o) {
			return refuse("rule", "output %s is no GROUP BY term", o)
		}
	}
	for k, g := range terms {
		if _, lit := stripParens(sq.GroupBy[k]).(*sqlast.Literal); lit {
			continue // a constant groups nothing apart
		}
		if !slices.Contains(outs, g) {
			return refuse("rule", "GROUP BY term %s is no output", g)
		}
	}
	sq.Distinct = sqlast.DistinctDistinct
	sq.GroupBy = nil
	return nil
}

// tieSafeThrough is tieSafe(e, false), reading a column of a FROM
// subquery as the subquery's output expression (of a compound: every
// branch's).
func (c *Canon) tieSafeThrough(e sqlast.Expr) bool {
	if x, ok := c.derivedOutput(e); ok {
		return c.tieSafeThrough(x)
	}
	if xs, ok := c.compoundOutputs(e); ok {
		return c.branchesTieSafe(xs)
	}
	return c.tieSafe(e, false)
}

// branchesTieSafe reports whether the values a compound's column takes
// from its branches' outputs xs are equal only when they are the same:
// each a tie-safe column, all of one affinity on SQLite (an INTEGER
// column's 1 and a REAL column's 1.0 are equal, not the same) and of one
// family on PostgreSQL.
func (c *Canon) branchesTieSafe(xs []sqlast.Expr) bool {
	var kind string
	for _, x := range xs {
		o, i, ok := c.colOf(stripParens(c.throughDerived(x)))
		if !ok || !o.table.Columns[i].tieSafe(c.d) {
			return false
		}
		k := o.table.Columns[i].family(c.d).String()
		if c.d == SQLite {
			k = o.table.Columns[i].affinity().String()
		}
		if kind != "" && k != kind {
			return false
		}
		kind = k
	}
	return kind != ""
}

// compoundOutputs returns, for a column reference d.c of a FROM subquery
// d that is a compound, the expression of output c in each branch.
func (c *Canon) compoundOutputs(e sqlast.Expr) ([]sqlast.Expr, bool) {
	r, ok := stripParens(e).(*sqlast.QualifiedRef)
	if !ok || len(r.Parts) != 2 {
		return nil, false
	}
	o := c.byAlias[lowerASCII(r.Parts[0].Name)]
	if o == nil || o.derived == nil || len(o.derived.Cores) < 2 {
		return nil, false
	}
	i := o.column(r.Parts[1].Name)
	var out []sqlast.Expr
	for _, core := range o.derived.Cores {
		b, ok := core.(*sqlast.SelectQuery)
		if !ok || i < 0 || i >= len(b.Columns) {
			return nil, false
		}
		if _, star := b.Columns[i].Expr.(*sqlast.Star); star {
			return nil, false
		}
		out = append(out, b.Columns[i].Expr)
	}
	return out, true
}

// throughDerived follows e through the FROM subqueries (not compounds)
// whose output it reads, to the expression that gives its values.
func (c *Canon) throughDerived(e sqlast.Expr) sqlast.Expr {
	for {
		x, ok := c.derivedOutput(e)
		if !ok {
			return e
		}
		e = x
	}
}

// derivedOutput returns, for a column reference d.c of a FROM subquery d
// whose SELECT is not a compound, the expression of its output c.
func (c *Canon) derivedOutput(e sqlast.Expr) (sqlast.Expr, bool) {
	r, ok := stripParens(e).(*sqlast.QualifiedRef)
	if !ok || len(r.Parts) != 2 {
		return nil, false
	}
	o := c.byAlias[lowerASCII(r.Parts[0].Name)]
	if o == nil || o.derived == nil || len(o.derived.Cores) != 1 {
		return nil, false
	}
	sub, ok := o.derived.Cores[0].(*sqlast.SelectQuery)
	i := o.column(r.Parts[1].Name)
	if !ok || i < 0 || i >= len(sub.Columns) {
		return nil, false
	}
	if _, star := sub.Columns[i].Expr.(*sqlast.Star); star {
		return nil, false
	}
	return sub.Columns[i].Expr, true
}

// distinctBody returns the FROM subquery at byte offset at, its
// occurrence and its SELECT, when that is one SELECT DISTINCT that
// neither groups, aggregates, limits, orders nor has a window, with
// tie-safe outputs.
func (c *Canon) distinctBody(at int) (*sqlast.TableRef, *occurrence, *sqlast.SelectQuery, error) {
	t, d, err := c.derivedAt(at)
	if err != nil {
		return nil, nil, nil, err
	}
	sub, ok := oneSelect(t.Select)
	if !ok {
		return nil, nil, nil, refuse("rule", "the subquery is a compound, VALUES or has a WITH")
	}
	if sub.Distinct != sqlast.DistinctDistinct || len(sub.GroupBy) > 0 || sub.Having != nil || sub.Limit != nil || len(sub.OrderBy) > 0 || len(sub.Windows) > 0 || len(sub.From) == 0 {
		return nil, nil, nil, refuse("rule", "the subquery is no SELECT DISTINCT, or groups, limits, orders or has a window")
	}
	for _, col := range sub.Columns {
		if _, star := col.Expr.(*sqlast.Star); star {
			return nil, nil, nil, refuse("rule", "a * output of the subquery")
		}
		if containsAggregate(col.Expr) {
			return nil, nil, nil, refuse("rule", "the subquery aggregates")
		}
		if !c.tieSafeThrough(col.Expr) {
			return nil, nil, nil, refuse("rule", "the subquery's output %s is not tie-safe", sqlast.Format(col.Expr))
		}
	}
	return t, d, sub, nil
}

func distinctDerived(c *Canon, at int, _ *factSet) error {
	_, d, sub, err := c.distinctBody(at)
	if err != nil {
		return err
	}
	if err := c.copyBlind(d.core); err != nil {
		return err
	}
	sub.Distinct = sqlast.DistinctNone
	return nil
}

func distinctSemijoin(c *Canon, at int, _ *factSet) error {
	t, d, sub, err := c.distinctBody(at)
	if err != nil {
		return err
	}
	sq := d.core
	if len(sq.From) < 2 {
		return refuse("rule", "the subquery is the FROM's only item")
	}
	for _, item := range sq.From {
		if item.Join != nil && item.Join.Type&(sqlast.JoinLeft|sqlast.JoinRight|sqlast.JoinNatural) != 0 || len(item.Using) > 0 {
			return refuse("rule", "an outer or natural join, or USING, in the FROM")
		}
	}
	if bareStar(sq) {
		return refuse("rule", "SELECT *")
	}
	for _, col := range sq.Columns {
		if st, ok := col.Expr.(*sqlast.Star); ok && (st.Table == nil || lowerASCII(st.Table.Name) == d.alias) {
			return refuse("rule", "a * output reads %s", d.alias)
		}
	}
	readsD := func(e sqlast.Expr) bool {
		found := false
		sqlast.Walk(e, func(n sqlast.Node) bool {
			if r, ok := n.(*sqlast.QualifiedRef); ok && len(r.Parts) == 2 && lowerASCII(r.Parts[0].Name) == d.alias {
				found = true
			}
			return !found
		})
		return found
	}
	// The conjuncts of the WHERE and of every ON; those that read d.
	var all []sqlast.Expr
	all = append(all, optConjuncts(sq.Where)...)
	for _, item := range sq.From {
		all = append(all, optConjuncts(item.On)...)
	}
	pinned := make([]bool, len(sub.Columns))
	var pins, rest []sqlast.Expr
	for _, x := range all {
		if !readsD(x) {
			rest = append(rest, x)
			continue
		}
		b, ok := stripParens(x).(*sqlast.BinaryExpr)
		if !ok || b.Op != sqlast.OpEq {
			return refuse("rule", "%s reads %s and is not %s.c = x", sqlast.Format(x), d.alias, d.alias)
		}
		col, other := stripParens(b.X), stripParens(b.Y)
		if r, ok := col.(*sqlast.QualifiedRef); !ok || len(r.Parts) != 2 || lowerASCII(r.Parts[0].Name) != d.alias {
			col, other = other, col
		}
		r, ok := col.(*sqlast.QualifiedRef)
		if !ok || len(r.Parts) != 2 || lowerASCII(r.Parts[0].Name) != d.alias || readsD(other) || holdsSubquery(other) {
			return refuse("rule", "%s is not %s.c = x with x reading neither %s nor a subquery", sqlast.Format(x), d.alias, d.alias)
		}
		i := d.column(r.Parts[1].Name)
		if i < 0 || i >= len(sub.Columns) {
			return refuse("rule", "a column of %s that its subquery does not give", d.alias)
		}
		if err := c.pinsOne(sub.Columns[i].Expr, other); err != nil {
			return err
		}
		pinned[i] = true
		pins = append(pins, x)
	}
	// Nothing else reads d.
	reads := 0
	sqlast.Walk(c.Stmt, func(n sqlast.Node) bool {
		if r, ok := n.(*sqlast.QualifiedRef); ok && len(r.Parts) == 2 && lowerASCII(r.Parts[0].Name) == d.alias {
			reads++
		}
		return true
	})
	inPins := 0
	for _, x := range pins {
		sqlast.Walk(x, func(n sqlast.Node) bool {
			if r, ok := n.(*sqlast.QualifiedRef); ok && len(r.Parts) == 2 && lowerASCII(r.Parts[0].Name) == d.alias {
				inPins++
			}
			return true
		})
	}
	if reads != inPins {
		return refuse("rule", "the query reads %s outside the conjuncts that pin it", d.alias)
	}
	for i, col := range sub.Columns {
		if _, lit := stripParens(col.Expr).(*sqlast.Literal); !pinned[i] && !lit {
			return refuse("rule", "output %d of %s (%s) is neither pinned by a conjunct nor a literal", i+1, d.alias, sqlast.Format(col.Expr))
		}
	}
	// EXISTS (SELECT 1 FROM (sub) AS d WHERE pins).
	item := &sqlast.TableRef{Select: t.Select, Alias: t.Alias, HasAs: true}
	one := &sqlast.Literal{Kind: sqlast.LitInteger, Value: "1", Raw: "1"}
	inner := &sqlast.SelectQuery{Columns: []*sqlast.ResultColumn{{Expr: one}}, From: []*sqlast.TableRef{item}, Where: andAll(pins)}
	exists := &sqlast.ExistsExpr{Select: &sqlast.SelectStmt{Cores: []sqlast.SelectCore{inner}}}
	commaFromWithout(sq, t) // every ON's conjuncts are in pins or rest
	sq.Where = andAll(append(rest, exists))
	return nil
}

// pinsOne checks that a comparison of subquery output e with x is TRUE
// for at most one of e's distinct values: e is COUNT, or a column whose
// own values the comparison does not convert, under BINARY.
func (c *Canon) pinsOne(e, x sqlast.Expr) error {
	e = stripParens(c.throughDerived(e))
	if f, ok := e.(*sqlast.FuncCall); ok && lowerASCII(f.Name.Name) == "count" && f.Over == nil {
		if _, coll, ok := c.exprKind(x); ok && coll == "" {
			return nil
		}
		return refuse("rule", "%s under a collation, or of a kind the kernel does not read", sqlast.Format(x))
	}
	o, i, ok := c.colOf(e)
	if !ok || !o.table.Columns[i].tieSafe(c.d) {
		return refuse("rule", "the pinned output %s is no tie-safe column or COUNT", sqlast.Format(e))
	}
	xAff, xColl, ok := c.exprKind(x)
	if !ok || xColl != "" {
		return refuse("rule", "%s under a collation, or of a kind the kernel does not read", sqlast.Format(x))
	}
	col := o.table.Columns[i]
	if c.d != SQLite {
		if f := col.family(c.d); f != Int && f != Text {
			return refuse("rule", "the pinned column %s is neither of the Int nor of the Text family", sqlast.Format(e))
		}
		return nil
	}
	switch aff := col.affinity(); {
	case aff.numeric():
		return nil
	case aff == AffinityText && !xAff.numeric():
		return nil
	}
	return refuse("rule", "the comparison of %s with %s may convert the column's own values", sqlast.Format(e), sqlast.Format(x))
}

// RuleAggMerge: an aggregate over a grouped FROM subquery is one
// aggregate (Calcite's AggregateMergeRule):
//
//	SELECT d.g1, …, agg(d.a1), … FROM (SELECT g1, …, h1, …, inner1 AS a1, … FROM F WHERE p GROUP BY g1, …, h1, …) AS d GROUP BY d.g1, …
//
// is SELECT g1, …, merged1, … FROM F WHERE p GROUP BY g1, …, where the
// outer GROUP BY terms are outputs of d that are inner GROUP BY terms,
// and each outer aggregate of an inner one merges: SUM(SUM(x)) is
// SUM(x) for x a column of family Int whose magnitudes sum below 2^63
// (facts family, sum_in_range: no partial sum overflows, in either
// order); MIN(MIN(x)) and MAX(MAX(x)) are MIN(x) and MAX(x) for x a
// tie-safe column (the outer MIN compares d.a1 without x's collation,
// which a tie-safe column does not have); SUM(COUNT(…)) is COUNT(…) when
// the outer query groups (each of its groups holds at least one inner
// group, so the sum is never of no rows), COALESCE(SUM(COUNT(…)), 0) is
// COUNT(…) always. An aggregate of d.g, g a column among the inner GROUP
// BY terms that are exactly the outer ones' and g (each outer group's
// rows in d are its distinct values of g, one per inner group), is the
// DISTINCT aggregate: COUNT(d.g) is COUNT(DISTINCT g) and MIN(d.g),
// MAX(d.g) are MIN(g), MAX(g), g tie-safe (GROUP BY and DISTINCT take
// the same values for equal, and those are the same value); SUM(d.g) is
// SUM(DISTINCT g), g of family Int with sum_in_range (Calcite's
// AggregateExpandDistinctAggregatesRule read backwards). On SQLite, in a
// SELECT of the statement itself (its outputs are the result, whose
// affinity nothing reads), a CAST to a type of INTEGER affinity (INT,
// BIGINT, …) around a merging form is dropped when the merged aggregate
// is an integer or NULL on every database (COUNT, SUM of a column of
// family Int), kept around it otherwise. An inner GROUP BY term the outer one lacks splits
// rows into finer groups the outer one joins again; NULLs group together
// in both. Without an inner GROUP BY the subquery returns one row (of
// NULL sums on no rows) and the outer query must not group. Not: an
// outer WHERE, HAVING, DISTINCT, ORDER BY, LIMIT or window, another FROM
// item beside d; an inner HAVING, DISTINCT, LIMIT, ORDER BY or window;
// an outer output that is neither an outer GROUP BY term (tie-safe: each
// level keeps one of the values its group takes for equal), a literal
// nor one of the merging forms; AVG, TOTAL, COUNT(DISTINCT …) and any
// aggregate of an expression. At: d's FROM item.
const RuleAggMerge = "agg_merge"

func init() { rules[RuleAggMerge] = aggMerge }

func aggMerge(c *Canon, at int, facts *factSet) error {
	t, d, err := c.derivedAt(at)
	if err != nil {
		return err
	}
	if _, ok := oneSelect(t.Select); !ok {
		return refuse("rule", "no FROM subquery of one SELECT at %d", at)
	}
	outer := d.core
	if len(outer.From) != 1 || outer.Where != nil || outer.Having != nil || outer.Distinct == sqlast.DistinctDistinct || len(outer.OrderBy) > 0 || outer.Limit != nil || len(outer.Windows) > 0 {
		return refuse("rule", "the query around the subquery joins, filters, removes duplicates, orders, limits or has a window")
	}
	sub := t.Select.Cores[0].(*sqlast.SelectQuery)
	if sub.Having != nil || sub.Distinct == sqlast.DistinctDistinct || sub.Limit != nil || len(sub.OrderBy) > 0 || len(sub.Windows) > 0 || len(sub.From) == 0 {
		return refuse("rule", "the subquery has HAVING, DISTINCT, LIMIT, ORDER BY or a window")
	}
	if len(sub.GroupBy) == 0 && len(outer.GroupBy) > 0 {
		return refuse("rule", "the outer query groups the one row of a scalar aggregate")
	}
	var innerTerms []string
	for _, g := range sub.GroupBy {
		innerTerms = append(innerTerms, sqlast.Format(stripParens(g)))
	}
	// output returns the subquery's output a reference to d reads.
	output := func(e sqlast.Expr) (sqlast.Expr, bool) {
		r, ok := stripParens(e).(*sqlast.QualifiedRef)
		if !ok || len(r.Parts) != 2 || lowerASCII(r.Parts[0].Name) != d.alias {
			return nil, false
		}
		i := d.column(r.Parts[1].Name)
		if i < 0 || i >= len(sub.Columns) {
			return nil, false
		}
		if _, star := sub.Columns[i].Expr.(*sqlast.Star); star {
			return nil, false
		}
		return sub.Columns[i].Expr, true
	}
	var groupBy []sqlast.Expr
	var outerTerms []string
	for _, g := range outer.GroupBy {
		x, ok := output(g)
		if !ok || containsAggregate(x) || !slices.Contains(innerTerms, sqlast.Format(stripParens(x))) {
			return refuse("rule", "outer GROUP BY term %s is no inner GROUP BY term", sqlast.Format(g))
		}
		groupBy = append(groupBy, cloneExpr(x))
		outerTerms = append(outerTerms, sqlast.Format(stripParens(g)))
	}
	innerSet := slices.Clone(innerTerms)
	slices.Sort(innerSet)
	innerSet = slices.Compact(innerSet)
	var outerInner []string
	for _, g := range groupBy {
		outerInner = append(outerInner, sqlast.Format(stripParens(g)))
	}
	// An inner GROUP BY column whose groups the outer one joins alone:
	// its values in an outer group are the group's distinct values.
	distinct := func(x sqlast.Expr) bool {
		want := append([]string{sqlast.Format(stripParens(x))}, outerInner...)
		slices.Sort(want)
		return slices.Equal(slices.Compact(want), innerSet)
	}
	top := c.Stmt.With == nil && slices.Index(c.Stmt.Cores, sqlast.SelectCore(outer)) >= 0
	var local factSet
	merged := make([]sqlast.Expr, len(outer.Columns))
	for k, col := range outer.Columns {
		e := stripParens(col.Expr)
		if _, lit := e.(*sqlast.Literal); lit {
			merged[k] = cloneExpr(e)
			continue
		}
		if x, ok := output(e); ok {
			if !slices.Contains(outerTerms, sqlast.Format(e)) {
				return refuse("rule", "output %s is no outer GROUP BY term", sqlast.Format(e))
			}
			if !c.tieSafeThrough(x) {
				return refuse("rule", "output %s is not tie-safe: each level keeps one of the values its group takes for equal", sqlast.Format(e))
			}
			merged[k] = cloneExpr(x)
			continue
		}
		// CAST(m AS INTEGER) of an aggregate whose value is an integer or
		// NULL is m, as a value: only where the statement's result is
		// read (the CAST gives the output INTEGER affinity, which a
		// comparison with '2' through a FROM or IN subquery would apply),
		// and on SQLite only (PostgreSQL's SUM of a bigint is a numeric,
		// and the CAST changes its type).
		var cast *sqlast.CastExpr
		if x, ok := e.(*sqlast.CastExpr); ok && top && c.d == SQLite && x.Type != nil && AffinityOf(x.Type.Name) == AffinityInteger {
			cast, e = x, stripParens(x.X)
		}
		m, err := c.mergeAggregate(e, output, len(outer.GroupBy) > 0, distinct, &local)
		if err != nil {
			return err
		}
		if cast != nil && !c.integerAggregate(m, &local) {
			m = &sqlast.CastExpr{X: m, Type: cast.Type}
		}
		merged[k] = m
	}
	facts.addAll(local.list)
	for k, col := range outer.Columns {
		col.Expr = merged[k]
	}
	outer.From = sub.From
	outer.Where = sub.Where
	outer.GroupBy = groupBy
	return nil
}

// mergeAggregate returns the single aggregate an outer aggregate e of an
// inner one merges into (RuleAggMerge), with its facts.
func (c *Canon) mergeAggregate(e sqlast.Expr, output func(sqlast.Expr) (sqlast.Expr, bool), grouped bool, distinct func(sqlast.Expr) bool, facts *factSet) (sqlast.Expr, error) {
	bad := refuse("rule", "output %s is no aggregate of an inner aggregate that merges", sqlast.Format(e))
	coalesced := false
	if f, ok := e.(*sqlast.FuncCall); ok && lowerASCII(f.Name.Name) == "coalesce" && len(f.Args) == 2 && f.Over == nil {
		if l, ok := stripParens(f.Args[1]).(*sqlast.Literal); ok && l.Kind == sqlast.LitInteger && l.Value == "0" {
			e, coalesced = stripParens(f.Args[0]), true
		}
	}
	f, ok := e.(*sqlast.FuncCall)
	if !ok || f.Over != nil || f.Filter != nil || f.Distinct || f.Star || len(f.Args) != 1 || len(f.OrderBy) > 0 {
		return nil, bad
	}
	x, ok := output(f.Args[0])
	if !ok {
		return nil, bad
	}
	outerName := lowerASCII(f.Name.Name)
	if o, i, col := c.colOf(stripParens(x)); col && !coalesced && distinct(x) {
		// agg(d.g), g an inner GROUP BY column and the inner groups the
		// outer ones split by g alone: agg(DISTINCT g).
		tieSafe := o.table.Columns[i].tieSafe(c.d)
		switch {
		case outerName == "count" && tieSafe:
			return &sqlast.FuncCall{Name: f.Name, Args: []sqlast.Expr{cloneExpr(x)}, Distinct: true}, nil
		case outerName == "sum" && c.sumFacts(x) != nil:
			for _, f := range c.sumFacts(x) {
				facts.add(f)
			}
			return &sqlast.FuncCall{Name: f.Name, Args: []sqlast.Expr{cloneExpr(x)}, Distinct: true}, nil
		case (outerName == "min" || outerName == "max") && tieSafe:
			return &sqlast.FuncCall{Name: f.Name, Args: []sqlast.Expr{cloneExpr(x)}}, nil
		}
		return nil, refuse("rule", "%s of the inner GROUP BY column %s, not tie-safe (or no column of family Int for SUM)", strings.ToUpper(outerName), sqlast.Format(x))
	}
	g, ok := stripParens(x).(*sqlast.FuncCall)
	if !ok || g.Over != nil || g.Filter != nil || len(g.OrderBy) > 0 {
		return nil, bad
	}
	innerName := lowerASCII(g.Name.Name)
	switch {
	case outerName == "sum" && innerName == "count" && !g.Distinct && (grouped || coalesced):
		return cloneExpr(g), nil
	case coalesced:
		return nil, bad
	case g.Distinct || g.Star || len(g.Args) != 1:
		return nil, bad
	case outerName == "sum" && innerName == "sum":
		fs := c.sumFacts(g.Args[0])
		if fs == nil {
			return nil, refuse("rule", "SUM of SUM of %s, no column of family Int read once per row of its table", sqlast.Format(g.Args[0]))
		}
		for _, f := range fs {
			facts.add(f)
		}
		return cloneExpr(g), nil
	case (outerName == "min" || outerName == "max") && innerName == outerName:
		if o, i, ok := c.colOf(g.Args[0]); !ok || !o.table.Columns[i].tieSafe(c.d) {
			return nil, refuse("rule", "%s of %s of %s, no tie-safe column", strings.ToUpper(outerName), strings.ToUpper(innerName), sqlast.Format(g.Args[0]))
		}
		return cloneExpr(g), nil
	}
	return nil, bad
}

// integerAggregate reports whether m, an aggregate agg_merge wrote, is an
// integer or NULL on every database on SQLite: COUNT, or SUM of a column
// of family Int (an overflow is an error), whose family it adds to facts.
func (c *Canon) integerAggregate(m sqlast.Expr, facts *factSet) bool {
	f, ok := m.(*sqlast.FuncCall)
	if !ok || f.Over != nil || f.Filter != nil {
		return false
	}
	switch lowerASCII(f.Name.Name) {
	case "count":
		return true
	case "sum":
		if len(f.Args) != 1 {
			return false
		}
		if o, i, ok := c.colOf(stripParens(f.Args[0])); ok && c.fam(o, i) == Int {
			facts.add(c.familyFact(o, i))
			return true
		}
	}
	return false
}
