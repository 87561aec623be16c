package catalog

import (
	"fmt"
	"strings"

	"github.com/sqljudge/sqljudge/internal/sqllex"
)

// ParseDDL reads the CREATE TABLE and CREATE UNIQUE INDEX statements of
// ddl into a Database (its Dialect "", its tables ordered by
// OrderByReferences).
//
// SQLite's CREATE TABLE grammar is read as SQLite reads it
// (https://sqlite.org/lang_createtable.html; src/parse.y): names bare,
// quoted ("…", `…`, […]) or as strings, qualified by a schema; type names
// of any number of words (a keyword SQLite lets fall back to a name, such
// as KEY or ASC, is a word of the type, as in SQLite) with one or two
// signed numbers; column constraints in any order, each with its optional
// CONSTRAINT name: NOT NULL and NULL with ON CONFLICT, PRIMARY KEY [ASC|DESC]
// [ON CONFLICT …] [AUTOINCREMENT], UNIQUE, CHECK, DEFAULT (a literal, a
// signed number, a name, CURRENT_TIMESTAMP or an expression in
// parentheses), COLLATE, REFERENCES with ON DELETE/UPDATE/INSERT, MATCH
// and [NOT] DEFERRABLE [INITIALLY …], GENERATED ALWAYS AS (…) [STORED|
// VIRTUAL]; table constraints PRIMARY KEY, UNIQUE, CHECK and FOREIGN KEY,
// with or without commas between them; the table options WITHOUT ROWID
// and STRICT; IF NOT EXISTS (a second table of the same name is then
// skipped) and TEMP. A statement SQLite refuses is refused with SQLite's
// own message ("near "b": syntax error", "duplicate column name: a",
// "table "t" has more than one primary key", ...), measured against
// SQLite itself by TestParseDDLAsSQLite.
//
// It is read as SQLite's PRAGMAs report it: a column's Type is its
// declared type (upper-cased, arguments as "(n, m)"), NotNull from NOT
// NULL or the primary key (KeyNotNull when only the key gives it, but in
// a WITHOUT ROWID table, where SQLite enforces it), the primary key in key
// order, UNIQUE sets from UNIQUE constraints and unique indexes over plain
// columns (an index over an expression or a partial one, … WHERE …, is
// left out, as the SQLite reader leaves it out: it is no key of the
// table), and the foreign keys whose table and columns exist (as
// the SQLite reader keeps them: SQLite accepts a reference to a missing
// table and checks it only when rows are written). A generated column is
// left out of Columns, as PRAGMA table_info leaves it out, and named in
// Table.Generated. A column's COLLATE is kept (Column.Collation, as
// written, unquoted), and so is a column constraint PRIMARY KEY DESC
// (Table.PKDesc: SQLite's INTEGER PRIMARY KEY DESC is no alias of the
// rowid). A key or unique set that names a collation other than its
// column's own, when that one is not the default, is no key by the
// column's comparison and is left out (keyByCollation). Tables named
// sqlite_… (a copy of sqlite_master holds sqlite_sequence) are SQLite's
// own and skipped.
//
// MySQL and PostgreSQL spellings are read too where SQLite would stop:
// AUTO_INCREMENT, UNSIGNED, COMMENT '…', CHARACTER SET x, ON UPDATE … after
// other constraints; ENUM(…) and SET(…) types (read as text);
// TIMESTAMP(6) WITH TIME ZONE; DEFAULT now(), DEFAULT 'x'::text; a COLLATE
// SQLite does not know; GENERATED … AS IDENTITY (NOT NULL); KEY/INDEX
// (…), UNIQUE KEY k (…), FOREIGN KEY k (…); columns after table
// constraints; schema-qualified index tables; ENGINE=… and the other
// table options of MySQL and PostgreSQL. A statement that needs them and
// still fails is refused with SQLite's message first.
//
// CREATE INDEX, DROP, SET and comments are skipped; a NUL byte ends the
// text, as it ends SQLite's. Refused although
// SQLite accepts them (the error says so): CREATE TABLE … AS SELECT, and
// a type with brackets (INT[]), which SQLite reads as a type name and
// PostgreSQL as an array. CHECK constraints are parsed (ParseCheck: a
// small grammar, a few functions; anything else is a *CheckError) and
// printed again for the engine to enforce (Table.Checks), never copied as
// written: the search does not model them, and skips a database the
// engine refuses. The error names the statement.
func ParseDDL(ddl string) (*Database, error) {
	if i := strings.IndexByte(ddl, 0); i >= 0 {
		ddl = ddl[:i] // SQLite reads a statement's text up to a NUL byte
	}
	s := &Database{}
	var pending []pendingFK
	indexes := map[string]bool{}
	for i, stmt := range splitStatements(ddl) {
		p := &ddlParser{toks: stmt.toks, src: ddl, terminated: stmt.terminated}
		t, fks, err := p.statement()
		if err == nil && t != nil {
			err = s.addTable(t, p.ifNotExists)
		}
		if err == nil && p.index != "" {
			p.skip, err = addIndex(indexes, p.index, p.ifNotExists)
		}
		if err != nil {
			return nil, fmt.Errorf("statement %d (%s): %w", i+1, abbreviate(stmt.toks), err)
		}
		if p.skip {
			continue
		}
		pending = append(pending, fks...)
	}
	for _, fk := range pending {
		if err := fk.resolve(s); err != nil {
			return nil, err
		}
	}
	if err := s.Validate(); err != nil {
		return nil, err
	}
	s.OrderByReferences()
	return s, nil
}

