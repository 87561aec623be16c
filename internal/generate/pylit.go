package generate

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"unicode/utf8"
)

// pyTup is a Python tuple read by parsePyLiteral (a list is []any).
type pyTup []any

// parsePyLiteral reads s as Python's eval and ast.literal_eval read a
// literal expression (the official PythonListOutputParser evals the
// keywords, TestCaseGenerationOutput literal_evals the unit tests):
// leading spaces and tabs are dropped, blank and comment lines before the
// expression skipped, an indented first line refused (IndentationError);
// then one expression of strings (quotes single, double or triple,
// prefixes r, u, any case, adjacent literals concatenated, every Python
// escape), integers, floats, True, False, None, lists and tuples (a
// trailing comma allowed, a bare top-level "a, b" is a tuple), negative
// numbers; then only whitespace and comments. Strings come back as
// string, integers as int64 (or their text when too large), floats as
// float64, None as nil, lists as []any and tuples as pyTup. Names,
// calls, dicts, sets and bytes are errors here (eval would look names up;
// no official reply table case needs them).
func parsePyLiteral(s string) (any, error) {
	s = strings.TrimLeft(s, " \t")
	for {
		line, rest, found := strings.Cut(s, "\n")
		t := strings.TrimLeft(line, " \t\r\f")
		if t != "" && !strings.HasPrefix(t, "#") {
			if t != line {
				return nil, fmt.Errorf("IndentationError: unexpected indent")
			}
			break
		}
		if !found {
			return nil, fmt.Errorf("SyntaxError: empty expression")
		}
		s = rest
	}
	p := &pyLexer{s: s}
	v, err := p.exprList(true)
	if err != nil {
		return nil, err
	}
	p.space(true)
	if p.i < len(p.s) {
		return nil, fmt.Errorf("SyntaxError: invalid syntax at offset %d", p.i)
	}
	return v, nil
}

// pyLexer reads one Python literal expression.
type pyLexer struct {
	s     string
	i     int
	depth int // open brackets: newlines are whitespace inside them
}

// space skips whitespace and comments; newlines only inside brackets or at
// the end (top).
func (p *pyLexer) space(top bool) {
	for p.i < len(p.s) {
		switch c := p.s[p.i]; {
		case c == ' ' || c == '\t' || c == '\f' || c == '\r':
			p.i++
		case c == '\\' && strings.HasPrefix(p.s[p.i:], "\\\n"):
			p.i += 2
		case c == '#':
			for p.i < len(p.s) && p.s[p.i] != '\n' {
				p.i++
			}
		case c == '\n' && (p.depth > 0 || top && strings.TrimSpace(p.s[p.i:]) == "" || top && p.onlyComments()):
			p.i++
		default:
			return
		}
	}
}

// onlyComments tells whether the rest is whitespace and comments.
func (p *pyLexer) onlyComments() bool {
	for _, line := range strings.Split(p.s[p.i:], "\n") {
		if t := strings.TrimSpace(line); t != "" && !strings.HasPrefix(t, "#") {
			return false
		}
	}
	return true
}

// exprList reads expressions separated by commas: one alone is itself,
// several (or one with a trailing comma) a tuple. At top level it ends at
// the end of the text.
func (p *pyLexer) exprList(top bool) (any, error) {
	var items []any
	trailing := false
	for {
		p.space(top)
		if p.i >= len(p.s) || strings.ContainsRune(")]", rune(p.s[p.i])) {
			if len(items) == 0 {
				return nil, fmt.Errorf("SyntaxError: expression expected at offset %d", p.i)
			}
			break
		}
		v, err := p.atom()
		if err != nil {
			return nil, err
		}
		items, trailing = append(items, v), false
		p.space(top)
		if p.i < len(p.s) && p.s[p.i] == ',' {
			p.i++
			trailing = true
			continue
		}
		break
	}
	if len(items) == 1 && !trailing {
		return items[0], nil
	}
	return pyTup(items), nil
}

