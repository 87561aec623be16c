package catalog

import (
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/sqljudge/sqljudge/internal/engine"
	"github.com/sqljudge/sqljudge/internal/result"
)

// A CHECK constraint arrives as text from a pair's DDL or from a server's
// catalog, both an attacker's. It is never copied into the SQL equiv
// sends: it is parsed here into an expression over the table's columns,
// in a small grammar that every engine reads alike, and printed again for
// the target dialect (Check.SQL), every operation in parentheses. What the
// grammar does not know is refused, and the pair is then Unknown:
//
//   - literals: numbers, '…' strings without a backslash (a backslash is
//     an escape on MySQL and not elsewhere), NULL, TRUE, FALSE;
//   - column names, bare, quoted ("…", `…`, […]) or qualified by the
//     table's own name;
//   - = == <> != < <= > >=, + - * / %, || (CONCAT on MySQL), AND, OR,
//     NOT, IS [NOT] NULL, [NOT] IN (…), [NOT] BETWEEN … AND …, [NOT] LIKE
//     (PostgreSQL's ~~ and !~~ too), and PostgreSQL's x = ANY (ARRAY[…])
//     and x <> ALL (ARRAY[…]) as IN and NOT IN;
//   - CASE [x] WHEN … THEN … [ELSE …] END;
//   - CAST(x AS t) and x::t to an integer, real, decimal or text type;
//   - the functions of checkFuncs, nothing else (no set_config, no
//     pg_sleep, no BENCHMARK, no LOAD_FILE, no user function);
//   - no comment, no $, no #, no ; and no E'…' string.

// Check is a CHECK constraint of a table, parsed; SQL prints it for a
// dialect. The zero Check is not valid.
type Check struct {
	e *cnode
}

// cop is the operation of a node of a CHECK expression.
type cop uint8

const (
	cCol     cop = iota // a column: s its name, col its index
	cNum                // a number: s its text
	cStr                // a string: s its value
	cNull               // NULL
	cBool               // TRUE (s "TRUE") or FALSE
	cNeg                // -kids[0]
	cNot                // NOT kids[0]
	cBinary             // kids[0] s kids[1]: AND, OR, comparison, arithmetic, ||
	cIsNull             // kids[0] IS [NOT] NULL
	cIn                 // kids[0] [NOT] IN (kids[1:])
	cBetween            // kids[0] [NOT] BETWEEN kids[1] AND kids[2]
	cLike               // kids[0] [NOT] LIKE kids[1]
	cCall               // s(kids…): a function of checkFuncs
	cCast               // CAST(kids[0] AS kind)
	cCase               // CASE [kids[0] when hasBase] WHEN … THEN … [ELSE …] END
	cArray              // ARRAY[kids…]: only under ANY / ALL, read as IN
)

// cnode is a node of a CHECK expression.
type cnode struct {
	op   cop
	s    string
	col  int
	not  bool
	kind Family
	base bool // cCase: kids[0] is the CASE operand
	kids []*cnode
}

// checkFuncs are the functions a CHECK may call, by upper-case name: the
// number of arguments allowed (min, max) and the name each dialect calls
// it by.
var checkFuncs = map[string]struct {
	min, max int
	names    map[engine.Dialect]string
}{
	"LENGTH":           {1, 1, map[engine.Dialect]string{engine.SQLite: "length", engine.Postgres: "char_length", engine.MySQL: "CHAR_LENGTH", engine.DuckDB: "length"}},
	"CHAR_LENGTH":      {1, 1, map[engine.Dialect]string{engine.SQLite: "length", engine.Postgres: "char_length", engine.MySQL: "CHAR_LENGTH", engine.DuckDB: "length"}},
	"CHARACTER_LENGTH": {1, 1, map[engine.Dialect]string{engine.SQLite: "length", engine.Postgres: "char_length", engine.MySQL: "CHAR_LENGTH", engine.DuckDB: "length"}},
	"LOWER":            {1, 1, nil},
	"UPPER":            {1, 1, nil},
	"ABS":              {1, 1, nil},
	"COALESCE":         {1, 16, nil},
	"NULLIF":           {2, 2, nil},
	"TRIM":             {1, 1, nil},
	"LTRIM":            {1, 1, nil},
	"RTRIM":            {1, 1, nil},
	"ROUND":            {1, 2, nil},
	"SUBSTR":           {2, 3, map[engine.Dialect]string{engine.MySQL: "SUBSTRING"}},
	"SUBSTRING":        {2, 3, map[engine.Dialect]string{engine.SQLite: "substr", engine.Postgres: "substr", engine.DuckDB: "substr"}},
}