// addTable adds t to s, unless t is one of SQLite's own tables (skipped)
// or a table of that name exists: SQLite's "table t already exists", or
// nothing with IF NOT EXISTS.
func (s *Database) addTable(t *Table, ifNotExists bool) error {
	if SQLiteInternal(t.Name) {
		return nil
	}
	if tableNamed(s, t.Name) != nil {
		if ifNotExists {
			return nil
		}
		return fmt.Errorf("table %s already exists", t.Name)
	}
	s.Tables = append(s.Tables, t)
	return nil
}

// addIndex records the unique index named name: a second one is SQLite's
// "index i already exists", or skipped with IF NOT EXISTS.
func addIndex(seen map[string]bool, name string, ifNotExists bool) (skip bool, err error) {
	k := strings.ToLower(name)
	if seen[k] {
		if ifNotExists {
			return true, nil
		}
		return false, fmt.Errorf("index %s already exists", name)
	}
	seen[k] = true
	return false, nil
}

// pendingFK is a foreign key or a unique index by column names, resolved
// once every table is read.
type pendingFK struct {
	table    string
	cols     []string
	refTable string
	refCols  []string // nil: the referenced table's primary key
	unique   bool     // a CREATE UNIQUE INDEX, not a foreign key
	// name is a unique index's name; unmodelled, when not "", what the
	// index is that the model leaves out (Table.Unmodelled).
	name, unmodelled string
	// matchFull is a foreign key's MATCH FULL (ForeignKey.MatchFull).
	matchFull bool
	// colls are the collations a unique index names for its columns,
	// "" where it names none.
	colls []string
}

// resolve adds the unique index or the foreign key to its table. A unique
// index on a table no statement creates is SQLite's "no such table"; a
// foreign key whose table or columns are missing, or whose columns do not
// match the referenced key in number, is left out (SQLite accepts it, and
// the SQLite reader leaves it out).
func (p pendingFK) resolve(s *Database) error {
	t := tableNamed(s, p.table)
	if t == nil {
		if p.unique && !SQLiteInternal(p.table) {
			return fmt.Errorf("no such table: main.%s", p.table)
		}
		return nil
	}
	if p.unmodelled != "" {
		t.unmodelled(p.unmodelled, true)
		return nil
	}
	cols, err := indexes(t, p.cols)
	if err != nil {
		return err
	}
	if p.unique {
		for i, k := range cols {
			if i < len(p.colls) && p.colls[i] != "" && !sameCollation(t.Columns[k].Collation, p.colls[i]) {
				t.unmodelled("unique index "+p.name+" under collation "+p.colls[i], true)
			}
		}
		if !keyByCollation(t, cols, p.colls) {
			return nil // no key by its columns' own comparison
		}
		if !t.IsKey(cols) && !containsSet(t.Uniques, cols) {
			t.Uniques = append(t.Uniques, cols)
		}
		return nil
	}
	ref := tableNamed(s, p.refTable)
	if ref == nil {
		return nil
	}
	refCols := ref.PK
	if p.refCols != nil {
		if refCols, err = indexes(ref, p.refCols); err != nil {
			return nil
		}
	}
	if len(refCols) != len(cols) {
		return nil
	}
	t.FKs = append(t.FKs, ForeignKey{Cols: cols, RefTable: ref.Name, RefCols: refCols, Implicit: p.refCols == nil, MatchFull: p.matchFull})
	return nil
}

