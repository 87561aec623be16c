package check

import (
	"fmt"
	"math"
	"math/big"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/sqljudge/sqljudge/internal/sqlast"
)

// The SMT encoding of SQL expressions (SMT-LIB 2, theories of integers,
// reals and strings, uninterpreted functions).
//
// A column is two constants: its value |a1.age| (of sort Int, Real,
// String, or the uninterpreted sort V for the families the kernel does not
// model) and its null flag |a1.age null|; a NOT NULL column gets
// (assert (not |a1.age null|)). A condition is two formulas, t (it is
// TRUE) and f (it is FALSE); neither holds when it is NULL (three-valued
// logic: AND, OR and NOT by Kleene's tables, a comparison with a NULL
// operand is neither). WHERE, ON and HAVING keep a row when t holds.
//
// Modelled exactly: comparisons (= <> < <= > >=, IS, BETWEEN, IN lists)
// of two Int or Real values (as numbers), of two Text values (= and <> as
// equality of strings; < and the others, on SQLite only, as the order of
// code points, which is the byte order of UTF-8 that the BINARY
// collation uses), of an Int column with a string literal that SQLite's
// numeric affinity turns into the same integer ('1970'), of a value with
// NULL; IS [NOT] NULL; AND, OR, NOT; COUNT is a non-negative integer. A
// comparison of anything else (a function, arithmetic, a CASE, a column
// of another family, a LIKE) is an uninterpreted predicate u of the
// values it reads (its columns, aggregates and scalar subqueries, the
// leaves), one symbol per text of the comparison with its leaves
// numbered: the same comparison of the same values has the same answer,
// nothing more is assumed. A subquery that the comparison proved
// equivalent on both sides is one uninterpreted function of the outer
// values it reads.

// script is one obligation being written.
type script struct {
	d        Dialect
	decls    []string
	declared map[string]bool
	asserts  []string
	notes    []string
	facts    factSet
	opaque   map[string]string // key → symbol
	aggs     map[string]*term  // aggregate key → its term
	nAgg     int
}

func newScript(d Dialect) *script {
	return &script{d: d, declared: map[string]bool{}, opaque: map[string]string{}, aggs: map[string]*term{}}
}

func (s *script) declare(name, decl string) {
	if !s.declared[name] {
		s.declared[name] = true
		s.decls = append(s.decls, decl)
	}
}

func (s *script) assert(f string) { s.asserts = append(s.asserts, "(assert "+f+")") }

// text returns the script: the claim is what must hold; the script
// asserts its negation, so the expected answer is unsat.
func (s *script) text(title, claim string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "; %s\n; expected: unsat (the claim holds on every database satisfying the schema)\n", oneLine(title))
	b.WriteString("(set-logic ALL)\n")
	for _, n := range s.notes {
		fmt.Fprintf(&b, "; %s\n", oneLine(n))
	}
	for _, d := range s.decls {
		b.WriteString(d + "\n")
	}
	for _, a := range s.asserts {
		b.WriteString(a + "\n")
	}
	fmt.Fprintf(&b, "(assert (not %s))\n(check-sat)\n", claim)
	return b.String()
}

func oneLine(s string) string { return strings.NewReplacer("\n", " ", "\r", " ").Replace(s) }

// term is a scalar value: its null flag n and value v (of sort srt; srt
// "" for the NULL literal). col: a plain column (it has an affinity);
// str: the value of a string literal.
type term struct {
	n, v string
	srt  string
	fam  Family
	col  bool
	str  *string
}

// pred is a condition: t when TRUE, f when FALSE.
type pred struct{ t, f string }

func (p pred) not() pred { return pred{p.f, p.t} }

func and(xs ...string) string {
	if len(xs) == 1 {
		return xs[0]
	}
	return "(and " + strings.Join(xs, " ") + ")"
}

func or(xs ...string) string {
	if len(xs) == 1 {
		return xs[0]
	}
	return "(or " + strings.Join(xs, " ") + ")"
}

func not(x string) string { return "(not " + x + ")" }

