package fuzz

import "strings"

// usingJoin (a renaming of the kernel's reading, check/using.go): a join
// of two tables ON l.c = r.c [AND ...], the same column name on both
// sides and on no other table to the left, becomes JOIN r USING (c, ...)
// or, where the names equated are exactly those r shares with the tables
// to its left, NATURAL JOIN r; an inner join's other ON conjuncts go to
// the WHERE (a LEFT JOIN is taken only when its ON is the equalities
// alone). Every reference to a merged column stays qualified (an
// unqualified one would read the left table's). Details: "using" or
// "natural", ":left" for a LEFT JOIN. A SELECT with a * is left alone
// (SQLite leaves the merged columns out of it).
func (m *mutator) usingJoin(q *sel) bool {
	type cand struct {
		s       *sel
		f       *fromItem
		names   []string
		rest    []expr
		natural bool
	}
	var cs []cand
	for _, s := range sels(q) {
		if hasStar(s) {
			continue
		}
		for k, f := range s.from {
			if k == 0 || f.table == nil || f.cte != "" || f.on == nil || (f.join != "JOIN" && f.join != "LEFT JOIN") {
				continue
			}
			left := s.from[:k]
			allTables := true
			for _, g := range left {
				allTables = allTables && g.table != nil && g.cte == ""
			}
			if !allTables {
				continue
			}
			owners := func(name string) int {
				n := 0
				for _, g := range left {
					if tableCol(g.table, name) >= 0 {
						n++
					}
				}
				return n
			}
			var names []string
			var rest []expr
			for _, slot := range conjuncts(&f.on) {
				if name := sameNameEq(*slot, f, left); name != "" && owners(name) == 1 && !containsFold(names, name) {
					names = append(names, name)
					continue
				}
				rest = append(rest, *slot)
			}
			if len(names) == 0 || f.join == "LEFT JOIN" && len(rest) > 0 {
				continue
			}
			natural := true
			for _, c := range f.table.cols {
				if n := owners(c.name); n > 1 || n == 1 && !containsFold(names, c.name) {
					natural = false
				}
			}
			cs = append(cs, cand{s, f, names, rest, natural})
		}
	}
	if len(cs) == 0 {
		return false
	}
	c := cs[m.g.r.IntN(len(cs))]
	c.f.on = nil
	for _, x := range c.rest {
		c.s.where = andExpr(c.s.where, x)
	}
	m.detail = "using"
	if c.natural && chance(m.g.r, 0.5) {
		c.f.natural, m.detail = true, "natural"
	} else {
		c.f.using = c.names
	}
	if c.f.join == "LEFT JOIN" {
		m.detail += ":left"
	}
	// References to the merged columns, of either side, stay qualified.
	var partners []*fromItem
	for _, g := range c.s.from {
		for _, name := range c.names {
			if g.table != nil && tableCol(g.table, name) >= 0 {
				partners = append(partners, g)
			}
		}
	}
	walk(q, func(st site) {
		if r, ok := (*st.slot).(*colRef); ok && containsFrom(partners, r.f) && containsFold(c.names, r.f.colName(r.col)) {
			r.qual = true
		}
	})
	// At times the left table's merged columns are named unqualified in
	// the SELECT's own clauses, where no other item has the name: SQLite
	// reads them as the left table's (detail ":bare").
	if chance(m.g.r, 0.5) {
		bare := false
		walkOwn(c.s, func(st site) {
			r, ok := (*st.slot).(*colRef)
			if !ok || r.f == c.f || !containsFrom(partners, r.f) {
				return
			}
			name := r.f.colName(r.col)
			if !containsFold(c.names, name) {
				return
			}
			for _, g := range c.s.from {
				if g != r.f && g != c.f && g.table != nil && tableCol(g.table, name) >= 0 {
					return
				}
				if g.sub != nil {
					for i := range g.ncols() {
						if strings.EqualFold(g.colName(i), name) {
							return
						}
					}
				}
			}
			r.qual, bare = false, true
		})
		if bare {
			m.detail += ":bare"
		}
	}
	return true
}

// sameNameEq returns the column name of a conjunct l.c = r.c (either way
// round) between a column of f and a column of the same name of a table
// in left, "" for any other conjunct.
func sameNameEq(x expr, f *fromItem, left []*fromItem) string {
	b, ok := x.(*binary)
	if !ok || b.op != "=" {
		return ""
	}
	l, lok := b.l.(*colRef)
	r, rok := b.r.(*colRef)
	if !lok || !rok {
		return ""
	}
	if l.f == f {
		l, r = r, l
	}
	if r.f != f || !containsFrom(left, l.f) {
		return ""
	}
	if ln, rn := l.f.colName(l.col), r.f.colName(r.col); strings.EqualFold(ln, rn) {
		return rn
	}
	return ""
}

// tableCol is the index of t's column named name (ASCII case-insensitive),
// or -1.
func tableCol(t *table, name string) int {
	for i, c := range t.cols {
		if strings.EqualFold(c.name, name) {
			return i
		}
	}
	return -1
}

func containsFold(xs []string, x string) bool {
	for _, y := range xs {
		if strings.EqualFold(x, y) {
			return true
		}
	}
	return false
}

func containsFrom(fs []*fromItem, f *fromItem) bool {
	for _, g := range fs {
		if g == f {
			return true
		}
	}
	return false
}
