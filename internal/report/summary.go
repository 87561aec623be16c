// Package report turns run records (OUT/results.jsonl) into the summary
// (OUT/summary.json) and the console tables. It reads nothing but records,
// so a report can be rebuilt from any output folder.
package report

import (
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/sqljudge/sqljudge/internal/metric"
	"github.com/sqljudge/sqljudge/internal/run"
	"github.com/sqljudge/sqljudge/internal/sqllex"
	"github.com/sqljudge/sqljudge/internal/stats"
	"github.com/sqljudge/sqljudge/internal/status"
)

// SummaryFile is the name of the summary in an output folder.
const SummaryFile = "summary.json"

// SummarySchema identifies the summary format; it changes only when a
// field changes meaning.
const SummarySchema = "sqljudge.summary/v1"

// All is the name of the level that holds every item.
const All = "all"

// Score is one metric's result over a set of items.
type Score struct {
	// Count is the number of items graded by the metric.
	Count int `json:"count"`
	// Correct is the number with correct = true.
	Correct int `json:"correct"`
	// Unjudged is the number of items an LLM judge could not judge
	// (judge_error, judge_unparseable: status.Status.Unjudged); 0 for other
	// metrics.
	Unjudged int `json:"unjudged,omitempty"`
	// Accuracy is Correct / (Count - Unjudged), the share correct of the
	// items judged (0 when none was): a judge that failed has not found
	// the prediction wrong.
	Accuracy float64 `json:"accuracy"`
	// Status counts verdicts by status.
	Status map[status.Status]int `json:"status"`
	// Fields are per-metric extras: for a boolean verdict field (sqleval's
	// "exact") the share of items where it is true; for a numeric one (a
	// judge's "score") its mean over the items that have it.
	Fields map[string]float64 `json:"fields,omitempty"`
	// Figure is the metric's official headline number where it is not
	// accuracy (see metric.FigureOf): for ves and rves, VES and R-VES,
	// 100 x the mean "score" over the items (compute_ves). Absent for
	// other metrics.
	Figure *float64 `json:"figure,omitempty"`
	// FigureCI95 is a percentile-bootstrap 95% interval of Figure over the
	// items ([lo, hi]; 1000 resamples, seed 1, see
	// stats.BootstrapMeanCI95), where the metric asks for one.
	FigureCI95 []float64 `json:"figure_ci95,omitempty"`
	// Headline is the number to quote for the metric, its official
	// figure: Figure where the metric has one (soft_f1: Soft-F1, the mean
	// score, BIRD mini-dev evaluation_f1.py; ves, rves: VES / R-VES x100,
	// evaluation_ves.py), else Accuracy. For a metric with a Figure,
	// Accuracy is the secondary all-or-nothing share (items scoring 1).
	Headline float64 `json:"headline"`
	// HeadlineName says what Headline is: "accuracy" or the figure's
	// name (metric.Figure.Name: "Soft-F1", "VES x100", "R-VES x100").
	HeadlineName string `json:"headline_name"`
	// Assume is the assumption about the data the metric's verdicts were
	// decided under, for equiv and verdict (metric.Assumer, equiv's
	// --equiv-assume): "declared" or "observed"; absent for the others.
	// The same figure under the other assumption can differ by much
	// (Spider dev, DIN-SQL: equiv refutes 128 of EX's 851 correct items
	// under declared, 66 under observed).
	Assume string `json:"assume,omitempty"`
}

// AccuracyName is HeadlineName when the headline is the accuracy.
const AccuracyName = "accuracy"

// setHeadline sets sc's Headline and HeadlineName from its Figure, if
// it has one, else its Accuracy.
func setHeadline(sc *Score, m string) {
	sc.Headline, sc.HeadlineName = sc.Accuracy, AccuracyName
	if fig, ok := metric.FigureOf(m); ok && sc.Figure != nil {
		sc.Headline, sc.HeadlineName = *sc.Figure, fig.Name
	}
}

// figureResamples and figureSeed make the bootstrap intervals of figures
// deterministic.
const (
	figureResamples = 1000
	figureSeed      = 1
)

