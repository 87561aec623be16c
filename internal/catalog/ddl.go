package catalog

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/sqljudge/sqljudge/internal/sqllex"
)

// ParseDDL reads the CREATE TABLE statements of ddl into a Database (its
// Dialect "", its tables ordered by OrderByReferences), in SQLite, PostgreSQL
// or MySQL spelling: identifiers bare or in "…", `…` or […]; column types
// with arguments (VARCHAR(20), DECIMAL(10,2)) and modifiers (UNSIGNED,
// AUTO_INCREMENT, SERIAL, CHARACTER SET x, COLLATE x); column constraints
// NOT NULL, NULL, PRIMARY KEY, UNIQUE, REFERENCES t [(c)], DEFAULT, CHECK;
// table constraints [CONSTRAINT n] PRIMARY KEY (…), UNIQUE [KEY] (…),
// FOREIGN KEY (…) REFERENCES t [(…)], CHECK (…), MySQL KEY/INDEX (…); and
// CREATE UNIQUE INDEX … ON t (…). CREATE INDEX, DROP, SET and comments are
// skipped. Any other statement, or a statement that does not parse, is an
// error naming the statement and what was expected. CHECK constraints are
// parsed (ParseCheck: a small grammar, a few functions; anything else is
// an error) and printed again for the engine to enforce (Table.Checks),
// never copied as written: the search does not model them, and skips a
// database the engine refuses. A column type's arguments must be one or two
// integers.
func ParseDDL(ddl string) (*Database, error) {
	s := &Database{}
	var pending []pendingFK
	for i, stmt := range splitStatements(ddl) {
		p := &ddlParser{toks: stmt, src: ddl}
		t, fks, err := p.statement()
		if err != nil {
			return nil, fmt.Errorf("statement %d (%s): %w", i+1, abbreviate(stmt), err)
		}
		if t != nil {
			s.Tables = append(s.Tables, t)
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

// pendingFK is a foreign key or a unique index by column names, resolved
// once every table is read.
type pendingFK struct {
	table    string
	cols     []string
	refTable string
	refCols  []string // nil: the referenced table's primary key
	unique   bool     // a CREATE UNIQUE INDEX, not a foreign key
}

func (p pendingFK) resolve(s *Database) error {
	t := s.Table(p.table)
	if t == nil {
		return fmt.Errorf("index on unknown table %s", p.table)
	}
	cols, err := indexes(t, p.cols)
	if err != nil {
		return err
	}
	if p.unique {
		t.Uniques = append(t.Uniques, cols)
		return nil
	}
	ref := s.Table(p.refTable)
	if ref == nil {
		return fmt.Errorf("table %s: foreign key references unknown table %s", t.Name, p.refTable)
	}
	refCols := ref.PK
	if p.refCols != nil {
		if refCols, err = indexes(ref, p.refCols); err != nil {
			return err
		}
	}
	if len(refCols) != len(cols) {
		return fmt.Errorf("table %s: foreign key (%s) references %d columns of %s", t.Name, strings.Join(p.cols, ", "), len(refCols), ref.Name)
	}
	t.FKs = append(t.FKs, ForeignKey{Cols: cols, RefTable: ref.Name, RefCols: refCols, Implicit: p.refCols == nil})
	return nil
}

// indexes returns the indexes of the named columns of t.
func indexes(t *Table, names []string) ([]int, error) {
	out := make([]int, len(names))
	for i, n := range names {
		if out[i] = t.Col(n); out[i] < 0 {
			return nil, fmt.Errorf("table %s has no column %s", t.Name, n)
		}
	}
	return out, nil
}

// splitStatements tokenizes ddl, drops blanks and comments, and splits it
// at top-level semicolons; empty statements are dropped.
func splitStatements(ddl string) [][]tok {
	var out [][]tok
	var cur []tok
	pos := 0
	for _, lt := range sqllex.Tokenize(ddl) {
		t := tok{lt, pos}
		pos += len(lt.Text)
		switch {
		case t.Kind == sqllex.Space || t.Kind == sqllex.Comment:
		case t.Kind == sqllex.Punct && t.Text == ";":
			if len(cur) > 0 {
				out = append(out, cur)
			}
			cur = nil
		default:
			cur = append(cur, t)
		}
	}
	if len(cur) > 0 {
		out = append(out, cur)
	}
	return out
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
	// quoted says whether the last name read was quoted.
	quoted bool
	// checks are the texts of the table's CHECKs, parsed once every
	// column is read.
	checks []string
	// inConstraints is true once a table constraint has been read.
	inConstraints bool
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

func (p *ddlParser) peek() string {
	if p.i < len(p.toks) {
		return p.toks[p.i].Text
	}
	return ""
}

// is reports whether the next tokens are the given words
// (case-insensitive), without consuming them.
func (p *ddlParser) is(words ...string) bool {
	for k, w := range words {
		if p.i+k >= len(p.toks) || !strings.EqualFold(p.toks[p.i+k].Text, w) {
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

func (p *ddlParser) expect(words ...string) error {
	if !p.accept(words...) {
		return p.errorf("expected %s", strings.Join(words, " "))
	}
	return nil
}

func (p *ddlParser) errorf(format string, args ...any) error {
	at := "end of statement"
	if p.i < len(p.toks) {
		at = fmt.Sprintf("%q", p.toks[p.i].Text)
	}
	return fmt.Errorf(format+" at %s", append(args, at)...)
}

// name reads an identifier, possibly qualified (schema.table: the last
// part is kept), and unquotes it.
func (p *ddlParser) name() (string, error) {
	if p.i >= len(p.toks) {
		return "", p.errorf("expected a name")
	}
	t := p.toks[p.i]
	if t.Kind != sqllex.Word && t.Kind != sqllex.Quoted && t.Kind != sqllex.String {
		return "", p.errorf("expected a name")
	}
	p.i++
	n := UnquoteIdent(t.Text)
	p.quoted = n != t.Text
	if p.peek() == "." {
		p.i++
		return p.name()
	}
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

// nameList reads ( name [ASC|DESC] [, …] ).
func (p *ddlParser) nameList() ([]string, error) {
	if err := p.expect("("); err != nil {
		return nil, err
	}
	var out []string
	for {
		n, err := p.name()
		if err != nil {
			return nil, err
		}
		if p.peek() == "(" { // MySQL index prefix length: name(10)
			p.skipParens()
		}
		p.accept("ASC")
		p.accept("DESC")
		out = append(out, n)
		if p.accept(")") {
			return out, nil
		}
		if err := p.expect(","); err != nil {
			return nil, err
		}
	}
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

// statement reads one statement: a CREATE TABLE (returned), a CREATE
// UNIQUE INDEX (returned as a pending unique set), or a statement that
// is skipped.
func (p *ddlParser) statement() (*Table, []pendingFK, error) {
	switch {
	case p.is("CREATE", "UNIQUE", "INDEX"):
		p.i += 3
		fks, err := p.uniqueIndex()
		return nil, fks, err
	case p.is("CREATE", "INDEX"), p.is("DROP"), p.is("SET"), p.is("CREATE", "SCHEMA"), p.is("CREATE", "DATABASE"), p.is("USE"), p.is("BEGIN"), p.is("COMMIT"), p.is("PRAGMA"):
		return nil, nil, nil
	case p.accept("CREATE"):
		p.accept("TEMP")
		p.accept("TEMPORARY")
		p.accept("UNLOGGED")
		if err := p.expect("TABLE"); err != nil {
			return nil, nil, err
		}
		return p.createTable()
	}
	return nil, nil, p.errorf("expected CREATE TABLE")
}

// uniqueIndex reads [IF NOT EXISTS] name ON table (cols) of CREATE UNIQUE
// INDEX.
func (p *ddlParser) uniqueIndex() ([]pendingFK, error) {
	p.accept("IF", "NOT", "EXISTS")
	if !p.is("ON") {
		if _, err := p.name(); err != nil {
			return nil, err
		}
	}
	if err := p.expect("ON"); err != nil {
		return nil, err
	}
	t, err := p.name()
	if err != nil {
		return nil, err
	}
	if p.accept("USING") {
		p.i++
	}
	cols, err := p.nameList()
	if err != nil {
		return nil, err
	}
	return []pendingFK{{table: t, cols: cols, unique: true}}, nil
}

// createTable reads [IF NOT EXISTS] name ( element, … ) [options].
func (p *ddlParser) createTable() (*Table, []pendingFK, error) {
	p.accept("IF", "NOT", "EXISTS")
	n, err := p.name()
	if err != nil {
		return nil, nil, err
	}
	if p.is("AS") {
		return nil, nil, p.errorf("CREATE TABLE … AS SELECT is not supported")
	}
	t := &Table{Name: n, Unquoted: !p.quoted}
	if err := p.expect("("); err != nil {
		return nil, nil, err
	}
	var fks []pendingFK
	for {
		more, err := p.element(t)
		if err != nil {
			return nil, nil, err
		}
		fks = append(fks, more...)
		if p.accept(")") {
			break
		}
		if p.constraintNext() {
			continue // SQLite: "tconscomma ::= ." (parse.y), BIRD's sqlite_master
		}
		if err := p.expect(","); err != nil {
			return nil, nil, err
		}
	}
	for i := range fks {
		fks[i].table = t.Name
	}
	for _, k := range t.PK {
		if !t.Columns[k].NotNull {
			t.Columns[k].KeyNotNull = true
		}
		t.Columns[k].NotNull = true
	}
	if err := t.addChecks(p.checks); err != nil {
		return nil, nil, err
	}
	return t, fks, nil // table options (ENGINE=…, WITHOUT ROWID) are ignored
}

// constraintNext reports whether a table constraint follows a table
// constraint without a comma, as SQLite's grammar lets it
// (https://sqlite.org/lang_createtable.html: conslist, "tconscomma ::= ."
// in parse.y): only once the table's constraints have begun, and only
// before the words that start one.
func (p *ddlParser) constraintNext() bool {
	if !p.inConstraints {
		return false
	}
	for _, w := range []string{"CONSTRAINT", "PRIMARY", "UNIQUE", "CHECK", "FOREIGN"} {
		if p.is(w) {
			return true
		}
	}
	return false
}

// element reads a column definition or a table constraint.
func (p *ddlParser) element(t *Table) ([]pendingFK, error) {
	start := p.i
	fks, err := p.elementAt(t)
	if p.i > start && p.toks[start].Kind == sqllex.Word {
		switch strings.ToUpper(p.toks[start].Text) {
		case "CONSTRAINT", "PRIMARY", "UNIQUE", "CHECK", "FOREIGN":
			p.inConstraints = true
		}
	}
	return fks, err
}

func (p *ddlParser) elementAt(t *Table) ([]pendingFK, error) {
	if p.accept("CONSTRAINT") {
		if _, err := p.name(); err != nil {
			return nil, err
		}
	}
	switch {
	case p.accept("PRIMARY", "KEY"):
		cols, err := p.nameList()
		if err != nil {
			return nil, err
		}
		if t.PK, err = indexes(t, cols); err != nil {
			return nil, err
		}
		p.conflictClause()
		return nil, nil
	case p.accept("UNIQUE"):
		if !p.accept("KEY") {
			p.accept("INDEX")
		}
		if p.peek() != "(" {
			if _, err := p.name(); err != nil {
				return nil, err
			}
		}
		cols, err := p.nameList()
		if err != nil {
			return nil, err
		}
		idx, err := indexes(t, cols)
		if err != nil {
			return nil, err
		}
		t.Uniques = append(t.Uniques, idx)
		p.conflictClause()
		return nil, nil
	case p.accept("FOREIGN", "KEY"):
		if p.peek() != "(" {
			if _, err := p.name(); err != nil {
				return nil, err
			}
		}
		cols, err := p.nameList()
		if err != nil {
			return nil, err
		}
		fk, err := p.references()
		fk.cols = cols
		return []pendingFK{fk}, err
	case p.accept("CHECK"):
		p.checks = append(p.checks, p.parenText())
		return nil, nil
	case p.is("KEY"), p.is("INDEX"), p.is("FULLTEXT"), p.is("SPATIAL"):
		for p.i < len(p.toks) && p.peek() != "(" {
			p.i++
		}
		_, err := p.nameList()
		return nil, err
	}
	return p.column(t)
}

// conflictClause skips SQLite's ON CONFLICT … of a key.
func (p *ddlParser) conflictClause() {
	if p.accept("ON", "CONFLICT") {
		p.i++
	}
}

// references reads REFERENCES table [(cols)] [ON DELETE …] [MATCH …]
// [DEFERRABLE …].
func (p *ddlParser) references() (pendingFK, error) {
	var fk pendingFK
	if err := p.expect("REFERENCES"); err != nil {
		return fk, err
	}
	var err error
	if fk.refTable, err = p.name(); err != nil {
		return fk, err
	}
	if p.peek() == "(" {
		if fk.refCols, err = p.nameList(); err != nil {
			return fk, err
		}
	}
	for {
		switch {
		case p.accept("ON", "DELETE"), p.accept("ON", "UPDATE"):
			switch {
			case p.accept("SET", "NULL"), p.accept("SET", "DEFAULT"), p.accept("NO", "ACTION"):
			default:
				p.i++ // CASCADE, RESTRICT
			}
		case p.accept("MATCH"):
			p.i++
		case p.accept("NOT", "DEFERRABLE"), p.accept("DEFERRABLE"):
			if p.accept("INITIALLY") {
				p.i++
			}
		default:
			return fk, nil
		}
	}
}

// typeStop are the words that end a column's type.
var typeStop = map[string]bool{
	"NOT": true, "NULL": true, "PRIMARY": true, "UNIQUE": true, "REFERENCES": true,
	"DEFAULT": true, "CHECK": true, "CONSTRAINT": true, "AUTO_INCREMENT": true,
	"AUTOINCREMENT": true, "COLLATE": true, "COMMENT": true, "GENERATED": true,
	"ON": true, "KEY": true, "UNSIGNED": true, "SIGNED": true, "ZEROFILL": true,
	"CHARSET": true, "IDENTITY": true, "AS": true,
}

// column reads name type [constraints].
func (p *ddlParser) column(t *Table) ([]pendingFK, error) {
	n, err := p.name()
	if err != nil {
		return nil, err
	}
	c := Column{Name: n, Unquoted: !p.quoted}
	var typ []string
	for p.i < len(p.toks) && p.peek() != "," && p.peek() != ")" {
		w := strings.ToUpper(p.peek())
		if typeStop[w] || p.is("CHARACTER", "SET") {
			break
		}
		if p.toks[p.i].Kind == sqllex.Quoted && strings.HasPrefix(w, "[") {
			return nil, p.errorf("array types are not supported")
		}
		if w == "(" {
			if len(typ) == 0 {
				return nil, p.errorf("expected a type name before (")
			}
			if last := typ[len(typ)-1]; last == "ENUM" || last == "SET" {
				p.skipParens() // MySQL's value list: the column is read as text
				continue
			}
			args, n, err := p.typeArgs()
			if err != nil {
				return nil, err
			}
			c.Len = max(n, 0)
			typ[len(typ)-1] += args
			continue
		}
		typ = append(typ, w)
		p.i++
	}
	c.Type = strings.Join(typ, " ")
	c.TypeName = c.Type
	c.Family = FamilyOf(c.Type)
	if c.Family != Text {
		c.Len = 0
	}
	if len(typ) > 0 && (typ[0] == "SERIAL" || typ[0] == "BIGSERIAL" || typ[0] == "SMALLSERIAL") {
		c.NotNull = true
	}
	t.Columns = append(t.Columns, c)
	return p.columnConstraints(t, len(t.Columns)-1)
}

// typeArgs reads a type's arguments, ( n ) or ( n , m ) with n and m
// unsigned integers, and returns them as "(n)" or "(n, m)" with n.
// Anything else (MySQL's ENUM('a', 'b'), a string, an expression) is an
// error: a declared type is printed again, and only from integers.
func (p *ddlParser) typeArgs() (string, int, error) {
	start := p.i
	p.skipParens()
	ts := p.toks[start:p.i]
	var nums []string
	for k, t := range ts {
		switch {
		case k == 0 || k == len(ts)-1:
			continue // the parentheses
		case k%2 == 1 && t.Kind == sqllex.Number && isDigits(t.Text):
			nums = append(nums, t.Text)
		case k%2 == 0 && t.Text == ",":
		default:
			p.i = start
			return "", 0, p.errorf("expected a type's arguments, one or two integers")
		}
	}
	if len(nums) == 0 || len(nums) > 2 || len(ts) != 2*len(nums)+1 {
		p.i = start
		return "", 0, p.errorf("expected a type's arguments, one or two integers")
	}
	n, err := strconv.Atoi(nums[0])
	if err != nil {
		p.i = start
		return "", 0, p.errorf("a type's argument out of range")
	}
	return "(" + strings.Join(nums, ", ") + ")", n, nil
}

func isDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return s != "" && len(s) <= 9
}

// columnConstraints reads the constraints after a column's type.
func (p *ddlParser) columnConstraints(t *Table, k int) ([]pendingFK, error) {
	c := &t.Columns[k]
	var fks []pendingFK
	for p.i < len(p.toks) && p.peek() != "," && p.peek() != ")" {
		switch {
		case p.accept("CONSTRAINT"):
			if _, err := p.name(); err != nil {
				return nil, err
			}
		case p.accept("NOT", "NULL"):
			c.NotNull, c.KeyNotNull = true, false
		case p.accept("NULL"), p.accept("UNSIGNED"), p.accept("SIGNED"), p.accept("ZEROFILL"),
			p.accept("AUTO_INCREMENT"), p.accept("AUTOINCREMENT"), p.accept("ASC"), p.accept("DESC"):
		case p.accept("PRIMARY", "KEY"):
			t.PK = []int{k}
			c.KeyNotNull = c.KeyNotNull || !c.NotNull
			c.NotNull = true
			p.conflictClause()
		case p.accept("UNIQUE"):
			p.accept("KEY")
			t.Uniques = append(t.Uniques, []int{k})
			p.conflictClause()
		case p.accept("KEY"): // MySQL: a column KEY is its primary key
			t.PK = []int{k}
			c.KeyNotNull = c.KeyNotNull || !c.NotNull
			c.NotNull = true
		case p.is("REFERENCES"):
			fk, err := p.references()
			if err != nil {
				return nil, err
			}
			fk.cols = []string{c.Name}
			fks = append(fks, fk)
		case p.accept("DEFAULT"), p.accept("COMMENT"), p.accept("COLLATE"), p.accept("CHARSET"), p.accept("CHARACTER", "SET"):
			p.skipExpr()
		case p.accept("CHECK"):
			p.checks = append(p.checks, p.parenText())
		case p.accept("ON", "UPDATE"):
			p.skipExpr()
		case p.accept("GENERATED"), p.accept("AS"):
			return nil, p.errorf("generated columns are not supported")
		default:
			return nil, p.errorf("unexpected word in the definition of column %s", c.Name)
		}
	}
	return fks, nil
}

// skipExpr skips one term: a parenthesised group, or a token with an
// optional call's arguments and a ::cast.
func (p *ddlParser) skipExpr() {
	if p.peek() == "(" {
		p.skipParens()
		return
	}
	if p.peek() == "-" || p.peek() == "+" {
		p.i++
	}
	p.i++
	if p.peek() == "(" {
		p.skipParens()
	}
	for p.peek() == ":" && p.i+1 < len(p.toks) && p.toks[p.i+1].Text == ":" {
		p.i += 3
	}
}
