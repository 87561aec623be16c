package check

import (
	"strings"

	"github.com/sqljudge/sqljudge/internal/sqlast"
)

// RuleRightToLeft: FROM a RIGHT [OUTER] JOIN b ON c [later items] is
// FROM b LEFT JOIN a ON c [later items], with every bare * of that
// SELECT spelled a.*, b.* (the columns in a RIGHT JOIN's order): both
// are the rows of the inner join of a and b on c and one row for each
// row of b that matches no row of a, its columns of a NULL (SQLite's
// lang_select.html, "RIGHT and FULL OUTER JOIN" (3.39.0); PostgreSQL's
// queries-table-expressions.html: "a RIGHT JOIN b is the same as b LEFT
// JOIN a"). Joins after the second item read the same rows, since the
// FROM list is left-deep. The engine meets the rows in another order:
// the rule is never followed by the method identical, and the normal
// form compares every order-dependent construct as it does after any
// other rule (LIMIT without a total ORDER BY, group_concat, floating
// point sums and a scalar subquery of several rows are refused).
//
// Refused (fail closed): a RIGHT JOIN that is not the FROM's second item
// (a, b RIGHT JOIN c is (a, b) RIGHT JOIN c, which a flat FROM cannot
// write as a LEFT JOIN), a RIGHT JOIN without ON, NATURAL or with USING
// (the merged column is b's, and a * lists it once), a parenthesised
// join, a WITH (cte_inline goes first), and a bare * when a or b is an
// unnamed subquery or both have one name. Every SELECT of the statement
// with such a RIGHT JOIN is rewritten at once. At is -1; After is the
// query as printed, not in canonical form (a renaming step follows).
const RuleRightToLeft = "right_to_left"

// RuleFullToOuter: FROM a FULL [OUTER] JOIN b ON c [later items] WHERE
// p, where a top-level conjunct of p is never TRUE when a column of a it
// reads as an operand is NULL (a comparison, IN a list, BETWEEN, IS NOT
// NULL, LIKE or GLOB: as left_to_inner), is the query with LEFT JOIN for
// FULL JOIN: a full join adds to the left join's rows one for each row
// of b without a match, its columns of a NULL, and that conjunct drops
// each (later joins keep a's columns NULL in every row made of it).
// Otherwise, with such a conjunct on a column of b, it is the query with
// RIGHT JOIN (right_to_left then applies). The column must be written
// qualified by a's (or b's) name, which no other FROM item of that
// SELECT has: it then names that item (a SELECT's own FROM is searched
// first). SQLite, and PostgreSQL where the ON is equalities of a
// column of each side of family Int or Text (mergeJoinable): PostgreSQL
// refuses a FULL JOIN whose ON is not merge- or hash-joinable, which a
// LEFT JOIN runs (an error against rows); MySQL and MariaDB read FULL as
// an alias. Refused as
// right_to_left is (its place in the FROM, ON, NATURAL, USING,
// parentheses, WITH). At is -1; After is not in canonical form.
const RuleFullToOuter = "full_to_outer"

