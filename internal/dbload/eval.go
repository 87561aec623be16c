package dbload

import (
	"fmt"
	"math"
	"math/big"
	"strconv"
	"strings"
	"time"
)

// vtype is the PostgreSQL type of an evaluated value.
type vtype uint8

const (
	vNull        vtype = iota
	vUnknown           // an untyped string literal: its type comes from context
	vInt               // integer (int4/int8)
	vNumeric           // numeric (exact, in num)
	vFloat             // double precision
	vText              // text
	vBool              // boolean
	vDate              // date (in tm, midnight UTC)
	vTime              // time of day (in tm, on 2000-01-01 UTC)
	vTimestamp         // timestamp without time zone (wall clock in tm, UTC)
	vTimestampTZ       // timestamp with time zone (the instant in tm; session zone UTC)
	vInterval          // interval (in iv)
	vBytes             // bytea (in s)
)

var vtypeNames = [...]string{"null", "unknown", "integer", "numeric", "double precision", "text", "boolean",
	"date", "time", "timestamp", "timestamp with time zone", "interval", "bytea"}

// String returns the PostgreSQL name of t ("integer", "text", ...).
func (t vtype) String() string { return vtypeNames[t] }

// interval is PostgreSQL's interval: months, days and microseconds kept
// apart (a month is not a fixed number of days).
type interval struct {
	months, days, us int64
}

func (a interval) neg() interval { return interval{-a.months, -a.days, -a.us} }

func (a interval) add(b interval) interval {
	return interval{a.months + b.months, a.days + b.days, a.us + b.us}
}

// value is the result of evaluating an expression.
type value struct {
	t   vtype
	i   int64
	num *big.Rat
	// scale is a numeric's display scale when scaled (a literal's digits
	// after the point, a column's declared scale); an unscaled numeric
	// prints its shortest exact form.
	scale  int
	scaled bool
	f32    bool // a real (float4): printed and stored as its shortest float4 text
	bpchar bool // a char(n) text, whose trailing spaces a conversion to text drops
	f      float64
	s      string
	b      bool
	tm     time.Time
	iv     interval
}

// evalEnv is what evaluation depends on besides the expression: the
// clock, fixed for a whole load (NOW() and CURRENT_DATE are the same in
// every row, as in one transaction).
type evalEnv struct {
	now  time.Time // UTC, truncated to microseconds
	file string
}

// exprParser evaluates one value expression of an INSERT or DEFAULT.
type exprParser struct {
	env  *evalEnv
	toks []token
	i    int
	line int
}

func (p *exprParser) errf(format string, args ...any) error {
	line := p.line
	if p.i < len(p.toks) {
		line = p.toks[p.i].Line
	}
	return &Error{File: p.env.file, Line: line, Msg: fmt.Sprintf(format, args...)}
}

func (p *exprParser) peek() token { return p.tokAt(p.i) }

// tokAt returns token i, or a zero token past the end.
func (p *exprParser) tokAt(i int) token {
	if i < len(p.toks) {
		return p.toks[i]
	}
	return token{}
}

func (p *exprParser) isOp(op string) bool {
	t := p.peek()
	return (t.Kind == tOp || t.Kind == tPunct) && t.Text == op
}

func (p *exprParser) isWord(w string) bool {
	t := p.peek()
	return t.Kind == tWord && t.Val == w
}

// evalExpr evaluates a whole expression.
func (env *evalEnv) evalExpr(toks []token) (value, error) {
	line := 0
	if len(toks) > 0 {
		line = toks[0].Line
	}
	p := &exprParser{env: env, toks: toks, line: line}
	v, err := p.concat()
	if err != nil {
		return value{}, err
	}
	if p.i < len(p.toks) {
		return value{}, p.errf("unexpected %s in a value", describeTok(p.peek()))
	}
	return v, nil
}

// concat: a || b (PostgreSQL's "any other operator" precedence, below + -).
func (p *exprParser) concat() (value, error) {
	v, err := p.additive()
	if err != nil {
		return v, err
	}
	for p.isOp("||") {
		p.i++
		w, err := p.additive()
		if err != nil {
			return v, err
		}
		if v.t == vNull || w.t == vNull {
			v = value{t: vNull}
			continue
		}
		v = value{t: vText, s: textOf(v) + textOf(w)}
	}
	return v, nil
}

func (p *exprParser) additive() (value, error) {
	v, err := p.multiplicative()
	if err != nil {
		return v, err
	}
	for p.isOp("+") || p.isOp("-") {
		op := p.peek().Text
		p.i++
		w, err := p.multiplicative()
		if err != nil {
			return v, err
		}
		if v, err = p.arith(op, v, w); err != nil {
			return v, err
		}
	}
	return v, nil
}

