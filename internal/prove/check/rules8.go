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
//     branch's output at its position) or a literal, and a bag union of
//     the branches' projections is the projection of their bag union;
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
	t, ok := nodeAt[*sqlast.TableRef](c, at)
	if !ok || t.Select == nil || t.Alias == nil {
		return refuse("rule", "no FROM subquery at %d", at)
	}
	d := c.byAlias[lowerASCII(t.Alias.Name)]
	body := t.Select
	if d == nil || d.derived == nil || len(body.Cores) < 2 || body.With != nil {
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
		branches = append(branches, b)
	}
	width := len(branches[0].Columns)
	expandOuterStars(c, outer)
	// proj[i]: the position in d of output i, or -1 for a literal.
	proj := make([]int, len(outer.Columns))
	identity := len(outer.Columns) == width
	for i, col := range outer.Columns {
		proj[i] = -1
		switch e := stripParens(col.Expr).(type) {
		case *sqlast.Literal:
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
			return refuse("rule", "output %s is neither a column of %s nor a literal", sqlast.Format(col.Expr), d.alias)
		}
		identity = identity && proj[i] == i
	}
	if !allUnionAll(body.Ops) || !allUnionAll(top.Ops) {
		if !identity || k != 0 || c.d != SQLite {
			return refuse("rule", "an operator other than UNION ALL, and the subquery is not the statement's first branch read whole on SQLite")
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

// allUnionAll reports whether every operator is UNION ALL.
func allUnionAll(ops []sqlast.CompoundOp) bool {
	for _, op := range ops {
		if op.Op != "UNION" || !op.All {
			return false
		}
	}
	return true
}