// sortOf is the SMT sort of a family.
func sortOf(f Family) string {
	switch f {
	case Int:
		return "Int"
	case Real:
		return "Real"
	case Text:
		return "String"
	}
	return "V"
}

// side is one query of the pair as the encoder reads it: its canonical
// form and the map from its aliases to the first query's (identity for
// the first query).
type side struct {
	c      *Canon
	rename map[string]string
}

func (sd side) alias(a string) string {
	if sd.rename == nil {
		return a
	}
	if r, ok := sd.rename[a]; ok {
		return r
	}
	return a
}

// subSym is the symbol of a pair of subqueries proved equivalent, and the
// outer columns (in the first query's names) it is a function of.
type subSym struct {
	name string
	args []colKey
	// cols are the canonical references of args, by key.
	cols map[colKey]*sqlast.QualifiedRef
}

// encoder writes expressions of either side into a script.
type encoder struct {
	s    *script
	sd   side
	k    *kernel
	subs map[*sqlast.SelectStmt]*subSym
	// agg: aggregate calls are values of the group (an aggregate block's
	// HAVING, outputs, ORDER BY); deps gives the representatives.
	agg  bool
	deps *deps
	// grouped: the aggregates are of the groups of a GROUP BY, never
	// empty (COUNT(*) is at least 1).
	grouped bool
}

var symbolSafe = regexp.MustCompile(`^[^|\\]*$`)

// column encodes a column reference.
func (e *encoder) column(r *sqlast.QualifiedRef) (term, error) {
	o, i, ok := e.sd.c.colOf(r)
	if !ok {
		return term{}, refuse("column", "%s is not a column of a table", sqlast.Format(r))
	}
	name := e.sd.alias(o.alias) + "." + o.colName(i)
	if !symbolSafe.MatchString(name) {
		return term{}, refuse("name", "a column name with | or \\: %s", name)
	}
	c := o.table.Columns[i]
	srt := sortOf(c.Family)
	e.vsort(srt)
	v, n := "|"+name+"|", "|"+name+" null|"
	e.s.declare(v, fmt.Sprintf("(declare-const %s %s)", v, srt))
	if !e.s.declared[n] {
		e.s.declare(n, fmt.Sprintf("(declare-const %s Bool)", n))
		if c.NotNull {
			e.s.assert(not(n))
			e.s.facts.add(Fact{Fact: FactNotNull, Table: o.table.Name, Column: c.Name})
		}
		e.s.facts.add(Fact{Fact: FactFamily, Table: o.table.Name, Column: c.Name, Family: c.Family.String()})
	}
	return term{n: n, v: v, srt: srt, fam: c.Family, col: true}, nil
}

func (e *encoder) vsort(srt string) {
	if srt == "V" {
		e.s.declare("V", "(declare-sort V 0)")
	}
}

var intText = regexp.MustCompile(`^-?[0-9]{1,18}$`)

// literal encodes a literal; ok is false for one the kernel does not
// model (a blob, a number out of range, a string SMT-LIB cannot spell).
func (e *encoder) literal(l *sqlast.Literal, neg bool) (term, bool) {
	switch l.Kind {
	case sqlast.LitNull:
		return term{n: "true"}, true
	case sqlast.LitInteger:
		v, err := strconv.ParseInt(l.Value, 10, 64)
		if err != nil {
			return term{}, false
		}
		if neg {
			v = -v
		}
		return term{n: "false", v: smtInt(v), srt: "Int", fam: Int}, true
	case sqlast.LitFloat:
		if e.s.d != SQLite {
			return term{}, false // PostgreSQL reads 1.5 as an exact numeric
		}
		f, err := strconv.ParseFloat(l.Value, 64)
		if err != nil || math.IsInf(f, 0) {
			return term{}, false
		}
		if neg {
			f = -f
		}
		return term{n: "false", v: smtReal(f), srt: "Real", fam: Real}, true
	case sqlast.LitString:
		if neg {
			return term{}, false
		}
		s, ok := smtString(l.Value)
		if !ok {
			return term{}, false
		}
		v := l.Value
		return term{n: "false", v: s, srt: "String", fam: Text, str: &v}, true
	}
	return term{}, false
}