func (p *exprParser) multiplicative() (value, error) {
	v, err := p.unary()
	if err != nil {
		return v, err
	}
	for p.isOp("*") || p.isOp("/") || p.isOp("%") {
		op := p.peek().Text
		p.i++
		w, err := p.unary()
		if err != nil {
			return v, err
		}
		if v, err = p.arith(op, v, w); err != nil {
			return v, err
		}
	}
	return v, nil
}

func (p *exprParser) unary() (value, error) {
	if p.isOp("-") || p.isOp("+") {
		op := p.peek().Text
		p.i++
		v, err := p.unary()
		if err != nil || op == "+" {
			return v, err
		}
		return p.negate(v)
	}
	return p.postfix()
}

func (p *exprParser) negate(v value) (value, error) {
	switch v.t {
	case vNull:
		return v, nil
	case vInt:
		return value{t: vInt, i: -v.i}, nil
	case vNumeric:
		return value{t: vNumeric, num: new(big.Rat).Neg(v.num), scale: v.scale, scaled: v.scaled}, nil
	case vFloat:
		return value{t: vFloat, f: -v.f}, nil
	case vInterval:
		return value{t: vInterval, iv: v.iv.neg()}, nil
	case vUnknown:
		n, err := p.toNumber(v)
		if err != nil {
			return v, err
		}
		return p.negate(n)
	}
	return v, p.errf("cannot negate a %s", v.t)
}

// postfix: primary followed by ::type casts.
func (p *exprParser) postfix() (value, error) {
	v, err := p.primary()
	if err != nil {
		return v, err
	}
	for p.isOp("::") {
		p.i++
		typ, mods, err := p.typeName()
		if err != nil {
			return v, err
		}
		if v, err = p.cast(v, typ, mods); err != nil {
			return v, err
		}
	}
	return v, nil
}

// typeName reads a type in a cast: words, optional (mods), optional [].
func (p *exprParser) typeName() (string, []int, error) {
	var words []string
	for p.peek().Kind == tWord || p.peek().Kind == tIdent {
		w := p.peek().Val
		// stop at keywords that follow a type inside CAST(... AS type) or
		// end it: none of these are type words
		if len(words) > 0 && !typeContinuation(words, w) {
			break
		}
		words = append(words, w)
		p.i++
		if p.isOp(".") {
			p.i++
			words = nil
		}
	}
	if len(words) == 0 {
		return "", nil, p.errf("expected a type name, found %s", describeTok(p.peek()))
	}
	var mods []int
	if p.isOp("(") {
		p.i++
		for {
			t := p.peek()
			if t.Kind != tNumber {
				return "", nil, p.errf("expected a number in a type modifier")
			}
			n, err := strconv.Atoi(t.Val)
			if err != nil {
				return "", nil, p.errf("bad type modifier %q", t.Text)
			}
			mods = append(mods, n)
			p.i++
			if p.isOp(",") {
				p.i++
				continue
			}
			if !p.isOp(")") {
				return "", nil, p.errf("expected ')' after a type modifier")
			}
			p.i++
			break
		}
	}
	typ, _ := normalizeType(strings.Join(words, " "))
	return typ, mods, nil
}

// typeContinuation reports whether word w continues the multi-word type
// so far (double precision, character varying, timestamp with time zone).
func typeContinuation(words []string, w string) bool {
	switch w {
	case "precision", "varying", "with", "without", "time", "zone":
		return true
	}
	return false
}

func (p *exprParser) primary() (value, error) {
	t := p.peek()
	switch t.Kind {
	case tNumber:
		p.i++
		return parseNumberLiteral(t.Val, p)
	case tString:
		p.i++
		return value{t: vUnknown, s: t.Val}, nil
	case tPunct:
		if t.Text == "(" {
			p.i++
			v, err := p.concat()
			if err != nil {
				return v, err
			}
			if !p.isOp(")") {
				return v, p.errf("expected ')', found %s", describeTok(p.peek()))
			}
			p.i++
			return v, nil
		}
	case tWord:
		p.i++
		return p.word(t)
	}
	return value{}, p.errf("unexpected %s in a value", describeTok(t))
}

