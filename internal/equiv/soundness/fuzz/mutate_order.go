package fuzz

// groupOrder writes a grouped SELECT's GROUP BY terms in another order
// (the same groups), and, on both queries half the time, makes it the
// shape whose order follows the written terms: SELECT DISTINCT over the
// groups, sorted by one GROUP BY term (an output or not) and at times
// under LIMIT 1. SQLite meets the groups in the order of the written
// terms and DISTINCT keeps, of the groups it folds, the first it meets,
// so a key outside the output sorts the kept row by that group's value:
// GROUP BY a, b against GROUP BY b, a then sort apart (the kernel proved
// such pairs until 2026-12-07, strictly and up to ties). Detail "distinct"
// for that shape, "distinct:count" or "distinct:typeof" when its output
// was made COUNT(*) or typeof of another term (below); weight 0: a
// campaign of its own (TestFuzzSQLiteGroupOrder).
func (m *mutator) groupOrder(q *sel) bool {
	var gs []*sel
	for _, s := range sels(q) {
		if len(s.groupBy) >= 2 && len(s.arms) == 0 {
			gs = append(gs, s)
		}
	}
	if len(gs) == 0 {
		if !m.groupTop(q) {
			return false
		}
		gs = []*sel{q}
	}
	s := gs[m.g.r.IntN(len(gs))]
	k := m.g.r.IntN(len(s.groupBy))
	key := clone(s.groupBy[k])
	o := (k + 1 + m.g.r.IntN(len(s.groupBy)-1)) % len(s.groupBy) // another term
	other := clone(s.groupBy[o])
	i := m.g.r.IntN(len(s.groupBy))
	j := (i + 1 + m.g.r.IntN(len(s.groupBy)-1)) % len(s.groupBy)
	s.groupBy[i], s.groupBy[j] = s.groupBy[j], s.groupBy[i]
	var s1 *sel
	if m.twin != nil {
		s1 = m.twin.sels[s]
	}
	if s1 == nil || len(s1.groupBy) != len(s.groupBy) || !chance(m.g.r, 0.5) {
		return true
	}
	m.detail = "distinct"
	desc := chance(m.g.r, 0.4)
	limit := -1
	if chance(m.g.r, 0.5) {
		limit = 1
	}
	// Folding needs groups of one output row, and a difference at least
	// two distinct output rows whose kept groups' keys sort the other
	// way. At the top level, two times in three, the output is made a
	// function of the groups with few values: COUNT(*), or the storage
	// class or NULL-ness of another GROUP BY term (which the random rows
	// vary), so the kept group is the written order's choice far more
	// often than with the query's own outputs.
	var fold func(s *sel, other expr) expr
	if s == q {
		switch m.g.r.IntN(6) {
		case 0, 1:
			fold = func(*sel, expr) expr { return &call{name: "count", star: true} }
			m.detail = "distinct:count"
		case 2, 3:
			fold = func(_ *sel, x expr) expr { return &call{name: "typeof", args: []expr{x}} }
			m.detail = "distinct:typeof"
		}
	}
	// A WHERE leaves few groups to fold: half the time both queries
	// drop it.
	dropWhere := fold != nil && chance(m.g.r, 0.5)
	for _, x := range []struct {
		s     *sel
		key   expr
		other expr
	}{{s, key, other}, {s1, clone(s1.groupBy[k]), clone(s1.groupBy[o])}} {
		x.s.distinct = true
		x.s.orderBy = []*orderTerm{{x: x.key, desc: desc}}
		x.s.limit, x.s.offset = limit, -1
		if fold != nil {
			x.s.items = []*item{{x: fold(x.s, x.other)}}
			if dropWhere {
				x.s.where = nil
			}
		}
	}
	return true
}

// groupTop makes q (a SELECT of tables, not grouped) and its twin in the
// first query one grouped SELECT: GROUP BY two columns of its FROM, the
// first of them an output half the time, COUNT(*) an output; no HAVING,
// DISTINCT, ORDER BY or LIMIT. false when q has no twin or no two
// columns.
func (m *mutator) groupTop(q *sel) bool {
	if m.twin == nil || len(q.groupBy) > 0 || len(q.arms) > 0 || len(q.from) == 0 {
		return false
	}
	s1 := m.twin.sels[q]
	if s1 == nil {
		return false
	}
	a, b := m.g.column(q, cAny, false), m.g.column(q, cAny, false)
	if a == nil || b == nil || a.f == b.f && a.col == b.col {
		return false
	}
	twinOf := func(c *colRef) *colRef {
		f := m.twin.froms[c.f]
		if f == nil {
			return nil
		}
		return &colRef{f: f, col: c.col, qual: c.qual, quote: c.quote}
	}
	a1, b1 := twinOf(a), twinOf(b)
	if a1 == nil || b1 == nil {
		return false
	}
	shown := chance(m.g.r, 0.5)
	for _, x := range []struct {
		s    *sel
		a, b *colRef
	}{{q, a, b}, {s1, a1, b1}} {
		x.s.groupBy = []expr{x.a, x.b}
		x.s.items = nil
		if shown {
			x.s.items = append(x.s.items, &item{x: clone(x.a)})
		}
		x.s.items = append(x.s.items, &item{x: &call{name: "count", star: true}})
		x.s.having, x.s.distinct, x.s.orderBy, x.s.limit, x.s.offset = nil, false, nil, -1, -1
	}
	return true
}