// Summary is OUT/summary.json.
type Summary struct {
	Schema string `json:"schema"`
	// Items is the number of records.
	Items int `json:"items"`
	// Metrics are the metric names, in the order they were asked for.
	Metrics []string `json:"metrics"`
	// Difficulties are the difficulty levels present, in report order
	// (Spider easy..extra, BIRD simple..challenging, others sorted); items
	// without a label are only in Overall.
	Difficulties []string `json:"difficulties"`
	// Overall maps metric name to its score over every item.
	Overall map[string]*Score `json:"overall"`
	// ByDifficulty maps level, then metric name, to a score.
	ByDifficulty map[string]map[string]*Score `json:"by_difficulty"`
	// Categories are the benchmark's item categories present (SQL-Eval's
	// query_category, run.Record.Category), sorted; absent when no item
	// has one.
	Categories []string `json:"categories,omitempty"`
	// ByCategory maps category, then metric name, to a score, as
	// ByDifficulty does for levels; items without a category are only in
	// Overall.
	ByCategory map[string]map[string]*Score `json:"by_category,omitempty"`
	// WallSeconds is the wall time of the run that wrote the records (of
	// its last part, when resumed).
	WallSeconds float64 `json:"wall_seconds"`
	// Run describes the run: inputs and settings.
	Run *RunInfo `json:"run,omitempty"`
	// Notes say how to read the figures where that differs from the
	// plain share correct (metrics with unjudged items).
	Notes []string `json:"notes,omitempty"`
	// Partial is em's official partial-matching table (eval --partial; see
	// Partial), absent otherwise.
	Partial *PartialTable `json:"partial,omitempty"`
	// EquivRefutes maps ex and ts, when they ran with equiv, to how many
	// items they call correct and how many of those equiv refutes (a
	// witness, or a difference on the item's database); absent without
	// equiv.
	EquivRefutes map[string]Refuted `json:"equiv_refutes,omitempty"`
	// DecidedBy maps a metric whose verdicts name how each item was
	// decided (metric.Decider: the verdict metric's escalation step) to
	// the count of items per way, {"verdict": {"ex": 15, "equiv_witness":
	// 7, "equiv_no_witness": 9}}; absent without such a metric.
	DecidedBy map[string]map[string]int `json:"decided_by,omitempty"`
	// GoldHazards counts, for a run with eval --audit, the items whose
	// records carry gold hazards (run.Record.GoldHazards), in all and by
	// kind; absent without --audit. No figure above depends on it.
	GoldHazards *HazardCounts `json:"gold_hazards,omitempty"`
	// EmptyPredictions counts the items whose prediction is empty (a
	// blank line of the prediction file, or only comments and
	// semicolons): every metric grades it as a query returning no rows (a
	// note names the first items).
	EmptyPredictions int `json:"empty_predictions,omitempty"`
	// RestsOn maps a metric whose verdicts carry witness databases
	// (metric.Refutation: equiv, verdict) to the count of witnesses per
	// kind of what they rest on, {"equiv": {"null": 60, "empty_table":
	// 12, "value": 40}} (a witness resting on two kinds counts under
	// both); absent without such a metric or without a witness.
	RestsOn map[string]map[string]int `json:"rests_on,omitempty"`
	// Disagreements maps a metric whose verdicts can hold a proof that a
	// re-verified witness or the item's database contradicts
	// (metric.Disagreement: equiv, verdict) to the number of such items,
	// {"equiv": 0}; each is graded wrong, and is a bug to report. Absent
	// without such a metric.
	Disagreements map[string]int `json:"disagreements,omitempty"`
}

