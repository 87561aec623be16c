package catalog

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/sqljudge/sqljudge/internal/sqllex"
)

// column reads a column definition: name, type, constraints (parse.y:
// columnname carglist).
func (p *ddlParser) column(t *Table) ([]pendingFK, error) {
	n, err := p.name()
	if err != nil {
		return nil, err
	}
	c := Column{Name: n, Unquoted: !p.quoted}
	typ, err := p.typeToken(&c)
	if err != nil {
		return nil, err
	}
	if colIndex(t, n) >= 0 || p.isGenerated(n) {
		return nil, p.fail("duplicate column name: " + n)
	}
	c.Type = typ
	c.TypeName = c.Type
	c.Family = FamilyOf(c.Type)
	if c.Family != Text {
		c.Len = 0
	}
	if strings.HasPrefix(c.Type, "SERIAL") || strings.HasPrefix(c.Type, "BIGSERIAL") || strings.HasPrefix(c.Type, "SMALLSERIAL") {
		c.NotNull = true // PostgreSQL's serial types
	}
	t.Columns = append(t.Columns, c)
	return p.columnConstraints(t, len(t.Columns)-1)
}

// isGenerated reports whether the table's generated columns include n.
func (p *ddlParser) isGenerated(n string) bool {
	for _, g := range p.generated {
		if asciiFold(g, n) {
			return true
		}
	}
	return false
}

// typeToken reads a column's type (parse.y typetoken): words SQLite takes
// for a type name (isTypeWord), then ( signed ) or ( signed , signed ). It
// returns the type as sqlite3AddColumn keeps it: its text upper-cased,
// blanks as one space, arguments as "(n, m)", a trailing GENERATED ALWAYS
// removed (the words of GENERATED ALWAYS AS fall back to names and end up
// in the type), and a type that starts with a quote only that first name
// unquoted (SQLite dequotes the whole text). c.Len is set from an unsigned
// integer argument. MySQL's ENUM(…) and SET(…), and words after the
// arguments (PostgreSQL's TIMESTAMP(6) WITH TIME ZONE), leave SQLite's
// grammar.
func (p *ddlParser) typeToken(c *Column) (string, error) {
	start := p.i
	var words []string
	var spaced []bool
	for p.i < len(p.toks) && isTypeWord(p.toks[p.i]) {
		t := p.toks[p.i]
		if arrayBrackets(t) && p.i > start {
			return "", p.unsupported("column %s: the type %s%s, which SQLite reads as a name and PostgreSQL as an array", c.Name, p.span(start, p.i), t.Text)
		}
		words = append(words, strings.ToUpper(t.Text))
		spaced = append(spaced, p.i > start && p.toks[p.i-1].pos+len(p.toks[p.i-1].Text) < t.pos)
		p.i++
	}
	raw := p.span(start, p.i)
	words = stripGeneratedAlways(words, raw)
	quoted := p.i > start && (p.toks[start].Kind == sqllex.Quoted || p.toks[start].Kind == sqllex.String)
	var b strings.Builder
	for i, w := range words {
		if spaced[i] {
			b.WriteByte(' ')
		}
		b.WriteString(w)
	}
	typ := b.String()
	if quoted {
		typ = strings.ToUpper(UnquoteIdent(p.toks[start].Text))
	}
	switch {
	case p.is("(") && len(words) > 0:
		args, err := p.typeArgs(c, words[len(words)-1])
		if err != nil {
			return "", err
		}
		if quoted {
			c.Len = 0
			args = ""
		}
		typ += args
		for p.i < len(p.toks) && p.toks[p.i].Kind == sqllex.Word && !columnConstraintWord(p.toks[p.i].Text) {
			p.leave("") // PostgreSQL: TIMESTAMP(6) WITH TIME ZONE
			typ += " " + strings.ToUpper(p.toks[p.i].Text)
			p.i++
		}
	case p.is("SET", "("):
		p.leave("")
		p.i++
		p.skipParens()
		typ = strings.TrimSpace(typ + " SET") // MySQL's SET('a', 'b'), read as text
	}
	if p.typeText == nil {
		p.typeText = map[string]string{}
	}
	p.typeText[c.Name] = p.span(start, p.i)
	return typ, nil
}

// arrayBrackets reports whether t is [] or [n], which follows a type
// name as a PostgreSQL array.
func arrayBrackets(t tok) bool {
	if t.Kind != sqllex.Quoted || !strings.HasPrefix(t.Text, "[") {
		return false
	}
	in := strings.TrimSuffix(t.Text[1:], "]")
	return in == "" || isDigits(in)
}

