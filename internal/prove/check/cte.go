package check

import (
	"github.com/sqljudge/sqljudge/internal/sqlast"
)

// RuleInlineCTE: a statement WITH c1 AS (s1), ..., cn AS (sn) SELECT ...
// is the SELECT with every reference to ci in a FROM replaced by the
// subquery (si) AS ci (or AS the reference's alias): a non-recursive
// common table expression is a named subquery (SQLite's lang_with.html,
// "Ordinary Common Table Expressions": "an ordinary CTE works as if it
// were a view that exists for the duration of a single statement";
// PostgreSQL's queries-with.html: a CTE is folded into the query unless
// MATERIALIZED, which changes only how it runs). Materializing it once
// differs from inlining it only for a body whose rows depend on the run
// (random(), a LIMIT without a total order); the kernel refuses such a
// body wherever the inlined subquery stays (it is not merged), and the
// method identical never follows this rule. At is -1; After is the
// inlined query as printed, not in canonical form (a renaming step
// follows, which SQLite's reading of names checks).
//
// Refused (fail closed): WITH RECURSIVE, a CTE that reads its own name
// or a later CTE's (SQLite makes it recursive without the keyword, or
// reads the later CTE; PostgreSQL reads a table of that name), a WITH
// inside the statement (its scoping is not modelled), two CTEs of one
// name, a CTE nothing reads, a body that does not resolve on its own (it
// would be correlated), a reference with INDEXED BY or arguments, a
// column list over a body with *, with output aliases or with an ORDER
// BY (the new names would change what ORDER BY reads), or of another
// length. SQLite resolves a CTE's body where it is read, as a view
// (a body may read a column of the query around that place: `WITH y AS
// (SELECT name FROM concert) ... EXISTS (SELECT 1 FROM y)` reads the
// outer singer.name), which inlining keeps exactly; PostgreSQL resolves
// it where it is defined. A body that resolves on its own resolves alike
// in both places.
const RuleInlineCTE = "cte_inline"

// cte is one common table expression being inlined: its body and the
// names it gives its columns.
type cte struct {
	name string
	body *sqlast.SelectStmt
	uses int
}

// inlineCTE applies RuleInlineCTE to sql; cover: for ConditionCover,
// each body read as canonicalizeForCover reads it.
func inlineCTE(sql string, s Schema, cover bool) (string, error) {
	q, err := sqlast.Parse(sql)
	if err != nil {
		return "", refuse("parse", "%v", err)
	}
	st := q.Select()
	if st == nil || st.With == nil {
		return "", refuse("rule", "no WITH to inline")
	}
	w := st.With
	if w.Recursive {
		return "", refuse("WITH", "WITH RECURSIVE")
	}
	d := s.Dialect()
	nested := false
	sqlast.Walk(st, func(n sqlast.Node) bool {
		if x, ok := n.(*sqlast.SelectStmt); ok && x != st && x.With != nil {
			nested = true
		}
		return !nested
	})
	if nested {
		return "", refuse("WITH", "a WITH inside the statement")
	}
	st.With = nil
	var ctes []*cte
	for i, c := range w.CTEs {
		name := identKey(c.Name, d)
		for _, later := range w.CTEs[i:] {
			if readsTable(c.Select, identKey(later.Name, d), d) {
				return "", refuse("WITH", "CTE %s reads itself or a later CTE (%s)", c.Name.Name, later.Name.Name)
			}
		}
		for _, prev := range ctes {
			if prev.name == name {
				return "", refuse("WITH", "two CTEs named %s", c.Name.Name)
			}
		}
		// Earlier CTEs inside this body first; the body then resolves
		// on its own.
		if err := replaceCTEs(c.Select, ctes, d); err != nil {
			return "", err
		}
		read := Canonicalize
		if cover {
			read = func(sql string, s Schema, _ string) (*Canon, error) { return canonicalizeForCover(sql, s) }
		}
		if _, err := read(sqlast.Format(c.Select), s, "w"); err != nil {
			return "", err
		}
		if err := nameColumns(c); err != nil {
			return "", err
		}
		ctes = append(ctes, &cte{name: name, body: c.Select})
	}
	if err := replaceCTEs(st, ctes, d); err != nil {
		return "", err
	}
	for _, c := range ctes {
		if c.uses == 0 {
			return "", refuse("WITH", "CTE %s is read by nothing", c.name)
		}
	}
	return sqlast.Format(st), nil
}

