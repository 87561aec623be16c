package audit

import (
	"fmt"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/sqljudge/sqljudge/internal/engine"
	"github.com/sqljudge/sqljudge/internal/result"
	"github.com/sqljudge/sqljudge/internal/sqlast"
)

// nullOrder reports an ORDER BY whose NULL keys put different rows in
// what the SELECT keeps (or, when the rule compares in order, in another
// order) under SQLite's and MySQL's placement (NULLs first in ascending
// order, last in descending) and PostgreSQL's (the reverse). Both are run
// on the engine with NULLS FIRST/LAST spelled out on each key that does
// not say it already; the rows of the two must differ, and a NULL key be
// among them (a difference among ties without NULLs is limit_ties').
func (a *auditor) nullOrder(o *orderedSelect, out, keys [][]result.Value, inOrder bool) {
	if !o.limit && !inOrder {
		return
	}
	if a.c.Engine.Dialect() == engine.MySQL {
		a.skip("null_order", ReasonNoNulls)
		return
	}
	explicit := true
	for _, t := range o.core.OrderBy {
		explicit = explicit && t.Nulls != 0
	}
	complete := !o.limit || len(out) < o.window()
	if explicit || complete && !anyNull(keys) {
		return
	}
	placement := func(nullsLow bool) func(int, *sqlast.OrderingTerm) string {
		return func(_ int, t *sqlast.OrderingTerm) string {
			if t.Nulls != 0 {
				return ""
			}
			first := nullsLow != (t.Order == sqlast.SortDesc)
			return o.p.text(t) + map[bool]string{true: " NULLS FIRST", false: " NULLS LAST"}[first]
		}
	}
	low := a.aux("null_order", o.query(placement(true)))
	if low == nil {
		return
	}
	high := a.aux("null_order", o.query(placement(false)))
	if high == nil {
		return
	}
	c, differ := o.compare(low, high, inOrder)
	if !differ || !anyNull(c.xKeys) && !anyNull(c.yKeys) {
		return
	}
	f := o.finding(NullOrder, low)
	c.evidence(&f, a.c.maxEvidence())
	f.Detail = fmt.Sprintf("(%s) holds NULLs: SQLite and MySQL sort them first in ascending order, PostgreSQL last, and the query %s under each (kept: as SQLite and MySQL sort; instead: as PostgreSQL sorts)",
		strings.Join(o.sortKeys(), ", "), o.changes())
	a.add(f)
}

// changes says what another order changes in the SELECT's result.
func (o *orderedSelect) changes() string {
	if o.limit {
		return "keeps other rows"
	}
	return "returns its rows in another order, which the rule compares"
}

// comparison is what two auxiliary results of one SELECT keep (their
// rows and keys within the kept region) and where they differ: the
// positions of the rows only each keeps (see diffRegions).
type comparison struct {
	xOut, xKeys, yOut, yKeys [][]result.Value
	onlyX, onlyY             []int
}

// compare reads two auxiliary results of o and compares the rows they
// keep, as bags or, when inOrder, in order; differ is false when they
// keep the same.
func (o *orderedSelect) compare(x, y *result.Set, inOrder bool) (c comparison, differ bool) {
	xOut, xKeys := o.rowsOf(x)
	yOut, yKeys := o.rowsOf(y)
	x0, x1 := o.region(len(xOut))
	y0, y1 := o.region(len(yOut))
	c = comparison{xOut: xOut[x0:x1], xKeys: xKeys[x0:x1], yOut: yOut[y0:y1], yKeys: yKeys[y0:y1]}
	c.onlyX, c.onlyY, differ = diffRegions(c.xOut, c.yOut, inOrder)
	return c, differ
}

// evidence sets f's Kept and Instead to the rows only the first and only
// the second result keep, at most limit each.
func (c comparison) evidence(f *Finding, limit int) {
	var cut1, cut2 bool
	f.Kept, cut1 = rowsCells(pickRows(c.xOut, c.onlyX), limit)
	f.Instead, cut2 = rowsCells(pickRows(c.yOut, c.onlyY), limit)
	f.EvidenceCut = cut1 || cut2
}

