package audit

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/sqljudge/sqljudge/internal/engine"
	"github.com/sqljudge/sqljudge/internal/result"
	"github.com/sqljudge/sqljudge/internal/sqlast"
)

// orderedSelect is a SELECT of the gold (the whole query or a subquery)
// whose last core has an ORDER BY, read for the auxiliary queries that
// show its sort keys: the SELECT with every key appended as an extra
// result column (a single core), or the keys found among its result
// columns (a compound, whose ORDER BY names its columns).
type orderedSelect struct {
	p    *parsed
	s    *sqlast.SelectStmt
	core *sqlast.SelectQuery
	top  bool
	// prefix is the query's WITH clause, put before a subquery run alone.
	prefix string
	// keyText are the keys' expressions as written (an alias or a column
	// position resolved to the expression it names); appended says they
	// are appended as result columns, else cols gives each key's column.
	keyText  []string
	appended bool
	// keySub are the keys with result aliases inside expressions replaced
	// by the expressions they name, tried when keyText fails to run (SQLite
	// reads a name in an ORDER BY expression as a table column first, an
	// alias second).
	keySub []string
	cols   []int
	// limit says the core has a LIMIT keeping count rows after offset.
	limit         bool
	count, offset int
	// extra are edits every auxiliary query makes besides those of query
	// (distinct_order's: DISTINCT dropped, a GROUP BY added).
	extra []edit
}

// window is how many rows the auxiliary queries of a LIMIT read: the
// kept rows and TieWindow more.
func (o *orderedSelect) window() int { return o.offset + o.count + TieWindow }

// lastCore returns the last core of s when it is a SELECT (not VALUES).
func lastCore(s *sqlast.SelectStmt) *sqlast.SelectQuery {
	c, _ := s.Cores[len(s.Cores)-1].(*sqlast.SelectQuery)
	return c
}

// orderChecks runs the ORDER BY and LIMIT checks on every SELECT of the
// query that has an ORDER BY (and, below the top, a LIMIT: a subquery's
// order matters only through what its LIMIT keeps).
func (a *auditor) orderChecks(p *parsed, gold *result.Set) {
	ordered := a.c.Ordered != nil && a.c.Ordered(p.sql)
	var sels []*sqlast.SelectStmt
	sqlast.Walk(p.stmt, func(n sqlast.Node) bool {
		if s, ok := n.(*sqlast.SelectStmt); ok {
			sels = append(sels, s)
		}
		return true
	})
	if top := lastCore(p.stmt); ordered && top != nil && len(top.OrderBy) == 0 {
		a.unorderedTop(gold)
	}
	if len(sels) > maxSelects {
		a.skip("order", ReasonTooMany)
		sels = sels[:maxSelects]
	}
	for i, s := range sels {
		core := lastCore(s)
		if core == nil || core.Limit == nil && (len(core.OrderBy) == 0 || i > 0 || !ordered) {
			continue
		}
		if distinctKeys(p, core) && len(s.Cores) == 1 {
			a.distinctOrder(p, s, core, i == 0, i == 0 && ordered)
			continue
		}
		o, reason := newOrderedSelect(p, s, core, i == 0)
		if o == nil {
			a.skip("order", reason)
			continue
		}
		a.checkOrdered(o, i == 0 && ordered)
	}
}

// readLimit reads o's prefix (the statement's WITH, for a SELECT that is
// not the whole query) and its core's LIMIT and OFFSET; false when they
// are not integer literals.
func (o *orderedSelect) readLimit() bool {
	if !o.top && o.p.stmt.With != nil {
		o.prefix = o.p.text(o.p.stmt.With) + " "
	}
	if o.core.Limit == nil {
		return true
	}
	var ok bool
	if o.count, ok = intLiteral(o.core.Limit.Count); !ok {
		return false
	}
	if o.core.Limit.Offset != nil {
		if o.offset, ok = intLiteral(o.core.Limit.Offset); !ok {
			return false
		}
	}
	o.limit = true
	return true
}

