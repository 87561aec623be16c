package fuzz

import (
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/sqljudge/sqljudge/internal/engine"
)

// A rewrite turns a copy of the first query into the second. Three
// families: renamings (what the kernel's rename step and canonical form
// claim change nothing: aliases, qualification, quoting, an output alias
// for the expression it names, a double-quoted string), the kernel's
// rules done by hand (equalities propagated, IN as = and back, literals
// respelled, COUNT(x) as COUNT(*), DISTINCT and GROUP BY terms dropped
// or added, FROM subqueries, IN as EXISTS or as a join, a foreign-key
// join added), which keep equivalence under the kernel's model of the
// engine but not always under the engine (the root causes are
// such rewrites), and breaking ones (an operator, a literal, a
// conjunct, NOT, an aggregate, a join's kind, LIMIT, an ORDER BY's
// direction), which a sound kernel never proves unless they happen to
// keep the result.

// family of rewrites.
type family uint8

const (
	famRename family = iota
	famRule
	famBreak
)

// rewrite is one way to change a query: it applies in place and
// reports whether it found a place to apply.
type rewrite struct {
	name string
	fam  family
	// weight is how often it is drawn on SQLite, pgWeight on PostgreSQL
	// (where the rewrites that find SQLite's affinities and quoting have
	// nothing to find, and propagating an equality finds CHAR(n)).
	weight, pgWeight int
	apply            func(m *mutator, q *sel) bool
}

// mutator applies rewrites with the generator's random stream; a
// rewrite may say more of what it did in detail (appended to its name
// in the pair's list: "eq_propagate:real~numeric:fn").
type mutator struct {
	g      *gen
	detail string
	twin   *twin
}

// rewrites is every rewrite the fuzzer knows.
var rewrites = []rewrite{
	{"rename_alias", famRename, 1, 1, (*mutator).renameAlias},
	{"toggle_qual", famRename, 1, 1, (*mutator).toggleQual},
	{"toggle_quote", famRename, 1, 1, (*mutator).toggleQuote},
	{"alias_subst", famRename, 4, 2, (*mutator).aliasSubst},
	{"quote_string", famRename, 4, 0, (*mutator).quoteString},
	{"commute", famRename, 1, 1, (*mutator).commute},
	{"add_true", famRename, 2, 2, (*mutator).addTrue},
	{"eq_propagate", famRule, 10, 24, (*mutator).eqPropagate},
	{"in_eq", famRule, 4, 2, (*mutator).inEq},
	{"literal_form", famRule, 2, 1, (*mutator).literalForm},
	{"count_star", famRule, 3, 3, (*mutator).countStar},
	{"distinct_toggle", famRule, 3, 3, (*mutator).distinctToggle},
	{"group_term", famRule, 3, 3, (*mutator).groupTerm},
	{"derive", famRule, 3, 3, (*mutator).derive},
	{"lift", famRule, 10, 4, (*mutator).lift},
	{"having_move", famRule, 6, 4, (*mutator).havingMove},
	{"with_cte", famRule, 3, 3, (*mutator).withCTE},
	{"left_add", famRule, 3, 3, (*mutator).leftAdd},
	{"left_inner", famRule, 2, 2, (*mutator).leftInner},
	{"in_to_exists", famRule, 2, 2, (*mutator).inToExists},
	{"in_to_join", famRule, 2, 2, (*mutator).inToJoin},
	{"join_add", famRule, 2, 2, (*mutator).joinAdd},
	{"join_fk", famRule, 8, 4, (*mutator).joinFK},
	{"in_not_null", famRule, 3, 3, (*mutator).inNotNull},
	{"right_swap", famRule, 4, 3, (*mutator).rightSwap},
	{"full_outer", famRule, 3, 4, (*mutator).fullOuter},
	{"case_wrap", famRule, 6, 3, (*mutator).caseWrap},
	{"fail_wrap", famRule, 2, 2, (*mutator).failWrap},
	{"static_fail", famRule, 1, 1, (*mutator).staticFail},
	{"arith_shift", famRule, 6, 0, (*mutator).arithShift},
	{"group_semi", famRule, 3, 2, (*mutator).groupSemi},
	{"agg_not_null", famRule, 3, 2, (*mutator).aggNotNull},
	{"group_distinct", famRule, 3, 1, (*mutator).groupDistinct},
	{"derived_distinct", famRule, 3, 1, (*mutator).derivedDistinct},
	{"derived_group", famRule, 3, 1, (*mutator).derivedGroup},
	{"semi_distinct", famRule, 3, 1, (*mutator).semiDistinct},
	{"agg_merge", famRule, 3, 1, (*mutator).aggMerge},
	{"using_join", famRename, 5, 0, (*mutator).usingJoin},
	{"union_derive", famRule, 3, 0, (*mutator).unionDerive},
	{"group_derive", famRule, 2, 2, (*mutator).groupDerive},
	{"left_group", famRule, 3, 2, (*mutator).leftGroup},
	{"left_copies", famRule, 3, 2, (*mutator).leftCopies},
	{"left_on", famRule, 3, 2, (*mutator).leftOn},
	{"group_order", famRename, 0, 0, (*mutator).groupOrder},
	{"op_change", famBreak, 1, 1, (*mutator).opChange},
	{"lit_shift", famBreak, 1, 1, (*mutator).litShift},
	{"drop_conjunct", famBreak, 1, 1, (*mutator).dropConjunct},
	{"not_toggle", famBreak, 1, 1, (*mutator).notToggle},
	{"agg_swap", famBreak, 1, 1, (*mutator).aggSwap},
	{"join_kind", famBreak, 1, 1, (*mutator).joinKind},
	{"right_kind", famBreak, 1, 1, (*mutator).rightKind},
	{"limit_change", famBreak, 1, 1, (*mutator).limitChange},
	{"col_swap", famBreak, 1, 1, (*mutator).colSwap},
}

// sitesOf lists the sites of q that keep holds for.
func sitesOf(q *sel, keep func(site) bool) []site {
	var out []site
	walk(q, func(st site) {
		if keep(st) {
			out = append(out, st)
		}
	})
	return out
}

func pickSite(m *mutator, ss []site) (site, bool) {
	if len(ss) == 0 {
		return site{}, false
	}
	return ss[m.g.r.IntN(len(ss))], true
}

// isCmp reports whether op is a comparison operator.
func isCmp(op string) bool {
	switch op {
	case "=", "<>", "<", "<=", ">", ">=":
		return true
	}
	return false
}

// ---- renamings ----

// tableItem is a base table of a FROM clause and its SELECT.
type tableItem struct {
	s *sel
	f *fromItem
}

// pickTable draws a base table of any FROM clause of q.
func (m *mutator) pickTable(q *sel) (tableItem, bool) {
	var cs []tableItem
	for _, s := range sels(q) {
		for _, f := range s.from {
			if f.table != nil {
				cs = append(cs, tableItem{s, f})
			}
		}
	}
	if len(cs) == 0 {
		return tableItem{}, false
	}
	return cs[m.g.r.IntN(len(cs))], true
}

