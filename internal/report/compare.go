package report

import (
	"errors"
	"fmt"
	"io"
	"math"
	"slices"

	"github.com/jedib0t/go-pretty/v6/table"
	"github.com/jedib0t/go-pretty/v6/text"

	"github.com/sqljudge/sqljudge/internal/run"
	"github.com/sqljudge/sqljudge/internal/stats"
)

// ErrNotComparable is wrapped by CompareRuns' error when two runs are not
// of the same benchmark items: the caller's input, exit 2 from the CLI.
var ErrNotComparable = errors.New("cannot compare")

// Comparison is two runs of the same benchmark compared item by item
// (CompareRuns): run A is the one reported, run B the --compare one.
type Comparison struct {
	// Items is the number of items of each run.
	Items int `json:"items"`
	// Metrics holds one entry per metric both runs graded, in A's order.
	Metrics []MetricComparison `json:"metrics"`
}

// MetricComparison is one metric of a Comparison: stats.Paired over the
// items both runs judged (accuracies, A - B with its paired bootstrap 95%
// interval, McNemar's exact p-value, counts only A / only B right).
type MetricComparison struct {
	// Metric is the metric's name.
	Metric string `json:"metric"`
	stats.Paired
	// Excluded counts the items left out of the pairing: an LLM judge
	// could not judge them in one of the runs (status.Status.Unjudged),
	// or one run has no verdict of the metric for them.
	Excluded int `json:"excluded,omitempty"`
	// OnlyAItems and OnlyBItems are the indices of the items only A
	// (only B) gets right, in index order: the page's per-run filters.
	OnlyAItems []int `json:"only_a_items"`
	OnlyBItems []int `json:"only_b_items"`
}

// CompareRuns pairs the latest records of runs a and b by item and, for
// each of metrics graded by both (every metric some record of both has,
// sorted, when metrics is empty), computes stats.ComparePaired: both
// accuracies, A - B with its paired percentile-bootstrap 95% interval
// (1000 resamples, seed 1, as the summary's figure intervals) and
// McNemar's exact test. Items an LLM judge could not judge in either run
// are left out of that metric's pairs (Excluded).
//
// The runs must be of the same benchmark: the same item indices, and per
// index the same id, db_id and gold SQL. Otherwise (a run of part of the
// benchmark, a shuffled or another gold file) the error wraps
// ErrNotComparable and names the first item that differs.
func CompareRuns(a, b []run.Record, metrics []string) (*Comparison, error) {
	a, b = run.LatestInOrder(a), run.LatestInOrder(b)
	if err := sameItems(a, b); err != nil {
		return nil, err
	}
	if len(metrics) == 0 {
		metrics = recordMetrics(a)
	}
	inB := recordMetrics(b)
	c := &Comparison{Items: len(a)}
	for _, m := range metrics {
		if slices.Contains(inB, m) {
			c.Metrics = append(c.Metrics, compareMetric(a, b, m))
		}
	}
	return c, nil
}

// sameItems checks that a and b (latest records, in index order) hold the
// same items: indices, ids, db_ids and gold SQL.
func sameItems(a, b []run.Record) error {
	if len(a) != len(b) {
		return fmt.Errorf("%w: the runs hold %d and %d items, so they are not runs of the same benchmark (a part of it, or another gold file)", ErrNotComparable, len(a), len(b))
	}
	for i := range a {
		x, y := &a[i], &b[i]
		if x.Index != y.Index || x.ID != y.ID || x.DBID != y.DBID || x.Gold != y.Gold {
			return fmt.Errorf("%w: item %d differs (id %q, db_id %q, gold %q against id %q, db_id %q, gold %q): the runs were graded against different gold files (another benchmark, a shuffled copy)",
				ErrNotComparable, x.Index, x.ID, x.DBID, x.Gold, y.ID, y.DBID, y.Gold)
		}
	}
	return nil
}

// compareMetric pairs the verdicts of metric m in a and b (same items).
func compareMetric(a, b []run.Record, m string) MetricComparison {
	mc := MetricComparison{Metric: m, OnlyAItems: []int{}, OnlyBItems: []int{}}
	var ra, rb []bool
	for i := range a {
		va, okA := a[i].Verdicts[m]
		vb, okB := b[i].Verdicts[m]
		if !okA || !okB || va.Status.Unjudged() || vb.Status.Unjudged() {
			mc.Excluded++
			continue
		}
		ra, rb = append(ra, va.Correct), append(rb, vb.Correct)
		switch {
		case va.Correct && !vb.Correct:
			mc.OnlyAItems = append(mc.OnlyAItems, a[i].Index)
		case vb.Correct && !va.Correct:
			mc.OnlyBItems = append(mc.OnlyBItems, a[i].Index)
		}
	}
	mc.Paired = stats.ComparePaired(ra, rb, figureResamples, figureSeed)
	return mc
}

// PrintComparison writes c as a console table, one row per metric: the
// paired item count, A's and B's accuracy, A - B with its 95% interval,
// McNemar's exact p-value and the counts only A / only B gets right,
// under a line naming runs a and b.
func PrintComparison(w io.Writer, c *Comparison, a, b string) {
	fmt.Fprintf(w, "A: %s\nB: %s\n", a, b)
	t := NewConsoleTable(w)
	t.AppendHeader(table.Row{"metric", "items", "A", "B", "A - B", "95% CI (paired bootstrap)", "McNemar p", "only A", "only B"})
	for _, m := range c.Metrics {
		t.AppendRow(table.Row{m.Metric, m.N, f4(m.AccuracyA), f4(m.AccuracyB), signed(m.Diff.Value),
			fmt.Sprintf("[%s, %s]", signed(m.Diff.CI.Lo), signed(m.Diff.CI.Hi)), pval(m.McNemarP), m.OnlyA, m.OnlyB})
	}
	cols := make([]table.ColumnConfig, 0, 8)
	for i := 2; i <= 9; i++ {
		cols = append(cols, table.ColumnConfig{Number: i, Align: text.AlignRight})
	}
	t.SetColumnConfigs(cols)
	t.Render()
	for _, m := range c.Metrics {
		if m.Excluded > 0 {
			fmt.Fprintf(w, "note: %s: %d of %d items left out (unjudged, or not graded by %s in one run)\n", m.Metric, m.Excluded, c.Items, m.Metric)
		}
	}
	fmt.Fprintf(w, "95%% CI: 1000 paired bootstrap resamples, seed 1; McNemar: exact two-sided binomial test on the items only one run gets right\n")
}

func f4(x float64) string {
	if math.IsNaN(x) {
		return "-"
	}
	return fmt.Sprintf("%.4f", x)
}

func signed(x float64) string {
	if math.IsNaN(x) {
		return "-"
	}
	return fmt.Sprintf("%+.4f", x)
}

// pval prints a p-value with 3 significant digits.
func pval(p float64) string { return fmt.Sprintf("%.3g", p) }
