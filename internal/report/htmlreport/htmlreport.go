// Package htmlreport writes a run's report as one self-contained HTML page
// (OUT/report.html, `sqljudge report OUT --html FILE`): the headline of
// every metric by difficulty and by category (a score metric's official
// figure with its bootstrap interval, then its all-or-nothing accuracy),
// the count of each verdict status, em's partial-matching table, then the
// items, filtered by metric, status, difficulty, category, the verdicts of
// a second run and text, with an item view per item (id, question, gold,
// prediction, verdicts, a diff of result samples). CSS and JS are inline;
// the page loads nothing.
//
// The items are one compact JSON blob (see pageData) that the page's
// script renders a screen at a time (virtualised rows), so a run of
// 50,000 items stays interactive. It reads only what a run wrote
// (results.jsonl, summary.json), the result samples included
// (run.Record.Sample); it runs no query.
package htmlreport

import (
	"bufio"
	"bytes"
	_ "embed"
	"encoding/json"
	"fmt"
	"html/template"
	"io"
	"maps"
	"path/filepath"
	"slices"
	"strings"

	"github.com/sqljudge/sqljudge/internal/report"
	"github.com/sqljudge/sqljudge/internal/run"
	"github.com/sqljudge/sqljudge/internal/status"
)

// File is the name of the page eval writes into its output folder.
const File = "report.html"

// Run is one run to report.
type Run struct {
	// Dir is the run's output folder (shown as its name).
	Dir string
	// Summary is its summary.json.
	Summary *report.Summary
	// Records are its records, one per item (the latest), in index order.
	Records []run.Record
}

// Load reads a run's output folder: summary.json and results.jsonl.
func Load(dir string) (*Run, error) {
	sum, err := report.ReadSummary(filepath.Join(dir, report.SummaryFile))
	if err != nil {
		return nil, fmt.Errorf("%s: no finished run: %w", dir, err)
	}
	recs, _, err := run.ReadRecords(filepath.Join(dir, run.ResultsFile))
	if err != nil {
		return nil, err
	}
	return &Run{Dir: dir, Summary: sum, Records: run.LatestInOrder(recs)}, nil
}

// Options configure Write.
type Options struct {
	// Title heads the page; "" means "sqljudge report".
	Title string
	// Compare, if set, is a second run shown beside the first: its
	// summary, and per item its prediction and verdicts (matched by
	// index), with filters on how the two runs' verdicts of the chosen
	// metric differ.
	Compare *Run
	// Comparison, with Compare, is the paired comparison of the two runs
	// (report.CompareRuns) shown as a table: per metric both accuracies,
	// A - B with its paired bootstrap 95% interval, McNemar's exact
	// p-value and the items only A / only B gets right.
	Comparison *report.Comparison
}

//go:embed page.html.tmpl
var pageTmpl string

//go:embed page.js
var pageJS string

var page = template.Must(template.New("page").Funcs(template.FuncMap{
	"base":   filepath.Base,
	"plural": plural,
	"inc":    func(n int) int { return n + 1 },
	"list":   func(xs ...string) []string { return xs },
	"dict":   dict,
}).Parse(pageTmpl))

// dict builds a map from key, value pairs, to pass several values to a
// sub-template.
func dict(kv ...any) map[string]any {
	m := make(map[string]any, len(kv)/2)
	for i := 0; i+1 < len(kv); i += 2 {
		m[kv[i].(string)] = kv[i+1]
	}
	return m
}

// Write renders the page of r to w.
//
// The summary table has one row per difficulty level and one "all" row;
// each cell (<td data-metric="ex" data-difficulty="easy"
// data-accuracy="0.8230..." data-headline="0.8230...">) shows the
// headline of summary.json: for accuracy "0.8230 (851/1034)", for a
// metric with a figure the figure, its interval and the accuracy labelled
// all-or-nothing. The category table has data-category cells alike. The
// items are the JSON of pageData in <script id="sj-data"
// type="application/json">; the script renders the rows on screen as
// <div class="item" data-index="N"> elements.
func Write(w io.Writer, r *Run, o Options) error {
	bw := bufio.NewWriterSize(w, 1<<16)
	if err := page.ExecuteTemplate(bw, "head", buildView(r, o)); err != nil {
		return err
	}
	bw.WriteString(`<script id="sj-data" type="application/json">`)
	if err := json.NewEncoder(bw).Encode(buildData(r, o)); err != nil {
		return err
	}
	bw.WriteString("</script>\n<script>\n")
	bw.WriteString(pageJS)
	bw.WriteString("</script>\n</body>\n</html>\n")
	return bw.Flush()
}