// maxCheckNodes bounds the size of a CHECK expression.
const maxCheckNodes = 2000

// ParseCheck parses the text of a CHECK constraint, with or without its
// outer parentheses, over table t's columns (resolved by name,
// case-insensitively). Its error says what was refused and where.
func ParseCheck(text string, t *Table) (Check, error) {
	toks, err := lexCheck(text)
	if err != nil {
		return Check{}, fmt.Errorf("CHECK %s: %w", abbreviateSQL(text), err)
	}
	p := &checkParser{toks: toks, t: t}
	e, err := p.expr()
	if err == nil && p.i < len(p.toks) {
		err = fmt.Errorf("unexpected %q", p.toks[p.i].text)
	}
	if err != nil {
		return Check{}, fmt.Errorf("CHECK %s: %w", abbreviateSQL(text), err)
	}
	return Check{e: e}, nil
}

// CheckError is the error of a CHECK constraint that ParseCheck
// refuses, with the table it belongs to.
type CheckError struct {
	Table string
	Err   error
}

func (e *CheckError) Error() string { return fmt.Sprintf("table %s: %v", e.Table, e.Err) }

func (e *CheckError) Unwrap() error { return e.Err }

// addChecks parses the CHECK texts of t (ParseCheck) and adds them to
// t.Checks; the error is a *CheckError.
func (t *Table) addChecks(texts []string) error {
	for _, text := range texts {
		c, err := ParseCheck(text, t)
		if err != nil {
			return &CheckError{Table: t.Name, Err: err}
		}
		t.Checks = append(t.Checks, c)
	}
	return nil
}

// rebind returns the constraint with its columns found by name in t (a
// table read elsewhere with the same columns); false when one is missing.
func (c Check) rebind(t *Table) (Check, bool) {
	var walk func(e *cnode) (*cnode, bool)
	walk = func(e *cnode) (*cnode, bool) {
		n := *e
		if n.op == cCol {
			if n.col = t.Col(n.s); n.col < 0 {
				return nil, false
			}
		}
		n.kids = make([]*cnode, len(e.kids))
		for i, k := range e.kids {
			var ok bool
			if n.kids[i], ok = walk(k); !ok {
				return nil, false
			}
		}
		return &n, true
	}
	e, ok := walk(c.e)
	return Check{e: e}, ok
}

// SQL prints the constraint's expression for dialect d, in parentheses,
// with t's column names quoted as ident quotes them and every literal as
// literal writes it.
func (c Check) SQL(d engine.Dialect, t *Table) string {
	var b strings.Builder
	wrap := !c.e.parenthesised(d)
	if wrap {
		b.WriteByte('(')
	}
	c.e.print(&b, d, t)
	if wrap {
		b.WriteByte(')')
	}
	return b.String()
}

// parenthesised reports whether e prints in parentheses of its own.
func (e *cnode) parenthesised(d engine.Dialect) bool {
	switch e.op {
	case cNeg, cNot, cIsNull, cIn, cBetween, cLike, cCase:
		return true
	case cBinary:
		return e.s != "||" || d != engine.MySQL
	}
	return false
}

// String prints the constraint in SQLite's spelling, for messages and
// tests.
func (c Check) String() string {
	if c.e == nil {
		return "<invalid CHECK>"
	}
	var b strings.Builder
	c.e.print(&b, engine.SQLite, nil)
	return b.String()
}