// identKey is the name an identifier names: SQLite's names match without
// regard to ASCII case; PostgreSQL folds an unquoted name to lower case
// and keeps a quoted one.
func identKey(id *sqlast.Ident, d Dialect) string {
	if d == Postgres && id.Quote != sqlast.QuoteNone {
		return id.Name
	}
	return lowerASCII(id.Name)
}

// readsTable reports whether st names table name (unqualified) anywhere.
func readsTable(st *sqlast.SelectStmt, name string, d Dialect) bool {
	found := false
	sqlast.Walk(st, func(n sqlast.Node) bool {
		if t, ok := n.(*sqlast.TableRef); ok && t.Name != nil && t.Name.Schema == nil && identKey(t.Name.Name, d) == name {
			found = true
		}
		return !found
	})
	return found
}

// nameColumns gives the body of c the names of c's column list, as
// output aliases of its first SELECT.
func nameColumns(c *sqlast.CTE) error {
	if len(c.Columns) == 0 {
		return nil
	}
	first, ok := c.Select.Cores[0].(*sqlast.SelectQuery)
	if !ok || len(first.Columns) != len(c.Columns) {
		return refuse("WITH", "CTE %s: a column list of %d names over a body that is not a SELECT of as many", c.Name.Name, len(c.Columns))
	}
	for _, core := range c.Select.Cores {
		if sq, ok := core.(*sqlast.SelectQuery); ok && len(sq.OrderBy) > 0 {
			return refuse("WITH", "CTE %s: a column list over a body with ORDER BY", c.Name.Name)
		}
	}
	seen := map[string]bool{}
	for i, col := range first.Columns {
		if _, star := col.Expr.(*sqlast.Star); star || col.Alias != nil {
			return refuse("WITH", "CTE %s: a column list over * or an output alias", c.Name.Name)
		}
		k := lowerASCII(c.Columns[i].Name)
		if seen[k] {
			return refuse("WITH", "CTE %s: two columns named %s", c.Name.Name, c.Columns[i].Name)
		}
		seen[k] = true
		id := *c.Columns[i]
		col.Alias, col.HasAs = &id, true
	}
	return nil
}

// replaceCTEs replaces, in st, every FROM item naming one of ctes by a
// copy of its body.
func replaceCTEs(st *sqlast.SelectStmt, ctes []*cte, d Dialect) error {
	for _, core := range st.Cores {
		sq, ok := core.(*sqlast.SelectQuery)
		if !ok {
			continue
		}
		for _, t := range sq.From {
			if err := replaceItem(t, ctes, d); err != nil {
				return err
			}
		}
		// Subqueries of expressions: nested.
		var err error
		for _, e := range coreExprs(sq) {
			sqlast.Walk(e, func(n sqlast.Node) bool {
				if x, ok := n.(*sqlast.SelectStmt); ok && err == nil {
					err = replaceCTEs(x, ctes, d)
					return false
				}
				return err == nil
			})
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// replaceItem replaces FROM item t, or the items it holds, when it names
// one of ctes.
func replaceItem(t *sqlast.TableRef, ctes []*cte, d Dialect) error {
	for _, x := range t.List {
		if err := replaceItem(x, ctes, d); err != nil {
			return err
		}
	}
	if t.Select != nil {
		return replaceCTEs(t.Select, ctes, d)
	}
	if t.Name == nil || t.Name.Schema != nil {
		return nil
	}
	key := identKey(t.Name.Name, d)
	for _, c := range ctes {
		if c.name != key {
			continue
		}
		if t.HasArgs || t.IndexedBy != nil || t.NotIndexed {
			return refuse("WITH", "CTE %s read with INDEXED BY or arguments", t.Name.Name.Name)
		}
		c.uses++
		if t.Alias == nil {
			id := *t.Name.Name
			t.Alias, t.HasAs = &id, true
		}
		t.Name = nil
		t.Select = cloneStmt(c.body)
		return nil
	}
	return nil
}

// cloneStmt copies a SELECT statement (printed and parsed again).
func cloneStmt(st *sqlast.SelectStmt) *sqlast.SelectStmt {
	q, err := sqlast.Parse(sqlast.Format(st))
	if err != nil || q.Select() == nil {
		panic("kernel: a statement does not print back")
	}
	return q.Select()
}
