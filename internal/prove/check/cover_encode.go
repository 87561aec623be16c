package check

import (
	"math/big"
	"regexp"
	"strconv"
	"strings"

	"github.com/sqljudge/sqljudge/internal/sqlast"
)

// What ConditionCover's encoding (encoder.cover) models beyond the
// prover's, on SQLite only: arithmetic, CAST to INTEGER or REAL, SUBSTR,
// LENGTH and LIKE patterns without letters. Each is exact on the models it
// admits: where SQLite's result would leave what SMT's integers and reals
// say (an integer past 64 bits, which SQLite turns into a real), the
// script asserts the values stay inside, so that a model is one SQLite
// computes alike; a real is a rational in the solver and a double in
// SQLite, so a model can still miss by a rounding (the engine decides:
// every database of the search is run, every witness re-verified). The
// prover never sets encoder.cover: nothing here is part of a proof.

// int64Bounds are the smallest and largest values of SQLite's integers.
const int64Min, int64Max = "(- 9223372036854775808)", "9223372036854775807"

// pow62 is 2^62 as an SMT real.
const pow62 = "4611686018427387904.0"

// nullTerm is the value NULL.
var nullTerm = term{n: "true", tag: "null"}

// arith encodes a + b, a - b, a * b and a / b of numbers of families Int
// and Real (SQLite's rules: NULL when either is NULL or a divisor is 0;
// two integers give an integer, the quotient truncated toward zero;
// otherwise a real); ok is false for any other operator or operand. For
// a proof (not cover) only two integers are modelled (intArith): a real
// is a double in SQLite, not the solver's rational.
func (e *encoder) arith(b *sqlast.BinaryExpr) (term, bool, error) {
	op, ok := map[sqlast.Operator]string{sqlast.OpAdd: "+", sqlast.OpSub: "-", sqlast.OpMul: "*", sqlast.OpDiv: "/"}[b.Op]
	if !ok || e.s.d != SQLite {
		return term{}, false, nil
	}
	x, okx, err := e.scalar(b.X)
	if err != nil || !okx {
		return term{}, false, err
	}
	y, oky, err := e.scalar(b.Y)
	if err != nil || !oky {
		return term{}, false, err
	}
	if x.srt == "" || y.srt == "" {
		return nullTerm, true, nil
	}
	if !e.cover {
		if x.tn != nil || y.tn != nil || x.fam != Int || x.srt != "Int" || y.fam != Int || y.srt != "Int" {
			return term{}, false, nil
		}
		t, ok := e.intArith(op, x, y)
		return t, ok, nil
	}
	x, y = x.number(), y.number()
	if !arithFamily(x) || !arithFamily(y) {
		return term{}, false, nil
	}
	n := or(x.n, y.n)
	if x.fam == Int && y.fam == Int {
		var v string
		if op == "/" {
			n = or(x.n, y.n, "(= "+y.v+" 0)")
			v = truncDiv(x.v, y.v)
		} else {
			v = "(" + op + " " + x.v + " " + y.v + ")"
		}
		e.s.assert("(=> " + not(n) + " (and (<= " + int64Min + " " + v + ") (<= " + v + " " + int64Max + ")))")
		return term{n: n, v: v, srt: "Int", fam: Int, tag: "arith Int"}, true, nil
	}
	if op == "/" {
		n = or(x.n, y.n, "(= "+toReal(y)+" 0.0)")
	}
	return term{n: n, v: "(" + op + " " + toReal(x) + " " + toReal(y) + ")", srt: "Real", fam: Real, tag: "arith Real"}, true, nil
}

