package check

import "github.com/sqljudge/sqljudge/internal/sqlast"

// The affinity and the collation of an expression, as SQLite reads them
// (sqlite3ExprAffinity, sqlite3ExprCollSeq): what a comparison of the
// expression with another converts and compares it by. Two subqueries
// that return the same values but under different affinities or
// collations compare differently against the same x (x IN (SELECT y)
// against x IN (SELECT +y)), so a pair of IN or scalar subqueries must
// agree on both.

// exprKind is the affinity and collation of a canonical expression of c,
// "" for the collation when it is BINARY; ok is false for an expression
// whose affinity the kernel does not read (a column of a FROM subquery).
func (c *Canon) exprKind(e sqlast.Expr) (aff Affinity, coll string, ok bool) {
	switch t := e.(type) {
	case *sqlast.ParenExpr:
		return c.exprKind(t.X)
	case *sqlast.CollateExpr:
		aff, _, ok := c.exprKind(t.X)
		coll := lowerASCII(t.Name.Name)
		if coll == "binary" {
			coll = ""
		}
		return aff, coll, ok
	case *sqlast.UnaryExpr:
		if t.Op == sqlast.OpPlus {
			_, coll, ok := c.exprKind(t.X) // +x keeps x's collation, not its affinity
			return AffinityNone, coll, ok
		}
	case *sqlast.CastExpr:
		_, coll, ok := c.exprKind(t.X)
		return AffinityOf(t.Type.Name), coll, ok
	case *sqlast.QualifiedRef:
		o, i, found := c.colOf(t)
		if !found {
			return 0, "", false
		}
		col := o.table.Columns[i]
		coll := lowerASCII(col.Collation)
		if coll == "binary" {
			coll = ""
		}
		if c.d != SQLite {
			return AffinityNone, coll, true
		}
		return col.affinity(), coll, true
	case *sqlast.SubqueryExpr:
		first := t.Select.Cores[0]
		if sq, isSelect := first.(*sqlast.SelectQuery); isSelect && len(sq.Columns) > 0 {
			if _, star := sq.Columns[0].Expr.(*sqlast.Star); !star {
				return c.exprKind(sq.Columns[0].Expr)
			}
		}
		return 0, "", false
	}
	// Any other expression has no affinity, and no collation unless a
	// COLLATE inside it lends one (sqlite3ExprCollSeq follows EP_Collate
	// into operands and a CASE's terms): not read.
	return AffinityNone, "", !holdsCollate(e)
}

// sameKinds refuses two subqueries (IN or scalar) whose outputs differ in
// affinity or collation.
func (k *kernel) sameKinds(b1, b2 *block) error {
	o1, o2 := firstBranch(b1).outputs, firstBranch(b2).outputs
	for i := range o1 {
		if i >= len(o2) {
			break
		}
		a1, c1, ok1 := k.c1.exprKind(o1[i])
		a2, c2, ok2 := k.c2.exprKind(o2[i])
		if !ok1 || !ok2 || a1 != a2 || c1 != c2 {
			return refuse("affinity", "output %d of a subquery has affinity %s and collation %q on one side, %s and %q on the other: a comparison with it converts and compares differently", i+1, a1, c1, a2, c2)
		}
	}
	return nil
}

// firstBranch is b, or its first branch for a compound (whose outputs
// give the compound's affinities and collations).
func firstBranch(b *block) *block {
	for !b.simple() {
		b = b.branches[0]
	}
	return b
}
