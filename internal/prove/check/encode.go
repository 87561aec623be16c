package check

import (
	"fmt"
	"math"
	"regexp"
	"strconv"
	"strings"

	"github.com/sqljudge/sqljudge/internal/sqlast"
)

// The SMT encoding of SQL expressions: what a condition or a value means,
// as SMT terms, given what its context says about the names it reads
// (encodeEnv). The comparison of two normal forms (compare.go) is one
// user; a search for databases that satisfy a condition can be another.
//
// A column is two constants: its value |a1.age| (of sort Int, Real,
// String, or the uninterpreted sort V for the families the kernel does not
// model) and its null flag |a1.age null|; a NOT NULL column gets
// (assert (not |a1.age null|)). A condition is two formulas, t (it is
// TRUE) and f (it is FALSE); neither holds when it is NULL (three-valued
// logic: AND, OR and NOT by Kleene's tables, a comparison with a NULL
// operand is neither). WHERE, ON and HAVING keep a row when t holds.
//
// A comparison follows SQLite's rules (datatype3.html, "Type Conversions
// Prior To Comparison", and sqlite3CompareAffinity): the affinity of each
// operand (a column's, from its declared type; none for a literal, +x,
// a function's or an aggregate's result, and the values of an IN list)
// decides a conversion (NUMERIC affinity turns a string that is a number
// into that number, TEXT affinity a number into its text) before the
// values are compared: numbers as numbers, strings under the BINARY
// collation as the order of code points (the byte order of UTF-8), a
// number before any string. Modelled exactly: comparisons (= <> < <= >
// >=, IS, BETWEEN, IN lists) of values of the families Int, Real,
// Numeric and Text, literals and NULL, when every conversion they need
// is of a literal (a string literal that is an integer, or that holds no
// digit and stays a string; an integer literal's text); on PostgreSQL,
// of two numbers of family Int, of two Text strings (= and <> only), and
// of an Int with a string literal that is an integer (which PostgreSQL
// reads as one). IS [NOT] NULL; AND, OR, NOT; COUNT is a non-negative
// integer. Anything else (a function, arithmetic, a CASE, a LIKE, a
// column of family Other, a conversion of a column's value) is an
// uninterpreted predicate of the values it reads (its columns,
// aggregates and scalar subqueries, the leaves): one symbol per text of
// the condition with its leaves numbered and each leaf's family,
// affinity and collation, so that the same condition of the same values
// of the same kinds has the same answer and nothing more is assumed. A
// subquery proved equivalent on both sides is one uninterpreted function
// of the outer values it reads.

// encodeEnv is what the encoding of an expression reads from the query
// it belongs to.
type encodeEnv interface {
	// column names a column reference: its SMT name ("a1.age"), its
	// table and its schema column.
	column(r *sqlast.QualifiedRef) (name, table string, col Column, err error)
	// aggregateKey is the text that identifies an aggregate call of the
	// current group (the same text, the same value).
	aggregateKey(f *sqlast.FuncCall) string
	// subquery is the symbol of a subquery (nil when it has none) and
	// the environment its outer columns are read in.
	subquery(st *sqlast.SelectStmt) (*subSym, encodeEnv)
}

// term is a scalar value: its null flag n and value v (of sort srt; srt
// "" for the NULL literal), the family of its value, its affinity and
// collation (SQLite), the literal it is (nil for any other value), and
// tag, which names its kind in an uninterpreted predicate's symbol.
type term struct {
	n, v string
	// ovf, when not "", is a formula that holds when the value is not
	// the integer v but a real past SQLite's 64-bit integers (an
	// integer arithmetic that overflowed, which SQLite computes in
	// doubles); rv is that real then, a value of the uninterpreted
	// function of the operation's operands (arith).
	ovf, rv string
	srt     string
	fam     Family
	aff     Affinity
	coll    string
	lit     *sqlast.Literal
	tag     string
	// tn: the value is a text of numeric fields (a date, a year) whose
	// number v is (ConditionCover's encoding only, cover_date.go).
	tn *textNum
}

