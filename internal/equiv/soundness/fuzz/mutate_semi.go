package fuzz

// groupSemi writes a semi-join on a grouped subquery the two ways the
// kernel's group_semijoin relates: the first query keeps (or gets)
// x IN (SELECT y FROM F [WHERE w] GROUP BY y HAVING h), the second joins
// F instead, … FROM A, F WHERE … x = y [AND w] GROUP BY x HAVING h (at
// times GROUP BY y, as Spider's predictions write it: detail "group_y").
// It takes an IN of the first query's top-level SELECT over one table A
// whose subquery reads one table, neither groups, limits nor correlates,
// or adds one (detail "added") on a column of A and a column of a table
// of the schema. h compares COUNT(*) or COUNT of a column of F with a
// small number, or MAX or MIN of one with a literal. Sound when x is a
// one-column key of A ("key"; "nullkey" when it may hold NULL: = never
// holds on NULL, and IN never keeps it); a trap when it is not ("nokey":
// two rows of A in one group, their count doubled; a unique index with a
// collation may make the column a key after all) or the outer query
// removes duplicates or aggregates (the rule refuses those).
func (m *mutator) groupSemi(q *sel) bool {
	s1 := m.twinSel(q)
	if s1 == nil || len(q.from) != 1 || q.from[0].table == nil || hasStar(q) || isAggregateQuery(q) || q.having != nil {
		return false
	}
	a := q.from[0]
	var sl *expr
	var in *inSub
	for _, c := range conjuncts(&q.where) {
		if x, ok := (*c).(*inSub); ok && semiCandidate(q, x) && m.twinSel(x.sub) != nil {
			sl, in = c, x
			break
		}
	}
	added := in == nil || chance(m.g.r, 0.3)
	var x *colRef
	var f, f1 *fromItem
	var ycol int
	var w expr
	if added {
		// x: a key column of A most often; F: any table, y a column of
		// x's class where there is one.
		x = &colRef{f: a, col: m.g.r.IntN(len(a.table.cols)), qual: true}
		if ks := oneColumnKeys(a.table); len(ks) > 0 && chance(m.g.r, 0.8) {
			x.col = ks[m.g.r.IntN(len(ks))]
		}
		t := m.g.s.tables[m.g.r.IntN(len(m.g.s.tables))]
		ycol = m.g.r.IntN(len(t.cols))
		for range 4 {
			if t.cols[ycol].affinity() == a.table.cols[x.col].affinity() {
				break
			}
			ycol = m.g.r.IntN(len(t.cols))
		}
		f = &fromItem{table: t}
		if m.g.refTaken(q, f.ref()) {
			f.alias = m.g.fromAlias(q)
		}
		f1 = &fromItem{table: t, alias: f.alias}
		if chance(m.g.r, 0.4) {
			c := m.g.r.IntN(len(t.cols))
			op := oneOf(m.g.r, "=", ">", "<", "<>")
			w = &binary{op: op, l: &colRef{f: f, col: c, qual: true}, r: m.g.literal(classOf(&colRef{f: f, col: c}))}
		}
		sub := newSel()
		sub.outer = s1
		sub.from = []*fromItem{f1}
		sub.items = []*item{{x: &colRef{f: f1, col: ycol, qual: true}}}
		sub.where = cloneOnto(w, f, f1)
		s1.where = andExpr(s1.where, &inSub{x: &colRef{f: s1.from[0], col: x.col, qual: true}, sub: sub})
		m.detail = "added"
	} else {
		x = in.x.(*colRef)
		f = in.sub.from[0]
		f1 = m.twin.froms[f]
		if f1 == nil {
			return false
		}
		ycol = in.sub.items[0].x.(*colRef).col
		w = in.sub.where
		if m.g.refTaken(q, f.ref()) {
			f.alias = m.g.fromAlias(q)
			f1.alias = f.alias
		}
		m.detail = "in"
	}
	switch {
	case !isOneColumnKey(a.table, x.col):
		m.detail += ":nokey"
	case a.table.cols[x.col].notNull:
		m.detail += ":key"
	default:
		m.detail += ":nullkey"
	}
	having := m.semiHaving(f)
	// The first query's subquery groups by y and keeps h.
	var sub1 *sel
	if added {
		cs := conjuncts(&s1.where)
		sub1 = (*cs[len(cs)-1]).(*inSub).sub
	} else {
		sub1 = m.twinSel(in.sub)
	}
	sub1.groupBy = []expr{&colRef{f: f1, col: ycol, qual: true}}
	sub1.having = cloneOnto(having, f, f1)
	// The second joins F.
	f.join = ","
	q.from = append(q.from, f)
	y := &colRef{f: f, col: ycol, qual: true}
	join := andExpr(&binary{op: "=", l: &colRef{f: a, col: x.col, qual: true}, r: y}, w)
	if sl != nil && !added {
		*sl = join
	} else {
		q.where = andExpr(q.where, join)
	}
	q.groupBy = []expr{&colRef{f: a, col: x.col, qual: true}}
	if chance(m.g.r, 0.3) {
		q.groupBy = []expr{&colRef{f: f, col: ycol, qual: true}}
		m.detail += ":group_y"
	}
	q.having = having
	walk(q, func(st site) {
		if r, ok := (*st.slot).(*colRef); ok && (r.f == a || r.f == f) {
			r.qual = true
		}
	})
	return true
}

