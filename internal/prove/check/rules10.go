package check

import (
	"slices"

	"github.com/sqljudge/sqljudge/internal/sqlast"
)

// RuleLeftJoinCopies: FROM a ... LEFT JOIN b ON c ..., where nothing but
// c reads b, is the FROM without b in a query that cannot tell a row from
// two copies of it: a SELECT DISTINCT whose outputs are tie-safe (two
// values it takes for equal are the same value) and whose ORDER BY terms
// are outputs, that neither groups, aggregates, limits nor has a window;
// or the body of an EXISTS or of an IN subquery that neither groups,
// aggregates nor limits. The outer join keeps each row of its left side
// at least once (once per row of b that c accepts, once with NULLs when
// none does), the same values in every column but b's, which nothing
// reads: so the rows the query keeps are the same values, in other
// numbers, and DISTINCT shows each once (EXISTS: the same emptiness; IN:
// the same set of values). c and b must not fail (failFree: without them
// the query would not), b not be NATURAL or USING (they merge columns
// that are read unqualified) and no * read b. At: b's FROM item (a table
// or a FROM subquery).
const RuleLeftJoinCopies = "left_join_copies"

func init() { rules[RuleLeftJoinCopies] = leftJoinCopies }

func leftJoinCopies(c *Canon, at int, _ *factSet) error {
	t, b, err := leftAny(c, at)
	if err != nil {
		return err
	}
	if t.Join.Type&sqlast.JoinNatural != 0 || len(t.Using) > 0 || len(b.merged) > 0 {
		return refuse("rule", "a NATURAL or USING join")
	}
	sq := b.core
	if err := c.onlyOnReads(t, b); err != nil {
		return err
	}
	if b.derived != nil && !stmtFailFree(b.derived, c.d) {
		return refuse("rule", "the subquery %s may fail: without it the query would not", b.alias)
	}
	if err := c.copyBlind(sq); err != nil {
		return err
	}
	sq.From = slices.DeleteFunc(sq.From, func(x *sqlast.TableRef) bool { return x == t })
	return nil
}

// copyBlind refuses a SELECT sq whose result may change when a row of its
// FROM comes in more copies (or fewer, but at least one): it accepts a
// SELECT DISTINCT with tie-safe outputs (RuleGroupDistinct) whose ORDER
// BY terms are outputs (a term that is none is read from one of the rows
// DISTINCT folds, which the copies and the plan decide), or one that is
// the body of an EXISTS or an IN subquery, in either case without GROUP
// BY, HAVING, LIMIT, a window or an aggregate; or a grouped SELECT that
// copyBlindGrouped accepts. Used by distinct_derived and
// left_join_copies.
func (c *Canon) copyBlind(sq *sqlast.SelectQuery) error {
	if len(sq.GroupBy) > 0 && sq.Having == nil && sq.Limit == nil && len(sq.Windows) == 0 {
		return c.copyBlindGrouped(sq)
	}
	if len(sq.GroupBy) > 0 || sq.Having != nil || sq.Limit != nil || len(sq.Windows) > 0 {
		return refuse("rule", "the query groups, limits or has a window")
	}
	for _, col := range sq.Columns {
		if containsAggregate(col.Expr) || hasWindowCall(col.Expr) {
			return refuse("rule", "the query aggregates")
		}
	}
	for _, o := range sq.OrderBy {
		if containsAggregate(o.Expr) || hasWindowCall(o.Expr) {
			return refuse("rule", "the query aggregates")
		}
	}
	sqlast.Walk(c.Stmt, func(n sqlast.Node) bool {
		var st *sqlast.SelectStmt
		switch x := n.(type) {
		case *sqlast.ExistsExpr:
			st = x.Select
		case *sqlast.InExpr:
			st = x.Select
		}
		if st != nil && len(st.Cores) == 1 && st.Cores[0] == sqlast.SelectCore(sq) {
			sq = nil
		}
		return sq != nil
	})
	if sq == nil {
		return nil // the body of an EXISTS or an IN
	}
	if sq.Distinct != sqlast.DistinctDistinct {
		return refuse("rule", "the query counts its rows (no DISTINCT of tie-safe outputs, EXISTS or IN)")
	}
	expandOuterStars(c, sq)
	var outs []string
	for _, col := range sq.Columns {
		if !c.tieSafeThrough(col.Expr) {
			return refuse("rule", "output %s is not tie-safe: DISTINCT keeps one of the values it takes for equal", sqlast.Format(col.Expr))
		}
		outs = append(outs, sqlast.Format(stripParens(col.Expr)))
	}
	for _, o := range sq.OrderBy {
		if !slices.Contains(outs, sqlast.Format(stripParens(o.Expr))) {
			return refuse("rule", "ORDER BY %s, which is no output of the SELECT DISTINCT", sqlast.Format(o.Expr))
		}
	}
	return nil
}