// renameAlias gives a table of a FROM clause another alias, or drops
// its alias when its table's name is free.
func (m *mutator) renameAlias(q *sel) bool {
	c, ok := m.pickTable(q)
	if !ok {
		return false
	}
	old := c.f.alias
	c.f.alias = ""
	if old == "" || chance(m.g.r, 0.6) || m.g.refTaken(c.s, c.f.table.name) {
		c.f.alias = m.g.fromAlias(c.s)
	}
	return true
}

// toggleQual qualifies a column reference, or drops its qualifier when
// the name then reads the same column (the nearest FROM clause that has
// a column of that name has one, this one).
func (m *mutator) toggleQual(q *sel) bool {
	st, ok := pickSite(m, sitesOf(q, func(st site) bool { _, ok := (*st.slot).(*colRef); return ok }))
	if !ok {
		return false
	}
	c := (*st.slot).(*colRef)
	if !c.qual {
		c.qual = true
		return true
	}
	name := c.f.colName(c.col)
	for s := st.s; s != nil; s = s.outer {
		var has []*fromItem
		for _, f := range s.from {
			for i := range f.ncols() {
				if strings.EqualFold(f.colName(i), name) {
					has = append(has, f)
				}
			}
		}
		if len(has) > 0 {
			if len(has) == 1 && has[0] == c.f {
				c.qual = false
				return true
			}
			return false
		}
	}
	return false
}

// toggleQuote quotes or unquotes a column name or an output alias.
func (m *mutator) toggleQuote(q *sel) bool {
	var flags []*bool
	for _, s := range sels(q) {
		for _, it := range s.items {
			if it.alias != "" {
				flags = append(flags, &it.aliasQuote)
			}
		}
	}
	walk(q, func(st site) {
		switch t := (*st.slot).(type) {
		case *colRef:
			flags = append(flags, &t.quote)
		case *aliasRef:
			flags = append(flags, &t.quote)
		}
	})
	if len(flags) == 0 {
		return false
	}
	f := flags[m.g.r.IntN(len(flags))]
	*f = !*f
	return true
}

// aliasSubst replaces an output alias (or position) in ORDER BY, GROUP
// BY, HAVING or WHERE with the expression it names, or an expression
// equal to an aliased output with the alias (or its position).
func (m *mutator) aliasSubst(q *sel) bool {
	named := sitesOf(q, func(st site) bool {
		switch (*st.slot).(type) {
		case *aliasRef, *posRef:
			return true
		}
		return false
	})
	if len(named) > 0 && chance(m.g.r, 0.6) {
		st := named[m.g.r.IntN(len(named))]
		switch t := (*st.slot).(type) {
		case *aliasRef:
			*st.slot = clone(t.it.x)
		case *posRef:
			outs := st.s.outputs()
			o := outs[t.n-1]
			if o.it == nil {
				*st.slot = &colRef{f: o.f, col: o.col, qual: true}
			} else {
				*st.slot = clone(o.it.x)
			}
		}
		return true
	}
	sts := sitesOf(q, func(st site) bool {
		if st.cl != inOrderBy && st.cl != inGroupBy && st.cl != inHaving && st.cl != inWhere {
			return false
		}
		for _, it := range st.s.items {
			if !it.star && sqlOfExpr(it.x) == sqlOfExpr(*st.slot) {
				return true
			}
		}
		return false
	})
	st, ok := pickSite(m, sts)
	if !ok {
		return false
	}
	for i, it := range st.s.items {
		if it.star || sqlOfExpr(it.x) != sqlOfExpr(*st.slot) {
			continue
		}
		switch {
		case st.term && (st.cl == inOrderBy || st.cl == inGroupBy) && !hasStar(st.s) && chance(m.g.r, 0.4):
			*st.slot = &posRef{n: i + 1}
		case it.alias != "":
			*st.slot = &aliasRef{it: it}
		default:
			it.alias = "z" + strconv.Itoa(i+1)
			*st.slot = &aliasRef{it: it}
		}
		return true
	}
	return false
}

func hasStar(s *sel) bool {
	for _, it := range s.items {
		if it.star {
			return true
		}
	}
	return false
}

// sqlOfExpr prints an expression.
func sqlOfExpr(e expr) string {
	var b strings.Builder
	printExpr(&b, e)
	return b.String()
}

// quoteString spells a string literal with double quotes, or a
// double-quoted one with single quotes (SQLite reads "z" as 'z' when it
// names no column).
func (m *mutator) quoteString(q *sel) bool {
	if m.g.d != engine.SQLite {
		return false
	}
	text := sitesOf(q, func(st site) bool {
		l, ok := (*st.slot).(*lit)
		return ok && l.v.k == kText && !strings.ContainsAny(l.v.s, `'"`)
	})
	// A word a name could mean (an alias, a rowid's name, a column) most
	// of the time: the quotes matter there.
	names := map[string]bool{"rowid": true, "oid": true, "_rowid_": true}
	for _, s := range sels(q) {
		for _, it := range s.items {
			names[strings.ToLower(it.alias)] = true
		}
		for _, f := range s.from {
			for i := range f.ncols() {
				names[strings.ToLower(f.colName(i))] = true
			}
		}
	}
	var named []site
	for _, st := range text {
		if names[strings.ToLower((*st.slot).(*lit).v.s)] {
			named = append(named, st)
		}
	}
	if len(named) > 0 && chance(m.g.r, 0.8) {
		text = named
	}
	st, ok := pickSite(m, text)
	if !ok {
		return false
	}
	l := (*st.slot).(*lit)
	*st.slot = strLit(l.v.s, strings.HasPrefix(l.text, "'"))
	return true
}

// flipped is the comparison operator that reads its operands swapped.
var flipped = map[string]string{"=": "=", "<>": "<>", "<": ">", "<=": ">=", ">": "<", ">=": "<="}

// commute swaps the operands of a comparison, two conjuncts of a WHERE,
// or the first two tables of a FROM of commas.
func (m *mutator) commute(q *sel) bool {
	switch m.g.r.IntN(3) {
	case 0:
		st, ok := pickSite(m, sitesOf(q, func(st site) bool { b, ok := (*st.slot).(*binary); return ok && isCmp(b.op) }))
		if !ok {
			return false
		}
		b := (*st.slot).(*binary)
		b.l, b.r, b.op = b.r, b.l, flipped[b.op]
		return true
	case 1:
		var cands [][]*expr
		for _, s := range sels(q) {
			if cs := conjuncts(&s.where); len(cs) >= 2 {
				cands = append(cands, cs)
			}
		}
		if len(cands) == 0 {
			return false
		}
		cs := cands[m.g.r.IntN(len(cands))]
		i, j := m.g.r.IntN(len(cs)), m.g.r.IntN(len(cs))
		if i == j {
			return false
		}
		*cs[i], *cs[j] = *cs[j], *cs[i]
		return true
	}
	var cands []*sel
	for _, s := range sels(q) {
		if len(s.from) >= 2 && s.from[1].join == "," {
			cands = append(cands, s)
		}
	}
	if len(cands) == 0 {
		return false
	}
	s := cands[m.g.r.IntN(len(cands))]
	s.from[0], s.from[1] = s.from[1], s.from[0]
	s.from[0].join, s.from[1].join = "", ","
	return true
}