// stripGeneratedAlways removes a trailing ALWAYS, and a GENERATED before
// it, from a type of 16 characters or more, as sqlite3AddColumn does.
func stripGeneratedAlways(words []string, raw string) []string {
	n := len(words)
	if len(raw) < 16 || n == 0 || words[n-1] != "ALWAYS" {
		return words
	}
	words = words[:n-1]
	if n >= 2 && words[n-2] == "GENERATED" {
		words = words[:n-2]
	}
	return words
}

// typeArgs reads a type's arguments, ( signed ) or ( signed , signed )
// with signed a number and an optional sign, and returns them as "(n)" or
// "(n, m)"; c.Len is the first when it is an unsigned integer. MySQL's
// ENUM('a', 'b') value list leaves SQLite's grammar and reads as text.
func (p *ddlParser) typeArgs(c *Column, last string) (string, error) {
	if (last == "ENUM" || last == "SET") && p.at(1).Kind == sqllex.String {
		p.i++
		p.leave("")
		p.i--
		p.skipParens()
		return "", nil
	}
	p.i++ // (
	var nums []string
	for {
		sign := ""
		if p.is("+") || p.is("-") {
			sign = p.peek()
			p.i++
		}
		if p.i >= len(p.toks) || p.toks[p.i].Kind != sqllex.Number {
			return "", p.syntax()
		}
		nums = append(nums, sign+p.toks[p.i].Text)
		p.i++
		if p.accept(")") {
			break
		}
		if len(nums) == 2 || !p.accept(",") {
			return "", p.syntax()
		}
	}
	if isDigits(nums[0]) {
		c.Len, _ = strconv.Atoi(nums[0])
	}
	return "(" + strings.Join(nums, ", ") + ")", nil
}

func isDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return s != "" && len(s) <= 9
}

// columnConstraintWord reports whether w starts a column constraint, in
// SQLite or in the MySQL extensions read after one.
func columnConstraintWord(w string) bool {
	switch strings.ToUpper(w) {
	case "CONSTRAINT", "DEFAULT", "NULL", "NOT", "PRIMARY", "UNIQUE", "CHECK", "REFERENCES",
		"DEFERRABLE", "COLLATE", "GENERATED", "AS", "AUTO_INCREMENT", "UNSIGNED", "SIGNED", "ZEROFILL",
		"COMMENT", "CHARACTER", "CHARSET", "ON", "KEY":
		return true
	}
	return false
}

// columnConstraints reads the constraints after a column's type (parse.y
// carglist): any number, in any order.
func (p *ddlParser) columnConstraints(t *Table, k int) ([]pendingFK, error) {
	var fks []pendingFK
	for p.i < len(p.toks) && p.peek() != "," && p.peek() != ")" {
		fk, err := p.columnConstraint(t, k)
		if err != nil {
			return nil, err
		}
		fks = append(fks, fk...)
	}
	return fks, nil
}

// columnConstraint reads one column constraint (parse.y ccons).
func (p *ddlParser) columnConstraint(t *Table, k int) ([]pendingFK, error) {
	c := &t.Columns[k]
	switch {
	case p.accept("CONSTRAINT"):
		_, err := p.name()
		return nil, err
	case p.is("NOT", "DEFERRABLE"), p.is("DEFERRABLE"):
		return nil, p.deferrable()
	case p.accept("NOT"):
		if err := p.expect("NULL"); err != nil {
			return nil, err
		}
		c.NotNull, c.KeyNotNull = true, false
		return nil, p.onConflict()
	case p.accept("NULL"):
		return nil, p.onConflict()
	case p.accept("PRIMARY"):
		if err := p.expect("KEY"); err != nil {
			return nil, err
		}
		return nil, p.columnPrimaryKey(t, k)
	case p.accept("UNIQUE"):
		if p.is("KEY") {
			p.leave("")
			p.i++
		}
		if !containsSet(t.Uniques, []int{k}) {
			t.Uniques = append(t.Uniques, []int{k})
		}
		return nil, p.onConflict()
	case p.accept("CHECK"):
		if !p.is("(") {
			return nil, p.syntax()
		}
		text, err := p.checkText()
		p.checks = append(p.checks, text)
		return nil, err
	case p.is("REFERENCES"):
		p.columnLevel = true
		fk, err := p.references(t, []string{c.Name})
		p.columnLevel = false
		return []pendingFK{fk}, err
	case p.is("DEFAULT", "AS", "IDENTITY") && strings.HasSuffix(c.Type, "GENERATED BY"):
		p.i++
		p.leave("") // PostgreSQL: GENERATED BY DEFAULT AS IDENTITY
		p.i++
		c.Type = strings.TrimSpace(strings.TrimSuffix(c.Type, "GENERATED BY"))
		c.TypeName, c.Family = c.Type, FamilyOf(c.Type)
		return nil, p.identity(c)
	case p.accept("DEFAULT"):
		return nil, p.defaultValue(c)
	case p.accept("COLLATE"):
		name, err := p.collate()
		c.Collation = name
		return nil, err
	case p.accept("GENERATED"):
		if err := p.expect("ALWAYS", "AS"); err != nil {
			return nil, err
		}
		if p.is("IDENTITY") {
			p.leave("")
			return nil, p.identity(c)
		}
		return nil, p.generatedAs(t, k)
	case p.is("AS", "IDENTITY"):
		p.i++
		p.leave("")
		return nil, p.identity(c)
	case p.accept("AS"):
		return nil, p.generatedAs(t, k)
	}
	return nil, p.mysqlColumnOption(c)
}