// intArith is the prover's x op y of two integers, as SQLite's OP_Add,
// OP_Subtract, OP_Multiply and OP_Divide compute it (vdbe.c): NULL when
// either is NULL or, for /, the divisor is 0; else the integer result,
// the quotient truncated toward zero, while it fits in 64 bits
// (sqlite3AddInt64, sqlite3SubInt64, sqlite3MulInt64 and the
// SMALLEST_INT64 / -1 test); past them the operands are read as doubles
// and the result is a real. That real is not modelled: the term's ovf
// says when it is the value, and rv is an uninterpreted function of the
// operands (the same operation of the same integers, the same real).
// Two integer literals are computed here (one past 64 bits is not
// modelled). ok is false for an operand that may itself overflow
// (scalar refuses it).
func (e *encoder) intArith(op string, x, y term) (term, bool) {
	if x.lit != nil && y.lit != nil && x.lit.Kind == sqlast.LitInteger && y.lit.Kind == sqlast.LitInteger {
		a, okA := new(big.Int).SetString(x.lit.Value, 10)
		b, okB := new(big.Int).SetString(y.lit.Value, 10)
		if !okA || !okB {
			return term{}, false
		}
		r := new(big.Int)
		switch op {
		case "+":
			r.Add(a, b)
		case "-":
			r.Sub(a, b)
		case "*":
			r.Mul(a, b)
		case "/":
			if b.Sign() == 0 {
				return nullTerm, true
			}
			r.Quo(a, b) // truncated toward zero
		}
		if !r.IsInt64() {
			return term{}, false
		}
		v := r.Int64()
		return term{n: "false", v: smtInt(v), srt: "Int", fam: Int, lit: sqlast.NumberLiteral(strconv.FormatInt(v, 10)), tag: "lit"}, true
	}
	// A value of SQLite's integers (a column's, a literal's, a CASE of
	// them, an aggregate's: SUM stops with an error past them) is a
	// 64-bit one.
	for _, t := range []term{x, y} {
		if t.lit == nil {
			e.s.assert("(=> " + not(t.n) + " (and (<= " + int64Min + " " + t.v + ") (<= " + t.v + " " + int64Max + ")))")
		}
	}
	n := or(x.n, y.n)
	v := "(" + op + " " + x.v + " " + y.v + ")"
	if op == "/" {
		n = or(x.n, y.n, "(= "+y.v+" 0)")
		v = truncDiv(x.v, y.v)
	}
	ovf := and(not(n), or("(< "+v+" "+int64Min+")", "(> "+v+" "+int64Max+")"))
	rv := app(e.fun("|int "+op+" past 64 bits|", []string{"Int", "Int"}, "Real"), []string{x.v, y.v})
	// What is known of that real: the sign of the exact result, and a
	// magnitude past 2^62. The doubles of the operands are each within
	// 512 of them (the spacing of doubles below 2^63 is at most 1024),
	// so a sum or difference past 2^63 - 1 rounds to at least
	// 2^63 - 1024; a product's relative error is under 2^-50; a
	// quotient leaves the integers only as SMALLEST_INT64 / -1, 2^63.
	e.s.assert("(=> (and " + ovf + " (> " + v + " " + int64Max + ")) (> " + rv + " " + pow62 + "))")
	e.s.assert("(=> (and " + ovf + " (< " + v + " " + int64Min + ")) (< " + rv + " (- " + pow62 + ")))")
	return term{n: n, v: v, srt: "Int", fam: Int, tag: "arith Int", ovf: ovf, rv: rv}, true
}

// truncDiv is x / y of two integers truncated toward zero: SMT-LIB's div
// is Euclidean (a non-negative remainder), which truncates a
// non-negative x for either sign of y.
func truncDiv(x, y string) string {
	return "(ite (>= " + x + " 0) (div " + x + " " + y + ") (- (div (- " + x + ") " + y + ")))"
}

// arithFamily: a value arith models, an integer or a real.
func arithFamily(t term) bool {
	return t.fam == Int && t.srt == "Int" || t.fam == Real && t.srt == "Real"
}

