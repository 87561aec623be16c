package audit

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/sqljudge/sqljudge/internal/engine"
	"github.com/sqljudge/sqljudge/internal/result"
	"github.com/sqljudge/sqljudge/internal/sqlast"
)

// maxEngineValues bounds the values float_order sums again on the engine
// (a VALUES list per order).
const maxEngineValues = 2000

// aggCall is an aggregate in a core's result columns: SUM, AVG, TOTAL
// (float_order) or MAX, MIN (text_numbers) of one argument.
type aggCall struct {
	call *sqlast.FuncCall
	name string
	// outer is the node shown: round(call, n) when round wraps the call,
	// else the call; digits is round's digits (rounded says there is one).
	outer   node
	rounded bool
	digits  int
}

// aggregateChecks reads the values each aggregate of each SELECT core
// folds, per group, with an auxiliary query (the core's FROM and WHERE,
// selecting its GROUP BY keys and the aggregates' arguments), and runs
// the float_order and text_numbers checks on them.
func (a *auditor) aggregateChecks(p *parsed) {
	var cores []*sqlast.SelectQuery
	sqlast.Walk(p.stmt, func(n sqlast.Node) bool {
		if c, ok := n.(*sqlast.SelectQuery); ok {
			cores = append(cores, c)
		}
		return true
	})
	if len(cores) > maxSelects {
		a.skip("aggregates", ReasonTooMany)
		cores = cores[:maxSelects]
	}
	for _, core := range cores {
		aggs := aggregatesOf(core)
		if len(aggs) == 0 || len(core.From) == 0 {
			continue
		}
		sql, ok := fetchQuery(p, core, aggs)
		if !ok {
			a.skip("aggregates", ReasonKeys)
			continue
		}
		res := a.aux("aggregates", sql)
		if res == nil {
			continue
		}
		gs := groupRows(res.Rows, len(core.GroupBy))
		for j, ag := range aggs {
			sub := ""
			if !(len(p.stmt.Cores) == 1 && p.stmt.Cores[0] == core) {
				sub = p.sql[core.Pos():p.end(core)]
			}
			if ag.name == "max" || ag.name == "min" {
				a.textMaxMin(p, ag, gs, len(core.GroupBy), j, sub)
			} else {
				a.floatOrder(p, ag, gs, len(core.GroupBy), j, sub)
			}
		}
	}
}

// aggregatesOf returns the aggregates of a core's result columns (not
// those of its subqueries), in source order.
func aggregatesOf(core *sqlast.SelectQuery) []aggCall {
	var out []aggCall
	var visit func(n, parent sqlast.Node)
	visit = func(n, parent sqlast.Node) {
		switch t := n.(type) {
		case *sqlast.SelectStmt:
			return
		case *sqlast.FuncCall:
			if ag, ok := aggregate(t, parent); ok {
				out = append(out, ag)
				return
			}
		}
		for _, c := range n.Children() {
			visit(c, n)
		}
	}
	for _, rc := range core.Columns {
		visit(rc.Expr, rc)
	}
	return out
}

// aggregate reads f as an aggregate the checks know (one argument, no
// FILTER, no window), with the round() around it if parent is one.
func aggregate(f *sqlast.FuncCall, parent sqlast.Node) (aggCall, bool) {
	if f.Name == nil || f.Over != nil || f.Filter != nil || f.Star || len(f.Args) != 1 || len(f.OrderBy) > 0 {
		return aggCall{}, false
	}
	name := strings.ToLower(f.Name.Name)
	if n, ok := sqlast.IsAggregate(f); !ok && name != "total" || n == "count" {
		return aggCall{}, false
	}
	ag := aggCall{call: f, name: name, outer: f}
	if r, ok := parent.(*sqlast.FuncCall); ok && r.Name != nil && strings.EqualFold(r.Name.Name, "round") && len(r.Args) > 0 && r.Args[0] == sqlast.Expr(f) {
		ag.outer, ag.rounded = r, true
		if len(r.Args) == 2 {
			d, ok := intLiteral(r.Args[1])
			if !ok {
				ag.outer, ag.rounded = f, false
			}
			ag.digits = d
		}
	}
	return ag, true
}

