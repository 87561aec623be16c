package report

import (
	"bytes"
	"math"
	"reflect"
	"strings"
	"testing"

	"github.com/sqljudge/sqljudge/internal/metric"
	"github.com/sqljudge/sqljudge/internal/run"
	"github.com/sqljudge/sqljudge/internal/status"
)

func rec(diff string, v map[string]metric.Verdict) run.Record {
	return run.Record{Difficulty: diff, Verdicts: v, Pred: "SELECT 1"}
}

func TestSummarize(t *testing.T) {
	ok := func(c bool, d metric.Details) metric.Verdict {
		return metric.Verdict{Correct: c, Status: "ok", Details: d}
	}
	recs := []run.Record{
		rec("hard", map[string]metric.Verdict{"ex": ok(true, nil), "sqleval": ok(true, metric.SQLEvalDetails{Exact: true})}),
		rec("easy", map[string]metric.Verdict{"ex": ok(false, nil), "sqleval": ok(true, metric.SQLEvalDetails{})}),
		rec("easy", map[string]metric.Verdict{"ex": {Status: "timeout"}, "sqleval": {Status: "timeout", Details: metric.SQLEvalDetails{}}}),
		rec("medium", map[string]metric.Verdict{"ex": ok(true, nil)}),
	}
	s := Summarize(recs, []string{"ex", "sqleval"})
	if got := s.Difficulties; strings.Join(got, ",") != "easy,medium,hard" {
		t.Errorf("difficulties %v, want Spider's order", got)
	}
	ex := s.Overall["ex"]
	if ex.Count != 4 || ex.Correct != 2 || ex.Accuracy != 0.5 || ex.Status["ok"] != 3 || ex.Status["timeout"] != 1 {
		t.Errorf("overall ex %+v", ex)
	}
	se := s.Overall["sqleval"]
	if se.Count != 3 || se.Correct != 2 || se.Fields["exact"] != 1.0/3 {
		t.Errorf("overall sqleval %+v", se)
	}
	if e := s.ByDifficulty["easy"]["ex"]; e.Count != 2 || e.Correct != 0 {
		t.Errorf("easy ex %+v", e)
	}
	if _, ok := s.ByDifficulty["medium"]["sqleval"]; ok {
		t.Error("a metric without verdicts at a level has no score there")
	}
	var b bytes.Buffer
	PrintTable(&b, s)
	for _, want := range []string{"easy", "medium", "hard", "all", "0.500", "sqleval exact", "timeout"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("table lacks %q:\n%s", want, b.String())
		}
	}
}

func TestOrderLevels(t *testing.T) {
	got := orderLevels([]string{"zeta", "challenging", "simple", "alpha", "moderate"})
	if strings.Join(got, ",") != "simple,moderate,challenging,alpha,zeta" {
		t.Errorf("orderLevels = %v", got)
	}
}

