package dbload

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// Error is a problem with a dump: the file, the 1-based line of the
// statement or value, and what was expected.
type Error struct {
	// File is the dump's path as given.
	File string
	// Line is the 1-based line of the statement or row at fault.
	Line int
	// Msg says what was wrong or expected.
	Msg string
}

// Error returns "file:line: message".
func (e *Error) Error() string { return fmt.Sprintf("%s:%d: %s", e.File, e.Line, e.Msg) }

// Dump is a parsed PostgreSQL dump.
type Dump struct {
	// Path is the file it was read from.
	Path string
	// Name is the database it creates: the file name without .sql.
	Name string
	// Stmts are its statements in order.
	Stmts []Stmt
}

// StmtKind classifies a statement.
type StmtKind uint8

// Statement kinds.
const (
	// Other is any statement the translating targets skip (SET, ALTER,
	// CREATE INDEX/SEQUENCE, COMMENT, GRANT, SELECT setval, ...).
	Other StmtKind = iota
	// CreateSchema is CREATE SCHEMA.
	CreateSchema
	// CreateTable is CREATE TABLE; Stmt.Table describes it.
	CreateTable
	// Insert is INSERT INTO ... VALUES; Stmt.Insert holds its rows.
	Insert
	// Copy is COPY ... FROM stdin with its data; Stmt.Insert holds its rows
	// as text values.
	Copy
)

// Stmt is one statement of a dump.
type Stmt struct {
	// Kind classifies the statement; Table and Insert are set by kind.
	Kind StmtKind
	// Line is the line the statement starts on.
	Line int
	// Text is the statement as written, without its ';'.
	Text string
	// Keyword is the statement's first word, lower-case ("create", "set").
	Keyword string
	// Schema is the schema of CREATE SCHEMA.
	Schema string
	// Table describes a CREATE TABLE.
	Table *Table
	// Insert holds the rows of an INSERT or COPY.
	Insert *InsertRows
	// Copy holds the data lines of a COPY FROM stdin, for a verbatim load.
	copy *copyData
	toks []token
}

// Table is a CREATE TABLE.
type Table struct {
	Schema string // "" when unqualified; "public" is kept as written
	// Name is the table's name as PostgreSQL knows it (unquoted names
	// folded to lower case); Spelled is how the dump writes it
	// ("sbCustomer"), the name translated targets use.
	Name, Spelled string
	// Columns are the table's columns in order (table constraints are
	// not kept).
	Columns []Column
}

// Column is one column of a CREATE TABLE.
type Column struct {
	// Name is the column's name as PostgreSQL knows it, Spelled as the dump
	// writes it.
	Name, Spelled string
	// Type is the PostgreSQL type, normalised: lower-case, single spaces,
	// synonyms resolved ("int4" and "int" are "integer", "varchar" is
	// "character varying", "timestamp" is "timestamp without time zone").
	Type string
	// Mods are the type modifiers: varchar(20) has [20], numeric(10,2)
	// has [10 2].
	Mods []int
	// Array is true for an array type (int[]), which is not translated.
	Array bool
	// NotNull is true for NOT NULL and PRIMARY KEY columns.
	NotNull bool
	// Serial is true for serial, bigserial and smallserial: omitted
	// values take the next number of the column's sequence.
	Serial bool
	// Default is the DEFAULT expression's tokens, nil when none.
	Default []token
}

// InsertRows are the rows of an INSERT or COPY.
type InsertRows struct {
	// Schema and Table name the table written into, as the statement
	// names it (Schema "" when unqualified).
	Schema, Table string
	// Columns are the named columns, nil when the statement names none
	// (every column of the table, in order).
	Columns []string
	// Rows hold each row's value expressions (INSERT) or text (COPY).
	Rows []Row
}

// Row is one row of values.
type Row struct {
	// Line is the line the row starts on.
	Line  int
	Exprs [][]token // INSERT: one token slice per value
	Text  []*string // COPY: the text of each value, nil for \N
}

// ReadDump reads and parses the dump at path. The database name is the file
// name without its extension.
func ReadDump(path string) (*Dump, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("cannot read dump: %w", err)
	}
	name := strings.TrimSuffix(filepath.Base(path), filepath.Ext(path))
	return ParseDump(path, name, string(b))
}