// subSym is the symbol of a pair of subqueries proved equivalent, and the
// outer columns (in the first query's names) it is a function of.
type subSym struct {
	name string
	args []colKey
	// cols are the canonical references of args, by key.
	cols map[colKey]*sqlast.QualifiedRef
}

// encoder writes expressions into a script.
type encoder struct {
	s   *script
	env encodeEnv
	// agg: aggregate calls are values of the group (an aggregate block's
	// HAVING, outputs, ORDER BY).
	agg bool
	// grouped: the aggregates are of the groups of a GROUP BY, never
	// empty (COUNT(*) is at least 1).
	grouped bool
	// cover: the encoding is ConditionCover's (models for the search,
	// never a proof), which also models arithmetic and a few functions
	// (cover_encode.go), each exactly on the models it admits.
	cover bool
	// subTerms: ConditionCover's value of a scalar subquery whose rows
	// the goal models (cover_scalar.go); never set for a proof.
	subTerms map[*sqlast.SelectStmt]term
}

var symbolSafe = regexp.MustCompile(`^[^|\\]*$`)

// column encodes a column reference.
func (e *encoder) column(r *sqlast.QualifiedRef) (term, error) {
	name, table, c, err := e.env.column(r)
	if err != nil {
		return term{}, err
	}
	if !symbolSafe.MatchString(name) {
		return term{}, refuse("name", "a column name with | or \\: %s", name)
	}
	fam := c.family(e.s.d)
	shape := e.coverShape(c)
	if shape != TemporalNone {
		fam = Other
	}
	srt := sortOf(fam)
	if shape != TemporalNone {
		srt = "Int"
	}
	e.vsort(srt)
	v, n := "|"+name+"|", "|"+name+" null|"
	e.s.declare(v, fmt.Sprintf("(declare-const %s %s)", v, srt))
	if !e.s.declared[n] {
		e.s.declare(n, fmt.Sprintf("(declare-const %s Bool)", n))
		if shape != TemporalNone {
			e.declareDate(v)
		}
		if c.NotNull {
			e.s.assert(not(n))
			e.s.facts.add(Fact{Fact: FactNotNull, Table: table, Column: c.Name})
		}
		e.s.facts.add(Fact{Fact: FactFamily, Table: table, Column: c.Name, Family: fam.String()})
	}
	aff, coll := AffinityNone, lowerASCII(c.Collation)
	if e.s.d == SQLite {
		aff = c.affinity()
		if coll == "binary" {
			coll = ""
		}
	}
	t := term{n: n, v: v, srt: srt, fam: fam, aff: aff, coll: coll, tag: "col " + fam.String() + " " + aff.String() + " " + coll}
	if shape != TemporalNone {
		t.tn = &textNum{widths: []int{4, 2, 2}, longer: shape == TemporalTimestamp}
		t.tag = "date " + aff.String()
	}
	return t, nil
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
		return term{n: "true", tag: "null"}, true
	case sqlast.LitInteger:
		v, err := strconv.ParseInt(l.Value, 10, 64)
		if err != nil {
			return term{}, false
		}
		if neg {
			v = -v
		}
		return term{n: "false", v: smtInt(v), srt: "Int", fam: Int, lit: sqlast.NumberLiteral(strconv.FormatInt(v, 10)), tag: "lit"}, true
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
		return term{n: "false", v: smtReal(f), srt: "Real", fam: Real, lit: l, tag: "lit"}, true
	case sqlast.LitString:
		if neg {
			return term{}, false
		}
		s, ok := smtString(l.Value)
		if !ok {
			return term{}, false
		}
		return term{n: "false", v: s, srt: "String", fam: Text, lit: l, tag: "lit"}, true
	}
	return term{}, false
}

// scalar encodes a value; ok is false when the kernel does not model it
// (the comparison holding it is then uninterpreted), and for a value that
// may leave the integers (value's ovf): a caller that does not write
// what the engine does then fails closed.
func (e *encoder) scalar(x sqlast.Expr) (term, bool, error) {
	t, ok, err := e.value(x)
	if err != nil || !ok || t.ovf != "" {
		return term{}, false, err
	}
	return t, true, nil
}

