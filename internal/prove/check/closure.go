package check

import (
	"sort"

	"github.com/sqljudge/sqljudge/internal/sqlast"
)

// Functional dependencies of a block. Within the rows a block keeps (its
// conditions TRUE), a column is determined by a set of columns when:
//
//   - it is equal to a determined column by a top-level conjunct a = b of
//     its conditions, both columns of the same family, Int or Text (for
//     which = is identity: whole numbers, strings compared byte by byte);
//   - a top-level conjunct a = literal fixes it (the literal of its
//     family);
//   - it belongs to an occurrence outside the block (a correlated
//     reference: fixed for each row of the outer query);
//   - it belongs to an occurrence all of whose columns are determined
//     once a key of its table is: a PRIMARY KEY or UNIQUE whose columns
//     are all NOT NULL (so that no two rows share its values).
//
// Every fact used is recorded.

// colKey names a column of an occurrence: "alias.column".
type colKey string

func keyOf(o *occurrence, i int) colKey { return colKey(o.alias + "." + o.colName(i)) }

// deps is what the conditions of a block say about its columns.
type deps struct {
	c      *Canon
	b      *block
	parent map[colKey]colKey // union-find of the equalities
	consts map[colKey]bool
	facts  factSet
}

// newDeps reads the equalities of b's conditions.
func newDeps(c *Canon, b *block) *deps {
	d := &deps{c: c, b: b, parent: map[colKey]colKey{}, consts: map[colKey]bool{}}
	for _, e := range b.conds {
		be, ok := e.(*sqlast.BinaryExpr)
		if !ok || be.Op != sqlast.OpEq {
			continue
		}
		xo, xi, xok := c.colOf(be.X)
		yo, yi, yok := c.colOf(be.Y)
		switch {
		case xok && yok:
			fx, fy := xo.table.Columns[xi].Family, yo.table.Columns[yi].Family
			if fx == fy && (fx == Int || fx == Text) {
				d.family(xo, xi)
				d.family(yo, yi)
				d.union(keyOf(xo, xi), keyOf(yo, yi))
			}
		case xok && literalOf(be.Y, xo.table.Columns[xi].Family):
			d.family(xo, xi)
			d.consts[keyOf(xo, xi)] = true
		case yok && literalOf(be.X, yo.table.Columns[yi].Family):
			d.family(yo, yi)
			d.consts[keyOf(yo, yi)] = true
		}
	}
	return d
}

// literalOf reports whether e is a literal of family f (Int or Text).
func literalOf(e sqlast.Expr, f Family) bool {
	l, ok := e.(*sqlast.Literal)
	return ok && (f == Int && l.Kind == sqlast.LitInteger || f == Text && l.Kind == sqlast.LitString)
}

func (d *deps) family(o *occurrence, i int) {
	d.facts.add(Fact{Fact: FactFamily, Table: o.table.Name, Column: o.table.Columns[i].Name, Family: o.table.Columns[i].Family.String()})
}

func (d *deps) find(k colKey) colKey {
	for {
		p, ok := d.parent[k]
		if !ok || p == k {
			return k
		}
		k = p
	}
}

func (d *deps) union(a, b colKey) {
	ra, rb := d.find(a), d.find(b)
	if ra == rb {
		return
	}
	if rb < ra {
		ra, rb = rb, ra
	}
	d.parent[rb] = ra
	if _, ok := d.parent[ra]; !ok {
		d.parent[ra] = ra
	}
}

// rep returns the representative of a column's equality class (the
// least name in it).
func (d *deps) rep(k colKey) colKey { return d.find(k) }

// local reports whether o is one of the block's own occurrences.
func (d *deps) local(o *occurrence) bool {
	for _, x := range d.b.occs {
		if x == o {
			return true
		}
	}
	return false
}