// ctok is a token of a CHECK: its kind and text (a string's or a quoted
// name's value, unquoted).
type ctok struct {
	kind byte // 'w' word, 'q' quoted name, 's' string, 'n' number, 'p' punctuation
	text string
}

var (
	checkNumber = regexp.MustCompile(`^(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?`)
	checkWord   = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*`)
	checkOps    = []string{"!~~", "<>", "!=", "<=", ">=", "==", "||", "::", "~~", "=", "<", ">", "+", "-", "*", "/", "%", "(", ")", ",", ".", "[", "]"}
)

// lexCheck splits a CHECK's text into tokens, refusing what engines read
// differently (see the comment at the top of this file).
func lexCheck(s string) ([]ctok, error) {
	var out []ctok
	for i := 0; i < len(s); {
		if len(out) > maxCheckNodes {
			return nil, fmt.Errorf("more than %d tokens", maxCheckNodes)
		}
		c := s[i]
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
			i++
			continue
		case c == '\'':
			v, n, err := lexQuoted(s[i:], '\'', '\'')
			if err != nil {
				return nil, err
			}
			if strings.ContainsRune(v, '\\') {
				return nil, fmt.Errorf("a string with a backslash (%s) reads differently on each engine", abbreviateSQL(s[i:i+n]))
			}
			out = append(out, ctok{'s', v})
			i += n
			continue
		case c == '"' || c == '`' || c == '[':
			closer := c
			if c == '[' {
				if strings.HasPrefix(s[i:], "[]") || len(out) > 0 && out[len(out)-1].kind == 'w' && strings.EqualFold(out[len(out)-1].text, "ARRAY") {
					out = append(out, ctok{'p', "["})
					i++
					continue
				}
				closer = ']'
			}
			v, n, err := lexQuoted(s[i:], c, closer)
			if err != nil {
				return nil, err
			}
			out = append(out, ctok{'q', v})
			i += n
			continue
		}
		if m := checkNumber.FindString(s[i:]); m != "" {
			if i+len(m) < len(s) && (isIdentByte(s[i+len(m)])) {
				return nil, fmt.Errorf("malformed number at %q", abbreviateSQL(s[i:]))
			}
			out = append(out, ctok{'n', m})
			i += len(m)
			continue
		}
		if m := checkWord.FindString(s[i:]); m != "" {
			if i+len(m) < len(s) && (s[i+len(m)] == '\'' || s[i+len(m)] == '$') {
				return nil, fmt.Errorf("%s%c…: prefixed strings and $ are refused", m, s[i+len(m)])
			}
			out = append(out, ctok{'w', m})
			i += len(m)
			continue
		}
		op := ""
		for _, o := range checkOps {
			if strings.HasPrefix(s[i:], o) {
				op = o
				break
			}
		}
		if op == "" || strings.HasPrefix(s[i:], "--") || strings.HasPrefix(s[i:], "/*") {
			return nil, fmt.Errorf("unexpected %q", abbreviateSQL(s[i:]))
		}
		out = append(out, ctok{'p', op})
		i += len(op)
	}
	return out, nil
}

func isIdentByte(c byte) bool {
	return c == '_' || c == '$' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}

// lexQuoted reads a quoted string or name at the start of s (open
// quote, doubled closers inside) and returns its value and length.
func lexQuoted(s string, open, closer byte) (string, int, error) {
	var b strings.Builder
	for i := 1; i < len(s); i++ {
		if s[i] != closer {
			b.WriteByte(s[i])
			continue
		}
		if open != '[' && i+1 < len(s) && s[i+1] == closer {
			b.WriteByte(closer)
			i++
			continue
		}
		v := b.String()
		if strings.ContainsRune(v, 0) {
			return "", 0, fmt.Errorf("a NUL byte in a quoted text")
		}
		return v, i + 1, nil
	}
	return "", 0, fmt.Errorf("unterminated %c", open)
}