// addTrue adds the conjunct 1 = 1 to a WHERE, or half the time the
// keyword TRUE (SQLite's 1; PostgreSQL's boolean literal, which the
// kernel reads only as a condition), or (FALSE OR 1 = 1).
func (m *mutator) addTrue(q *sel) bool {
	ss := sels(q)
	s := ss[m.g.r.IntN(len(ss))]
	if len(s.from) == 0 {
		return false
	}
	var c expr = trueConjunct()
	switch r := m.g.r.Float64(); {
	case r < 0.3:
		c, m.detail = &lit{v: intVal(1), text: "TRUE"}, "keyword"
	case r < 0.5:
		c, m.detail = &binary{op: "OR", l: &lit{v: intVal(0), text: "FALSE"}, r: c}, "false_or"
	}
	s.where = andExpr(s.where, c)
	return true
}

// ---- the kernel's rules, by hand ----

// eqPropagate uses a conjunct a = b of a WHERE or an inner join's ON to
// replace a by b elsewhere in the same SELECT (outputs, conditions,
// GROUP BY, ORDER BY, subqueries, function arguments, IN's left side).
// It prefers an equality between columns of different affinities, and a
// place inside a function, an IN or a subquery: where an engine reads
// the two apart.
func (m *mutator) eqPropagate(q *sel) bool {
	type cand struct {
		s        *sel
		eq       *binary
		from, to expr
	}
	var cs []weighted[cand]
	for _, s := range sels(q) {
		slots := conjuncts(&s.where)
		for _, f := range s.from {
			if f.join == "JOIN" || f.join == "" {
				slots = append(slots, conjuncts(&f.on)...)
			}
		}
		for _, sl := range slots {
			b, ok := (*sl).(*binary)
			if !ok || b.op != "=" {
				continue
			}
			for _, p := range [][2]expr{{b.l, b.r}, {b.r, b.l}} {
				l, colL := p[0].(*colRef)
				r, colR := p[1].(*colRef)
				_, litR := p[1].(*lit)
				w := 1
				if colL && colR && affinityOfRef(l) != affinityOfRef(r) {
					w = 3
				}
				if colL && isChar(l) && (litR || colR && !isChar(r)) {
					w = 4 // CHAR(n) = ignores the padding its values keep (R16)
				}
				if colL && (colR || litR) {
					cs = append(cs, weighted[cand]{cand{s, b, p[0], p[1]}, w})
				}
			}
		}
	}
	if len(cs) == 0 {
		return false
	}
	c := pick(m.g.r, cs)
	from := c.from.(*colRef)
	kind := "lit"
	if r, ok := c.to.(*colRef); ok {
		kind = strings.ToLower(affinityOfRef(from).String() + "~" + affinityOfRef(r).String())
	}
	if isChar(from) {
		kind = "char~" + kind
	}
	var targets []weighted[site]
	walk(c.s, func(st site) {
		r, ok := (*st.slot).(*colRef)
		if !ok || r.f != from.f || r.col != from.col || st.slot == &c.eq.l || st.slot == &c.eq.r {
			return
		}
		w := 1
		if !st.term || st.s != c.s || st.cl == inItems {
			w = 3 // an output, inside an expression, or a subquery
		}
		targets = append(targets, weighted[site]{st, w})
	})
	if len(targets) == 0 {
		return false
	}
	all := chance(m.g.r, 0.25)
	chosen := pick(m.g.r, targets)
	m.detail = kind + ":" + placeOf(chosen, c.s)
	for _, t := range targets {
		if all || t.v.slot == chosen.slot {
			to := clone(c.to)
			if r, ok := to.(*colRef); ok {
				r.qual = true
			}
			*t.v.slot = to
		}
	}
	return true
}

// placeOf names where a site sits: "sub" (in a subquery of s), "in"
// (an IN's left side), "fn" (inside an expression), "term" (a whole
// output, conjunct or key).
func placeOf(st site, s *sel) string {
	switch {
	case st.s != s:
		return "sub"
	case st.term:
		return "term"
	}
	in := false
	walk(s, func(x site) {
		if t, ok := (*x.slot).(*inSub); ok && &t.x == st.slot {
			in = true
		}
		if t, ok := (*x.slot).(*inList); ok && &t.x == st.slot {
			in = true
		}
	})
	if in {
		return "in"
	}
	return "fn"
}

// affinityOfRef is the affinity of the column r reads (BLOB when it is
// no plain column).
func affinityOfRef(r *colRef) affinity {
	if t, i, ok := baseColumn(r); ok {
		return t.cols[i].affinity()
	}
	return affBlob
}

// isChar reports whether r reads a CHAR(n) column (PostgreSQL's
// bpchar: = ignores trailing blanks, the value keeps them).
func isChar(r *colRef) bool {
	t, i, ok := baseColumn(r)
	return ok && strings.HasPrefix(strings.ToLower(t.cols[i].typ), "char(")
}

// inEq writes x = y as x IN (y) or y IN (x), x IN (y) as x = y, and x IN
// (a, b) as x = a OR x = b.
func (m *mutator) inEq(q *sel) bool {
	st, ok := pickSite(m, sitesOf(q, func(st site) bool {
		switch t := (*st.slot).(type) {
		case *binary:
			return t.op == "="
		case *inList:
			return !t.not
		}
		return false
	}))
	if !ok {
		return false
	}
	switch t := (*st.slot).(type) {
	case *binary:
		if chance(m.g.r, 0.5) {
			*st.slot = &inList{x: t.l, list: []expr{t.r}}
		} else {
			*st.slot = &inList{x: t.r, list: []expr{t.l}}
		}
	case *inList:
		if len(t.list) == 1 {
			l, r := t.x, t.list[0]
			if chance(m.g.r, 0.5) {
				l, r = r, l
			}
			*st.slot = &binary{op: "=", l: l, r: r}
			return true
		}
		var or expr
		for _, y := range t.list {
			eq := &binary{op: "=", l: clone(t.x), r: y}
			if or == nil {
				or = eq
			} else {
				or = &binary{op: "OR", l: or, r: eq}
			}
		}
		*st.slot = or
	}
	return true
}

// literalForm respells a number compared with something as a string, a
// real or with a leading zero ('5', 5.0, '05'), or an integer-looking
// string as a number.
func (m *mutator) literalForm(q *sel) bool {
	st, ok := pickSite(m, sitesOf(q, func(st site) bool {
		l, ok := (*st.slot).(*lit)
		if !ok {
			return false
		}
		if l.v.k == kText {
			_, err := strconv.ParseInt(l.v.s, 10, 64)
			return err == nil
		}
		return l.v.k == kInt || l.v.k == kReal
	}))
	if !ok {
		return false
	}
	l := (*st.slot).(*lit)
	var alts []value
	for _, v := range l.v.spellings()[1:] {
		if v.k != kReal || !math.IsInf(v.f, 0) {
			alts = append(alts, v)
		}
	}
	if len(alts) == 0 {
		return false
	}
	v := alts[m.g.r.IntN(len(alts))]
	*st.slot = &lit{v: v, text: v.literal(m.g.d)}
	return true
}