// copyBlindGrouped is copyBlind for a SELECT sq with a GROUP BY (no
// HAVING, LIMIT or window): more copies of a row (at least one) leave
// the same groups, and its result the same, when every GROUP BY term is
// tie-safe (the value a group shows is any of its rows', the same value
// whichever) and every output is a GROUP BY term, a literal,
// COUNT(DISTINCT e), or MIN or MAX of a tie-safe e (the set of a group's
// values, which copies do not change, decides each); ORDER BY terms are
// outputs. calcite-225: COUNT(DISTINCT) over a RIGHT JOIN, grouped by
// the kept side's key.
func (c *Canon) copyBlindGrouped(sq *sqlast.SelectQuery) error {
	var groups []string
	for _, g := range sq.GroupBy {
		if !c.tieSafeThrough(g) {
			return refuse("rule", "GROUP BY %s is not tie-safe: a group shows one of the values it takes for equal", sqlast.Format(g))
		}
		groups = append(groups, sqlast.Format(stripParens(g)))
	}
	var outs []string
	for _, col := range sq.Columns {
		e := stripParens(col.Expr)
		outs = append(outs, sqlast.Format(e))
		if slices.Contains(groups, sqlast.Format(e)) {
			continue
		}
		switch t := e.(type) {
		case *sqlast.Literal:
			continue
		case *sqlast.FuncCall:
			if t.Filter != nil || t.Over != nil || len(t.OrderBy) > 0 || t.Star || len(t.Args) != 1 || containsAggregate(t.Args[0]) || hasWindowCall(t.Args[0]) {
				break
			}
			switch lowerASCII(t.Name.Name) {
			case "count":
				if t.Distinct {
					continue
				}
			case "min", "max":
				if c.tieSafeThrough(t.Args[0]) {
					continue
				}
			}
		}
		return refuse("rule", "output %s of a grouped query may count copies of a row (only GROUP BY terms, literals, COUNT(DISTINCT) and MIN or MAX of tie-safe values do not)", sqlast.Format(e))
	}
	for _, o := range sq.OrderBy {
		if !slices.Contains(outs, sqlast.Format(stripParens(o.Expr))) {
			return refuse("rule", "ORDER BY %s, which is no output of the grouped query", sqlast.Format(o.Expr))
		}
	}
	return nil
}