// checkParser is a recursive-descent parser over a CHECK's tokens.
type checkParser struct {
	toks  []ctok
	i     int
	t     *Table
	nodes int
	depth int
}

func (p *checkParser) peekIs(kind byte, texts ...string) bool {
	if p.i >= len(p.toks) || p.toks[p.i].kind != kind {
		return false
	}
	for _, t := range texts {
		if strings.EqualFold(p.toks[p.i].text, t) {
			return true
		}
	}
	return len(texts) == 0
}

// word consumes the keywords ws when they come next.
func (p *checkParser) word(ws ...string) bool {
	for k, w := range ws {
		if p.i+k >= len(p.toks) || p.toks[p.i+k].kind != 'w' || !strings.EqualFold(p.toks[p.i+k].text, w) {
			return false
		}
	}
	p.i += len(ws)
	return true
}

func (p *checkParser) punct(s string) bool {
	if p.peekIs('p', s) {
		p.i++
		return true
	}
	return false
}

func (p *checkParser) want(s string) error {
	if !p.punct(s) {
		return p.errorf("expected %q", s)
	}
	return nil
}

func (p *checkParser) errorf(format string, args ...any) error {
	at := "the end"
	if p.i < len(p.toks) {
		at = fmt.Sprintf("%q", p.toks[p.i].text)
	}
	return fmt.Errorf(format+" at %s", append(args, at)...)
}

func (p *checkParser) node(n *cnode) (*cnode, error) {
	if p.nodes++; p.nodes > maxCheckNodes {
		return nil, fmt.Errorf("more than %d nodes", maxCheckNodes)
	}
	return n, nil
}

// expr := or.
func (p *checkParser) expr() (*cnode, error) {
	if p.depth++; p.depth > 64 {
		return nil, fmt.Errorf("nested deeper than 64")
	}
	defer func() { p.depth-- }()
	return p.binaryLevel(0)
}

// levels are the binary operators by precedence, loosest first; level 2
// is NOT and level 3 the predicates, handled apart.
var levels = [][]string{{"OR"}, {"AND"}, nil, nil, {"||"}, {"+", "-"}, {"*", "/", "%"}}

func (p *checkParser) binaryLevel(l int) (*cnode, error) {
	switch {
	case l == 2:
		if p.word("NOT") {
			k, err := p.binaryLevel(2)
			if err != nil {
				return nil, err
			}
			return p.node(&cnode{op: cNot, kids: []*cnode{k}})
		}
		return p.binaryLevel(3)
	case l == 3:
		return p.predicate()
	case l >= len(levels):
		return p.unary()
	}
	left, err := p.binaryLevel(l + 1)
	if err != nil {
		return nil, err
	}
	for {
		op := ""
		for _, o := range levels[l] {
			if (o == "OR" || o == "AND") && p.word(o) || o != "OR" && o != "AND" && p.punct(o) {
				op = o
				break
			}
		}
		if op == "" {
			return left, nil
		}
		right, err := p.binaryLevel(l + 1)
		if err != nil {
			return nil, err
		}
		if left, err = p.node(&cnode{op: cBinary, s: op, kids: []*cnode{left, right}}); err != nil {
			return nil, err
		}
	}
}

// comparisons maps a comparison's spellings to the one printed.
var comparisons = map[string]string{"=": "=", "==": "=", "<>": "<>", "!=": "<>", "<": "<", "<=": "<=", ">": ">", ">=": ">="}

