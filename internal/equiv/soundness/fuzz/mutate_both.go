package fuzz

// deriveBoth replaces a table that q and the first query (its twin) both
// read, at the same place, by one FROM subquery over it that no rule
// merges: the kernel then compares the two FROM subqueries as one table
// (check's opaqueDerived), and the rest of the pair as the other
// rewrites made it. The subquery keeps the table's columns in order
// and by name (so every reference stays), and is one of:
//   - "group": SELECT cols FROM t [WHERE c] GROUP BY cols [, a COUNT(*)
//     after them];
//   - "distinct": SELECT DISTINCT cols FROM t [WHERE c];
//   - "union": SELECT cols FROM t [WHERE c] UNION ALL SELECT cols FROM t
//     [WHERE c'], at times ":literal" with a literal of another kind in
//     one column of the second branch (the row invariant of the first
//     branch then says nothing of that column);
//   - "limit": the grouped form under LIMIT 2 (refused: rows of the
//     engine's choosing).
//
// The pair need not stay equivalent (a key, a NOT NULL or a foreign key
// a rewrite relied on may not hold of the subquery): what the kernel
// proves of it must hold all the same. Applied after the pair's own
// rewrites (Config.DeriveBoth); detail as above, ":where" when a WHERE
// was drawn.
func (m *mutator) deriveBoth(q *sel) bool {
	if m.twin == nil {
		return false
	}
	type cand struct {
		s     *sel
		f, f1 *fromItem
	}
	var cs []cand
	for _, s := range sels(q) {
		for _, f := range s.from {
			if f.table == nil || f.cte != "" || f.natural || len(f.using) > 0 {
				continue
			}
			if f1 := m.twin.froms[f]; f1 != nil && f1.table == f.table && f1.cte == "" && !f1.natural && len(f1.using) == 0 {
				cs = append(cs, cand{s, f, f1})
			}
		}
	}
	if len(cs) == 0 {
		return false
	}
	c := cs[m.g.r.IntN(len(cs))]
	branch := func() *sel {
		inner := &fromItem{table: c.f.table}
		b := newSel()
		b.from = []*fromItem{inner}
		b.items = columnItems(inner)
		return b
	}
	body := branch()
	where := chance(m.g.r, 0.6)
	if where {
		body.where = m.g.cond(body, 1)
	}
	switch k := m.g.r.IntN(10); {
	case k < 4:
		m.detail = "group"
		for _, it := range body.items {
			body.groupBy = append(body.groupBy, clone(it.x))
		}
		if chance(m.g.r, 0.4) {
			body.items = append(body.items, &item{x: &call{name: "count", star: true}, alias: "n_rows"})
		}
		if k == 0 {
			body.limit = 2
			m.detail = "limit"
		}
	case k < 6:
		m.detail = "distinct"
		body.distinct = true
	default:
		m.detail = "union"
		second := branch()
		if chance(m.g.r, 0.5) {
			second.where = m.g.cond(second, 1)
		}
		if chance(m.g.r, 0.25) {
			i := m.g.r.IntN(len(second.items))
			second.items[i].x = m.g.literal(oneOf(m.g.r, cNum, cText))
			m.detail += ":literal"
		}
		body.arms = []*arm{{op: "UNION ALL", s: second}}
	}
	if where {
		m.detail += ":where"
		if chance(m.g.r, 0.5) {
			// q's SELECT also tests the first branch's WHERE on the
			// subquery's columns: implied by a grouped or DISTINCT
			// subquery (the kernel's row invariant), not by a UNION ALL
			// whose second branch lacks it, nor on the right side of a
			// LEFT JOIN (it rejects the NULL row).
			implied := clone(body.where)
			repoint(implied, body.from[0], c.f)
			c.s.where = andExpr(c.s.where, implied)
			m.detail += ":implied"
		}
	}
	readSub(c.f, body)
	readSub(c.f1, cloneQuery(body))
	return true
}
