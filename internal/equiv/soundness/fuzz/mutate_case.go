package fuzz

import "github.com/sqljudge/sqljudge/internal/engine"

// The rewrites of the kernel's CASE and integer arithmetic encodings
// (issue 40): each writes a condition or a value another way that the
// encoding must read as the same, or, as a trap, as one that differs on
// some database.

// caseWrap writes a condition or a value through a searched CASE: a
// WHERE, ON or HAVING conjunct p as CASE WHEN p THEN 1 ELSE 0 END (or
// without the ELSE; = 1 after it on PostgreSQL, which wants a boolean
// there, and at times on SQLite), an operand x of a comparison or an output x as CASE WHEN x
// IS NULL THEN NULL ELSE x END or CASE WHEN x IS NOT NULL THEN x ELSE x
// END (on SQLite at times spelled iif: iif(p, 1, 0), the same CASE), or p
// IS TRUE.
// A CASE already there has, at times, a WHEN w written (w) IS TRUE.
// Traps: p IS NOT FALSE and CASE WHEN NOT p THEN 0 ELSE 1 END (a NULL p keeps the
// row), a WHEN w written (w) IS NOT FALSE (a NULL w takes it), CASE WHEN x IS NULL THEN x END (always NULL), and what a column
// loses inside a CASE, its affinity (x = '5' of an INTEGER column holding
// 5) and its collation (x = 'A' of a NOCASE column holding 'a').
func (m *mutator) caseWrap(q *sel) bool {
	if cs, ok := pickSite(m, sitesOf(q, func(st site) bool {
		_, ok := (*st.slot).(*caseExpr)
		return ok
	})); ok && chance(m.g.r, 0.3) {
		return m.whenTruth((*cs.slot).(*caseExpr))
	}
	// Most often, where there is one, a column compared with a literal
	// of the other class, which the column's affinity converts and the
	// CASE's (none) does not.
	st, ok := pickSite(m, sitesOf(q, func(st site) bool {
		b, ok := (*st.slot).(*binary)
		return ok && isCmp(b.op) && crossClass(b)
	}))
	cross := ok && chance(m.g.r, 0.85)
	if !cross {
		st, ok = pickSite(m, sitesOf(q, func(st site) bool {
			if b, ok := (*st.slot).(*binary); ok && isCmp(b.op) {
				return true
			}
			return st.term && st.cl != inGroupBy && st.cl != inOrderBy
		}))
	}
	if !ok {
		return false
	}
	cond := st.cl == inWhere || st.cl == inOn || st.cl == inHaving
	if b, ok := (*st.slot).(*binary); ok && isCmp(b.op) && !(cond && st.term && chance(m.g.r, 0.3)) {
		side := &b.l
		if _, isLit := b.l.(*lit); isLit || !cross && chance(m.g.r, 0.3) {
			side = &b.r
		}
		*side = m.caseValue(*side)
		m.detail = "operand:" + m.detail
		if cross {
			m.detail = "cross_" + m.detail
		}
		return true
	}
	if !cond {
		*st.slot = m.caseValue(*st.slot)
		m.detail = "output:" + m.detail
		return true
	}
	p := *st.slot
	one, zero := numLit(intVal(1)), numLit(intVal(0))
	var cx *caseExpr
	switch r := m.g.r.Float64(); {
	case r < 0.4:
		cx, m.detail = &caseExpr{whens: []caseWhen{{p, one}}, els: zero}, "cond"
	case r < 0.6:
		cx, m.detail = &caseExpr{whens: []caseWhen{{p, one}}}, "cond_no_else"
	case r < 0.85:
		// p IS TRUE keeps the rows p keeps; p IS NOT FALSE (a trap)
		// keeps those where p is NULL too.
		m.detail = "is_true"
		w := &lit{v: intVal(1), text: "TRUE"}
		if chance(m.g.r, 0.4) {
			w, m.detail = &lit{v: intVal(0), text: "FALSE"}, "is_not_false"
		}
		op := "IS"
		if m.detail == "is_not_false" {
			op = "IS NOT"
		}
		*st.slot = &binary{op: op, l: p, r: w}
		return true
	default:
		cx, m.detail = &caseExpr{whens: []caseWhen{{&unary{op: "NOT", x: p}, zero}}, els: one}, "not_cond"
	}
	cx.iif = m.g.d == engine.SQLite && chance(m.g.r, 0.3)
	// On SQLite at times = 1 after it too: the CASE then read as a
	// value, not as a condition.
	if m.g.d == engine.Postgres || chance(m.g.r, 0.3) {
		*st.slot = &binary{op: "=", l: cx, r: numLit(intVal(1))}
	} else {
		*st.slot = cx
	}
	return true
}