// outerJoinItems returns the SELECTs of st whose second FROM item joins
// with a join type that has every bit of want and none of not, and
// refuses a statement the rules do not rewrite (a WITH; such a join
// elsewhere in a FROM, NATURAL, with USING, without ON, parenthesised).
func outerJoinItems(sql string, want, not sqlast.JoinType) (*sqlast.SelectStmt, []*sqlast.SelectQuery, error) {
	q, err := sqlast.Parse(sql)
	if err != nil {
		return nil, nil, refuse("parse", "%v", err)
	}
	st := q.Select()
	if st == nil {
		return nil, nil, refuse("rule", "not a SELECT")
	}
	if st.With != nil {
		return nil, nil, refuse("WITH", "a WITH is inlined first")
	}
	var out []*sqlast.SelectQuery
	sqlast.Walk(st, func(n sqlast.Node) bool {
		sq, ok := n.(*sqlast.SelectQuery)
		if !ok || err != nil {
			return err == nil
		}
		for i, t := range sq.From {
			if len(t.List) > 0 {
				err = refuse("parenthesised join", "")
				return false
			}
			if t.Join == nil || t.Join.Type&want != want || t.Join.Type&not != 0 {
				continue
			}
			switch {
			case i != 1:
				err = refuse("RIGHT/FULL JOIN", "%s is not the FROM's second item", strings.Join(t.Join.Words, " "))
			case t.Join.Type&sqlast.JoinNatural != 0:
				err = refuse("NATURAL JOIN", "")
			case len(t.Using) > 0:
				err = refuse("USING", "JOIN ... USING")
			case t.On == nil:
				err = refuse("RIGHT/FULL JOIN", "%s without ON", strings.Join(t.Join.Words, " "))
			default:
				out = append(out, sq)
			}
		}
		return err == nil
	})
	if err != nil {
		return nil, nil, err
	}
	return st, out, nil
}

// itemName is the name a FROM item's columns are qualified with (its
// alias, else its table's name) and whether it has one.
func itemName(t *sqlast.TableRef) (*sqlast.Ident, bool) {
	switch {
	case t.Alias != nil:
		return t.Alias, true
	case t.Name != nil && t.Name.Schema == nil:
		return t.Name.Name, true
	}
	return nil, false
}

// rightToLeft applies RuleRightToLeft to sql.
func rightToLeft(sql string, s Schema) (string, error) {
	st, cores, err := outerJoinItems(sql, sqlast.JoinRight, sqlast.JoinLeft)
	if err != nil {
		return "", err
	}
	if len(cores) == 0 {
		return "", refuse("rule", "no RIGHT JOIN as a FROM's second item")
	}
	d := s.Dialect()
	for _, sq := range cores {
		a, b := sq.From[0], sq.From[1]
		var cols []*sqlast.ResultColumn
		for _, c := range sq.Columns {
			if star, ok := c.Expr.(*sqlast.Star); !ok || star.Table != nil {
				cols = append(cols, c)
				continue
			}
			na, okA := itemName(a)
			nb, okB := itemName(b)
			if !okA || !okB {
				return "", refuse("RIGHT/FULL JOIN", "a * over a RIGHT JOIN of an unnamed subquery")
			}
			if identKey(na, d) == identKey(nb, d) {
				return "", refuse("RIGHT/FULL JOIN", "a * over a RIGHT JOIN of two items named %s", na.Name)
			}
			ida, idb := *na, *nb
			cols = append(cols, &sqlast.ResultColumn{Expr: &sqlast.Star{Table: &ida}}, &sqlast.ResultColumn{Expr: &sqlast.Star{Table: &idb}})
		}
		sq.Columns = cols
		on := b.On
		b.Join, b.On = nil, nil
		a.Join, a.On = &sqlast.JoinOperator{Type: sqlast.JoinLeft | sqlast.JoinOuter, Words: []string{"LEFT", "JOIN"}}, on
		sq.From[0], sq.From[1] = b, a
	}
	return sqlast.Format(st), nil
}

// fullToOuter applies RuleFullToOuter to sql.
func fullToOuter(sql string, s Schema) (string, error) {
	d := s.Dialect()
	if d != SQLite && d != Postgres {
		return "", refuse("RIGHT/FULL JOIN", "FULL JOIN is rewritten on SQLite and PostgreSQL only (MySQL and MariaDB read FULL as an alias)")
	}
	st, cores, err := outerJoinItems(sql, sqlast.JoinLeft|sqlast.JoinRight, 0)
	if err != nil {
		return "", err
	}
	done := 0
	for _, sq := range cores {
		j := sq.From[1].Join
		switch {
		case d == Postgres && !mergeJoinable(sq, s):
			continue
		case rejectsNullOf(sq, 0, d):
			j.Type, j.Words = sqlast.JoinLeft|sqlast.JoinOuter, []string{"LEFT", "JOIN"}
		case rejectsNullOf(sq, 1, d):
			j.Type, j.Words = sqlast.JoinRight|sqlast.JoinOuter, []string{"RIGHT", "JOIN"}
		default:
			continue
		}
		done++
	}
	if done == 0 {
		if d == Postgres {
			return "", refuse("RIGHT/FULL JOIN", "no FULL JOIN whose WHERE rejects NULL in a column of one side and whose ON PostgreSQL runs (equalities of a column of each side, both int or both text)")
		}
		return "", refuse("RIGHT/FULL JOIN", "no FULL JOIN whose WHERE rejects NULL in a column of one side")
	}
	return sqlast.Format(st), nil
}