// ReadDumps reads the dumps at paths in order (ReadDump); the first that
// cannot be read or parsed ends it with that error, which names the file
// (and, for a parse error, the line: *Error).
func ReadDumps(paths ...string) ([]*Dump, error) {
	out := make([]*Dump, 0, len(paths))
	for _, p := range paths {
		d, err := ReadDump(p)
		if err != nil {
			return nil, err
		}
		out = append(out, d)
	}
	return out, nil
}

// ParseDump parses the text of a dump read from file (used in messages)
// that creates database name.
func ParseDump(file, name, src string) (*Dump, error) {
	sts, err := splitScript(file, src)
	if err != nil {
		return nil, err
	}
	d := &Dump{Path: file, Name: name}
	for _, st := range sts {
		s, err := parseStmt(file, st)
		if err != nil {
			return nil, err
		}
		d.Stmts = append(d.Stmts, s)
	}
	return d, nil
}

// Tables returns the dump's tables by their unqualified, lower-case
// (unquoted) name qualified by schema as written: "consumer_div.users" or
// "users".
func (d *Dump) Tables() map[string]*Table {
	out := map[string]*Table{}
	for _, s := range d.Stmts {
		if s.Kind == CreateTable {
			out[qualified(s.Table.Schema, s.Table.Name)] = s.Table
		}
	}
	return out
}

func qualified(schema, name string) string {
	if schema == "" {
		return name
	}
	return schema + "." + name
}

// parser walks the significant tokens of one statement.
type parser struct {
	file string
	toks []token
	i    int
	line int
}

func (p *parser) errf(format string, args ...any) error {
	line := p.line
	if p.i < len(p.toks) {
		line = p.toks[p.i].Line
	} else if len(p.toks) > 0 {
		line = p.toks[len(p.toks)-1].Line
	}
	return &Error{File: p.file, Line: line, Msg: fmt.Sprintf(format, args...)}
}

func (p *parser) peek() token {
	if p.i < len(p.toks) {
		return p.toks[p.i]
	}
	return token{}
}

func (p *parser) done() bool { return p.i >= len(p.toks) }

// word consumes the keyword w if it comes next.
func (p *parser) word(w string) bool {
	if t := p.peek(); t.Kind == tWord && t.Val == w {
		p.i++
		return true
	}
	return false
}

func (p *parser) punct(c string) bool {
	if t := p.peek(); (t.Kind == tPunct || t.Kind == tOp) && t.Text == c {
		p.i++
		return true
	}
	return false
}

func (p *parser) expectPunct(c string) error {
	if !p.punct(c) {
		return p.errf("expected %q, found %s", c, describeTok(p.peek()))
	}
	return nil
}

func describeTok(t token) string {
	if t.Text == "" {
		return "the end of the statement"
	}
	return fmt.Sprintf("%q", t.Text)
}

// name reads an identifier: a word (folded to lower case), or a quoted
// identifier (kept exact).
func (p *parser) name() (string, error) {
	n, _, err := p.spelledName()
	return n, err
}

// spelledName reads an identifier and also returns it as written.
func (p *parser) spelledName() (name, spelled string, err error) {
	t := p.peek()
	switch t.Kind {
	case tWord:
		p.i++
		return t.Val, t.Text, nil
	case tIdent:
		p.i++
		return t.Val, t.Val, nil
	}
	return "", "", p.errf("expected a name, found %s", describeTok(t))
}

// qname reads name or schema.name.
func (p *parser) qname() (schema, name string, err error) {
	schema, name, _, err = p.qspelled()
	return
}

// qspelled reads name or schema.name, and the name as written.
func (p *parser) qspelled() (schema, name, spelled string, err error) {
	if name, spelled, err = p.spelledName(); err != nil {
		return "", "", "", err
	}
	if p.punct(".") {
		schema = name
		if name, spelled, err = p.spelledName(); err != nil {
			return "", "", "", err
		}
	}
	return schema, name, spelled, nil
}

// group returns the tokens up to the parenthesis closing the one just
// consumed, split at top-level commas, and consumes the closing one.
func (p *parser) group() ([][]token, error) {
	var parts [][]token
	var cur []token
	depth := 0
	for !p.done() {
		t := p.toks[p.i]
		p.i++
		if t.Kind == tPunct {
			switch t.Text {
			case "(", "[":
				depth++
			case ")", "]":
				if depth == 0 {
					if t.Text != ")" {
						return nil, p.errf("unbalanced %q", t.Text)
					}
					parts = append(parts, cur)
					return parts, nil
				}
				depth--
			case ",":
				if depth == 0 {
					parts = append(parts, cur)
					cur = nil
					continue
				}
			}
		}
		cur = append(cur, t)
	}
	return nil, p.errf("missing ')'")
}