func smtInt(v int64) string {
	if v < 0 {
		return fmt.Sprintf("(- %d)", -v)
	}
	return strconv.FormatInt(v, 10)
}

// smtReal writes the exact value of a double as an SMT real.
func smtReal(f float64) string {
	r := new(big.Rat)
	r.SetFloat64(f)
	neg := r.Sign() < 0
	r.Abs(r)
	s := r.Num().String() + ".0"
	if !r.IsInt() {
		s = "(/ " + r.Num().String() + ".0 " + r.Denom().String() + ".0)"
	}
	if neg {
		return "(- " + s + ")"
	}
	return s
}

// smtString writes a string literal of SMT-LIB 2.6: printable ASCII as
// it is (a double quote doubled), every other code point as \u{…}; false
// for invalid UTF-8 or a code point SMT-LIB's strings do not hold.
func smtString(s string) (string, bool) {
	if !utf8.ValidString(s) {
		return "", false
	}
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		switch {
		case r == '"':
			b.WriteString(`""`)
		case r >= 0x20 && r < 0x7f && r != '\\':
			b.WriteRune(r)
		case r <= 0x2ffff:
			fmt.Fprintf(&b, `\u{%x}`, r)
		default:
			return "", false
		}
	}
	b.WriteByte('"')
	return b.String(), true
}

// scalar encodes a value; ok is false when the kernel does not model it
// (the comparison holding it is then uninterpreted).
func (e *encoder) scalar(x sqlast.Expr) (term, bool, error) {
	switch t := x.(type) {
	case *sqlast.ParenExpr:
		return e.scalar(t.X)
	case *sqlast.QualifiedRef:
		tm, err := e.column(t)
		return tm, err == nil, err
	case *sqlast.Literal:
		tm, ok := e.literal(t, false)
		return tm, ok, nil
	case *sqlast.UnaryExpr:
		if l, ok := t.X.(*sqlast.Literal); ok && t.Op == sqlast.OpMinus && (l.Kind == sqlast.LitInteger || l.Kind == sqlast.LitFloat) {
			tm, ok := e.literal(l, true)
			return tm, ok, nil
		}
	case *sqlast.FuncCall:
		if e.agg && isAggregateCall(t) {
			tm, err := e.aggregate(t)
			return tm, err == nil, err
		}
	case *sqlast.SubqueryExpr:
		sym := e.subs[t.Select]
		if sym == nil {
			return term{}, false, refuse("subquery", "a scalar subquery with no partner")
		}
		e.vsort("V")
		args, sorts, err := e.subArgs(sym)
		if err != nil {
			return term{}, false, err
		}
		n, v := e.fun("|"+sym.name+" null|", sorts, "Bool"), e.fun("|"+sym.name+"|", sorts, "V")
		return term{n: app(n, args), v: app(v, args), srt: "V", fam: Other}, true, nil
	}
	return term{}, false, nil
}

// fun declares an uninterpreted function and returns its name.
func (e *encoder) fun(name string, args []string, result string) string {
	e.s.declare(name, fmt.Sprintf("(declare-fun %s (%s) %s)", name, strings.Join(args, " "), result))
	return name
}

func app(f string, args []string) string {
	if len(args) == 0 {
		return f
	}
	return "(" + f + " " + strings.Join(args, " ") + ")"
}

// subArgs encodes the outer columns a subquery symbol reads.
func (e *encoder) subArgs(sym *subSym) (args, sorts []string, err error) {
	for _, k := range sym.args {
		// The column is named in the first query's terms already: read
		// it through the first query's side.
		r := sym.cols[k]
		sd := e.sd
		e.sd = side{c: e.k.c1}
		tm, err := e.column(r)
		e.sd = sd
		if err != nil {
			return nil, nil, err
		}
		args = append(args, tm.n, tm.v)
		sorts = append(sorts, "Bool", tm.srt)
	}
	return args, sorts, nil
}