// fetchQuery is the auxiliary query reading what a core's aggregates
// fold: its GROUP BY keys (a position or result alias resolved to its
// expression) and each aggregate's argument, FROM its FROM and WHERE
// (after the query's WITH clause).
func fetchQuery(p *parsed, core *sqlast.SelectQuery, aggs []aggCall) (string, bool) {
	var cols []string
	for _, g := range core.GroupBy {
		text, _, ok := resolveKey(p, core, g)
		if !ok {
			return "", false
		}
		cols = append(cols, text)
	}
	for _, ag := range aggs {
		cols = append(cols, p.text(ag.call.Args[0]))
	}
	var b strings.Builder
	if p.stmt.With != nil {
		b.WriteString(p.text(p.stmt.With) + " ")
	}
	b.WriteString("SELECT " + strings.Join(cols, ", ") + " FROM " + p.sql[core.From[0].Pos():p.end(core.From[len(core.From)-1])])
	if core.Where != nil {
		b.WriteString(" WHERE " + p.text(core.Where))
	}
	return b.String(), true
}

// group is the rows of one GROUP BY group, in the order read.
type group struct {
	key  []result.Value
	rows [][]result.Value
}

// groupRows groups rows by their first n values, groups in order of
// first appearance.
func groupRows(rows [][]result.Value, n int) []*group {
	var out []*group
	byKey := map[string]*group{}
	for _, r := range rows {
		k := result.RowKey(r[:n])
		g := byKey[k]
		if g == nil {
			g = &group{key: r[:n]}
			byKey[k] = g
			out = append(out, g)
		}
		g.rows = append(g.rows, r)
	}
	return out
}

// floatValues returns column c of a group's rows as numbers (NULLs left
// out, DISTINCT applied as the aggregate does); ok is false unless some
// value is a float and none is an exact decimal or another kind. Text
// is read as SQLite and MySQL read it in a sum: a text that parses as a
// number is that number (an integer or a float, as its spelling says),
// a placeholder ('null', 'n/a', ...) is 0; any other text leaves the
// column out (text says some value was text).
func floatValues(g *group, c int, distinct bool) (xs []float64, vals []result.Value, text, ok bool) {
	seen := map[string]bool{}
	hasFloat := false
	for _, r := range g.rows {
		v := r[c]
		if v.IsNull() {
			continue
		}
		if v.K == result.Text {
			n, isNum := textNumber(v.S)
			if !isNum {
				return nil, nil, false, false
			}
			v, text = n, true
		}
		if v.K != result.Int && v.K != result.Float {
			return nil, nil, false, false
		}
		if k := result.RowKey(r[c : c+1]); distinct && seen[k] {
			continue
		} else {
			seen[k] = true
		}
		hasFloat = hasFloat || v.K == result.Float
		xs, vals = append(xs, asFloat(v)), append(vals, v)
	}
	return xs, vals, text, hasFloat
}

// textNumber reads a text as a sum reads it: a number's spelling as an
// integer or a float, a placeholder as the float 0; ok is false for any
// other text.
func textNumber(s string) (result.Value, bool) {
	switch {
	case isPlaceholder(s):
		return result.Value{K: result.Float}, true
	case !isNumber(s):
		return result.Value{}, false
	}
	if i, err := strconv.ParseInt(s, 10, 64); err == nil {
		return result.Value{K: result.Int, I: i}, true
	}
	return result.Value{K: result.Float, F: number(s)}, true
}

// fold is an aggregate's value of xs summed left to right.
func fold(name string, xs []float64) float64 {
	s := 0.0
	for _, x := range xs {
		s += x
	}
	if name == "avg" {
		return s / float64(len(xs))
	}
	return s
}