// countStar writes COUNT(x) as COUNT(*), or COUNT(*) as COUNT of a
// column (of its own FROM, or an outer query's).
func (m *mutator) countStar(q *sel) bool {
	st, ok := pickSite(m, sitesOf(q, func(st site) bool {
		c, ok := (*st.slot).(*call)
		return ok && c.name == "count" && !c.distinct
	}))
	if !ok {
		return false
	}
	c := (*st.slot).(*call)
	if !c.star {
		c.star, c.args = true, nil
		return true
	}
	col := m.g.column(st.s, cAny, st.s.outer != nil && chance(m.g.r, 0.3))
	if col == nil {
		return false
	}
	col.qual = true
	c.star, c.args = false, []expr{col}
	return true
}

// distinctToggle adds or drops DISTINCT on the query or a subquery.
func (m *mutator) distinctToggle(q *sel) bool {
	ss := sels(q)
	s := ss[m.g.r.IntN(len(ss))]
	if len(s.from) == 0 {
		return false
	}
	s.distinct = !s.distinct
	return true
}

// groupTerm drops a GROUP BY term (of two or more) or adds one: another
// column of a grouped table, a grouped column under a collation, or a
// correlated subquery of the row.
func (m *mutator) groupTerm(q *sel) bool {
	var gs []*sel
	for _, s := range sels(q) {
		if len(s.groupBy) > 0 {
			gs = append(gs, s)
		}
	}
	if len(gs) == 0 {
		return false
	}
	s := gs[m.g.r.IntN(len(gs))]
	if len(s.groupBy) >= 2 && chance(m.g.r, 0.4) {
		i := m.g.r.IntN(len(s.groupBy))
		s.groupBy = append(s.groupBy[:i:i], s.groupBy[i+1:]...)
		return true
	}
	var cols []*colRef
	for _, g := range s.groupBy {
		if c, ok := g.(*colRef); ok {
			cols = append(cols, c)
		}
	}
	any := m.g.column(s, cAny, false)
	if any == nil {
		return false
	}
	var term expr
	switch x := m.g.r.Float64(); {
	case x < 0.35 && len(cols) > 0:
		c := cols[m.g.r.IntN(len(cols))]
		term = &colRef{f: c.f, col: m.g.r.IntN(c.f.ncols()), qual: true}
	case x < 0.5 && len(cols) > 0 && m.g.d == engine.SQLite:
		term = &collate{x: clone(cols[m.g.r.IntN(len(cols))]), name: oneOf(m.g.r, "NOCASE", "RTRIM")}
	case x < 0.8:
		term = &scalar{sub: m.g.correlatedCount(s, any)}
	default:
		term = any
	}
	s.groupBy = append(s.groupBy, term)
	return true
}

// derive puts a table of a FROM (an inner join's, either side of a LEFT
// JOIN's) into a FROM subquery of the same name, SELECT * or its columns
// one by one (at times one NOT NULL column under coalesce), with at times
// an ORDER BY, and at times one of the WHERE conjuncts that read only
// that table (which on the right side of a LEFT JOIN changes the result
// unless it is TRUE on NULL: a trap).
func (m *mutator) derive(q *sel) bool {
	c, ok := m.pickTable(q)
	if !ok {
		return false
	}
	inner := &fromItem{table: c.f.table}
	sub := newSel()
	sub.from = []*fromItem{inner}
	sub.items = []*item{{star: true}}
	if chance(m.g.r, 0.5) {
		// Sorted at times by a column the query sums (the order of the
		// addition shows in floating point).
		col := m.g.r.IntN(len(inner.table.cols))
		walk(c.s, func(st site) {
			if r, ok := (*st.slot).(*colRef); ok && r.f == c.f && st.inAgg && chance(m.g.r, 0.7) {
				col = r.col
			}
		})
		sub.orderBy = []*orderTerm{{x: &colRef{f: inner, col: col}, desc: chance(m.g.r, 0.5)}}
	}
	if chance(m.g.r, 0.5) {
		sub.where = moveConjunct(c.s, c.f, inner)
	}
	if chance(m.g.r, 0.35) {
		// Its columns one by one, at times a NOT NULL one as coalesce(c,
		// literal): the same on every row of the table, not on the row of
		// NULLs a LEFT JOIN adds for a subquery on its right side (a trap
		// for derived_merge, which merges such a subquery when what the
		// query reads of it is NULL there).
		m.detail = "cols"
		var notNull []int
		for i, col := range inner.table.cols {
			if col.notNull {
				notNull = append(notNull, i)
			}
		}
		trap := -1
		if len(notNull) > 0 && chance(m.g.r, 0.6) {
			trap = notNull[m.g.r.IntN(len(notNull))]
			m.detail = "cols,coalesce"
		}
		sub.items = columnItems(inner)
		if trap >= 0 {
			sub.items[trap].x = &call{name: "coalesce", args: []expr{sub.items[trap].x, m.g.literal(classOf(&colRef{f: inner, col: trap}))}}
		}
	}
	readSub(c.f, sub)
	return true
}

// columnItems lists the columns of inner's table as outputs, each named
// as its column.
func columnItems(inner *fromItem) []*item {
	var out []*item
	for i, col := range inner.table.cols {
		out = append(out, &item{x: &colRef{f: inner, col: i}, alias: col.name})
	}
	return out
}

// readSub makes the table item f read the subquery sub, under the
// table's name when f has no alias (the query's names stay).
func readSub(f *fromItem, sub *sel) {
	if f.alias == "" {
		f.alias = f.table.name
	}
	f.table, f.sub = nil, sub
}

// lift moves an expression that reads columns of one table of its
// SELECT's FROM only (no subquery) into a FROM subquery over that table,
// (SELECT its columns, e AS lx FROM t) AS t, and reads it there as t.lx;
// a bare NOT NULL column at times as coalesce(c, literal), its value on
// every row of the table. The same query where t's rows are the table's;
// on the right side of a LEFT JOIN (drawn first, most of the time), the
// row of NULLs the join adds gives t.lx NULL where e may not be (typeof,
// coalesce, IS NULL): a trap for derived_merge's reading of the outputs
// it merges there. Not where the SELECT has a * that would show lx.
func (m *mutator) lift(q *sel) bool {
	type cand struct {
		st site
		f  *fromItem
	}
	var cs, left []cand
	walk(q, func(st site) {
		for _, f := range st.s.from {
			if f.table == nil || f.cte != "" || !readsOnly(*st.slot, f) {
				continue
			}
			if slices.ContainsFunc(st.s.items, func(it *item) bool { return it.star && (it.starOf == nil || it.starOf == f) }) {
				continue
			}
			cs = append(cs, cand{st, f})
			if f.join == "LEFT JOIN" {
				left = append(left, cand{st, f})
			}
		}
	})
	if len(cs) == 0 {
		return false
	}
	if len(left) > 0 && chance(m.g.r, 0.8) {
		cs = left
	}
	c := cs[m.g.r.IntN(len(cs))]
	inner := &fromItem{table: c.f.table}
	e := clone(*c.st.slot)
	repoint(e, c.f, inner)
	m.detail = c.f.join
	if m.detail == "" {
		m.detail = "first"
	}
	if r, bare := e.(*colRef); bare && inner.table.cols[r.col].notNull && chance(m.g.r, 0.5) {
		e = &call{name: "coalesce", args: []expr{e, m.g.literal(classOf(r))}}
		m.detail += ",coalesce"
	}
	sub := newSel()
	sub.from = []*fromItem{inner}
	sub.items = append(columnItems(inner), &item{x: e, alias: "lx"})
	*c.st.slot = &colRef{f: c.f, col: len(inner.table.cols), qual: true}
	readSub(c.f, sub)
	return true
}