// aggregate encodes an aggregate call of a group: one pair of constants
// per aggregate text (its columns replaced by their representatives), so
// that the same aggregate of the same group is the same value.
func (e *encoder) aggregate(f *sqlast.FuncCall) (term, error) {
	key := e.k.mappedText(f, e.sd, e.deps)
	if t, ok := e.s.aggs[key]; ok {
		return *t, nil
	}
	e.s.nAgg++
	name := "agg" + itoa(e.s.nAgg)
	fam := Other
	notNull := false
	name2 := lowerASCII(f.Name.Name)
	var arg term
	argOK := false
	if len(f.Args) == 1 {
		sub := &encoder{s: newScript(e.s.d), sd: e.sd, k: e.k, subs: e.subs}
		a, ok, err := sub.scalar(f.Args[0])
		arg, argOK = a, ok && err == nil && a.srt != ""
	}
	switch name2 {
	case "count":
		fam, notNull = Int, true
	case "total":
		fam, notNull = Real, true
	case "avg":
		if argOK && (arg.fam == Int || arg.fam == Real) {
			fam = Real
		}
	case "sum", "min", "max":
		if argOK && arg.fam != Other {
			fam = arg.fam
		}
	}
	if name2 == "sum" && fam == Text {
		fam = Other
	}
	srt := sortOf(fam)
	e.vsort(srt)
	v, n := "|"+name+"|", "|"+name+" null|"
	e.s.declare(v, fmt.Sprintf("(declare-const %s %s)", v, srt))
	e.s.declare(n, fmt.Sprintf("(declare-const %s Bool)", n))
	e.s.notes = append(e.s.notes, name+" = "+key)
	if notNull {
		e.s.assert(not(n))
	}
	switch {
	case name2 == "count" && f.Star && e.grouped:
		e.s.assert("(>= " + v + " 1)")
	case name2 == "count":
		e.s.assert("(>= " + v + " 0)")
	}
	t := &term{n: n, v: v, srt: srt, fam: fam}
	e.s.aggs[key] = t
	return *t, nil
}

// cond encodes a condition.
func (e *encoder) cond(x sqlast.Expr) (pred, error) {
	switch t := x.(type) {
	case *sqlast.ParenExpr:
		return e.cond(t.X)
	case *sqlast.BinaryExpr:
		switch t.Op {
		case sqlast.OpAnd, sqlast.OpOr:
			p, err := e.cond(t.X)
			if err != nil {
				return pred{}, err
			}
			q, err := e.cond(t.Y)
			if err != nil {
				return pred{}, err
			}
			if t.Op == sqlast.OpAnd {
				return pred{and(p.t, q.t), or(p.f, q.f)}, nil
			}
			return pred{or(p.t, q.t), and(p.f, q.f)}, nil
		case sqlast.OpEq, sqlast.OpNe, sqlast.OpLt, sqlast.OpLe, sqlast.OpGt, sqlast.OpGe:
			return e.compare(x, t.Op, t.X, t.Y)
		}
	case *sqlast.UnaryExpr:
		if t.Op == sqlast.OpNot {
			p, err := e.cond(t.X)
			return p.not(), err
		}
	case *sqlast.NullCheckExpr:
		a, ok, err := e.scalar(t.X)
		if err != nil {
			return pred{}, err
		}
		if ok {
			p := pred{a.n, not(a.n)}
			if t.Test != sqlast.TestIsNull {
				p = p.not()
			}
			return p, nil
		}
	case *sqlast.IsExpr:
		return e.is(x, t)
	case *sqlast.BetweenExpr:
		lo, err := e.compare(x, sqlast.OpGe, t.X, t.Lo)
		if err != nil {
			return pred{}, err
		}
		hi, err := e.compare(x, sqlast.OpLe, t.X, t.Hi)
		if err != nil {
			return pred{}, err
		}
		p := pred{and(lo.t, hi.t), or(lo.f, hi.f)}
		if t.Not {
			p = p.not()
		}
		return p, nil
	case *sqlast.InExpr:
		return e.in(x, t)
	case *sqlast.LikeExpr:
		// SQLite's LIKE ignores the case of ASCII letters (the default,
		// which the sandbox keeps): the pattern in lower case is the same
		// predicate.
		if l, ok := t.Y.(*sqlast.Literal); ok && e.s.d == SQLite && t.Op.Name == "LIKE" && t.Escape == nil && l.Kind == sqlast.LitString {
			c := *t
			c.Y = sqlast.StringLiteral(lowerASCII(l.Value))
			return e.opaque(&c)
		}
	case *sqlast.ExistsExpr:
		sym := e.subs[t.Select]
		if sym == nil {
			return pred{}, refuse("subquery", "an EXISTS subquery with no partner")
		}
		args, sorts, err := e.subArgs(sym)
		if err != nil {
			return pred{}, err
		}
		ex := app(e.fun("|exists "+sym.name+"|", sorts, "Bool"), args)
		return pred{ex, not(ex)}, nil
	case *sqlast.QualifiedRef, *sqlast.Literal:
		a, ok, err := e.scalar(x)
		if err != nil {
			return pred{}, err
		}
		if ok && (a.fam == Int || a.fam == Real) {
			zero := "0"
			if a.srt == "Real" {
				zero = "0.0"
			}
			return pred{and(not(a.n), not("(= "+a.v+" "+zero+")")), and(not(a.n), "(= "+a.v+" "+zero+")")}, nil
		}
		if ok && a.srt == "" {
			return pred{"false", "false"}, nil
		}
	}
	return e.opaque(x)
}

