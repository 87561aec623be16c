package spider

import (
	"fmt"
	"strconv"
	"strings"
)

// Component indexes the partial scores, in the order of the official
// table (evaluation.print_scores partial_types).
type Component int

// The partial-match components of evaluation.Evaluator.eval_partial_match.
const (
	CompSelect Component = iota
	CompSelectNoAgg
	CompWhere
	CompWhereNoOp
	CompGroupNoHaving
	CompGroup
	CompOrder
	CompAndOr
	CompIUEN
	CompKeywords
	NumComponents
)

// ComponentNames are the official names of the components, by Component.
var ComponentNames = [NumComponents]string{
	"select", "select(no AGG)", "where", "where(no OP)", "group(no Having)",
	"group", "order", "and/or", "IUEN", "keywords",
}

// String returns the component's official name.
func (c Component) String() string {
	if c >= 0 && c < NumComponents {
		return ComponentNames[c]
	}
	return "component(" + strconv.Itoa(int(c)) + ")"
}

// Score is one partial-match component of one item, as
// eval_partial_match records it. The official get_scores always returns
// acc = rec = f1, all 0 or 1, so one number holds them; LabelTotal and
// PredTotal are the counts the official aggregation conditions on (acc
// counts items with PredTotal > 0, recall those with LabelTotal > 0).
type Score struct {
	// Match is 1 where acc, rec and f1 are 1, else 0.
	Match int
	// LabelTotal and PredTotal are the official label_total and
	// pred_total (for and/or they are swapped, as eval_and_or returns
	// them).
	LabelTotal, PredTotal int
}

// Partial holds the ten partial-match scores of one item, by Component.
type Partial [NumComponents]Score

// getScores is evaluation.get_scores.
func getScores(count, predTotal, labelTotal int) Score {
	s := Score{LabelTotal: labelTotal, PredTotal: predTotal}
	if predTotal == labelTotal && count == predTotal {
		s.Match = 1
	}
	return s
}

// evalSel is evaluation.eval_sel: how many predicted select items are in
// the gold list (each gold item used once), with and without their
// aggregates.
func evalSel(pred, label *SQL) (labelTotal, predTotal, cnt, cntWoAgg int) {
	labelSel := append([]SelectItem(nil), label.Select.Items...)
	labelWoAgg := make([]ValUnit, len(labelSel))
	for i, u := range labelSel {
		labelWoAgg[i] = u.Val
	}
	predTotal, labelTotal = len(pred.Select.Items), len(labelSel)
	for _, u := range pred.Select.Items {
		for i, l := range labelSel {
			if l.Agg == u.Agg && l.Val.Equal(u.Val) {
				cnt++
				labelSel = append(labelSel[:i], labelSel[i+1:]...)
				break
			}
		}
		for i, l := range labelWoAgg {
			if l.Equal(u.Val) {
				cntWoAgg++
				labelWoAgg = append(labelWoAgg[:i], labelWoAgg[i+1:]...)
				break
			}
		}
	}
	return
}

// evalWhere is evaluation.eval_where over the conditions at even
// positions (all cond_units once Rebuild has succeeded).
func evalWhere(pred, label *SQL) (labelTotal, predTotal, cnt, cntWoAgg int) {
	predConds, labelConds := pred.Where.Units(), label.Where.Units()
	labelWoAgg := make([]ValUnit, len(labelConds))
	for i, u := range labelConds {
		labelWoAgg[i] = u.Unit.Val
	}
	predTotal, labelTotal = len(predConds), len(labelConds)
	for _, u := range predConds {
		for i, l := range labelConds {
			if l.Equal(u) {
				cnt++
				labelConds = append(labelConds[:i], labelConds[i+1:]...)
				break
			}
		}
		for i, l := range labelWoAgg {
			if l.Equal(u.Unit.Val) {
				cntWoAgg++
				labelWoAgg = append(labelWoAgg[:i], labelWoAgg[i+1:]...)
				break
			}
		}
	}
	return
}

// groupCol is the column part eval_group compares: the text after the
// first "." of a column id ("__t.c__" gives "c__"), the id itself without
// one.
func groupCol(id string) string {
	if !strings.Contains(id, ".") {
		return id
	}
	return strings.Split(id, ".")[1]
}

// evalGroup is evaluation.eval_group: GROUP BY columns compared by column
// name only.
func evalGroup(pred, label *SQL) (labelTotal, predTotal, cnt int) {
	predTotal, labelTotal = len(pred.GroupBy), len(label.GroupBy)
	labelCols := make([]string, len(label.GroupBy))
	for i, c := range label.GroupBy {
		labelCols[i] = groupCol(c.Col)
	}
	for _, c := range pred.GroupBy {
		col := groupCol(c.Col)
		for i, l := range labelCols {
			if l == col {
				cnt++
				labelCols = append(labelCols[:i], labelCols[i+1:]...)
				break
			}
		}
	}
	return
}

