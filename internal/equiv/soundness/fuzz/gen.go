package fuzz

import (
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"

	"github.com/sqljudge/sqljudge/internal/engine"
)

// gen draws queries over a schema from a grammar of the kernel's fragment:
// select-project-join blocks with aliases and quoted names, WHERE and ON
// comparisons, IN lists, IN and EXISTS subqueries (correlated or not),
// scalar aggregate subqueries (whose aggregate may read an outer
// column), GROUP BY (on columns, expressions, collations or correlated
// subqueries) and HAVING, DISTINCT, ORDER BY (by position, alias, alias
// inside an expression, input expression) and LIMIT, FROM subqueries,
// COLLATE, typeof, length, ||, arithmetic and rowid names.
type gen struct {
	r *rand.Rand
	s *schema
	d engine.Dialect
	// scope is the SELECT being written (its aliases are strings a
	// literal may spell); focus a column per SELECT that several of its
	// conditions read (so that a = 5 and a IN (…) meet).
	scope *sel
	focus map[*sel]*colRef
	// motif is the chance a conjunction begins with an equality and
	// another use of its column (0: the default).
	motif float64
	// focusRewrites, when set, are the only rewrites drawn (Config.Focus)
	// and every query is a small one.
	focusRewrites []string
	// deriveBoth: after a pair's rewrites, a table both queries read is
	// made one FROM subquery in both (Config.DeriveBoth).
	deriveBoth bool
}

// class is what kind of value an expression gives, as far as the
// generator cares: a number, a string, or either.
type class uint8

const (
	cAny class = iota
	cNum
	cText
)

func newSel() *sel { return &sel{limit: -1, offset: -1} }

// query draws a top-level query.
func (g *gen) query() *sel {
	if len(g.focusRewrites) > 0 || chance(g.r, 0.4) {
		return g.smallQuery()
	}
	s := newSel()
	g.fillFrom(s, pick(g.r, []weighted[int]{{1, 5}, {2, 4}, {3, 1}}), true)
	switch x := g.r.Float64(); {
	case x < 0.22:
		g.grouped(s)
	case x < 0.36:
		g.scalarAggregate(s, 1+g.r.IntN(2))
	default:
		g.plainItems(s, 1+g.r.IntN(3), true)
		s.distinct = chance(g.r, 0.15)
	}
	g.joinConditions(s)
	if chance(g.r, 0.7) {
		s.where = g.conjunction(s, 1+g.r.IntN(3), 2)
	}
	g.rightSide(s)
	if chance(g.r, 0.45) {
		g.order(s)
	}
	return s
}

// smallQuery draws a query of one table (or two), one or two outputs
// and a short WHERE, rarely grouped or ordered: small queries are proved
// (and shrunk) far more often, and most wrong proofs need no more
// (SQLancer's experience, too).
func (g *gen) smallQuery() *sel {
	s := newSel()
	g.fillFrom(s, pick(g.r, []weighted[int]{{1, 4}, {2, 1}}), false)
	if chance(g.r, 0.15) {
		g.scalarAggregate(s, 1)
	} else {
		g.plainItems(s, 1+g.r.IntN(2), false)
	}
	g.joinConditions(s)
	g.motif = 0.7
	s.where = g.conjunction(s, 1+g.r.IntN(2), 1)
	g.motif = 0
	g.rightSide(s)
	if f := g.focus[s]; f != nil && len(s.items) > 0 && !hasStar(s) && !isAggregateQuery(s) && chance(g.r, 0.4) {
		// The column the WHERE filters on is often an output too
		// (SELECT c FROM t WHERE c = 'a').
		s.items[0] = g.aliased(s, clone(f))
	}
	if chance(g.r, 0.15) {
		g.order(s)
	}
	return s
}