// havingMove moves a WHERE conjunct of a grouped SELECT that reads only
// columns it groups by (no subquery) to its HAVING, as having_to_where
// moves it back: the same groups where equal values of those columns
// are the same value; a trap where a group holds values the engine takes
// for equal while they differ (NOCASE, RTRIM, an untyped or REAL column
// with 5 and 5.0) and the conjunct tells them apart.
func (m *mutator) havingMove(q *sel) bool {
	type cand struct {
		s    *sel
		slot *expr
	}
	var cs []cand
	for _, s := range sels(q) {
		if len(s.groupBy) == 0 || s.where == nil {
			continue
		}
		for _, sl := range conjuncts(&s.where) {
			if readsGrouped(*sl, s) {
				cs = append(cs, cand{s, sl})
			}
		}
	}
	if len(cs) == 0 || chance(m.g.r, 0.3) {
		return m.havingAdd(q)
	}
	c := cs[m.g.r.IntN(len(cs))]
	moved := *c.slot
	*c.slot = trueConjunct()
	c.s.having = andExpr(c.s.having, moved)
	return true
}

// havingAdd is havingMove where no WHERE conjunct reads only grouped
// columns (and at times where one does): a comparison of a grouped column with a literal goes to the
// HAVING of the second query and to the WHERE of the first (the pair's
// twin SELECT), so that the pair differs only in where it sits.
func (m *mutator) havingAdd(q *sel) bool {
	type cand struct {
		s *sel
		g *colRef
	}
	var cs []cand
	for _, s := range sels(q) {
		for _, g := range s.groupBy {
			// The twin's FROM item must still read the same table (an
			// earlier lift or derive may have put a subquery in its place).
			if r, ok := g.(*colRef); ok && m.twin != nil && m.twin.sels[s] != nil && r.f.table != nil && m.twin.froms[r.f] != nil && m.twin.froms[r.f].table == r.f.table {
				cs = append(cs, cand{s, r})
			}
		}
	}
	if len(cs) == 0 {
		return false
	}
	c := cs[m.g.r.IntN(len(cs))]
	op, l := pick(m.g.r, cmpOps), m.g.literal(classOf(c.g))
	c.s.having = andExpr(c.s.having, &binary{op: op, l: &colRef{f: c.g.f, col: c.g.col, qual: true}, r: l})
	s1 := m.twin.sels[c.s]
	s1.where = andExpr(s1.where, &binary{op: op, l: &colRef{f: m.twin.froms[c.g.f], col: c.g.col, qual: true}, r: l})
	m.detail = "added"
	return true
}

// readsGrouped reports whether e reads columns of s that s groups by
// (GROUP BY terms that are those columns), at least one, and nothing
// else of a FROM: no other column, alias, position or subquery.
func readsGrouped(e expr, s *sel) bool {
	ok, some := true, false
	slot := e
	walkExprTree(&slot, func(x expr) {
		switch t := x.(type) {
		case *colRef:
			some = true
			ok = ok && slices.ContainsFunc(s.groupBy, func(g expr) bool {
				r, is := g.(*colRef)
				return is && r.f == t.f && r.col == t.col
			})
		case *inSub, *exists, *scalar, *aliasRef, *posRef:
			ok = false
		}
	})
	return ok && some
}

// withCTE moves a table of a FROM into a common table expression, as
// derive moves it into a FROM subquery: SELECT * (or its columns) of the
// table, at times with one of the WHERE conjuncts that read only it; or
// every reference to the table, wherever it is, to one CTE read as many
// times. The CTE is named at times "cte" (two such rewrites of two
// tables print one body for both: a trap) or like another table of the
// schema, which it then shadows everywhere (that table's references
// read the CTE: a trap), and carries at times MATERIALIZED or NOT
// MATERIALIZED.
func (m *mutator) withCTE(q *sel) bool {
	c, ok := m.pickTable(q)
	if !ok {
		return false
	}
	t := c.f.table
	name := pick(m.g.r, []weighted[string]{{"w_" + t.name, 85}, {"cte", 5}, {m.otherTable(t), 10}})
	hint := pick(m.g.r, []weighted[string]{{"", 70}, {"MATERIALIZED", 15}, {"NOT MATERIALIZED", 15}})
	targets := []tableItem{c}
	if chance(m.g.r, 0.4) {
		targets = nil
		for _, s := range sels(q) {
			for _, f := range s.from {
				if f.table == t {
					targets = append(targets, tableItem{s: s, f: f})
				}
			}
		}
	}
	unread := false
	for k, x := range targets {
		inner := &fromItem{table: t}
		sub := newSel()
		sub.from = []*fromItem{inner}
		sub.items = []*item{{star: true}}
		if len(targets) == 1 && chance(m.g.r, 0.5) {
			sub.where = moveConjunct(x.s, x.f, inner)
		}
		if m.g.d == engine.SQLite && chance(m.g.r, 0.3) {
			// An output nothing reads that fails on -2^63 (abs:
			// "integer overflow"): SQLite computes every column of a
			// WITH it materializes, so the kernel must not drop it.
			for i := range t.cols {
				if r := (&colRef{f: inner, col: i, qual: true}); classOf(r) == cNum {
					sub.items = append(sub.items, &item{x: &call{name: "abs", args: []expr{r}}, alias: "sj_u"})
					unread = true
					break
				}
			}
		}
		if x.f.alias == "" && (k > 0 || chance(m.g.r, 0.5)) {
			x.f.alias = x.f.table.name
		}
		x.f.table, x.f.sub, x.f.cte, x.f.materialized = nil, sub, name, hint
	}
	m.detail = "once"
	if len(targets) > 1 {
		m.detail = "all"
	}
	if name != "w_"+t.name {
		m.detail += ",name=" + name
	}
	if unread {
		m.detail += ",unread"
	}
	return true
}

