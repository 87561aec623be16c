package check

import (
	"slices"

	"github.com/sqljudge/sqljudge/internal/sqlast"
)

// RuleDerivedCompound: a compound FROM subquery read by a SELECT of the
// top-level statement joins that statement's compound. Two forms:
//
//   - SELECT o1, … FROM (B1 UNION ALL B2 …) AS d, as the statement or one
//     of its branches joined by UNION ALL only, is SELECT o1[B1], … FROM …
//     UNION ALL SELECT o1[B2], … FROM …: each oi is a column of d (the
//     branch's output at its position) or a constant (a literal, or a
//     CAST of one: it reads no row, so each branch gives the value the
//     projection gave), and a bag union of the branches' projections is
//     the projection of their bag union;
//   - SELECT DISTINCT o1, … FROM (B1 UNION ALL B2 …) AS d, the whole
//     statement, is SELECT o1[B1], … FROM … UNION SELECT o1[B2], … FROM …:
//     the set of a bag union's projected rows is the union of the sets,
//     when the branches' columns under each projected output are tie-safe
//     columns of one affinity (DISTINCT and UNION each keep the first of
//     the values they take for equal: an INTEGER 1 and a REAL 1.0);
//   - SELECT * FROM (B1 op1 B2 …) AS d op C …, d the first branch, the
//     outputs d's columns in order, is B1 op1 B2 … op C …: SQLite reads a
//     compound from left to right, every operator of one precedence
//     (lang_select.html, "Compound Select Statements"), so (B1 op1 B2) op
//     C is B1 op1 B2 op C. SQLite only: PostgreSQL reads INTERSECT first.
//
// On SQLite each column of d read must keep its values through d
// (compoundColumnKept: SQLite converts them to the column's affinity).
// The values come out as the branches give them, so only the result's
// values are read: the SELECT must be a branch of the statement itself
// (an IN or scalar subquery would compare them under the compound's
// affinity). Not: a WHERE, GROUP BY, HAVING, DISTINCT, ORDER BY, LIMIT
// or window around d, another FROM item, an ORDER BY or LIMIT in d's
// compound, a VALUES branch, a * branch under a projection, a WITH. At:
// d's FROM item.
const RuleDerivedCompound = "derived_compound"

func init() { rules[RuleDerivedCompound] = derivedCompound }