// predicate := sum [cmp sum | cmp ANY/ALL (ARRAY[…]) | IS [NOT] NULL |
// [NOT] IN (…) | [NOT] BETWEEN sum AND sum | [NOT] LIKE sum | ~~ sum].
func (p *checkParser) predicate() (*cnode, error) {
	left, err := p.binaryLevel(4)
	if err != nil {
		return nil, err
	}
	if p.i < len(p.toks) && p.toks[p.i].kind == 'p' {
		if op, ok := comparisons[p.toks[p.i].text]; ok {
			p.i++
			if p.word("ANY") || p.word("SOME") {
				return p.anyAll(left, op, "=", false)
			}
			if p.word("ALL") {
				return p.anyAll(left, op, "<>", true)
			}
			right, err := p.binaryLevel(4)
			if err != nil {
				return nil, err
			}
			return p.node(&cnode{op: cBinary, s: op, kids: []*cnode{left, right}})
		}
		if p.punct("~~") || p.punct("!~~") {
			neg := p.toks[p.i-1].text == "!~~"
			right, err := p.binaryLevel(4)
			if err != nil {
				return nil, err
			}
			return p.node(&cnode{op: cLike, not: neg, kids: []*cnode{left, right}})
		}
	}
	if p.word("IS") {
		neg := p.word("NOT")
		if !p.word("NULL") {
			return nil, p.errorf("expected IS [NOT] NULL")
		}
		return p.node(&cnode{op: cIsNull, not: neg, kids: []*cnode{left}})
	}
	neg := p.word("NOT")
	switch {
	case p.word("IN"):
		list, err := p.list("(", ")")
		if err != nil {
			return nil, err
		}
		return p.node(&cnode{op: cIn, not: neg, kids: append([]*cnode{left}, list...)})
	case p.word("BETWEEN"):
		lo, err := p.binaryLevel(4)
		if err != nil {
			return nil, err
		}
		if !p.word("AND") {
			return nil, p.errorf("expected AND of BETWEEN")
		}
		hi, err := p.binaryLevel(4)
		if err != nil {
			return nil, err
		}
		return p.node(&cnode{op: cBetween, not: neg, kids: []*cnode{left, lo, hi}})
	case p.word("LIKE"):
		right, err := p.binaryLevel(4)
		if err != nil {
			return nil, err
		}
		return p.node(&cnode{op: cLike, not: neg, kids: []*cnode{left, right}})
	case neg:
		return nil, p.errorf("expected IN, BETWEEN or LIKE after NOT")
	}
	return left, nil
}

// anyAll reads ( ARRAY[…] ) after x op ANY or x op ALL: x = ANY is x IN
// (…), x <> ALL is x NOT IN (…); other forms are refused.
func (p *checkParser) anyAll(left *cnode, op, want string, not bool) (*cnode, error) {
	if op != want {
		return nil, p.errorf("only = ANY and <> ALL are read")
	}
	if err := p.want("("); err != nil {
		return nil, err
	}
	arr, err := p.expr()
	if err != nil {
		return nil, err
	}
	if err := p.want(")"); err != nil {
		return nil, err
	}
	if arr.op != cArray {
		return nil, p.errorf("expected ARRAY[…] under ANY or ALL")
	}
	return p.node(&cnode{op: cIn, not: not, kids: append([]*cnode{left}, arr.kids...)})
}

// list reads open expr [, expr]* close.
func (p *checkParser) list(open, close string) ([]*cnode, error) {
	if err := p.want(open); err != nil {
		return nil, err
	}
	var out []*cnode
	for {
		e, err := p.expr()
		if err != nil {
			return nil, err
		}
		out = append(out, e)
		if p.punct(close) {
			return out, nil
		}
		if err := p.want(","); err != nil {
			return nil, err
		}
	}
}

// unary := [- | +] postfix.
func (p *checkParser) unary() (*cnode, error) {
	if p.punct("-") {
		k, err := p.unary()
		if err != nil {
			return nil, err
		}
		return p.node(&cnode{op: cNeg, kids: []*cnode{k}})
	}
	p.punct("+")
	return p.postfix()
}

// postfix := primary [:: type]*.
func (p *checkParser) postfix() (*cnode, error) {
	e, err := p.primary()
	if err != nil {
		return nil, err
	}
	for p.punct("::") {
		k, array, err := p.typeName()
		if err != nil {
			return nil, err
		}
		switch {
		case array && e.op == cArray:
			// (ARRAY['a'::varchar, …])::text[]: the elements are read alone.
		case array:
			return nil, p.errorf("an array cast of a non-array")
		default:
			if e, err = p.cast(e, k); err != nil {
				return nil, err
			}
		}
	}
	return e, nil
}

