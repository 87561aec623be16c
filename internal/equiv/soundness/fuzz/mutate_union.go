package fuzz

import (
	"strconv"
	"strings"
)

// unionDerive (the kernel's derived_compound, by hand, and the fuzzer's
// only compound queries): the first query Q becomes Q UNION ALL B, B a
// copy of Q (at times with one more condition, ":cond", or one output
// replaced by a literal of another class, ":literal", so that the
// compound's column mixes storage classes), and the second SELECT d.n1,
// ..., d.nk FROM (Q' UNION ALL B') AS d, Q' the copy the rewrites work
// on and B' a copy of B (each output of Q' without an alias or a column
// name gets one, e1, e2, ...). Detail "all"; "distinct" when the second
// is SELECT DISTINCT and the first Q UNION B (equal where the rows
// DISTINCT and UNION take for equal are the same value: the tie-safety
// the rule's DISTINCT form asks for). "union", "except", "intersect":
// the same operator in both, d read whole (SQLite reads a compound left to
// right, so the second is the first spliced). ":drop": the first query's
// branches without their last output, and d read without it: the
// projection of a UNION ALL, a trap for any other operator (EXCEPT of
// pairs is not EXCEPT of their first halves) and where the dropped output
// is a branch's only aggregate (SELECT 7, count(*) gives one row on an
// empty table, SELECT 7 none: the kernel proved such a pair before
// derived_compound checked it). Only at the top level,
// without ORDER BY, LIMIT or *; the names of Q's outputs distinct.
func (m *mutator) unionDerive(q *sel) bool {
	t := m.twinSel(q)
	if t == nil || len(q.orderBy) > 0 || q.limit >= 0 || len(t.orderBy) > 0 || t.limit >= 0 ||
		len(q.arms) > 0 || len(t.arms) > 0 || hasStar(q) || hasStar(t) || len(q.items) != len(t.items) {
		return false
	}
	// The names d's columns go by: an alias, a column's name, or a fresh
	// one (e1, ...) given in both queries alike.
	seen := map[string]bool{}
	for i, it := range q.items {
		name := it.alias
		if name == "" {
			if r, ok := it.x.(*colRef); ok {
				name = r.f.colName(r.col)
			} else {
				name = "e" + strconv.Itoa(i+1)
				it.alias = name
			}
		}
		if seen[strings.ToLower(name)] || strings.EqualFold(name, "rowid") {
			return false
		}
		seen[strings.ToLower(name)] = true
	}
	b := cloneQuery(t)
	m.detail = "all"
	switch {
	case chance(m.g.r, 0.3):
		b.where = andExpr(b.where, m.g.cond(b, 1))
		m.detail += ":cond"
	case chance(m.g.r, 0.3):
		i := m.g.r.IntN(len(b.items))
		b.items[i].x = m.g.literal(oneOf(m.g.r, cNum, cText))
		m.detail += ":literal"
	}
	op, inner := "UNION ALL", "UNION ALL"
	distinct, drop := false, false
	switch r := m.g.r.IntN(10); {
	case r < 3:
		distinct, op = true, "UNION"
		m.detail = "distinct" + strings.TrimPrefix(m.detail, "all")
	case r < 6:
		op = oneOf(m.g.r, "UNION", "EXCEPT", "INTERSECT")
		inner = op
		m.detail = strings.ToLower(op) + strings.TrimPrefix(m.detail, "all")
	}
	if n := len(t.items); n >= 2 && t.items[n-1].alias == "" && b.items[n-1].alias == "" && chance(m.g.r, 0.3) {
		// The first query's branches without their last output, the
		// second's d read without it: the projection of a UNION ALL (for
		// another operator, a trap).
		t.items, drop = t.items[:n-1], true
		m.detail += ":drop"
	}
	tb := b
	if drop {
		tb = cloneQuery(b)
		tb.items = tb.items[:len(tb.items)-1]
	}
	t.arms = []*arm{{op: op, s: tb}}
	// The second: its SELECT moves into d, beside a copy of B.
	in := &sel{}
	*in = *q
	for _, s := range sels(in) {
		if s.outer == q {
			s.outer = in
		}
	}
	in.arms = []*arm{{op: inner, s: cloneQuery(b)}}
	d := &fromItem{sub: in, alias: "d"}
	*q = sel{from: []*fromItem{d}, limit: -1, offset: -1, distinct: distinct}
	for i := range in.items {
		if drop && i == len(in.items)-1 {
			break
		}
		q.items = append(q.items, &item{x: &colRef{f: d, col: i, qual: true}})
	}
	delete(m.twin.sels, q)
	m.twin.sels[in] = t
	return true
}
