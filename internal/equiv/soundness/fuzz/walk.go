package fuzz

// clause is the part of a SELECT an expression sits in.
type clause uint8

const (
	inItems clause = iota
	inOn
	inWhere
	inGroupBy
	inHaving
	inOrderBy
)

// site is a place in a query tree that holds an expression: its slot
// (a rewrite replaces the expression through it), the SELECT and clause
// it belongs to, and whether it is a whole clause term (a WHERE
// conjunct, a GROUP BY or ORDER BY term, an output) or inside an
// aggregate call.
type site struct {
	slot  *expr
	s     *sel
	cl    clause
	term  bool
	inAgg bool
}

// walk calls fn for every expression site of s and of the queries
// nested in it (FROM subqueries and subquery expressions), outer sites
// first.
func walk(s *sel, fn func(site)) {
	w := walker{fn: fn}
	w.sel(s)
}

type walker struct{ fn func(site) }

func (w walker) sel(s *sel) {
	for _, f := range s.from {
		if f.sub != nil {
			w.sel(f.sub)
		}
	}
	for _, it := range s.items {
		if !it.star {
			w.expr(site{slot: &it.x, s: s, cl: inItems, term: true})
		}
	}
	for _, f := range s.from {
		if f.on != nil {
			w.conj(&f.on, s, inOn)
		}
	}
	if s.where != nil {
		w.conj(&s.where, s, inWhere)
	}
	for i := range s.groupBy {
		w.expr(site{slot: &s.groupBy[i], s: s, cl: inGroupBy, term: true})
	}
	if s.having != nil {
		w.conj(&s.having, s, inHaving)
	}
	for _, o := range s.orderBy {
		w.expr(site{slot: &o.x, s: s, cl: inOrderBy, term: true})
	}
	for _, a := range s.arms {
		w.sel(a.s)
	}
}

// conj walks a condition: each top-level conjunct is a term.
func (w walker) conj(slot *expr, s *sel, cl clause) {
	if b, ok := (*slot).(*binary); ok && b.op == "AND" {
		w.fn(site{slot: slot, s: s, cl: cl})
		w.conj(&b.l, s, cl)
		w.conj(&b.r, s, cl)
		return
	}
	w.expr(site{slot: slot, s: s, cl: cl, term: true})
}

func (w walker) expr(st site) {
	w.fn(st)
	child := func(slot *expr) { w.expr(site{slot: slot, s: st.s, cl: st.cl, inAgg: st.inAgg}) }
	switch t := (*st.slot).(type) {
	case *binary:
		child(&t.l)
		child(&t.r)
	case *unary:
		child(&t.x)
	case *call:
		for i := range t.args {
			w.expr(site{slot: &t.args[i], s: st.s, cl: st.cl, inAgg: st.inAgg || isAggregate(t)})
		}
	case *inList:
		child(&t.x)
		for i := range t.list {
			child(&t.list[i])
		}
	case *inSub:
		child(&t.x)
		w.sel(t.sub)
	case *exists:
		w.sel(t.sub)
	case *scalar:
		w.sel(t.sub)
	case *collate:
		child(&t.x)
	case *isNull:
		child(&t.x)
	case *between:
		child(&t.x)
		child(&t.lo)
		child(&t.hi)
	case *caseExpr:
		for i := range t.whens {
			child(&t.whens[i].cond)
			child(&t.whens[i].then)
		}
		if t.els != nil {
			child(&t.els)
		}
	}
}

// isAggregate reports whether c is an aggregate call.
func isAggregate(c *call) bool {
	switch c.name {
	case "count", "sum", "avg", "total":
		return true
	case "min", "max":
		return len(c.args) == 1
	}
	return false
}

// sels lists s and every SELECT nested in it, outer ones first.
func sels(s *sel) []*sel {
	out := []*sel{s}
	for _, f := range s.from {
		if f.sub != nil {
			out = append(out, sels(f.sub)...)
		}
	}
	var subs []*sel
	walkOwn(s, func(st site) {
		if sub := subOf(*st.slot); sub != nil {
			subs = append(subs, sub)
		}
	})
	for _, sub := range subs {
		out = append(out, sels(sub)...)
	}
	for _, a := range s.arms {
		out = append(out, sels(a.s)...)
	}
	return out
}

// walkOwn calls fn for the expression sites of s itself, not of the
// queries nested in it.
func walkOwn(s *sel, fn func(site)) {
	walk(s, func(st site) {
		if st.s == s {
			fn(st)
		}
	})
}

// conjuncts returns the slots of the top-level conjuncts of *slot.
func conjuncts(slot *expr) []*expr {
	if *slot == nil {
		return nil
	}
	if b, ok := (*slot).(*binary); ok && b.op == "AND" {
		return append(conjuncts(&b.l), conjuncts(&b.r)...)
	}
	return []*expr{slot}
}

// andExpr joins a and b with AND (either may be nil).
func andExpr(a, b expr) expr {
	switch {
	case a == nil:
		return b
	case b == nil:
		return a
	}
	return &binary{op: "AND", l: a, r: b}
}