// word evaluates an expression that starts with word t (already read): a
// constant, a clock function, a typed literal, CAST, EXTRACT or a call.
func (p *exprParser) word(t token) (value, error) {
	switch t.Val {
	case "null":
		return value{t: vNull}, nil
	case "true":
		return value{t: vBool, b: true}, nil
	case "false":
		return value{t: vBool, b: false}, nil
	case "current_date", "current_timestamp", "transaction_timestamp", "statement_timestamp", "clock_timestamp", "localtimestamp", "now":
		return p.clock(t.Val)
	case "interval":
		return p.intervalLiteral()
	case "date", "timestamp", "timestamptz", "time":
		if v, ok, err := p.typedLiteral(t.Val); ok || err != nil {
			return v, err
		}
	case "cast":
		return p.castCall()
	case "extract":
		return p.extract()
	}
	if p.isOp("(") {
		return p.call(t.Val)
	}
	return value{}, &Error{File: p.env.file, Line: t.Line, Msg: fmt.Sprintf("unsupported value %q: only constants, casts and the date/time functions of Defog's dumps are evaluated", t.Text)}
}

// clock evaluates CURRENT_DATE, NOW() and the other clock functions at the
// load's one clock.
func (p *exprParser) clock(fn string) (value, error) {
	switch fn {
	case "current_date":
		return value{t: vDate, tm: dateOf(p.env.now)}, nil
	case "localtimestamp":
		return value{t: vTimestamp, tm: p.env.now}, nil
	}
	if fn != "current_timestamp" || p.isOp("(") {
		if err := p.emptyArgs(fn); err != nil {
			return value{}, err
		}
	}
	return value{t: vTimestampTZ, tm: p.env.now}, nil
}

// intervalLiteral reads INTERVAL 'text' [unit] after INTERVAL.
func (p *exprParser) intervalLiteral() (value, error) {
	s := p.peek()
	if s.Kind != tString {
		return value{}, p.errf("expected a string after INTERVAL")
	}
	p.i++
	text := s.Val
	// INTERVAL '5' DAY: a unit after the literal
	if u := p.peek(); u.Kind == tWord && intervalUnit(u.Val) != "" {
		text += " " + u.Val
		p.i++
	}
	iv, err := parseInterval(text)
	if err != nil {
		return value{}, p.errf("%v", err)
	}
	return value{t: vInterval, iv: iv}, nil
}

// typedLiteral reads the rest of DATE '...', TIMESTAMP [WITH[OUT] TIME
// ZONE] '...' or TIME [WITHOUT TIME ZONE] '...' after the type word typ;
// ok is false when no string follows (typ is then a function name or an
// identifier).
func (p *exprParser) typedLiteral(typ string) (v value, ok bool, err error) {
	zone := 0
	if (typ == "timestamp" || typ == "time") && (p.isWord("with") || p.isWord("without")) {
		if p.isWord("with") && typ == "timestamp" {
			typ = "timestamptz"
		}
		zone = 3 // with/without time zone
	}
	s := p.tokAt(p.i + zone)
	if s.Kind != tString || zone != 0 && !(p.tokAt(p.i+2).Kind == tWord && p.tokAt(p.i+2).Val == "zone") {
		return value{}, false, nil
	}
	p.i += zone + 1
	nt, _ := normalizeType(typ)
	v, err = p.cast(value{t: vUnknown, s: s.Val}, nt, nil)
	return v, true, err
}

// castCall reads CAST(expr AS type) after CAST.
func (p *exprParser) castCall() (value, error) {
	if !p.isOp("(") {
		return value{}, p.errf("expected '(' after CAST")
	}
	p.i++
	v, err := p.concat()
	if err != nil {
		return v, err
	}
	if !p.isWord("as") {
		return v, p.errf("expected AS in CAST")
	}
	p.i++
	typ, mods, err := p.typeName()
	if err != nil {
		return v, err
	}
	if !p.isOp(")") {
		return v, p.errf("expected ')' to end CAST")
	}
	p.i++
	return p.cast(v, typ, mods)
}

func (p *exprParser) emptyArgs(fn string) error {
	if !p.isOp("(") {
		return p.errf("expected '(' after %s", fn)
	}
	p.i++
	if !p.isOp(")") {
		return p.errf("%s() takes no arguments", fn)
	}
	p.i++
	return nil
}

// args reads a parenthesised, comma-separated argument list.
func (p *exprParser) args() ([]value, error) {
	p.i++ // (
	var out []value
	if p.isOp(")") {
		p.i++
		return out, nil
	}
	for {
		v, err := p.concat()
		if err != nil {
			return nil, err
		}
		out = append(out, v)
		if p.isOp(",") {
			p.i++
			continue
		}
		if !p.isOp(")") {
			return nil, p.errf("expected ',' or ')', found %s", describeTok(p.peek()))
		}
		p.i++
		return out, nil
	}
}

