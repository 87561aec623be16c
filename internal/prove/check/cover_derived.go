package check

import (
	"github.com/sqljudge/sqljudge/internal/sqlast"
)

// coverReading is the query ConditionCover encodes: sql with its common
// table expressions inlined (RuleInlineCTE) and then, up to three times,
// the FROM subqueries of its top-level SELECTs merged into them
// (flattenDerived), read over s with aliases t1, t2, ... as
// canonicalizeForCover reads it. Neither step
// claims the query unchanged (a grouped subquery's HAVING becomes the
// query's, a DISTINCT of the subquery is lost): the goals only aim the
// search's rows at the conditions a subquery holds, and every database
// they give is run as it is. The original's canonical form is returned
// where a step is refused or its result does not read.
func coverReading(sql string, s Schema) (*Canon, error) {
	if inlined, err := inlineCTE(sql, s, true); err == nil {
		sql = inlined
	}
	c, err := canonicalizeForCover(sql, s)
	if err != nil {
		return nil, err
	}
	for range 3 {
		if !flattenDerived(c) {
			return c, nil
		}
		flat, err := canonicalizeForCover(sqlast.Format(c.Stmt), s)
		if err != nil {
			return canonicalizeForCover(sql, s)
		}
		c = flat
	}
	return c, nil
}

// flattenDerived merges into each top-level SELECT of c (changing c.Stmt,
// whose occurrences are then stale) its first FROM subquery of one
// SELECT without LIMIT, in a FROM of inner joins on both sides: the
// subquery's tables join the FROM by commas, every ON, its WHERE and the
// SELECT's go to the WHERE, each d.cK becomes the subquery's K-th output
// (a WHERE conjunct that so reads an aggregate goes to HAVING), and its
// GROUP BY and HAVING become the SELECT's when the SELECT neither groups
// nor aggregates. It reports whether it merged one.
func flattenDerived(c *Canon) bool {
	merged := false
	for _, core := range c.Stmt.Cores {
		sq, ok := core.(*sqlast.SelectQuery)
		if !ok || outerJoined(sq) {
			continue
		}
		for _, t := range sq.From {
			if t.Select == nil || t.Alias == nil || len(t.Select.Cores) != 1 || t.Select.With != nil {
				continue
			}
			sub, ok := t.Select.Cores[0].(*sqlast.SelectQuery)
			if !ok || sub.Limit != nil || len(sub.From) == 0 || outerJoined(sub) {
				continue
			}
			grouped := groups(sub)
			if grouped && groups(sq) {
				continue
			}
			flattenInto(sq, t, sub, grouped)
			merged = true
			break
		}
	}
	return merged
}

// outerJoined reports whether a FROM item of sq is joined by an outer
// join.
func outerJoined(sq *sqlast.SelectQuery) bool {
	for _, item := range sq.From {
		if item.Join != nil && item.Join.Type&(sqlast.JoinLeft|sqlast.JoinRight) != 0 {
			return true
		}
	}
	return false
}

// flattenInto merges FROM subquery t (its SELECT sub) into sq.
func flattenInto(sq *sqlast.SelectQuery, t *sqlast.TableRef, sub *sqlast.SelectQuery, grouped bool) {
	alias := lowerASCII(t.Alias.Name)
	outputs := map[string]sqlast.Expr{}
	for _, col := range sub.Columns {
		if col.Alias != nil {
			outputs[lowerASCII(col.Alias.Name)] = col.Expr
		}
	}
	subst := func(e sqlast.Expr) sqlast.Expr {
		r, ok := e.(*sqlast.QualifiedRef)
		if !ok || len(r.Parts) != 2 || lowerASCII(r.Parts[0].Name) != alias {
			return e
		}
		x, ok := outputs[lowerASCII(r.Parts[1].Name)]
		if !ok {
			return e
		}
		x = cloneExpr(x)
		if !atomic(x) {
			x = &sqlast.ParenExpr{X: x}
		}
		return x
	}
	conds := commaFromWithout(sq, t, sub.From...)
	sq.Where = andAll(append(append(conds, optConjuncts(sub.Where)...), optConjuncts(sq.Where)...))
	if grouped {
		sq.GroupBy, sq.Having = sub.GroupBy, andAll(append(optConjuncts(sub.Having), optConjuncts(sq.Having)...))
	}
	sqlast.Rewrite(sq, subst)
	var where []sqlast.Expr
	having := optConjuncts(sq.Having)
	for _, x := range optConjuncts(sq.Where) {
		if containsAggregate(x) {
			having = append(having, x)
		} else {
			where = append(where, x)
		}
	}
	sq.Where, sq.Having = andAll(where), andAll(having)
}