// whenTruth writes a WHEN condition w of cx as (w) IS TRUE, the WHEN a
// CASE takes (only when w is true), or, as a trap, (w) IS NOT FALSE, which
// takes a NULL w too.
func (m *mutator) whenTruth(cx *caseExpr) bool {
	w := &cx.whens[m.g.r.IntN(len(cx.whens))]
	op, word, v := "IS", "TRUE", int64(1)
	m.detail = "when_is_true"
	if chance(m.g.r, 0.4) {
		op, word, v, m.detail = "IS NOT", "FALSE", 0, "when_not_false"
	}
	w.cond = &binary{op: op, l: w.cond, r: &lit{v: intVal(v), text: word}}
	return true
}

// crossClass reports whether b compares a column with a literal of the
// other class (a number with a TEXT column, a string with a numeric one).
func crossClass(b *binary) bool {
	r, isCol := b.l.(*colRef)
	l, isLit := b.r.(*lit)
	if !isCol || !isLit || l.v.k == kNull {
		return false
	}
	return (classOf(r) == cText) != (l.v.k == kText)
}

// caseValue is x through a CASE that returns it (at times, as a trap,
// one that returns NULL; on SQLite at times spelled iif); m.detail says
// which.
func (m *mutator) caseValue(x expr) expr {
	cx := m.caseOfValue(x)
	cx.iif = m.g.d == engine.SQLite && chance(m.g.r, 0.3)
	return cx
}

func (m *mutator) caseOfValue(x expr) *caseExpr {
	switch r := m.g.r.Float64(); {
	case r < 0.45:
		m.detail = "null_else"
		return &caseExpr{whens: []caseWhen{{&isNull{x: clone(x)}, numLit(value{})}}, els: x}
	case r < 0.9:
		m.detail = "same"
		return &caseExpr{whens: []caseWhen{{&isNull{x: clone(x), not: true}, clone(x)}}, els: x}
	}
	m.detail = "always_null"
	return &caseExpr{whens: []caseWhen{{&isNull{x: clone(x)}, x}}}
}