// plural is "1 item", "2 items".
func plural(n int, word string) string {
	if n == 1 {
		return fmt.Sprintf("%d %s", n, word)
	}
	return fmt.Sprintf("%d %ss", n, word)
}

type view struct {
	Title       string
	Dir, CmpDir string
	Items       int
	RunInfo     []kv
	Metrics     []metricHead
	Levels      []levelView
	Categories  []levelView
	CmpLevels   []levelView
	StatusCols  []string
	StatusRows  []statusRow
	Partial     *report.PartialTable
	Notes       []string
	HasCmp      bool
	Comparison  []cmpRow
	// Assume names equiv's assumption for the page's header ("" without
	// equiv); Refutes are the tables of equiv against ex and ts; Hazards
	// the gold audit's counts (nil without eval --audit).
	Assume  string
	Refutes []refutesView
	Hazards *hazardsView
}

// cmpRow is one metric of the paired comparison table.
type cmpRow struct {
	Metric                    string
	N, OnlyA, OnlyB, Excluded int
	AccA, AccB, Diff, CI, P   string
}

// comparisonRows formats c for the page: accuracies and A - B to 4
// decimals, the interval, McNemar's p to 3 significant digits.
func comparisonRows(c *report.Comparison) []cmpRow {
	if c == nil {
		return nil
	}
	var out []cmpRow
	for _, m := range c.Metrics {
		out = append(out, cmpRow{Metric: m.Metric, N: m.N, OnlyA: m.OnlyA, OnlyB: m.OnlyB, Excluded: m.Excluded,
			AccA: fmt.Sprintf("%.4f", m.AccuracyA), AccB: fmt.Sprintf("%.4f", m.AccuracyB),
			Diff: fmt.Sprintf("%+.4f", m.Diff.Value), CI: fmt.Sprintf("[%+.4f, %+.4f]", m.Diff.CI.Lo, m.Diff.CI.Hi),
			P: fmt.Sprintf("%.3g", m.McNemarP)})
	}
	return out
}

type kv struct{ K, V string }

type metricHead struct{ Name, Headline, Assume string }

type levelView struct {
	Name  string
	Cells []cellView
}

type cellView struct {
	Metric, Level string
	Has           bool
	// Accuracy is %.4f of the accuracy; Exact its full precision.
	Accuracy, Exact string
	Correct, Count  int
	// Figure is the headline figure where the metric has one ("" else),
	// CI its interval, HeadlineExact the headline at full precision.
	Figure, CI, HeadlineExact string
}

type statusRow struct {
	Metric string
	Counts []int
}