// roundTo rounds x to d decimal digits as its decimal text does.
func roundTo(x float64, d int) float64 {
	f, _ := strconv.ParseFloat(strconv.FormatFloat(x, 'f', d, 64), 64)
	return f
}

// floatOrder reports a SUM, AVG or TOTAL over floats whose value, summed
// left to right, differs between the order the rows are read in and
// another (reversed, or ascending): the value then depends on the plan of
// the engine that sums it (PostgreSQL and MySQL sum left to right, as
// SQLite did before 3.43). The finding shows one group's two values, and
// the engine's own sums of the same values in the same two orders.
func (a *auditor) floatOrder(p *parsed, ag aggCall, gs []*group, nKeys, j int, sub string) {
	var first *group
	var firstVals []result.Value
	var orders [2][]float64
	var how string
	groups, texts := 0, false
	for _, g := range gs {
		xs, vals, text, ok := floatValues(g, nKeys+j, ag.call.Distinct)
		if !ok || len(xs) < 3 {
			continue
		}
		other, name, differ := otherOrder(ag, xs)
		if !differ {
			continue
		}
		if groups == 0 {
			first, firstVals, orders, how, texts = g, vals, [2][]float64{xs, other}, name, text
		}
		groups++
	}
	if groups == 0 {
		return
	}
	val := func(xs []float64) string {
		v := fold(ag.name, xs)
		if ag.rounded {
			v = roundTo(v, ag.digits)
		}
		return result.PyFloatRepr(v)
	}
	f := Finding{Kind: FloatOrder, Clause: p.text(ag.outer), Subquery: sub, Rows: len(orders[0]), Groups: groups,
		Values: []string{val(orders[0]), val(orders[1])}}
	if nKeys > 0 {
		f.Group = cells(first.key)
	}
	f.EngineValues = a.engineSums(p, ag, firstVals, how)
	what := "float values"
	if texts {
		what = "numbers stored as text (read as numbers, a placeholder as 0)"
	}
	f.Detail = fmt.Sprintf("%s over %d %s is %s summed in the order read and %s summed in %s order", f.Clause, f.Rows, what, f.Values[0], f.Values[1], how)
	if len(f.EngineValues) == 2 {
		same := "the same"
		if f.EngineValues[0] != f.EngineValues[1] {
			same = "different"
		}
		f.Detail += fmt.Sprintf("; the engine itself sums them to %s values (%s, %s)", same, f.EngineValues[0], f.EngineValues[1])
	}
	if groups > 1 {
		f.Detail += fmt.Sprintf("; %d groups differ", groups)
	}
	a.add(f)
}

// otherOrder returns xs in the first other order (reversed, then
// ascending) under which the aggregate's value, rounded as the query
// rounds it, differs from its value in xs's order.
func otherOrder(ag aggCall, xs []float64) ([]float64, string, bool) {
	val := func(xs []float64) float64 {
		v := fold(ag.name, xs)
		if ag.rounded {
			v = roundTo(v, ag.digits)
		}
		return v
	}
	v := val(xs)
	rev := slices.Clone(xs)
	slices.Reverse(rev)
	if w := val(rev); w != v {
		return rev, "reverse", true
	}
	asc := slices.Clone(xs)
	slices.Sort(asc)
	if w := val(asc); w != v {
		return asc, "ascending", true
	}
	return nil, "", false
}

// engineSums sums vals on the engine in the order read and in the other
// order named how (a VALUES list each, through the query's own aggregate
// and round), and returns the two values printed; nil on MySQL, past
// maxEngineValues, or when a query fails.
func (a *auditor) engineSums(p *parsed, ag aggCall, vals []result.Value, how string) []string {
	d := a.c.Engine.Dialect()
	if d == engine.MySQL || len(vals) > maxEngineValues {
		return nil
	}
	arg := ag.call.Args[0]
	expr := p.sql[ag.outer.Pos():arg.Pos()] + "x" + p.sql[p.end(arg):p.end(ag.outer)]
	other := slices.Clone(vals)
	if how == "reverse" {
		slices.Reverse(other)
	} else {
		slices.SortStableFunc(other, func(x, y result.Value) int { return compareFloat(asFloat(x), asFloat(y)) })
	}
	var out []string
	for _, vs := range [][]result.Value{vals, other} {
		res := a.aux("float_order", "WITH v(x) AS (VALUES "+valuesList(d, vs)+") SELECT "+expr+" FROM v")
		if res == nil || res.Len() != 1 || len(res.Rows[0]) != 1 {
			return nil
		}
		out = append(out, result.PyStr(res.Rows[0][0]))
	}
	return out
}