func parseStmt(file string, st statement) (Stmt, error) {
	s := Stmt{Line: st.Line, Text: st.Text, toks: st.Tokens, copy: st.Copy}
	if len(st.Tokens) > 0 {
		s.Keyword = st.Tokens[0].Val
	}
	p := &parser{file: file, toks: st.Tokens, line: st.Line}
	switch {
	case p.word("create"):
		p.word("unlogged")
		if p.word("temp") || p.word("temporary") {
			return s, nil
		}
		switch {
		case p.word("schema"):
			if p.word("if") {
				if !p.word("not") || !p.word("exists") {
					return s, p.errf("expected IF NOT EXISTS")
				}
			}
			name, err := p.name()
			if err != nil {
				return s, err
			}
			s.Kind, s.Schema = CreateSchema, name
		case p.word("table"):
			t, err := parseCreateTable(p)
			if err != nil {
				return s, err
			}
			s.Kind, s.Table = CreateTable, t
		}
	case p.word("insert"):
		rows, err := parseInsert(p)
		if err != nil {
			return s, err
		}
		s.Kind, s.Insert = Insert, rows
	case p.word("copy") && st.Copy != nil:
		rows, err := parseCopy(p, st.Copy)
		if err != nil {
			return s, err
		}
		s.Kind, s.Insert = Copy, rows
	}
	return s, nil
}

// columnKeywords end a column's type in CREATE TABLE.
var columnKeywords = map[string]bool{
	"not": true, "null": true, "default": true, "primary": true, "unique": true, "references": true,
	"check": true, "constraint": true, "collate": true, "generated": true,
}

func parseCreateTable(p *parser) (*Table, error) {
	if p.word("if") {
		if !p.word("not") || !p.word("exists") {
			return nil, p.errf("expected IF NOT EXISTS")
		}
	}
	schema, name, spelled, err := p.qspelled()
	if err != nil {
		return nil, err
	}
	t := &Table{Schema: schema, Name: name, Spelled: spelled}
	if err := p.expectPunct("("); err != nil {
		return nil, err
	}
	elems, err := p.group()
	if err != nil {
		return nil, err
	}
	for _, el := range elems {
		if len(el) == 0 {
			return nil, p.errf("empty element in CREATE TABLE %s", name)
		}
		switch el[0].Val {
		case "constraint", "primary", "foreign", "unique", "check", "exclude", "like":
			if el[0].Kind == tWord {
				continue // table constraints are not translated
			}
		}
		c, err := parseColumn(&parser{file: p.file, toks: el, line: el[0].Line})
		if err != nil {
			return nil, err
		}
		t.Columns = append(t.Columns, c)
	}
	if len(t.Columns) == 0 {
		return nil, p.errf("CREATE TABLE %s has no columns", name)
	}
	return t, nil
}

func parseColumn(p *parser) (Column, error) {
	var c Column
	var err error
	if c.Name, c.Spelled, err = p.spelledName(); err != nil {
		return c, err
	}
	if err := parseColumnType(p, &c); err != nil {
		return c, err
	}
	for !p.done() {
		if err := parseColumnConstraint(p, &c); err != nil {
			return c, err
		}
	}
	return c, nil
}

// parseColumnType reads a column's type: its words (a schema prefix
// dropped), modifiers in parentheses and array brackets, up to the first
// constraint keyword.
func parseColumnType(p *parser, c *Column) error {
	var words []string
	for !p.done() {
		t := p.peek()
		if t.Kind == tWord && columnKeywords[t.Val] {
			break
		}
		switch {
		case t.Kind == tWord:
			words = append(words, t.Val)
			p.i++
		case t.Kind == tPunct && t.Text == "(":
			p.i++
			parts, err := p.group()
			if err != nil {
				return err
			}
			for _, part := range parts {
				if len(part) != 1 || part[0].Kind != tNumber {
					return p.errf("column %s: expected a number in the type's parentheses", c.Name)
				}
				var n int
				if _, err := fmt.Sscan(part[0].Val, &n); err != nil {
					return p.errf("column %s: bad type modifier %q", c.Name, part[0].Text)
				}
				c.Mods = append(c.Mods, n)
			}
		case t.Kind == tPunct && t.Text == "[":
			p.i++
			if p.peek().Kind == tNumber {
				p.i++
			}
			if err := p.expectPunct("]"); err != nil {
				return err
			}
			c.Array = true
		case t.Kind == tPunct && t.Text == ".":
			p.i++ // pg_catalog.int4
			words = nil
		default:
			return p.errf("column %s: unexpected %s in its type", c.Name, describeTok(t))
		}
	}
	if len(words) == 0 {
		return p.errf("column %s has no type", c.Name)
	}
	c.Type, c.Serial = normalizeType(strings.Join(words, " "))
	return nil
}