// compare encodes a op b (x is the whole comparison, for the
// uninterpreted case).
func (e *encoder) compare(x sqlast.Expr, op sqlast.Operator, a, b sqlast.Expr) (pred, error) {
	ta, oka, err := e.scalar(a)
	if err != nil {
		return pred{}, err
	}
	tb, okb, err := e.scalar(b)
	if err != nil {
		return pred{}, err
	}
	if oka && okb && (ta.srt == "" || tb.srt == "") {
		return pred{"false", "false"}, nil // a comparison with NULL is NULL
	}
	if oka && okb {
		if va, vb, srt, ok := e.comparable(ta, tb); ok {
			c, ok := relation(op, va, vb, srt, e.s.d)
			if ok {
				known := and(not(ta.n), not(tb.n))
				return pred{and(known, c), and(known, not(c))}, nil
			}
		}
	}
	return e.opaque(x)
}

// comparable returns the two values as terms of one sort when the
// engine compares them as the kernel models: two numbers, two strings,
// an Int column and an integer-looking string literal (SQLite's numeric
// affinity).
func (e *encoder) comparable(a, b term) (string, string, string, bool) {
	num := func(t term) bool { return t.fam == Int || t.fam == Real }
	switch {
	case a.fam == Int && b.fam == Int:
		return a.v, b.v, "Int", true
	case num(a) && num(b):
		return toReal(a), toReal(b), "Real", true
	case a.fam == Text && b.fam == Text:
		return a.v, b.v, "String", true
	case e.s.d == SQLite && a.col && a.fam == Int && b.str != nil && intText.MatchString(*b.str):
		v, _ := strconv.ParseInt(*b.str, 10, 64)
		return a.v, smtInt(v), "Int", true
	case e.s.d == SQLite && b.col && b.fam == Int && a.str != nil && intText.MatchString(*a.str):
		v, _ := strconv.ParseInt(*a.str, 10, 64)
		return smtInt(v), b.v, "Int", true
	}
	return "", "", "", false
}

func toReal(t term) string {
	if t.srt == "Int" {
		return "(to_real " + t.v + ")"
	}
	return t.v
}