// evalHaving is evaluation.eval_having: the same GROUP BY column ids in
// order and an equal HAVING.
func evalHaving(pred, label *SQL) (labelTotal, predTotal, cnt int) {
	if len(pred.GroupBy) > 0 {
		predTotal = 1
	}
	if len(label.GroupBy) > 0 {
		labelTotal = 1
	}
	if predTotal == 1 && labelTotal == 1 && len(pred.GroupBy) == len(label.GroupBy) && pred.Having.Equal(label.Having) {
		same := true
		for i := range pred.GroupBy {
			if pred.GroupBy[i].Col != label.GroupBy[i].Col {
				same = false
			}
		}
		if same {
			cnt = 1
		}
	}
	return
}

// evalOrder is evaluation.eval_order: an equal ORDER BY, and a LIMIT on
// both or neither.
func evalOrder(pred, label *SQL) (labelTotal, predTotal, cnt int) {
	if pred.OrderBy != nil {
		predTotal = 1
	}
	if label.OrderBy != nil {
		labelTotal = 1
	}
	if label.OrderBy != nil && pred.OrderBy.Equal(label.OrderBy) && pred.HasLimit == label.HasLimit {
		cnt = 1
	}
	return
}

// condKey is a hashable rendering of a condition item for the sets of
// eval_and_or. A cond_unit holding a nested query cannot be hashed in
// Python (its dict); that is an error here.
func condKey(it CondItem) (string, error) {
	if it.Unit == nil {
		return "s:" + it.Conj, nil
	}
	u := it.Unit
	var b strings.Builder
	fmt.Fprintf(&b, "u:%v|%d|%s", u.Not, u.Op, valUnitKey(u.Val))
	for _, v := range []Value{u.Val1, u.Val2} {
		switch v.Kind {
		case ValSQL:
			return "", crash("TypeError: unhashable type: 'dict'")
		case ValNumber:
			b.WriteString("|n:" + strconv.FormatFloat(v.Num, 'g', -1, 64))
		case ValString:
			b.WriteString("|s:" + v.Str)
		case ValCol:
			b.WriteString("|c:" + colUnitKey(v.Col))
		default:
			b.WriteString("|none")
		}
	}
	return b.String(), nil
}

func colUnitKey(c ColUnit) string { return fmt.Sprintf("(%d,%q,%d)", c.Agg, c.Col, c.Distinct) }

func valUnitKey(v ValUnit) string {
	s := fmt.Sprintf("(%d,%s", v.Op, colUnitKey(v.Col1))
	if v.Col2 != nil {
		s += "," + colUnitKey(*v.Col2)
	}
	return s + ")"
}

// evalAndOr is evaluation.eval_and_or: the sets of WHERE items at odd
// positions (the conjunctions). Its totals come back swapped, as the
// official function returns them.
func evalAndOr(pred, label *SQL) (labelTotal, predTotal, cnt int, err error) {
	set := func(c Condition) (map[string]bool, error) {
		m := map[string]bool{}
		for _, it := range c.Conjs() {
			k, err := condKey(it)
			if err != nil {
				return nil, err
			}
			m[k] = true
		}
		return m, nil
	}
	p, err := set(pred.Where)
	if err != nil {
		return 0, 0, 0, err
	}
	l, err := set(label.Where)
	if err != nil {
		return 0, 0, 0, err
	}
	if len(p) == len(l) {
		same := true
		for k := range p {
			if !l[k] {
				same = false
			}
		}
		if same {
			return 1, 1, 1, nil
		}
	}
	return len(p), len(l), 0, nil
}

// evalNested is evaluation.eval_nested.
func evalNested(pred, label *SQL) (labelTotal, predTotal, cnt int, err error) {
	if pred != nil {
		predTotal = 1
	}
	if label != nil {
		labelTotal = 1
	}
	if pred != nil && label != nil {
		ok, _, err := ExactMatch(pred, label)
		if err != nil {
			return 0, 0, 0, err
		}
		if ok {
			cnt = 1
		}
	}
	return
}

// evalIUEN is evaluation.eval_IUEN: INTERSECT, EXCEPT and UNION parts
// compared by exact match.
func evalIUEN(pred, label *SQL) (labelTotal, predTotal, cnt int, err error) {
	for _, pair := range [][2]*SQL{{pred.Intersect, label.Intersect}, {pred.Except, label.Except}, {pred.Union, label.Union}} {
		lt, pt, c, err := evalNested(pair[0], pair[1])
		if err != nil {
			return 0, 0, 0, err
		}
		labelTotal, predTotal, cnt = labelTotal+lt, predTotal+pt, cnt+c
	}
	return
}