// value encodes a value as scalar does, and also one that may leave the
// integers (term.ovf): SQLite's integer arithmetic, whose result past 64
// bits is a real (arith). Only compare, is and the kernel's output
// comparison read such a term; each writes what holds when ovf does
// apart from what holds when it does not.
func (e *encoder) value(x sqlast.Expr) (term, bool, error) {
	switch t := x.(type) {
	case *sqlast.ParenExpr:
		return e.value(t.X)
	case *sqlast.Ident:
		if err := e.pgTruthValue(t); err != nil {
			return term{}, false, err
		}
	case *sqlast.QualifiedRef:
		tm, err := e.column(t)
		return tm, err == nil, err
	case *sqlast.Literal:
		tm, ok := e.literal(t, false)
		return tm, ok, nil
	case *sqlast.UnaryExpr:
		if l, ok := stripParens(t.X).(*sqlast.Literal); ok && t.Op == sqlast.OpMinus && (l.Kind == sqlast.LitInteger || l.Kind == sqlast.LitFloat) {
			tm, ok := e.literal(l, true)
			return tm, ok, nil
		}
		if t.Op == sqlast.OpPlus && e.s.d == SQLite {
			// +x is x without its affinity (its collation stays).
			tm, ok, err := e.scalar(t.X)
			tm.aff = AffinityNone
			return tm, ok, err
		}
	case *sqlast.FuncCall:
		if e.agg && isAggregateCall(t) {
			tm, err := e.aggregate(t)
			return tm, err == nil, err
		}
		if c := funcCase(e.s.d, t); c != nil {
			return e.caseValue(c)
		}
		if e.cover {
			return e.coverFunc(t)
		}
	case *sqlast.BinaryExpr:
		return e.arith(t)
	case *sqlast.CastExpr:
		return e.cast(t)
	case *sqlast.CaseExpr:
		return e.caseValue(t)
	case *sqlast.SubqueryExpr:
		if tm, ok := e.subTerms[t.Select]; ok && e.cover {
			return tm, true, nil
		}
		sym, env := e.env.subquery(t.Select)
		if sym == nil {
			return term{}, false, refuse("subquery", "a scalar subquery with no partner")
		}
		e.vsort("V")
		args, sorts, err := e.subArgs(sym, env)
		if err != nil {
			return term{}, false, err
		}
		n, v := e.fun("|"+sym.name+" null|", sorts, "Bool"), e.fun("|"+sym.name+"|", sorts, "V")
		return term{n: app(n, args), v: app(v, args), srt: "V", fam: Other, tag: "sub"}, true, nil
	}
	return term{}, false, nil
}

// fun declares an uninterpreted function and returns its name.
func (e *encoder) fun(name string, args []string, result string) string {
	e.s.declare(name, fmt.Sprintf("(declare-fun %s (%s) %s)", name, strings.Join(args, " "), result))
	return name
}

// subArgs encodes the outer columns a subquery symbol reads (in env, the
// first query's names).
func (e *encoder) subArgs(sym *subSym, env encodeEnv) (args, sorts []string, err error) {
	outer := &encoder{s: e.s, env: env}
	for _, k := range sym.args {
		tm, err := outer.column(sym.cols[k])
		if err != nil {
			return nil, nil, err
		}
		args = append(args, tm.n, tm.v)
		sorts = append(sorts, "Bool", tm.srt)
	}
	return args, sorts, nil
}