// mergeJoinable reports whether the ON of sq's second FROM item is a
// conjunction of equalities, each of a column of the first item and a
// column of the second (written qualified by the items' names, which no
// other item of the FROM has; both items tables of the schema), the two
// of family Int or both of family Text: a FULL JOIN PostgreSQL runs.
// PostgreSQL refuses one it can neither merge nor hash ("FULL JOIN is
// only supported with merge-joinable or hash-joinable join conditions":
// a.x < b.y, a.x = a.z, an OR), where the LEFT JOIN it would become
// runs. Checked on PostgreSQL 15: int = int, int = bigint, text =
// varchar and two such equalities run; a.x < b.y, a.x = a.z and an OR
// of equalities are refused.
func mergeJoinable(sq *sqlast.SelectQuery, s Schema) bool {
	d := s.Dialect()
	var keys [2]string
	var tables [2]*Table
	for i := range 2 {
		t := sq.From[i]
		name, ok := itemName(t)
		if !ok || t.Name == nil || t.Name.Schema != nil {
			return false
		}
		keys[i], tables[i] = identKey(name, d), s.Table(t.Name.Name.Name)
		if tables[i] == nil {
			return false
		}
		for j, u := range sq.From {
			if other, ok := itemName(u); j != i && ok && identKey(other, d) == keys[i] {
				return false
			}
		}
	}
	if sq.From[1].On == nil {
		return false
	}
	// side returns the item a column reference names and its column.
	side := func(e sqlast.Expr) (int, *Column) {
		r, ok := stripParens(e).(*sqlast.QualifiedRef)
		if !ok || len(r.Parts) != 2 {
			return -1, nil
		}
		for i := range 2 {
			if identKey(r.Parts[0], d) == keys[i] {
				if k := tables[i].Col(r.Parts[1].Name); k >= 0 {
					return i, &tables[i].Columns[k]
				}
			}
		}
		return -1, nil
	}
	for _, x := range conjuncts(sq.From[1].On) {
		b, ok := x.(*sqlast.BinaryExpr)
		if !ok || b.Op != sqlast.OpEq {
			return false
		}
		i, ci := side(b.X)
		j, cj := side(b.Y)
		if i < 0 || j < 0 || i == j {
			return false
		}
		if f := ci.family(d); f != cj.family(d) || (f != Int && f != Text) {
			return false
		}
	}
	return true
}

// rejectsNullOf reports whether a top-level conjunct of sq's WHERE is
// never TRUE when a column of FROM item i it reads as an operand
// (qualified by the item's name, which no other item of sq's FROM has)
// is NULL.
func rejectsNullOf(sq *sqlast.SelectQuery, i int, d Dialect) bool {
	if sq.Where == nil {
		return false
	}
	name, ok := itemName(sq.From[i])
	if !ok {
		return false
	}
	key := identKey(name, d)
	for j, t := range sq.From {
		if other, ok := itemName(t); j != i && ok && identKey(other, d) == key {
			return false
		}
	}
	for _, x := range conjuncts(sq.Where) {
		for _, op := range nullRejectedOperands(x) {
			r, ok := stripParens(op).(*sqlast.QualifiedRef)
			if ok && len(r.Parts) == 2 && identKey(r.Parts[0], d) == key {
				return true
			}
		}
	}
	return false
}