func TestSummarizeFigures(t *testing.T) {
	v := func(score float64) metric.Verdict {
		return metric.Verdict{Correct: score > 0, Status: "ok", Details: metric.VESDetails{Score: score, Ratio: score * score}}
	}
	var recs []run.Record
	scores := []float64{1, 1.1, 0, 0.9, 1.2, 0, 1, 0.8}
	for i, x := range scores {
		d := "simple"
		if i%2 == 1 {
			d = "moderate"
		}
		recs = append(recs, rec(d, map[string]metric.Verdict{"ves": v(x), "ex": {Correct: x > 0, Status: "ok"}}))
	}
	s := Summarize(recs, []string{"ex", "ves"})
	ves := s.Overall["ves"]
	if ves.Figure == nil || *ves.Figure != 100*6.0/8 {
		t.Fatalf("ves figure %v, want 75", ves.Figure)
	}
	if lo, hi := ves.FigureCI95[0], ves.FigureCI95[1]; !(lo < 75 && 75 < hi && lo >= 0 && hi <= 120) {
		t.Errorf("ves interval [%v, %v] should hold 75", lo, hi)
	}
	if m := s.ByDifficulty["moderate"]["ves"]; m.Figure == nil || math.Abs(*m.Figure-100*(1.1+0.9+0+0.8)/4) > 1e-9 {
		t.Errorf("moderate ves figure %v", m.Figure)
	}
	if s.Overall["ex"].Figure != nil || s.Overall["ex"].FigureCI95 != nil {
		t.Error("ex has no figure")
	}
	if ex := s.Overall["ex"]; ex.Headline != 0.75 || ex.HeadlineName != "accuracy" {
		t.Errorf("ex headline %v %q, want its accuracy", ex.Headline, ex.HeadlineName)
	}
	if m := s.ByDifficulty["moderate"]["ves"]; ves.Headline != 75 || ves.HeadlineName != "VES x100" || m.Headline != *m.Figure {
		t.Errorf("ves headline %v %q (moderate %v), want the VES figure", ves.Headline, ves.HeadlineName, m.Headline)
	}
	if len(s.Notes) != 1 || !strings.Contains(s.Notes[0], "ves: the headline is VES x100 = 75.00") || !strings.Contains(s.Notes[0], "accuracy 0.7500 is the secondary all-or-nothing share") {
		t.Errorf("notes %q should say what the headline is", s.Notes)
	}
	again := Summarize(recs, []string{"ex", "ves"})
	if again.Overall["ves"].FigureCI95[0] != ves.FigureCI95[0] {
		t.Error("the bootstrap interval must be deterministic")
	}
	var b bytes.Buffer
	PrintTable(&b, s)
	for _, want := range []string{"ves VES x100  ", "75.00", "ves accuracy (all-or-nothing)", "ves VES x100: 75.00, 95% bootstrap interval over 8 items"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("table lacks %q:\n%s", want, b.String())
		}
	}
}

// A judge that could not judge (judge_error, judge_unparseable) has not
// found the prediction wrong: accuracy is over the judged items, with the
// unjudged count beside it in the summary and the table.
func TestUnjudgedItemsAreNotWrong(t *testing.T) {
	v := func(c bool, st string) metric.Verdict { return metric.Verdict{Correct: c, Status: status.Status(st)} }
	recs := []run.Record{
		rec("easy", map[string]metric.Verdict{"ex": v(true, "ok"), "xscore": v(true, "ok")}),
		rec("easy", map[string]metric.Verdict{"ex": v(false, "ok"), "xscore": v(false, "ok")}),
		rec("hard", map[string]metric.Verdict{"ex": v(true, "ok"), "xscore": v(false, "judge_error")}),
		rec("hard", map[string]metric.Verdict{"ex": v(false, "pred_error"), "xscore": v(false, "judge_unparseable")}),
	}
	s := Summarize(recs, []string{"ex", "xscore"})
	xs := s.Overall["xscore"]
	if xs.Count != 4 || xs.Unjudged != 2 || xs.Correct != 1 || xs.Accuracy != 0.5 {
		t.Errorf("xscore %+v; want accuracy 1/2 over the judged items", xs)
	}
	if h := s.ByDifficulty["hard"]["xscore"]; h.Unjudged != 2 || h.Accuracy != 0 {
		t.Errorf("hard xscore %+v", h)
	}
	if ex := s.Overall["ex"]; ex.Unjudged != 0 || ex.Accuracy != 0.5 {
		t.Errorf("ex %+v: a failing prediction still counts as wrong", ex)
	}
	if len(s.Notes) != 1 || !strings.Contains(s.Notes[0], "xscore") || !strings.Contains(s.Notes[0], "2 of 4") {
		t.Errorf("notes %q", s.Notes)
	}
	var b bytes.Buffer
	PrintTable(&b, s)
	for _, want := range []string{"xscore unjudged", s.Notes[0]} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("table lacks %q:\n%s", want, b.String())
		}
	}
}