// closure returns the columns determined by start.
func (d *deps) closure(start []colKey) map[colKey]bool {
	in := map[colKey]bool{}
	for _, k := range start {
		in[k] = true
	}
	for k := range d.consts {
		in[k] = true
	}
	for changed := true; changed; {
		changed = false
		add := func(k colKey) {
			if !in[k] {
				in[k] = true
				changed = true
			}
		}
		for k := range d.parent {
			if in[k] {
				add(d.find(k))
			}
		}
		for k := range d.parent {
			if in[d.find(k)] {
				add(k)
			}
		}
		for _, o := range d.b.occs {
			if d.allIn(o, in) {
				continue
			}
			for _, key := range o.table.Keys {
				if d.keyIn(o, key, in) {
					for i := range o.table.Columns {
						add(keyOf(o, i))
					}
					break
				}
			}
		}
	}
	return in
}

func (d *deps) allIn(o *occurrence, in map[colKey]bool) bool {
	for i := range o.table.Columns {
		if !in[keyOf(o, i)] {
			return false
		}
	}
	return true
}

// keyed reports whether a NOT NULL key of o's table lies in the set:
// the rows of o are then told apart by columns of the set (a table
// without such a key may hold equal rows, which no set of its columns
// tells apart).
func (d *deps) keyed(o *occurrence, in map[colKey]bool) bool {
	for _, key := range o.table.Keys {
		if d.keyIn(o, key, in) {
			return true
		}
	}
	return false
}

// keyIn reports whether key of o's table is NOT NULL and all its columns
// are in the set; it records the facts when so.
func (d *deps) keyIn(o *occurrence, key Key, in map[colKey]bool) bool {
	for _, c := range key.Cols {
		if !o.table.Columns[c].NotNull || !in[keyOf(o, c)] {
			return false
		}
	}
	var names []string
	for _, c := range key.Cols {
		names = append(names, o.table.Columns[c].Name)
		d.facts.add(Fact{Fact: FactNotNull, Table: o.table.Name, Column: o.table.Columns[c].Name})
	}
	d.facts.add(Fact{Fact: FactKey, Table: o.table.Name, Columns: names})
	return true
}

// columnsOf returns the columns e references (canonical references only),
// splitting them into the block's own and outer ones; ok is false when e
// references a column the kernel cannot name (a derived table's).
func (d *deps) columnsOf(e sqlast.Expr) (own []colKey, ok bool) {
	ok = true
	walkExpr(e, func(x sqlast.Expr) bool {
		if r, isRef := x.(*sqlast.QualifiedRef); isRef {
			o, i, found := d.c.colOf(r)
			switch {
			case !found:
				ok = false
			case d.local(o):
				own = append(own, keyOf(o, i))
			}
		}
		return true
	})
	return own, ok
}

// determined reports whether every column of the block's own that es
// reference (outside aggregate calls) is determined by start.
func (d *deps) determined(start []colKey, es []sqlast.Expr) bool {
	in := d.closure(start)
	for _, e := range es {
		ok := true
		walkExpr(e, func(x sqlast.Expr) bool {
			if f, isCall := x.(*sqlast.FuncCall); isCall && isAggregateCall(f) {
				return false
			}
			if r, isRef := x.(*sqlast.QualifiedRef); isRef {
				o, i, found := d.c.colOf(r)
				if !found || d.local(o) && !in[keyOf(o, i)] {
					ok = false
				}
			}
			return ok
		})
		if !ok {
			return false
		}
	}
	return true
}

// plainColumns returns the columns among es that are plain references to
// the block's own columns.
func (d *deps) plainColumns(es []sqlast.Expr) []colKey {
	var out []colKey
	for _, e := range es {
		if o, i, ok := d.c.colOf(e); ok && d.local(o) {
			out = append(out, keyOf(o, i))
		}
	}
	return out
}

// sortedFacts returns the facts in a fixed order.
func sortedFacts(fs []Fact) []Fact {
	out := append([]Fact(nil), fs...)
	sort.SliceStable(out, func(i, j int) bool { return out[i].key() < out[j].key() })
	return out
}
