package fuzz

import (
	"strings"

	"github.com/sqljudge/sqljudge/internal/engine"
	"github.com/sqljudge/sqljudge/internal/equiv"
)

// Builders of schemas and query trees for hand-written pairs.

// tab is a table from column specs "name TYPE [NOT NULL] [COLLATE X]"
// (TYPE may be "-" for none).
func tab(name string, cols ...string) *table {
	t := &table{name: name, d: engine.SQLite}
	for _, spec := range cols {
		f := strings.Fields(spec)
		c := &column{name: f[0]}
		if f[1] != "-" {
			c.typ = f[1]
		}
		rest := strings.Join(f[2:], " ")
		c.notNull = strings.Contains(rest, "NOT NULL")
		if i := strings.Index(rest, "COLLATE "); i >= 0 {
			c.collate = strings.Fields(rest[i:])[1]
		}
		t.cols = append(t.cols, c)
	}
	return t
}

func mkSchema(d engine.Dialect, ts ...*table) *schema {
	for _, t := range ts {
		t.d = d
	}
	return &schema{d: d, tables: ts}
}

func fr(t *table, alias string) *fromItem { return &fromItem{table: t, alias: alias} }

// col is a qualified reference to the column named name of f.
func col(f *fromItem, name string) *colRef {
	for i := range f.ncols() {
		if strings.EqualFold(f.colName(i), name) {
			return &colRef{f: f, col: i, qual: true}
		}
	}
	panic("no column " + name)
}

// bare is an unqualified reference.
func bare(f *fromItem, name string) *colRef {
	c := col(f, name)
	c.qual = false
	return c
}

func num(i int64) *lit                 { return numLit(intVal(i)) }
func txt(s string) *lit                { return strLit(s, false) }
func dq(s string) *lit                 { return strLit(s, true) }
func bin(op string, l, r expr) *binary { return &binary{op: op, l: l, r: r} }
func it(x expr, alias string) *item    { return &item{x: x, alias: alias} }

// query builds a SELECT; later fields are set on the result.
func query(items []*item, from []*fromItem, where expr) *sel {
	s := newSel()
	s.items, s.from, s.where = items, from, where
	return s
}

// sub builds a subquery of outer.
func sub(outer *sel, items []*item, from []*fromItem, where expr) *sel {
	s := query(items, from, where)
	s.outer = outer
	return s
}

// handPair prints a hand-built pair under the bag rule.
func handPair(q1, q2 *sel) *pairSpec {
	return &pairSpec{q1: q1, q2: q2, sql1: sqlOf(q1), sql2: sqlOf(q2), rule: equiv.RuleBag}
}
