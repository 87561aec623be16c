package check

import (
	"errors"
	"slices"
	"strings"

	"github.com/sqljudge/sqljudge/internal/sqlast"
)

// FROM subqueries compared whole. A FROM subquery that no rule merged
// (it groups, aggregates or is a compound, say) is compared as a table
// of its own when the bijection pairs it with a FROM subquery of the
// other normal form that is the same query up to the renaming: two runs
// of one deterministic query on one database give one multiset of rows,
// so the query around each reads the same table. The comparison then
// goes on as for base tables, its conditions, outputs, groups and order
// compared under the obligations it writes.
//
// Side conditions, each refused as `derived table` (or by what the
// order-freedom check names):
//   - the two subqueries print the same once renamed by the bijection
//     (their own occurrences paired too);
//   - neither reads a column of an outer query (a FROM subquery inside a
//     correlated subquery would be a function of the outer row);
//   - nothing in them reads the order the engine meets rows in
//     (orderFreeNode: no LIMIT, no aggregate that depends on that order,
//     no window, a GROUP BY of tie-safe columns only and no bare column,
//     DISTINCT and set operations over tie-safe outputs only, scalar
//     subqueries that aggregate without GROUP BY): two plans of one query
//     give one result only then;
//   - no `*` among their outputs, and no VALUES branch;
//   - no table of the schema has the name the kernel gives the
//     subquery's table.
//
// The table's columns are what the engine gives the query around it.
// Output i is a column of the schema when every branch's output i is a
// column of a table of that branch's own FROM, all of one family,
// affinity, collation and type: the column then carries those (SQLite
// gives a FROM subquery's column its expression's affinity and
// collation, and a compound's column the first branch's that has one,
// converting the others' values to it: the same affinity converts
// nothing; PostgreSQL converts them to the type it resolves, so there
// Column.Type must be one); NOT NULL when every one is declared so, is not on the right
// side of a LEFT JOIN, and its SELECT is no aggregate without GROUP BY
// (which returns one row, NULL in such a column, on no rows). Any other
// output (an expression, an aggregate, columns of different kinds) is a
// column of family Other under a collation of its own that no other
// column has: every comparison of it is an uninterpreted predicate of
// the same kinds on both sides, it is never tie-safe (GROUP BY,
// DISTINCT or ORDER BY ties on it are refused), never NOT NULL.
//
// Facts: a fact the comparison records of such a column (its family,
// NOT NULL) is listed as the same fact of each column of the schema it
// comes from; a SUM, AVG or TOTAL over such a column has no
// sum_in_range fact (the subquery may repeat a value: UNION ALL of a
// table with itself doubles every sum) and is refused.

// colSource is a column of the schema a FROM subquery's column shows.
type colSource struct{ table, column string }

// synthTable is a FROM subquery compared as a table: the table the
// first query's occurrence reads, and for each of its columns the
// columns of the schema it shows (none for one of family Other).
type synthTable struct {
	table *Table
	src   [][]colSource
}

// subqueriesDiffer begins the refusal of a pairing whose FROM subqueries
// are not one query up to its renaming (DifferentSubqueries).
const subqueriesDiffer = "the FROM subqueries "

// DifferentSubqueries reports whether err refuses a pairing only because
// it pairs FROM subqueries that are not one query up to its renaming:
// another pairing of their tables may make them one, so a prover trying
// several reports a refusal of one that went further.
func DifferentSubqueries(err error) bool {
	var r *Refusal
	return errors.As(err, &r) && r.Construct == "derived table" && strings.HasPrefix(r.Detail, subqueriesDiffer)
}

// opaqueCollation is the collation of a FROM subquery's column that is
// not a column of the schema: no column has it, so that the column is
// never tie-safe or of a modelled family.
const opaqueCollation = "(expression)"

// opaqueDerived makes the FROM subqueries the bijection pairs tables of
// their own (see above): it checks the side conditions, sets each
// occurrence's table and records the columns of the schema each column
// shows (k.synth, by the table's name).
func (k *kernel) opaqueDerived() error {
	var pairs [][2]*occurrence
	for _, o1 := range k.c1.Occs {
		if o1.derived == nil {
			continue
		}
		b, ok := k.bij[o1.alias]
		if !ok {
			continue
		}
		pairs = append(pairs, [2]*occurrence{o1, k.c2.byAlias[b]})
	}
	if len(pairs) == 0 {
		return nil
	}
	for _, p := range pairs {
		t1 := k.mappedText(&sqlast.SubqueryExpr{Select: p[0].derived}, k.side(0), nil)
		t2 := k.mappedText(&sqlast.SubqueryExpr{Select: p[1].derived}, k.side(1), nil)
		if t1 != t2 {
			return refuse("derived table", subqueriesDiffer+"%s and %s are not one query up to the renaming", p[0].alias, p[1].alias)
		}
		for i, c := range []*Canon{k.c1, k.c2} {
			if a := correlatedTo(p[i].derived); a != "" {
				return refuse("derived table", "the FROM subquery %s reads %s, of a query around it", p[i].alias, a)
			}
			if err := c.orderFreeNode(p[i].derived); err != nil {
				return err
			}
		}
	}
	tables := make([][2]*Table, len(pairs))
	for n, p := range pairs {
		name := "(subquery " + p[0].alias + ")"
		if k.c1.s.Table(name) != nil {
			return refuse("derived table", "the schema has a table named %s", name)
		}
		t1, src, err := k.c1.opaqueTable(p[0], name)
		if err != nil {
			return err
		}
		t2, _, err := k.c2.opaqueTable(p[1], name)
		if err != nil {
			return err
		}
		if !slices.Equal(t1.Columns, t2.Columns) {
			return refuse("derived table", "the columns of the FROM subqueries %s and %s differ in kind", p[0].alias, p[1].alias)
		}
		if k.synth == nil {
			k.synth = map[string]synthTable{}
		}
		k.synth[name] = synthTable{table: t1, src: src}
		tables[n] = [2]*Table{t1, t2}
		if inv := k.c1.rowInvariant(p[0], src); inv != nil {
			if k.rowConds == nil {
				k.rowConds = map[*occurrence]sqlast.Expr{}
			}
			k.rowConds[p[0]] = inv
		}
	}
	for n, p := range pairs {
		p[0].table, p[1].table = tables[n][0], tables[n][1]
	}
	return nil
}