// relation writes a op b for values of sort srt; false when the kernel
// does not model it (string order off SQLite).
func relation(op sqlast.Operator, a, b, srt string, d Dialect) (string, bool) {
	if srt == "String" {
		switch op {
		case sqlast.OpEq:
			return "(= " + a + " " + b + ")", true
		case sqlast.OpNe:
			return not("(= " + a + " " + b + ")"), true
		}
		if d != SQLite {
			return "", false
		}
		switch op {
		case sqlast.OpLt:
			return "(str.< " + a + " " + b + ")", true
		case sqlast.OpLe:
			return "(str.<= " + a + " " + b + ")", true
		case sqlast.OpGt:
			return "(str.< " + b + " " + a + ")", true
		case sqlast.OpGe:
			return "(str.<= " + b + " " + a + ")", true
		}
		return "", false
	}
	switch op {
	case sqlast.OpEq:
		return "(= " + a + " " + b + ")", true
	case sqlast.OpNe:
		return not("(= " + a + " " + b + ")"), true
	case sqlast.OpLt:
		return "(< " + a + " " + b + ")", true
	case sqlast.OpLe:
		return "(<= " + a + " " + b + ")", true
	case sqlast.OpGt:
		return "(> " + a + " " + b + ")", true
	case sqlast.OpGe:
		return "(>= " + a + " " + b + ")", true
	}
	return "", false
}

// is encodes a IS [NOT] b.
func (e *encoder) is(x sqlast.Expr, t *sqlast.IsExpr) (pred, error) {
	ta, oka, err := e.scalar(t.X)
	if err != nil {
		return pred{}, err
	}
	tb, okb, err := e.scalar(t.Y)
	if err != nil {
		return pred{}, err
	}
	var same string
	switch {
	case oka && okb && ta.srt == "" && tb.srt == "":
		same = "true"
	case oka && okb && tb.srt == "":
		same = ta.n
	case oka && okb && ta.srt == "":
		same = tb.n
	case oka && okb:
		va, vb, srt, ok := e.comparable(ta, tb)
		if !ok {
			return e.opaque(x)
		}
		eq, _ := relation(sqlast.OpEq, va, vb, srt, e.s.d)
		same = or(and(ta.n, tb.n), and(not(ta.n), not(tb.n), eq))
	default:
		return e.opaque(x)
	}
	p := pred{same, not(same)}
	// IS NOT and IS DISTINCT FROM negate; IS NOT DISTINCT FROM is IS.
	if t.Not != t.Distinct {
		p = p.not()
	}
	return p, nil
}

// in encodes x [NOT] IN (list) and x [NOT] IN (subquery).
func (e *encoder) in(x sqlast.Expr, t *sqlast.InExpr) (pred, error) {
	var p pred
	switch {
	case t.Select != nil:
		sym := e.subs[t.Select]
		if sym == nil {
			return pred{}, refuse("subquery", "an IN subquery with no partner")
		}
		a, ok, err := e.scalar(t.X)
		if err != nil {
			return pred{}, err
		}
		if !ok || a.srt == "" {
			return pred{}, refuse("IN", "IN (subquery) of an expression the kernel does not model")
		}
		args, sorts, err := e.subArgs(sym)
		if err != nil {
			return pred{}, err
		}
		args = append([]string{a.n, a.v}, args...)
		sorts = append([]string{"Bool", a.srt}, sorts...)
		p = pred{app(e.fun("|in "+sym.name+" "+a.srt+"|", sorts, "Bool"), args), app(e.fun("|not in "+sym.name+" "+a.srt+"|", sorts, "Bool"), args)}
		e.s.assert(not(and(p.t, p.f)))
	case len(t.List) == 0:
		p = pred{"false", "true"}
	default:
		var ts, fs []string
		for _, y := range t.List {
			q, err := e.compare(&sqlast.BinaryExpr{Op: sqlast.OpEq, X: t.X, Y: y}, sqlast.OpEq, t.X, y)
			if err != nil {
				return pred{}, err
			}
			ts, fs = append(ts, q.t), append(fs, q.f)
		}
		p = pred{or(ts...), and(fs...)}
	}
	if t.Not {
		p = p.not()
	}
	return p, nil
}

