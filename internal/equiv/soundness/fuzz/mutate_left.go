package fuzz

import (
	"slices"
	"strconv"
)

// leftGroup joins, by LEFT JOIN, a FROM subquery that nothing reads and
// that holds one row per key (the kernel's left_join_elim on a FROM
// subquery): (SELECT k1 [, k2], COUNT(*) AS n FROM T [WHERE w] GROUP BY
// k1 [, k2]) AS d (detail "group"), or (SELECT DISTINCT k1 [, k2] FROM T
// [WHERE w]) ("distinct"), ON d.k1 = x1 [AND d.k2 = x2] [AND d.n > 1],
// each xi a column of the SELECT's FROM (of ki's affinity most often) or
// a literal. Traps: ":partial", a key left out of the ON (two rows of d
// meet one row); ":sum", SUM of a number column among d's outputs
// (SQLite's SUM of integers fails on an overflow, which the query without
// d never meets); and whatever ki and xi are (NOCASE against BINARY, an
// untyped column against a typed one: values equal that are not the
// same).
func (m *mutator) leftGroup(q *sel) bool {
	ss := sels(q)
	s := ss[m.g.r.IntN(len(ss))]
	if len(s.from) == 0 || hasStar(s) || len(s.arms) > 0 {
		return false
	}
	t := m.g.s.tables[m.g.r.IntN(len(m.g.s.tables))]
	inner := &fromItem{table: t}
	sub := newSel()
	sub.from = []*fromItem{inner}
	keys := m.g.r.Perm(len(t.cols))[:min(len(t.cols), 1+m.g.r.IntN(2))]
	for k, c := range keys {
		sub.items = append(sub.items, &item{x: &colRef{f: inner, col: c}, alias: "k" + strconv.Itoa(k+1)})
	}
	m.detail = "group"
	if chance(m.g.r, 0.3) {
		sub.distinct = true
		m.detail = "distinct"
	} else {
		for _, it := range sub.items {
			sub.groupBy = append(sub.groupBy, clone(it.x))
		}
		sub.items = append(sub.items, &item{x: &call{name: "count", star: true}, alias: "n"})
		if x := m.g.column(sub, cNum, false); x != nil && classOf(x) == cNum && chance(m.g.r, 0.15) {
			sub.items = append(sub.items, &item{x: &call{name: "sum", args: []expr{x}}, alias: "sx"})
			m.detail += ":sum"
		}
	}
	if chance(m.g.r, 0.3) {
		c := &colRef{f: inner, col: m.g.r.IntN(len(t.cols))}
		sub.where = &binary{op: pick(m.g.r, cmpOps), l: c, r: m.g.literal(m.g.loose(classOf(c)))}
	}
	d := &fromItem{sub: sub, alias: m.g.fromAlias(s), join: "LEFT JOIN"}
	var on expr
	for k := range keys {
		if k > 0 && chance(m.g.r, 0.2) {
			m.detail += ":partial"
			continue
		}
		mine := &colRef{f: d, col: k, qual: true}
		on = andExpr(on, &binary{op: "=", l: mine, r: m.sameClassColumn(s, mine)})
	}
	if !sub.distinct && chance(m.g.r, 0.25) {
		on = andExpr(on, &binary{op: ">", l: &colRef{f: d, col: len(keys), qual: true}, r: numLit(intVal(1))})
	}
	d.on = on
	s.from = append(s.from, d)
	return true
}

// sameClassColumn draws, for the ON of a LEFT JOIN to mine, a column of
// s's FROM, most often of the affinity of the column mine reads (tried a
// few times), at times a literal of its class.
func (m *mutator) sameClassColumn(s *sel, mine *colRef) expr {
	if chance(m.g.r, 0.15) {
		return m.g.literal(classOf(mine))
	}
	mt, mi, ok := baseColumn(mine)
	var r *colRef
	for range 6 {
		prev := s.from[m.g.r.IntN(len(s.from))]
		r = &colRef{f: prev, col: m.g.r.IntN(prev.ncols()), qual: true}
		if t, i, ok2 := baseColumn(r); !ok || ok2 && t.cols[i].affinity() == mt.cols[mi].affinity() && chance(m.g.r, 0.9) {
			break
		}
	}
	if m.g.strict() && classOf(r) != classOf(mine) && classOf(r) != cAny && classOf(mine) != cAny {
		return m.g.literal(classOf(mine))
	}
	return r
}