// correlatedTo returns the alias of an occurrence outside st that st
// reads a column of, "" for none.
func correlatedTo(st *sqlast.SelectStmt) string {
	inside := map[string]bool{}
	sqlast.Walk(st, func(n sqlast.Node) bool {
		if t, ok := n.(*sqlast.TableRef); ok && t.Alias != nil {
			inside[lowerASCII(t.Alias.Name)] = true
		}
		return true
	})
	out := ""
	sqlast.Walk(st, func(n sqlast.Node) bool {
		if r, ok := n.(*sqlast.QualifiedRef); ok && len(r.Parts) == 2 && !inside[lowerASCII(r.Parts[0].Name)] && out == "" {
			out = lowerASCII(r.Parts[0].Name)
		}
		if s, ok := n.(*sqlast.Star); ok && s.Table != nil && !inside[lowerASCII(s.Table.Name)] && out == "" {
			out = lowerASCII(s.Table.Name)
		}
		return out == ""
	})
	return out
}

// opaqueTable is the table FROM subquery o shows the query around it
// (see above), named name, and for each of its columns the columns of
// the schema it shows (none for a column of family Other).
func (c *Canon) opaqueTable(o *occurrence, name string) (*Table, [][]colSource, error) {
	var cores []*sqlast.SelectQuery
	for _, core := range o.derived.Cores {
		sq, ok := core.(*sqlast.SelectQuery)
		if !ok {
			return nil, nil, refuse("derived table", "a FROM subquery with a VALUES branch")
		}
		if len(sq.Columns) != len(o.cols) {
			return nil, nil, refuse("derived table", "a FROM subquery of %d outputs for %d columns", len(sq.Columns), len(o.cols))
		}
		for _, col := range sq.Columns {
			if _, star := col.Expr.(*sqlast.Star); star || col.Expr == nil {
				return nil, nil, refuse("derived table", "a FROM subquery with * among its outputs")
			}
		}
		cores = append(cores, sq)
	}
	t := &Table{Name: name}
	src := make([][]colSource, len(o.cols))
	for i := range o.cols {
		col, ok := Column{}, true
		for bi, sq := range cores {
			so, si, isCol := c.colOf(stripParens(sq.Columns[i].Expr))
			if !isCol || so.derived != nil || so.core != sq {
				ok = false
				break
			}
			bc := so.table.Columns[si]
			bc.NotNull = bc.NotNull && so.join != joinLeft && !scalarAggregateCore(sq)
			if bi > 0 {
				want, got := col, bc
				want.Name, want.NotNull, got.Name, got.NotNull = "", false, "", false
				if want != got {
					ok = false
					break
				}
				bc.NotNull = bc.NotNull && col.NotNull
			}
			col = bc
			src[i] = append(src[i], colSource{table: so.table.Name, column: so.table.Columns[si].Name})
		}
		if !ok {
			col, src[i] = Column{Family: Other, Affinity: AffinityBlob, Collation: opaqueCollation}, nil
		}
		col.Name = o.cols[i]
		t.Columns = append(t.Columns, col)
	}
	return t, src, nil
}