// opaque encodes a condition the kernel does not model as an
// uninterpreted predicate of its leaves (columns, aggregates, scalar
// subqueries), one per text of the condition with its leaves numbered.
func (e *encoder) opaque(x sqlast.Expr) (pred, error) {
	key, leaves, err := e.leafKey(x)
	if err != nil {
		return pred{}, err
	}
	var args, sorts []string
	for _, l := range leaves {
		args = append(args, l.n, l.v)
		sorts = append(sorts, "Bool", l.srt)
	}
	key += " :: " + strings.Join(sorts, " ")
	sym, ok := e.s.opaque[key]
	if !ok {
		sym = "u" + itoa(len(e.s.opaque)+1)
		e.s.opaque[key] = sym
		e.s.notes = append(e.s.notes, sym+" = "+key)
	}
	t := app(e.fun("|"+sym+" true|", sorts, "Bool"), args)
	f := app(e.fun("|"+sym+" false|", sorts, "Bool"), args)
	e.s.assert(not(and(t, f)))
	return pred{t, f}, nil
}

// leafKey returns the text of x with its leaves replaced by ?1, ?2, ...
// (the same leaf, the same number) and the leaves' terms.
func (e *encoder) leafKey(x sqlast.Expr) (string, []term, error) {
	orig := leavesOf(x)
	clone := cloneExpr(x)
	copies := leavesOf(clone)
	if len(orig) != len(copies) {
		return "", nil, fmt.Errorf("kernel: leaves changed when copied")
	}
	var terms []term
	index := map[string]int{}
	for i, l := range orig {
		var tm term
		var id string
		switch t := l.(type) {
		case *sqlast.QualifiedRef:
			var err error
			if tm, err = e.column(t); err != nil {
				return "", nil, err
			}
			id = tm.v
		case *sqlast.FuncCall:
			if !e.agg {
				return "", nil, refuse("aggregate", "an aggregate outside an aggregate block")
			}
			var err error
			if tm, err = e.aggregate(t); err != nil {
				return "", nil, err
			}
			id = tm.v
		case *sqlast.SubqueryExpr:
			var ok bool
			var err error
			if tm, ok, err = e.scalar(t); err != nil || !ok {
				return "", nil, refuse("subquery", "a scalar subquery with no partner")
			}
			id = tm.v
		default:
			return "", nil, refuse("subquery", "an IN or EXISTS subquery inside an expression the kernel does not model")
		}
		k, seen := index[id]
		if !seen {
			terms = append(terms, tm)
			k = len(terms)
			index[id] = k
		}
		markLeaf(copies[i], k)
	}
	return sqlast.Format(clone), terms, nil
}

// leavesOf lists the leaves of x in walk order: column references,
// aggregate calls, and subqueries (scalar, IN, EXISTS).
func leavesOf(x sqlast.Expr) []sqlast.Expr {
	var out []sqlast.Expr
	walkExpr(x, func(y sqlast.Expr) bool {
		switch t := y.(type) {
		case *sqlast.QualifiedRef, *sqlast.SubqueryExpr, *sqlast.ExistsExpr:
			out = append(out, y)
			return false
		case *sqlast.InExpr:
			if t.Select != nil {
				out = append(out, y)
				return false
			}
		case *sqlast.FuncCall:
			if isAggregateCall(t) {
				out = append(out, y)
				return false
			}
		}
		return true
	})
	return out
}

// markLeaf turns a leaf of a copy into the placeholder ?k.
func markLeaf(x sqlast.Expr, k int) {
	ph := &sqlast.Ident{Name: "?" + itoa(k), Raw: "?" + itoa(k)}
	switch t := x.(type) {
	case *sqlast.QualifiedRef:
		t.Parts = []*sqlast.Ident{ph}
	case *sqlast.FuncCall:
		t.Name, t.Args, t.Star, t.Distinct = ph, nil, false, false
	case *sqlast.SubqueryExpr:
		t.Select = sqlast.MustParse("SELECT '" + ph.Raw + "'").Select()
	}
}

// sortedKeys returns the keys of a set in order.
func sortedKeys(m map[colKey]bool) []colKey {
	var out []colKey
	for k := range m {
		out = append(out, k)
	}
	sort.Slice(out, func(i, j int) bool { return out[i] < out[j] })
	return out
}