// rightSide adds, at times, a WHERE conjunct on a column of the right
// side of a LEFT JOIN of s: one that rejects its NULL row (a comparison,
// an IN list, LIKE, BETWEEN, IS NOT NULL: the join is then an inner
// one, which join_kind and left_to_inner try) or one TRUE on it (IS
// NULL, an OR with IS NULL, coalesce, NOT, IS NOT DISTINCT FROM on
// PostgreSQL, IS on SQLite: traps for left_to_inner).
//
// At times (a fifth), when the second FROM item joins with ON, the
// conjunct is on the first item instead: the side whose NULLs a FULL or
// RIGHT JOIN made by full_outer or right_swap adds (traps for
// full_to_outer).
func (g *gen) rightSide(s *sel) {
	var lefts []*fromItem
	for _, f := range s.from {
		if f.join == "LEFT JOIN" {
			lefts = append(lefts, f)
		}
	}
	first := len(s.from) >= 2 && s.from[1].on != nil && chance(g.r, 0.2)
	if !first && (len(lefts) == 0 || !chance(g.r, 0.6)) {
		return
	}
	var f *fromItem
	if first {
		f = s.from[0]
	} else {
		f = lefts[g.r.IntN(len(lefts))]
	}
	col := &colRef{f: f, col: g.r.IntN(f.ncols()), qual: true}
	c := classOf(col)
	var x expr
	switch g.r.IntN(12) {
	case 0, 1, 2:
		x = &binary{op: pick(g.r, cmpOps), l: col, r: g.literal(c)}
	case 3:
		x = g.inList(s, col, c)
	case 4:
		x = &binary{op: "LIKE", l: col, r: strLit(oneOf(g.r, "a%", "%5", "_"), false)}
	case 5:
		x = &isNull{x: col, not: true}
	case 6:
		x = &isNull{x: col}
	case 7:
		x = &binary{op: "OR", l: &isNull{x: col}, r: &binary{op: pick(g.r, cmpOps), l: clone(col), r: g.literal(c)}}
	case 8:
		x = &binary{op: "=", l: &call{name: "coalesce", args: []expr{col, g.literal(c)}}, r: g.literal(c)}
	case 9:
		x = &unary{op: "NOT", x: &binary{op: pick(g.r, cmpOps), l: col, r: g.literal(c)}}
	case 10:
		op := "IS"
		if g.strict() {
			op = "IS NOT DISTINCT FROM"
		}
		x = &binary{op: op, l: col, r: g.literal(c)}
	default:
		x = &between{x: col, lo: g.literal(c), hi: g.literal(c)}
	}
	s.where = andExpr(s.where, x)
}

// isAggregateQuery reports whether s's outputs aggregate.
func isAggregateQuery(s *sel) bool {
	for _, it := range s.items {
		if c, ok := it.x.(*call); ok && isAggregate(c) {
			return true
		}
	}
	return len(s.groupBy) > 0
}

// fillFrom adds n FROM items to s: tables (repeats aliased), rarely a
// FROM subquery at the top level; how each joins is drawn, the ON
// conditions later (joinConditions: they may name the outputs).
func (g *gen) fillFrom(s *sel, n int, top bool) {
	for i := range n {
		f := &fromItem{}
		if top && chance(g.r, 0.08) {
			f.sub = g.derived()
		} else {
			f.table = g.s.tables[g.r.IntN(len(g.s.tables))]
		}
		if i > 0 {
			f.join = pick(g.r, []weighted[string]{{",", 35}, {"JOIN", 45}, {"CROSS JOIN", 5}, {"LEFT JOIN", 15}})
		}
		if f.sub != nil || chance(g.r, 0.55) || g.refTaken(s, f.ref()) {
			f.alias = g.fromAlias(s)
		}
		s.from = append(s.from, f)
	}
}

// refTaken reports whether a FROM item of s (or of an outer query) is
// already named ref.
func (g *gen) refTaken(s *sel, ref string) bool {
	for x := s; x != nil; x = x.outer {
		for _, f := range x.from {
			if strings.EqualFold(f.ref(), ref) {
				return true
			}
		}
	}
	return false
}

// fromAlias draws an alias no FROM item in scope has: often a plain one,
// sometimes a table's or a column's name.
func (g *gen) fromAlias(s *sel) string {
	for range 20 {
		a := pick(g.r, []weighted[string]{{"t1", 3}, {"t2", 3}, {"T3", 2}, {"x", 1}, {"a", 1}, {"s", 1}, {"u", 1}, {"d", 1}, {"name", 1}})
		if !g.refTaken(s, a) {
			return a
		}
	}
	for i := 1; ; i++ {
		if a := "q" + strconv.Itoa(i); !g.refTaken(s, a) {
			return a
		}
	}
}

// derived draws a FROM subquery: plain columns of one table, aliased,
// maybe with a WHERE and an ORDER BY.
func (g *gen) derived() *sel {
	s := newSel()
	g.fillFrom(s, 1, false)
	f := s.from[0]
	if chance(g.r, 0.3) {
		s.items = []*item{{star: true}}
	} else {
		for _, i := range g.r.Perm(f.ncols())[:1+g.r.IntN(f.ncols())] {
			it := &item{x: &colRef{f: f, col: i, qual: chance(g.r, 0.5)}}
			if chance(g.r, 0.4) {
				it.alias = "c" + strconv.Itoa(len(s.items)+1)
			}
			s.items = append(s.items, it)
		}
		dedupeNames(s)
	}
	if chance(g.r, 0.4) {
		s.where = g.cond(s, 0)
	}
	if chance(g.r, 0.3) {
		s.orderBy = []*orderTerm{{x: g.column(s, cAny, false), desc: chance(g.r, 0.5)}}
	}
	return s
}

// dedupeNames aliases the output columns of a FROM subquery whose names
// repeat, so that the outer query can name each.
func dedupeNames(s *sel) {
	seen := map[string]bool{}
	for i, it := range s.items {
		n := strings.ToLower(s.outputName(i))
		if n == "" || seen[n] {
			it.alias = "c" + strconv.Itoa(i+1)
			n = it.alias
		}
		seen[n] = true
	}
}