// derivedUnique is leftUnique for a FROM subquery b (t its FROM item):
// the ON's conjuncts b.ci = ei, each b.ci an output that is a column of a
// table (through FROM subqueries) of the Int or Text family and ei a
// column of that family that is not b's or a literal, cover every GROUP
// BY term of b's SELECT (one row per group: two rows differ on a bound
// column, whose values cannot both equal ei), or, without GROUP BY, every
// output of a SELECT DISTINCT; a SELECT that aggregates without GROUP BY
// is one row. Facts family.
func (c *Canon) derivedUnique(t *sqlast.TableRef, b *occurrence, facts *factSet) error {
	sub, ok := oneSelect(b.derived)
	if !ok || sub.Limit != nil || len(sub.OrderBy) > 0 {
		return refuse("rule", "the subquery %s is a compound, VALUES or has a WITH, or orders or limits", b.alias)
	}
	bound := map[int]bool{}
	var pairFacts []Fact
	for _, x := range optConjuncts(t.On) {
		be, ok := stripParens(x).(*sqlast.BinaryExpr)
		if !ok || be.Op != sqlast.OpEq {
			continue
		}
		for _, pair := range [][2]sqlast.Expr{{be.X, be.Y}, {be.Y, be.X}} {
			r, ok := stripParens(pair[0]).(*sqlast.QualifiedRef)
			if !ok || len(r.Parts) != 2 || lowerASCII(r.Parts[0].Name) != b.alias {
				continue
			}
			i := b.column(r.Parts[1].Name)
			if i < 0 || i >= len(sub.Columns) || readsAlias(pair[1], b.alias) {
				continue
			}
			bo, bi, ok := c.colOf(stripParens(c.throughDerived(sub.Columns[i].Expr)))
			if !ok {
				continue
			}
			f := c.fam(bo, bi)
			if f != Int && f != Text {
				continue
			}
			if eo, ei, ok := c.colOf(stripParens(c.throughDerived(pair[1]))); ok && c.fam(eo, ei) == f {
				bound[i] = true
				pairFacts = append(pairFacts, c.familyFact(bo, bi), c.familyFact(eo, ei))
			} else if literalOf(stripParens(pair[1]), f) {
				bound[i] = true
				pairFacts = append(pairFacts, c.familyFact(bo, bi))
			}
		}
	}
	boundText := map[string]bool{}
	for i := range bound {
		boundText[sqlast.Format(stripParens(sub.Columns[i].Expr))] = true
	}
	covered := false
	switch {
	case len(sub.GroupBy) > 0:
		covered = true
		for _, g := range sub.GroupBy {
			if _, lit := stripParens(g).(*sqlast.Literal); !lit && !boundText[sqlast.Format(stripParens(g))] {
				covered = false
			}
		}
	case sub.Distinct == sqlast.DistinctDistinct:
		covered = true
		for i, col := range sub.Columns {
			if _, lit := stripParens(col.Expr).(*sqlast.Literal); !lit && !bound[i] {
				covered = false
			}
		}
	default:
		for _, col := range sub.Columns {
			covered = covered || containsAggregate(col.Expr)
		}
		if covered {
			pairFacts = nil // one row: no comparison is relied on
		}
	}
	if !covered {
		return refuse("rule", "the ON of %s binds no set of its GROUP BY terms, DISTINCT outputs or a scalar aggregate's row to values of one family, Int or Text", b.alias)
	}
	for _, f := range pairFacts {
		facts.add(f)
	}
	return nil
}

// onlyOnReads refuses a LEFT JOIN item t of occurrence b that something
// but its ON reads (a column of b, b.* or a bare *), or whose ON may fail
// (failFree): the checks of every rule that drops b.
func (c *Canon) onlyOnReads(t *sqlast.TableRef, b *occurrence) error {
	if bareStar(b.core) {
		return refuse("rule", "SELECT * reads %s", b.alias)
	}
	if readsOutside(c, b.alias, t.On) {
		return refuse("rule", "the query reads %s outside its ON", b.alias)
	}
	if t.On != nil && !failFree(t.On, c.d) {
		return refuse("rule", "the ON of %s may fail (arithmetic, a function, CAST, LIKE or a subquery): without it the query would not", b.alias)
	}
	return nil
}

// readsAlias reports whether e reads a column of occurrence alias.
func readsAlias(e sqlast.Expr, alias string) bool {
	found := false
	sqlast.Walk(e, func(n sqlast.Node) bool {
		if r, ok := n.(*sqlast.QualifiedRef); ok && len(r.Parts) == 2 && lowerASCII(r.Parts[0].Name) == alias {
			found = true
		}
		return !found
	})
	return found
}