// parseColumnConstraint reads one column constraint: NOT NULL and PRIMARY
// KEY set NotNull, DEFAULT keeps its tokens, REFERENCES, CHECK, UNIQUE,
// COLLATE and CONSTRAINT names are skipped; a generated column is an error.
func parseColumnConstraint(p *parser, c *Column) error {
	switch {
	case p.word("not"):
		if !p.word("null") {
			return p.errf("column %s: expected NULL after NOT", c.Name)
		}
		c.NotNull = true
	case p.word("null"):
	case p.word("primary"):
		p.word("key")
		c.NotNull = true
	case p.word("unique"):
	case p.word("constraint"):
		if _, err := p.name(); err != nil {
			return err
		}
	case p.word("default"):
		return parseColumnDefault(p, c)
	case p.word("references"):
		if _, _, err := p.qname(); err != nil {
			return err
		}
		if p.punct("(") {
			if _, err := p.group(); err != nil {
				return err
			}
		}
		for p.word("on") || p.word("match") {
			for !p.done() && !columnKeywords[p.peek().Val] && p.peek().Val != "on" {
				p.i++
			}
		}
	case p.word("check"):
		if err := p.expectPunct("("); err != nil {
			return err
		}
		if _, err := p.group(); err != nil {
			return err
		}
	case p.word("collate"):
		if _, _, err := p.qname(); err != nil {
			return err
		}
	case p.word("generated"):
		return p.errf("column %s: generated columns are not supported", c.Name)
	default:
		return p.errf("column %s: unexpected %s", c.Name, describeTok(p.peek()))
	}
	return nil
}

// parseColumnDefault keeps the tokens of a DEFAULT expression, up to the
// next constraint keyword outside parentheses.
func parseColumnDefault(p *parser, c *Column) error {
	start := p.i
	depth := 0
	for !p.done() {
		t := p.peek()
		if depth == 0 && t.Kind == tWord && columnKeywords[t.Val] && t.Val != "null" {
			break
		}
		if t.Kind == tPunct && t.Text == "(" {
			depth++
		} else if t.Kind == tPunct && t.Text == ")" {
			depth--
		}
		p.i++
	}
	c.Default = p.toks[start:p.i]
	if len(c.Default) == 0 {
		return p.errf("column %s: DEFAULT without a value", c.Name)
	}
	return nil
}

// typeSynonyms maps PostgreSQL's type spellings to the canonical names of
// format_type().
var typeSynonyms = map[string]string{
	"int": "integer", "int4": "integer", "int2": "smallint", "int8": "bigint",
	"serial": "integer", "serial4": "integer", "bigserial": "bigint", "serial8": "bigint",
	"smallserial": "smallint", "serial2": "smallint",
	"float8": "double precision", "float": "double precision", "float4": "real",
	"decimal": "numeric", "bool": "boolean",
	"varchar": "character varying", "char": "character", "bpchar": "character",
	"timestamp": "timestamp without time zone", "timestamptz": "timestamp with time zone",
	"time": "time without time zone", "timetz": "time with time zone",
	"character varying": "character varying",
}

func normalizeType(t string) (string, bool) {
	serial := strings.Contains(t, "serial")
	if s, ok := typeSynonyms[t]; ok {
		return s, serial
	}
	return t, serial
}