// columnPrimaryKey reads [ASC|DESC] [ON CONFLICT …] [AUTOINCREMENT] of a
// column's PRIMARY KEY; DESC sets t.PKDesc (SQLite's INTEGER PRIMARY KEY
// DESC is no alias of the rowid, and may hold NULL).
func (p *ddlParser) columnPrimaryKey(t *Table, k int) error {
	desc := p.accept("DESC")
	if !desc {
		p.accept("ASC")
	}
	if err := p.onConflict(); err != nil {
		return err
	}
	autoinc := p.accept("AUTOINCREMENT")
	switch {
	case p.hasPK:
		return p.fail(fmt.Sprintf("table %q has more than one primary key", t.Name))
	case p.isGenerated(t.Columns[k].Name):
		return p.fail("generated columns cannot be part of the PRIMARY KEY")
	case autoinc && (!integerType(t.Columns[k]) || desc):
		return p.fail("AUTOINCREMENT is only allowed on an INTEGER PRIMARY KEY")
	}
	p.hasPK = true
	t.PK, t.PKDesc = []int{k}, desc
	c := &t.Columns[k]
	c.KeyNotNull = c.KeyNotNull || !c.NotNull
	c.NotNull = true
	return nil
}

// integerType reports whether c's declared type is INTEGER, the type of
// SQLite's rowid alias.
func integerType(c Column) bool { return c.Type == "INTEGER" }

// defaultValue reads what follows DEFAULT (parse.y: DEFAULT term, DEFAULT
// ( expr ), DEFAULT +|- term, DEFAULT id): an expression in parentheses
// must be constant (no column), as sqlite3AddDefaultValue requires.
func (p *ddlParser) defaultValue(c *Column) error {
	if p.isGenerated(c.Name) {
		return p.fail("cannot use DEFAULT on a generated column")
	}
	if p.hasDefault == nil {
		p.hasDefault = map[string]bool{}
	}
	p.hasDefault[c.Name] = true
	switch {
	case p.is("("):
		start := p.i
		if err := p.balanced(); err != nil {
			return err
		}
		if !constantExpr(p.toks[start+1 : p.i-1]) {
			return p.fail(fmt.Sprintf("default value of column [%s] is not constant", c.Name))
		}
		return p.afterDefault()
	case p.is("+") || p.is("-"):
		p.i++
		if !p.term() {
			return p.syntax()
		}
		return p.afterDefault()
	case p.term():
		return p.afterDefault()
	case p.i < len(p.toks) && isID(p.toks[p.i]):
		p.i++
		return p.afterDefault()
	}
	return p.syntax()
}

// isID reports whether t is an identifier to SQLite (parse.y id: ID or
// INDEXED, not a join keyword).
func isID(t tok) bool {
	return t.Kind == sqllex.Quoted || isTypeWord(t) && t.Kind == sqllex.Word || t.Kind == sqllex.Word && asciiFold(t.Text, "INDEXED")
}

// term reads a literal term (parse.y term): a number, a string, a blob
// x'…', NULL or CURRENT_TIME, CURRENT_DATE, CURRENT_TIMESTAMP.
func (p *ddlParser) term() bool {
	if p.i >= len(p.toks) {
		return false
	}
	t := p.toks[p.i]
	switch {
	case t.Kind == sqllex.Number, t.Kind == sqllex.String:
	case t.Kind == sqllex.Word && (asciiFold(t.Text, "x") && p.at(1).Kind == sqllex.String && p.at(1).pos == t.pos+1):
		p.i++
	case p.is("NULL"), p.is("CURRENT_TIME"), p.is("CURRENT_DATE"), p.is("CURRENT_TIMESTAMP"):
	default:
		return false
	}
	p.i++
	return true
}