// newOrderedSelect reads s's ORDER BY keys and LIMIT; it returns nil and
// the reason when the checks cannot read them.
func newOrderedSelect(p *parsed, s *sqlast.SelectStmt, core *sqlast.SelectQuery, top bool) (*orderedSelect, string) {
	o := &orderedSelect{p: p, s: s, core: core, top: top}
	if !o.readLimit() {
		return nil, ReasonLimit
	}
	first, _ := s.Cores[0].(*sqlast.SelectQuery)
	if first == nil {
		return nil, ReasonKeys
	}
	o.appended = len(s.Cores) == 1
	for _, t := range core.OrderBy {
		text, col, ok := resolveKey(p, first, t.Expr)
		if !ok || !o.appended && col < 0 || o.appended && first.Distinct == sqlast.DistinctDistinct && col < 0 {
			return nil, ReasonKeys
		}
		o.keyText = append(o.keyText, text)
		o.keySub = append(o.keySub, substituteAliases(p, first, t.Expr, text))
		o.cols = append(o.cols, col)
	}
	return o, ""
}

// intLiteral reads a non-negative integer literal.
func intLiteral(e sqlast.Expr) (int, bool) {
	l, ok := e.(*sqlast.Literal)
	if !ok || l.Kind != sqlast.LitInteger {
		return 0, false
	}
	n, err := strconv.Atoi(l.Value)
	return n, err == nil && n >= 0 && n <= 1<<30
}

// resolveKey reads an ORDER BY key of a SELECT whose result columns are
// first's: a column position or a result alias names that column's
// expression; any other expression stands for itself. col is the result
// column the key is (-1 when none: an expression not selected). ok is
// false for a position that is out of range or follows a *.
func resolveKey(p *parsed, first *sqlast.SelectQuery, e sqlast.Expr) (text string, col int, ok bool) {
	rc := first.Columns
	if n, isInt := intLiteral(e); isInt {
		if n < 1 || n > len(rc) || hasStar(rc[:n]) {
			return "", -1, false
		}
		return p.text(rc[n-1].Expr), n - 1, true
	}
	text = p.text(e)
	if id, isIdent := e.(*sqlast.Ident); isIdent {
		for i, c := range rc {
			if c.Alias != nil && strings.EqualFold(c.Alias.Name, id.Name) && !hasStar(rc[:i]) {
				return p.text(c.Expr), i, true
			}
		}
	}
	for i, c := range rc {
		if !hasStar(rc[:i+1]) && sameExpr(p.text(c.Expr), text) {
			return text, i, true
		}
	}
	return text, -1, true
}

// hasStar reports whether a result column list holds * or t.*.
func hasStar(rc []*sqlast.ResultColumn) bool {
	for _, c := range rc {
		if _, ok := c.Expr.(*sqlast.Star); ok {
			return true
		}
	}
	return false
}

// sameExpr compares two expressions' texts, ignoring case and spacing
// (and a table qualifier: ORDER BY t.a names the column a selects).
func sameExpr(a, b string) bool {
	norm := func(s string) string { return strings.Join(strings.Fields(strings.ToLower(s)), " ") }
	a, b = norm(a), norm(b)
	if a == b {
		return true
	}
	unq := func(s string) string {
		if i := strings.LastIndexByte(s, '.'); i >= 0 && !strings.ContainsAny(s, " ()'") {
			return s[i+1:]
		}
		return s
	}
	return unq(a) == unq(b) && !strings.ContainsAny(a, " ()'")
}

// query returns the SELECT as an auxiliary query: its keys appended as
// result columns (a single core), its LIMIT replaced by one reading the
// kept rows and TieWindow more (without OFFSET: rows are counted from
// the first), and term(i) (when not nil) replacing ORDER BY term i.
func (o *orderedSelect) query(term func(i int, t *sqlast.OrderingTerm) string) string {
	p, core := o.p, o.core
	edits := append([]edit{}, o.extra...)
	if o.appended && len(o.keyText) > 0 {
		last := p.end(core.Columns[len(core.Columns)-1])
		edits = append(edits, edit{last, last, ", " + strings.Join(o.keyText, ", ")})
	}
	if o.limit {
		edits = append(edits, edit{core.Limit.Pos(), p.end(core.Limit), "LIMIT " + strconv.Itoa(o.window())})
	}
	if term != nil {
		for i, t := range core.OrderBy {
			if s := term(i, t); s != "" {
				edits = append(edits, edit{t.Pos(), p.end(t), s})
			}
		}
	}
	return o.prefix + p.splice(o.s.Pos(), p.end(core), edits)
}

// rowsOf splits an auxiliary result into output rows (what the SELECT
// returns) and key rows (its sort keys).
func (o *orderedSelect) rowsOf(res *result.Set) (out, keys [][]result.Value) {
	n := len(res.Columns) - len(o.keyText)
	for _, r := range res.Rows {
		if o.appended {
			out, keys = append(out, r[:n]), append(keys, r[n:])
			continue
		}
		k := make([]result.Value, len(o.cols))
		for i, c := range o.cols {
			k[i] = r[c]
		}
		out, keys = append(out, r), append(keys, k)
	}
	return out, keys
}

