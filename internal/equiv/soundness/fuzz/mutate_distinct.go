package fuzz

import "slices"

// groupDistinct writes a SELECT's duplicate removal the two ways the
// kernel's group_distinct relates: DISTINCT in the first query, GROUP BY
// its outputs in the second (at times DISTINCT kept beside it: detail
// "both"). It takes a SELECT of plain outputs that neither groups,
// aggregates nor limits. Traps: a GROUP BY term that is no output
// ("extra": two rows equal on the outputs stay two), and whatever
// outputs the SELECT has (a NOCASE or BLOB column, an expression: GROUP
// BY may return another of the values it takes for equal than DISTINCT,
// so the rule refuses them).
func (m *mutator) groupDistinct(q *sel) bool {
	var cs []*sel
	for _, s := range sels(q) {
		if len(s.from) > 0 && len(s.groupBy) == 0 && s.having == nil && s.limit < 0 && !isAggregateQuery(s) && !hasStar(s) && m.twinSel(s) != nil {
			cs = append(cs, s)
		}
	}
	if len(cs) == 0 {
		return false
	}
	s := cs[m.g.r.IntN(len(cs))]
	m.twinSel(s).distinct = true
	s.groupBy = nil
	for _, it := range s.items {
		s.groupBy = append(s.groupBy, clone(it.x))
	}
	m.detail = "group"
	if chance(m.g.r, 0.2) {
		m.detail = "both"
	} else {
		s.distinct = false
	}
	if chance(m.g.r, 0.25) {
		if c := m.g.column(s, cAny, false); c != nil {
			s.groupBy = append(s.groupBy, c)
			m.detail += ":extra"
		}
	}
	return true
}

// derivedDistinct reads a table of the second query through a FROM
// subquery that removes duplicates, (SELECT DISTINCT its columns FROM
// it [WHERE a conjunct moved in]), where the kernel's distinct_derived
// drops that DISTINCT: a SELECT DISTINCT ("distinct"; made DISTINCT in
// both queries when it was not), the body of an EXISTS or of an IN
// ("exists", "in"). Traps: a SELECT that keeps duplicates or aggregates
// ("plain": a table with two equal rows shows once), and the table's
// columns themselves (a NOCASE, BLOB or REAL column keeps one of the
// values DISTINCT takes for equal).
func (m *mutator) derivedDistinct(q *sel) bool {
	c, ok := m.pickTable(q)
	if !ok || m.twinSel(c.s) == nil {
		return false
	}
	ctx := ""
	walk(q, func(st site) {
		switch x := (*st.slot).(type) {
		case *exists:
			if x.sub == c.s {
				ctx = "exists"
			}
		case *inSub:
			if x.sub == c.s {
				ctx = "in"
			}
		}
	})
	if ctx == "" {
		switch {
		case isAggregateQuery(c.s) || c.s.limit >= 0:
			ctx = "plain"
		case c.s.distinct:
			ctx = "distinct"
		case chance(m.g.r, 0.6):
			c.s.distinct = true
			m.twinSel(c.s).distinct = true
			ctx = "distinct"
		default:
			ctx = "plain"
		}
	}
	inner := &fromItem{table: c.f.table}
	sub := newSel()
	sub.distinct = true
	sub.from = []*fromItem{inner}
	sub.items = columnItems(inner)
	if chance(m.g.r, 0.4) {
		sub.where = moveConjunct(c.s, c.f, inner)
	}
	readSub(c.f, sub)
	m.detail = ctx
	return true
}

// semiDistinct writes a semi-join the two ways the kernel's
// distinct_semijoin relates: the first query's SELECT gets EXISTS
// (SELECT 1 FROM T WHERE T.y = x [AND w]), the second joins (SELECT
// DISTINCT T.y FROM T [WHERE w]) AS d with d.y = x in its WHERE, x a
// column of the SELECT's FROM (of y's affinity most often). Traps: a
// second output of d that nothing pins ("unpinned": two rows of d meet
// one row), d without DISTINCT ("dup"), an outer join in the SELECT, and
// whatever x and y are (TEXT against INTEGER converts T.y's own values:
// '10' and '10.0' both equal 10).
func (m *mutator) semiDistinct(q *sel) bool {
	var cs []*sel
	for _, s := range sels(q) {
		if len(s.from) == 0 || m.twinSel(s) == nil {
			continue
		}
		cs = append(cs, s)
	}
	if len(cs) == 0 {
		return false
	}
	s := cs[m.g.r.IntN(len(cs))]
	s1 := m.twinSel(s)
	x := m.g.column(s, cAny, false)
	if x == nil || m.twin.froms[x.f] == nil {
		return false
	}
	x.qual = true
	x1 := &colRef{f: m.twin.froms[x.f], col: x.col, qual: true}
	t := m.g.s.tables[m.g.r.IntN(len(m.g.s.tables))]
	y := m.g.r.IntN(len(t.cols))
	if xt, xi, ok := baseColumn(x); ok {
		for range 6 {
			if t.cols[y].affinity() == xt.cols[xi].affinity() {
				break
			}
			t = m.g.s.tables[m.g.r.IntN(len(m.g.s.tables))]
			y = m.g.r.IntN(len(t.cols))
		}
	}
	// The first query: EXISTS (SELECT 1 FROM T WHERE T.y = x AND w).
	f1 := &fromItem{table: t}
	if m.g.refTaken(s1, f1.ref()) {
		f1.alias = m.g.fromAlias(s1)
	}
	var w expr
	if chance(m.g.r, 0.4) {
		col := m.g.r.IntN(len(t.cols))
		w = &binary{op: oneOf(m.g.r, "=", ">", "<", "<>"), l: &colRef{f: f1, col: col, qual: true}, r: m.g.literal(classOf(&colRef{f: f1, col: col}))}
	}
	ex := newSel()
	ex.outer = s1
	ex.from = []*fromItem{f1}
	ex.items = []*item{{x: numLit(intVal(1))}}
	ex.where = andExpr(&binary{op: "=", l: &colRef{f: f1, col: y, qual: true}, r: x1}, w)
	s1.where = andExpr(s1.where, &exists{sub: ex})
	// The second: FROM ..., (SELECT DISTINCT T.y FROM T WHERE w) AS d
	// WHERE d.y = x.
	f2 := &fromItem{table: t}
	body := newSel()
	body.distinct = true
	body.from = []*fromItem{f2}
	body.items = []*item{{x: &colRef{f: f2, col: y, qual: true}}}
	body.where = cloneOnto(w, f1, f2)
	m.detail = "pinned"
	switch r := m.g.r.Float64(); {
	case r < 0.15 && len(t.cols) > 1:
		other := (y + 1 + m.g.r.IntN(len(t.cols)-1)) % len(t.cols)
		body.items = append(body.items, &item{x: &colRef{f: f2, col: other, qual: true}})
		m.detail = "unpinned"
	case r < 0.25:
		body.distinct = false
		m.detail = "dup"
	}
	// Every column of the SELECT's FROM qualified: d's columns may share
	// their names.
	walk(q, func(st site) {
		if r, ok := (*st.slot).(*colRef); ok && slices.Contains(s.from, r.f) {
			r.qual = true
		}
	})
	d := &fromItem{sub: body, alias: m.g.fromAlias(s), join: oneOf(m.g.r, ",", "JOIN")}
	s.from = append(s.from, d)
	s.where = andExpr(s.where, &binary{op: "=", l: &colRef{f: d, col: 0, qual: true}, r: clone(x)})
	return true
}
