package audit

import (
	"fmt"
	"slices"
	"strings"

	"github.com/sqljudge/sqljudge/internal/engine"
	"github.com/sqljudge/sqljudge/internal/prove/check"
	"github.com/sqljudge/sqljudge/internal/result"
	"github.com/sqljudge/sqljudge/internal/sqlast"
)

// groupedSelect is an aggregate SELECT of the gold (GROUP BY, or an
// aggregate in its result columns or HAVING), a single core, read for the
// bare_column check.
type groupedSelect struct {
	p    *parsed
	core *sqlast.SelectQuery
	top  bool
	// keys are the GROUP BY terms as written (a position or result alias
	// resolved to the expression it names).
	keys []string
	// bare are the result columns that read a column outside any
	// aggregate call and are not a GROUP BY term.
	bare []int
	// refs are, per bare result column, what the check reads in each
	// group: the column's expression when it holds no aggregate, else the
	// column references it reads outside aggregate calls and GROUP BY
	// terms (their texts, each once).
	refs [][]string
	// extreme is the one MIN or MAX call of the SELECT (its result
	// columns, HAVING and ORDER BY) on SQLite, where bare columns come
	// from a row holding its value; nil when there is none or several.
	extreme *sqlast.FuncCall
}

// groupedChecks runs the bare_column check on every single-core
// aggregate SELECT of the query.
func (a *auditor) groupedChecks(p *parsed) {
	n := 0
	sqlast.Walk(p.stmt, func(nd sqlast.Node) bool {
		s, ok := nd.(*sqlast.SelectStmt)
		if !ok || len(s.Cores) != 1 {
			return true
		}
		core, ok := s.Cores[0].(*sqlast.SelectQuery)
		if !ok || !isAggregate(core) || len(core.From) == 0 || core.Distinct == sqlast.DistinctDistinct {
			return true
		}
		if n++; n > maxSelects {
			a.skip("bare_column", ReasonTooMany)
			return false
		}
		g := newGroupedSelect(p, s, core, a.c.Engine.Dialect())
		if g == nil {
			a.skip("bare_column", ReasonGroupKeys)
			return true
		}
		if len(g.bare) > 0 {
			a.checkGrouped(g)
		}
		return true
	})
}

// isAggregate reports whether core groups its rows: a GROUP BY, a HAVING,
// or an aggregate call among its result columns.
func isAggregate(core *sqlast.SelectQuery) bool {
	if len(core.GroupBy) > 0 || core.Having != nil {
		return true
	}
	for _, rc := range core.Columns {
		if len(aggregateCalls(rc.Expr)) > 0 {
			return true
		}
	}
	return false
}

// aggregateCalls returns the aggregate calls in e (not inside a
// subquery, nor inside another aggregate), in source order.
func aggregateCalls(e sqlast.Node) []*sqlast.FuncCall {
	var out []*sqlast.FuncCall
	var visit func(n sqlast.Node)
	visit = func(n sqlast.Node) {
		switch t := n.(type) {
		case nil:
			return
		case *sqlast.SelectStmt:
			return
		case *sqlast.FuncCall:
			if isAggregateCall(t) {
				out = append(out, t)
				return
			}
		}
		for _, c := range n.Children() {
			visit(c)
		}
	}
	visit(e)
	return out
}

// isAggregateCall reports whether f is an aggregate call: a known
// aggregate name (count, sum, avg, total, group_concat, string_agg) or
// one-argument min/max (with two or more arguments they are scalar).
func isAggregateCall(f *sqlast.FuncCall) bool {
	if f.Name == nil || f.Over != nil {
		return false
	}
	switch strings.ToLower(f.Name.Name) {
	case "count", "sum", "avg", "total", "group_concat", "string_agg":
		return true
	case "min", "max":
		return len(f.Args) == 1
	}
	return false
}

