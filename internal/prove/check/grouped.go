package check

import "github.com/sqljudge/sqljudge/internal/sqlast"

// Determined says, for one output of an aggregate SELECT, whether its
// groups determine it: whether every column it reads outside an aggregate
// call is functionally dependent on the GROUP BY terms (no GROUP BY: one
// group) within the rows the SELECT keeps, by the kernel's functional
// dependencies (closure.go: equalities and literals of the conditions,
// NOT NULL keys, outer references). Facts are the schema facts that reading
// relies on (a key, NOT NULL); none when the output is not determined.
type Determined struct {
	Determined bool
	Facts      []Fact
}

// GroupDetermined reads sql, one SELECT with GROUP BY or an aggregate and
// no compound, over schema s, and returns one Determined per output
// column (a * expanded to its table's columns, so a caller compares the
// count with the columns it wrote). A query that is not an aggregate
// SELECT, or that the kernel does not read (a derived table, an outer
// join, a construct it refuses), is an error (a *Refusal): the kernel then
// says nothing about its outputs, and a caller must not take any as
// determined.
//
// An output that is determined takes one value in every group, on every
// database satisfying s; one that is not may take several, and an engine
// that allows it (SQLite's bare columns, MySQL without
// ONLY_FULL_GROUP_BY) returns the value of a row of its choosing.
func GroupDetermined(sql string, s Schema) ([]Determined, error) {
	c, err := Canonicalize(sql, s, "g")
	if err != nil {
		return nil, err
	}
	b, _, err := compile(c)
	if err != nil {
		return nil, err
	}
	if !b.simple() || !b.aggregate {
		return nil, refuse("grouping", "not an aggregate SELECT")
	}
	k := &kernel{c1: c}
	out := make([]Determined, len(b.outputs))
	for i, e := range b.outputs {
		d := newDeps(c, b)
		if k.determinedBy(d, side{c: c}, b.groupBy, []sqlast.Expr{e}) {
			out[i] = Determined{Determined: true, Facts: sortedFacts(d.facts.list)}
		}
	}
	return out, nil
}