// asFloat is a number value as a float64.
func asFloat(v result.Value) float64 {
	if v.K == result.Int {
		return float64(v.I)
	}
	return v.F
}

// compareFloat orders two floats.
func compareFloat(x, y float64) int {
	switch {
	case x < y:
		return -1
	case x > y:
		return 1
	}
	return 0
}

// valuesList prints values as the rows of a VALUES list: integers as
// written, floats exactly (a float literal on SQLite, a cast to double
// precision elsewhere, where a decimal literal would be exact numeric).
func valuesList(d engine.Dialect, vs []result.Value) string {
	var b strings.Builder
	for i, v := range vs {
		if i > 0 {
			b.WriteString(", ")
		}
		switch {
		case v.K == result.Int:
			b.WriteString("(" + strconv.FormatInt(v.I, 10) + ")")
		case d == engine.SQLite:
			b.WriteString("(" + strconv.FormatFloat(v.F, 'e', -1, 64) + ")")
		default:
			b.WriteString("(CAST('" + strconv.FormatFloat(v.F, 'e', -1, 64) + "' AS DOUBLE PRECISION))")
		}
	}
	return b.String()
}

// textMaxMin reports a MAX or MIN over text values that all parse as
// numbers, in a group where the value picked as text is not the one
// picked as a number ('9' > '10').
func (a *auditor) textMaxMin(p *parsed, ag aggCall, gs []*group, nKeys, j int, sub string) {
	var first *group
	var pair [2]string
	var n, groups int
	for _, g := range gs {
		col := make([]result.Value, 0, len(g.rows))
		var texts []string
		for _, r := range g.rows {
			if v := r[nKeys+j]; !v.IsNull() {
				col, texts = append(col, v), append(texts, v.S)
			}
		}
		nums, _, ok := numericTexts(col)
		if !ok {
			continue
		}
		asText, _ := pick(ag.name, texts)
		_, asNumber := pick(ag.name, nums)
		if isNumber(asText) && number(asText) == number(asNumber) {
			continue
		}
		if groups == 0 {
			first, pair, n = g, [2]string{asText, asNumber}, len(texts)
		}
		groups++
	}
	if groups == 0 {
		return
	}
	word := map[string]string{"max": "largest", "min": "smallest"}[ag.name]
	f := Finding{Kind: TextNumbers, Clause: p.text(ag.outer), Subquery: sub, Values: pair[:], Rows: n, Groups: groups,
		Detail: fmt.Sprintf("%s compares numbers stored as text: it picks '%s' where the %s number is '%s'", p.text(ag.call), pair[0], word, pair[1])}
	if nKeys > 0 {
		f.Group = cells(first.key)
	}
	if groups > 1 {
		f.Detail += fmt.Sprintf(" (%d groups)", groups)
	}
	a.add(f)
}

// pick returns the value MAX or MIN (name) picks among numeric texts
// compared as text, and the one it picks compared as numbers.
func pick(name string, vals []string) (asText, asNumber string) {
	asText, asNumber = vals[0], vals[0]
	for _, v := range vals[1:] {
		if name == "max" && v > asText || name == "min" && v < asText {
			asText = v
		}
		if !isNumber(v) {
			continue
		}
		if !isNumber(asNumber) || name == "max" && number(v) > number(asNumber) || name == "min" && number(v) < number(asNumber) {
			asNumber = v
		}
	}
	return asText, asNumber
}