// arithShift moves an integer across a comparison of a value with an
// integer literal, as the kernel's integer arithmetic reads it back: x
// op k as x + d op k + d, x - d op k - d or x * 2 op 2k (d from 1 to 3);
// x >= 2c and x < 2c as x / 2 >= c and x / 2 < c (x > 2c - 1 and x <= 2c
// - 1 the same), true of integers when c > 0; and an output x of a
// numeric column as x + 0, 0 + x or x * 1. Traps: the division at c <= 0
// (SQLite's division truncates toward zero: -1 / 2 >= 0, where rounding
// down, SMT-LIB's div, gives -1), x / 2 op k / 2 otherwise (7 / 2 = 3),
// x * -1 op -k (an order reverses), and what the arithmetic does to x's
// value: a TEXT column holding '05' (x + 1 = 6, x = 5 is false), a real,
// a value near the largest integer (x + 3 past 64 bits is a real). A
// comparison of two numeric columns x op y becomes x + d op y + d, x - d
// op y - d or x * 2 op y * 2: a trap on SQLite, where two integers near
// the extremes leave the integers as one real (9223372036854775807 * 2
// and 9223372036854775806 * 2 compare equal).
func (m *mutator) arithShift(q *sel) bool {
	const small = 1 << 40
	smallInt := func(e expr) (int64, bool) {
		l, isLit := e.(*lit)
		if !isLit || l.v.k != kInt || l.v.i <= -small || l.v.i >= small {
			return 0, false
		}
		return l.v.i, true
	}
	// An order comparison of an INTEGER column, the division's ground,
	// first at times: most comparisons are equalities.
	if st, ok := pickSite(m, sitesOf(q, func(st site) bool {
		b, ok := (*st.slot).(*binary)
		if !ok {
			return false
		}
		_, isInt := smallInt(b.r)
		return isInt && integerColumn(b.l) && (b.op == "<" || b.op == "<=" || b.op == ">" || b.op == ">=")
	})); ok && chance(m.g.r, 0.35) {
		b := (*st.slot).(*binary)
		k, _ := smallInt(b.r)
		m.detail = "div_eq"
		if divThreshold(b, k) {
			m.detail = "div"
		}
		return true
	}
	st, ok := pickSite(m, sitesOf(q, func(st site) bool {
		if b, ok := (*st.slot).(*binary); ok && isCmp(b.op) {
			if numericColumns(b) {
				return true
			}
			_, isInt := smallInt(b.r)
			return isInt
		}
		r, isCol := (*st.slot).(*colRef)
		return isCol && st.term && st.cl == inItems && classOf(r) == cNum
	}))
	if !ok {
		return false
	}
	b, isCmp := (*st.slot).(*binary)
	if !isCmp {
		x := *st.slot
		switch m.g.r.IntN(3) {
		case 0:
			*st.slot = &binary{op: "+", l: x, r: numLit(intVal(0))}
		case 1:
			*st.slot = &binary{op: "+", l: numLit(intVal(0)), r: x}
		default:
			*st.slot = &binary{op: "*", l: x, r: numLit(intVal(1))}
		}
		m.detail = "output"
		return true
	}
	if numericColumns(b) {
		op, d := oneOf(m.g.r, "+", "-", "*"), int64(1+m.g.r.IntN(3))
		if op == "*" {
			d = 2
		}
		b.l = &binary{op: op, l: b.l, r: numLit(intVal(d))}
		b.r = &binary{op: op, l: b.r, r: numLit(intVal(d))}
		m.detail = "both_" + map[string]string{"+": "add", "-": "sub", "*": "mul"}[op]
		return true
	}
	k, d := b.r.(*lit).v.i, int64(1+m.g.r.IntN(3))
	op, lit, det := "+", k+d, "add"
	switch r := m.g.r.Float64(); {
	case r < 0.3:
	case r < 0.5:
		op, lit, det = "-", k-d, "sub"
	case r < 0.65:
		op, d, lit, det = "*", 2, 2*k, "mul"
	case r < 0.9 && integerColumn(b.l):
		m.detail = "div_eq"
		if divThreshold(b, k) {
			m.detail = "div"
		}
		return true
	default:
		op, d, lit, det = "*", -1, -k, "neg"
	}
	b.l = &binary{op: op, l: b.l, r: numLit(intVal(d))}
	b.r = numLit(intVal(lit))
	m.detail = det
	return true
}

// numericColumns reports whether b compares two columns of numeric
// affinity.
func numericColumns(b *binary) bool {
	x, ok1 := b.l.(*colRef)
	y, ok2 := b.r.(*colRef)
	return ok1 && ok2 && classOf(x) == cNum && classOf(y) == cNum
}