// column draws a column of s's FROM items (of an outer query's too when
// outer) of class c when there is one, else (not on a strict engine) of
// any; nil when there is none.
func (g *gen) column(s *sel, c class, outer bool) *colRef {
	var all, fit []*colRef
	for x := s; x != nil; x = x.outer {
		for _, f := range x.from {
			for i := range f.ncols() {
				r := &colRef{f: f, col: i, qual: true}
				all = append(all, r)
				if c == cAny || classOf(r) == c || classOf(r) == cAny {
					fit = append(fit, r)
				}
			}
		}
		if !outer || !chance(g.r, 0.4) {
			break
		}
	}
	if len(fit) == 0 && (c == cAny || !g.strict()) {
		fit = all
	}
	if len(fit) == 0 {
		return nil
	}
	r := fit[g.r.IntN(len(fit))]
	r.qual = len(s.from) > 1 || r.f != s.from[0] || chance(g.r, 0.5)
	r.quote = chance(g.r, 0.08)
	return r
}

// strict reports whether the engine refuses to compare, add or sum
// values of different classes (PostgreSQL: 'a' = 1 is an error).
func (g *gen) strict() bool { return g.d == engine.Postgres }

// loose is c, or on a lenient engine at times any class: comparisons
// across classes are where affinities act.
func (g *gen) loose(c class) class {
	if g.strict() {
		return c
	}
	return oneOf(g.r, c, c, cAny)
}

// columnOr draws a column of class c (as column does), or a literal of
// class c when there is none.
func (g *gen) columnOr(s *sel, c class, outer bool) expr {
	if col := g.column(s, c, outer); col != nil {
		return col
	}
	return g.literal(c)
}

// classOf is the class of a column reference's values.
func classOf(r *colRef) class {
	t, i, ok := baseColumn(r)
	if !ok {
		return cAny
	}
	switch t.cols[i].affinity() {
	case affInteger, affReal, affNumeric:
		return cNum
	case affText:
		return cText
	}
	return cAny
}

// The literals the generator draws: small numbers that rows will hold,
// boundaries, and strings that differ by case, trailing blanks or
// leading zeros.
var (
	intLits  = []int64{0, 1, 2, 3, 5, -1, 10, 40961, 9223372036854775807}
	realLits = []float64{0.5, 2.5, 5.0, -1.5, 1e308}
	textLits = []string{"a", "A", "a ", "", "5", "05", "abc", "z", "x y", "5.0"}
	typeLits = []string{"integer", "real", "text", "blob", "null"}
)

// literal draws a literal of class c.
func (g *gen) literal(c class) *lit {
	if c == cAny {
		c = oneOf(g.r, cNum, cText)
	}
	if c == cNum {
		if chance(g.r, 0.8) {
			return numLit(intVal(intLits[g.r.IntN(len(intLits))]))
		}
		return numLit(realVal(realLits[g.r.IntN(len(realLits))]))
	}
	if g.scope != nil && chance(g.r, 0.2) {
		return strLit(g.nameString(g.scope), false)
	}
	return strLit(textLits[g.r.IntN(len(textLits))], false)
}

func numLit(v value) *lit { return &lit{v: v, text: v.literal(engine.SQLite)} }

// strLit is a string literal, double-quoted when dq (SQLite reads a
// double-quoted word that names no column as a string).
func strLit(s string, dq bool) *lit {
	if dq {
		return &lit{v: textVal(s), text: `"` + strings.ReplaceAll(s, `"`, `""`) + `"`}
	}
	return &lit{v: textVal(s), text: quoteString(s)}
}

// nameString draws a string that a name could mean: an output alias of
// s or of a query around it (most often), a rowid's name, a column
// name.
func (g *gen) nameString(s *sel) string {
	var aliases []string
	for x := s; x != nil; x = x.outer {
		for _, it := range x.items {
			if it.alias != "" {
				aliases = append(aliases, it.alias)
			}
		}
	}
	switch v := g.r.Float64(); {
	case v < 0.65 && len(aliases) > 0:
		return oneOf(g.r, aliases...)
	case v < 0.75:
		return oneOf(g.r, "rowid", "oid", "_rowid_", "ROWID")
	}
	t := g.s.tables[g.r.IntN(len(g.s.tables))]
	return t.cols[g.r.IntN(len(t.cols))].name
}

// value draws a scalar expression of class c over s's columns.
func (g *gen) value(s *sel, c class, depth int) expr {
	g.scope = s
	col := g.column(s, c, s.outer != nil)
	if col == nil {
		return g.literal(c)
	}
	if chance(g.r, 0.05) {
		return g.caseOf(col)
	}
	switch x := g.r.Float64(); {
	case x < 0.6:
		return col
	case x < 0.68:
		return g.literal(c)
	case x < 0.78 && c != cText && (classOf(col) == cNum || !g.strict()):
		return &binary{op: oneOf(g.r, "+", "-", "*", "/"), l: col, r: numLit(intVal(int64(1 + g.r.IntN(3))))}
	case x < 0.9:
		f, _ := g.function(col, classOf(col))
		return f
	case x < 0.95 && g.d == engine.SQLite:
		return &collate{x: col, name: oneOf(g.r, "NOCASE", "RTRIM", "BINARY")}
	case depth > 0:
		return &scalar{sub: g.aggregateSub(s, depth-1)}
	}
	return col
}

