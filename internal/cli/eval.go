package cli

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/sqljudge/sqljudge/internal/audit"
	"github.com/sqljudge/sqljudge/internal/bench"
	"github.com/sqljudge/sqljudge/internal/demo"
	"github.com/sqljudge/sqljudge/internal/engine"
	"github.com/sqljudge/sqljudge/internal/engine/open"
	"github.com/sqljudge/sqljudge/internal/eval"
	"github.com/sqljudge/sqljudge/internal/metric"
	"github.com/sqljudge/sqljudge/internal/report"
	"github.com/sqljudge/sqljudge/internal/report/htmlreport"
	"github.com/sqljudge/sqljudge/internal/run"
	"github.com/sqljudge/sqljudge/internal/usage"
)

type evalFlags struct {
	gold, pred, db, tables, format, out string
	suite                               string
	metrics                             []string
	timeout                             time.Duration
	workers, maxRows                    int
	maxBytes                            string
	resume, overwrite, partial          bool
	settings                            metric.Options
	demo                                bool
	progress                            string
	shard                               string
	html                                bool
	allowSuperuser                      bool
	allowGoldErrors                     bool
	audit                               bool
	llm                                 llmFlags
}

// evalLong is the long help of sqljudge eval, followed by the metric list.
const evalLong = `eval runs every gold and predicted query of a benchmark and grades each
prediction with the chosen metrics. It writes one record per item to
OUT/results.jsonl (in input order, as items finish, so an interrupted run
keeps its work and --resume continues it), then OUT/summary.json, and prints
accuracy per metric and difficulty with the count of each verdict status.

Difficulty levels are the benchmark's own (BIRD simple/moderate/challenging,
a JSONL "difficulty"). Items without one (Spider dev_gold.sql, dev.json) are
labelled, when --tables is given, with their gold query's Spider hardness
(easy, medium, hard, extra, as the official evaluation.py computes it), so
every metric is broken down like the official table; a gold the official
parser cannot read gets no label and counts only under "all".

em is Spider's exact set match. By default its verdicts are the official
ones: a prediction the official parser (process_sql) rejects scores 0 with
status pred_unparsed_official. --em-fixed grades what sqljudge's own parser
reads instead (status pred_unparsed where neither reads it). --partial adds
the official partial-matching table (select, select(no AGG), where, where(no
OP), group(no Having), group, order, and/or, IUEN, keywords: accuracy, recall,
F1 per hardness) to the console and to summary.json's "partial" field.

soft_f1, ves, rves and spider2 add a numeric "score" to each verdict; the
summary gives its mean per difficulty. ves and rves time each predicted and
gold query --ves-repeats times (interleaved, after a warm-up, one item at a
time: --workers is then 1) and report VES / R-VES as 100 x the mean score,
with a bootstrap 95% interval over items ("figure", "figure_ci95").
spider2 grades Spider 2.0 gold result CSVs (--format spider2).

sqleval is Defog SQL-Eval's compare_query_results. By default its verdicts
are the official runners' ones on SQLite, PostgreSQL and MySQL/MariaDB,
quirks included (positional columns on MySQL, the official gold split, an
error of any gold alternative tried counting the item wrong, pandas'
TypeErrors). --sqleval-fixed grades what the comparison means instead:
columns by name, no runner artefacts. summary.json's run.sqleval_mode says
which ran ("official" or "fixed").

Verdict statuses: ok (both queries ran), pred_error (the prediction failed:
syntax, missing column, a write or a second statement), gold_error, timeout,
too_large (more rows than --max-rows, more bytes than --max-bytes), internal_error
(a metric panicked: a bug of sqljudge, with its stack); em adds pred_unparsed_official and
pred_unparsed.

Gold formats (--format, detected from the file when omitted):
  spider       SQL<TAB>db_id per line (dev_gold.sql); blank lines separate
               SParC/CoSQL interactions
  spider-json  Spider dev.json
  bird         BIRD dev.json (question_id, SQL, difficulty, evidence)
  sqleval      Defog SQL-Eval questions CSV (';'-separated gold alternatives)
  jsonl        {"id", "db_id", "question", "gold", "pred"} per line
  rose-vec     ROSE-VEC JSON: question_id, question, predicted_sql, gold_sql
  spider2      Spider 2.0 gold result CSVs, JSONL {"id", "db_id", "gold_result":
               "x.csv" or ["x_a.csv", "x_b.csv"], "condition_cols", "ignore_order"}
               (paths relative to the file), or the official
               spider2lite_eval.jsonl beside exec_result/; graded by spider2 only
Predictions: one SQL per line (a <TAB>db_id suffix is ignored), BIRD's
predict_dev.json (paired by question_id), JSONL {"id", "pred"}, or a folder
of <id>.sql files (Spider 2.0's result_dir).

Metrics (--metrics, comma-separated):
`

