package agree

import (
	"fmt"
	"io"

	"github.com/jedib0t/go-pretty/v6/table"

	"github.com/sqljudge/sqljudge/internal/report"
	"github.com/sqljudge/sqljudge/internal/stats"
)

// PrintTable writes doc as a table to w: one row per metric and
// difficulty, then the metric's "all" row, with kappa, accuracy, MCC and
// F1 as "value [lo, hi]" (3 decimals, "-" when undefined) and the
// confusion counts.
func PrintTable(w io.Writer, doc *Doc) {
	t := report.NewConsoleTable(w)
	t.AppendHeader(table.Row{"metric", "level", "n", "kappa", "accuracy", "mcc", "f1", "tp", "fp", "fn", "tn"})
	row := func(m, level string, a stats.Agreement) {
		c := a.Confusion
		t.AppendRow(table.Row{m, level, a.N, est(a.Kappa), est(a.Accuracy), est(a.MCC), est(a.F1), c.TP, c.FP, c.FN, c.TN})
	}
	for i, m := range doc.Metrics {
		if i > 0 {
			t.AppendSeparator()
		}
		ma := doc.Agreement[m]
		for _, lv := range doc.Difficulties {
			if a, ok := ma.ByDifficulty[lv]; ok {
				row(m, lv, a)
			}
		}
		row(m, report.All, ma.All)
	}
	t.Render()
}

// est renders "0.812 [0.750, 0.870]", "-" for an undefined value.
func est(e stats.Estimate) string {
	f := func(x float64) string {
		if x != x { // NaN
			return "-"
		}
		return fmt.Sprintf("%.3f", x)
	}
	return fmt.Sprintf("%s [%s, %s]", f(e.Value), f(e.CI.Lo), f(e.CI.Hi))
}