func (p *exprParser) call(fn string) (value, error) {
	args, err := p.args()
	if err != nil {
		return value{}, err
	}
	if fn == "concat" { // the one function that is not strict: NULLs are skipped
		var b strings.Builder
		for _, a := range args {
			if a.t != vNull {
				b.WriteString(textOf(a))
			}
		}
		return value{t: vText, s: b.String()}, nil
	}
	for _, a := range args {
		if a.t == vNull {
			return value{t: vNull}, nil // every other supported function is strict
		}
	}
	want := func(n int) error {
		if len(args) != n {
			return p.errf("%s takes %d arguments, not %d", fn, n, len(args))
		}
		return nil
	}
	switch fn {
	case "date_trunc":
		if err := want(2); err != nil {
			return value{}, err
		}
		if args[0].t != vUnknown && args[0].t != vText {
			return value{}, p.errf("date_trunc: the field must be a string")
		}
		src := args[1]
		switch src.t {
		case vDate:
			src = value{t: vTimestampTZ, tm: src.tm} // date_trunc(text, timestamptz)
		case vUnknown:
			return value{}, p.errf("date_trunc on an untyped string is ambiguous: cast it")
		}
		return p.dateTrunc(strings.ToLower(args[0].s), src)
	case "to_char":
		if err := want(2); err != nil {
			return value{}, err
		}
		if args[1].t != vUnknown && args[1].t != vText {
			return value{}, p.errf("to_char: the format must be a string")
		}
		src := args[0]
		switch src.t {
		case vDate:
			src = value{t: vTimestamp, tm: src.tm}
		case vTimestamp, vTimestampTZ:
		default:
			return value{}, p.errf("to_char of a %s is not supported (dates and timestamps only)", src.t)
		}
		return value{t: vText, s: toChar(src.tm, src.t == vTimestampTZ, args[1].s)}, nil
	case "lower", "upper":
		if err := want(1); err != nil {
			return value{}, err
		}
		s := textOf(args[0])
		if fn == "lower" {
			return value{t: vText, s: strings.ToLower(s)}, nil
		}
		return value{t: vText, s: strings.ToUpper(s)}, nil
	}
	return value{}, p.errf("unsupported function %s(): only the date/time functions of Defog's dumps are evaluated", fn)
}

// extract: EXTRACT(field FROM source), a numeric.
func (p *exprParser) extract() (value, error) {
	if !p.isOp("(") {
		return value{}, p.errf("expected '(' after EXTRACT")
	}
	p.i++
	ft := p.peek()
	if ft.Kind != tWord && ft.Kind != tString {
		return value{}, p.errf("expected a field name in EXTRACT")
	}
	p.i++
	field := strings.ToLower(ft.Val)
	if !p.isWord("from") {
		return value{}, p.errf("expected FROM in EXTRACT")
	}
	p.i++
	src, err := p.concat()
	if err != nil {
		return value{}, err
	}
	if !p.isOp(")") {
		return value{}, p.errf("expected ')' to end EXTRACT")
	}
	p.i++
	if src.t == vNull {
		return src, nil
	}
	r, err := extractField(field, src)
	if err != nil {
		return value{}, p.errf("%v", err)
	}
	v := value{t: vNumeric, num: r}
	if src.t != vDate {
		// PostgreSQL 14+: seconds and epochs keep microseconds, milliseconds
		// their thousandths
		switch field {
		case "second", "epoch":
			v.scale, v.scaled = 6, true
		case "milliseconds":
			v.scale, v.scaled = 3, true
		}
	}
	return v, nil
}

func parseNumberLiteral(s string, p *exprParser) (value, error) {
	if !strings.ContainsAny(s, ".eE") {
		if i, err := strconv.ParseInt(s, 10, 64); err == nil {
			return value{t: vInt, i: i}, nil
		}
	}
	r, ok := new(big.Rat).SetString(s)
	if !ok {
		return value{}, p.errf("bad number %q", s)
	}
	return value{t: vNumeric, num: r, scale: literalScale(s), scaled: !strings.ContainsAny(s, "eE")}, nil
}

// toNumber turns an untyped literal into a number (as in '5' + 1).
func (p *exprParser) toNumber(v value) (value, error) {
	if v.t != vUnknown {
		return v, nil
	}
	n, err := parseNumberLiteral(strings.TrimSpace(v.s), p)
	if err != nil {
		return value{}, p.errf("%q is not a number", v.s)
	}
	return n, nil
}

func ratOf(v value) *big.Rat {
	if v.t == vInt {
		return new(big.Rat).SetInt64(v.i)
	}
	return v.num
}

func floatOf(v value) float64 {
	switch v.t {
	case vInt:
		return float64(v.i)
	case vNumeric:
		f, _ := v.num.Float64()
		return f
	}
	return v.f
}

func isNum(t vtype) bool { return t == vInt || t == vNumeric || t == vFloat }

