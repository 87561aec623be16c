package check

import (
	"sort"
	"strings"

	"github.com/sqljudge/sqljudge/internal/sqlast"
)

// Functional dependencies of a block. Within the rows a block keeps (its
// conditions TRUE), a set of columns (the start: GROUP BY keys, ORDER BY
// keys, outputs) determines others at two strengths. By comparison: two
// rows the engine takes for equal on the start (under each column's own
// comparison: its collation, and for a column of BLOB affinity 5 equal
// to 5.0) are equal so on these. By identity: such rows hold the very
// same values in these (what an output read from any row of a group, or
// from whichever of two tied rows comes first, needs). A column is
// determined
//
//   - by comparison when it is in the start, by identity when it is in
//     the start and tie-safe (Column.tieSafe: the engine's equality of its
//     values is identity);
//   - by identity when a top-level conjunct a = b of the conditions ties
//     it to a column so determined, both of one family, Int or Text (for
//     which = is identity: whole numbers, strings compared byte by byte),
//     or a conjunct a = literal fixes it (a literal of its family);
//   - by identity when it belongs to an occurrence outside the block (a
//     correlated reference: fixed for each row of the outer query);
//   - by identity when it belongs to an occurrence one of whose keys is
//     determined by comparison: a PRIMARY KEY or UNIQUE whose columns are
//     all NOT NULL in the block's rows (declared NOT NULL, or an operand
//     of a top-level conjunct that is never TRUE on NULL, such as the
//     join condition a.id = b.a_id), so that no two rows share its
//     values, by the comparison the key is enforced with, the column's
//     own.
//
// Every fact used is recorded.

// fam returns the family of column i of occurrence o (Column.family).
func (c *Canon) fam(o *occurrence, i int) Family { return o.table.Columns[i].family(c.d) }

// familyFact is the fact that column i of o is of its family.
func (c *Canon) familyFact(o *occurrence, i int) Fact {
	return Fact{Fact: FactFamily, Table: o.table.Name, Column: o.table.Columns[i].Name, Family: c.fam(o, i).String()}
}

// colKey names a column of an occurrence: "alias.column".
type colKey string

func keyOf(o *occurrence, i int) colKey { return colKey(o.alias + "." + o.colName(i)) }

// deps is what the conditions of a block say about its columns.
type deps struct {
	c      *Canon
	b      *block
	parent map[colKey]colKey // union-find of the equalities
	consts map[colKey]bool
	// nonNull are the block's columns that no row it keeps holds NULL in:
	// an operand of a top-level conjunct that is never TRUE on NULL
	// (nullRejected).
	nonNull map[colKey]bool
	facts   factSet
}

// newDeps reads the equalities of b's conditions.
func newDeps(c *Canon, b *block) *deps {
	d := &deps{c: c, b: b, parent: map[colKey]colKey{}, consts: map[colKey]bool{}, nonNull: map[colKey]bool{}}
	for _, e := range b.conds {
		for _, x := range nullRejected(e) {
			if o, i, ok := c.colOf(x); ok && d.local(o) {
				d.nonNull[keyOf(o, i)] = true
			}
		}
	}
	for _, e := range b.conds {
		be, ok := e.(*sqlast.BinaryExpr)
		if !ok || be.Op != sqlast.OpEq {
			continue
		}
		xo, xi, xok := c.colOf(be.X)
		yo, yi, yok := c.colOf(be.Y)
		switch {
		case xok && yok:
			fx, fy := c.fam(xo, xi), c.fam(yo, yi)
			if fx == fy && (fx == Int || fx == Text) {
				d.family(xo, xi)
				d.family(yo, yi)
				d.union(keyOf(xo, xi), keyOf(yo, yi))
			}
		case xok && literalOf(be.Y, c.fam(xo, xi)):
			d.family(xo, xi)
			d.consts[keyOf(xo, xi)] = true
		case yok && literalOf(be.X, c.fam(yo, yi)):
			d.family(yo, yi)
			d.consts[keyOf(yo, yi)] = true
		}
	}
	return d
}

