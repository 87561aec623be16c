package catalog

import (
	"strings"

	"github.com/sqljudge/sqljudge/internal/sqllex"
)

// checkColumns resolves the names of t's CHECK texts and generated
// columns' expressions as SQLite does when
// the table is created (sqlite3ResolveSelfReference): a subquery is
// "subqueries prohibited in CHECK constraints", a parameter ($x, :x, ?)
// "parameters prohibited in CHECK constraints", a bare name that is no
// column of t "no such column: x" (t.x and main.t.x name t's own; u.x is
// "no such column: u.x"). A quoted name that is no column is a string to
// SQLite and passes here.
func (p *ddlParser) checkColumns(t *Table) error {
	for _, text := range append(p.checks, p.genExprs...) {
		toks := exprTokens(text)
		for i := 0; i < len(toks); i++ {
			tk := toks[i]
			u := strings.ToUpper(tk.Text)
			switch {
			case tk.Kind == sqllex.Word && u == "SELECT" && i > 0 && toks[i-1].Text == "(":
				return p.fail("subqueries prohibited in CHECK constraints")
			case strings.HasPrefix(tk.Text, "$") || tk.Kind == sqllex.Punct && (tk.Text == "?" || tk.Text == ":" || tk.Text == "@"):
				return p.fail("parameters prohibited in CHECK constraints")
			case tk.Kind != sqllex.Word || checkKeyword(u):
			case i+1 < len(toks) && toks[i+1].Text == "(":
			case i > 0 && (asciiFold(toks[i-1].Text, "AS") || asciiFold(toks[i-1].Text, "COLLATE")):
			case u == "X" && i+1 < len(toks) && toks[i+1].Kind == sqllex.String:
			default:
				n, skip := qualifiedName(toks, i, t.Name)
				if skip < 0 || colIndex(t, UnquoteIdent(toks[i+skip].Text)) < 0 {
					return p.fail("no such column: " + n + " (in CHECK " + abbreviateSQL(text) + ")")
				}
				i += skip
			}
		}
	}
	return nil
}

// qualifiedName reads name, t.name or main.t.name at toks[i] and returns
// its text and how many tokens precede the column's own: -1 when the
// qualifier names another table than table.
func qualifiedName(toks []sqllex.Token, i int, table string) (string, int) {
	parts := []string{toks[i].Text}
	for k := i + 1; k+1 < len(toks) && toks[k].Text == "." && len(parts) < 3; k += 2 {
		parts = append(parts, toks[k+1].Text)
	}
	text := strings.Join(parts, ".")
	switch len(parts) {
	case 2:
		if !asciiFold(UnquoteIdent(parts[0]), table) {
			return text, -1
		}
	case 3: // SQLite does not check the schema of a CHECK's own table
		if !asciiFold(UnquoteIdent(parts[1]), table) {
			return text, -1
		}
	}
	return text, 2 * (len(parts) - 1)
}

// checkKeyword reports whether u is a word of a CHECK expression that
// names no column.
func checkKeyword(u string) bool {
	if sqliteReserved[u] || sqliteKeywordFallback(u) {
		return true
	}
	switch u {
	case "END", "TRUE", "FALSE", "ESCAPE", "ISNULL", "NOTNULL":
		return true
	}
	return false
}

// exprTokens returns the tokens of text without blanks and comments.
func exprTokens(text string) []sqllex.Token {
	var out []sqllex.Token
	for _, t := range sqllex.Tokenize(text) {
		if t.Kind != sqllex.Space && t.Kind != sqllex.Comment {
			out = append(out, t)
		}
	}
	return out
}