// disagreements fills Disagreements, and a note per metric with any:
// "equiv: 2 items where a proof and a re-verified witness disagree
// (graded wrong, the witness deciding): a bug of the prover, the kernel
// or the search; please report them".
func disagreements(s *Summary, recs []run.Record, metrics []string) {
	for _, m := range metrics {
		n, seen := 0, false
		for _, rec := range recs {
			if d, ok := rec.Verdicts[m].Details.(metric.Disagreement); ok {
				seen = true
				if d.Disagrees() {
					n++
				}
			}
		}
		if !seen {
			continue
		}
		if s.Disagreements == nil {
			s.Disagreements = map[string]int{}
		}
		s.Disagreements[m] = n
		if n > 0 {
			s.Notes = append(s.Notes, fmt.Sprintf("%s: %d item(s) where a proof and a re-verified witness (or the item's database) disagree, graded wrong, the witness deciding: a bug of the prover, the kernel or the search; please report them", m, n))
		}
	}
}

// knownOrders are the difficulty scales of the benchmarks, in order.
var knownOrders = [][]string{
	{"easy", "medium", "hard", "extra"},
	{"simple", "moderate", "challenging"},
}

// Summarize computes the summary of records for the given metrics (all
// metrics found in the records when metrics is empty).
func Summarize(recs []run.Record, metrics []string) *Summary {
	if len(metrics) == 0 {
		metrics = recordMetrics(recs)
	}
	s := &Summary{Schema: SummarySchema, Items: len(recs), Metrics: metrics,
		Overall: map[string]*Score{}, ByDifficulty: map[string]map[string]*Score{}, ByCategory: map[string]map[string]*Score{}}
	levels, cats := tallyScores(s, recs, metrics)
	s.Difficulties = orderLevels(levels)
	s.Categories = slices.Sorted(slices.Values(cats))
	if len(s.Categories) == 0 {
		s.ByCategory = nil
	}
	addFigures(s, recs, metrics)
	s.eachScore(setHeadline)
	s.Notes = append(s.Notes, figureNotes(s, metrics)...)
	s.Notes = append(s.Notes, unjudgedNotes(s, metrics)...)
	emptyPredictions(s, recs)
	assumptions(s, recs, metrics)
	equivRefutes(s, recs, metrics)
	decidedBy(s, recs, metrics)
	restsOn(s, recs, metrics)
	disagreements(s, recs, metrics)
	return s
}

// emptyPredictions counts the empty predictions and says so in a note,
// naming the first items: a blank line in a prediction file otherwise
// shows only as a wrong verdict.
func emptyPredictions(s *Summary, recs []run.Record) {
	var idx []string
	for _, r := range recs {
		if sqllex.IsBlank(r.Pred) {
			s.EmptyPredictions++
			if len(idx) < 10 {
				idx = append(idx, strconv.Itoa(r.Index))
			}
		}
	}
	if s.EmptyPredictions == 0 {
		return
	}
	more := ""
	if s.EmptyPredictions > len(idx) {
		more = ", ..."
	}
	verb := "are"
	if s.EmptyPredictions == 1 {
		verb = "is"
	}
	s.Notes = append(s.Notes, fmt.Sprintf("%d of the %d predictions %s empty (a blank line of the prediction file, or only comments): items %s%s; each is graded as a query returning no rows, and its verdicts' detail says so",
		s.EmptyPredictions, s.Items, verb, strings.Join(idx, ", "), more))
}

// eachScore calls f on every score of s with its metric's name.
func (s *Summary) eachScore(f func(sc *Score, metric string)) {
	for m, sc := range s.Overall {
		f(sc, m)
	}
	for _, g := range []map[string]map[string]*Score{s.ByDifficulty, s.ByCategory} {
		for _, level := range g {
			for m, sc := range level {
				f(sc, m)
			}
		}
	}
}

// figureNotes is a note per metric whose headline is a figure, saying
// what the headline is and that accuracy is the secondary all-or-nothing
// share.
func figureNotes(s *Summary, metrics []string) []string {
	var notes []string
	for _, m := range metrics {
		sc := s.Overall[m]
		if sc == nil || sc.HeadlineName == AccuracyName || sc.HeadlineName == "" {
			continue
		}
		mean := "the mean score"
		if fig, _ := metric.FigureOf(m); fig.Scale != 1 {
			mean = fmt.Sprintf("%g x the mean score", fig.Scale)
		}
		notes = append(notes, fmt.Sprintf("%s: the headline is %s = %s, the official figure: %s over the %d items; accuracy %.4f is the secondary all-or-nothing share of items scoring exactly 1",
			m, sc.HeadlineName, fmtFigure(sc.HeadlineName, sc.Headline), mean, sc.Count, sc.Accuracy))
	}
	return notes
}

