package cli

import (
	"fmt"
	"time"

	"github.com/spf13/cobra"

	"github.com/sqljudge/sqljudge/internal/engine/open"
	"github.com/sqljudge/sqljudge/internal/eval"
	"github.com/sqljudge/sqljudge/internal/metric"
	"github.com/sqljudge/sqljudge/internal/report"
	"github.com/sqljudge/sqljudge/internal/report/htmlreport"
	"github.com/sqljudge/sqljudge/internal/usage"
)

type reportFlags struct {
	html, compare, db string
	timeout           time.Duration
}

func newReportCmd() *cobra.Command {
	f := &reportFlags{}
	cmd := &cobra.Command{
		Use:   "report OUT [--html FILE] [--compare OTHER_OUT] [--db DB]",
		Short: "Print a run's accuracy table, or write it as a self-contained HTML page",
		Long: `report reads a run's output folder (results.jsonl, summary.json) and prints
its accuracy table. --html FILE writes one self-contained page (CSS and JS
inline, nothing loaded from elsewhere): the summary by metric and
difficulty, one row per item with filters by metric, status and difficulty,
and a drill-down per item with question, gold, prediction and verdicts.
--compare OTHER_OUT shows a second run of the same benchmark side by side.
--db re-reads the results of the items with a wrong result (at most ` + fmt.Sprint(eval.MaxSamples) + `)
for a diff of gold and predicted rows in the drill-down; eval writes
OUT/report.html with these diffs.`,
		Example: `  # two systems graded on Spider as downloaded (spider_data/), then their reports
  sqljudge eval --gold spider_data/dev_gold.sql --pred din.sql --db spider_data/database --out out/din
  sqljudge eval --gold spider_data/dev_gold.sql --pred c3.sql --db spider_data/database --out out/c3
  sqljudge report out/din --html din.html
  sqljudge report out/din --compare out/c3 --db spider_data/database --html din-vs-c3.html`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error { return runReport(cmd, args[0], f) },
	}
	fl := cmd.Flags()
	fl.StringVar(&f.html, "html", "", "write the HTML page to FILE")
	fl.StringVar(&f.compare, "compare", "", "a second output folder to show side by side (with --html)")
	fl.StringVar(&f.db, "db", "", "databases, as eval's --db: add result diffs to the HTML page")
	fl.DurationVar(&f.timeout, "timeout", 30*time.Second, "time limit of each query run for the diffs")
	return cmd
}

func runReport(cmd *cobra.Command, out string, f *reportFlags) error {
	ctx := cmd.Context()
	if (f.compare != "" || f.db != "") && f.html == "" {
		return usage.Errorf("--compare and --db shape the HTML page: add --html FILE")
	}
	r, err := htmlreport.Load(out)
	if err != nil {
		return usage.Error{Err: err}
	}
	report.PrintTable(cmd.OutOrStdout(), r.Summary)
	if f.html == "" {
		return nil
	}
	var opts htmlreport.Options
	if f.compare != "" {
		if opts.Compare, err = htmlreport.Load(f.compare); err != nil {
			return usage.Error{Err: err}
		}
	}
	if f.db != "" {
		eng, err := open.Open(f.db, open.Options{})
		if err != nil {
			return usage.Error{Err: err}
		}
		defer eng.Close()
		env := &metric.Env{Engine: eng, Timeout: f.timeout}
		r.Samples = htmlreport.Samples(ctx, env, r.Records, eval.MaxSamples)
		if opts.Compare != nil {
			opts.Compare.Samples = htmlreport.Samples(ctx, env, opts.Compare.Records, eval.MaxSamples)
		}
	}
	if err := eval.WriteHTML(f.html, r, opts); err != nil {
		return err
	}
	fmt.Fprintf(cmd.OutOrStdout(), "html: %s\n", f.html)
	return nil
}