// caseOf draws a searched CASE of col: one or two WHENs that test col
// (a comparison with a literal, IS [NOT] NULL; on SQLite at times a
// literal, taken always or never), each giving col or a
// literal of its class, and an ELSE (left out at times: NULL). It reads
// only col, so it goes wherever col does (a grouped query's outputs).
func (g *gen) caseOf(col *colRef) expr {
	c := classOf(col)
	result := func() expr {
		if chance(g.r, 0.5) {
			return &colRef{f: col.f, col: col.col, qual: col.qual, quote: col.quote}
		}
		return g.literal(c)
	}
	cx := &caseExpr{}
	for range 1 + g.r.IntN(2) {
		var w expr = &isNull{x: &colRef{f: col.f, col: col.col, qual: col.qual}, not: chance(g.r, 0.5)}
		switch x := g.r.Float64(); {
		case x < 0.08 && g.d == engine.SQLite:
			// A literal WHEN, taken always (1, 2.5) or never (0,
			// 0.0, NULL).
			w = numLit(oneOf(g.r, intVal(0), intVal(1), realVal(0), realVal(2.5), value{}))
		case x < 0.75:
			w = &binary{op: pick(g.r, cmpOps), l: &colRef{f: col.f, col: col.col, qual: col.qual}, r: g.literal(c)}
		}
		cx.whens = append(cx.whens, caseWhen{w, result()})
	}
	if chance(g.r, 0.75) {
		cx.els = result()
	}
	cx.iif = g.d == engine.SQLite && chance(g.r, 0.25)
	return cx
}

// function applies a function the kernel reads to col (of class c) and
// returns the class of its result.
func (g *gen) function(col expr, c class) (expr, class) {
	if g.strict() {
		switch {
		case c == cText && chance(g.r, 0.3):
			return &call{name: "length", args: []expr{col}}, cNum
		case c == cText:
			return &call{name: oneOf(g.r, "lower", "upper"), args: []expr{col}}, cText
		}
		return &call{name: "abs", args: []expr{col}}, cNum
	}
	switch g.r.IntN(6) {
	case 0:
		return &call{name: "typeof", args: []expr{col}}, cText
	case 1:
		return &call{name: "length", args: []expr{col}}, cNum
	case 2:
		return &binary{op: "||", l: col, r: strLit(oneOf(g.r, "", "x"), false)}, cText
	case 3:
		return &call{name: oneOf(g.r, "lower", "upper"), args: []expr{col}}, cText
	case 4:
		return &call{name: "abs", args: []expr{col}}, cNum
	}
	return &call{name: "coalesce", args: []expr{col, g.literal(c)}}, c
}

// plainItems adds n output columns to s (a star at the top level,
// rarely), each aliased at times.
func (g *gen) plainItems(s *sel, n int, top bool) {
	if top && chance(g.r, 0.06) {
		it := &item{star: true}
		if len(s.from) > 1 && chance(g.r, 0.5) {
			it.starOf = s.from[g.r.IntN(len(s.from))]
		}
		s.items = append(s.items, it)
		return
	}
	for range n {
		var x expr
		switch v := g.r.Float64(); {
		case v < 0.05 && g.d == engine.SQLite:
			x = strLit(g.nameString(s), true) // SELECT "rowid", "z"
		case v < 0.12:
			x = &scalar{sub: g.aggregateSub(s, 0)}
		default:
			x = g.value(s, cAny, 1)
		}
		s.items = append(s.items, g.aliased(s, x))
	}
}

// aliased wraps x in an output column, aliased at times: by a fresh
// name, or by the name of an input column (which the alias then shadows
// in ORDER BY).
func (g *gen) aliased(s *sel, x expr) *item {
	it := &item{x: x}
	if !chance(g.r, 0.5) {
		return it
	}
	var names []string
	for _, f := range s.from {
		for i := range f.ncols() {
			names = append(names, f.colName(i))
		}
	}
	fresh := []string{"z", "w", "cnt", "rowid", "t", "My Col"}
	for range 10 {
		a := oneOf(g.r, fresh...)
		if chance(g.r, 0.6) {
			a = oneOf(g.r, names...)
		}
		if !aliasTaken(s, a) {
			it.alias = a
			it.aliasQuote = chance(g.r, 0.15)
			break
		}
	}
	return it
}

func aliasTaken(s *sel, a string) bool {
	for _, it := range s.items {
		if strings.EqualFold(it.alias, a) {
			return true
		}
	}
	return false
}