// arith applies + - * / % with PostgreSQL's operator resolution for the
// types a dump uses.
func (p *exprParser) arith(op string, a, b value) (value, error) {
	if a.t == vNull || b.t == vNull {
		return value{t: vNull}, nil
	}
	if a.t == vUnknown && isNum(b.t) {
		var err error
		if a, err = p.toNumber(a); err != nil {
			return a, err
		}
	}
	if b.t == vUnknown && isNum(a.t) {
		var err error
		if b, err = p.toNumber(b); err != nil {
			return b, err
		}
	}
	switch {
	case isNum(a.t) && isNum(b.t):
		return p.numArith(op, a, b)
	case (a.t == vDate || a.t == vTimestamp || a.t == vTimestampTZ) && b.t == vInterval && (op == "+" || op == "-"):
		iv := b.iv
		if op == "-" {
			iv = iv.neg()
		}
		t := a.t
		if t == vDate {
			t = vTimestamp
		}
		return value{t: t, tm: addInterval(a.tm, iv)}, nil
	case a.t == vInterval && (b.t == vDate || b.t == vTimestamp || b.t == vTimestampTZ) && op == "+":
		return p.arith("+", b, a)
	case a.t == vDate && b.t == vInt && (op == "+" || op == "-"):
		d := b.i
		if op == "-" {
			d = -d
		}
		return value{t: vDate, tm: a.tm.AddDate(0, 0, int(d))}, nil
	case a.t == vDate && b.t == vDate && op == "-":
		return value{t: vInt, i: int64(a.tm.Sub(b.tm).Hours() / 24)}, nil
	case (a.t == vTimestamp && b.t == vTimestamp || a.t == vTimestampTZ && b.t == vTimestampTZ) && op == "-":
		us := a.tm.Sub(b.tm).Microseconds()
		day := int64(86400 * 1000000)
		return value{t: vInterval, iv: interval{days: us / day, us: us % day}}, nil
	case a.t == vInterval && b.t == vInterval && (op == "+" || op == "-"):
		iv := b.iv
		if op == "-" {
			iv = iv.neg()
		}
		return value{t: vInterval, iv: a.iv.add(iv)}, nil
	case a.t == vInterval && b.t == vInt && op == "*":
		return value{t: vInterval, iv: interval{a.iv.months * b.i, a.iv.days * b.i, a.iv.us * b.i}}, nil
	case a.t == vInt && b.t == vInterval && op == "*":
		return p.arith("*", b, a)
	}
	return value{}, p.errf("operator %s is not supported between %s and %s", op, a.t, b.t)
}

func (p *exprParser) numArith(op string, a, b value) (value, error) {
	switch {
	case a.t == vFloat || b.t == vFloat:
		x, y := floatOf(a), floatOf(b)
		var r float64
		switch op {
		case "+":
			r = x + y
		case "-":
			r = x - y
		case "*":
			r = x * y
		case "/":
			if y == 0 {
				return value{}, p.errf("division by zero")
			}
			r = x / y
		case "%":
			return value{}, p.errf("%% is not defined for double precision")
		}
		return value{t: vFloat, f: r}, nil
	case a.t == vInt && b.t == vInt:
		x, y := a.i, b.i
		var r int64
		switch op {
		case "+", "-", "*":
			z := new(big.Int).SetInt64(x)
			switch op {
			case "+":
				z.Add(z, big.NewInt(y))
			case "-":
				z.Sub(z, big.NewInt(y))
			default:
				z.Mul(z, big.NewInt(y))
			}
			if !z.IsInt64() {
				return value{}, p.errf("bigint out of range")
			}
			r = z.Int64()
		case "/", "%":
			if y == 0 {
				return value{}, p.errf("division by zero")
			}
			if op == "/" {
				r = x / y
			} else {
				r = x % y
			}
		}
		return value{t: vInt, i: r}, nil
	}
	x, y := ratOf(a), ratOf(b)
	sa, sb := displayScale(a), displayScale(b)
	r := new(big.Rat)
	scale := max(sa, sb)
	switch op {
	case "+":
		r.Add(x, y)
	case "-":
		r.Sub(x, y)
	case "*":
		r.Mul(x, y)
		scale = sa + sb
	case "/":
		if y.Sign() == 0 {
			return value{}, p.errf("division by zero")
		}
		scale = divScale(x, y, sa, sb)
		r = roundHalfAway(r.Quo(x, y), scale)
	case "%":
		return value{}, p.errf("%% on numeric is not supported")
	}
	return value{t: vNumeric, num: r, scale: scale, scaled: true}, nil
}

// displayScale is the display scale of a number: 0 for an integer, a
// numeric's own, or the digits of its shortest exact form.
func displayScale(v value) int {
	switch {
	case v.t != vNumeric:
		return 0
	case v.scaled:
		return v.scale
	}
	s := numericText(v)
	if i := strings.IndexByte(s, '.'); i >= 0 {
		return len(s) - i - 1
	}
	return 0
}