// containsSet reports whether sets holds cols.
func containsSet(sets [][]int, cols []int) bool {
	for _, s := range sets {
		if len(s) == len(cols) {
			same := true
			for i := range s {
				same = same && s[i] == cols[i]
			}
			if same {
				return true
			}
		}
	}
	return false
}

// keyByCollation reports whether a key or unique set over t's columns
// cols, under the collations colls ("" where it names none: the
// column's own), is a key by each column's own comparison: every named
// collation is the column's own, or the column's own is the default
// (BINARY on SQLite). A key under BINARY of a NOCASE column is not: it
// keeps 'A' and 'a' apart where the column's comparison ties them. The
// names compare as SQLite compares collation names (asciiFold).
func keyByCollation(t *Table, cols []int, colls []string) bool {
	for i, k := range cols {
		own := t.Columns[k].Collation
		if i < len(colls) && colls[i] != "" && own != "" && !asciiFold(colls[i], own) {
			return false
		}
	}
	return true
}

// indexes returns the indexes of the named columns of t; a missing one is
// SQLite's "no such column".
func indexes(t *Table, names []string) ([]int, error) {
	out := make([]int, len(names))
	for i, n := range names {
		if out[i] = colIndex(t, n); out[i] < 0 {
			return nil, fmt.Errorf("no such column: %s", n)
		}
	}
	return out, nil
}

// statementToks are the tokens of one statement, and whether a semicolon
// ended it (SQLite then says near ";" where the text ends too early).
type statementToks struct {
	toks       []tok
	terminated bool
}

// splitStatements tokenizes ddl, drops blanks and comments, and splits it
// at top-level semicolons; empty statements are dropped.
func splitStatements(ddl string) []statementToks {
	var out []statementToks
	var cur []tok
	pos := 0
	for _, lt := range sqllex.Tokenize(ddl) {
		t := tok{lt, pos}
		pos += len(lt.Text)
		switch {
		case t.Kind == sqllex.Space || t.Kind == sqllex.Comment:
		case t.Kind == sqllex.Punct && t.Text == ";":
			if len(cur) > 0 {
				out = append(out, statementToks{cur, true})
			}
			cur = nil
		case (idByte(t) || t.Kind == sqllex.Number && !strings.Contains(t.Text, ".")) && len(cur) > 0 && idByte(cur[len(cur)-1]) && cur[len(cur)-1].pos+len(cur[len(cur)-1].Text) == t.pos:
			cur[len(cur)-1].Text += t.Text // SQLite: every byte past 0x7f is part of a name
			cur[len(cur)-1].Kind = sqllex.Word
		default:
			if idByte(t) {
				t.Kind = sqllex.Word
			}
			cur = append(cur, t)
		}
	}
	if len(cur) > 0 {
		out = append(out, statementToks{cur, false})
	}
	return out
}

// idByte reports whether t is a word or a character past ASCII, which
// SQLite's tokenizer reads as part of a name (sqllex keeps only letters
// and digits there).
func idByte(t tok) bool {
	return t.Kind == sqllex.Word || t.Kind == sqllex.Punct && t.Text[0] >= 0x80
}

// tok is a token and its byte offset in the DDL text.
type tok struct {
	sqllex.Token
	pos int
}

func abbreviate(ts []tok) string {
	var b strings.Builder
	for i, t := range ts {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(t.Text)
		if b.Len() > 40 {
			return b.String() + " …"
		}
	}
	return b.String()
}