// aggregate draws an aggregate call over s's columns: COUNT(*), or
// COUNT/SUM/MIN/MAX/AVG/TOTAL of a column (an outer query's column at
// times, which makes it the outer query's aggregate).
func (g *gen) aggregate(s *sel) expr {
	name := pick(g.r, []weighted[string]{{"count", 5}, {"sum", 3}, {"min", 2}, {"max", 2}, {"avg", 1}, {"total", 1}})
	if g.d == engine.Postgres && name == "total" {
		name = "sum"
	}
	if name == "count" && chance(g.r, 0.35) {
		return &call{name: "count", star: true}
	}
	c := cAny
	if name != "count" && name != "min" && name != "max" {
		c = cNum
	}
	col := g.column(s, c, s.outer != nil && chance(g.r, 0.4))
	if col == nil || g.strict() && c == cNum && classOf(col) != cNum {
		return &call{name: "count", star: true}
	}
	return &call{name: name, args: []expr{col}, distinct: name == "count" && chance(g.r, 0.15)}
}

// scalarAggregate makes s an aggregate without GROUP BY: n aggregates.
func (g *gen) scalarAggregate(s *sel, n int) {
	for range n {
		s.items = append(s.items, g.aliased(s, g.aggregate(s)))
	}
}

// grouped makes s a GROUP BY query: one or two terms (columns, a
// column under a collation or a function, a correlated subquery), the
// terms (or some) and aggregates as outputs, HAVING at times.
func (g *gen) grouped(s *sel) {
	for range 1 + g.r.IntN(2) {
		col := g.column(s, cAny, false)
		var term expr = col
		switch x := g.r.Float64(); {
		case x < 0.2 && g.d == engine.SQLite:
			term = &collate{x: col, name: oneOf(g.r, "NOCASE", "RTRIM")}
		case x < 0.27:
			term, _ = g.function(col, classOf(col))
		case x < 0.4:
			term = &scalar{sub: g.correlatedCount(s, col)}
		}
		s.groupBy = append(s.groupBy, term)
	}
	for _, t := range s.groupBy {
		if chance(g.r, 0.75) {
			s.items = append(s.items, g.aliased(s, clone(t)))
		}
	}
	if chance(g.r, 0.1) {
		s.items = append(s.items, g.aliased(s, g.column(s, cAny, false)))
	}
	for range 1 + g.r.IntN(2) {
		s.items = append(s.items, g.aliased(s, g.aggregate(s)))
	}
	if chance(g.r, 0.3) {
		s.having = &binary{op: oneOf(g.r, ">", ">=", "=", "<"), l: g.aggregate(s), r: numLit(intVal(int64(g.r.IntN(3))))}
	}
	s.distinct = chance(g.r, 0.06)
}

// correlatedCount is (SELECT COUNT(*) FROM t WHERE t.c = col): a value
// of col's row that no key of the outer query determines.
func (g *gen) correlatedCount(outer *sel, col *colRef) *sel {
	s := newSel()
	s.outer = outer
	g.fillFrom(s, 1, false)
	s.items = []*item{{x: &call{name: "count", star: true}}}
	inner := g.column(s, classOf(col), false)
	if inner == nil {
		// t has no column of col's class (col may read an expression
		// of a FROM subquery): the count of all of t, uncorrelated.
		return s
	}
	inner.qual = true
	s.where = &binary{op: "=", l: inner, r: clone(col)}
	return s
}

// aggregateSub draws a scalar subquery returning one aggregate (or,
// rarely, a plain column under ORDER BY ... LIMIT 1), correlated at
// times.
func (g *gen) aggregateSub(outer *sel, depth int) *sel {
	s := newSel()
	s.outer = outer
	g.fillFrom(s, 1, false)
	if chance(g.r, 0.1) {
		s.items = []*item{{x: g.column(s, cAny, false)}}
		s.orderBy = []*orderTerm{{x: g.column(s, cAny, false), desc: chance(g.r, 0.5)}}
		s.limit = 1
	} else {
		s.items = []*item{{x: g.aggregate(s)}}
	}
	if chance(g.r, 0.6) {
		s.where = g.correlation(s, depth)
	}
	return s
}

// correlation draws a condition of subquery s: an equality with an outer
// column (its correlation) or any condition.
func (g *gen) correlation(s *sel, depth int) expr {
	inner := g.column(s, cAny, false)
	outer := g.column(s.outer, classOf(inner), s.outer.outer != nil)
	if g.d == engine.SQLite && chance(g.r, 0.2) {
		// A word naming an output of the query around: a string to
		// SQLite only when it names nothing.
		return &binary{op: "=", l: inner, r: strLit(g.nameString(s.outer), chance(g.r, 0.5))}
	}
	if outer != nil && chance(g.r, 0.7) {
		outer.qual = true
		var c expr = &binary{op: "=", l: inner, r: outer}
		if chance(g.r, 0.3) {
			c = &binary{op: "AND", l: c, r: g.cond(s, depth)}
		}
		return c
	}
	return g.cond(s, depth)
}

