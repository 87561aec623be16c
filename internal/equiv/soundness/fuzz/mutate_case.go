package fuzz

import "github.com/sqljudge/sqljudge/internal/engine"

// The rewrites of the kernel's CASE and integer arithmetic encodings
// (issue 40): each writes a condition or a value another way that the
// encoding must read as the same, or, as a trap, as one that differs on
// some database.

// caseWrap writes a condition or a value through a searched CASE: a
// WHERE, ON or HAVING conjunct p as CASE WHEN p THEN 1 ELSE 0 END (or
// without the ELSE; on PostgreSQL, which wants a boolean there, = 1
// after it), an operand x of a comparison or an output x as CASE WHEN x
// IS NULL THEN NULL ELSE x END or CASE WHEN x IS NOT NULL THEN x ELSE x
// END (on SQLite at times spelled iif: iif(p, 1, 0), the same CASE), or p
// IS TRUE.
// Traps: p IS NOT FALSE and CASE WHEN NOT p THEN 0 ELSE 1 END (a NULL p keeps the
// row), CASE WHEN x IS NULL THEN x END (always NULL), and what a column
// loses inside a CASE, its affinity (x = '5' of an INTEGER column holding
// 5) and its collation (x = 'A' of a NOCASE column holding 'a').
func (m *mutator) caseWrap(q *sel) bool {
	// Most often, where there is one, a column compared with a literal
	// of the other class, which the column's affinity converts and the
	// CASE's (none) does not.
	st, ok := pickSite(m, sitesOf(q, func(st site) bool {
		b, ok := (*st.slot).(*binary)
		return ok && isCmp(b.op) && crossClass(b)
	}))
	if !ok || chance(m.g.r, 0.3) {
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
		if _, isLit := b.l.(*lit); isLit || chance(m.g.r, 0.3) {
			side = &b.r
		}
		*side = m.caseValue(*side)
		m.detail = "operand:" + m.detail
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
	if m.g.d == engine.Postgres {
		*st.slot = &binary{op: "=", l: cx, r: numLit(intVal(1))}
	} else {
		*st.slot = cx
	}
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
// op k as x + d op k + d, x - d op k - d or x * 2 op 2k (d from 1 to 3),
// and an output x of a numeric column as x + 0, 0 + x or x * 1. Traps: x
// / 2 op k / 2 (integer division truncates: 7 / 2 = 3), x * -1 op -k
// (an order reverses), and what the arithmetic does to x's value: a
// TEXT column holding '05' (x + 1 = 6, x = 5 is false), a real, a value
// near the largest integer (x + 3 past 64 bits is a real).
func (m *mutator) arithShift(q *sel) bool {
	const small = 1 << 40
	st, ok := pickSite(m, sitesOf(q, func(st site) bool {
		if b, ok := (*st.slot).(*binary); ok && isCmp(b.op) {
			l, isLit := b.r.(*lit)
			return isLit && l.v.k == kInt && l.v.i > -small && l.v.i < small
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
	k, d := b.r.(*lit).v.i, int64(1+m.g.r.IntN(3))
	op, lit, det := "+", k+d, "add"
	switch r := m.g.r.Float64(); {
	case r < 0.35:
	case r < 0.6:
		op, lit, det = "-", k-d, "sub"
	case r < 0.8:
		op, d, lit, det = "*", 2, 2*k, "mul"
	case r < 0.9:
		op, d, lit, det = "/", 2, k/2, "div"
	default:
		op, d, lit, det = "*", -1, -k, "neg"
	}
	b.l = &binary{op: op, l: b.l, r: numLit(intVal(d))}
	b.r = numLit(intVal(lit))
	m.detail = det
	return true
}