// columnRefs returns the column references e reads outside aggregate
// calls, subqueries and the parts covered says are grouped, in source
// order: a name or a qualified name, but CURRENT_DATE, CURRENT_TIME,
// CURRENT_TIMESTAMP and the field word of EXTRACT, which the grammar reads
// as names too.
func columnRefs(e sqlast.Node, covered func(sqlast.Node) bool) []sqlast.Expr {
	var out []sqlast.Expr
	var visit func(n sqlast.Node)
	visit = func(n sqlast.Node) {
		if n == nil || covered(n) {
			return
		}
		switch t := n.(type) {
		case *sqlast.SelectStmt:
			return
		case *sqlast.Ident:
			if !clockWords[strings.ToLower(t.Name)] {
				out = append(out, t)
			}
			return
		case *sqlast.QualifiedRef:
			out = append(out, t)
			return
		case *sqlast.FuncCall:
			if isAggregateCall(t) {
				return
			}
			args := t.Args
			if t.Name != nil && strings.EqualFold(t.Name.Name, "extract") && len(args) > 0 {
				args = args[1:]
			}
			for _, a := range args {
				visit(a)
			}
			return
		}
		for _, c := range n.Children() {
			visit(c)
		}
	}
	visit(e)
	return out
}

// clockWords are the keywords the grammar reads as names.
var clockWords = map[string]bool{"current_date": true, "current_time": true, "current_timestamp": true}

// newGroupedSelect reads core's GROUP BY terms, bare columns and MIN/MAX
// call; nil when a term cannot be read (a position out of range, a *).
func newGroupedSelect(p *parsed, s *sqlast.SelectStmt, core *sqlast.SelectQuery, d engine.Dialect) *groupedSelect {
	g := &groupedSelect{p: p, core: core, top: s == p.stmt}
	if hasStar(core.Columns) {
		return nil
	}
	for _, t := range core.GroupBy {
		text, _, ok := resolveKey(p, core, t)
		if !ok {
			return nil
		}
		g.keys = append(g.keys, text)
	}
	// A part of an expression that is a GROUP BY term as written (its own
	// span: a PostgreSQL cast after it is not part of it) is grouped.
	covered := func(n sqlast.Node) bool {
		e, ok := n.(sqlast.Expr)
		return ok && g.isKey(p.sql[e.Pos():e.End()])
	}
	g.refs = make([][]string, len(core.Columns))
	for i, rc := range core.Columns {
		refs := columnRefs(rc.Expr, covered)
		switch {
		case len(refs) == 0:
			continue
		case len(aggregateCalls(rc.Expr)) == 0:
			// The column's value is what may vary in a group: a
			// function of grouped values does not.
			g.refs[i] = []string{p.text(rc.Expr)}
		default:
			for _, r := range refs {
				if t := p.text(r); !slices.Contains(g.refs[i], t) {
					g.refs[i] = append(g.refs[i], t)
				}
			}
		}
		g.bare = append(g.bare, i)
	}
	if d == engine.SQLite {
		var minMax []*sqlast.FuncCall
		nodes := []sqlast.Node{core.Having}
		for _, rc := range core.Columns {
			nodes = append(nodes, rc.Expr)
		}
		for _, t := range core.OrderBy {
			nodes = append(nodes, t.Expr)
		}
		for _, n := range nodes {
			for _, f := range aggregateCalls(n) {
				if name := strings.ToLower(f.Name.Name); name == "min" || name == "max" {
					minMax = append(minMax, f)
				}
			}
		}
		if len(minMax) == 1 {
			g.extreme = minMax[0]
		} else if len(minMax) > 1 {
			g.bare = nil // the row a bare column comes from is one of several MIN/MAX's: not modelled
		}
	}
	return g
}

// isKey reports whether text is one of the GROUP BY terms.
func (g *groupedSelect) isKey(text string) bool {
	for _, k := range g.keys {
		if sameExpr(k, text) {
			return true
		}
	}
	return false
}

// text is the SELECT's text, after the query's WITH clause when it is a
// subquery.
func (g *groupedSelect) text() string {
	if g.top {
		return g.p.sql
	}
	prefix := ""
	if g.p.stmt.With != nil {
		prefix = g.p.text(g.p.stmt.With) + " "
	}
	return prefix + g.p.sql[g.core.Pos():g.p.end(g.core)]
}

// appended returns the SELECT with cols appended to its result columns.
func (g *groupedSelect) appended(cols []string) string {
	last := g.p.end(g.core.Columns[len(g.core.Columns)-1])
	q := g.p.splice(g.core.Pos(), g.p.end(g.core), []edit{{last, last, ", " + strings.Join(cols, ", ")}})
	if g.top {
		return g.p.sql[:g.core.Pos()] + q + g.p.sql[g.p.end(g.core):]
	}
	if g.p.stmt.With != nil {
		return g.p.text(g.p.stmt.With) + " " + q
	}
	return q
}