// joinConditions writes the ON condition of every JOIN: an equality
// with an earlier item's column, at times another comparison, and at
// times a comparison with a double-quoted word that is an output alias.
func (g *gen) joinConditions(s *sel) {
	for i, f := range s.from {
		if f.join != "JOIN" && f.join != "LEFT JOIN" {
			continue
		}
		mine := &colRef{f: f, col: g.r.IntN(f.ncols()), qual: true}
		prev := s.from[g.r.IntN(i)]
		theirs := &colRef{f: prev, col: g.r.IntN(prev.ncols()), qual: true}
		for range 8 {
			if !g.strict() || classOf(theirs) == classOf(mine) {
				break
			}
			prev = s.from[g.r.IntN(i)]
			theirs = &colRef{f: prev, col: g.r.IntN(prev.ncols()), qual: true}
		}
		var on expr = &binary{op: "=", l: mine, r: theirs}
		switch x := g.r.Float64(); {
		case x < 0.2 && g.d == engine.SQLite:
			on = &binary{op: "AND", l: on, r: &binary{op: "=", l: strLit(g.nameString(s), chance(g.r, 0.5)), r: clone(mine)}}
		case x < 0.3:
			on = &binary{op: "AND", l: on, r: g.cond(s, 0)}
		}
		f.on = on
	}
}

// conjunction draws n conditions joined by AND; at times it begins
// with an equality on the SELECT's focus column followed by another
// use of that column (an IN list, an IN subquery, a function, another
// comparison): where an equality may be propagated.
func (g *gen) conjunction(s *sel, n, depth int) expr {
	if g.focus == nil {
		g.focus = map[*sel]*colRef{}
	}
	if g.focus[s] == nil {
		g.focus[s] = g.column(s, cAny, false)
	}
	var out expr
	if f := g.focus[s]; f != nil && chance(g.r, max(g.motif, 0.45)) {
		out = andExpr(g.equality(s, f), g.use(s, f, depth))
		n--
	}
	for range n {
		out = andExpr(out, g.cond(s, depth))
	}
	return out
}

// equality draws f = a literal or f = another column: often one whose
// values a kernel may take for the same kind (REAL and NUMERIC, TEXT and
// untyped), at times any.
func (g *gen) equality(s *sel, f *colRef) expr {
	g.scope = s
	if chance(g.r, 0.45) {
		return &binary{op: "=", l: clone(f), r: g.literal(classOf(f))}
	}
	if sib := g.sibling(s, f); sib != nil && chance(g.r, 0.6) {
		return &binary{op: "=", l: clone(f), r: sib}
	}
	return &binary{op: "=", l: clone(f), r: g.columnOr(s, g.loose(classOf(f)), s.outer != nil)}
}

// siblings are the affinities whose values differ in storage class but
// compare equal, and that a kernel may file under one kind of value:
// REAL stores 5 as 5.0, NUMERIC as 5; TEXT stores 5 as '5', a column
// without affinity keeps 5 (and TEXT columns of two collations).
var siblings = map[affinity][]affinity{
	affReal: {affNumeric}, affNumeric: {affReal}, affText: {affBlob, affText}, affBlob: {affText},
}

// sibling draws a column of s (its own FROM) of a sibling affinity of
// f's, or nil.
func (g *gen) sibling(s *sel, f *colRef) *colRef {
	t, i, ok := baseColumn(f)
	if !ok {
		return nil
	}
	var out []*colRef
	for _, fi := range s.from {
		for j := range fi.ncols() {
			r := &colRef{f: fi, col: j, qual: true}
			if bt, bi, ok := baseColumn(r); ok && !(bt == t && bi == i) && slices.Contains(siblings[t.cols[i].affinity()], bt.cols[bi].affinity()) {
				out = append(out, r)
			}
		}
	}
	if len(out) == 0 {
		return nil
	}
	return out[g.r.IntN(len(out))]
}

// use draws another condition on column f.
func (g *gen) use(s *sel, f *colRef, depth int) expr {
	col := clone(f).(*colRef)
	switch g.r.IntN(6) {
	case 3, 4:
		return g.computed(col, classOf(col))
	case 0:
		return g.inList(s, col, classOf(col))
	case 1:
		if depth > 0 {
			return g.inSubquery(s, col, depth-1)
		}
	case 2:
		return g.computed(col, classOf(col))
	}
	return g.cond(s, depth)
}

// cmpOps are the comparison operators, = most often.
var cmpOps = []weighted[string]{{"=", 6}, {"<>", 1}, {"<", 2}, {"<=", 1}, {">", 2}, {">=", 1}}