// cast returns CAST(e AS k), or e when it is already of kind k.
func (p *checkParser) cast(e *cnode, k Family) (*cnode, error) {
	if e.op == cArray {
		return nil, p.errorf("a cast of an array")
	}
	if familyOfNode(e, p.t) == k {
		return e, nil
	}
	return p.node(&cnode{op: cCast, kind: k, kids: []*cnode{e}})
}

// familyOfNode is the family of a literal or column, or 255 when unknown.
func familyOfNode(e *cnode, t *Table) Family {
	switch e.op {
	case cStr:
		return Text
	case cNum:
		if strings.ContainsAny(e.s, ".eE") {
			return Decimal
		}
		return Integer
	case cCol:
		if t != nil {
			return t.Columns[e.col].Family
		}
	}
	return 255
}

// typeName reads a type after :: or AS: words, an optional (n[, m]), an
// optional [] (array); only integer, real, decimal and text types.
func (p *checkParser) typeName() (Family, bool, error) {
	var words []string
	for p.peekIs('w') {
		words = append(words, strings.ToUpper(p.toks[p.i].text))
		p.i++
	}
	if len(words) == 0 {
		return 0, false, p.errorf("expected a type")
	}
	if p.punct("(") {
		for p.peekIs('n') || p.peekIs('p', ",") {
			p.i++
		}
		if err := p.want(")"); err != nil {
			return 0, false, err
		}
	}
	array := false
	if p.punct("[") {
		if err := p.want("]"); err != nil {
			return 0, false, err
		}
		array = true
	}
	t := strings.Join(words, " ")
	k := FamilyOf(t)
	switch {
	case k == Integer || k == Real || k == Decimal:
	case k == Text && (strings.Contains(t, "CHAR") || strings.Contains(t, "TEXT")):
	default:
		return 0, false, fmt.Errorf("a cast to %s is refused (only integer, real, decimal and text)", t)
	}
	return k, array, nil
}

// primary := literal | column | ( expr ) | ARRAY[…] | CAST(…) | CASE … |
// function(…).
func (p *checkParser) primary() (*cnode, error) {
	if p.i >= len(p.toks) {
		return nil, p.errorf("expected an expression")
	}
	tk := p.toks[p.i]
	switch tk.kind {
	case 'n':
		p.i++
		return p.node(&cnode{op: cNum, s: tk.text})
	case 's':
		p.i++
		return p.node(&cnode{op: cStr, s: tk.text})
	case 'q':
		return p.column()
	case 'p':
		if tk.text != "(" {
			return nil, p.errorf("expected an expression")
		}
		p.i++
		e, err := p.expr()
		if err != nil {
			return nil, err
		}
		return e, p.want(")")
	}
	up := strings.ToUpper(tk.text)
	switch up {
	case "NULL":
		p.i++
		return p.node(&cnode{op: cNull})
	case "TRUE", "FALSE":
		p.i++
		return p.node(&cnode{op: cBool, s: up})
	case "ARRAY":
		p.i++
		list, err := p.list("[", "]")
		if err != nil {
			return nil, err
		}
		return p.node(&cnode{op: cArray, kids: list})
	case "CAST":
		return p.castCall()
	case "CASE":
		return p.caseExpr()
	}
	if p.i+1 < len(p.toks) && p.toks[p.i+1].kind == 'p' && p.toks[p.i+1].text == "(" {
		return p.call()
	}
	return p.column()
}

