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
func (m *mutator) derivedDistinct(q *sel) bool { return m.derivedDedup(q, false) }

// derivedGroup is derivedDistinct with (SELECT its columns FROM it
// [WHERE a conjunct moved in] GROUP BY its columns) — at times one more
// term, a column plus 1 ("extra", a finer grouping) — where the kernel's
// group_derived drops that GROUP BY. Traps: those of derivedDistinct, and
// a column left out of the GROUP BY (":partial": the query may read it,
// and a group shows one row's value). At times the second query's
// SELECT DISTINCT loses its DISTINCT (":bare": equivalent only when its
// rows are distinct anyway, distinct_intro's side condition), at times
// with every column of the table output by both (":bare:all").
func (m *mutator) derivedGroup(q *sel) bool { return m.derivedDedup(q, true) }

// derivedDedup is derivedDistinct, or derivedGroup when group.
func (m *mutator) derivedDedup(q *sel, group bool) bool {
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
	sub.distinct = !group
	sub.from = []*fromItem{inner}
	sub.items = columnItems(inner)
	if chance(m.g.r, 0.4) {
		sub.where = moveConjunct(c.s, c.f, inner)
	}
	readSub(c.f, sub)
	m.detail = ctx
	if group && ctx == "distinct" && len(c.s.from) > 0 && chance(m.g.r, 0.15) {
		// The second query's DISTINCT dropped: its rows are distinct
		// when its outputs determine the subquery's groups and a key of
		// every other FROM item (the kernel's distinct_intro), and may
		// repeat otherwise.
		c.s.distinct = false
		m.detail += ":bare"
		if f1 := m.twin.froms[c.f]; f1 != nil && c.s == q && len(q.arms) == 0 && chance(m.g.r, 0.5) {
			// Both output every column of the table too: the groups
			// are then determined, and the rows distinct when a key of
			// every other FROM item is.
			s1 := m.twinSel(c.s)
			for i := range inner.table.cols {
				c.s.items = append(c.s.items, &item{x: &colRef{f: c.f, col: i, qual: true}})
				s1.items = append(s1.items, &item{x: &colRef{f: f1, col: i, qual: true}})
			}
			m.detail += ":all"
		}
	}
	if group {
		for _, it := range sub.items {
			sub.groupBy = append(sub.groupBy, clone(it.x))
		}
		if len(sub.groupBy) > 1 && chance(m.g.r, 0.2) {
			k := m.g.r.IntN(len(sub.groupBy))
			sub.groupBy = slices.Delete(sub.groupBy, k, k+1)
			m.detail += ":partial"
		}
		if chance(m.g.r, 0.2) {
			col := &colRef{f: inner, col: m.g.r.IntN(len(inner.table.cols))}
			sub.groupBy = append(sub.groupBy, &binary{op: "+", l: col, r: numLit(intVal(1))})
			m.detail += ":extra"
		}
	}
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
	if x == nil || !m.hasTwinColumn(x) {
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

// aggMerge writes a grouped aggregate the two ways the kernel's
// agg_merge relates: the first query becomes SELECT g, SUM(x), MIN(x),
// MAX(x), COUNT(*) … FROM F WHERE p GROUP BY g (some of those
// aggregates), the second SELECT d.g, SUM(d.s), MIN(d.m), MAX(d.x),
// SUM(d.c) … FROM (SELECT g, h, SUM(x) AS s, … FROM F WHERE p GROUP BY
// g, h) AS d GROUP BY d.g, h another column that splits each group
// (detail "grouped"; "scalar": neither level keeps g, the outer COUNT
// written COALESCE(SUM(d.c), 0)). Traps: COUNT(*) over d ("groups": it
// counts inner groups), AVG of AVG ("avg"), SUM of COUNT without GROUP BY
// and without COALESCE ("nullcount": NULL on no rows where COUNT is 0),
// and whatever x is (a REAL column adds in another order, a NOCASE MIN
// keeps another value). At times the DISTINCT form instead
// (aggMergeDistinct).
func (m *mutator) aggMerge(q *sel) bool {
	s1 := m.twinSel(q)
	if s1 == nil || len(q.from) == 0 || q.outer != nil {
		return false
	}
	g, h, x := m.g.column(q, cAny, false), m.g.column(q, cAny, false), m.g.column(q, cNum, false)
	if g == nil || h == nil || x == nil || !m.hasTwinColumn(g) || !m.hasTwinColumn(x) {
		return false
	}
	for _, r := range []*colRef{g, h, x} {
		r.qual = true
	}
	on1 := func(r *colRef) *colRef { return &colRef{f: m.twin.froms[r.f], col: r.col, qual: true} }
	grouped := chance(m.g.r, 0.75)
	m.detail = "grouped"
	if !grouped {
		m.detail = "scalar"
	}
	if chance(m.g.r, 0.3) {
		return m.aggMergeDistinct(q, s1, g, h, x, grouped)
	}
	inner := newSel()
	inner.from, inner.where = q.from, q.where
	inner.items = []*item{{x: g, alias: "g"}, {x: h, alias: "h"}}
	inner.groupBy = []expr{clone(g), clone(h)}
	d := &fromItem{sub: inner, alias: m.g.fromAlias(q)}
	var out1, out2 []*item
	if grouped {
		out1 = append(out1, &item{x: on1(g)})
		out2 = append(out2, &item{x: &colRef{f: d, col: 0, qual: true}})
	}
	add := func(innerAgg expr, alias string, first, second func(*colRef) expr) {
		inner.items = append(inner.items, &item{x: innerAgg, alias: alias})
		out1 = append(out1, &item{x: first(on1(x))})
		out2 = append(out2, &item{x: second(&colRef{f: d, col: len(inner.items) - 1, qual: true})})
	}
	call1 := func(name string) func(*colRef) expr {
		return func(r *colRef) expr { return &call{name: name, args: []expr{r}} }
	}
	for _, k := range []string{"sum", "min", "max", "count"} {
		if !chance(m.g.r, 0.6) {
			continue
		}
		if k != "count" {
			add(&call{name: k, args: []expr{clone(x)}}, k+"_x", call1(k), call1(k))
			continue
		}
		first := func(*colRef) expr { return &call{name: "count", star: true} }
		second := func(r *colRef) expr {
			if grouped {
				return &call{name: "sum", args: []expr{r}}
			}
			return &call{name: "coalesce", args: []expr{&call{name: "sum", args: []expr{r}}, numLit(intVal(0))}}
		}
		switch t := m.g.r.Float64(); {
		case t < 0.15:
			second = func(*colRef) expr { return &call{name: "count", star: true} }
			m.detail += ":groups"
		case t < 0.25 && !grouped:
			second = call1("sum")
			m.detail += ":nullcount"
		}
		add(&call{name: "count", star: true}, "c", first, second)
	}
	if chance(m.g.r, 0.1) {
		add(&call{name: "avg", args: []expr{clone(x)}}, "a", call1("avg"), call1("avg"))
		m.detail += ":avg"
	}
	if len(inner.items) == 2 {
		add(&call{name: "sum", args: []expr{clone(x)}}, "sx", call1("sum"), call1("sum"))
	}
	aggMergeFinish(q, s1, d, out1, out2, grouped, on1(g))
	return true
}

// hasTwinColumn reports whether the first query's FROM item that r's was
// copied from has r's column (an earlier rewrite may have changed a FROM
// subquery's outputs in the copy).
func (m *mutator) hasTwinColumn(r *colRef) bool {
	f := m.twin.froms[r.f]
	return f != nil && r.col < f.ncols() && f.ncols() == r.f.ncols()
}

// aggMergeDistinct writes agg_merge's DISTINCT form: the first query
// SELECT g, COUNT(DISTINCT x), SUM(DISTINCT x), MIN(x), MAX(x) … FROM F
// WHERE p GROUP BY g (some of those), the second SELECT d.g, COUNT(d.x),
// SUM(d.x), MIN(d.x), MAX(d.x) … FROM (SELECT g, x FROM F WHERE p GROUP
// BY g, x) AS d GROUP BY d.g: each inner group one distinct x of its
// outer group (detail "distinct:grouped"; "distinct:scalar" without g).
// Trap ":split": the inner GROUP BY also splits by h, so that an x
// repeats in d; and whatever x is (a NOCASE x groups 'a' with 'A', a
// REAL x sums in another order, an untyped x holds 1 and 1.0).
func (m *mutator) aggMergeDistinct(q, s1 *sel, g, h, x *colRef, grouped bool) bool {
	on1 := func(r *colRef) *colRef { return &colRef{f: m.twin.froms[r.f], col: r.col, qual: true} }
	m.detail = "distinct:scalar"
	if grouped {
		m.detail = "distinct:grouped"
	}
	inner := newSel()
	inner.from, inner.where = q.from, q.where
	inner.items = []*item{{x: g, alias: "g"}, {x: x, alias: "dx"}}
	inner.groupBy = []expr{clone(x)}
	if grouped {
		inner.groupBy = []expr{clone(g), clone(x)}
	}
	if chance(m.g.r, 0.15) {
		inner.groupBy = append(inner.groupBy, clone(h))
		m.detail += ":split"
	}
	d := &fromItem{sub: inner, alias: m.g.fromAlias(q)}
	dx := func() *colRef { return &colRef{f: d, col: 1, qual: true} }
	var out1, out2 []*item
	if grouped {
		out1 = append(out1, &item{x: on1(g)})
		out2 = append(out2, &item{x: &colRef{f: d, col: 0, qual: true}})
	}
	for _, k := range []string{"count", "sum", "min", "max"} {
		if len(out1) > 0 && !chance(m.g.r, 0.6) {
			continue
		}
		out1 = append(out1, &item{x: &call{name: k, args: []expr{on1(x)}, distinct: k == "count" || k == "sum"}})
		out2 = append(out2, &item{x: &call{name: k, args: []expr{dx()}}})
	}
	aggMergeFinish(q, s1, d, out1, out2, grouped, on1(g))
	return true
}

// aggMergeFinish makes the first query s1 SELECT out1 … [GROUP BY g1]
// over its FROM and WHERE, and the second q SELECT out2 FROM d [GROUP BY
// d's first column], neither with HAVING, ORDER BY, LIMIT or DISTINCT.
func aggMergeFinish(q, s1 *sel, d *fromItem, out1, out2 []*item, grouped bool, g1 *colRef) {
	s1.items, s1.having, s1.orderBy, s1.limit, s1.offset, s1.distinct = out1, nil, nil, -1, -1, false
	s1.groupBy = nil
	if grouped {
		s1.groupBy = []expr{g1}
	}
	q.from, q.where = []*fromItem{d}, nil
	q.items, q.having, q.orderBy, q.limit, q.offset, q.distinct = out2, nil, nil, -1, -1, false
	q.groupBy = nil
	if grouped {
		q.groupBy = []expr{&colRef{f: d, col: 0, qual: true}}
	}
}