// TestSummarizeByCategory checks the breakdown by a benchmark's category
// (SQL-Eval's query_category): every metric per category beside
// difficulty, items without a category only overall, and the console's
// category table.
func TestSummarizeByCategory(t *testing.T) {
	ok := func(c bool) metric.Verdict {
		return metric.Verdict{Correct: c, Status: "ok", Details: metric.SQLEvalDetails{Exact: c}}
	}
	recs := []run.Record{
		{Category: "group_by", Verdicts: map[string]metric.Verdict{"sqleval": ok(true), "ex": ok(true)}},
		{Category: "group_by", Verdicts: map[string]metric.Verdict{"sqleval": ok(false), "ex": ok(true)}},
		{Category: "order_by", Difficulty: "easy", Verdicts: map[string]metric.Verdict{"sqleval": ok(true), "ex": ok(false)}},
		{Verdicts: map[string]metric.Verdict{"sqleval": ok(false), "ex": ok(false)}},
	}
	s := Summarize(recs, []string{"sqleval", "ex"})
	if strings.Join(s.Categories, ",") != "group_by,order_by" {
		t.Fatalf("categories %v", s.Categories)
	}
	if g := s.ByCategory["group_by"]; g["sqleval"].Count != 2 || g["sqleval"].Accuracy != 0.5 || g["ex"].Accuracy != 1 || g["sqleval"].Fields["exact"] != 0.5 {
		t.Errorf("group_by %+v %+v", g["sqleval"], g["ex"])
	}
	if o := s.ByCategory["order_by"]; o["ex"].Count != 1 || o["ex"].Correct != 0 || o["ex"].HeadlineName != "accuracy" {
		t.Errorf("order_by ex %+v", o["ex"])
	}
	if s.Overall["ex"].Count != 4 || s.ByDifficulty["easy"]["ex"].Count != 1 {
		t.Error("categories must not change the overall and difficulty scores")
	}
	var b bytes.Buffer
	PrintTable(&b, s)
	if !strings.Contains(b.String(), "category") || !strings.Contains(b.String(), "group_by") {
		t.Errorf("console lacks the category table:\n%s", b.String())
	}
	if none := Summarize(recs[3:], nil); none.Categories != nil || none.ByCategory != nil {
		t.Errorf("no category: %v %v", none.Categories, none.ByCategory)
	}
}

// refutation is equiv's details as the summary reads them: a witness's
// kinds, the assumption and whether it was proved.
type refutation struct {
	kinds  []string
	assume string
	proved bool
}

func (d refutation) Numbers() map[string]float64 {
	if d.proved {
		return map[string]float64{"proved": 1}
	}
	return nil
}
func (d refutation) RestsOn() []string  { return d.kinds }
func (d refutation) Assumption() string { return d.assume }

// TestSummarizeEquivRefutes: with equiv beside ex and ts, the summary counts
// the items each calls correct that equiv refutes (by what each refutation
// rests on), those it proves and those it could not grade, and the items
// each calls wrong that equiv accepts (by why), names equiv's assumption
// beside its figures and says all of it in notes whose figures add up.
func TestSummarizeEquivRefutes(t *testing.T) {
	v := func(c bool) metric.Verdict { return metric.Verdict{Correct: c, Status: status.OK} }
	eq := func(c bool, d refutation) metric.Verdict {
		d.assume = "declared"
		return metric.Verdict{Correct: c, Status: status.OK, Details: d}
	}
	distinct := rec("", map[string]metric.Verdict{"ex": v(false), "ts": v(false), "equiv": eq(true, refutation{})})
	distinct.Pred = "SELECT DISTINCT name FROM t"
	recs := []run.Record{
		rec("", map[string]metric.Verdict{"ex": v(true), "ts": v(true), "equiv": eq(false, refutation{kinds: []string{"null"}})}),
		rec("", map[string]metric.Verdict{"ex": v(true), "ts": v(false), "equiv": eq(false, refutation{kinds: []string{"null", "duplicates"}})}),
		rec("", map[string]metric.Verdict{"ex": v(true), "ts": v(true), "equiv": eq(true, refutation{proved: true})}),
		rec("", map[string]metric.Verdict{"ex": v(false), "ts": v(false), "equiv": eq(false, refutation{kinds: []string{"value"}})}),
		rec("", map[string]metric.Verdict{"ex": v(true), "ts": v(true), "equiv": {Status: status.PredError}}),
		rec("", map[string]metric.Verdict{"ex": v(true), "ts": v(true), "equiv": eq(false, refutation{})}),
		distinct,
	}
	s := Summarize(recs, []string{"ex", "ts", "equiv"})
	want := map[string]Refuted{
		"ex": {Correct: 5, Refuted: 3, Proved: 1, Assume: "declared", RestsOn: map[string]int{"null": 1, "null+duplicates": 1, NoWitness: 1},
			NotGraded: 1, Accepted: 1, AcceptedWhy: map[string]int{AcceptedDistinct: 1}},
		"ts": {Correct: 4, Refuted: 2, Proved: 1, Assume: "declared", RestsOn: map[string]int{"null": 1, NoWitness: 1},
			NotGraded: 1, Accepted: 1, AcceptedWhy: map[string]int{AcceptedDistinct: 1}},
	}
	if !reflect.DeepEqual(s.EquivRefutes, want) {
		t.Fatalf("equiv refutes %+v", s.EquivRefutes)
	}
	if s.Overall["equiv"].Assume != "declared" || s.Overall["ex"].Assume != "" {
		t.Errorf("assume: equiv %q, ex %q", s.Overall["equiv"].Assume, s.Overall["ex"].Assume)
	}
	notes := strings.Join(s.Notes, "\n")
	for _, n := range []string{
		"equiv (assume declared) refutes 3 and proves 1 of the 5 items ex calls correct; the refutations rest on null 1, null+duplicates 1, no witness 1",
		"equiv (assume declared) accuracy 0.2857 (2 of 7) = the 5 items ex calls correct - 3 equiv refutes - 1 equiv could not grade + 1 ex calls wrong and equiv accepts (1 with a DISTINCT in the gold or prediction, which ex drops",
		"equiv (assume declared) witnesses (3) rest on: null 2, duplicates 1, value 1",
	} {
		if !strings.Contains(notes, n) {
			t.Errorf("no note %q in\n%s", n, notes)
		}
	}
	if s := Summarize(recs, []string{"ex", "ts"}); s.EquivRefutes != nil {
		t.Errorf("without equiv: %+v", s.EquivRefutes)
	}
}

