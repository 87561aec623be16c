package check

import (
	"github.com/sqljudge/sqljudge/internal/sqlast"
)

// NATURAL JOIN and JOIN ... USING, read as SQLite reads them (select.c,
// sqlite3ProcessJoin; resolve.c, lookupName; lang_select.html, "If there
// is a USING clause then each of the column names specified must exist in
// the datasets to both the left and right of the join-operator. For each
// pair of named columns, the expression "lhs.X = rhs.X" is evaluated for
// each row of the cartesian product as a boolean expression"; a NATURAL
// join is one with a USING clause listing every column name the right
// item shares with the items to its left):
//
//   - the join becomes JOIN (or LEFT JOIN) ... ON l.x = r.x AND ..., the
//     left item's column first, as SQLite writes the comparison (its
//     affinity and collation are then the ordinary ones of l.x = r.x);
//   - an unqualified x names the left item's column: SQLite's lookupName
//     skips the right item's x when a column of that name was found
//     already ("An INNER or LEFT JOIN. Use the left-most table").
//
// Refused (fail closed): PostgreSQL (its merged column is the left one
// cast to the two columns' common type: a value of another type), a
// RIGHT or FULL join, a name that no item or more than one item to the
// left has (SQLite's "ambiguous reference"), a right item with two
// columns of the name, a NATURAL join with no common column, a USING
// that lists a name twice, any item of the scope that is a FROM subquery
// with an output the kernel cannot name (an expression without an
// alias: SQLite names it by its text, which could meet a column's name;
// a second output of one name, which SQLite renames "a:1"),
// and a * in the SELECT whose FROM has such a join (SQLite leaves the
// right item's merged columns out of it).

// mergeable checks, before the right item t of a NATURAL or USING join
// is read, what the reading refuses whatever the items' columns are.
func (cz *canonicalizer) mergeable(t *sqlast.TableRef, sc *scope) error {
	what := "USING"
	if t.Join.Type&sqlast.JoinNatural != 0 {
		what = "NATURAL JOIN"
	}
	switch {
	case cz.schema.Dialect() != SQLite && !cz.cover:
		return refuse(what, "on PostgreSQL (the merged column takes the two columns' common type)")
	case t.On != nil:
		return refuse(what, "with an ON clause")
	case len(sc.occs) == 0:
		return refuse(what, "with no item to its left")
	}
	return nil
}

// mergeJoin gives the right item t (occurrence r, just registered in sc)
// of a NATURAL or USING join its ON clause, already canonical, and marks
// the merged names on r.
func (cz *canonicalizer) mergeJoin(t *sqlast.TableRef, r *occurrence, natural bool, sc *scope) error {
	what := "USING"
	if natural {
		what = "NATURAL JOIN"
	}
	left := sc.occs[:len(sc.occs)-1]
	for _, o := range sc.occs {
		if o.table == nil {
			seen := map[string]bool{}
			for _, n := range o.names {
				if n == "" || seen[lowerASCII(n)] {
					return refuse(what, "a FROM subquery with an output that has no name, or two of one name (SQLite renames the second a:1)")
				}
				seen[lowerASCII(n)] = true
			}
		}
	}
	var names []string
	if natural {
		for i := range r.width() {
			name := r.queryName(i)
			for _, o := range left {
				if o.column(name) != -1 {
					names = append(names, name)
					break
				}
			}
		}
		if len(names) == 0 {
			return refuse(what, "no column in common")
		}
	} else {
		for _, id := range t.Using {
			names = append(names, id.Name)
		}
	}
	var on sqlast.Expr
	r.merged = map[string]bool{}
	for _, name := range names {
		key := lowerASCII(name)
		if r.merged[key] {
			return refuse(what, "%s named twice", name)
		}
		r.merged[key] = true
		j := r.column(name)
		if j < 0 {
			return refuse(what, "the right item has no column %s, or two", name)
		}
		var l *occurrence
		li := -1
		for _, o := range left {
			switch i := o.column(name); {
			case i == -2 || i >= 0 && l != nil:
				return refuse(what, "ambiguous reference to %s", name)
			case i >= 0:
				l, li = o, i
			}
		}
		if l == nil {
			return refuse(what, "no item to the left has a column %s", name)
		}
		eq := &sqlast.BinaryExpr{Op: sqlast.OpEq, X: qualified(l, li), Y: qualified(r, j)}
		if on == nil {
			on = eq
		} else {
			on = &sqlast.BinaryExpr{Op: sqlast.OpAnd, X: on, Y: eq}
		}
	}
	t.On, t.Using, r.synthOn = on, nil, true
	return nil
}

// mergedScope reports whether a FROM item of sc is the right item of a
// NATURAL or USING join.
func mergedScope(sc *scope) bool {
	for _, o := range sc.occs {
		if o.merged != nil {
			return true
		}
	}
	return false
}