// cond draws one condition over s.
func (g *gen) cond(s *sel, depth int) expr {
	g.scope = s
	col := g.column(s, cAny, s.outer != nil)
	if f := g.focus[s]; f != nil && chance(g.r, 0.4) {
		col = clone(f).(*colRef)
	}
	if col == nil {
		return trueConjunct()
	}
	c := classOf(col)
	if chance(g.r, 0.05) {
		if g.d == engine.SQLite && chance(g.r, 0.4) {
			// A condition's value as a condition: 1, 0 or NULL.
			cx := &caseExpr{whens: []caseWhen{{g.cond(s, 0), numLit(intVal(1))}}}
			if chance(g.r, 0.7) {
				cx.els = numLit(intVal(0))
			}
			return cx
		}
		return &binary{op: pick(g.r, cmpOps), l: g.caseOf(col), r: g.literal(c)}
	}
	switch x := g.r.Float64(); {
	case x < 0.28:
		// At times (SQLite) a literal of the other class: a column's
		// affinity converts it (x = 5 of a TEXT column is x = '5'),
		// which an expression over x (a CASE, +x) does not.
		lc := c
		if !g.strict() && chance(g.r, 0.15) {
			lc = cAny
		}
		return &binary{op: pick(g.r, cmpOps), l: col, r: g.literal(lc)}
	case x < 0.42:
		return &binary{op: pick(g.r, cmpOps), l: col, r: g.columnOr(s, g.loose(c), s.outer != nil)}
	case x < 0.52:
		return g.computed(col, c)
	case x < 0.62:
		return g.inList(s, col, c)
	case x < 0.7 && depth > 0:
		return g.inSubquery(s, col, depth-1)
	case x < 0.77 && depth > 0:
		sub := newSel()
		sub.outer = s
		g.fillFrom(sub, 1, false)
		sub.items = []*item{{x: oneOf[expr](g.r, numLit(intVal(1)), g.column(sub, cAny, false))}}
		sub.where = g.correlation(sub, depth-1)
		if chance(g.r, 0.12) {
			sub.orderBy = []*orderTerm{{x: g.column(sub, cAny, false)}}
			sub.limit = 1
		}
		return &exists{sub: sub, not: chance(g.r, 0.3)}
	case x < 0.82:
		return &isNull{x: col, not: chance(g.r, 0.5)}
	case x < 0.86:
		return &between{x: col, lo: g.literal(c), hi: g.literal(c), not: chance(g.r, 0.2)}
	case x < 0.89:
		return &binary{op: "LIKE", l: col, r: strLit(oneOf(g.r, "a%", "A%", "%5", "_"), false)}
	case x < 0.93 && depth > 0:
		return &binary{op: "OR", l: g.cond(s, depth-1), r: g.cond(s, depth-1)}
	case x < 0.94 && depth > 0:
		return &unary{op: "NOT", x: g.cond(s, depth-1)}
	case g.d == engine.SQLite:
		return &binary{op: "=", l: col, r: strLit(g.nameString(s), true)}
	}
	return &binary{op: "=", l: col, r: g.literal(c)}
}

// computed compares a function or arithmetic of col with a literal:
// typeof(col) = 'real', length(col) = 3, col * 3 = 122883, col || ” = '5'.
func (g *gen) computed(col *colRef, c class) expr {
	if g.strict() {
		f, fc := g.function(col, c)
		return &binary{op: "=", l: f, r: g.literal(fc)}
	}
	switch g.r.IntN(5) {
	case 0, 4:
		typ := oneOf(g.r, typeLits...)
		if chance(g.r, 0.7) {
			typ = naturalType(g.r, col)
		}
		return &binary{op: oneOf(g.r, "=", "<>"), l: &call{name: "typeof", args: []expr{col}}, r: strLit(typ, false)}
	case 1:
		return &binary{op: "=", l: &call{name: "length", args: []expr{col}}, r: numLit(intVal(int64(g.r.IntN(4))))}
	case 2:
		k := int64(2 + g.r.IntN(2))
		return &binary{op: "=", l: &binary{op: "*", l: col, r: numLit(intVal(k))}, r: numLit(intVal(k * 40961))}
	}
	return &binary{op: "=", l: &binary{op: "||", l: col, r: strLit("", false)}, r: strLit(oneOf(g.r, "5", "5", "05", "5.0", "5.0", "a"), false)}
}

// naturalType is the storage class a column's values mostly have:
// what typeof says of them.
func naturalType(r *rand.Rand, col *colRef) string {
	t, i, ok := baseColumn(col)
	if !ok {
		return oneOf(r, typeLits...)
	}
	switch t.cols[i].affinity() {
	case affInteger, affNumeric:
		return "integer"
	case affReal:
		return "real"
	case affText:
		return "text"
	}
	return oneOf(r, "integer", "text")
}