// determined asks the prover's kernel which result columns the groups
// determine (check.GroupDetermined over the database's schema); nil when
// it cannot say (a dialect it does not model, a SELECT it does not read),
// and why.
func (a *auditor) determined(g *groupedSelect) ([]check.Determined, string) {
	s := a.c.proveSchema(a.ctx, a.db)
	if s == nil {
		return nil, "the prover does not model the " + string(a.c.Engine.Dialect()) + " engine"
	}
	ds, err := check.GroupDetermined(g.text(), s)
	if err != nil {
		return nil, "the prover does not read this SELECT: " + err.Error()
	}
	if len(ds) != len(g.core.Columns) {
		return nil, "the prover reads other result columns"
	}
	return ds, ""
}

// checkGrouped runs the bare_column check on g: each bare column the
// groups do not determine (by the prover's functional dependencies) is
// read per group kept, and reported where a group holds two values of it
// the engine may choose between.
func (a *auditor) checkGrouped(g *groupedSelect) {
	ds, why := a.determined(g)
	var bare []string
	for _, i := range g.bare {
		if ds != nil && ds[i].Determined {
			continue
		}
		for _, r := range g.refs[i] {
			if !slices.Contains(bare, r) {
				bare = append(bare, r)
			}
		}
	}
	if len(bare) == 0 {
		return
	}
	if why == "" {
		why = "the GROUP BY terms do not determine it (no key of its table among them, no equality fixing it: the prover's functional dependencies)"
		if len(g.keys) == 0 {
			why = "the query folds every row into one group, and no condition fixes it (the prover's functional dependencies)"
		}
	}
	kept := a.keptGroups(g, bare)
	if kept == nil {
		return
	}
	for j, col := range bare {
		var f *Finding
		if g.extreme != nil {
			f = a.extremeTies(g, col, kept)
		} else {
			f = kept.spread(g, col, j)
		}
		if f == nil {
			continue
		}
		f.Detail += "; " + why
		a.add(*f)
	}
}

// keptGroupsResult is the auxiliary result of a grouped SELECT with its
// group keys, group size and, per bare column, the count of distinct
// values, whether it holds NULL, its smallest and largest value appended
// (only the groups the SELECT keeps: HAVING, ORDER BY and LIMIT apply).
type keptGroupsResult struct {
	rows  [][]result.Value
	first int // the first appended column
	nKeys int
}

// keptGroups runs the SELECT with the appended columns of
// keptGroupsResult; nil when it fails.
func (a *auditor) keptGroups(g *groupedSelect, bare []string) *keptGroupsResult {
	cols := append([]string{}, g.keys...)
	cols = append(cols, "count(*)")
	for _, e := range bare {
		cols = append(cols, "count(DISTINCT "+e+")", "max(CASE WHEN ("+e+") IS NULL THEN 1 ELSE 0 END)", "min("+e+")", "max("+e+")")
	}
	res := a.aux("bare_column", g.appended(cols))
	if res == nil {
		return nil
	}
	return &keptGroupsResult{rows: res.Rows, first: len(g.core.Columns), nKeys: len(g.keys)}
}

// key returns a kept group's GROUP BY values.
func (k *keptGroupsResult) key(r []result.Value) []result.Value {
	return r[k.first : k.first+k.nKeys]
}

// spread reports bare column col (the j-th checked) when a kept group holds
// two values of it (NULL counting as one): without MIN or MAX, SQLite
// returns the value of the last row of the group it reads, MySQL any.
func (k *keptGroupsResult) spread(g *groupedSelect, col string, j int) *Finding {
	var first []result.Value
	groups := 0
	at := k.first + k.nKeys + 1 + 4*j
	for _, r := range k.rows {
		distinct, null := r[at].I, r[at+1].I
		if distinct+null < 2 {
			continue
		}
		if groups == 0 {
			first = r
		}
		groups++
	}
	if groups == 0 {
		return nil
	}
	vals := []result.Value{first[at+2], first[at+3]}
	if first[at+1].I == 1 {
		vals = []result.Value{{}, first[at+2]}
	}
	f := g.finding(k, first, col, groups)
	f.Values = cells(vals)
	f.Detail = fmt.Sprintf("%s is a bare column: %s it takes %d values (%s and %s among them) and the engine returns the one of a row of its choosing (SQLite: the last row of the group it reads)",
		f.Clause, g.where(k.key(first), first[k.first+k.nKeys]), first[at].I+first[at+1].I, repr(vals[0]), repr(vals[1]))
	return &f
}