func derivedCompound(c *Canon, at int, _ *factSet) error {
	t, d, err := c.derivedAt(at)
	if err != nil {
		return err
	}
	body := t.Select
	if len(body.Cores) < 2 || body.With != nil {
		return refuse("rule", "no compound FROM subquery at %d", at)
	}
	outer := d.core
	top := c.Stmt
	k := slices.Index(top.Cores, sqlast.SelectCore(outer))
	if k < 0 || top.With != nil {
		return refuse("rule", "the SELECT around the subquery is no branch of the statement")
	}
	if len(outer.From) != 1 || outer.Where != nil || len(outer.GroupBy) > 0 || outer.Having != nil || len(outer.Windows) > 0 ||
		len(outer.OrderBy) > 0 || outer.Limit != nil {
		return refuse("rule", "the SELECT around the subquery joins, filters, groups, orders, limits or has a window")
	}
	distinct := outer.Distinct == sqlast.DistinctDistinct
	if distinct && (len(top.Cores) > 1 || !allUnionAll(body.Ops)) {
		return refuse("rule", "SELECT DISTINCT around a compound other than UNION ALL, or beside other branches")
	}
	var branches []*sqlast.SelectQuery
	for _, core := range body.Cores {
		b, ok := core.(*sqlast.SelectQuery)
		if !ok || len(b.OrderBy) > 0 || b.Limit != nil {
			return refuse("rule", "the compound has a VALUES branch, ORDER BY or LIMIT")
		}
		expandOuterStars(c, b)
		branches = append(branches, b)
	}
	width := len(branches[0].Columns)
	for _, b := range branches {
		if len(b.Columns) != width {
			return refuse("rule", "branches of the compound give different numbers of columns")
		}
	}
	expandOuterStars(c, outer)
	// proj[i]: the position in d of output i, or -1 for a constant.
	proj := make([]int, len(outer.Columns))
	identity := len(outer.Columns) == width
	for i, col := range outer.Columns {
		proj[i] = -1
		switch e := stripParens(col.Expr).(type) {
		case *sqlast.Literal:
		case *sqlast.CastExpr:
			// CAST(1 AS INTEGER), Calcite's spelling of a constant
			// column: one value on every row, whichever branch gives it.
			if _, ok := stripParens(e.X).(*sqlast.Literal); !ok {
				return refuse("rule", "output %s is neither a column of %s nor a constant", sqlast.Format(col.Expr), d.alias)
			}
		case *sqlast.QualifiedRef:
			if len(e.Parts) != 2 || lowerASCII(e.Parts[0].Name) != d.alias {
				return refuse("rule", "output %s reads no column of %s", sqlast.Format(e), d.alias)
			}
			j := d.column(e.Parts[1].Name)
			if j < 0 || j >= width {
				return refuse("rule", "output %s is no column of %s", sqlast.Format(e), d.alias)
			}
			proj[i] = j
		default:
			return refuse("rule", "output %s is neither a column of %s nor a constant", sqlast.Format(col.Expr), d.alias)
		}
		identity = identity && proj[i] == i
	}
	if !allUnionAll(body.Ops) || !allUnionAll(top.Ops) {
		if !identity || k != 0 || c.d != SQLite {
			return refuse("rule", "an operator other than UNION ALL, and the subquery is not the statement's first branch read whole on SQLite")
		}
	}
	if c.d == SQLite {
		for _, j := range proj {
			if j < 0 {
				continue
			}
			if err := c.compoundColumnKept(branches, j); err != nil {
				return err
			}
		}
	}
	if !identity || distinct {
		for _, b := range branches {
			for _, col := range b.Columns {
				if _, star := col.Expr.(*sqlast.Star); star || len(b.Columns) != width {
					return refuse("rule", "a * branch of the compound under a projection")
				}
			}
		}
		for i, j := range proj {
			if !distinct || j < 0 {
				continue
			}
			var xs []sqlast.Expr
			for _, b := range branches {
				xs = append(xs, b.Columns[j].Expr)
			}
			if !c.branchesTieSafe(xs) {
				return refuse("rule", "SELECT DISTINCT of output %d, whose values in the branches are not tie-safe columns of one affinity", i+1)
			}
		}
		for _, b := range branches {
			if err := projectionKeepsRows(b, proj, distinct); err != nil {
				return err
			}
		}
		for _, b := range branches {
			cols := make([]*sqlast.ResultColumn, len(proj))
			for i, j := range proj {
				x := outer.Columns[i].Expr
				if j >= 0 {
					x = b.Columns[j].Expr
				}
				cols[i] = &sqlast.ResultColumn{Expr: cloneExpr(x), Alias: outer.Columns[i].Alias}
			}
			b.Columns = cols
		}
	}
	// The statement's other branches spell out their * (the canonical
	// form counts a compound's columns as written).
	for _, core := range top.Cores {
		if sq, ok := core.(*sqlast.SelectQuery); ok && sq != outer {
			expandOuterStars(c, sq)
		}
	}
	if !allUnionAll(body.Ops) || !allUnionAll(top.Ops) {
		if err := c.spliceCollations(slices.Concat(top.Cores[:k], body.Cores, top.Cores[k+1:]), width); err != nil {
			return err
		}
	}
	cores := slices.Concat(top.Cores[:k], body.Cores, top.Cores[k+1:])
	ops := slices.Concat(top.Ops[:k], body.Ops, top.Ops[k:])
	if distinct {
		// SELECT DISTINCT of a bag union is the set union.
		for i := range ops {
			ops[i].All = false
		}
	}
	top.Cores, top.Ops = cores, ops
	return nil
}

// compoundColumnKept refuses column j of a compound FROM subquery on
// SQLite unless reading it through the subquery keeps every branch's
// values as they are. SQLite gives the column an affinity
// (sqlite3SubqueryColumnTypes in select.c, 3.54: the affinity of the
// first branch, in order, whose expression has one, made BLOB where
// another branch may give a value of the other kind, text or number) and
// converts each value to it as the subquery's rows are made: SELECT d.b
// FROM (SELECT b FROM t UNION ALL SELECT 9223372036854775807) AS d, b
// REAL, gives 9.223372036854776e+18 where the UNION ALL alone gives the
// integer (the soundness fuzzer's union_derive found it), and so does
// SELECT d.b FROM (SELECT 9223372036854775807 UNION ALL SELECT b FROM
// t) AS d. Kept: no branch's expression has an affinity, or the first
// that has one has BLOB's (nothing is converted), or every branch's
// expression is a column of a base table of that one affinity (its
// values were stored converted to it already, and converting them again
// changes nothing).
func (c *Canon) compoundColumnKept(branches []*sqlast.SelectQuery, j int) error {
	var xs []sqlast.Expr
	var affs []Affinity
	var stored []bool
	first := -1
	for _, b := range branches {
		if j >= len(b.Columns) {
			return refuse("rule", "a branch of the compound whose columns the kernel does not read")
		}
		x := b.Columns[j].Expr
		if _, star := x.(*sqlast.Star); star {
			return refuse("rule", "a * branch of the compound: its columns' affinities are not read")
		}
		a, _, ok := c.exprKind(x)
		sa, isStored := c.storedColumn(x, 4)
		if isStored {
			a, ok = sa, true
		}
		if !ok {
			return refuse("rule", "column %d of the compound has an affinity the kernel does not read", j+1)
		}
		if first < 0 && a != AffinityNone {
			first = len(xs)
		}
		xs, affs, stored = append(xs, x), append(affs, a), append(stored, isStored)
	}
	if first < 0 || affs[first] == AffinityBlob {
		return nil
	}
	for i, x := range xs {
		if !stored[i] || affs[i] != affs[first] {
			return refuse("rule", "column %d of the compound: SQLite converts a branch's value %s to the affinity of %s", j+1, sqlast.Format(x), sqlast.Format(xs[first]))
		}
	}
	return nil
}