// fmtFigure prints a headline figure: x100 figures with 2 decimals,
// others (shares, means in [0, 1]) with 4.
func fmtFigure(name string, x float64) string {
	if strings.HasSuffix(name, "x100") {
		return fmt.Sprintf("%.2f", x)
	}
	return fmt.Sprintf("%.4f", x)
}

// recordMetrics is the sorted names of the metrics some record has a
// verdict of.
func recordMetrics(recs []run.Record) []string {
	set := map[string]bool{}
	for _, r := range recs {
		for m := range r.Verdicts {
			set[m] = true
		}
	}
	return slices.Sorted(maps.Keys(set))
}

// scoreTally accumulates the numeric verdict fields of each Score until
// finish averages them.
type scoreTally struct {
	sums   map[*Score]map[string]float64
	counts map[*Score]map[string]int
}

// add counts verdict v in sc: its count, correct, unjudged and status
// counts, and its numeric fields.
func (t *scoreTally) add(sc *Score, v verdictView) {
	sc.Count++
	if v.correct {
		sc.Correct++
	}
	if v.status.Unjudged() {
		sc.Unjudged++
	}
	sc.Status[v.status]++
	for k, x := range v.fields {
		if t.sums[sc] == nil {
			t.sums[sc], t.counts[sc] = map[string]float64{}, map[string]int{}
		}
		t.sums[sc][k] += x
		t.counts[sc][k]++
	}
}

// finish sets sc's Accuracy (correct over judged verdicts) and the mean
// of each numeric field.
func (t *scoreTally) finish(sc *Score) {
	if n := sc.Count - sc.Unjudged; n > 0 {
		sc.Accuracy = float64(sc.Correct) / float64(n)
	}
	for k, x := range t.sums[sc] {
		if sc.Fields == nil {
			sc.Fields = map[string]float64{}
		}
		sc.Fields[k] = x / float64(t.counts[sc][k])
	}
}

// scoreOf is m[name], created empty when absent.
func scoreOf(m map[string]*Score, name string) *Score {
	sc, ok := m[name]
	if !ok {
		sc = &Score{Status: map[status.Status]int{}}
		m[name] = sc
	}
	return sc
}

// tallyScores fills s.Overall, s.ByDifficulty and s.ByCategory with the
// verdicts of metrics in recs, and returns the difficulty levels and the
// categories seen (unordered).
func tallyScores(s *Summary, recs []run.Record, metrics []string) (levels, cats []string) {
	t := &scoreTally{sums: map[*Score]map[string]float64{}, counts: map[*Score]map[string]int{}}
	group := func(m map[string]map[string]*Score, key string, seen *[]string) map[string]*Score {
		if key == "" {
			return nil
		}
		if m[key] == nil {
			m[key] = map[string]*Score{}
			*seen = append(*seen, key)
		}
		return m[key]
	}
	for _, r := range recs {
		byLevel := group(s.ByDifficulty, r.Difficulty, &levels)
		byCat := group(s.ByCategory, r.Category, &cats)
		for _, m := range metrics {
			v, ok := r.Verdicts[m]
			if !ok {
				continue
			}
			vv := view(v)
			t.add(scoreOf(s.Overall, m), vv)
			if byLevel != nil {
				t.add(scoreOf(byLevel, m), vv)
			}
			if byCat != nil {
				t.add(scoreOf(byCat, m), vv)
			}
		}
	}
	s.eachScore(func(sc *Score, _ string) { t.finish(sc) })
	return levels, cats
}