// column reads [table.]column and resolves it in p.t.
func (p *checkParser) column() (*cnode, error) {
	name := p.toks[p.i].text
	p.i++
	if p.punct(".") {
		if (strings.EqualFold(name, "main") || strings.EqualFold(name, "temp")) && p.i+1 < len(p.toks) && p.toks[p.i+1].kind == 'p' && p.toks[p.i+1].text == "." {
			name = p.toks[p.i].text // SQLite's schema.table.column
			p.i += 2
		}
		if p.t != nil && !strings.EqualFold(name, p.t.Name) {
			return nil, p.errorf("a column of another table (%s)", name)
		}
		if !p.peekIs('w') && !p.peekIs('q') {
			return nil, p.errorf("expected a column name")
		}
		name = p.toks[p.i].text
		p.i++
	}
	col := -1
	if p.t != nil {
		if col = p.t.Col(name); col < 0 {
			return nil, fmt.Errorf("table %s has no column %s", p.t.Name, name)
		}
	}
	return p.node(&cnode{op: cCol, s: name, col: col})
}

// castCall reads CAST ( expr AS type ).
func (p *checkParser) castCall() (*cnode, error) {
	p.i++
	if err := p.want("("); err != nil {
		return nil, err
	}
	e, err := p.expr()
	if err != nil {
		return nil, err
	}
	if !p.word("AS") {
		return nil, p.errorf("expected AS")
	}
	k, array, err := p.typeName()
	if err != nil {
		return nil, err
	}
	if array {
		return nil, p.errorf("a cast to an array")
	}
	if err := p.want(")"); err != nil {
		return nil, err
	}
	return p.cast(e, k)
}

// caseExpr reads CASE [x] WHEN a THEN b … [ELSE c] END.
func (p *checkParser) caseExpr() (*cnode, error) {
	p.i++
	n := &cnode{op: cCase}
	if !p.peekIs('w', "WHEN") {
		x, err := p.expr()
		if err != nil {
			return nil, err
		}
		n.base, n.kids = true, []*cnode{x}
	}
	for p.word("WHEN") {
		w, err := p.expr()
		if err != nil {
			return nil, err
		}
		if !p.word("THEN") {
			return nil, p.errorf("expected THEN")
		}
		th, err := p.expr()
		if err != nil {
			return nil, err
		}
		n.kids = append(n.kids, w, th)
	}
	if len(n.kids) < 2 {
		return nil, p.errorf("expected WHEN")
	}
	if p.word("ELSE") {
		e, err := p.expr()
		if err != nil {
			return nil, err
		}
		n.kids = append(n.kids, e)
		n.s = "ELSE"
	}
	if !p.word("END") {
		return nil, p.errorf("expected END")
	}
	return p.node(n)
}

// call reads name ( args ) of a function of checkFuncs.
func (p *checkParser) call() (*cnode, error) {
	name := strings.ToUpper(p.toks[p.i].text)
	f, ok := checkFuncs[name]
	if !ok {
		return nil, fmt.Errorf("function %s is not one a CHECK may call here (%s)", p.toks[p.i].text, allowedFuncs())
	}
	p.i++
	args, err := p.list("(", ")")
	if err != nil {
		return nil, err
	}
	if len(args) < f.min || len(args) > f.max {
		return nil, fmt.Errorf("%s takes %d to %d arguments, not %d", name, f.min, f.max, len(args))
	}
	return p.node(&cnode{op: cCall, s: name, kids: args})
}

func allowedFuncs() string {
	names := make([]string, 0, len(checkFuncs))
	for n := range checkFuncs {
		names = append(names, n)
	}
	slices.Sort(names)
	return strings.Join(names, ", ")
}

