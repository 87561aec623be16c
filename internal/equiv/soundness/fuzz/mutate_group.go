package fuzz

import "strconv"

// groupDerive (the kernel's grouped_merge, read backwards): the second
// query, a grouped SELECT items FROM F WHERE p GROUP BY g HAVING h ORDER
// BY k LIMIT n, becomes SELECT d.o1, … FROM (SELECT items AS o1, …, k AS
// s1, … FROM F WHERE p GROUP BY g [HAVING h]) AS d [WHERE d.h] ORDER BY
// d.s1, … LIMIT n, its DISTINCT kept: detail "having" when h stays in the
// subquery, "where" when it becomes h AS h there and the outer WHERE d.h
// (or when there is none). Traps, each a column of d nothing reads:
// ":sum", SUM of a number column (SQLite's SUM of integers fails on an
// overflow the query without it never meets), ":minmax", MAX of a column
// (SQLite then takes a bare column of the group from the row of that
// MAX). Only at the top level, with GROUP BY, without *, subqueries or a
// reference to an output by alias or position. A query without GROUP BY
// (the small queries of a focused campaign) is first grouped in both
// queries alike by groupBoth (detail "grouped:…").
func (m *mutator) groupDerive(q *sel) bool {
	if len(q.from) == 0 || q.outer != nil || len(q.arms) > 0 || hasStar(q) {
		return false
	}
	grouped := ""
	if len(q.groupBy) == 0 && !m.groupBoth(q) {
		return false
	} else if len(q.groupBy) > 0 && m.detail == "grouped" {
		grouped = "grouped:"
	}
	plain := true
	walk(q, func(st site) {
		if st.s != q {
			return
		}
		switch (*st.slot).(type) {
		case *aliasRef, *posRef, *inSub, *exists, *scalar:
			plain = false
		}
	})
	if !plain {
		return false
	}
	inner := newSel()
	inner.from, inner.where, inner.groupBy = q.from, q.where, q.groupBy
	d := &fromItem{sub: inner, alias: m.g.fromAlias(q)}
	read := func(x expr, name string) expr {
		inner.items = append(inner.items, &item{x: x, alias: name})
		return &colRef{f: d, col: len(inner.items) - 1, qual: true}
	}
	var outs []*item
	for k, it := range q.items {
		outs = append(outs, &item{x: read(it.x, "o"+strconv.Itoa(k+1)), alias: it.alias, aliasQuote: it.aliasQuote})
	}
	var where expr
	m.detail = grouped + "where"
	if q.having != nil {
		if chance(m.g.r, 0.5) {
			inner.having = q.having
			m.detail = grouped + "having"
		} else {
			where = read(q.having, "h")
		}
	}
	for k, o := range q.orderBy {
		o.x = read(o.x, "s"+strconv.Itoa(k+1))
	}
	if x := m.g.column(q, cNum, false); x != nil && chance(m.g.r, 0.15) {
		inner.items = append(inner.items, &item{x: &call{name: "sum", args: []expr{x}}, alias: "sx"})
		m.detail += ":sum"
	}
	if x := m.g.column(q, cAny, false); x != nil && chance(m.g.r, 0.15) {
		inner.items = append(inner.items, &item{x: &call{name: "max", args: []expr{x}}, alias: "mx"})
		m.detail += ":minmax"
	}
	q.from, q.where, q.groupBy, q.having, q.items = []*fromItem{d}, where, nil, nil, outs
	return true
}

// groupBoth makes q and the first query it was copied from (its twin)
// GROUP BY queries alike: each groups by its outputs and adds COUNT(*)
// AS n, at times with HAVING COUNT(*) > 1. Not for an aggregate query, one
// with ORDER BY or LIMIT, or a pair whose outputs differ in number; sets
// m.detail to "grouped" when it did.
func (m *mutator) groupBoth(q *sel) bool {
	t := m.twinSel(q)
	if t == nil || isAggregateQuery(q) || isAggregateQuery(t) || hasStar(t) || len(t.arms) > 0 || len(q.items) != len(t.items) ||
		len(q.orderBy) > 0 || len(t.orderBy) > 0 || q.limit >= 0 || t.limit >= 0 {
		return false
	}
	having := chance(m.g.r, 0.3)
	for _, s := range []*sel{t, q} {
		s.groupBy = nil
		for _, it := range s.items {
			s.groupBy = append(s.groupBy, clone(it.x))
		}
		s.items = append(s.items, &item{x: &call{name: "count", star: true}, alias: "n"})
		s.distinct = false
		if having {
			s.having = &binary{op: ">", l: &call{name: "count", star: true}, r: numLit(intVal(1))}
		}
	}
	m.detail = "grouped"
	return true
}