// failFree reports whether evaluating e raises no error on any row on
// dialect d: every node of e never fails by neverFailsNode (the reading
// ConditionRisk and FormRisk share: columns, literals, comparisons, AND,
// OR, NOT, IS, IS NULL, BETWEEN, IN a list, COLLATE, LIKE against a
// string pattern without ESCAPE, the functions of sqliteNeverFails and
// pgNeverFails; on SQLite also + - * / % and CAST, whose overflow yields a
// REAL, whose division by zero NULL and whose unreadable input 0, by
// https://sqlite.org/lang_expr.html, checked on 3.40 and by
// TestFailFreeOnSQLite; on PostgreSQL + - * of two integer literals below
// 46341), and e holds no CASE and no subquery (one that returns two rows
// fails on PostgreSQL; the rules that ask do not look inside either).
func failFree(e sqlast.Expr, d Dialect) bool {
	ok := true
	sqlast.Walk(e, func(n sqlast.Node) bool {
		x, isExpr := n.(sqlast.Expr)
		if !ok || !isExpr {
			return ok
		}
		switch t := x.(type) {
		case *sqlast.CaseExpr, *sqlast.SubqueryExpr, *sqlast.ExistsExpr:
			ok = false
		case *sqlast.InExpr:
			ok = t.Select == nil && t.Table == nil
		}
		ok = ok && neverFailsNode(x, d, nil)
		return ok
	})
	return ok
}

// stmtFailFree reports whether a FROM subquery raises no error on any
// database on dialect d: one SELECT without WITH, LIMIT or window whose
// outputs, WHERE, GROUP BY terms, HAVING and ON conditions are failFree
// and whose FROM items are tables or such subqueries.
func stmtFailFree(st *sqlast.SelectStmt, d Dialect) bool {
	sq, ok := oneSelect(st)
	if !ok || sq.Limit != nil || len(sq.Windows) > 0 {
		return false
	}
	for _, col := range sq.Columns {
		if _, star := col.Expr.(*sqlast.Star); !star && !failFree(col.Expr, d) {
			return false
		}
	}
	for _, e := range append([]sqlast.Expr{sq.Where, sq.Having}, sq.GroupBy...) {
		if e != nil && !failFree(e, d) {
			return false
		}
	}
	for _, o := range sq.OrderBy {
		if !failFree(o.Expr, d) {
			return false
		}
	}
	for _, f := range sq.From {
		if f.On != nil && !failFree(f.On, d) {
			return false
		}
		if f.Select != nil && !stmtFailFree(f.Select, d) || f.Select == nil && f.Name == nil {
			return false
		}
	}
	return true
}

// RuleDistinctLift: SELECT o1, ... FROM (SELECT DISTINCT e1 AS c1, ...,
// ek AS ck FROM F WHERE p) AS d [LEFT JOIN b1 ON q1 ...] WHERE w ORDER BY
// ... LIMIT n, whose outputs show every column of d, is SELECT DISTINCT o1,
// ... FROM (SELECT e1 AS c1, ... FROM F WHERE p) AS d [LEFT JOIN b1 ON q1
// ...] WHERE w ORDER BY ... LIMIT n (distinct_derived and derived_merge
// then go on): each LEFT JOIN meets at most one row of its bi for a row of
// what precedes it (leftUnique: a key, the groups or the distinct rows of
// bi bound by the ON, with their facts), so a row of d makes exactly one
// joined row, the same one for each copy of it, which w keeps or drops
// alike; the outputs show d's columns, whose values are tie-safe (as
// distinct_derived has them), so distinct rows of d give rows DISTINCT
// does not fold, and copies give copies, which it does. DISTINCT comes
// before ORDER BY and LIMIT in both. Not: the outer query DISTINCT
// already (distinct_derived), grouping, aggregating or with a window; d
// not its first FROM item, or another item that is not such a LEFT JOIN
// (NATURAL, USING, an inner join: several rows may meet one); a column of
// d no output shows as it is. At: d's FROM item.
const RuleDistinctLift = "distinct_lift"

