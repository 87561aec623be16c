package check

import "github.com/sqljudge/sqljudge/internal/sqlast"

// The kernel's entry points for the prover: it builds certificates from
// them, and Check never trusts what it builds.

// DerivedTable is the Table an Occurrence and a certificate's Match give
// a FROM subquery. A table of that name is told apart by its occurrence:
// a pairing joins two FROM subqueries or two occurrences of one table.
const DerivedTable = "(subquery)"

// Occurrence is a table occurrence of a canonical form, as the prover
// sees it: its alias, table, and the SELECT it belongs to (the alias of
// that SELECT's first table).
type Occurrence struct {
	Alias, Table, Block string
}

// Occurrences lists the table occurrences of the canonical form of sql
// (aliases prefix1, prefix2, ...); a FROM subquery is one too, of Table
// DerivedTable (the comparison pairs two of them when they are one query
// up to the renaming: opaqueDerived).
func Occurrences(sql string, s Schema, prefix string) ([]Occurrence, error) {
	c, err := Canonicalize(sql, s, prefix)
	if err != nil {
		return nil, err
	}
	var out []Occurrence
	for _, o := range c.Occs {
		t := DerivedTable
		if o.table != nil {
			t = o.table.Name
		}
		blk := ""
		if sc := c.scopes[o.core]; sc != nil && len(sc.occs) > 0 {
			blk = sc.occs[0].alias
		}
		out = append(out, Occurrence{Alias: o.alias, Table: t, Block: blk})
	}
	return out, nil
}

// Compare compares two normal forms (each in canonical form) under the
// pairing: what the comparison needs and claims (its obligations, not yet
// run, the facts it relies on, and whether it holds up to ties), or why
// the forms do not match (a *Refusal). Ordered: rows must come in order
// (Ordered); spider: the comparison rule is Spider's execution match
// (output values of one Python type).
func Compare(s Schema, nf1, nf2 string, p Pairing, ordered, spider bool) (*Comparison, error) {
	c1, err := normalForm("q1 normal form", nf1, s)
	if err != nil {
		return nil, err
	}
	c2, err := normalForm("q2 normal form", nf2, s)
	if err != nil {
		return nil, err
	}
	return compareForms(s.Dialect(), c1, c2, p, ordered, spider)
}

// MatchColumns proposes a column map between the top-level outputs of
// two normal forms under a bijection: output i of the first goes to the
// first unused output of the second with the same text once renamed,
// else to the first unused one.
func MatchColumns(s Schema, nf1, nf2 string, bij map[string]string) ([]int, error) {
	c1, err := Canonicalize(nf1, s, textPrefix(nf1))
	if err != nil {
		return nil, err
	}
	c2, err := Canonicalize(nf2, s, textPrefix(nf2))
	if err != nil {
		return nil, err
	}
	b1, _, err := compile(c1)
	if err != nil {
		n, nerr := plainOutputCount(c1, err)
		return identity(n), nerr
	}
	b2, _, err := compile(c2)
	if err != nil {
		n, nerr := plainOutputCount(c1, err)
		return identity(n), nerr
	}
	for !b1.simple() {
		b1 = b1.branches[0]
	}
	for !b2.simple() {
		b2 = b2.branches[0]
	}
	k := &kernel{c1: c1, c2: c2, bij: bij, inv: map[string]string{}}
	for a, b := range bij {
		k.inv[b] = a
	}
	if len(b1.outputs) != len(b2.outputs) {
		return identity(len(b1.outputs)), nil
	}
	t2 := k.texts(b2.outputs, k.side(1), nil)
	used := make([]bool, len(t2))
	perm := make([]int, len(b1.outputs))
	for i := range perm {
		perm[i] = -1
	}
	for i, t := range k.texts(b1.outputs, k.side(0), nil) {
		for j, u := range t2 {
			if !used[j] && t == u {
				perm[i], used[j] = j, true
				break
			}
		}
	}
	for i := range perm {
		for j := 0; perm[i] < 0 && j < len(used); j++ {
			if !used[j] {
				perm[i], used[j] = j, true
			}
		}
	}
	return perm, nil
}

// Matches pairs each occurrence of c with itself (the bijection of
// method identical); a derived table's Table is DerivedTable.
func (c *Canon) Matches() []Match {
	var out []Match
	for _, o := range c.Occs {
		t := DerivedTable
		if o.table != nil {
			t = o.table.Name
		}
		out = append(out, Match{Q1: o.alias, Q2: o.alias, Table: t})
	}
	return out
}

// OutputCount returns the number of output columns of a query in
// canonical form (a * expanded).
func OutputCount(nf string, s Schema) (int, error) {
	c, err := Canonicalize(nf, s, "x")
	if err != nil {
		return 0, err
	}
	b, _, err := compile(c)
	if err != nil {
		return plainOutputCount(c, err)
	}
	return outputCount(b), nil
}

// plainOutputCount counts the output columns of a canonical form that
// compile refused with err, from its first SELECT's list (a form with an
// outer join, which the comparison may still take whole: sameForm), a *
// as the columns of the FROM items it names (as sameForm spells it out);
// err again when a * sits beside USING or NATURAL (it shows a merged
// column once: its columns are counted only by compile).
func plainOutputCount(c *Canon, err error) (int, error) {
	sq, ok := c.Stmt.Cores[0].(*sqlast.SelectQuery)
	if !ok {
		return 0, err
	}
	spelled := *sq
	spellStars(c.scopes[sq], &spelled)
	if mergesColumns(sq) && len(spelled.Columns) != len(sq.Columns) {
		return 0, err
	}
	for _, col := range spelled.Columns {
		if _, star := col.Expr.(*sqlast.Star); star {
			return 0, err
		}
	}
	return len(spelled.Columns), nil
}

// MustCanon returns the canonical form of sql, "" when it has none
// (for tests and tools).
func MustCanon(sql string, s Schema, prefix string) string {
	c, err := Canonicalize(sql, s, prefix)
	if err != nil {
		return ""
	}
	return c.SQL()
}