// ddlParser reads one statement's tokens.
type ddlParser struct {
	toks []tok
	src  string
	i    int
	// terminated is true when a semicolon ended the statement.
	terminated bool
	// quoted says whether the last name read was quoted.
	quoted bool
	// checks are the texts of the table's CHECKs, parsed once every
	// column is read.
	checks []string
	// inConstraints is true once a table constraint has been read.
	inConstraints bool
	// sqliteErr is what SQLite would have said where the statement left
	// its grammar (leave), "" while it has not.
	sqliteErr string
	// ifNotExists is true for CREATE … IF NOT EXISTS.
	ifNotExists bool
	// index names the unique index the statement creates.
	index string
	// skip is true for a statement whose object is not created (IF NOT
	// EXISTS of an existing one).
	skip bool
	// columnLevel is true while a column's REFERENCES is read.
	columnLevel bool
	// skipChecks leaves the CHECKs unresolved and unparsed (a reader that
	// wants the columns' declarations only: SQLite's reader, of a
	// statement SQLite has already accepted).
	skipChecks bool
	// hasPK is true once a PRIMARY KEY is read, whether or not it is kept
	// as the table's key (keyByCollation).
	hasPK bool
	// pkAutoinc and pkDesc report an AUTOINCREMENT and a DESC in the
	// last key column list read (keyColumns).
	pkAutoinc, pkDesc bool
	// generated names the table's generated columns, genExprs holds
	// their expressions.
	generated, genExprs []string
	// typeText holds each column's type as written.
	typeText map[string]string
	// hasDefault names the columns given a DEFAULT.
	hasDefault map[string]bool
}

// parenText reads a balanced ( … ) group and returns its text as written,
// parentheses included.
func (p *ddlParser) parenText() string {
	start := p.i
	p.skipParens()
	if start >= len(p.toks) || p.i == start {
		return ""
	}
	last := p.toks[p.i-1]
	return p.src[p.toks[start].pos : last.pos+len(last.Text)]
}

// span returns the text of tokens [from, to) as written.
func (p *ddlParser) span(from, to int) string {
	if from >= to {
		return ""
	}
	last := p.toks[to-1]
	return p.src[p.toks[from].pos : last.pos+len(last.Text)]
}

func (p *ddlParser) peek() string {
	if p.i < len(p.toks) {
		return p.toks[p.i].Text
	}
	return ""
}

// at returns the token k places ahead, or a zero token past the end.
func (p *ddlParser) at(k int) tok {
	if p.i+k < len(p.toks) {
		return p.toks[p.i+k]
	}
	return tok{}
}

// is reports whether the next tokens are the given words or punctuation
// (case-insensitive), without consuming them.
func (p *ddlParser) is(words ...string) bool {
	for k, w := range words {
		if p.i+k >= len(p.toks) || !asciiFold(p.toks[p.i+k].Text, w) || p.toks[p.i+k].Kind == sqllex.Quoted || p.toks[p.i+k].Kind == sqllex.String {
			return false
		}
	}
	return true
}

// accept consumes the words when they come next.
func (p *ddlParser) accept(words ...string) bool {
	if p.is(words...) {
		p.i += len(words)
		return true
	}
	return false
}

// expect consumes the words, or returns SQLite's syntax error.
func (p *ddlParser) expect(words ...string) error {
	for _, w := range words {
		if !p.accept(w) {
			return p.syntax()
		}
	}
	return nil
}

// name reads a name (nm) and unquotes it.
func (p *ddlParser) name() (string, error) {
	if p.i >= len(p.toks) || !isName(p.toks[p.i]) {
		return "", p.syntax()
	}
	t := p.toks[p.i]
	p.i++
	n := UnquoteIdent(t.Text)
	p.quoted = n != t.Text
	return n, nil
}

// UnquoteIdent removes the quotes of a "…", `…` or '…' name (a doubled
// quote inside reads as one) or the brackets of a […] name; any other
// text is returned as is.
func UnquoteIdent(s string) string {
	if len(s) >= 2 {
		switch s[0] {
		case '"', '`', '\'':
			if s[len(s)-1] == s[0] {
				q := s[:1]
				return strings.ReplaceAll(s[1:len(s)-1], q+q, q)
			}
		case '[':
			return strings.TrimSuffix(s[1:], "]")
		}
	}
	return s
}

// skipParens skips a balanced ( … ) group starting at the current token.
func (p *ddlParser) skipParens() {
	depth := 0
	for ; p.i < len(p.toks); p.i++ {
		switch p.toks[p.i].Text {
		case "(":
			depth++
		case ")":
			depth--
			if depth == 0 {
				p.i++
				return
			}
		}
	}
}