// leftAdd joins a table nothing reads by LEFT JOIN ... ON equalities of
// its columns to columns of the FROM (or literals): at times a full key
// (its primary key or a UNIQUE set: left_join_elim removes it again),
// at times part of one, a unique index (partial or over an expression:
// not a key) or any column, and at times with one more ON conjunct. The
// pair is swapped half the time, so the table is also removed.
func (m *mutator) leftAdd(q *sel) bool {
	ss := sels(q)
	s := ss[m.g.r.IntN(len(ss))]
	if len(s.from) == 0 || hasStar(s) {
		return false
	}
	t := m.g.s.tables[m.g.r.IntN(len(m.g.s.tables))]
	var cols []int
	keys := t.keys()
	switch x := m.g.r.Float64(); {
	case x < 0.6 && len(keys) > 0:
		cols = keys[m.g.r.IntN(len(keys))]
	case x < 0.7 && len(keys) > 0 && len(keys[0]) > 1:
		cols = keys[0][:1]
	case x < 0.8 && len(t.indexes) > 0 && t.indexes[0].expr == "":
		cols = t.indexes[0].cols
	default:
		cols = []int{m.g.r.IntN(len(t.cols))}
	}
	f := &fromItem{table: t, join: "LEFT JOIN", alias: m.g.fromAlias(s)}
	var on expr
	for _, i := range cols {
		mine := &colRef{f: f, col: i, qual: true}
		var other expr = m.g.literal(classOf(mine))
		if chance(m.g.r, 0.85) {
			prev := s.from[m.g.r.IntN(len(s.from))]
			other = &colRef{f: prev, col: m.g.r.IntN(prev.ncols()), qual: true}
		}
		on = andExpr(on, &binary{op: "=", l: mine, r: other})
	}
	if chance(m.g.r, 0.25) {
		c := &colRef{f: f, col: m.g.r.IntN(len(t.cols)), qual: true}
		on = andExpr(on, &binary{op: pick(m.g.r, cmpOps), l: c, r: m.g.literal(classOf(c))})
	}
	f.on = on
	s.from = append(s.from, f)
	return true
}

// leftInner turns a LEFT JOIN into JOIN where the WHERE has a conjunct
// on a column of its right side (rightSide draws them, rejecting the
// NULL row or not).
func (m *mutator) leftInner(q *sel) bool {
	var fs []*fromItem
	for _, s := range sels(q) {
		for _, f := range s.from {
			if f.join != "LEFT JOIN" {
				continue
			}
			for _, sl := range conjuncts(&s.where) {
				reads := false
				walkExprTree(sl, func(x expr) {
					if r, ok := x.(*colRef); ok && r.f == f {
						reads = true
					}
				})
				if reads {
					fs = append(fs, f)
					break
				}
			}
		}
	}
	if len(fs) == 0 {
		return false
	}
	fs[m.g.r.IntN(len(fs))].join = "JOIN"
	return true
}

// otherTable names a table of the schema other than t (t's own name
// when there is none).
func (m *mutator) otherTable(t *table) string {
	for _, u := range m.g.s.tables {
		if u != t {
			return u.name
		}
	}
	return t.name
}

// moveConjunct takes the first WHERE conjunct of s that reads only f
// (1 = 1 stays in its place) and returns it reading inner instead; nil
// when none does.
func moveConjunct(s *sel, f, inner *fromItem) expr {
	for _, sl := range conjuncts(&s.where) {
		if readsOnly(*sl, f) {
			moved := clone(*sl)
			repoint(moved, f, inner)
			*sl = trueConjunct()
			return moved
		}
	}
	return nil
}

// trueConjunct is 1 = 1, which a conjunct moved elsewhere leaves in
// its place.
func trueConjunct() expr {
	return &binary{op: "=", l: numLit(intVal(1)), r: numLit(intVal(1))}
}

// readsOnly reports whether e reads columns of f only (at least one) and
// holds no subquery.
func readsOnly(e expr, f *fromItem) bool {
	ok, some := true, false
	slot := e
	walkExprTree(&slot, func(x expr) {
		switch t := x.(type) {
		case *colRef:
			some = true
			ok = ok && t.f == f
		case *inSub, *exists, *scalar, *aliasRef, *posRef:
			ok = false
		}
	})
	return ok && some
}

// repoint makes the column references of e to from read to instead.
func repoint(e expr, from, to *fromItem) {
	slot := e
	walkExprTree(&slot, func(x expr) {
		if r, ok := x.(*colRef); ok && r.f == from {
			r.f = to
		}
	})
}

// walkExprTree calls fn for every node of *slot, those of its
// subqueries included.
func walkExprTree(slot *expr, fn func(expr)) {
	w := walker{fn: func(st site) { fn(*st.slot) }}
	s := &sel{}
	w.expr(site{slot: slot, s: s})
}

// inToExists writes x IN (SELECT y … WHERE p) as EXISTS (SELECT y …
// WHERE p AND y = x), or EXISTS (SELECT … WHERE p AND y = x), x an outer
// column, as x IN (SELECT y … WHERE p).
func (m *mutator) inToExists(q *sel) bool {
	if chance(m.g.r, 0.6) {
		st, ok := pickSite(m, sitesOf(q, func(st site) bool {
			in, ok := (*st.slot).(*inSub)
			return ok && len(in.sub.items) == 1 && !in.sub.items[0].star
		}))
		if !ok {
			return false
		}
		in := (*st.slot).(*inSub)
		x := clone(in.x)
		if r, ok := x.(*colRef); ok {
			r.qual = true
		}
		in.sub.where = andExpr(in.sub.where, &binary{op: "=", l: clone(in.sub.items[0].x), r: x})
		*st.slot = &exists{sub: in.sub, not: in.not}
		return true
	}
	st, ok := pickSite(m, sitesOf(q, func(st site) bool { _, ok := (*st.slot).(*exists); return ok }))
	if !ok {
		return false
	}
	ex := (*st.slot).(*exists)
	own := func(r *colRef) bool {
		for _, f := range ex.sub.from {
			if r.f == f {
				return true
			}
		}
		return false
	}
	for _, sl := range conjuncts(&ex.sub.where) {
		b, ok := (*sl).(*binary)
		if !ok || b.op != "=" {
			continue
		}
		y, ok1 := b.l.(*colRef)
		x, ok2 := b.r.(*colRef)
		if ok1 && ok2 && own(x) && !own(y) {
			x, y = y, x
		}
		if ok1 && ok2 && own(y) && !own(x) {
			*sl = trueConjunct()
			ex.sub.items = []*item{{x: y}}
			*st.slot = &inSub{x: x, sub: ex.sub, not: ex.not}
			return true
		}
	}
	return false
}

// inToJoin writes a WHERE conjunct x IN (SELECT y FROM t WHERE p) as a
// join: t joins the FROM, the conjunct becomes x = y AND p.
func (m *mutator) inToJoin(q *sel) bool {
	type cand struct {
		s  *sel
		sl *expr
	}
	var cs []cand
	for _, s := range sels(q) {
		if hasStar(s) {
			continue
		}
		for _, sl := range conjuncts(&s.where) {
			in, ok := (*sl).(*inSub)
			if ok && !in.not && len(in.sub.from) == 1 && in.sub.from[0].table != nil && len(in.sub.items) == 1 && !in.sub.items[0].star && len(in.sub.groupBy) == 0 && in.sub.limit < 0 {
				cs = append(cs, cand{s, sl})
			}
		}
	}
	if len(cs) == 0 {
		return false
	}
	c := cs[m.g.r.IntN(len(cs))]
	in := (*c.sl).(*inSub)
	f := in.sub.from[0]
	if m.g.refTaken(c.s, f.ref()) {
		f.alias = m.g.fromAlias(c.s)
	}
	f.join = ","
	c.s.from = append(c.s.from, f)
	for _, nested := range sels(in.sub)[1:] {
		if nested.outer == in.sub {
			nested.outer = c.s
		}
	}
	*c.sl = andExpr(&binary{op: "=", l: in.x, r: in.sub.items[0].x}, in.sub.where)
	walk(c.s, func(st site) {
		if r, ok := (*st.slot).(*colRef); ok && r.f == f {
			r.qual = true
		}
	})
	return true
}