// print writes the expression for dialect d; t (nil for messages) gives
// the columns' quoting.
func (e *cnode) print(b *strings.Builder, d engine.Dialect, t *Table) {
	switch e.op {
	case cCol:
		if t != nil && e.col >= 0 {
			c := t.Columns[e.col]
			b.WriteString(Ident(d, c.Name, c.Unquoted))
		} else if checkWord.FindString(e.s) == e.s {
			b.WriteString(e.s)
		} else {
			b.WriteString(d.QuoteIdent(e.s))
		}
	case cNum:
		b.WriteString(e.s)
	case cStr:
		b.WriteString(Literal(d, result.TextValue(e.s)))
	case cNull:
		b.WriteString("NULL")
	case cBool:
		b.WriteString(e.s)
	case cNeg:
		b.WriteString("(-")
		e.kids[0].print(b, d, t)
		b.WriteByte(')')
	case cNot:
		b.WriteString("(NOT ")
		e.kids[0].print(b, d, t)
		b.WriteByte(')')
	case cBinary:
		e.printBinary(b, d, t)
	case cIsNull:
		b.WriteByte('(')
		e.kids[0].print(b, d, t)
		b.WriteString(map[bool]string{false: " IS NULL)", true: " IS NOT NULL)"}[e.not])
	case cIn:
		b.WriteByte('(')
		e.kids[0].print(b, d, t)
		b.WriteString(map[bool]string{false: " IN (", true: " NOT IN ("}[e.not])
		printList(b, d, t, e.kids[1:])
		b.WriteString("))")
	case cBetween:
		b.WriteByte('(')
		e.kids[0].print(b, d, t)
		b.WriteString(map[bool]string{false: " BETWEEN ", true: " NOT BETWEEN "}[e.not])
		e.kids[1].print(b, d, t)
		b.WriteString(" AND ")
		e.kids[2].print(b, d, t)
		b.WriteByte(')')
	case cLike:
		b.WriteByte('(')
		e.kids[0].print(b, d, t)
		b.WriteString(map[bool]string{false: " LIKE ", true: " NOT LIKE "}[e.not])
		e.kids[1].print(b, d, t)
		b.WriteByte(')')
	case cCall:
		name := strings.ToLower(e.s)
		if n, ok := checkFuncs[e.s].names[d]; ok {
			name = n
		}
		b.WriteString(name)
		b.WriteByte('(')
		printList(b, d, t, e.kids)
		b.WriteByte(')')
	case cCast:
		b.WriteString("CAST(")
		e.kids[0].print(b, d, t)
		b.WriteString(" AS " + castType(d, e.kind) + ")")
	case cCase:
		e.printCase(b, d, t)
	case cArray:
		b.WriteString("ARRAY[")
		printList(b, d, t, e.kids)
		b.WriteByte(']')
	}
}

func (e *cnode) printBinary(b *strings.Builder, d engine.Dialect, t *Table) {
	if e.s == "||" && d == engine.MySQL {
		b.WriteString("CONCAT(")
		printList(b, d, t, e.kids)
		b.WriteByte(')')
		return
	}
	b.WriteByte('(')
	e.kids[0].print(b, d, t)
	b.WriteString(" " + e.s + " ")
	e.kids[1].print(b, d, t)
	b.WriteByte(')')
}

func (e *cnode) printCase(b *strings.Builder, d engine.Dialect, t *Table) {
	b.WriteString("(CASE")
	k := e.kids
	if e.base {
		b.WriteByte(' ')
		k[0].print(b, d, t)
		k = k[1:]
	}
	for len(k) >= 2 {
		b.WriteString(" WHEN ")
		k[0].print(b, d, t)
		b.WriteString(" THEN ")
		k[1].print(b, d, t)
		k = k[2:]
	}
	if len(k) == 1 {
		b.WriteString(" ELSE ")
		k[0].print(b, d, t)
	}
	b.WriteString(" END)")
}

func printList(b *strings.Builder, d engine.Dialect, t *Table, kids []*cnode) {
	for i, k := range kids {
		if i > 0 {
			b.WriteString(", ")
		}
		k.print(b, d, t)
	}
}

// castType is the type a CAST to kind k names on dialect d.
func castType(d engine.Dialect, k Family) string {
	switch k {
	case Integer:
		if d == engine.MySQL {
			return "SIGNED"
		}
		return "INTEGER"
	case Real:
		switch d {
		case engine.MySQL:
			return "DOUBLE"
		case engine.Postgres:
			return "DOUBLE PRECISION"
		}
		return "REAL"
	case Decimal:
		if d == engine.MySQL {
			return "DECIMAL(65, 30)"
		}
		return "NUMERIC"
	}
	if d == engine.MySQL {
		return "CHAR"
	}
	return "TEXT"
}