// divScale is PostgreSQL's select_div_scale (numeric.c): at least 16
// significant digits in the quotient, estimated from the leading base-10000
// digits of both operands, and no fewer than either operand's scale.
func divScale(x, y *big.Rat, sx, sy int) int {
	w1, d1 := nbaseLead(x)
	w2, d2 := nbaseLead(y)
	q := w1 - w2
	if d1 <= d2 {
		q--
	}
	return min(max(16-q*4, sx, sy, 0), 1000)
}

// nbaseLead returns the weight (power of 10000) and value of the leading
// nonzero base-10000 digit of |r|, PostgreSQL's numeric digits; 0, 0 for
// zero.
func nbaseLead(r *big.Rat) (weight, digit int) {
	if r.Sign() == 0 {
		return 0, 0
	}
	s := new(big.Rat).Abs(r).FloatString(1000)
	ip, fp, _ := strings.Cut(s, ".")
	if ip != "0" {
		weight = (len(ip) - 1) / 4
		digit, _ = strconv.Atoi(ip[:len(ip)-4*weight])
		return weight, digit
	}
	z := len(fp) - len(strings.TrimLeft(fp, "0"))
	g := fp[4*(z/4) : 4*(z/4)+4]
	digit, _ = strconv.Atoi(g)
	return -(z/4 + 1), digit
}

func dateOf(t time.Time) time.Time {
	return time.Date(t.Year(), t.Month(), t.Day(), 0, 0, 0, 0, time.UTC)
}

func daysIn(y int, m time.Month) int {
	return time.Date(y, m+1, 0, 0, 0, 0, 0, time.UTC).Day()
}

// addInterval is PostgreSQL's timestamp_pl_interval (session zone UTC):
// months first, the day clamped to the length of the resulting month, then
// days, then the time.
func addInterval(t time.Time, iv interval) time.Time {
	if iv.months != 0 {
		y, m, d := t.Date()
		total := int64(y)*12 + int64(m-1) + iv.months
		ny, nm := int(total/12), time.Month(total%12+1)
		if total%12 < 0 {
			ny, nm = int(total/12)-1, time.Month(total%12+13)
		}
		if dim := daysIn(ny, nm); d > dim {
			d = dim
		}
		h, mi, s := t.Clock()
		t = time.Date(ny, nm, d, h, mi, s, t.Nanosecond(), time.UTC)
	}
	if iv.days != 0 {
		t = t.AddDate(0, 0, int(iv.days))
	}
	return t.Add(time.Duration(iv.us) * time.Microsecond)
}

// dateTrunc is date_trunc(field, timestamp[tz]) with session zone UTC.
func (p *exprParser) dateTrunc(field string, src value) (value, error) {
	if src.t == vInterval {
		return value{}, p.errf("date_trunc on an interval is not supported")
	}
	if src.t != vTimestamp && src.t != vTimestampTZ {
		return value{}, p.errf("date_trunc of a %s", src.t)
	}
	t := src.tm
	y, m, d := t.Date()
	h, mi, s := t.Clock()
	ns := t.Nanosecond()
	var r time.Time
	switch field {
	case "microseconds":
		r = t
	case "milliseconds":
		r = time.Date(y, m, d, h, mi, s, ns/1e6*1e6, time.UTC)
	case "second":
		r = time.Date(y, m, d, h, mi, s, 0, time.UTC)
	case "minute":
		r = time.Date(y, m, d, h, mi, 0, 0, time.UTC)
	case "hour":
		r = time.Date(y, m, d, h, 0, 0, 0, time.UTC)
	case "day":
		r = time.Date(y, m, d, 0, 0, 0, 0, time.UTC)
	case "week":
		wd := (int(t.Weekday()) + 6) % 7 // Monday = 0
		r = time.Date(y, m, d-wd, 0, 0, 0, 0, time.UTC)
	case "month":
		r = time.Date(y, m, 1, 0, 0, 0, 0, time.UTC)
	case "quarter":
		r = time.Date(y, (m-1)/3*3+1, 1, 0, 0, 0, 0, time.UTC)
	case "year":
		r = time.Date(y, 1, 1, 0, 0, 0, 0, time.UTC)
	case "decade":
		r = time.Date(floorDiv(y, 10)*10, 1, 1, 0, 0, 0, 0, time.UTC)
	case "century":
		c := (y + 99) / 100
		r = time.Date((c-1)*100+1, 1, 1, 0, 0, 0, 0, time.UTC)
	case "millennium":
		c := (y + 999) / 1000
		r = time.Date((c-1)*1000+1, 1, 1, 0, 0, 0, 0, time.UTC)
	default:
		return value{}, p.errf("date_trunc: unsupported field %q", field)
	}
	return value{t: src.t, tm: r}, nil
}