// inList draws col IN (literals), a literal IN (columns) or col IN (col).
func (g *gen) inList(s *sel, col *colRef, c class) expr {
	switch g.r.IntN(3) {
	case 0:
		var list []expr
		for range 1 + g.r.IntN(3) {
			list = append(list, g.literal(c))
		}
		return &inList{x: col, list: list, not: chance(g.r, 0.2)}
	case 1:
		l := g.literal(g.loose(c))
		if c == cNum && chance(g.r, 0.5) && g.d == engine.SQLite {
			l = strLit(strconv.Itoa(g.r.IntN(3)), false) // '1' IN (a)
		}
		list := []expr{col}
		if chance(g.r, 0.3) {
			list = append(list, g.columnOr(s, g.loose(c), false))
		}
		return &inList{x: l, list: list}
	}
	return &inList{x: col, list: []expr{g.columnOr(s, g.loose(c), s.outer != nil)}}
}

// inSubquery draws col IN (SELECT y FROM t [WHERE …]) or a literal IN
// (SELECT …), correlated at times, with DISTINCT or ORDER BY … LIMIT at
// times.
func (g *gen) inSubquery(s *sel, col *colRef, depth int) expr {
	sub := newSel()
	sub.outer = s
	g.fillFrom(sub, pick(g.r, []weighted[int]{{1, 6}, {2, 1}}), false)
	g.joinConditions(sub)
	// The subquery's column is often of another kind than col: IN then
	// compares across affinities.
	want := cAny
	switch {
	case g.strict():
		want = classOf(col)
	case chance(g.r, 0.5):
		want = map[class]class{cNum: cText, cText: cNum, cAny: cNum}[classOf(col)]
	}
	out := g.column(sub, want, false)
	if out == nil {
		out = g.column(sub, cAny, false)
	}
	sub.items = []*item{{x: out}}
	sub.distinct = chance(g.r, 0.2)
	if g.focus == nil {
		g.focus = map[*sel]*colRef{}
	}
	g.focus[sub] = out
	if chance(g.r, 0.6) {
		sub.where = g.correlation(sub, depth)
	}
	switch {
	case chance(g.r, 0.35):
		sub.where = andExpr(sub.where, g.equality(sub, out))
	case chance(g.r, 0.3):
		sub.where = andExpr(sub.where, g.cond(sub, 0))
	}
	if chance(g.r, 0.07) {
		sub.orderBy = []*orderTerm{{x: g.column(sub, cAny, false), desc: chance(g.r, 0.5)}}
		sub.limit = 1 + g.r.IntN(2)
	}
	var x expr = col
	if chance(g.r, 0.25) {
		x = g.literal(classOf(col))
	}
	in := &inSub{x: x, sub: sub, not: chance(g.r, 0.25)}
	if x == col && chance(g.r, 0.3) {
		// col = v AND col IN (SELECT …): eq_propagate then puts v, or a
		// column of another affinity, on the IN's left, which compares
		// under another affinity (issue 37 R7).
		return andExpr(&binary{op: "=", l: clone(col), r: g.equalTo(s, col)}, in)
	}
	return in
}

// equalTo draws what a conjunct col = … sets col to: a literal of its
// class, or at times a column of s of another affinity.
func (g *gen) equalTo(s *sel, col *colRef) expr {
	if chance(g.r, 0.4) {
		if o := g.column(s, g.loose(classOf(col)), false); o != nil && affinityOfRef(o) != affinityOfRef(col) {
			return o
		}
	}
	return g.literal(classOf(col))
}

// order draws an ORDER BY (positions, bare aliases, aliases inside
// expressions, input expressions) and at times a LIMIT.
func (g *gen) order(s *sel) {
	outs := s.outputs()
	for range 1 + g.r.IntN(2) {
		var x expr
		aliased := slices.IndexFunc(s.items, func(it *item) bool { return it.alias != "" })
		switch v := g.r.Float64(); {
		case v < 0.18:
			x = &posRef{n: 1 + g.r.IntN(len(outs))}
		case v < 0.34 && aliased >= 0:
			x = &aliasRef{it: s.items[aliased], quote: chance(g.r, 0.1)}
		case v < 0.62 && aliased >= 0:
			a := &aliasRef{it: s.items[aliased]}
			x = oneOf[expr](g.r,
				&binary{op: "=", l: &binary{op: "*", l: a, r: numLit(intVal(3))}, r: numLit(intVal(122883))},
				&binary{op: "+", l: a, r: numLit(intVal(1))},
				&unary{op: "-", x: a})
		case len(s.groupBy) > 0:
			x = clone(s.groupBy[g.r.IntN(len(s.groupBy))])
		case v < 0.7 && g.d == engine.SQLite:
			x = &collate{x: g.column(s, cAny, false), name: oneOf(g.r, "NOCASE", "RTRIM")}
		default:
			x = g.value(s, cAny, 0)
		}
		s.orderBy = append(s.orderBy, &orderTerm{x: x, desc: chance(g.r, 0.4)})
	}
	if chance(g.r, 0.45) {
		s.limit = g.r.IntN(4)
		if chance(g.r, 0.2) {
			s.offset = g.r.IntN(2)
		}
	}
}
