package cli

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/spf13/cobra"

	"github.com/sqljudge/sqljudge/internal/agree"
	"github.com/sqljudge/sqljudge/internal/engine/open"
	"github.com/sqljudge/sqljudge/internal/eval"
	"github.com/sqljudge/sqljudge/internal/metric"
	"github.com/sqljudge/sqljudge/internal/outdir"
	"github.com/sqljudge/sqljudge/internal/report"
	"github.com/sqljudge/sqljudge/internal/report/htmlreport"
	"github.com/sqljudge/sqljudge/internal/testsuite"
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
--compare OTHER_OUT compares a second run of the same benchmark (the same
items and gold SQL; anything else is exit 2): per metric both accuracies,
A - B with its paired bootstrap 95% interval, McNemar's exact p-value and
the items only A / only B gets right; with --html, the same figures and
per-run filters on the page, the runs side by side. Each item with a wrong
result shows a diff of gold and predicted rows that eval kept while grading
(at most ` + fmt.Sprint(eval.MaxSamples) + ` items); --db reads them for the records of a run
made before records kept them.`,
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
	fl.StringVar(&f.compare, "compare", "", "a second output folder of the same benchmark to compare with")
	fl.StringVar(&f.db, "db", "", open.DBHelp+"\n(add result diffs to the HTML page)")
	fl.DurationVar(&f.timeout, "timeout", 30*time.Second, "time limit of each query run for the diffs")
	return cmd
}

func runReport(cmd *cobra.Command, out string, f *reportFlags) error {
	ctx := cmd.Context()
	if f.db != "" && f.html == "" {
		return usage.Errorf("--db adds result diffs to the HTML page: add --html FILE")
	}
	r, err := loadRun(out)
	if err != nil {
		return err
	}
	var opts htmlreport.Options
	if f.compare != "" {
		// Check the pairing before printing anything of either run.
		if opts.Compare, opts.Comparison, err = compareRuns(cmd.OutOrStdout(), r, f.compare); err != nil {
			return err
		}
	} else {
		report.PrintTable(cmd.OutOrStdout(), r.Summary)
		report.PrintHazards(cmd.OutOrStdout(), r.Summary, hazardKinds())
	}
	if f.html == "" {
		return nil
	}
	if f.db != "" {
		eng, err := open.Open(f.db, open.Options{})
		if err != nil {
			return usage.Error{Err: err}
		}
		defer eng.Close()
		env := &metric.Env{Engine: eng, Timeout: f.timeout}
		htmlreport.Samples(ctx, env, r.Records, eval.MaxSamples)
		if opts.Compare != nil {
			htmlreport.Samples(ctx, env, opts.Compare.Records, eval.MaxSamples)
		}
	}
	if err := eval.WriteHTML(f.html, r, opts); err != nil {
		return err
	}
	fmt.Fprintf(cmd.OutOrStdout(), "html: %s\n", f.html)
	return nil
}

// compareRuns loads the run in dir and prints r's table and its
// comparison with r (report.CompareRuns), refusing, before printing
// anything, runs of different benchmark items; it returns the other run
// and the comparison for the page.
func compareRuns(w io.Writer, r *htmlreport.Run, dir string) (*htmlreport.Run, *report.Comparison, error) {
	other, err := loadRun(dir)
	if err != nil {
		return nil, nil, err
	}
	c, err := report.CompareRuns(r.Records, other.Records, r.Summary.Metrics)
	if errors.Is(err, report.ErrNotComparable) {
		return nil, nil, usage.Errorf("%s and %s: %v", r.Dir, dir, err)
	}
	if err != nil {
		return nil, nil, err
	}
	report.PrintTable(w, r.Summary)
	report.PrintComparison(w, c, r.Dir, dir)
	return other, c, nil
}

// otherFolder says what dir holds when it is the output of another
// command than eval, and which command reads it; "" otherwise.
func otherFolder(dir string) string {
	exists := func(name string) bool {
		_, err := os.Stat(filepath.Join(dir, name))
		return err == nil
	}
	if fp, err := outdir.ReadFingerprint(dir); err == nil && fp.Version == "equiv" {
		return "the output of sqljudge equiv (pairs of queries decided, not a benchmark graded): its proofs are re-checked by sqljudge equiv check " + dir + " --pairs PAIRS, its records are " + filepath.Join(dir, "results.jsonl")
	}
	switch {
	case exists("findings.jsonl"):
		return "the findings of sqljudge audit (read " + filepath.Join(dir, "findings.jsonl") + "; eval --audit puts them on the report page)"
	case exists(testsuite.ReportFile):
		return "a test suite of sqljudge testsuite build (eval --suite " + dir + " --metrics ts grades with it)"
	case exists(agree.File):
		return "the agreement of sqljudge agree (" + filepath.Join(dir, agree.File) + ")"
	}
	return ""
}

// loadRun loads the run in dir, refusing (exit 2) one whose summary.json
// does not match its records (report.CheckFolder), or the folder of
// another command (otherFolder).
func loadRun(dir string) (*htmlreport.Run, error) {
	if what := otherFolder(dir); what != "" {
		return nil, usage.Errorf("%s holds %s; sqljudge report reads the output folder of sqljudge eval (results.jsonl and summary.json of graded items)", dir, what)
	}
	r, err := htmlreport.Load(dir)
	if err != nil {
		return nil, usage.Error{Err: err}
	}
	if err := report.CheckFolder(dir, r.Summary, r.Records); errors.Is(err, report.ErrStale) {
		return nil, usage.Error{Err: err}
	} else if err != nil {
		return nil, err
	}
	return r, nil
}