// nullRejected returns the operands of a condition that are not NULL
// wherever it is TRUE: both sides of a comparison, x of x IS NOT NULL, x
// IN (...) and x [NOT] BETWEEN ...
func nullRejected(e sqlast.Expr) []sqlast.Expr {
	switch t := e.(type) {
	case *sqlast.BinaryExpr:
		switch t.Op {
		case sqlast.OpEq, sqlast.OpNe, sqlast.OpLt, sqlast.OpLe, sqlast.OpGt, sqlast.OpGe:
			return []sqlast.Expr{t.X, t.Y}
		}
	case *sqlast.NullCheckExpr:
		if t.Test != sqlast.TestIsNull {
			return []sqlast.Expr{t.X}
		}
	case *sqlast.InExpr:
		if !t.Not {
			return []sqlast.Expr{t.X}
		}
	case *sqlast.BetweenExpr:
		return []sqlast.Expr{t.X}
	}
	return nil
}

// literalOf reports whether e is a literal of family f (Int or Text).
func literalOf(e sqlast.Expr, f Family) bool {
	l, ok := e.(*sqlast.Literal)
	return ok && (f == Int && l.Kind == sqlast.LitInteger || f == Text && l.Kind == sqlast.LitString)
}

func (d *deps) family(o *occurrence, i int) {
	d.facts.add(d.c.familyFact(o, i))
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

// closure returns the columns determined by start by comparison.
func (d *deps) closure(start []colKey) map[colKey]bool {
	cmp, _ := d.closures(start)
	return cmp
}

// closures returns the columns determined by start by comparison and by
// identity.
func (d *deps) closures(start []colKey) (cmp, id map[colKey]bool) {
	cmp, id = map[colKey]bool{}, map[colKey]bool{}
	for _, k := range start {
		cmp[k] = true
		if d.tieSafe(k) {
			id[k] = true
		}
	}
	for k := range d.consts {
		cmp[k], id[k] = true, true
	}
	for changed := true; changed; {
		changed = false
		add := func(k colKey) {
			if !id[k] {
				cmp[k], id[k] = true, true
				changed = true
			}
		}
		for k := range d.parent {
			if id[k] {
				add(d.find(k))
			}
		}
		for k := range d.parent {
			if id[d.find(k)] {
				add(k)
			}
		}
		for _, o := range d.b.occs {
			if d.allIn(o, id) {
				continue
			}
			for _, key := range o.table.Keys {
				if d.keyIn(o, key, cmp) {
					for i := range o.table.Columns {
						add(keyOf(o, i))
					}
					break
				}
			}
		}
	}
	return cmp, id
}

// tieSafe reports whether a column of the block is tie-safe
// (Column.tieSafe).
func (d *deps) tieSafe(k colKey) bool {
	alias, col, _ := strings.Cut(string(k), ".")
	o := d.c.byAlias[alias]
	if o == nil || o.table == nil {
		return false
	}
	i := o.table.Col(col)
	return i >= 0 && o.table.Columns[i].tieSafe(d.c.d)
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

// keyIn reports whether key of o's table is NOT NULL (each column
// declared so, or kept from NULL by a conjunct: nonNull) and all its
// columns are in the set; it records the facts when so. A Groups key
// (a FROM subquery's, distinct_intro) needs only its columns in the set,
// and no fact.
func (d *deps) keyIn(o *occurrence, key Key, in map[colKey]bool) bool {
	if key.Groups {
		for _, c := range key.Cols {
			if !in[keyOf(o, c)] {
				return false
			}
		}
		return true
	}
	for _, c := range key.Cols {
		if !o.table.Columns[c].NotNull && !d.nonNull[keyOf(o, c)] || !in[keyOf(o, c)] {
			return false
		}
	}
	var names []string
	for _, c := range key.Cols {
		names = append(names, o.table.Columns[c].Name)
		if !d.nonNull[keyOf(o, c)] {
			d.facts.add(Fact{Fact: FactNotNull, Table: o.table.Name, Column: o.table.Columns[c].Name})
		}
	}
	d.facts.add(Fact{Fact: FactKey, Table: o.table.Name, Columns: names})
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