// semiCandidate reports whether in, a conjunct of s's WHERE, is x IN
// (SELECT y FROM F [WHERE w]) with x a column of s's one table and a
// subquery of one table that returns one of its columns and neither
// groups, limits, removes duplicates, nests nor reads outside itself.
func semiCandidate(s *sel, in *inSub) bool {
	x, ok := in.x.(*colRef)
	sub := in.sub
	if in.not || !ok || x.f != s.from[0] || len(sub.from) != 1 || sub.from[0].table == nil || len(sub.items) != 1 || sub.items[0].star ||
		len(sub.groupBy) > 0 || sub.having != nil || sub.limit >= 0 || sub.distinct || len(sels(sub)) > 1 {
		return false
	}
	if y, ok := sub.items[0].x.(*colRef); !ok || y.f != sub.from[0] {
		return false
	}
	inside := true
	walk(sub, func(st site) {
		if r, ok := (*st.slot).(*colRef); ok && r.f != sub.from[0] {
			inside = false
		}
	})
	return inside
}

// semiHaving draws h over F's FROM item f: COUNT(*) or COUNT(f.c)
// compared with 0, 1 or 2, or MAX/MIN(f.c) compared with a literal of
// c's class.
func (m *mutator) semiHaving(f *fromItem) expr {
	n := numLit(intVal(int64(m.g.r.IntN(3))))
	op := oneOf(m.g.r, ">", ">=", "=", "<")
	c := &colRef{f: f, col: m.g.r.IntN(len(f.table.cols)), qual: true}
	switch m.g.r.IntN(3) {
	case 0:
		return &binary{op: op, l: &call{name: "count", star: true}, r: n}
	case 1:
		return &binary{op: op, l: &call{name: "count", args: []expr{c}}, r: n}
	}
	return &binary{op: op, l: &call{name: oneOf(m.g.r, "max", "min"), args: []expr{c}}, r: m.g.literal(classOf(c))}
}

// twinSel returns the first query's SELECT that s was copied from, or nil.
func (m *mutator) twinSel(s *sel) *sel {
	if m.twin == nil || s == nil {
		return nil
	}
	return m.twin.sels[s]
}

// cloneOnto clones e with every column of FROM item from read from to
// instead.
func cloneOnto(e expr, from, to *fromItem) expr {
	if e == nil {
		return nil
	}
	e = clone(e)
	repoint(e, from, to)
	return e
}