func floorDiv(a, b int) int {
	q := a / b
	if a%b != 0 && (a < 0) != (b < 0) {
		q--
	}
	return q
}

// extractField is EXTRACT(field FROM src) as a numeric (PostgreSQL 14+).
func extractField(field string, src value) (*big.Rat, error) {
	switch src.t {
	case vDate, vTimestamp, vTimestampTZ:
	case vInterval:
		return extractInterval(field, src.iv)
	case vTime:
		switch field {
		case "hour", "minute", "second", "milliseconds", "microseconds":
		case "epoch":
			return new(big.Rat).SetFrac64(src.tm.Sub(time.Date(2000, 1, 1, 0, 0, 0, 0, time.UTC)).Microseconds(), 1000000), nil
		default:
			return nil, fmt.Errorf("EXTRACT %s from a time is not supported", field)
		}
	default:
		return nil, fmt.Errorf("EXTRACT from a %s is not supported", src.t)
	}
	t := src.tm
	rat := func(i int64) *big.Rat { return new(big.Rat).SetInt64(i) }
	us := int64(t.Nanosecond() / 1000)
	switch field {
	case "epoch":
		return new(big.Rat).SetFrac64(t.Unix()*1000000+us, 1000000), nil
	case "year":
		return rat(int64(t.Year())), nil
	case "month":
		return rat(int64(t.Month())), nil
	case "day":
		return rat(int64(t.Day())), nil
	case "hour":
		return rat(int64(t.Hour())), nil
	case "minute":
		return rat(int64(t.Minute())), nil
	case "second":
		return new(big.Rat).SetFrac64(int64(t.Second())*1000000+us, 1000000), nil
	case "milliseconds":
		return new(big.Rat).SetFrac64(int64(t.Second())*1000000+us, 1000), nil
	case "microseconds":
		return rat(int64(t.Second())*1000000 + us), nil
	case "dow":
		return rat(int64(t.Weekday())), nil
	case "isodow":
		return rat(int64((int(t.Weekday())+6)%7 + 1)), nil
	case "doy":
		return rat(int64(t.YearDay())), nil
	case "week":
		_, w := t.ISOWeek()
		return rat(int64(w)), nil
	case "isoyear":
		y, _ := t.ISOWeek()
		return rat(int64(y)), nil
	case "quarter":
		return rat(int64((t.Month()-1)/3 + 1)), nil
	case "decade":
		return rat(int64(floorDiv(t.Year(), 10))), nil
	case "century":
		return rat(int64((t.Year() + 99) / 100)), nil
	case "millennium":
		return rat(int64((t.Year() + 999) / 1000)), nil
	case "julian":
		return rat(julianDay(t)), nil
	}
	return nil, fmt.Errorf("EXTRACT: unsupported field %q", field)
}

func extractInterval(field string, iv interval) (*big.Rat, error) {
	switch field {
	case "epoch":
		// PostgreSQL: a year is 365.25 days, a month 30 days.
		secs := new(big.Rat).SetFrac64(iv.us, 1000000)
		secs.Add(secs, new(big.Rat).SetInt64(iv.days*86400))
		years, months := iv.months/12, iv.months%12
		secs.Add(secs, new(big.Rat).SetFrac64(years*36525*864, 1))
		secs.Add(secs, new(big.Rat).SetInt64(months*30*86400))
		return secs, nil
	case "day":
		return new(big.Rat).SetInt64(iv.days), nil
	case "month":
		return new(big.Rat).SetInt64(iv.months % 12), nil
	case "year":
		return new(big.Rat).SetInt64(iv.months / 12), nil
	case "hour":
		return new(big.Rat).SetInt64(iv.us / 3600000000), nil
	case "minute":
		return new(big.Rat).SetInt64(iv.us / 60000000 % 60), nil
	case "second":
		return new(big.Rat).SetFrac64(iv.us%60000000, 1000000), nil
	}
	return nil, fmt.Errorf("EXTRACT %s from an interval is not supported", field)
}

// julianDay is the Julian day number of t's date.
func julianDay(t time.Time) int64 {
	return int64(dateOf(t).Sub(time.Date(2000, 1, 1, 0, 0, 0, 0, time.UTC)).Hours()/24) + 2451545
}