// cast encodes CAST(x AS type) of a number to INTEGER affinity (a real
// truncated toward zero) or REAL affinity (an integer made real); its
// result has the type's affinity.
//
// For a proof (not cover) only a cast to INTEGER affinity of an integer
// is modelled: the integer, or when it is a real past 64 bits (ovf), an
// uninterpreted function of that real (SQLite clamps it).
func (e *encoder) cast(c *sqlast.CastExpr) (term, bool, error) {
	if e.s.d != SQLite || c.Type == nil {
		return term{}, false, nil
	}
	x, ok, err := e.value(c.X)
	if err != nil || !ok {
		return term{}, false, err
	}
	if x.srt == "" {
		return nullTerm, true, nil
	}
	if !e.cover {
		if aff := AffinityOf(c.Type.Name); aff != AffinityInteger || x.fam != Int || x.srt != "Int" || x.tn != nil {
			return term{}, false, nil
		}
		v := x.v
		if x.ovf != "" {
			// A real to an integer (sqlite3VdbeIntValue's
			// doubleToInt64): truncated toward zero, the extremes
			// past the integers' range.
			r := x.rv
			trunc := "(ite (>= " + r + " 0.0) (to_int " + r + ") (- (to_int (- " + r + "))))"
			clamp := "(ite (>= " + r + " (to_real " + int64Max + ")) " + int64Max + " (ite (<= " + r + " (to_real " + int64Min + ")) " + int64Min + " " + trunc + "))"
			v = "(ite " + x.ovf + " " + clamp + " " + x.v + ")"
		}
		return term{n: x.n, v: v, srt: "Int", fam: Int, aff: AffinityInteger, tag: "cast Int"}, true, nil
	}
	if x.ovf != "" {
		return term{}, false, nil
	}
	if !arithFamily(x) {
		return term{}, false, nil
	}
	switch aff := AffinityOf(c.Type.Name); aff {
	case AffinityReal:
		return term{n: x.n, v: toReal(x), srt: "Real", fam: Real, aff: aff, tag: "cast Real"}, true, nil
	case AffinityInteger:
		v := x.v
		if x.fam == Real {
			v = "(ite (>= " + x.v + " 0.0) (to_int " + x.v + ") (- (to_int (- " + x.v + "))))"
			e.s.assert("(=> " + not(x.n) + " (and (<= " + int64Min + " " + v + ") (<= " + v + " " + int64Max + ")))")
		}
		return term{n: x.n, v: v, srt: "Int", fam: Int, aff: aff, tag: "cast Int"}, true, nil
	}
	return term{}, false, nil
}

// coverFunc encodes SUBSTR(x, i [, j]) and LENGTH(x) of a text x (i and
// j integer literals, j >= 0; i < 0 without j counts from the end), and
// STRFTIME(f, d) and DATE(d) of a date text d (coverShape) for the
// formats of strftimeParts.
func (e *encoder) coverFunc(f *sqlast.FuncCall) (term, bool, error) {
	name := lowerASCII(f.Name.Name)
	if e.s.d != SQLite || f.Star || f.Distinct || f.Filter != nil || f.Over != nil || len(f.Args) == 0 {
		return term{}, false, nil
	}
	arg := 0
	switch name {
	case "substr", "substring", "length", "date":
	case "strftime":
		arg = 1
	default:
		return term{}, false, nil
	}
	if len(f.Args) <= arg {
		return term{}, false, nil
	}
	x, ok, err := e.scalar(f.Args[arg])
	if err != nil || !ok {
		return term{}, false, err
	}
	if x.srt == "" {
		return nullTerm, true, nil
	}
	if name == "date" || name == "strftime" {
		return e.dateFunc(f, x)
	}
	if x.tn != nil && (name == "substr" || name == "substring") {
		return x.substr(f.Args[1:])
	}
	if x.fam != Text || x.srt != "String" {
		return term{}, false, nil
	}
	switch name {
	case "length":
		if len(f.Args) != 1 {
			return term{}, false, nil
		}
		return term{n: x.n, v: "(str.len " + x.v + ")", srt: "Int", fam: Int, tag: "length"}, true, nil
	}
	v, ok := substrTerm(x.v, f.Args[1:])
	if !ok {
		return term{}, false, nil
	}
	return term{n: x.n, v: v, srt: "String", fam: Text, tag: "substr"}, true, nil
}