// atom reads one literal.
func (p *pyLexer) atom() (any, error) {
	c := p.s[p.i]
	switch {
	case c == '[':
		return p.seq('[', ']')
	case c == '(':
		return p.seq('(', ')')
	case c == '-' || c == '+' || c == '.' || c >= '0' && c <= '9':
		return p.number()
	case c == '"' || c == '\'' || strings.ContainsRune("rRuU", rune(c)) && p.i+1 < len(p.s) && (p.s[p.i+1] == '"' || p.s[p.i+1] == '\''):
		return p.strings()
	}
	j := p.i
	for j < len(p.s) && (p.s[j] == '_' || p.s[j] >= 'a' && p.s[j] <= 'z' || p.s[j] >= 'A' && p.s[j] <= 'Z' || p.s[j] >= '0' && p.s[j] <= '9') {
		j++
	}
	switch name := p.s[p.i:j]; name {
	case "True", "False":
		p.i = j
		return name == "True", nil
	case "None":
		p.i = j
		return nil, nil
	case "":
		return nil, fmt.Errorf("SyntaxError: invalid syntax at offset %d", p.i)
	default:
		return nil, fmt.Errorf("NameError: name %q is not a literal", name)
	}
}

// seq reads a list or a parenthesised expression or tuple.
func (p *pyLexer) seq(open, close byte) (any, error) {
	p.i++
	p.depth++
	defer func() { p.depth-- }()
	p.space(false)
	if p.i < len(p.s) && p.s[p.i] == close {
		p.i++
		if open == '[' {
			return []any{}, nil
		}
		return pyTup{}, nil
	}
	v, err := p.exprList(false)
	if err != nil {
		return nil, err
	}
	p.space(false)
	if p.i >= len(p.s) || p.s[p.i] != close {
		return nil, fmt.Errorf("SyntaxError: %q was never closed", string(open))
	}
	p.i++
	if open == '(' {
		return v, nil
	}
	if t, ok := v.(pyTup); ok {
		return []any(t), nil
	}
	return []any{v}, nil
}

// number reads an integer or a float, with an optional sign.
func (p *pyLexer) number() (any, error) {
	j := p.i
	neg := false
	for j < len(p.s) && (p.s[j] == '-' || p.s[j] == '+' || p.s[j] == ' ') {
		if p.s[j] == '-' {
			neg = !neg
		}
		j++
	}
	k := j
	for k < len(p.s) && (strings.ContainsRune("0123456789_.xXoObBabcdefABCDEF", rune(p.s[k])) || (p.s[k] == '+' || p.s[k] == '-') && (p.s[k-1] == 'e' || p.s[k-1] == 'E')) {
		k++
	}
	text := strings.ReplaceAll(p.s[j:k], "_", "")
	if text == "" {
		return nil, fmt.Errorf("SyntaxError: invalid syntax at offset %d", p.i)
	}
	p.i = k
	if n, err := strconv.ParseInt(text, 0, 64); err == nil && (text == "0" || text[0] != '0' || len(text) > 1 && strings.ContainsRune("xXoObB", rune(text[1]))) {
		if neg {
			n = -n
		}
		return n, nil
	}
	if strings.ContainsAny(text, ".eE") && !strings.ContainsAny(text, "xXoObB") {
		f, err := strconv.ParseFloat(text, 64)
		if err != nil && !math.IsInf(f, 0) {
			return nil, fmt.Errorf("SyntaxError: invalid number %q", text)
		}
		if neg {
			f = -f
		}
		return f, nil
	}
	if strings.Trim(text, "0123456789") == "" && (text[0] != '0' || strings.Trim(text, "0") == "") {
		if neg {
			text = "-" + text
		}
		return text, nil // an integer beyond int64: kept as its digits
	}
	return nil, fmt.Errorf("SyntaxError: invalid number %q", text)
}

// strings reads one or more adjacent string literals and joins them.
func (p *pyLexer) strings() (any, error) {
	var b strings.Builder
	for {
		s, err := p.str()
		if err != nil {
			return nil, err
		}
		b.WriteString(s)
		save := p.i
		p.space(false)
		if p.i < len(p.s) && (p.s[p.i] == '"' || p.s[p.i] == '\'' ||
			strings.ContainsRune("rRuU", rune(p.s[p.i])) && p.i+1 < len(p.s) && (p.s[p.i+1] == '"' || p.s[p.i+1] == '\'')) {
			continue
		}
		p.i = save
		return b.String(), nil
	}
}