// leftCopies joins, by LEFT JOIN, a table nothing reads, ON an equality
// of any of its columns with one of the FROM's [AND a comparison with a
// literal], to a SELECT that cannot tell a row from two copies of it (the
// kernel's left_join_copies): a SELECT DISTINCT ("distinct"; made
// DISTINCT in both queries when it was not), or the body of an EXISTS or
// of an IN ("exists", "in"), or a grouped SELECT whose outputs copies do
// not change ("grouped": GROUP BY terms, COUNT(DISTINCT), MIN, MAX of
// tie-safe values; a trap otherwise, COUNT(*) or SUM). Traps: "plain", a
// SELECT that keeps duplicates, aggregates or limits (two rows of the
// table meet one row);
// and the SELECT's outputs (a NOCASE, BLOB or REAL output keeps one of
// the values DISTINCT takes for equal, which the join may change).
func (m *mutator) leftCopies(q *sel) bool {
	ss := sels(q)
	s := ss[m.g.r.IntN(len(ss))]
	if len(s.from) == 0 || hasStar(s) || len(s.arms) > 0 {
		return false
	}
	ctx := ""
	walk(q, func(st site) {
		switch x := (*st.slot).(type) {
		case *exists:
			if x.sub == s {
				ctx = "exists"
			}
		case *inSub:
			if x.sub == s {
				ctx = "in"
			}
		}
	})
	if ctx == "" {
		switch {
		case len(s.groupBy) > 0 && s.limit < 0:
			ctx = "grouped"
		case isAggregateQuery(s) || s.limit >= 0:
			ctx = "plain"
		case s.distinct:
			ctx = "distinct"
		case m.twinSel(s) != nil && chance(m.g.r, 0.7):
			s.distinct = true
			m.twinSel(s).distinct = true
			ctx = "distinct"
		default:
			ctx = "plain"
		}
	}
	t := m.g.s.tables[m.g.r.IntN(len(m.g.s.tables))]
	f := &fromItem{table: t, join: "LEFT JOIN", alias: m.g.fromAlias(s)}
	mine := &colRef{f: f, col: m.g.r.IntN(len(t.cols)), qual: true}
	var on expr = &binary{op: "=", l: mine, r: m.sameClassColumn(s, mine)}
	if chance(m.g.r, 0.3) {
		c := &colRef{f: f, col: m.g.r.IntN(len(t.cols)), qual: true}
		on = andExpr(on, &binary{op: pick(m.g.r, cmpOps), l: c, r: m.g.literal(m.g.loose(classOf(c)))})
	}
	f.on = on
	s.from = append(s.from, f)
	m.detail = ctx
	return true
}

// leftOn rewrites the ON of a LEFT JOIN of the second query into one
// that agrees with it on every pair of rows whose left row the WHERE
// keeps (the kernel's same-form comparison, whose obligations compare
// two ONs under what holds of the left side): "premise", both queries get
// the WHERE conjunct x = v for a column x of a table before the join that
// an equality of the ON reads, and the second's ON reads v for x; "dup",
// a conjunct a = b of the ON repeated as b = a. Traps: "premise_null",
// the WHERE conjunct (x = v OR x IS NULL), which leaves x NULL; "right",
// the same with x a column of the joined table (a pair it rejects comes
// back as the left row with NULLs, which the WHERE keeps); "or_null", OR
// a column of the joined table IS NULL.
func (m *mutator) leftOn(q *sel) bool {
	type cand struct {
		s *sel
		k int
	}
	var cs []cand
	for _, s := range sels(q) {
		for k, f := range s.from {
			if f.join == "LEFT JOIN" && f.on != nil && m.twinSel(s) != nil {
				cs = append(cs, cand{s, k})
			}
		}
	}
	if len(cs) == 0 {
		return false
	}
	c := cs[m.g.r.IntN(len(cs))]
	f := c.s.from[c.k]
	var eqs []*binary
	for _, sl := range conjuncts(&f.on) {
		if b, ok := (*sl).(*binary); ok && b.op == "=" {
			eqs = append(eqs, b)
		}
	}
	switch m.g.r.IntN(3) {
	case 0:
		if len(eqs) == 0 {
			return false
		}
		b := eqs[m.g.r.IntN(len(eqs))]
		f.on = andExpr(f.on, &binary{op: "=", l: clone(b.r), r: clone(b.l)})
		m.detail = "dup"
		return true
	case 1:
		mine := &colRef{f: f, col: m.g.r.IntN(f.ncols()), qual: true}
		f.on = &binary{op: "OR", l: f.on, r: &isNull{x: mine}}
		m.detail = "or_null"
		return true
	}
	type site struct {
		slot *expr
		r    *colRef
		at   int
	}
	var sites []site
	for _, b := range eqs {
		for _, slot := range []*expr{&b.l, &b.r} {
			if r, ok := (*slot).(*colRef); ok && m.hasTwinColumn(r) {
				if at := slices.Index(c.s.from, r.f); at >= 0 && at <= c.k {
					sites = append(sites, site{slot, r, at})
				}
			}
		}
	}
	if len(sites) == 0 {
		return false
	}
	st := sites[m.g.r.IntN(len(sites))]
	v := m.g.literal(classOf(st.r))
	var cond expr = &binary{op: "=", l: clone(st.r), r: v}
	switch {
	case st.at == c.k:
		cond = &binary{op: "OR", l: cond, r: &isNull{x: clone(st.r)}}
		m.detail = "right"
	case chance(m.g.r, 0.3):
		cond = &binary{op: "OR", l: cond, r: &isNull{x: clone(st.r)}}
		m.detail = "premise_null"
	default:
		m.detail = "premise"
	}
	tw := m.twinSel(c.s)
	c.s.where = andExpr(c.s.where, cond)
	tw.where = andExpr(tw.where, cloneOnto(cond, st.r.f, m.twin.froms[st.r.f]))
	*st.slot = clone(v)
	return true
}
