package report

import (
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/jedib0t/go-pretty/v6/table"
	"github.com/jedib0t/go-pretty/v6/text"

	"github.com/sqljudge/sqljudge/internal/status"
)

// PrintTable writes the console report: per metric by difficulty level
// (with "all" last; then the same by category when items have one) its
// headline (accuracy, or the official figure of a
// score metric, Soft-F1 or VES / R-VES x100, followed by its accuracy
// labelled as the all-or-nothing share), the count of unjudged items of a
// judge, the extra rates of metrics that have them (for example sqleval's
// exact), then the bootstrap intervals of the figures and the summary's
// notes, em's partial-matching table when the summary has one (see
// PrintPartial), the count of each verdict status per metric, and the
// wall time.
func PrintTable(w io.Writer, s *Summary) {
	levels := append(slices.Clone(s.Difficulties), All)
	printScoreTable(w, s, levels, "")
	if len(s.Categories) > 0 {
		// The same rows by the benchmark's category (SQL-Eval's
		// query_category) instead of difficulty.
		byCat := *s
		byCat.ByDifficulty = s.ByCategory
		printScoreTable(w, &byCat, append(slices.Clone(s.Categories), All), "category")
	}
	for _, m := range s.Metrics {
		if sc := s.Overall[m]; sc != nil && sc.Figure != nil && len(sc.FigureCI95) == 2 {
			fmt.Fprintf(w, "%s %s: %s, 95%% bootstrap interval over %d items [%s, %s]\n", m, sc.HeadlineName,
				fmtFigure(sc.HeadlineName, *sc.Figure), sc.Count, fmtFigure(sc.HeadlineName, sc.FigureCI95[0]), fmtFigure(sc.HeadlineName, sc.FigureCI95[1]))
		}
	}
	for _, n := range s.Notes {
		fmt.Fprintln(w, "note: "+n)
	}
	if s.Partial != nil {
		PrintPartial(w, s.Partial)
	}
	printStatusTable(w, s)
	fmt.Fprintf(w, "%d items, wall time %s\n", s.Items, (time.Duration(s.WallSeconds * float64(time.Second))).Round(time.Millisecond))
}

// NewConsoleTable is a go-pretty table writing to w in the console style
// of PrintTable (light borders, headers as given), for every table
// sqljudge prints.
func NewConsoleTable(w io.Writer) table.Writer {
	t := table.NewWriter()
	t.SetOutputMirror(w)
	t.SetStyle(table.StyleLight)
	t.Style().Format.Header = text.FormatDefault
	return t
}

// printScoreTable renders the score table: a column per difficulty level
// (s.ByDifficulty), a count row, then per metric its rows
// (appendMetricRows); corner heads the first column.
func printScoreTable(w io.Writer, s *Summary, levels []string, corner string) {
	t := NewConsoleTable(w)
	header := table.Row{corner}
	for _, l := range levels {
		header = append(header, l)
	}
	t.AppendHeader(header)
	count := table.Row{"count"}
	for _, l := range levels {
		count = append(count, levelCount(s, l))
	}
	t.AppendRow(count)
	t.AppendSeparator()
	for _, m := range s.Metrics {
		appendMetricRows(t, s, levels, m)
	}
	cfg := []table.ColumnConfig{{Number: 1, Align: text.AlignLeft}}
	for i := range levels {
		cfg = append(cfg, table.ColumnConfig{Number: i + 2, Align: text.AlignRight})
	}
	t.SetColumnConfigs(cfg)
	t.Render()
}

// appendMetricRows appends metric m's rows to the score table: its
// headline per level (for a metric with a figure: the figure's row, then
// accuracy labelled as the all-or-nothing share), then the unjudged count
// when some verdict is unjudged, and one row per numeric field (but the
// "score" a figure is the mean of).
func appendMetricRows(t table.Writer, s *Summary, levels []string, m string) {
	accuracy := func(sc *Score) (float64, bool) { return sc.Accuracy, sc.Count > sc.Unjudged }
	over := s.Overall[m]
	hasFigure := over != nil && over.Figure != nil
	if hasFigure {
		row := table.Row{m + " " + over.HeadlineName}
		for _, l := range levels {
			sc := scoreAt(s, l, m)
			if sc == nil || sc.Figure == nil {
				row = append(row, "-")
				continue
			}
			row = append(row, fmtCell(over.HeadlineName, *sc.Figure))
		}
		t.AppendRow(row)
	}
	label := s.labelled(m)
	if hasFigure {
		label = m + " accuracy (all-or-nothing)"
	}
	appendLevelRow(t, s, levels, m, label, accuracy)
	if over != nil && over.Unjudged > 0 {
		row := table.Row{m + " unjudged"}
		for _, l := range levels {
			n := 0
			if sc := scoreAt(s, l, m); sc != nil {
				n = sc.Unjudged
			}
			row = append(row, n)
		}
		t.AppendRow(row)
	}
	for _, f := range fieldNames(over) {
		if hasFigure && f == "score" {
			continue
		}
		appendLevelRow(t, s, levels, m, m+" "+f, func(sc *Score) (float64, bool) {
			x, ok := sc.Fields[f]
			return x, ok
		})
	}
}

// fmtCell prints a figure in the score table: x100 figures with 2
// decimals, others with 3 as accuracy is.
func fmtCell(name string, x float64) string {
	if strings.HasSuffix(name, "x100") {
		return fmt.Sprintf("%.2f", x)
	}
	return fmt.Sprintf("%.3f", x)
}

// appendLevelRow appends a row labelled label with get's value of metric
// m's score at each level (fmtScore).
func appendLevelRow(t table.Writer, s *Summary, levels []string, m, label string, get func(*Score) (float64, bool)) {
	row := table.Row{label}
	for _, l := range levels {
		row = append(row, fmtScore(scoreAt(s, l, m), get))
	}
	t.AppendRow(row)
}

// printStatusTable renders the count of each verdict status per metric.
func printStatusTable(w io.Writer, s *Summary) {
	st := NewConsoleTable(w)
	statuses := statusColumns(s)
	h := table.Row{"status"}
	for _, x := range statuses {
		h = append(h, x)
	}
	st.AppendHeader(h)
	for _, m := range s.Metrics {
		row := table.Row{s.labelled(m)}
		sc := s.Overall[m]
		for _, x := range statuses {
			n := 0
			if sc != nil {
				n = sc.Status[x]
			}
			row = append(row, n)
		}
		st.AppendRow(row)
	}
	st.Render()
}

func scoreAt(s *Summary, level, metric string) *Score {
	if level == All {
		return s.Overall[metric]
	}
	return s.ByDifficulty[level][metric]
}

func levelCount(s *Summary, level string) int {
	best := 0
	for _, m := range s.Metrics {
		if sc := scoreAt(s, level, m); sc != nil && sc.Count > best {
			best = sc.Count
		}
	}
	return best
}

func fmtScore(sc *Score, get func(*Score) (float64, bool)) string {
	if sc == nil || sc.Count == 0 {
		return "-"
	}
	x, ok := get(sc)
	if !ok {
		return "-"
	}
	return fmt.Sprintf("%.3f", x)
}

func fieldNames(sc *Score) []string {
	if sc == nil {
		return nil
	}
	return slices.Sorted(maps.Keys(sc.Fields))
}

func statusColumns(s *Summary) []status.Status {
	seen := map[status.Status]bool{}
	for _, sc := range s.Overall {
		for k, n := range sc.Status {
			if n > 0 {
				seen[k] = true
			}
		}
	}
	for _, st := range status.All() {
		if st.Always() {
			seen[st] = true
		}
	}
	return status.Sort(seen)
}