// rowInvariant is a condition TRUE on every row of FROM subquery o (nil
// for none): for each branch, the conjunction of the conjuncts of its
// WHERE and of its inner joins' ONs that read one column alone, a column
// the branch outputs as it is at a position whose table column shows
// the schema's column (src), restated of that column of o; the branches
// joined by OR. Every row of o comes from a row of its branch on which
// such a conjunct was TRUE, and shows that row's value of the column
// (grouped, the value of one of its group's rows; under DISTINCT, of
// one of the rows it folds), of the same affinity, collation and type,
// so the restated conjunct is TRUE on it. A branch that aggregates
// without GROUP BY (one row of NULLs on no rows) or keeps no conjunct
// makes the invariant nil. Only comparisons, IS [NOT] NULL, BETWEEN, IN
// a list, AND, OR, NOT and literals: a conjunct that depends on the
// value alone.
func (c *Canon) rowInvariant(o *occurrence, src [][]colSource) sqlast.Expr {
	var branches []sqlast.Expr
	for _, core := range o.derived.Cores {
		sq := core.(*sqlast.SelectQuery) // opaqueTable refused VALUES
		if scalarAggregateCore(sq) {
			return nil
		}
		conds := optConjuncts(sq.Where)
		for _, t := range sq.From {
			if t.On != nil && !(t.Join != nil && t.Join.Type&sqlast.JoinLeft != 0) {
				conds = append(conds, conjuncts(t.On)...)
			}
		}
		var kept sqlast.Expr
		for _, cond := range conds {
			x := c.restate(o, sq, cond, src)
			if x == nil {
				continue
			}
			if kept == nil {
				kept = x
			} else {
				kept = &sqlast.BinaryExpr{Op: sqlast.OpAnd, X: kept, Y: x}
			}
		}
		if kept == nil {
			return nil
		}
		branches = append(branches, &sqlast.ParenExpr{X: kept})
	}
	out := branches[0]
	for _, b := range branches[1:] {
		out = &sqlast.BinaryExpr{Op: sqlast.OpOr, X: out, Y: b}
	}
	return out
}

// restate returns cond, a conjunct of branch sq of FROM subquery o, as a
// condition on o's column (rowInvariant), nil when it reads anything but
// one column shown as it is at a position backed by the schema, or holds
// anything but the operators rowInvariant names.
func (c *Canon) restate(o *occurrence, sq *sqlast.SelectQuery, cond sqlast.Expr, src [][]colSource) sqlast.Expr {
	ref, ok := "", true
	walkExpr(cond, func(x sqlast.Expr) bool {
		switch t := x.(type) {
		case *sqlast.QualifiedRef:
			if ref != "" && ref != sqlast.Format(t) {
				ok = false
			}
			ref = sqlast.Format(t)
		case *sqlast.BinaryExpr:
			switch t.Op {
			case sqlast.OpEq, sqlast.OpNe, sqlast.OpLt, sqlast.OpLe, sqlast.OpGt, sqlast.OpGe, sqlast.OpAnd, sqlast.OpOr:
			default:
				ok = false
			}
		case *sqlast.UnaryExpr:
			ok = ok && t.Op == sqlast.OpNot
		case *sqlast.InExpr:
			ok = ok && t.Select == nil
		case *sqlast.Literal, *sqlast.ParenExpr, *sqlast.NullCheckExpr, *sqlast.BetweenExpr:
		default:
			ok = false
		}
		return ok
	})
	if !ok || ref == "" {
		return nil
	}
	j := -1
	for i, col := range sq.Columns {
		if r, isRef := stripParens(col.Expr).(*sqlast.QualifiedRef); isRef && sqlast.Format(r) == ref && len(src[i]) > 0 {
			j = i
			break
		}
	}
	if j < 0 {
		return nil
	}
	x := cloneExpr(cond)
	sqlast.Walk(x, func(n sqlast.Node) bool {
		if r, isRef := n.(*sqlast.QualifiedRef); isRef {
			r.Parts = []*sqlast.Ident{sqlast.Name(o.alias), sqlast.Name(o.cols[j])}
		}
		return true
	})
	return x
}

// scalarAggregateCore reports whether sq aggregates without GROUP BY:
// it returns one row on no rows, NULL in its bare columns.
func scalarAggregateCore(sq *sqlast.SelectQuery) bool {
	if len(sq.GroupBy) > 0 {
		return false
	}
	if sq.Having != nil {
		return true
	}
	for _, col := range sq.Columns {
		if containsAggregate(col.Expr) {
			return true
		}
	}
	for _, o := range sq.OrderBy {
		if containsAggregate(o.Expr) {
			return true
		}
	}
	return false
}

// baseFacts lists facts fs with every fact of a FROM subquery's column
// (opaqueDerived) replaced by the same fact of each column of the schema
// it shows. A fact of another kind, or of a column that shows none, is
// refused: nothing in the schema states it.
func (k *kernel) baseFacts(fs []Fact) ([]Fact, error) {
	if len(k.synth) == 0 {
		return fs, nil
	}
	var out factSet
	for _, f := range fs {
		st, ok := k.synth[f.Table]
		if !ok {
			out.add(f)
			continue
		}
		cols, i := st.src, st.table.Col(f.Column)
		if i >= 0 && len(cols[i]) == 0 && f.Fact == FactFamily && f.Family == Other.String() {
			continue // family Other claims nothing: every comparison of it is uninterpreted
		}
		if i < 0 || len(cols[i]) == 0 || f.Fact != FactFamily && f.Fact != FactNotNull {
			return nil, refuse("derived table", "a %s fact of column %s of a FROM subquery, which no column of the schema gives", f.Fact, f.Column)
		}
		for _, s := range cols[i] {
			g := f
			g.Table, g.Column = s.table, s.column
			out.add(g)
		}
	}
	return sortedFacts(out.list), nil
}