// aggregate encodes an aggregate call of a group: one pair of constants
// per aggregate text (encodeEnv.aggregateKey), so that the same aggregate
// of the same group is the same value. Its family: COUNT Int, TOTAL and
// AVG of numbers Real, SUM of Int or Real values and MIN or MAX of a
// modelled family that of its argument; any other Other. An aggregate's
// result has no affinity.
func (e *encoder) aggregate(f *sqlast.FuncCall) (term, error) {
	key := e.env.aggregateKey(f)
	if t, ok := e.s.aggs[key]; ok {
		return *t, nil
	}
	e.s.nAgg++
	name := "agg" + itoa(e.s.nAgg)
	fam := Other
	notNull := false
	fname := lowerASCII(f.Name.Name)
	var arg term
	argOK := false
	if len(f.Args) == 1 {
		sub := &encoder{s: newScript(e.s.d), env: e.env}
		a, ok, err := sub.scalar(f.Args[0])
		arg, argOK = a, ok && err == nil && a.srt != ""
	}
	switch fname {
	case "count":
		fam, notNull = Int, true
	case "total":
		fam, notNull = Real, true
	case "avg":
		if argOK && arg.fam.numeric() {
			fam = Real
		}
	case "sum":
		if argOK && (arg.fam == Int || arg.fam == Real) {
			fam = arg.fam
		}
	case "min", "max":
		if argOK && arg.fam != Other && arg.coll == "" {
			fam = arg.fam
		}
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
	case fname == "count" && f.Star && e.grouped:
		e.s.assert("(>= " + v + " 1)")
	case fname == "count":
		e.s.assert("(>= " + v + " 0)")
	}
	t := &term{n: n, v: v, srt: srt, fam: fam, tag: "agg " + fam.String()}
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
	case *sqlast.CaseExpr:
		p, ok, err := e.caseCond(t)
		if err != nil || ok {
			return p, err
		}
	case *sqlast.FuncCall:
		if c := funcCase(e.s.d, t); c != nil {
			p, ok, err := e.caseCond(c)
			if err != nil || ok {
				return p, err
			}
		}
	case *sqlast.NullCheckExpr:
		// value: a real past 64 bits is no NULL, so n holds either way.
		a, ok, err := e.value(t.X)
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
		if e.cover {
			if p, ok, err := e.coverLike(t); err != nil || ok {
				return p, err
			}
		}
		// SQLite's LIKE ignores the case of ASCII letters (the default,
		// which the sandbox keeps): the pattern in lower case is the same
		// predicate.
		if l, ok := t.Y.(*sqlast.Literal); ok && e.s.d == SQLite && t.Op.Name == "LIKE" && t.Escape == nil && l.Kind == sqlast.LitString {
			c := *t
			c.Y = sqlast.StringLiteral(lowerASCII(l.Value))
			return e.opaque(&c)
		}
	case *sqlast.ExistsExpr:
		sym, env := e.env.subquery(t.Select)
		if sym == nil {
			return pred{}, refuse("subquery", "an EXISTS subquery with no partner")
		}
		args, sorts, err := e.subArgs(sym, env)
		if err != nil {
			return pred{}, err
		}
		ex := app(e.fun("|exists "+sym.name+"|", sorts, "Bool"), args)
		return pred{ex, not(ex)}, nil
	case *sqlast.Ident:
		// PostgreSQL's TRUE and FALSE (the canonical form keeps no other
		// bare name).
		switch truthWord(e.s.d, t) {
		case "true":
			return pred{"true", "false"}, nil
		case "false":
			return pred{"false", "true"}, nil
		}
		return pred{}, refuse("unresolved", "no such column: %s", t.Name)
	case *sqlast.QualifiedRef, *sqlast.Literal:
		if e.s.d == Postgres {
			return e.pgBareCond(x)
		}
		a, ok, err := e.scalar(x)
		if err != nil {
			return pred{}, err
		}
		if ok && a.fam.numeric() {
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
	if e.s.d == Postgres && !e.pgBoolean(x) {
		return pred{}, refuse("condition", "%s as a condition: PostgreSQL fails a condition that is not boolean, and the kernel does not type it", sqlast.Format(x))
	}
	return e.opaque(x)
}

// pgTruthValue refuses an x that holds PostgreSQL's TRUE or FALSE where
// the encoding would read it as a value (a comparison's operand, an
// argument, an uninterpreted expression): the kernel models neither the
// boolean type nor the errors PostgreSQL gives a boolean among values of
// other types (TRUE = 1 fails there). As a condition, or the right
// operand of IS, the encoding reads it without coming here.
func (e *encoder) pgTruthValue(x sqlast.Expr) error {
	if e.s.d != Postgres {
		return nil
	}
	var found string
	walkExpr(x, func(y sqlast.Expr) bool {
		if id, ok := y.(*sqlast.Ident); ok && truthWord(e.s.d, id) != "" {
			found = id.Name
		}
		return found == ""
	})
	if found != "" {
		return refuse("boolean value", "%s as a value: the kernel does not model PostgreSQL's boolean type", found)
	}
	return nil
}

// pgBareCond encodes a column or a literal standing as a condition on
// PostgreSQL, which wants a boolean there and fails the query otherwise
// ("argument of WHERE must be type boolean"): NULL is unknown, a column
// of type boolean an uninterpreted truth value; anything else is
// refused (SQLite's reading of a number as a truth value would prove
// such a query equal to one that runs).
func (e *encoder) pgBareCond(x sqlast.Expr) (pred, error) {
	switch t := x.(type) {
	case *sqlast.Literal:
		if t.Kind == sqlast.LitNull {
			return pred{"false", "false"}, nil
		}
	case *sqlast.QualifiedRef:
		_, _, c, err := e.env.column(t)
		if err != nil {
			return pred{}, err
		}
		if c.Bool {
			return e.opaque(x)
		}
	}
	return pred{}, refuse("condition", "%s as a condition: PostgreSQL fails a condition that is not boolean", sqlast.Format(x))
}

// pgBoolean reports whether x, standing as a condition that the encoding
// leaves uninterpreted, is boolean on PostgreSQL and never fails there:
// a LIKE (or ILIKE) of a text column or string against a string pattern
// without a backslash and without ESCAPE (a pattern that ends in the
// escape character fails). Anything else (a function, arithmetic, a CAST,
// a scalar subquery, a CASE the encoding does not read, a LIKE of a
// number) may be of another type, which PostgreSQL refuses there, or fail
// on some row, which the uninterpreted predicate does not model: under
// OR TRUE a failing operand would vanish from the encoding and not from
// the engine.
func (e *encoder) pgBoolean(x sqlast.Expr) bool {
	l, ok := stripParens(x).(*sqlast.LikeExpr)
	if !ok || strings.EqualFold(l.Op.Name, "GLOB") || !neverFailsNode(l, Postgres, nil) {
		return false
	}
	switch t := stripParens(l.X).(type) {
	case *sqlast.Literal:
		return t.Kind == sqlast.LitString
	case *sqlast.QualifiedRef:
		_, _, c, err := e.env.column(t)
		return err == nil && c.family(e.s.d) == Text
	}
	return false
}

// compare encodes a op b (x is the whole comparison, for the
// uninterpreted case).
func (e *encoder) compare(x sqlast.Expr, op sqlast.Operator, a, b sqlast.Expr) (pred, error) {
	ta, oka, err := e.value(a)
	if err != nil {
		return pred{}, err
	}
	tb, okb, err := e.value(b)
	if err != nil {
		return pred{}, err
	}
	if oka && okb && (ta.srt == "" || tb.srt == "") {
		return pred{"false", "false"}, nil // a comparison with NULL is NULL
	}
	if oka && okb {
		if c, ok := e.relate(op, past(ta), past(tb)); ok {
			known := and(not(ta.n), not(tb.n))
			return pred{and(known, c), and(known, not(c))}, nil
		}
	}
	return e.opaque(x)
}

// relate writes a op b for two non-NULL values as the engine compares
// them; false when the kernel does not model the comparison.
func (e *encoder) relate(op sqlast.Operator, a, b term) (string, bool) {
	a, b, ok := e.convert(a, b)
	if !ok {
		return "", false
	}
	if a.tn != nil || b.tn != nil {
		return relateTextNum(op, a, b)
	}
	switch {
	case a.fam.numeric() && b.fam.numeric():
		if a.fam == Int && b.fam == Int {
			return relation(op, a.v, b.v, "Int", e.s.d)
		}
		return relation(op, toReal(a), toReal(b), "Real", e.s.d)
	case a.fam == Text && b.fam == Text && a.coll == "" && b.coll == "":
		return relation(op, a.v, b.v, "String", e.s.d)
	case e.s.d == SQLite && a.fam.numeric() && b.fam == Text:
		return classOrder(op, -1), true // a number sorts before any string
	case e.s.d == SQLite && a.fam == Text && b.fam.numeric():
		return classOrder(op, 1), true
	}
	return "", false
}

// classOrder is the truth of a op b for values of different storage
// classes, cmp < 0 when a's class sorts first.
func classOrder(op sqlast.Operator, cmp int) string {
	var t bool
	switch op {
	case sqlast.OpEq:
		t = false
	case sqlast.OpNe:
		t = true
	case sqlast.OpLt, sqlast.OpLe:
		t = cmp < 0
	case sqlast.OpGt, sqlast.OpGe:
		t = cmp > 0
	}
	return strconv.FormatBool(t)
}

// compareAffinity is the affinity SQLite applies to both operands of a
// comparison (sqlite3CompareAffinity): when both have one (BLOB
// included), NUMERIC if either is numeric, else none; when one has one,
// that one.
func compareAffinity(a, b Affinity) Affinity {
	switch {
	case a > AffinityNone && b > AffinityNone:
		if a.numeric() || b.numeric() {
			return AffinityNumeric
		}
		return AffinityBlob
	case a == AffinityNone:
		return b
	}
	return a
}

// convert applies the comparison's conversions to a and b: on SQLite the
// affinity compareAffinity gives (a numeric one turns a string that is a
// number into that number, TEXT a number into its text); on PostgreSQL a
// string literal compared with an integer is read as one. false when a
// conversion the kernel cannot write is needed (of a column's value, or
// of a string that may or may not be a number).
func (e *encoder) convert(a, b term) (term, term, bool) {
	if e.s.d != SQLite {
		switch {
		case a.fam == Int && b.fam == Text && b.lit != nil:
			b2, ok := intLiteral(b)
			return a, b2, ok
		case b.fam == Int && a.fam == Text && a.lit != nil:
			a2, ok := intLiteral(a)
			return a2, b, ok
		}
		return a, b, a.fam == b.fam
	}
	var oka, okb bool
	switch aff := compareAffinity(a.aff, b.aff); {
	case aff.numeric():
		a, oka = e.toNumber(a)
		b, okb = e.toNumber(b)
	case aff == AffinityText:
		a, oka = toText(a)
		b, okb = toText(b)
	default:
		return a, b, true
	}
	return a, b, oka && okb
}

// intLiteral reads a string literal that is an integer as that integer.
func intLiteral(t term) (term, bool) {
	if t.lit == nil || t.lit.Kind != sqlast.LitString || !intText.MatchString(t.lit.Value) {
		return t, false
	}
	v, _ := strconv.ParseInt(t.lit.Value, 10, 64)
	return term{n: "false", v: smtInt(v), srt: "Int", fam: Int, lit: sqlast.NumberLiteral(strconv.FormatInt(v, 10)), tag: "lit"}, true
}

// toNumber applies NUMERIC affinity to a value: a number stays; a string
// literal that is an integer becomes it, one without a digit (no number
// SQLite reads) stays a string; anything else is not modelled.
func toNumber(t term) (term, bool) {
	switch {
	case t.fam.numeric() || t.fam == Other:
		return t, true
	case t.fam == Text && t.lit != nil && t.lit.Kind == sqlast.LitString:
		if n, ok := intLiteral(t); ok {
			return n, true
		}
		return t, !strings.ContainsAny(t.lit.Value, "0123456789")
	}
	return t, false
}

// toText applies TEXT affinity to a value: a string stays; an integer
// literal becomes its text; anything else is not modelled.
func toText(t term) (term, bool) {
	switch {
	case t.fam == Text || t.fam == Other:
		return t, true
	case t.fam == Int && t.lit != nil && t.lit.Kind == sqlast.LitInteger:
		s, _ := smtString(t.lit.Value)
		return term{n: "false", v: s, srt: "String", fam: Text, lit: sqlast.StringLiteral(t.lit.Value), tag: "lit"}, true
	}
	return t, false
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

// is encodes a IS [NOT] b, and SQLite's a IS [NOT] TRUE / FALSE: TRUE
// when a is TRUE (FALSE), never NULL (OP_IsTrue: a NULL a is neither).
func (e *encoder) is(x sqlast.Expr, t *sqlast.IsExpr) (pred, error) {
	if w := truthWord(e.s.d, t.Y); w != "" {
		p, err := e.cond(t.X)
		if err != nil {
			return pred{}, err
		}
		holds := p.t
		if w == "false" {
			holds = p.f
		}
		q := pred{holds, not(holds)}
		if t.Not != t.Distinct {
			q = q.not()
		}
		return q, nil
	}
	ta, oka, err := e.value(t.X)
	if err != nil {
		return pred{}, err
	}
	tb, okb, err := e.value(t.Y)
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
		eq, ok := e.relate(sqlast.OpEq, past(ta), past(tb))
		if !ok {
			return e.opaque(x)
		}
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

// in encodes x [NOT] IN (list) and x [NOT] IN (subquery). The values of
// a list have no affinity (SQLite reads x IN (y, z) as x = +y OR x =
// +z); x IN (SELECT y ...) compares as x = y, under the affinities and
// collations of both (the pair's subqueries return theirs alike, which
// the comparison checks), so its symbol is one of x's value and kind.
func (e *encoder) in(x sqlast.Expr, t *sqlast.InExpr) (pred, error) {
	var p pred
	switch {
	case t.Select != nil:
		sym, env := e.env.subquery(t.Select)
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
		args, sorts, err := e.subArgs(sym, env)
		if err != nil {
			return pred{}, err
		}
		args = append([]string{a.n, a.v}, args...)
		sorts = append([]string{"Bool", a.srt}, sorts...)
		kind := a.srt + " " + a.fam.String() + " " + a.aff.String() + " " + a.coll
		p = pred{app(e.fun("|in "+sym.name+" "+kind+"|", sorts, "Bool"), args), app(e.fun("|not in "+sym.name+" "+kind+"|", sorts, "Bool"), args)}
		e.s.assert(not(and(p.t, p.f)))
	case len(t.List) == 0:
		p = pred{"false", "true"}
	default:
		var ts, fs []string
		for _, y := range t.List {
			if e.s.d == SQLite {
				y = &sqlast.UnaryExpr{Op: sqlast.OpPlus, X: y}
			}
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
// subqueries), one per text of the condition with its leaves numbered
// and each leaf's sort and kind (family, affinity, collation).
func (e *encoder) opaque(x sqlast.Expr) (pred, error) {
	key, leaves, err := e.leafKey(x)
	if err != nil {
		return pred{}, err
	}
	var args, sorts, kinds []string
	for _, l := range leaves {
		args = append(args, l.n, l.v)
		sorts = append(sorts, "Bool", l.srt)
		kinds = append(kinds, l.tag)
	}
	key += " :: " + strings.Join(sorts, " ") + " :: " + strings.Join(kinds, ", ")
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
	if err := e.pgTruthValue(x); err != nil {
		return "", nil, err
	}
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
		switch t := l.(type) {
		case *sqlast.QualifiedRef:
			var err error
			if tm, err = e.column(t); err != nil {
				return "", nil, err
			}
		case *sqlast.FuncCall:
			if !e.agg {
				return "", nil, refuse("aggregate", "an aggregate outside an aggregate block")
			}
			var err error
			if tm, err = e.aggregate(t); err != nil {
				return "", nil, err
			}
		case *sqlast.SubqueryExpr:
			var ok bool
			var err error
			if tm, ok, err = e.scalar(t); err != nil || !ok {
				return "", nil, refuse("subquery", "a scalar subquery with no partner")
			}
		default:
			return "", nil, refuse("subquery", "an IN or EXISTS subquery inside an expression the kernel does not model")
		}
		k, seen := index[tm.v]
		if !seen {
			terms = append(terms, tm)
			k = len(terms)
			index[tm.v] = k
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