// divThreshold writes b, x op k of an integer literal k, as x / 2 >= c
// or x / 2 < c when x op k is x >= 2c or x < 2c (x > k and x <= k are
// those of k + 1): the same integers when / rounds down (SMT-LIB's div),
// and when it truncates toward zero (SQLite) only if c > 0 (-1 / 2 >= 0).
// It reports whether it did; otherwise (an equality, a threshold of the
// other parity) it writes x / 2 op k / 2, a trap (7 / 2 = 3).
func divThreshold(b *binary, k int64) bool {
	t := k
	if b.op == ">" || b.op == "<=" {
		t = k + 1
	}
	if t%2 != 0 || b.op == "=" || b.op == "<>" {
		b.l = &binary{op: "/", l: b.l, r: numLit(intVal(2))}
		b.r = numLit(intVal(k / 2))
		return false
	}
	b.op = map[string]string{">": ">=", ">=": ">=", "<": "<", "<=": "<"}[b.op]
	b.l = &binary{op: "/", l: b.l, r: numLit(intVal(2))}
	b.r = numLit(intVal(t / 2))
	return true
}

// integerColumn reports whether x is a column of INTEGER affinity.
func integerColumn(x expr) bool {
	r, ok := x.(*colRef)
	if !ok {
		return false
	}
	t, i, ok := baseColumn(r)
	return ok && t.cols[i].affinity() == affInteger
}

// failWrap wraps an output, GROUP BY or ORDER BY term e of a SELECT
// that reads an integer
// column c as CASE WHEN f(c) > 0 THEN e ELSE e END, f(c) an operand that
// fails on some rows (SQLite: abs of the smallest integer, "integer
// overflow"; PostgreSQL: c + 1 at the largest INTEGER, "integer out of
// range"): the same value wherever both run, but the rewritten query
// fails where the original runs. A trap: a kernel that compares values
// and not failures proves it (the kernel did, until check.FormRisk); the
// harness counts a database on which one query fails and the other runs
// as a counterexample.
func (m *mutator) failWrap(q *sel) bool {
	st, ok := pickSite(m, sitesOf(q, func(st site) bool {
		return st.term && (st.cl == inItems || st.cl == inGroupBy || st.cl == inOrderBy) && !st.inAgg && len(st.s.from) > 0 && st.s.limit < 0
	}))
	if !ok {
		return false
	}
	c := m.g.column(st.s, cNum, false)
	if c == nil || classOf(c) != cNum {
		return false
	}
	var f expr = &call{name: "abs", args: []expr{c}}
	m.detail = "abs"
	if m.g.d == engine.Postgres {
		f, m.detail = &binary{op: "+", l: c, r: numLit(intVal(1))}, "plus"
	}
	e := *st.slot
	*st.slot = &caseExpr{whens: []caseWhen{{&binary{op: ">", l: f, r: numLit(intVal(0))}, e}}, els: clone(e)}
	return true
}

// staticFail adds to a SELECT's WHERE a conjunct (f OR 1 = 1), f an
// operand the engine refuses when it prepares the query, on every
// database, empty ones included: SQLite's c COLLATE sj_nosuch = c ("no such
// collation sequence"), PostgreSQL's c = (c IS NULL) for a column c
// that is not boolean ("operator does not exist"). Wherever the
// rewritten query would run it keeps the same rows; it never runs. A
// trap: a kernel that reads the condition's value and not whether the
// engine accepts the query proves the pair (the kernel did for an
// unknown collation, and for PostgreSQL's comparisons of a boolean with
// a number, until 6e4641d); the harness counts a database on which one
// query fails and the other runs as a counterexample.
func (m *mutator) staticFail(q *sel) bool {
	ss := sels(q)
	s := ss[m.g.r.IntN(len(ss))]
	if len(s.from) == 0 {
		return false
	}
	var f expr
	if m.g.d == engine.Postgres {
		c := m.g.column(s, cNum, false)
		if c == nil || classOf(c) != cNum {
			return false
		}
		f, m.detail = &binary{op: "=", l: c, r: &isNull{x: clone(c)}}, "bool_eq"
	} else {
		c := m.g.column(s, cAny, false)
		if c == nil {
			return false
		}
		f, m.detail = &binary{op: "=", l: &collate{x: c, name: "sj_nosuch"}, r: clone(c)}, "collation"
	}
	s.where = andExpr(s.where, &binary{op: "OR", l: f, r: trueConjunct()})
	return true
}