// anyNull reports whether some key is NULL.
func anyNull(keys [][]result.Value) bool {
	for _, k := range keys {
		for _, v := range k {
			if v.IsNull() {
				return true
			}
		}
	}
	return false
}

// diffRegions compares the rows two orders keep: as bags, or in order
// when inOrder. It returns the positions of the rows only the first keeps
// and of those only the second keeps (as bags), or, when the bags agree
// but the order does not, both from the first position where they differ.
func diffRegions(x, y [][]result.Value, inOrder bool) (onlyX, onlyY []int, differ bool) {
	onlyX, onlyY = notIn(x, y), notIn(y, x)
	if len(onlyX) > 0 || len(onlyY) > 0 {
		return onlyX, onlyY, true
	}
	if !inOrder {
		return nil, nil, false
	}
	for i := range x {
		if result.RowKey(x[i]) != result.RowKey(y[i]) {
			for k := i; k < len(x); k++ {
				onlyX, onlyY = append(onlyX, k), append(onlyY, k)
			}
			return onlyX, onlyY, true
		}
	}
	return nil, nil, false
}

// notIn returns the positions of the rows of x left once every row of y
// is matched with an equal row of x (a bag difference).
func notIn(x, y [][]result.Value) []int {
	count := map[string]int{}
	for _, r := range y {
		count[result.RowKey(r)]++
	}
	var out []int
	for i, r := range x {
		if k := result.RowKey(r); count[k] > 0 {
			count[k]--
		} else {
			out = append(out, i)
		}
	}
	return out
}

// pick returns the rows of rows at positions idx.
func pickRows(rows [][]result.Value, idx []int) [][]result.Value {
	out := make([][]result.Value, len(idx))
	for i, k := range idx {
		out[i] = rows[k]
	}
	return out
}

// textOrder reports an ORDER BY key that sorts numbers stored as text
// ('10' before '9'), when sorting them as numbers changes what the SELECT
// keeps (or, in order, what it returns). A key qualifies when every value
// read is text that parses as a number and their text order and numeric
// order differ; the SELECT then runs again with those keys cast to
// numbers (a single core only: a compound's keys are its columns).
func (a *auditor) textOrder(o *orderedSelect, res *result.Set, inOrder bool) {
	if !o.limit && !inOrder || !o.appended {
		return
	}
	_, keys := o.rowsOf(res)
	inverted := map[int][2]string{}
	for k := range o.keyText {
		if pair, ok := textInversion(keys, k); ok {
			inverted[k] = pair
		}
	}
	if len(inverted) == 0 {
		return
	}
	d := a.c.Engine.Dialect()
	num := a.aux("text_numbers", o.query(func(i int, t *sqlast.OrderingTerm) string {
		if _, ok := inverted[i]; !ok {
			return ""
		}
		return numericTerm(d, o.keyText[i], o.p.sql[o.p.end(t.Expr):o.p.end(t)])
	}))
	if num == nil {
		return
	}
	c, differ := o.compare(res, num, inOrder)
	if !differ {
		return
	}
	k := slices.Sorted(maps.Keys(inverted))[0]
	if len(c.onlyX) > 0 && len(c.onlyY) > 0 {
		// The keys of the first rows that differ show the inversion best.
		if pair, ok := invertedPair(c.xKeys[c.onlyX[0]][k], c.yKeys[c.onlyY[0]][k]); ok {
			inverted[k] = pair
		}
	}
	f := o.finding(TextNumbers, num)
	c.evidence(&f, a.c.maxEvidence())
	f.Values = []string{inverted[k][0], inverted[k][1]}
	f.Detail = fmt.Sprintf("%s holds numbers as text and sorts them as text ('%s' < '%s' as text, %s > %s as numbers); sorted as numbers, the query %s (kept: as text; instead: as numbers)",
		o.sortKeys()[k], inverted[k][0], inverted[k][1], inverted[k][0], inverted[k][1], o.changes())
	a.add(f)
}