// afterDefault reads what MySQL and PostgreSQL allow after a default
// value and SQLite does not: a call's arguments (now(), nextval('s')),
// PostgreSQL's ::type casts.
func (p *ddlParser) afterDefault() error {
	for {
		switch {
		case p.is("("):
			p.leave("")
			if err := p.balanced(); err != nil {
				return err
			}
		case p.is(":", ":"):
			p.leave("")
			p.i += 2
			if _, err := p.name(); err != nil {
				return err
			}
			for p.i < len(p.toks) && p.toks[p.i].Kind == sqllex.Word && !columnConstraintWord(p.peek()) {
				p.i++ // character varying
			}
			if p.is("(") {
				p.skipParens()
			}
		case p.i < len(p.toks) && p.toks[p.i].Kind == sqllex.String:
			p.leave("") // MySQL's b'0'
			p.i++
		default:
			return nil
		}
	}
}

// constantExpr reports whether the tokens of a DEFAULT ( expr ) name no
// column: no word but keywords, function names (a word before "("),
// TRUE, FALSE, a type after AS and a collation after COLLATE, and no
// quoted name.
func constantExpr(toks []tok) bool {
	for i, t := range toks {
		switch t.Kind {
		case sqllex.Quoted:
			return false
		case sqllex.Word:
			u := strings.ToUpper(t.Text)
			after := ""
			if i > 0 {
				after = strings.ToUpper(toks[i-1].Text)
			}
			switch {
			case sqliteReserved[u], sqliteKeywordFallback(u), u == "TRUE", u == "FALSE":
			case i+1 < len(toks) && toks[i+1].Text == "(":
			case after == "AS", after == "COLLATE":
			case asciiFold(t.Text, "x") && i+1 < len(toks) && toks[i+1].Kind == sqllex.String:
			default:
				return false
			}
		}
	}
	return true
}

// sqliteKeywordFallback reports whether u is a keyword SQLite reads as an
// expression word of its own (CURRENT_*, CAST, LIKE, GLOB, MATCH, REGEXP,
// ESCAPE's kin) rather than a column.
func sqliteKeywordFallback(u string) bool {
	switch u {
	case "CURRENT_TIME", "CURRENT_DATE", "CURRENT_TIMESTAMP", "CAST", "LIKE", "GLOB", "MATCH", "REGEXP":
		return true
	}
	return false
}

// collate reads the collation name after COLLATE and returns it
// unquoted, as written: SQLite knows BINARY, NOCASE and RTRIM ("no such
// collation sequence" otherwise); another is MySQL's or PostgreSQL's.
func (p *ddlParser) collate() (string, error) {
	if p.i >= len(p.toks) || !isTypeWord(p.toks[p.i]) {
		return "", p.syntax()
	}
	n := UnquoteIdent(p.peek())
	if !sqliteCollations[strings.ToUpper(n)] {
		p.leave("no such collation sequence: " + n)
	}
	p.i++
	return n, nil
}

// generatedAs reads ( expr ) [STORED|VIRTUAL] of a generated column, as
// sqlite3AddGenerated checks it (no DEFAULT before it, no other word
// after it, not part of the primary key).
func (p *ddlParser) generatedAs(t *Table, k int) error {
	c := &t.Columns[k]
	text, err := p.checkText()
	if err != nil {
		return err
	}
	p.genExprs = append(p.genExprs, text)
	kind := ""
	if p.i < len(p.toks) && p.toks[p.i].Kind == sqllex.Word && !columnConstraintWord(p.peek()) {
		kind = strings.ToUpper(p.peek())
		p.i++
	}
	if (kind != "" && kind != "STORED" && kind != "VIRTUAL") || p.hasDefault[c.Name] {
		return p.fail(fmt.Sprintf("error in generated column %q", c.Name))
	}
	if t.InPK(k) {
		return p.fail("generated columns cannot be part of the PRIMARY KEY")
	}
	p.generated = append(p.generated, c.Name)
	return nil
}

// checkText reads ( expr ) of a CHECK or a generated column and returns
// its text.
func (p *ddlParser) checkText() (string, error) {
	start := p.i
	if err := p.balanced(); err != nil {
		return "", err
	}
	return p.span(start, p.i), nil
}

// balanced skips a ( … ) group that must start here and close: SQLite's
// syntax error otherwise.
func (p *ddlParser) balanced() error {
	if !p.is("(") {
		return p.syntax()
	}
	start := p.i
	p.skipParens()
	if p.i-1 <= start || p.toks[p.i-1].Text != ")" || depthOf(p.toks[start:p.i]) != 0 {
		return p.syntax()
	}
	return nil
}

// depthOf returns the parenthesis depth at the end of toks.
func depthOf(toks []tok) int {
	d := 0
	for _, t := range toks {
		switch {
		case t.Kind != sqllex.Punct:
		case t.Text == "(":
			d++
		case t.Text == ")":
			d--
		}
	}
	return d
}