// columns returns the output columns of an auxiliary result.
func (o *orderedSelect) columns(res *result.Set) []string {
	if o.appended {
		return res.Columns[:len(res.Columns)-len(o.keyText)]
	}
	return res.Columns
}

// region returns the bounds of the rows the SELECT keeps among n rows
// read from the first.
func (o *orderedSelect) region(n int) (lo, hi int) {
	if !o.limit {
		return 0, n
	}
	return min(o.offset, n), min(o.offset+o.count, n)
}

// clause prints the ORDER BY and LIMIT as written.
func (o *orderedSelect) clause() string {
	terms := make([]string, len(o.core.OrderBy))
	for i, t := range o.core.OrderBy {
		terms[i] = o.p.text(t)
	}
	s := "ORDER BY " + strings.Join(terms, ", ")
	if o.limit {
		s += " " + o.p.text(o.core.Limit)
	}
	return s
}

// subquery is the SELECT's text when it is not the whole query.
func (o *orderedSelect) subquery() string {
	if o.top {
		return ""
	}
	return o.p.sql[o.s.Pos():o.p.end(o.core)]
}

// finding starts a finding about the SELECT.
func (o *orderedSelect) finding(k Kind, res *result.Set) Finding {
	return Finding{Kind: k, Clause: o.clause(), Subquery: o.subquery(), SortKeys: o.sortKeys(), Columns: o.columns(res)}
}

// sortKeys are the ORDER BY terms' expressions as written.
func (o *orderedSelect) sortKeys() []string {
	out := make([]string, len(o.core.OrderBy))
	for i, t := range o.core.OrderBy {
		out[i] = o.p.text(t.Expr)
	}
	return out
}

// checkOrdered reads the SELECT with its keys and runs the tie, NULL and
// text-number checks on it; inOrder says the rule compares its rows in
// order (the top SELECT under an ordered rule).
func (a *auditor) checkOrdered(o *orderedSelect, inOrder bool) {
	res, err := a.query(o.query(nil))
	if err != nil && !slices.Equal(o.keyText, o.keySub) && !errors.Is(err, engine.ErrTimeout) {
		o.keyText = o.keySub
		res, err = a.query(o.query(nil))
	}
	if err != nil {
		a.failed("order", err)
		return
	}
	out, keys := o.rowsOf(res)
	if len(o.core.OrderBy) == 0 {
		a.unorderedLimit(o, res, out)
		return
	}
	if o.limit {
		a.limitTies(o, res, out, keys)
	}
	if inOrder {
		a.orderTies(o, res, out, keys)
	}
	a.nullOrder(o, out, keys, inOrder)
	a.textOrder(o, res, inOrder)
}

// keysEqual reports whether two rows tie on every sort key (NULL ties
// with NULL, 1 with 1.0).
func keysEqual(a, b []result.Value) bool {
	for i := range a {
		if !result.Equal(a[i], b[i]) {
			return false
		}
	}
	return true
}

// uniform reports whether the rows are all equal.
func uniform(rows [][]result.Value) bool {
	for _, r := range rows[1:] {
		if result.RowKey(r) != result.RowKey(rows[0]) {
			return false
		}
	}
	return true
}

// limitTies reports a LIMIT whose last kept row ties, on every sort key,
// with rows past it, when the tied rows differ in what the SELECT returns
// (if they are all alike, any choice gives the same result).
func (a *auditor) limitTies(o *orderedSelect, res *result.Set, out, keys [][]result.Value) {
	end := o.offset + o.count
	if o.count == 0 || len(out) <= end {
		return
	}
	j := end
	for j < len(out) && keysEqual(keys[end-1], keys[j]) {
		j++
	}
	i := end - 1
	for i > 0 && keysEqual(keys[end-1], keys[i-1]) {
		i--
	}
	if j == end || uniform(out[i:j]) {
		return
	}
	f := o.finding(LimitTies, res)
	f.LastKept = cells(out[end-1])
	f.Tied, f.EvidenceCut = rowsCells(out[end:j], a.c.maxEvidence())
	f.TiedTotal = j - end
	more := ""
	if j == len(out) && len(out) == o.window() {
		f.EvidenceCut, more = true, " at least"
	}
	f.Detail = fmt.Sprintf("%s keeps %d of%s %d rows that tie on (%s) = (%s) and differ in what it returns; which it keeps is the engine's choice",
		o.p.text(o.core.Limit), end-max(i, o.offset), more, j-max(i, o.offset), strings.Join(o.sortKeys(), ", "), reprs(keys[end-1]))
	a.add(f)
}

