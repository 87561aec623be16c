package fuzz

// The fuzzer's own query tree: small, resolved at generation (a column
// reference points at its FROM item, an alias reference at its output
// column), so that a rewrite can move, copy and respell names while
// knowing what they mean. It is printed by print.go; it never goes
// through sqljudge's parser or the kernel's reading of SQL, which are
// what the fuzzer tests.

// sel is one SELECT.
type sel struct {
	distinct bool
	items    []*item
	from     []*fromItem
	where    expr
	groupBy  []expr
	having   expr
	orderBy  []*orderTerm
	limit    int // -1: none
	offset   int // -1: none (only with a limit)
	// outer is the SELECT whose scope this one's correlated names read
	// (nil for the top level and for a FROM subquery).
	outer *sel
	// arms (from the rewrite unionDerive only) follow this SELECT in a
	// compound: SELECT ... UNION ALL SELECT ...; the SELECT and its arms
	// then have no ORDER BY or LIMIT.
	arms []*arm
}

// arm is a set operation and the SELECT after it.
type arm struct {
	op string // "UNION ALL", "UNION", "EXCEPT", "INTERSECT"
	s  *sel
}

// item is an output column: an expression with an optional alias, or
// a star (of one FROM item when starOf is set).
type item struct {
	x          expr
	alias      string
	aliasQuote bool
	star       bool
	starOf     *fromItem
}

// fromItem is a table or a FROM subquery, and how it joins the ones
// before it.
type fromItem struct {
	table *table
	sub   *sel
	alias string
	// join: "" (the first item), ",", "JOIN", "CROSS JOIN", "LEFT JOIN",
	// and from the rewrites only, "RIGHT JOIN" and "FULL JOIN".
	join string
	on   expr
	// natural and using (from the rewrite usingJoin only): NATURAL
	// before the join's words, or USING (names) after the item; on is
	// then nil.
	natural bool
	using   []string
	// cte, when set, prints the item as a reference to a common table
	// expression of that name whose body is sub (every reference of
	// one name holds the same body; the first is printed in the WITH,
	// with the hint materialized: "", "MATERIALIZED" or "NOT
	// MATERIALIZED").
	cte          string
	materialized string
}

// orderTerm is one ORDER BY term.
type orderTerm struct {
	x    expr
	desc bool
}

// expr is an expression node.
type expr interface{ isExpr() }

// colRef reads column col of FROM item f (an index into its table's
// columns, or into a subquery's outputs).
type colRef struct {
	f     *fromItem
	col   int
	qual  bool // printed qualified: q.c
	quote bool // the column name printed in double quotes
}

// aliasRef names an output column by its alias (ORDER BY, GROUP BY,
// HAVING, WHERE).
type aliasRef struct {
	it    *item
	quote bool
}

// posRef names an output column by position (ORDER BY 2, GROUP BY 1).
type posRef struct{ n int }

// lit is a literal: its value and how it is spelled (text is the exact
// SQL, e.g. '5', 5.0, "z" for a double-quoted string).
type lit struct {
	v    value
	text string
}

// binary is X op Y: comparisons, AND, OR, arithmetic, ||, LIKE.
type binary struct {
	op   string
	l, r expr
}

// unary is NOT X or -X.
type unary struct {
	op string
	x  expr
}

// call is a function call; star is COUNT(*).
type call struct {
	name     string
	args     []expr
	star     bool
	distinct bool
}

// inList is X [NOT] IN (list).
type inList struct {
	x    expr
	list []expr
	not  bool
}

// inSub is X [NOT] IN (subquery).
type inSub struct {
	x   expr
	sub *sel
	not bool
}

// exists is [NOT] EXISTS (subquery).
type exists struct {
	sub *sel
	not bool
}

// scalar is a subquery as a value.
type scalar struct{ sub *sel }

// collate is X COLLATE name.
type collate struct {
	x    expr
	name string
}

// isNull is X IS [NOT] NULL.
type isNull struct {
	x   expr
	not bool
}

// between is X [NOT] BETWEEN lo AND hi.
type between struct {
	x, lo, hi expr
	not       bool
}

// caseExpr is a searched CASE: CASE WHEN c1 THEN r1 ... [ELSE els] END
// (els nil: no ELSE, which is NULL); with iif, one WHEN and an ELSE, it
// is printed as SQLite's iif(c1, r1, els), the same CASE.
type caseExpr struct {
	whens []caseWhen
	els   expr
	iif   bool
}

// caseWhen is one WHEN c THEN r of a caseExpr.
type caseWhen struct{ cond, then expr }

func (*caseExpr) isExpr() {}
func (*colRef) isExpr()   {}
func (*aliasRef) isExpr() {}
func (*posRef) isExpr()   {}
func (*lit) isExpr()      {}
func (*binary) isExpr()   {}
func (*unary) isExpr()    {}
func (*call) isExpr()     {}
func (*inList) isExpr()   {}
func (*inSub) isExpr()    {}
func (*exists) isExpr()   {}
func (*scalar) isExpr()   {}
func (*collate) isExpr()  {}
func (*isNull) isExpr()   {}
func (*between) isExpr()  {}

// subOf returns the subquery of e (an inSub, exists or scalar), or nil.
func subOf(e expr) *sel {
	switch t := e.(type) {
	case *inSub:
		return t.sub
	case *exists:
		return t.sub
	case *scalar:
		return t.sub
	}
	return nil
}

// colName is the name of column i of f: its table's column, or the
// output name of its subquery's i-th column.
func (f *fromItem) colName(i int) string {
	if f.table != nil {
		return f.table.cols[i].name
	}
	return f.sub.outputName(i)
}

// ncols is the number of columns f offers.
func (f *fromItem) ncols() int {
	if f.table != nil {
		return len(f.table.cols)
	}
	return len(f.sub.outputs())
}

// ref is the name a query uses for f: its alias, else its table's name.
func (f *fromItem) ref() string {
	if f.alias != "" {
		return f.alias
	}
	if f.table != nil {
		return f.table.name
	}
	return ""
}

// output is one output column of a SELECT with a star spelled out: the
// FROM item and column it reads (for a star), or the item.
type output struct {
	it  *item
	f   *fromItem
	col int
}

// outputs lists s's output columns, stars spelled out.
func (s *sel) outputs() []output {
	var out []output
	for _, it := range s.items {
		if !it.star {
			out = append(out, output{it: it})
			continue
		}
		for _, f := range s.from {
			if it.starOf != nil && it.starOf != f {
				continue
			}
			for i := range f.ncols() {
				out = append(out, output{f: f, col: i})
			}
		}
	}
	return out
}

// outputName is the name SQLite gives output column i of s when s is a
// FROM subquery: its alias, else a plain column's name.
func (s *sel) outputName(i int) string {
	o := s.outputs()[i]
	if o.it == nil {
		return o.f.colName(o.col)
	}
	if o.it.alias != "" {
		return o.it.alias
	}
	if c, ok := o.it.x.(*colRef); ok {
		return c.f.colName(c.col)
	}
	return ""
}

// baseColumn follows a column reference through FROM subqueries to the
// table column it reads, when it reads one plainly.
func baseColumn(c *colRef) (*table, int, bool) {
	f, i := c.f, c.col
	for range 8 {
		if f.table != nil {
			return f.table, i, true
		}
		o := f.sub.outputs()[i]
		switch {
		case o.it == nil:
			f, i = o.f, o.col
		default:
			r, ok := o.it.x.(*colRef)
			if !ok {
				return nil, 0, false
			}
			f, i = r.f, r.col
		}
	}
	return nil, 0, false
}
