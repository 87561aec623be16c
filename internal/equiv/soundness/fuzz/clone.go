package fuzz

// cloner deep-copies query trees: the FROM items, output columns and
// SELECTs it has copied are remapped in the references of the copy;
// references to anything else (an outer query's columns, when copying an
// expression alone) keep pointing at the original.
type cloner struct {
	froms map[*fromItem]*fromItem
	items map[*item]*item
	sels  map[*sel]*sel
}

func newCloner() *cloner {
	return &cloner{froms: map[*fromItem]*fromItem{}, items: map[*item]*item{}, sels: map[*sel]*sel{}}
}

// cloneQuery copies a whole query.
func cloneQuery(s *sel) *sel { return newCloner().sel(s) }

// clone copies an expression; the columns it reads outside itself are
// the original's.
func clone(e expr) expr { return newCloner().expr(e) }

func (c *cloner) sel(s *sel) *sel {
	if s == nil {
		return nil
	}
	n := &sel{distinct: s.distinct, limit: s.limit, offset: s.offset}
	c.sels[s] = n
	if o, ok := c.sels[s.outer]; ok {
		n.outer = o
	} else {
		n.outer = s.outer
	}
	// FROM items first (the rest reads them), a FROM subquery's own
	// names included; then the outputs (ORDER BY may name them).
	for _, f := range s.from {
		nf := &fromItem{table: f.table, alias: f.alias, join: f.join, cte: f.cte, materialized: f.materialized, natural: f.natural, using: f.using}
		c.froms[f] = nf
		nf.sub = c.sel(f.sub)
		n.from = append(n.from, nf)
	}
	for _, it := range s.items {
		ni := &item{alias: it.alias, aliasQuote: it.aliasQuote, star: it.star, starOf: c.from(it.starOf)}
		c.items[it] = ni
		n.items = append(n.items, ni)
	}
	for i, it := range s.items {
		n.items[i].x = c.expr(it.x)
	}
	for i, f := range s.from {
		n.from[i].on = c.expr(f.on)
	}
	n.where = c.expr(s.where)
	for _, g := range s.groupBy {
		n.groupBy = append(n.groupBy, c.expr(g))
	}
	n.having = c.expr(s.having)
	for _, o := range s.orderBy {
		n.orderBy = append(n.orderBy, &orderTerm{x: c.expr(o.x), desc: o.desc})
	}
	for _, a := range s.arms {
		n.arms = append(n.arms, &arm{op: a.op, s: c.sel(a.s)})
	}
	return n
}

func (c *cloner) from(f *fromItem) *fromItem {
	if f == nil {
		return nil
	}
	if n, ok := c.froms[f]; ok {
		return n
	}
	return f
}

func (c *cloner) exprs(xs []expr) []expr {
	var out []expr
	for _, x := range xs {
		out = append(out, c.expr(x))
	}
	return out
}

func (c *cloner) expr(e expr) expr {
	switch t := e.(type) {
	case nil:
		return nil
	case *colRef:
		n := *t
		n.f = c.from(t.f)
		return &n
	case *aliasRef:
		n := *t
		if it, ok := c.items[t.it]; ok {
			n.it = it
		}
		return &n
	case *posRef:
		n := *t
		return &n
	case *lit:
		n := *t
		return &n
	case *binary:
		return &binary{op: t.op, l: c.expr(t.l), r: c.expr(t.r)}
	case *unary:
		return &unary{op: t.op, x: c.expr(t.x)}
	case *call:
		return &call{name: t.name, args: c.exprs(t.args), star: t.star, distinct: t.distinct}
	case *inList:
		return &inList{x: c.expr(t.x), list: c.exprs(t.list), not: t.not}
	case *inSub:
		return &inSub{x: c.expr(t.x), sub: c.sel(t.sub), not: t.not}
	case *exists:
		return &exists{sub: c.sel(t.sub), not: t.not}
	case *scalar:
		return &scalar{sub: c.sel(t.sub)}
	case *collate:
		return &collate{x: c.expr(t.x), name: t.name}
	case *isNull:
		return &isNull{x: c.expr(t.x), not: t.not}
	case *between:
		return &between{x: c.expr(t.x), lo: c.expr(t.lo), hi: c.expr(t.hi), not: t.not}
	case *caseExpr:
		n := &caseExpr{iif: t.iif}
		for _, w := range t.whens {
			n.whens = append(n.whens, caseWhen{c.expr(w.cond), c.expr(w.then)})
		}
		if t.els != nil {
			n.els = c.expr(t.els)
		}
		return n
	}
	panic("fuzz: clone of an unknown node")
}