// oneColumnKeys returns the columns of t that alone are a key of it
// (isOneColumnKey).
func oneColumnKeys(t *table) []int {
	var out []int
	for i := range t.cols {
		if isOneColumnKey(t, i) {
			out = append(out, i)
		}
	}
	return out
}

// isOneColumnKey reports whether column i alone is t's primary key, a
// UNIQUE constraint or a full unique index of the column (not a partial
// one, not one over an expression).
func isOneColumnKey(t *table, i int) bool {
	if len(t.pk) == 1 && t.pk[0] == i {
		return true
	}
	for _, u := range t.uniques {
		if len(u) == 1 && u[0] == i {
			return true
		}
	}
	for _, x := range t.indexes {
		if x.expr == "" && x.where == "" && len(x.cols) == 1 && x.cols[0] == i {
			return true
		}
	}
	return false
}

// aggNotNull makes both queries' top-level SELECT aggregate one column
// x of a FROM table (one or two of COUNT(x), COUNT(DISTINCT x), SUM,
// TOTAL, AVG, MIN, MAX of x) and adds x IS NOT NULL to the second's
// WHERE, as agg_not_null removes it. Traps: COUNT(*) among the
// aggregates ("star"), an aggregate of coalesce(x, v) ("expr"), a bare
// column beside them ("bare"), or both queries grouped by another column
// ("grouped": a group whose x are all NULL is lost).
func (m *mutator) aggNotNull(q *sel) bool {
	s1 := m.twinSel(q)
	if s1 == nil {
		return false
	}
	var fs []*fromItem
	for _, f := range q.from {
		if f.table != nil && m.twin.froms[f] != nil {
			fs = append(fs, f)
		}
	}
	named := false
	walkOwn(q, func(st site) {
		switch (*st.slot).(type) {
		case *aliasRef, *posRef:
			named = true
		}
	})
	if len(fs) == 0 || named {
		return false
	}
	f := fs[m.g.r.IntN(len(fs))]
	col := m.g.r.IntN(len(f.table.cols))
	trap := ""
	if chance(m.g.r, 0.3) {
		trap = oneOf(m.g.r, "star", "expr", "bare", "grouped")
	}
	type aggSpec struct {
		name     string
		distinct bool
	}
	specs := []aggSpec{{oneOf(m.g.r, "count", "sum", "total", "avg", "min", "max"), chance(m.g.r, 0.3)}}
	if chance(m.g.r, 0.5) {
		specs = append(specs, aggSpec{oneOf(m.g.r, "count", "max", "min"), false})
	}
	other := m.g.r.IntN(len(f.table.cols))
	for _, pair := range [][2]any{{q, f}, {s1, m.twin.froms[f]}} {
		s, fi := pair[0].(*sel), pair[1].(*fromItem)
		x := func() expr { return &colRef{f: fi, col: col, qual: true} }
		var items []*item
		for _, sp := range specs {
			items = append(items, &item{x: &call{name: sp.name, args: []expr{x()}, distinct: sp.distinct}})
		}
		switch trap {
		case "star":
			items = append(items, &item{x: &call{name: "count", star: true}})
		case "expr":
			items[0].x = &call{name: "sum", args: []expr{&call{name: "coalesce", args: []expr{x(), numLit(intVal(1))}}}}
		case "bare":
			items = append(items, &item{x: &colRef{f: fi, col: other, qual: true}})
		case "grouped":
			s.groupBy = []expr{&colRef{f: fi, col: other, qual: true}}
		}
		if trap != "grouped" {
			s.groupBy = nil
		}
		s.items, s.having, s.distinct = items, nil, false
		s.orderBy, s.limit, s.offset = nil, -1, -1
	}
	q.where = andExpr(q.where, &isNull{x: &colRef{f: f, col: col, qual: true}, not: true})
	m.detail = "agg"
	if trap != "" {
		m.detail = trap
	}
	return true
}