// evalExample is the examples section of sqljudge eval's help.
const evalExample = `  # the embedded demo: no files needed
  sqljudge eval --demo

  # Spider dev, official EX semantics
  sqljudge eval --gold dev_gold.sql --pred pred.sql --db database/ --out out/spider

  # Spider dev by hardness, EX and exact set match with the partial table
  sqljudge eval --gold dev_gold.sql --pred pred.sql --db database/ \
      --tables tables.json --metrics ex,em --partial --out out/spider

  # BIRD dev, paired by question_id, with BIRD's own EX
  sqljudge eval --gold dev.json --pred predict_dev.json --db dev_databases/ \
      --metrics ex_bird,ex --out out/bird`

func newEvalCmd() *cobra.Command {
	f := &evalFlags{}
	cmd := &cobra.Command{
		Use:     "eval",
		Short:   "Grade predicted SQL against gold SQL on a benchmark's databases",
		Long:    evalLong + metricList(),
		Example: evalExample,
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return runEval(cmd, f)
		},
	}
	fl := cmd.Flags()
	f.registerInputs(fl)
	f.registerOutput(fl)
	f.registerLimits(fl)
	f.registerMetricOptions(fl)
	f.llm.register(fl)
	return cmd
}

// registerInputs registers the flags naming what is graded: the gold and
// predicted files, the databases, tables.json, the gold format, the embedded
// demo.
func (f *evalFlags) registerInputs(fl *pflag.FlagSet) {
	fl.StringVar(&f.gold, "gold", "", "gold benchmark file")
	fl.StringVar(&f.pred, "pred", "", "prediction file (omit when the gold JSONL has a \"pred\" field)")
	fl.StringVar(&f.db, "db", "", open.DBHelp)
	fl.StringVar(&f.tables, "tables", "", "Spider tables.json: checks every db_id; needed by em; labels items without a difficulty with their Spider hardness")
	fl.StringVar(&f.format, "format", "", "gold `FORMAT`: "+formatList()+" (default: detected from the file)")
	fl.BoolVar(&f.demo, "demo", false, "grade the demo benchmark embedded in the binary (bookshop, 31 questions), written to a\nsqljudge-demo-* folder removed at the end unless it also holds the output (no --out)")
}

// registerOutput registers the flags of the output folder and of what is
// written there and on the console: results, resume, overwrite, HTML report,
// progress bar, shard.
func (f *evalFlags) registerOutput(fl *pflag.FlagSet) {
	fl.StringVar(&f.out, "out", "", "output folder for results.jsonl and summary.json")
	fl.BoolVar(&f.resume, "resume", false, "continue the run in --out: grade only the items results.jsonl lacks")
	fl.BoolVar(&f.overwrite, "overwrite", false, "replace the results already in --out")
	fl.BoolVar(&f.html, "html", true, "write OUT/report.html (see: sqljudge report --help); --html=false skips it")
	fl.StringVar(&f.progress, "progress", "auto", "progress bar on stderr: `WHEN` is auto (when a terminal), always or never")
	fl.StringVar(&f.shard, "shard", "", "grade only the items whose 0-based index mod n is i (i/n, such as 0/4); join the shards' --out folders with: sqljudge merge")
}

// registerLimits registers the flags bounding how queries run: time limit,
// workers, row and byte caps, PostgreSQL role check.
func (f *evalFlags) registerLimits(fl *pflag.FlagSet) {
	fl.DurationVar(&f.timeout, "timeout", eval.DefaultTimeout, "time limit of each query")
	fl.IntVar(&f.workers, "workers", runtime.NumCPU(), "items graded at once")
	fl.IntVar(&f.maxRows, "max-rows", engine.DefaultMaxRows, "row cap of a query result; more rows is too_large")
	fl.StringVar(&f.maxBytes, "max-bytes", fmt.Sprintf("%dMiB", eval.DefaultMaxBytes>>20), "byte cap of a query result in memory, a `SIZE` such as 128MiB or 1GB; a larger result, or on SQLite a single value over a quarter of it, is too_large")
	fl.BoolVar(&f.allowGoldErrors, "allow-gold-errors", false, "grade on when most of the first 50 items' gold queries fail (gold_error); by default the run stops with exit 2, as the databases or tables are likely wrong")
	fl.BoolVar(&f.audit, "audit", false, "also audit each item's gold (as sqljudge audit does) and list what makes it unfit to grade against in its record (gold_hazards); no verdict or figure changes")
	fl.BoolVar(&f.allowSuperuser, "allow-superuser", false, "PostgreSQL: run predictions under a --db role that may administer the server (superuser, pg_read_server_files, pg_signal_backend...); refused by default")
}