// TestCountHazards counts the items with gold hazards by kind and, per
// metric, the wrong verdicts on them; PrintHazards says both, kinds in
// the order given.
func TestCountHazards(t *testing.T) {
	v := func(c bool) metric.Verdict { return metric.Verdict{Correct: c, Status: status.OK} }
	hz := func(r run.Record, kinds ...string) run.Record {
		for _, k := range kinds {
			r.GoldHazards = append(r.GoldHazards, run.GoldHazard{Kind: k, Detail: "d"})
		}
		return r
	}
	recs := []run.Record{
		hz(rec("", map[string]metric.Verdict{"ex": v(false), "equiv": v(false)}), "limit_ties", "null_order", "limit_ties"),
		hz(rec("", map[string]metric.Verdict{"ex": v(true), "equiv": v(false)}), "empty"),
		rec("", map[string]metric.Verdict{"ex": v(false), "equiv": {Status: status.PredError}}),
		rec("", map[string]metric.Verdict{"ex": v(true), "equiv": v(true)}),
	}
	for i := range recs {
		recs[i].Index = i
	}
	c := CountHazards(recs)
	want := &HazardCounts{Items: 2, ByKind: map[string]int{"limit_ties": 1, "null_order": 1, "empty": 1}, Wrong: map[string]WrongCount{
		"ex":    {Wrong: 2, OnHazard: 1, ByKind: map[string]int{"limit_ties": 1, "null_order": 1}},
		"equiv": {Wrong: 3, OnHazard: 2, ByKind: map[string]int{"limit_ties": 1, "null_order": 1, "empty": 1}},
	}}
	if !reflect.DeepEqual(c, want) {
		t.Fatalf("got %+v", c)
	}
	var b strings.Builder
	PrintHazards(&b, &Summary{Items: 4, Metrics: []string{"ex", "equiv"}, GoldHazards: c}, []string{"empty", "limit_ties", "null_order"})
	for _, line := range []string{
		"gold audit: 2 of 4 items have gold hazards (empty 1, limit_ties 1, null_order 1)",
		"gold audit: 1 of the 2 items ex calls wrong sit on a gold with a hazard (limit_ties 1, null_order 1)",
		"gold audit: 2 of the 3 items equiv calls wrong sit on a gold with a hazard (empty 1, limit_ties 1, null_order 1)",
	} {
		if !strings.Contains(b.String(), line) {
			t.Errorf("no %q in\n%s", line, b.String())
		}
	}
}