// intervalUnit returns the canonical unit of an interval unit word, or "".
func intervalUnit(w string) string {
	switch strings.ToLower(w) {
	case "microsecond", "microseconds", "us", "usec", "usecs", "useconds":
		return "us"
	case "millisecond", "milliseconds", "ms", "msec", "msecs", "mseconds":
		return "ms"
	case "second", "seconds", "s", "sec", "secs":
		return "s"
	case "minute", "minutes", "m", "min", "mins":
		return "min"
	case "hour", "hours", "h", "hr", "hrs":
		return "h"
	case "day", "days", "d":
		return "d"
	case "week", "weeks", "w":
		return "w"
	case "month", "months", "mon", "mons":
		return "mon"
	case "year", "years", "y", "yr", "yrs":
		return "y"
	case "decade", "decades", "dec", "decs":
		return "dec"
	case "century", "centuries", "c", "cent":
		return "cent"
	case "millennium", "millennia", "mil", "mils":
		return "mil"
	}
	return ""
}

// parseInterval reads PostgreSQL's interval input: "number unit" pairs
// (fractions spread down: a fractional month as 30 days, a fractional day
// as 24 hours), an optional [-]HH:MM[:SS[.f]] time, and "ago".
func parseInterval(s string) (interval, error) {
	var iv interval
	f := strings.Fields(strings.ToLower(s))
	ago := false
	if len(f) > 0 && f[len(f)-1] == "ago" {
		ago, f = true, f[:len(f)-1]
	}
	if len(f) == 0 {
		return iv, fmt.Errorf("empty interval %q", s)
	}
	for i := 0; i < len(f); i++ {
		w := f[i]
		if strings.Contains(w, ":") {
			us, err := intervalClock(w)
			if err != nil {
				return iv, err
			}
			iv.us += us
			continue
		}
		// number with an attached unit ("5days") or followed by one
		num, unit := w, ""
		if k := strings.IndexFunc(w, func(r rune) bool { return r >= 'a' && r <= 'z' }); k > 0 {
			num, unit = w[:k], w[k:]
		} else if i+1 < len(f) {
			unit = f[i+1]
			i++
		}
		x, err := strconv.ParseFloat(num, 64)
		if err != nil {
			return iv, fmt.Errorf("bad interval %q: %q is not a number", s, num)
		}
		part, ok := intervalPart(x, intervalUnit(unit))
		if !ok {
			return iv, fmt.Errorf("bad interval %q: unknown unit %q", s, unit)
		}
		iv = iv.add(part)
	}
	if ago {
		iv = iv.neg()
	}
	return iv, nil
}

// usSec is a second in microseconds.
const usSec = 1000000.0

// intervalClock reads the [-]HH:MM[:SS.ffffff] part of an interval, in
// microseconds.
func intervalClock(w string) (int64, error) {
	neg := strings.HasPrefix(w, "-")
	parts := strings.Split(strings.TrimLeft(w, "+-"), ":")
	if len(parts) < 2 || len(parts) > 3 {
		return 0, fmt.Errorf("bad interval time %q", w)
	}
	var total float64
	for k, part := range parts {
		x, err := strconv.ParseFloat(part, 64)
		if err != nil {
			return 0, fmt.Errorf("bad interval time %q", w)
		}
		total += x * []float64{3600, 60, 1}[k]
	}
	us := int64(math.Round(total * usSec))
	if neg {
		us = -us
	}
	return us, nil
}

// intervalPart is x of a canonical unit (intervalUnit) as an interval:
// fractions of months spill into days of 30, fractions of days into
// microseconds, as PostgreSQL's interval input does. ok is false for an
// unknown unit.
func intervalPart(x float64, unit string) (iv interval, ok bool) {
	switch unit {
	case "us":
		iv.us = int64(math.Round(x))
	case "ms":
		iv.us = int64(math.Round(x * 1000))
	case "s":
		iv.us = int64(math.Round(x * usSec))
	case "min":
		iv.us = int64(math.Round(x * 60 * usSec))
	case "h":
		iv.us = int64(math.Round(x * 3600 * usSec))
	case "d", "w":
		days := x
		if unit == "w" {
			days = x * 7
		}
		whole := math.Trunc(days)
		iv.days = int64(whole)
		iv.us = int64(math.Round((days - whole) * 86400 * usSec))
	case "mon", "y", "dec", "cent", "mil":
		months := x * map[string]float64{"mon": 1, "y": 12, "dec": 120, "cent": 1200, "mil": 12000}[unit]
		whole := math.Trunc(months)
		iv.months = int64(whole)
		days := (months - whole) * 30
		wd := math.Trunc(days)
		iv.days = int64(wd)
		iv.us = int64(math.Round((days - wd) * 86400 * usSec))
	default:
		return iv, false
	}
	return iv, true
}

// textOf is v converted to text, as || and the text functions see it: its
// text output, with a char(n)'s padding dropped.
func textOf(v value) string {
	if v.bpchar {
		return strings.TrimRight(v.s, " ")
	}
	return textOut(v)
}