// registerMetricOptions registers the metric list, the suite, em's
// partial table and the settings the metrics declare (registerSettings:
// --keep-distinct, --em-fixed, --sqleval-fixed, --plug-value, --max-plug,
// --ves-repeats, --equiv-*), with their defaults.
func (f *evalFlags) registerMetricOptions(fl *pflag.FlagSet) {
	fl.StringSliceVar(&f.metrics, "metrics", []string{"ex"}, "metrics to compute, comma-separated")
	fl.BoolVar(&f.partial, "partial", false, "em: print the official partial-matching table per hardness and write it to summary.json")
	fl.StringVar(&f.suite, "suite", "", "test-suite folder for ts: `DIR`/<db_id>/*.sqlite (built by: sqljudge testsuite build)")
	registerSettings(fl, &f.settings, false)
}

// formatList names every gold format, for --format's help.
func formatList() string {
	names := make([]string, len(bench.Formats))
	for i, f := range bench.Formats {
		names[i] = string(f)
	}
	return strings.Join(names, ", ")
}

func metricList() string {
	var b strings.Builder
	for _, n := range metric.Names() {
		fmt.Fprintf(&b, "  %-12s %s\n", n, metric.Doc(n))
	}
	return b.String()
}

func runEval(cmd *cobra.Command, f *evalFlags) error {
	stderr := cmd.ErrOrStderr()
	if f.demo {
		cleanup, err := demoDefaults(cmd, f)
		if err != nil {
			return err
		}
		defer cleanup()
	}
	// The flags eval.Options cannot hold are checked here; the others by
	// Check, before any warning is printed.
	if f.progress != "auto" && f.progress != "always" && f.progress != "never" {
		return usage.Errorf("--progress %q: want auto, always or never", f.progress)
	}
	maxBytes, err := parseBytes(f.maxBytes)
	if err != nil {
		return usage.Errorf("--max-bytes %q: %v", f.maxBytes, err)
	}
	o := eval.Options{
		Gold: f.gold, Pred: f.pred, Format: f.format, DB: f.db, Tables: f.tables, Out: f.out,
		Metrics: f.metrics, Timeout: f.timeout, Workers: f.workers, MaxRows: f.maxRows, MaxBytes: maxBytes,
		Settings: f.settings, Partial: f.partial,
		Resume: f.resume, Overwrite: f.overwrite, Suite: f.suite, Shard: f.shard, HTML: f.html, AllowSuperuser: f.allowSuperuser,
		AllowGoldErrors: f.allowGoldErrors, Audit: f.audit,
		Judge: f.llm.judge(), Version: version(), Progress: newProgress(f.progress, stderr), Log: stderr,
	}
	if err := o.Check(); err != nil {
		return err
	}
	if o.Timed() && f.workers != 1 && cmd.Flags().Changed("workers") {
		fmt.Fprintf(stderr, "eval: ves/rves time queries one item at a time; --workers %d ignored\n", f.workers)
	}
	restore := tuneGC(os.Getenv)
	defer restore()
	sum, err := eval.Run(cmd.Context(), o)
	if err != nil {
		return err
	}
	stdout := cmd.OutOrStdout()
	if sum.Run.SQLEvalMode != "" {
		fmt.Fprintf(stdout, "sqleval mode: %s\n", sum.Run.SQLEvalMode)
	}
	report.PrintTable(stdout, sum)
	report.PrintHazards(stdout, sum, hazardKinds())
	printOutputs(stdout, f.out, f.html)
	return nil
}

// hazardKinds are the gold audit's kinds in report order, for
// report.PrintHazards.
func hazardKinds() []string {
	out := make([]string, len(audit.Kinds))
	for i, k := range audit.Kinds {
		out[i] = string(k)
	}
	return out
}

// printOutputs names the files a run wrote in out for a reader: its
// records, summary and, when html, report.html.
func printOutputs(w io.Writer, out string, html bool) {
	fmt.Fprintf(w, "records: %s\nsummary: %s\n", filepath.Join(out, run.ResultsFile), filepath.Join(out, report.SummaryFile))
	if html {
		fmt.Fprintf(w, "report:  %s\n", filepath.Join(out, htmlreport.File))
	}
}