// orderTies reports tied groups among the rows the SELECT returns, when
// the rule compares them in order: adjacent rows equal on every key that
// differ in what is returned.
func (a *auditor) orderTies(o *orderedSelect, res *result.Set, out, keys [][]result.Value) {
	lo, hi := o.region(len(out))
	var first [][]result.Value
	groups, rows := 0, 0
	for i := lo; i < hi; {
		j := i + 1
		for j < hi && keysEqual(keys[i], keys[j]) {
			j++
		}
		if j-i > 1 && !uniform(out[i:j]) {
			if groups == 0 {
				first = out[i:j]
			}
			groups++
			rows += j - i
		}
		i = j
	}
	if groups == 0 {
		return
	}
	f := o.finding(OrderTies, res)
	f.Tied, f.EvidenceCut = rowsCells(first, a.c.maxEvidence())
	f.TiedTotal, f.TieGroups = rows, groups
	f.Detail = fmt.Sprintf("the rule compares rows in order, and %s in %s tie on (%s) while differing: their order is the engine's choice",
		plural(rows, "row"), plural(groups, "group"), strings.Join(o.sortKeys(), ", "))
	a.add(f)
}

// unorderedTop reports a gold whose rows the rule compares in order (an
// ORDER BY in a subquery makes Spider's rule ordered) while the outer
// query has no ORDER BY: the order of its rows is the engine's choice.
func (a *auditor) unorderedTop(gold *result.Set) {
	if gold.Len() < 2 || uniform(gold.Rows) {
		return
	}
	f := Finding{Kind: OrderTies, Columns: gold.Columns, TiedTotal: gold.Len(), TieGroups: 1,
		Detail: fmt.Sprintf("the rule compares rows in order (the query says ORDER BY, in a subquery), but the outer query has no ORDER BY: the order of its %d rows is the engine's choice", gold.Len())}
	f.Tied, f.EvidenceCut = rowsCells(gold.Rows, a.c.maxEvidence())
	a.add(f)
}

// substituteAliases returns key expression e (text as written) with every
// name in it that is a result alias of first replaced by the aliased
// expression in parentheses; names in subqueries, qualified names and
// function names are left alone.
func substituteAliases(p *parsed, first *sqlast.SelectQuery, e sqlast.Expr, text string) string {
	if _, bare := e.(*sqlast.Ident); bare {
		return text // resolveKey read a bare alias already
	}
	var edits []edit
	var visit func(n sqlast.Node)
	visit = func(n sqlast.Node) {
		switch t := n.(type) {
		case *sqlast.SelectStmt, *sqlast.QualifiedRef:
			return
		case *sqlast.Ident:
			for _, c := range first.Columns {
				if c.Alias != nil && strings.EqualFold(c.Alias.Name, t.Name) {
					edits = append(edits, edit{t.Pos(), t.End(), "(" + p.text(c.Expr) + ")"})
					return
				}
			}
			return
		}
		f, _ := n.(*sqlast.FuncCall)
		for _, c := range n.Children() {
			if f != nil && c == sqlast.Node(f.Name) {
				continue
			}
			visit(c)
		}
	}
	visit(e)
	if len(edits) == 0 {
		return text
	}
	return p.splice(e.Pos(), p.end(e), edits)
}

// unorderedLimit reports a LIMIT without ORDER BY that keeps some of
// rows that differ: which it keeps is the engine's choice (its scan
// order).
func (a *auditor) unorderedLimit(o *orderedSelect, res *result.Set, out [][]result.Value) {
	end := o.offset + o.count
	if o.count == 0 || len(out) <= end || uniform(out) {
		return
	}
	f := Finding{Kind: LimitTies, Clause: o.p.text(o.core.Limit), Subquery: o.subquery(), Columns: o.columns(res)}
	f.LastKept = cells(out[end-1])
	f.Tied, f.EvidenceCut = rowsCells(out[end:], a.c.maxEvidence())
	f.TiedTotal = len(out) - end
	more := ""
	if len(out) == o.window() {
		f.EvidenceCut, more = true, " at least"
	}
	f.Detail = fmt.Sprintf("%s without ORDER BY keeps %d of%s %d rows that differ; which it keeps is the engine's choice (its scan order)",
		o.p.text(o.core.Limit), o.count, more, len(out)-o.offset)
	a.add(f)
}