func parseInsert(p *parser) (*InsertRows, error) {
	if !p.word("into") {
		return nil, p.errf("expected INTO after INSERT")
	}
	schema, name, err := p.qname()
	if err != nil {
		return nil, err
	}
	ins := &InsertRows{Schema: schema, Table: name}
	if p.word("as") {
		if _, err := p.name(); err != nil {
			return nil, err
		}
	}
	if p.punct("(") {
		parts, err := p.group()
		if err != nil {
			return nil, err
		}
		for _, part := range parts {
			if len(part) != 1 || (part[0].Kind != tWord && part[0].Kind != tIdent) {
				return nil, p.errf("INSERT INTO %s: expected a column name", name)
			}
			ins.Columns = append(ins.Columns, part[0].Val)
		}
	}
	if !p.word("values") {
		return nil, p.errf("INSERT INTO %s: only INSERT ... VALUES is supported, found %s", name, describeTok(p.peek()))
	}
	for {
		line := p.peek().Line
		if err := p.expectPunct("("); err != nil {
			return nil, err
		}
		vals, err := p.group()
		if err != nil {
			return nil, err
		}
		for _, v := range vals {
			if len(v) == 0 {
				return nil, p.errf("INSERT INTO %s: empty value", name)
			}
		}
		ins.Rows = append(ins.Rows, Row{Line: line, Exprs: vals})
		if !p.punct(",") {
			break
		}
	}
	if !p.done() {
		return nil, p.errf("INSERT INTO %s: unsupported %s after VALUES (ON CONFLICT, RETURNING)", name, describeTok(p.peek()))
	}
	return ins, nil
}

func parseCopy(p *parser, cd *copyData) (*InsertRows, error) {
	schema, name, err := p.qname()
	if err != nil {
		return nil, err
	}
	ins := &InsertRows{Schema: schema, Table: name}
	if p.punct("(") {
		parts, err := p.group()
		if err != nil {
			return nil, err
		}
		for _, part := range parts {
			if len(part) != 1 {
				return nil, p.errf("COPY %s: expected a column name", name)
			}
			ins.Columns = append(ins.Columns, part[0].Val)
		}
	}
	if !p.word("from") || !p.word("stdin") {
		return nil, p.errf("COPY %s: expected FROM stdin", name)
	}
	if !p.done() {
		return nil, p.errf("COPY %s: options are not supported (text format only), found %s", name, describeTok(p.peek()))
	}
	for k, l := range cd.Lines {
		fields := strings.Split(l, "\t")
		row := Row{Line: cd.Line + k}
		for _, f := range fields {
			if f == `\N` {
				row.Text = append(row.Text, nil)
				continue
			}
			v, err := unescapeCopy(f)
			if err != nil {
				return nil, &Error{File: p.file, Line: row.Line, Msg: err.Error()}
			}
			row.Text = append(row.Text, &v)
		}
		ins.Rows = append(ins.Rows, row)
	}
	return ins, nil
}

// unescapeCopy decodes COPY's text format escapes (\t, \n, \\, \NNN, \xHH).
func unescapeCopy(f string) (string, error) {
	if !strings.Contains(f, `\`) {
		return f, nil
	}
	var b strings.Builder
	for i := 0; i < len(f); i++ {
		c := f[i]
		if c != '\\' || i+1 == len(f) {
			b.WriteByte(c)
			continue
		}
		i++
		switch e := f[i]; e {
		case 'b':
			b.WriteByte('\b')
		case 'f':
			b.WriteByte('\f')
		case 'n':
			b.WriteByte('\n')
		case 'r':
			b.WriteByte('\r')
		case 't':
			b.WriteByte('\t')
		case 'v':
			b.WriteByte('\v')
		case 'x':
			n, j := 0, i+1
			for ; j < len(f) && j < i+3 && isHex(f[j]); j++ {
				n = n*16 + hexVal(f[j])
			}
			if j == i+1 {
				return "", fmt.Errorf(`bad COPY escape \x`)
			}
			b.WriteByte(byte(n))
			i = j - 1
		default:
			if e >= '0' && e <= '7' {
				n, j := 0, i
				for ; j < len(f) && j < i+3 && f[j] >= '0' && f[j] <= '7'; j++ {
					n = n*8 + int(f[j]-'0')
				}
				b.WriteByte(byte(n))
				i = j - 1
			} else {
				b.WriteByte(e)
			}
		}
	}
	return b.String(), nil
}

func isHex(c byte) bool { return isDigit(c) || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F' }

func hexVal(c byte) int {
	switch {
	case isDigit(c):
		return int(c - '0')
	case c >= 'a' && c <= 'f':
		return int(c-'a') + 10
	}
	return int(c-'A') + 10
}