// Keywords is evaluation.get_keywords: the set of SQL keywords a query
// uses (where, group, having, order and its direction, limit, except,
// union, intersect, or, not, in, like).
func Keywords(sql *SQL) map[string]bool {
	res := map[string]bool{}
	if len(sql.Where) > 0 {
		res["where"] = true
	}
	if len(sql.GroupBy) > 0 {
		res["group"] = true
	}
	if len(sql.Having) > 0 {
		res["having"] = true
	}
	if sql.OrderBy != nil {
		res[sql.OrderBy.Dir] = true
		res["order"] = true
	}
	if sql.HasLimit {
		res["limit"] = true
	}
	if sql.Except != nil {
		res["except"] = true
	}
	if sql.Union != nil {
		res["union"] = true
	}
	if sql.Intersect != nil {
		res["intersect"] = true
	}
	conds := []Condition{sql.From.Conds, sql.Where, sql.Having}
	for _, c := range conds {
		for _, it := range c.Conjs() {
			if it.Unit == nil && it.Conj == "or" {
				res["or"] = true
			}
		}
		for _, it := range c.Units() {
			// cond_unit[0] is not_op; on a conjunction string it is its
			// first letter, which is truthy.
			if it.Unit == nil || it.Unit.Not {
				res["not"] = true
			}
			if it.Unit != nil && it.Unit.Op == OpIn {
				res["in"] = true
			}
			if it.Unit != nil && it.Unit.Op == OpLike {
				res["like"] = true
			}
		}
	}
	return res
}

// evalKeywords is evaluation.eval_keywords.
func evalKeywords(pred, label *SQL) (labelTotal, predTotal, cnt int) {
	pk, lk := Keywords(pred), Keywords(label)
	for k := range pk {
		if lk[k] {
			cnt++
		}
	}
	return len(lk), len(pk), cnt
}

// PartialMatch is evaluation.Evaluator.eval_partial_match on two rebuilt
// structures (see Rebuild): the ten component scores of pred against
// label. The error wraps ErrOfficialCrash where the official code raises.
func PartialMatch(pred, label *SQL) (Partial, error) {
	var p Partial
	lt, pt, cnt, cntWo := evalSel(pred, label)
	p[CompSelect] = getScores(cnt, pt, lt)
	p[CompSelectNoAgg] = getScores(cntWo, pt, lt)
	lt, pt, cnt, cntWo = evalWhere(pred, label)
	p[CompWhere] = getScores(cnt, pt, lt)
	p[CompWhereNoOp] = getScores(cntWo, pt, lt)
	lt, pt, cnt = evalGroup(pred, label)
	p[CompGroupNoHaving] = getScores(cnt, pt, lt)
	lt, pt, cnt = evalHaving(pred, label)
	p[CompGroup] = getScores(cnt, pt, lt)
	lt, pt, cnt = evalOrder(pred, label)
	p[CompOrder] = getScores(cnt, pt, lt)
	lt, pt, cnt, err := evalAndOr(pred, label)
	if err != nil {
		return p, err
	}
	p[CompAndOr] = getScores(cnt, pt, lt)
	lt, pt, cnt, err = evalIUEN(pred, label)
	if err != nil {
		return p, err
	}
	p[CompIUEN] = getScores(cnt, pt, lt)
	lt, pt, cnt = evalKeywords(pred, label)
	p[CompKeywords] = getScores(cnt, pt, lt)
	return p, nil
}

// ExactMatch is evaluation.Evaluator.eval_exact_match on two rebuilt
// structures: every partial component matches and, where the gold has FROM
// units, the sorted FROM units are equal. It returns the verdict and the
// partial scores. The error wraps ErrOfficialCrash where the official
// code raises (Python's sorted() comparing two different FROM subqueries,
// an unhashable condition).
func ExactMatch(pred, label *SQL) (bool, Partial, error) {
	p, err := PartialMatch(pred, label)
	if err != nil {
		return false, p, err
	}
	for _, s := range p {
		if s.Match != 1 {
			return false, p, nil
		}
	}
	if len(label.From.TableUnits) == 0 {
		return true, p, nil
	}
	if err := sortable(label.From.TableUnits); err != nil {
		return false, p, err
	}
	if err := sortable(pred.From.TableUnits); err != nil {
		return false, p, err
	}
	return sameTableUnits(pred.From.TableUnits, label.From.TableUnits), p, nil
}

// sortable reports the TypeError Python's sorted() raises on a list of
// table units holding two unequal subqueries (dicts do not order).
func sortable(units []TableUnit) error {
	var subs []*SQL
	for _, u := range units {
		if u.SQL != nil {
			subs = append(subs, u.SQL)
		}
	}
	for i := 1; i < len(subs); i++ {
		if !subs[i].Equal(subs[0]) {
			return crash("TypeError: '<' not supported between instances of 'dict' and 'dict'")
		}
	}
	return nil
}

// sameTableUnits compares two lists of table units as multisets, which is
// what comparing the sorted lists does.
func sameTableUnits(a, b []TableUnit) bool {
	if len(a) != len(b) {
		return false
	}
	used := make([]bool, len(b))
	for _, x := range a {
		found := false
		for j, y := range b {
			if !used[j] && x.Equal(y) {
				used[j], found = true, true
				break
			}
		}
		if !found {
			return false
		}
	}
	return true
}