// fkJoin is a foreign key fk of the table of FROM item f of SELECT s:
// a table a join can add to s.
type fkJoin struct {
	s  *sel
	f  *fromItem
	fk foreignKey
}

// fkJoins lists the foreign keys of q's FROM tables that keep accepts, by
// SELECT (sels' order), FROM item and foreign key: the candidates of
// joinAdd and joinFK, whose draws index this order.
func fkJoins(q *sel, keep func(fkJoin) bool) []fkJoin {
	var out []fkJoin
	for _, s := range sels(q) {
		for _, f := range s.from {
			if f.table == nil {
				continue
			}
			for _, fk := range f.table.fks {
				if c := (fkJoin{s, f, fk}); keep(c) {
					out = append(out, c)
				}
			}
		}
	}
	return out
}

// joinAdd joins the table a foreign key of a FROM table references, on
// the foreign key, reading nothing of it.
func (m *mutator) joinAdd(q *sel) bool {
	cs := fkJoins(q, func(fkJoin) bool { return true })
	if len(cs) == 0 {
		return false
	}
	c := cs[m.g.r.IntN(len(cs))]
	if hasStar(c.s) {
		return false // the joined table's columns would join the output
	}
	p := &fromItem{table: c.fk.ref, join: oneOf(m.g.r, "JOIN", "JOIN", "LEFT JOIN")}
	p.alias = m.g.fromAlias(c.s)
	var on expr
	for i, col := range c.fk.cols {
		on = andExpr(on, &binary{op: "=", l: &colRef{f: c.f, col: col, qual: true}, r: &colRef{f: p, col: c.fk.refCols[i], qual: true}})
	}
	p.on = on
	c.s.from = append(c.s.from, p)
	return true
}

// joinFK joins the table a one-column foreign key f.c of a FROM table
// references, JOIN p ON f.c = p.k, the way join_elim removes it: every
// name of the SELECT qualified (p may share its column names), f.c read
// as p.k at times (the rule reads p.k back as f.c), and, when f.c may
// be NULL, most often a conjunct f.c IS NOT NULL added to both queries
// (the join drops those rows; without it the pair differs). Traps: the
// join on a column of p other than the referenced key (detail
// "other"), on a column of f's table of f.c's affinity and collation that
// no foreign key declares (detail "nofk"), a foreign key between
// columns of different types or collations (the schema's), IS NOT NULL
// left out.
func (m *mutator) joinFK(q *sel) bool {
	cs := fkJoins(q, func(c fkJoin) bool {
		// With a *, the joined table's columns would join the output.
		return !hasStar(c.s) && c.f.cte == "" && len(c.fk.cols) == 1
	})
	if len(cs) == 0 {
		return false
	}
	c := cs[m.g.r.IntN(len(cs))]
	col, key := c.fk.cols[0], c.fk.refCols[0]
	m.detail = "key"
	if chance(m.g.r, 0.2) {
		if k := m.g.r.IntN(len(c.fk.ref.cols)); k != key {
			key, m.detail = k, "other"
		}
	}
	if chance(m.g.r, 0.3) {
		if j := m.g.r.IntN(len(c.f.table.cols)); j != col && sameDecl(c.f.table.cols[j], c.f.table.cols[col]) {
			col, m.detail = j, m.detail+":nofk"
		}
	}
	p := &fromItem{table: c.fk.ref, join: "JOIN", alias: m.g.fromAlias(c.s)}
	fc := func() *colRef { return &colRef{f: c.f, col: col, qual: true} }
	pk := func() *colRef { return &colRef{f: p, col: key, qual: true} }
	p.on = &binary{op: "=", l: fc(), r: pk()}
	if chance(m.g.r, 0.5) {
		p.on = &binary{op: "=", l: pk(), r: fc()}
	}
	walk(c.s, func(st site) {
		if r, ok := (*st.slot).(*colRef); ok && slices.Contains(c.s.from, r.f) {
			r.qual = true
		}
	})
	if chance(m.g.r, 0.5) {
		var reads []site
		walk(c.s, func(st site) {
			if r, ok := (*st.slot).(*colRef); ok && r.f == c.f && r.col == col && st.cl != inOn {
				reads = append(reads, st)
			}
		})
		if st, ok := pickSite(m, reads); ok {
			*st.slot = pk()
			m.detail += ":read"
		}
	}
	c.s.from = append(c.s.from, p)
	if !c.f.table.cols[col].notNull && chance(m.g.r, 0.75) {
		c.s.where = andExpr(c.s.where, &isNull{x: fc(), not: true})
		if m.twin == nil {
			return true
		}
		s1, f1 := m.twin.sels[c.s], m.twin.froms[c.f]
		if s1 == nil || f1 == nil {
			return true // the first query has no twin of s: a trap
		}
		s1.where = andExpr(s1.where, &isNull{x: &colRef{f: f1, col: col, qual: true}, not: true})
		m.detail += ":not_null"
	}
	return true
}

// sameDecl reports whether two columns have one affinity and one
// collation (the kernel's family of both is then one).
func sameDecl(a, b *column) bool { return a.affinity() == b.affinity() && a.collate == b.collate }

// inNotNull adds y IS NOT NULL to the WHERE of a subquery x [NOT] IN
// (SELECT y ...), as in_not_null removes it: the same filter where the IN
// is a top-level conjunct of a WHERE and the subquery neither
// aggregates nor limits. Traps: NOT IN, an IN under NOT or OR or in an
// output, a subquery that groups, aggregates or limits (the generator's
// own shapes).
func (m *mutator) inNotNull(q *sel) bool {
	st, ok := pickSite(m, sitesOf(q, func(st site) bool {
		in, ok := (*st.slot).(*inSub)
		if !ok || len(in.sub.items) != 1 {
			return false
		}
		_, col := in.sub.items[0].x.(*colRef)
		return col
	}))
	if !ok {
		return false
	}
	in := (*st.slot).(*inSub)
	y := clone(in.sub.items[0].x).(*colRef)
	y.qual = true
	in.sub.where = andExpr(in.sub.where, &isNull{x: y, not: true})
	m.detail = "in"
	if in.not {
		m.detail = "not_in"
	}
	if !st.term || st.cl != inWhere {
		m.detail += ":nested"
	}
	return true
}

// ---- breaking rewrites ----

var opShift = map[string][]string{"=": {"<=", ">=", "<>"}, "<>": {"="}, "<": {"<=", ">"}, "<=": {"<", "="}, ">": {">=", "<"}, ">=": {">", "="}}