// projectionKeepsRows refuses to project branch b onto the columns proj
// (-1: a literal) where that changes the rows it gives: a SELECT DISTINCT
// (the projection of distinct rows may repeat; set: the rows are taken as
// a set anyway, in the DISTINCT form), or a SELECT without GROUP BY that
// aggregates only in the outputs the projection drops (SELECT 7,
// count(*) FROM t gives one row on an empty t, SELECT 7 FROM t none: the
// soundness fuzzer's union_derive found it).
func projectionKeepsRows(b *sqlast.SelectQuery, proj []int, set bool) error {
	if b.Distinct == sqlast.DistinctDistinct && !set {
		return refuse("rule", "a SELECT DISTINCT branch under a projection")
	}
	if len(b.GroupBy) > 0 {
		return nil
	}
	aggregated := func(cols []sqlast.Expr) bool {
		if b.Having != nil && containsAggregate(b.Having) {
			return true
		}
		for _, x := range cols {
			if containsAggregate(x) {
				return true
			}
		}
		return false
	}
	var all, kept []sqlast.Expr
	for _, col := range b.Columns {
		all = append(all, col.Expr)
	}
	for _, j := range proj {
		if j >= 0 {
			kept = append(kept, b.Columns[j].Expr)
		}
	}
	if aggregated(all) != aggregated(kept) {
		return refuse("rule", "the projection drops every aggregate of a branch without GROUP BY (its one row would become a row for each row of its FROM)")
	}
	return nil
}

// storedColumn reports whether x is a column whose values are those a
// column of affinity aff stores (already converted to aff): a column of
// a base table, or a column of a FROM subquery (depth levels deep at
// most) whose every branch gives such a column of that one affinity
// (SQLite converts them to aff or to BLOB's, which changes nothing).
func (c *Canon) storedColumn(x sqlast.Expr, depth int) (aff Affinity, ok bool) {
	r, isRef := stripParens(x).(*sqlast.QualifiedRef)
	if !isRef || len(r.Parts) != 2 || depth == 0 {
		return 0, false
	}
	if o, _, isCol := c.colOf(r); isCol && o.table != nil {
		a, _, ok := c.exprKind(r)
		return a, ok
	}
	o := c.byAlias[lowerASCII(r.Parts[0].Name)]
	if o == nil || o.derived == nil {
		return 0, false
	}
	i := slices.Index(o.cols, lowerASCII(r.Parts[1].Name))
	if i < 0 {
		return 0, false
	}
	for k, core := range o.derived.Cores {
		sq, isSelect := core.(*sqlast.SelectQuery)
		if !isSelect || i >= len(sq.Columns) {
			return 0, false
		}
		a, stored := c.storedColumn(sq.Columns[i].Expr, depth-1)
		if !stored || k > 0 && a != aff {
			return 0, false
		}
		aff = a
	}
	return aff, true
}

// spliceCollations refuses the splice of a compound FROM subquery into
// the statement (cores, after it) unless every branch gives each column
// the same collation. A compound compares column j by the collation of
// its leftmost branch that has one (multiSelectCollSeq in select.c): the
// statement read d's column, whose collation SQLite took from d's own
// branches, and read spliced it meets the branches one by one (SELECT *
// FROM (SELECT '1' … EXCEPT SELECT c …) AS d UNION SELECT c … compares by
// d's column where the splice compares by the first NOCASE c it meets:
// TestDerivedCompoundOnSQLite).
func (c *Canon) spliceCollations(cores []sqlast.SelectCore, width int) error {
	for j := range width {
		var first string
		for i, core := range cores {
			sq, ok := core.(*sqlast.SelectQuery)
			if !ok || j >= len(sq.Columns) {
				return refuse("rule", "a branch of the statement whose columns the kernel does not read")
			}
			if _, star := sq.Columns[j].Expr.(*sqlast.Star); star {
				return refuse("rule", "a * branch of the statement")
			}
			_, coll, ok := c.exprKind(sq.Columns[j].Expr)
			if !ok || i > 0 && coll != first {
				return refuse("rule", "column %d of the compound has different collations in its branches (or one the kernel does not read)", j+1)
			}
			first = coll
		}
	}
	return nil
}

// allUnionAll reports whether every operator is UNION ALL.
func allUnionAll(ops []sqlast.CompoundOp) bool {
	for _, op := range ops {
		if op.Op != "UNION" || !op.All {
			return false
		}
	}
	return true
}