func init() { rules[RuleDistinctLift] = distinctLift }

func distinctLift(c *Canon, at int, facts *factSet) error {
	t, d, sub, err := c.distinctBody(at)
	if err != nil {
		return err
	}
	outer := d.core
	if len(outer.From) == 0 || outer.From[0] != t {
		return refuse("rule", "%s is not the first item of its FROM", d.alias)
	}
	var unique factSet
	for _, item := range outer.From[1:] {
		if item.Join == nil || item.Join.Type&sqlast.JoinLeft == 0 || item.Join.Type&(sqlast.JoinRight|sqlast.JoinNatural) != 0 || len(item.Using) > 0 || item.Alias == nil {
			return refuse("rule", "a FROM item after %s that is no LEFT JOIN with ON", d.alias)
		}
		b := c.byAlias[lowerASCII(item.Alias.Name)]
		if b == nil || b.table == nil && b.derived == nil || len(b.merged) > 0 {
			return refuse("rule", "a FROM item after %s that is no LEFT JOIN of a table or a FROM subquery", d.alias)
		}
		if err := c.leftUnique(item, b, &unique); err != nil {
			return err
		}
	}
	if outer.Distinct == sqlast.DistinctDistinct || len(outer.GroupBy) > 0 || outer.Having != nil || len(outer.Windows) > 0 {
		return refuse("rule", "the query around the subquery is DISTINCT, groups or has a window")
	}
	for _, o := range outer.OrderBy {
		if containsAggregate(o.Expr) || hasWindowCall(o.Expr) {
			return refuse("rule", "the query around the subquery aggregates")
		}
	}
	expandOuterStars(c, outer)
	seen := make([]bool, len(sub.Columns))
	for _, col := range outer.Columns {
		if containsAggregate(col.Expr) || hasWindowCall(col.Expr) {
			return refuse("rule", "the query around the subquery aggregates")
		}
		if r, ok := stripParens(col.Expr).(*sqlast.QualifiedRef); ok && len(r.Parts) == 2 && lowerASCII(r.Parts[0].Name) == d.alias {
			if i := d.column(r.Parts[1].Name); i >= 0 && i < len(seen) {
				seen[i] = true
			}
		}
	}
	if slices.Contains(seen, false) {
		return refuse("rule", "the outputs do not show every column of %s", d.alias)
	}
	for _, f := range unique.list {
		facts.add(f)
	}
	sub.Distinct = sqlast.DistinctNone
	outer.Distinct = sqlast.DistinctDistinct
	return nil
}

// RuleGroupDerived: a FROM subquery (SELECT e1 AS c1, ..., ek AS ck FROM
// F WHERE p GROUP BY g1, ..., gm) AS d, without an aggregate, HAVING,
// ORDER BY, LIMIT or window, loses its GROUP BY where the query around it
// cannot tell a row of d from two of it (copyBlind, as for
// RuleDistinctDerived) and reads of d only columns whose expressions are
// GROUP BY terms (by text) and tie-safe (tieSafeThrough: two values the
// engine groups together are the same value). Each group of F's rows is
// then the same values in every column the query reads, so d without
// GROUP BY holds, for each row of d, one or more rows of those same
// values and no others (every row of F is in a group): the same rows for
// the query, in other numbers, which it cannot count. Every ei and gj must
// not fail (failFree): without GROUP BY an output is evaluated on every
// row, not on the one a group shows, and a term not at all; on
// PostgreSQL every output must be a term or a literal (it fails an
// ungrouped column, which it would not without GROUP BY). Not: a *
// output in the query around d, d NATURAL or USING (merged columns are
// read unqualified), d's SELECT a compound, VALUES, with WITH or without
// FROM. At: d's FROM item.
const RuleGroupDerived = "group_derived"