// str reads one string literal with its prefix.
func (p *pyLexer) str() (string, error) {
	raw := false
	if c := p.s[p.i]; c == 'r' || c == 'R' || c == 'u' || c == 'U' {
		raw = c == 'r' || c == 'R'
		p.i++
	}
	q := p.s[p.i : p.i+1]
	if strings.HasPrefix(p.s[p.i:], q+q+q) {
		q += q + q
	}
	p.i += len(q)
	var b strings.Builder
	for p.i < len(p.s) {
		if strings.HasPrefix(p.s[p.i:], q) {
			p.i += len(q)
			return b.String(), nil
		}
		c := p.s[p.i]
		switch {
		case c == '\n' && len(q) == 1:
			return "", fmt.Errorf("SyntaxError: unterminated string literal")
		case c == '\\' && p.i+1 < len(p.s) && raw:
			b.WriteString(p.s[p.i : p.i+2])
			p.i += 2
		case c == '\\' && p.i+1 < len(p.s):
			if err := p.escape(&b); err != nil {
				return "", err
			}
		default:
			b.WriteByte(c)
			p.i++
		}
	}
	return "", fmt.Errorf("SyntaxError: unterminated string literal")
}

// escape reads one backslash escape of a non-raw string, as Python does;
// an unknown escape keeps its backslash.
func (p *pyLexer) escape(b *strings.Builder) error {
	c := p.s[p.i+1]
	simple := map[byte]string{'\n': "", '\\': "\\", '\'': "'", '"': "\"", 'a': "\a", 'b': "\b", 'f': "\f", 'n': "\n", 'r': "\r", 't': "\t", 'v': "\v"}
	if r, ok := simple[c]; ok {
		b.WriteString(r)
		p.i += 2
		return nil
	}
	hex := map[byte]int{'x': 2, 'u': 4, 'U': 8}
	if n, ok := hex[c]; ok {
		if p.i+2+n > len(p.s) {
			return fmt.Errorf("SyntaxError: truncated \\%cXX escape", c)
		}
		v, err := strconv.ParseUint(p.s[p.i+2:p.i+2+n], 16, 32)
		if err != nil || v > utf8.MaxRune {
			return fmt.Errorf("SyntaxError: truncated \\%cXX escape", c)
		}
		b.WriteRune(rune(v))
		p.i += 2 + n
		return nil
	}
	if c >= '0' && c <= '7' {
		j := p.i + 1
		for j < len(p.s) && j < p.i+4 && p.s[j] >= '0' && p.s[j] <= '7' {
			j++
		}
		v, _ := strconv.ParseUint(p.s[p.i+1:j], 8, 32)
		b.WriteRune(rune(v))
		p.i = j
		return nil
	}
	if c == 'N' {
		return fmt.Errorf("SyntaxError: \\N{...} escapes are not read")
	}
	b.WriteByte('\\')
	p.i++
	return nil
}

// pyStr renders a scalar as Python's str() does: True, False, None,
// integers in decimal, floats in their shortest repr.
func pyStr(v any) (string, bool) {
	switch x := v.(type) {
	case string:
		return x, true
	case bool:
		if x {
			return "True", true
		}
		return "False", true
	case nil:
		return "None", true
	case int64:
		return strconv.FormatInt(x, 10), true
	case float64:
		return pyFloat(x), true
	}
	return "", false
}

// pyFloat is Python's repr of a float: the shortest digits that read back,
// with ".0" on integral values, exponent form outside [1e-4, 1e16).
func pyFloat(f float64) string {
	switch {
	case math.IsInf(f, 1):
		return "inf"
	case math.IsInf(f, -1):
		return "-inf"
	case math.IsNaN(f):
		return "nan"
	}
	if a := math.Abs(f); a != 0 && (a < 1e-4 || a >= 1e16) {
		return strconv.FormatFloat(f, 'e', -1, 64) // 1e+20, 1e-05 as Python
	}
	s := strconv.FormatFloat(f, 'f', -1, 64)
	if !strings.Contains(s, ".") {
		s += ".0"
	}
	return s
}
