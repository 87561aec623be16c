package check

import (
	"slices"

	"github.com/sqljudge/sqljudge/internal/sqlast"
)

// RuleLeftToInner: FROM ... LEFT JOIN b ON c ... WHERE p, with a
// top-level conjunct of p that is never TRUE when a column of b it reads
// as an operand is NULL (a comparison =, <>, <, <=, >, >= of it, IN a
// list, BETWEEN, IS NOT NULL, LIKE or GLOB of it), is the same query
// with JOIN for LEFT JOIN: the row the outer join adds for a left row
// without a match holds NULL in every column of b, so the WHERE drops
// it (and every row later joins make of it), and what is left are the
// rows of the inner join. Not: IS NULL, IS [NOT] DISTINCT FROM, COALESCE
// or any function of the column, NOT, OR (a branch may be TRUE on
// NULL), a conjunct of an ON or of HAVING. At: b's FROM item (a table).
const RuleLeftToInner = "left_to_inner"

// RuleLeftJoinElim: FROM ... LEFT JOIN b ON c ..., where nothing but c
// reads b and c has top-level conjuncts b.k1 = e1, ..., b.kn = en that
// cover a key (PRIMARY KEY or UNIQUE, never a partial index) of b, each
// ei a column of another table (fixed for the left row) or a literal,
// ei and b.ki of one family, Int or Text (so = is identity, the
// comparison the key is enforced with), is the query without b: each
// left row matches at most one row of b (= is never TRUE on NULL, so
// rows whose key holds NULL, which a UNIQUE key may repeat, match
// nothing), and the outer join keeps it exactly once either way. b may
// also be a FROM subquery, whose rows are one per group: c's conjuncts
// b.ci = ei (b.ci an output that is a column of the Int or Text family,
// through FROM subqueries) then cover every GROUP BY term of its SELECT,
// or every output of a SELECT DISTINCT, or the SELECT aggregates without
// GROUP BY (one row); the subquery must not fail (failFree: a column, a
// literal, a comparison, AND, OR, NOT, IS, BETWEEN, IN a list, an
// aggregate cannotFail takes; no LIMIT, ORDER BY, window or WITH). c must
// not fail either (failFree): without b the query would not. At: b's FROM
// item (a table or a FROM subquery).
const RuleLeftJoinElim = "left_join_elim"

func init() {
	rules[RuleLeftToInner] = leftToInner
	rules[RuleLeftJoinElim] = leftJoinElim
}

// leftItem returns the LEFT JOIN of a table at offset at and its
// occurrence.
func leftItem(c *Canon, at int) (*sqlast.TableRef, *occurrence, error) {
	t, ok := nodeAt[*sqlast.TableRef](c, at)
	if !ok || t.Alias == nil || t.Join == nil || t.Join.Type&sqlast.JoinLeft == 0 || t.Join.Type&sqlast.JoinRight != 0 || t.Name == nil {
		return nil, nil, refuse("rule", "no LEFT JOIN of a table at %d", at)
	}
	b := c.byAlias[lowerASCII(t.Alias.Name)]
	if b == nil || b.table == nil || b.core == nil {
		return nil, nil, refuse("rule", "no LEFT JOIN of a table at %d", at)
	}
	return t, b, nil
}

// leftAny returns the LEFT JOIN of a table or of a FROM subquery at
// offset at and its occurrence.
func leftAny(c *Canon, at int) (*sqlast.TableRef, *occurrence, error) {
	t, ok := nodeAt[*sqlast.TableRef](c, at)
	if !ok || t.Alias == nil || t.Join == nil || t.Join.Type&sqlast.JoinLeft == 0 || t.Join.Type&sqlast.JoinRight != 0 || t.Name == nil && t.Select == nil || t.HasArgs {
		return nil, nil, refuse("rule", "no LEFT JOIN of a table or a FROM subquery at %d", at)
	}
	b := c.byAlias[lowerASCII(t.Alias.Name)]
	if b == nil || b.table == nil && b.derived == nil || b.core == nil {
		return nil, nil, refuse("rule", "no LEFT JOIN of a table or a FROM subquery at %d", at)
	}
	return t, b, nil
}

func leftToInner(c *Canon, at int, _ *factSet) error {
	t, b, err := leftItem(c, at)
	if err != nil {
		return err
	}
	sq := b.core
	if sq.Where == nil {
		return refuse("rule", "no WHERE")
	}
	rejects := false
	for _, x := range conjuncts(sq.Where) {
		for _, op := range nullRejectedOperands(x) {
			if o, _, ok := c.colOf(op); ok && o == b {
				rejects = true
			}
		}
	}
	if !rejects {
		return refuse("rule", "no conjunct of the WHERE rejects a NULL column of %s", b.alias)
	}
	t.Join.Type, t.Join.Words = sqlast.JoinInner, []string{"JOIN"}
	if t.On == nil {
		t.Join.Type, t.Join.Words = sqlast.JoinInner|sqlast.JoinComma, nil
	}
	return nil
}