func (m *mutator) opChange(q *sel) bool {
	st, ok := pickSite(m, sitesOf(q, func(st site) bool { b, ok := (*st.slot).(*binary); return ok && isCmp(b.op) }))
	if !ok {
		return false
	}
	b := (*st.slot).(*binary)
	b.op = oneOf(m.g.r, opShift[b.op]...)
	return true
}

func (m *mutator) litShift(q *sel) bool {
	st, ok := pickSite(m, sitesOf(q, func(st site) bool { l, ok := (*st.slot).(*lit); return ok && l.v.k != kNull }))
	if !ok {
		return false
	}
	l := (*st.slot).(*lit)
	switch l.v.k {
	case kInt:
		if l.v.i == math.MaxInt64 {
			return false
		}
		*st.slot = numLit(intVal(l.v.i + 1))
	case kReal:
		*st.slot = numLit(realVal(l.v.f + 1))
	case kText:
		s := strings.ToUpper(l.v.s)
		if s == l.v.s {
			s = l.v.s + "b"
		}
		*st.slot = strLit(s, strings.HasPrefix(l.text, `"`))
	default:
		return false
	}
	return true
}

func (m *mutator) dropConjunct(q *sel) bool {
	var cands []*sel
	for _, s := range sels(q) {
		if s.where != nil {
			cands = append(cands, s)
		}
	}
	if len(cands) == 0 {
		return false
	}
	s := cands[m.g.r.IntN(len(cands))]
	cs := conjuncts(&s.where)
	if len(cs) == 1 {
		s.where = nil
		return true
	}
	*cs[m.g.r.IntN(len(cs))] = trueConjunct()
	return true
}

func (m *mutator) notToggle(q *sel) bool {
	st, ok := pickSite(m, sitesOf(q, func(st site) bool {
		switch (*st.slot).(type) {
		case *inSub, *exists, *inList, *isNull, *between:
			return true
		}
		return false
	}))
	if !ok {
		return false
	}
	switch t := (*st.slot).(type) {
	case *inSub:
		t.not = !t.not
	case *exists:
		t.not = !t.not
	case *inList:
		t.not = !t.not
	case *isNull:
		t.not = !t.not
	case *between:
		t.not = !t.not
	}
	return true
}

var aggSwaps = map[string][]string{"min": {"max"}, "max": {"min"}, "sum": {"total", "max"}, "total": {"sum"}, "avg": {"sum"}, "count": {"sum", "max"}}

func (m *mutator) aggSwap(q *sel) bool {
	st, ok := pickSite(m, sitesOf(q, func(st site) bool {
		c, ok := (*st.slot).(*call)
		return ok && isAggregate(c) && !c.star && aggSwaps[c.name] != nil
	}))
	if !ok {
		return false
	}
	c := (*st.slot).(*call)
	c.name = oneOf(m.g.r, aggSwaps[c.name]...)
	if m.g.d == engine.Postgres && c.name == "total" {
		c.name = "sum"
	}
	return true
}

func (m *mutator) joinKind(q *sel) bool {
	var fs []*fromItem
	for _, s := range sels(q) {
		for _, f := range s.from {
			if f.join == "JOIN" || f.join == "LEFT JOIN" {
				fs = append(fs, f)
			}
		}
	}
	if len(fs) == 0 {
		return false
	}
	f := fs[m.g.r.IntN(len(fs))]
	if f.join == "JOIN" {
		f.join = "LEFT JOIN"
	} else {
		f.join = "JOIN"
	}
	return true
}

func (m *mutator) limitChange(q *sel) bool {
	var cands []*sel
	for _, s := range sels(q) {
		if len(s.orderBy) > 0 {
			cands = append(cands, s)
		}
	}
	if len(cands) == 0 {
		return false
	}
	s := cands[m.g.r.IntN(len(cands))]
	switch {
	case s.limit < 0:
		s.limit = 1
	case chance(m.g.r, 0.5):
		o := s.orderBy[m.g.r.IntN(len(s.orderBy))]
		o.desc = !o.desc
	default:
		s.limit++
	}
	return true
}

func (m *mutator) colSwap(q *sel) bool {
	st, ok := pickSite(m, sitesOf(q, func(st site) bool { _, ok := (*st.slot).(*colRef); return ok }))
	if !ok {
		return false
	}
	c := (*st.slot).(*colRef)
	n := m.g.column(st.s, classOf(c), false)
	if n == nil || n.f == c.f && n.col == c.col {
		return false
	}
	n.qual = true
	*st.slot = n
	return true
}

// secondLeft lists the SELECTs of q whose second FROM item joins by
// LEFT JOIN ... ON or JOIN ... ON (what right_to_left and full_to_outer
// turn to and from: from an inner join, the same rows only when the
// WHERE rejects the NULLs the outer join adds, else a trap).
func secondLeft(q *sel) []*sel {
	var out []*sel
	for _, s := range sels(q) {
		if len(s.from) >= 2 && (s.from[1].join == "LEFT JOIN" || s.from[1].join == "JOIN") && s.from[1].on != nil {
			out = append(out, s)
		}
	}
	return out
}

// rightSwap writes a [LEFT] JOIN b ON c as b RIGHT JOIN a ON c (what
// right_to_left undoes), a bare * spelled a.*, b.* (kept bare a third
// of the time: a trap, the columns then come in another order); later
// joins stay where they are (a trap when one is a RIGHT JOIN of its
// own: never made here).
func (m *mutator) rightSwap(q *sel) bool {
	ss := secondLeft(q)
	if len(ss) == 0 {
		return false
	}
	s := ss[m.g.r.IntN(len(ss))]
	a, b := s.from[0], s.from[1]
	if chance(m.g.r, 0.67) {
		var items []*item
		for _, it := range s.items {
			if it.star && it.starOf == nil {
				items = append(items, &item{star: true, starOf: a}, &item{star: true, starOf: b})
				m.detail = "star"
				continue
			}
			items = append(items, it)
		}
		s.items = items
	}
	a.join, a.on, b.join, b.on = "RIGHT JOIN", b.on, "", nil
	s.from[0], s.from[1] = b, a
	return true
}

// fullOuter writes a [LEFT] JOIN ... ON as FULL JOIN: the same rows when
// WHERE conjuncts reject NULL in a column of the left side (and of the
// right one, for a JOIN: what full_to_outer and left_to_inner need),
// more otherwise (a trap).
func (m *mutator) fullOuter(q *sel) bool { return m.secondJoinAs(q, "FULL JOIN") }

// rightKind writes a [LEFT] JOIN as a RIGHT JOIN in place: other rows
// unless every row of each side matches or the WHERE drops them.
func (m *mutator) rightKind(q *sel) bool { return m.secondJoinAs(q, "RIGHT JOIN") }

// secondJoinAs writes the join of a SELECT secondLeft lists (drawn) as
// join, in place.
func (m *mutator) secondJoinAs(q *sel, join string) bool {
	ss := secondLeft(q)
	if len(ss) == 0 {
		return false
	}
	ss[m.g.r.IntN(len(ss))].from[1].join = join
	return true
}