// textInversion reports whether column k of keys holds numbers stored as
// text (numericTexts) whose text order is not their numeric order; pair
// is two values that invert: the first sorts before the second as text
// and after it as a number.
func textInversion(keys [][]result.Value, k int) (pair [2]string, ok bool) {
	col := make([]result.Value, len(keys))
	for i, r := range keys {
		col[i] = r[k]
	}
	nums, _, ok := numericTexts(col)
	if !ok {
		return pair, false
	}
	return textNumberInversion(nums)
}

// invertedPair returns x and y, the one that sorts first as text first,
// when both are numbers stored as text whose text order and numeric order
// differ.
func invertedPair(x, y result.Value) ([2]string, bool) {
	if x.K != result.Text || y.K != result.Text || !isNumber(x.S) || !isNumber(y.S) {
		return [2]string{}, false
	}
	a, b := x.S, y.S
	if b < a {
		a, b = b, a
	}
	return [2]string{a, b}, a < b && number(a) > number(b)
}

// placeholders are the texts that stand for a missing number in a column
// of numbers stored as text (Spider's car_1 writes 'null'), compared in
// lower case.
var placeholders = []string{"null", "none", "nan", "n/a", "na"}

// isPlaceholder reports whether s is one of placeholders.
func isPlaceholder(s string) bool {
	return slices.Contains(placeholders, strings.ToLower(strings.TrimSpace(s)))
}

// numericTexts returns the texts of vals that parse as numbers, and how
// many are placeholders; ok says every value is NULL, such a number or a
// placeholder, with at least two distinct numbers.
func numericTexts(vals []result.Value) (nums []string, holders int, ok bool) {
	distinct := map[string]bool{}
	for _, v := range vals {
		switch {
		case v.IsNull():
		case v.K != result.Text:
			return nil, 0, false
		case isNumber(v.S):
			nums = append(nums, v.S)
			distinct[v.S] = true
		case isPlaceholder(v.S):
			holders++
		default:
			return nil, 0, false
		}
	}
	return nums, holders, len(distinct) >= 2
}

// textNumberInversion sorts distinct numeric texts as text and returns
// the first adjacent pair whose numeric order is reversed.
func textNumberInversion(vals []string) (pair [2]string, ok bool) {
	slices.Sort(vals)
	vals = slices.Compact(vals)
	for i := 0; i+1 < len(vals); i++ {
		if number(vals[i]) > number(vals[i+1]) {
			return [2]string{vals[i], vals[i+1]}, true
		}
	}
	return pair, false
}

// isNumber reports whether s is a finite decimal number as written (no
// surrounding space).
func isNumber(s string) bool {
	if s == "" || strings.TrimSpace(s) != s {
		return false
	}
	f, err := strconv.ParseFloat(s, 64)
	return err == nil && !math.IsInf(f, 0) && !math.IsNaN(f)
}

// number parses a text isNumber accepted.
func number(s string) float64 {
	f, _ := strconv.ParseFloat(s, 64)
	return f
}

// numericTerm returns ORDER BY terms that sort expression e (with the
// term's direction and NULLS words, suffix) as a number in dialect d:
// placeholders first sort where text puts them, after every number in
// ascending order (letters sort after digits), then the numbers by value.
func numericTerm(d engine.Dialect, e, suffix string) string {
	quoted := make([]string, len(placeholders))
	for i, p := range placeholders {
		quoted[i] = "'" + p + "'"
	}
	isHolder := "lower(" + e + ") IN (" + strings.Join(quoted, ", ") + ")"
	value := "CASE WHEN " + isHolder + " THEN NULL ELSE " + e + " END"
	var num string
	switch d {
	case engine.SQLite:
		num = "CAST(" + value + " AS REAL)"
	case engine.MySQL:
		num = "((" + value + ") + 0)"
	default:
		num = "CAST(" + value + " AS DOUBLE PRECISION)"
	}
	return "CASE WHEN " + isHolder + " THEN 1 ELSE 0 END" + suffix + ", " + num + suffix
}