// nullRejectedOperands returns the operands of condition e that are not
// NULL wherever e is TRUE: nullRejected's, and x of x [NOT] LIKE or GLOB
// (SQLite's like() and glob() and PostgreSQL's LIKE return NULL on a
// NULL operand).
func nullRejectedOperands(e sqlast.Expr) []sqlast.Expr {
	if l, ok := e.(*sqlast.LikeExpr); ok && l.Op != nil {
		switch lowerASCII(l.Op.Name) {
		case "like", "glob":
			return []sqlast.Expr{l.X}
		}
		return nil
	}
	return nullRejected(e)
}

func leftJoinElim(c *Canon, at int, facts *factSet) error {
	t, b, err := leftAny(c, at)
	if err != nil {
		return err
	}
	if err := c.onlyOnReads(t, b); err != nil {
		return err
	}
	if b.derived != nil && !stmtFailFree(b.derived, c.d) {
		return refuse("rule", "the subquery %s may fail: without it the query would not", b.alias)
	}
	if err := c.leftUnique(t, b, facts); err != nil {
		return err
	}
	sq := b.core
	sq.From = slices.DeleteFunc(sq.From, func(x *sqlast.TableRef) bool { return x == t })
	return nil
}

// leftUnique refuses a LEFT JOIN item t of occurrence b on which a row of
// the left side may meet two rows of b: for a table, its ON has top-level
// conjuncts b.ki = ei covering a key of b, each ei a column of another
// table or a literal, of b.ki's family, Int or Text (facts key, family);
// for a FROM subquery, derivedUnique's conditions.
func (c *Canon) leftUnique(t *sqlast.TableRef, b *occurrence, facts *factSet) error {
	if b.derived != nil {
		return c.derivedUnique(t, b, facts)
	}
	var on []sqlast.Expr
	if t.On != nil {
		on = conjuncts(t.On)
	}
	fs, ok := c.boundKey(b, on, func(eo *occurrence) bool { return eo != b && eo.table != nil })
	if !ok {
		return refuse("rule", "the ON of %s binds no key of it to a value of one family, Int or Text", b.alias)
	}
	for _, f := range fs {
		facts.add(f)
	}
	return nil
}

// boundKey reports whether the top-level conjuncts conds bind a key of
// table occurrence b: each key column b.k by a conjunct b.k = e, e a
// literal or a column of an occurrence from (by from) of b.k's family,
// Int or Text; with the facts that show it (key, family). Then a row of
// the other occurrences meets at most one row of b.
func (c *Canon) boundKey(b *occurrence, conds []sqlast.Expr, from func(*occurrence) bool) ([]Fact, bool) {
	bound := map[int]bool{}
	var pairFacts []Fact
	for _, x := range conds {
		be, ok := x.(*sqlast.BinaryExpr)
		if !ok || be.Op != sqlast.OpEq {
			continue
		}
		for _, pair := range [][2]sqlast.Expr{{be.X, be.Y}, {be.Y, be.X}} {
			bo, bi, ok := c.colOf(pair[0])
			if !ok || bo != b {
				continue
			}
			f := c.fam(b, bi)
			if f != Int && f != Text {
				continue
			}
			if eo, ei, ok := c.colOf(pair[1]); ok && from(eo) && c.fam(eo, ei) == f {
				bound[bi] = true
				pairFacts = append(pairFacts, c.familyFact(b, bi), c.familyFact(eo, ei))
			} else if literalOf(pair[1], f) {
				bound[bi] = true
				pairFacts = append(pairFacts, c.familyFact(b, bi))
			}
		}
	}
	for _, k := range b.table.Keys {
		all := len(k.Cols) > 0
		for _, i := range k.Cols {
			all = all && bound[i]
		}
		if !all {
			continue
		}
		var cols []string
		for _, i := range k.Cols {
			cols = append(cols, b.table.Columns[i].Name)
		}
		return append([]Fact{{Fact: FactKey, Table: b.table.Name, Columns: cols}}, pairFacts...), true
	}
	return nil, false
}

// readsOutside reports whether c's query reads occurrence alias (a
// column or alias.*) anywhere but in except.
func readsOutside(c *Canon, alias string, except sqlast.Expr) bool {
	reads := false
	sqlast.Walk(c.Stmt, func(n sqlast.Node) bool {
		if except != nil && n == sqlast.Node(except) {
			return false
		}
		switch r := n.(type) {
		case *sqlast.QualifiedRef:
			reads = reads || len(r.Parts) == 2 && lowerASCII(r.Parts[0].Name) == alias
		case *sqlast.Star:
			reads = reads || r.Table != nil && lowerASCII(r.Table.Name) == alias
		}
		return !reads
	})
	return reads
}