// demoDefaults writes the embedded demo benchmark to a new folder
// (demoFolder) and points --gold, --db (and --out, --metrics, --timeout
// unless given) at it. The cleanup it returns removes the folder, unless
// it holds the output (no --out).
func demoDefaults(cmd *cobra.Command, f *evalFlags) (cleanup func(), err error) {
	if f.gold != "" || f.pred != "" || f.db != "" {
		return nil, usage.Errorf("--demo grades the embedded benchmark: drop --gold, --pred and --db")
	}
	dir, err := demoFolder(f.out)
	if err != nil {
		return nil, err
	}
	cleanup = func() { os.RemoveAll(dir) }
	input := filepath.Join(dir, "input")
	files, err := demo.Materialize(input)
	if err != nil {
		cleanup()
		return nil, err
	}
	f.gold, f.db = files.Gold, files.DBDir
	note := " (removed when the run ends)"
	if f.out == "" {
		f.out = filepath.Join(dir, "out")
		cleanup, note = func() {}, ""
	}
	if !cmd.Flags().Changed("metrics") {
		f.metrics = []string{"ex", "ex_bird", "sqleval"}
	}
	if !cmd.Flags().Changed("timeout") {
		f.timeout = 2 * time.Second
	}
	fmt.Fprintf(cmd.ErrOrStderr(), "demo: bookshop benchmark and database written to %s%s\n", input, note)
	return cleanup, nil
}

// demoFolder makes a new folder sqljudge-demo-* for the demo: in the
// system's temporary folder ($TMPDIR, else /tmp), or where there is none
// (an empty container root) beside out, or in the current folder when out
// is "".
func demoFolder(out string) (string, error) {
	dir, err := os.MkdirTemp("", "sqljudge-demo-")
	if err == nil {
		return dir, nil
	}
	parent := "."
	if out != "" {
		parent = filepath.Dir(out)
		_ = os.MkdirAll(parent, 0o755) // as eval will for out; MkdirTemp says why if this fails
	}
	dir, err2 := os.MkdirTemp(parent, "sqljudge-demo-")
	if err2 != nil {
		return "", fmt.Errorf("demo: no temporary folder (%v), nor a folder in %s: %w", err, parent, err2)
	}
	return filepath.Abs(dir)
}

// parseBytes reads a byte count: a whole number with an optional unit B,
// KB, MB, GB (powers of 1000) or KiB, MiB, GiB (powers of 1024).
func parseBytes(s string) (int64, error) {
	t := strings.TrimSpace(s)
	i := 0
	for i < len(t) && t[i] >= '0' && t[i] <= '9' {
		i++
	}
	n, err := strconv.ParseInt(t[:i], 10, 64)
	if err != nil || n <= 0 {
		return 0, fmt.Errorf("want a positive byte count such as 256MiB")
	}
	units := map[string]int64{"": 1, "B": 1, "KB": 1e3, "MB": 1e6, "GB": 1e9, "KIB": 1 << 10, "MIB": 1 << 20, "GIB": 1 << 30}
	u, ok := units[strings.ToUpper(strings.TrimSpace(t[i:]))]
	if !ok {
		return 0, fmt.Errorf("unknown unit %q (want B, KB, MB, GB, KiB, MiB or GiB)", t[i:])
	}
	if n > (1<<62)/u {
		return 0, fmt.Errorf("too large")
	}
	return n * u, nil
}

// evalGCPercent is the GC percent eval runs with unless GOGC is set: a
// run allocates many short-lived results, and collecting at 4x the live
// heap instead of 2x takes about a tenth off its CPU (Spider dev, ex and
// ts), while evalMemoryLimit keeps the heap bounded.
const evalGCPercent = 400

// evalMemoryLimit is the soft memory limit eval runs with unless
// GOMEMLIMIT is set: past it the collector runs harder, so the copies a
// large result leaves behind do not pile up (see --max-bytes), and a long
// run's heap (GC percent 400: five times its live data) stays bounded.
// With SQLite's own cap (sqlite.HeapLimit) it bounds a run's memory; both
// are in summary.json's run block.
const evalMemoryLimit = 384 << 20

// tuneGC sets eval's GC percent and soft memory limit where the
// environment (getenv) does not set GOGC or GOMEMLIMIT, and returns the
// function that restores the previous settings.
func tuneGC(getenv func(string) string) (restore func()) {
	gc, mem := -2, int64(-1)
	if getenv("GOGC") == "" {
		gc = debug.SetGCPercent(evalGCPercent)
	}
	if getenv("GOMEMLIMIT") == "" {
		mem = debug.SetMemoryLimit(evalMemoryLimit)
	}
	return func() {
		if gc != -2 {
			debug.SetGCPercent(gc)
		}
		if mem >= 0 {
			debug.SetMemoryLimit(mem)
		}
	}
}