func buildView(r *Run, o Options) view {
	sum := r.Summary
	v := view{Title: o.Title, Dir: r.Dir, Items: len(r.Records), HasCmp: o.Compare != nil, Notes: sum.Notes, Partial: sum.Partial}
	if v.Title == "" {
		v.Title = "sqljudge report"
	}
	for _, e := range runEntries(sum.Run) {
		if e.V != "" && e.V != "<nil>" {
			v.RunInfo = append(v.RunInfo, e)
		}
	}
	v.RunInfo = append(v.RunInfo, kv{"items", fmt.Sprint(sum.Items)}, kv{"wall_seconds", fmt.Sprintf("%.2f", sum.WallSeconds)})
	for _, m := range sum.Metrics {
		h := metricHead{Name: m}
		if sc := sum.Overall[m]; sc != nil && sc.Figure != nil {
			h.Headline = sc.HeadlineName
		}
		if sc := sum.Overall[m]; sc != nil {
			h.Assume = sc.Assume
		}
		v.Metrics = append(v.Metrics, h)
	}
	v.Levels = levels(sum, sum.Metrics, sum.Difficulties, sum.ByDifficulty)
	if len(sum.Categories) > 0 {
		v.Categories = levels(sum, sum.Metrics, sum.Categories, sum.ByCategory)
	}
	if o.Compare != nil {
		v.CmpDir = o.Compare.Dir
		cs := o.Compare.Summary
		v.CmpLevels = levels(cs, sum.Metrics, cs.Difficulties, cs.ByDifficulty)
	}
	v.StatusCols, v.StatusRows = statusTable(sum)
	if o.Compare != nil {
		v.Comparison = comparisonRows(o.Comparison)
	}
	if sc := sum.Overall["equiv"]; sc != nil {
		v.Assume = sc.Assume
	}
	v.Refutes = refutesViews(r, sum)
	v.Hazards = hazardsOf(r)
	return v
}

// levels builds the rows of a summary table: "all", then each group
// (difficulty level or category) of by.
func levels(sum *report.Summary, metrics, groups []string, by map[string]map[string]*report.Score) []levelView {
	var out []levelView
	row := func(name string, scores map[string]*report.Score) {
		lv := levelView{Name: name}
		for _, m := range metrics {
			lv.Cells = append(lv.Cells, cell(m, name, scores[m]))
		}
		out = append(out, lv)
	}
	row(report.All, sum.Overall)
	for _, g := range groups {
		row(g, by[g])
	}
	return out
}

// cell is one summary cell: accuracy, and the figure of a score metric.
func cell(m, level string, sc *report.Score) cellView {
	c := cellView{Metric: m, Level: level}
	if sc == nil {
		return c
	}
	c.Has, c.Correct, c.Count = true, sc.Correct, sc.Count
	c.Accuracy, c.Exact = fmt.Sprintf("%.4f", sc.Accuracy), fmt.Sprint(sc.Accuracy)
	c.HeadlineExact = fmt.Sprint(sc.Headline)
	if sc.HeadlineName == "" {
		c.HeadlineExact = c.Exact
	}
	if sc.Figure != nil {
		digits := "%.4f"
		if strings.HasSuffix(sc.HeadlineName, "x100") {
			digits = "%.2f"
		}
		c.Figure = fmt.Sprintf(digits, *sc.Figure)
		if len(sc.FigureCI95) == 2 {
			c.CI = fmt.Sprintf("["+digits+", "+digits+"]", sc.FigureCI95[0], sc.FigureCI95[1])
		}
	}
	return c
}

// statusTable is the count of each verdict status per metric, over the
// statuses some metric has (and those always shown).
func statusTable(sum *report.Summary) ([]string, []statusRow) {
	seen := map[status.Status]bool{}
	for _, sc := range sum.Overall {
		for k, n := range sc.Status {
			if n > 0 {
				seen[k] = true
			}
		}
	}
	cols := status.Sort(seen)
	var names []string
	for _, c := range cols {
		names = append(names, string(c))
	}
	var rows []statusRow
	for _, m := range sum.Metrics {
		r := statusRow{Metric: m}
		for _, c := range cols {
			n := 0
			if sc := sum.Overall[m]; sc != nil {
				n = sc.Status[c]
			}
			r.Counts = append(r.Counts, n)
		}
		rows = append(rows, r)
	}
	return names, rows
}

// runEntries lists the run block as its JSON names and values, by name,
// each value as fmt prints it (numbers as written in summary.json).
func runEntries(r *report.RunInfo) []kv {
	if r == nil {
		return nil
	}
	b, err := json.Marshal(r)
	if err != nil {
		return nil
	}
	var m map[string]any
	d := json.NewDecoder(bytes.NewReader(b))
	d.UseNumber()
	if d.Decode(&m) != nil {
		return nil
	}
	out := make([]kv, 0, len(m))
	for _, k := range slices.Sorted(maps.Keys(m)) {
		out = append(out, kv{k, fmt.Sprint(m[k])})
	}
	return out
}