func init() { rules[RuleGroupDerived] = groupDerived }

func groupDerived(c *Canon, at int, _ *factSet) error {
	t, d, err := c.derivedAt(at)
	if err != nil {
		return err
	}
	sub, ok := oneSelect(t.Select)
	if !ok || len(sub.GroupBy) == 0 || len(sub.From) == 0 {
		return refuse("rule", "the subquery %s is no grouping SELECT with a FROM (a compound, VALUES or has a WITH)", d.alias)
	}
	if sub.Having != nil || sub.Limit != nil || len(sub.OrderBy) > 0 || len(sub.Windows) > 0 {
		return refuse("rule", "the subquery %s has HAVING, ORDER BY, LIMIT or a window", d.alias)
	}
	if t.Join != nil && t.Join.Type&sqlast.JoinNatural != 0 || len(t.Using) > 0 || len(d.merged) > 0 {
		return refuse("rule", "%s is joined NATURAL or with USING", d.alias)
	}
	var terms []string
	for _, g := range sub.GroupBy {
		if !failFree(g, c.d) {
			return refuse("rule", "GROUP BY term %s may fail: without the GROUP BY it is not evaluated", sqlast.Format(g))
		}
		terms = append(terms, sqlast.Format(stripParens(g)))
	}
	outs := map[string]sqlast.Expr{}
	for _, col := range sub.Columns {
		if _, star := col.Expr.(*sqlast.Star); star || col.Alias == nil {
			return refuse("rule", "a * or unnamed output of the subquery %s", d.alias)
		}
		if containsAggregate(col.Expr) || hasWindowCall(col.Expr) || !failFree(col.Expr, c.d) {
			return refuse("rule", "output %s of the subquery %s aggregates or may fail", sqlast.Format(col.Expr), d.alias)
		}
		if _, lit := stripParens(col.Expr).(*sqlast.Literal); c.d == Postgres && !lit && !slices.Contains(terms, sqlast.Format(stripParens(col.Expr))) {
			// PostgreSQL fails a column neither grouped nor of a
			// grouped key's table; without GROUP BY it would not.
			return refuse("rule", "output %s of the subquery %s is no GROUP BY term: PostgreSQL may fail it", sqlast.Format(col.Expr), d.alias)
		}
		outs[lowerASCII(col.Alias.Name)] = col.Expr
	}
	if err := c.copyBlind(d.core); err != nil {
		return err
	}
	for _, col := range d.core.Columns {
		if _, star := col.Expr.(*sqlast.Star); star {
			return refuse("rule", "a * output in the query around %s", d.alias)
		}
	}
	sqlast.Walk(c.Stmt, func(n sqlast.Node) bool {
		r, ok := n.(*sqlast.QualifiedRef)
		if !ok || len(r.Parts) != 2 || lowerASCII(r.Parts[0].Name) != d.alias || err != nil {
			return err == nil
		}
		x, ok := outs[lowerASCII(r.Parts[1].Name)]
		switch {
		case !ok:
			err = refuse("rule", "%s reads no output of %s", sqlast.Format(r), d.alias)
		case !slices.Contains(terms, sqlast.Format(stripParens(x))):
			err = refuse("rule", "%s reads %s, which is no GROUP BY term: a group shows the value of a row the engine picks", sqlast.Format(r), sqlast.Format(x))
		case !c.tieSafeThrough(x):
			err = refuse("rule", "%s reads %s, which is not tie-safe: a group shows one of the values it takes for equal", sqlast.Format(r), sqlast.Format(x))
		}
		return err == nil
	})
	if err != nil {
		return err
	}
	sub.GroupBy = nil
	return nil
}