// substrTerm is SQLite's substr(x, i [, j]) for integer literals: i >= 1
// and j >= 0 the characters i .. i+j-1; i < 0 without j the last -i
// characters (all of x when it is shorter).
func substrTerm(x string, args []sqlast.Expr) (string, bool) {
	if len(args) < 1 || len(args) > 2 {
		return "", false
	}
	nums := make([]int64, len(args))
	for k, a := range args {
		v, ok := intLiteralValue(a)
		if !ok {
			return "", false
		}
		nums[k] = v
	}
	i := nums[0]
	switch {
	case i >= 1 && len(nums) == 2 && nums[1] >= 0:
		return "(str.substr " + x + " " + itoa(int(i-1)) + " " + strconv.FormatInt(nums[1], 10) + ")", true
	case i >= 1 && len(nums) == 1:
		return "(str.substr " + x + " " + itoa(int(i-1)) + " (str.len " + x + "))", true
	case i < 0 && len(nums) == 1:
		start := "(+ (str.len " + x + ") " + smtInt(i) + ")"
		return "(ite (>= " + start + " 0) (str.substr " + x + " " + start + " " + smtInt(-i) + ") " + x + ")", true
	}
	return "", false
}

// intLiteralValue reads an integer literal, maybe negated, of at most 9
// digits.
func intLiteralValue(x sqlast.Expr) (int64, bool) {
	x = stripParens(x)
	neg := false
	if u, ok := x.(*sqlast.UnaryExpr); ok && u.Op == sqlast.OpMinus {
		neg, x = true, stripParens(u.X)
	}
	l, ok := x.(*sqlast.Literal)
	if !ok || l.Kind != sqlast.LitInteger || len(l.Value) > 9 {
		return 0, false
	}
	v, err := strconv.ParseInt(l.Value, 10, 64)
	if err != nil {
		return 0, false
	}
	if neg {
		v = -v
	}
	return v, true
}

// coverLike encodes x LIKE 'p' of a text x when p holds no ASCII letter
// (SQLite's LIKE folds only their case), no '_' and no escape, its '%'
// only at the ends: p, p%, %p or %p%.
func (e *encoder) coverLike(t *sqlast.LikeExpr) (pred, bool, error) {
	l, ok := stripParens(t.Y).(*sqlast.Literal)
	if e.s.d != SQLite || t.Op.Name != "LIKE" || t.Escape != nil || !ok || l.Kind != sqlast.LitString {
		return pred{}, false, nil
	}
	p := l.Value
	if strings.ContainsAny(p, "_") || strings.IndexFunc(p, isASCIILetter) >= 0 {
		return pred{}, false, nil
	}
	pre, suf := strings.HasPrefix(p, "%"), strings.HasSuffix(p, "%") && len(p) > 1
	core := strings.TrimSuffix(strings.TrimPrefix(p, "%"), "%")
	if strings.Contains(core, "%") && !(pre && suf && core == "") {
		return pred{}, false, nil
	}
	x, okx, err := e.scalar(t.X)
	if err != nil || !okx || x.srt != "String" || x.fam != Text {
		return pred{}, false, err
	}
	lit, ok := smtString(core)
	if !ok {
		return pred{}, false, nil
	}
	var c string
	switch {
	case pre && suf:
		c = "(str.contains " + x.v + " " + lit + ")"
	case suf:
		c = "(str.prefixof " + lit + " " + x.v + ")"
	case pre:
		c = "(str.suffixof " + lit + " " + x.v + ")"
	default:
		c = "(= " + x.v + " " + lit + ")"
	}
	if t.Not {
		c = not(c)
	}
	return pred{and(not(x.n), c), and(not(x.n), not(c))}, true, nil
}

func isASCIILetter(r rune) bool { return r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' }

// numberText matches a text SQLite's NUMERIC affinity may turn into a
// number (sqlite3AtoF: spaces, a sign, digits with a point, an exponent);
// a text it does not match stays a text.
var numberText = regexp.MustCompile(`^[ \t\n\v\f\r]*[+-]?([0-9]+\.?[0-9]*|\.[0-9]+)([eE][+-]?[0-9]+)?[ \t\n\v\f\r]*$`)

// toNumber applies NUMERIC affinity to a value as toNumber does, and in
// ConditionCover's encoding also keeps as texts a date text and a string
// literal that is no number (numberText).
func (e *encoder) toNumber(t term) (term, bool) {
	if n, ok := toNumber(t); ok || !e.cover {
		return n, ok
	}
	switch {
	case t.tn != nil:
		return t, true
	case t.fam == Text && t.lit != nil && t.lit.Kind == sqlast.LitString:
		return t, !numberText.MatchString(t.lit.Value)
	}
	return t, false
}