// finding starts a bare_column finding on column col from kept group row
// r.
func (g *groupedSelect) finding(k *keptGroupsResult, r []result.Value, col string, groups int) Finding {
	f := Finding{Kind: BareColumn, Clause: col, Groups: groups, Rows: int(r[k.first+k.nKeys].I)}
	if !g.top {
		f.Subquery = g.p.sql[g.core.Pos():g.p.end(g.core)]
	}
	if len(g.keys) > 0 {
		f.Group = cells(k.key(r))
	}
	return f
}

// where says which group a finding shows: "in the group country =
// 'Italy' (12 rows)", or "over the 8 rows" without GROUP BY.
func (g *groupedSelect) where(key []result.Value, size result.Value) string {
	if len(g.keys) == 0 {
		return fmt.Sprintf("over the %s folded into one row", plural(int(size.I), "row"))
	}
	parts := make([]string, len(key))
	for i, v := range key {
		parts[i] = g.keys[i] + " = " + repr(v)
	}
	return fmt.Sprintf("in the group %s (%s)", strings.Join(parts, ", "), plural(int(size.I), "row"))
}

// extremeTies reports bare column col of a SELECT with one MIN or MAX on
// SQLite, whose bare columns come from the first row read that holds the
// extreme value: when rows of a kept group tie on that value and differ
// in the column, which one is returned follows the scan order. The rows
// at the extreme are read with a window function (the MIN or MAX over
// each group), from the SELECT's FROM and WHERE.
func (a *auditor) extremeTies(g *groupedSelect, col string, kept *keptGroupsResult) *Finding {
	p, ext := g.p, g.extreme
	arg := p.text(ext.Args[0])
	part := ""
	if len(g.keys) > 0 {
		part = "PARTITION BY " + strings.Join(g.keys, ", ")
	}
	inner := "SELECT " + strings.Join(append(append([]string{}, g.keys...), col+" AS sj_bare", arg+" AS sj_arg",
		strings.ToLower(ext.Name.Name)+"("+arg+") OVER ("+part+") AS sj_top"), ", ") + " FROM " + p.sql[g.core.From[0].Pos():p.end(g.core.From[len(g.core.From)-1])]
	if g.core.Where != nil {
		inner += " WHERE " + p.text(g.core.Where)
	}
	q := "SELECT * FROM (" + inner + ") AS sj_rows WHERE sj_arg = sj_top"
	if !g.top && p.stmt.With != nil {
		q = p.text(p.stmt.With) + " " + q
	}
	res := a.aux("bare_column", q)
	if res == nil {
		return nil
	}
	nk := len(g.keys)
	values := map[string][]result.Value{}
	for _, r := range res.Rows {
		k := result.RowKey(r[:nk])
		if !containsValue(values[k], r[nk]) {
			values[k] = append(values[k], r[nk])
		}
	}
	var first []result.Value
	groups := 0
	for _, r := range kept.rows {
		if len(values[result.RowKey(kept.key(r))]) < 2 {
			continue
		}
		if groups == 0 {
			first = r
		}
		groups++
	}
	if groups == 0 {
		return nil
	}
	vals := values[result.RowKey(kept.key(first))]
	f := g.finding(kept, first, col, groups)
	f.Values = cells(vals[:2])
	f.Detail = fmt.Sprintf("%s is a bare column beside %s: %s %d rows tie on %s and hold %d values of it (%s and %s among them); SQLite returns the one of the first of them it reads",
		col, p.text(ext), g.where(kept.key(first), first[kept.first+nk]), countAt(res.Rows, nk, kept.key(first)), p.text(ext), len(vals), repr(vals[0]), repr(vals[1]))
	return &f
}

// containsValue reports whether vs holds a value equal to v (NULL equal
// to NULL).
func containsValue(vs []result.Value, v result.Value) bool {
	for _, x := range vs {
		if result.RowKey([]result.Value{x}) == result.RowKey([]result.Value{v}) {
			return true
		}
	}
	return false
}

// countAt counts the rows whose first n values are key.
func countAt(rows [][]result.Value, n int, key []result.Value) int {
	k, c := result.RowKey(key), 0
	for _, r := range rows {
		if result.RowKey(r[:n]) == k {
			c++
		}
	}
	return c
}