// unjudgedNotes is a note per metric with unjudged verdicts, saying what
// its accuracy is over and how many items could not be judged.
func unjudgedNotes(s *Summary, metrics []string) []string {
	var notes []string
	for _, m := range metrics {
		if sc := s.Overall[m]; sc != nil && sc.Unjudged > 0 {
			notes = append(notes, fmt.Sprintf("%s: accuracy is over the %d judged items; %d of %d items could not be judged (%[5]s %[6]d, %[7]s %[8]d) and are not counted as wrong; --resume asks again for the %[5]s ones",
				m, sc.Count-sc.Unjudged, sc.Unjudged, sc.Count, status.JudgeError, sc.Status[status.JudgeError], status.JudgeUnparseable, sc.Status[status.JudgeUnparseable]))
		}
	}
	return notes
}

// addFigures sets Figure (and FigureCI95) of the metrics that declare a
// headline figure, overall, per difficulty and per category, from each
// verdict's "score" (a verdict without one counts 0, as the official
// scripts count a failed item).
func addFigures(s *Summary, recs []run.Record, metrics []string) {
	for _, m := range metrics {
		fig, ok := metric.FigureOf(m)
		if !ok {
			continue
		}
		scores := map[*Score][]float64{}
		for _, r := range recs {
			v, ok := r.Verdicts[m]
			if !ok {
				continue
			}
			var x float64
			if v.Details != nil {
				x = v.Details.Numbers()["score"]
			}
			scores[s.Overall[m]] = append(scores[s.Overall[m]], x)
			if r.Difficulty != "" {
				sc := s.ByDifficulty[r.Difficulty][m]
				scores[sc] = append(scores[sc], x)
			}
			if r.Category != "" {
				sc := s.ByCategory[r.Category][m]
				scores[sc] = append(scores[sc], x)
			}
		}
		for sc, xs := range scores {
			setFigure(sc, fig, xs)
		}
	}
}

// setFigure sets sc's Figure to fig.Scale x the mean of xs and, when fig
// asks for one, its bootstrap interval.
func setFigure(sc *Score, fig metric.Figure, xs []float64) {
	sum := 0.0
	for _, x := range xs {
		sum += x
	}
	f := fig.Scale * sum / float64(len(xs))
	sc.Figure = &f
	if fig.Bootstrap {
		iv := stats.BootstrapMeanCI95(xs, figureResamples, figureSeed)
		sc.FigureCI95 = []float64{fig.Scale * iv.Lo, fig.Scale * iv.Hi}
	}
}

type verdictView struct {
	correct bool
	status  status.Status
	fields  map[string]float64
}

// view extracts what a summary counts from a verdict: its correctness,
// status and the numbers its details give (metric.Details.Numbers).
func view(v metric.Verdict) verdictView {
	vv := verdictView{correct: v.Correct, status: v.Status}
	if v.Details != nil {
		vv.fields = v.Details.Numbers()
	}
	return vv
}

// orderLevels sorts difficulty levels: a known benchmark scale in its
// order, anything else alphabetically after it.
func orderLevels(ls []string) []string {
	rank := func(l string) (int, int) {
		for i, o := range knownOrders {
			if k := slices.Index(o, l); k >= 0 {
				return i, k
			}
		}
		return len(knownOrders), 0
	}
	sort.Slice(ls, func(a, b int) bool {
		sa, ka := rank(ls[a])
		sb, kb := rank(ls[b])
		if sa != sb {
			return sa < sb
		}
		if ka != kb {
			return ka < kb
		}
		return ls[a] < ls[b]
	})
	return ls
}

// Write writes the summary as indented JSON to path.
func (s *Summary) Write(path string) error {
	b, err := json.MarshalIndent(s, "", "  ")
	if err != nil {
		return err
	}
	if err := os.WriteFile(path, append(b, '\n'), 0o644); err != nil {
		return fmt.Errorf("cannot write summary: %w", err)
	}
	return nil
}

// ReadSummary reads a summary.json file.
func ReadSummary(path string) (*Summary, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var s Summary
	if err := json.Unmarshal(b, &s); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return &s, nil
}

// OrderLevels sorts difficulty levels as the summary does: a known
// benchmark scale (Spider easy..extra, BIRD simple..challenging) in its
// order, anything else alphabetically after it. It sorts ls in place and
// returns it.
func OrderLevels(ls []string) []string { return orderLevels(ls) }
