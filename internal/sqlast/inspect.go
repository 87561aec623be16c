package sqlast

import (
	"strings"

	"github.com/sqlc-dev/meyer/ast"
	"github.com/sqlc-dev/meyer/token"
)

// TableUse is one table named in a FROM clause (of the statement or any
// subquery).
type TableUse struct {
	// Name is the table name as written, dequoted; Schema its schema
	// qualifier ("" if none).
	Name, Schema string
	// Alias is the alias given to it ("" if none).
	Alias string
	// Pos is the byte offset of the name in the parsed text (0 for nodes
	// made by a rewrite).
	Pos int
}

// ColumnRef is one column reference in an expression position: a bare
// name (Table "") or "qualifier.name". Result-column aliases used in ORDER
// BY or HAVING read as bare names too; a caller with a schema tells them
// apart.
type ColumnRef struct {
	// Table is the qualifier as written, dequoted ("" for a bare name).
	Table string
	// Name is the column name, dequoted.
	Name string
	// MaybeString is set for a bare double-quoted name: SQLite reads
	// "abc" as a string literal where no column abc is in scope, and
	// Spider's gold queries write most strings that way.
	MaybeString bool
	// Pos is the byte offset of the reference in the parsed text.
	Pos int
}

// Lit is one literal: a number, a string, NULL, a blob or a
// CURRENT_DATE/TIME/TIMESTAMP keyword.
type Lit struct {
	// Kind is the literal's kind (LitInteger, LitFloat, LitString, ...).
	Kind LiteralKind
	// Value is the literal's value: dequoted for strings, as written
	// otherwise.
	Value string
	// Raw is the literal as written.
	Raw string
	// Pos is the byte offset of the literal in the parsed text.
	Pos int
	// Negated is set when the literal is the operand of a unary minus
	// (-5 is a minus applied to 5 in SQLite's grammar).
	Negated bool
}

// Tables returns the tables named in FROM clauses, in source order,
// subqueries and CTE bodies included (a CTE's own name appears where it is
// used, like a table).
func (q *Query) Tables() []TableUse {
	var out []TableUse
	Walk(q.Stmt, func(n Node) bool {
		t, ok := n.(*TableRef)
		if !ok || t.Name == nil {
			return true
		}
		u := TableUse{Name: t.Name.Name.Name, Pos: t.Name.Pos()}
		if t.Name.Schema != nil {
			u.Schema = t.Name.Schema.Name
		}
		if t.Alias != nil {
			u.Alias = t.Alias.Name
		}
		out = append(out, u)
		return true
	})
	return out
}

// exprs calls fn for every expression of the statement, in bottom-up
// order (see Rewrite), without changing anything.
func (q *Query) exprs(fn func(Expr)) {
	Rewrite(q.Stmt, func(e Expr) Expr { fn(e); return e })
}

// Columns returns the column references of the statement (subqueries
// included) in the order Rewrite visits expressions: sub-expressions
// before the expression holding them, clauses in the order SELECT, FROM,
// WHERE, GROUP BY, HAVING, ORDER BY, LIMIT.
func (q *Query) Columns() []ColumnRef {
	var out []ColumnRef
	q.exprs(func(e Expr) {
		if c, ok := columnRef(e); ok {
			out = append(out, c)
		}
	})
	return out
}

func columnRef(e Expr) (ColumnRef, bool) {
	switch t := e.(type) {
	case *Ident:
		return ColumnRef{Name: t.Name, MaybeString: t.Quote == ast.QuoteDouble, Pos: t.Pos()}, true
	case *QualifiedRef:
		n := len(t.Parts)
		if n >= 2 {
			return ColumnRef{Table: t.Parts[n-2].Name, Name: t.Parts[n-1].Name, Pos: t.Pos()}, true
		}
	}
	return ColumnRef{}, false
}

// Literals returns the literals of the statement (subqueries included) in
// the order Rewrite visits expressions. Bare double-quoted names, which
// SQLite may read as strings, are columns here (see ColumnRef.MaybeString).
func (q *Query) Literals() []Lit {
	var out []Lit
	neg := map[*Literal]bool{}
	q.exprs(func(e Expr) {
		switch t := e.(type) {
		case *UnaryExpr:
			if l, ok := t.X.(*Literal); ok && t.Op == OpMinus {
				neg[l] = true
			}
		}
	})
	q.exprs(func(e Expr) {
		if l, ok := e.(*Literal); ok {
			out = append(out, Lit{Kind: l.Kind, Value: l.Value, Raw: l.Raw, Pos: l.Pos(), Negated: neg[l]})
		}
	})
	return out
}

// IsAggregate reports whether a function call is one of SQL's aggregates
// max, min, count, sum, avg (the ones Spider's structure knows; case
// insensitive), and which, in lower case.
func IsAggregate(f *FuncCall) (string, bool) {
	if f == nil || f.Name == nil || f.Over != nil {
		return "", false
	}
	n := strings.ToLower(f.Name.Name)
	switch n {
	case "max", "min", "count", "sum", "avg":
		return n, true
	}
	return "", false
}

// StringLiteral returns a literal node for the string s, quoted the SQL
// way (single quotes, an inner quote doubled).
func StringLiteral(s string) *Literal {
	return &Literal{Kind: LitString, Value: s, Raw: "'" + strings.ReplaceAll(s, "'", "''") + "'"}
}

// NumberLiteral returns a literal node for a number written as raw
// (an integer if it has no '.', 'e' or 'E').
func NumberLiteral(raw string) *Literal {
	k := LitInteger
	if strings.ContainsAny(raw, ".eE") {
		k = LitFloat
	}
	return &Literal{Kind: k, Value: raw, Raw: raw}
}

// Name returns an identifier node for name, double-quoted unless it is a
// plain word (letters, digits, _ not starting with a digit) that is not
// an SQLite keyword.
func Name(name string) *Ident {
	plain := name != ""
	for i, r := range name {
		if !(r == '_' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || i > 0 && r >= '0' && r <= '9') {
			plain = false
		}
	}
	if plain && token.Lookup(name) == token.ID {
		return &Ident{Name: name, Raw: name}
	}
	return &Ident{Name: name, Raw: `"` + strings.ReplaceAll(name, `"`, `""`) + `"`, Quote: ast.QuoteDouble}
}
