package cli

import (
	"fmt"
	"path/filepath"
	"runtime"
	"time"

	"github.com/spf13/cobra"

	"github.com/sqljudge/sqljudge/internal/audit"
	"github.com/sqljudge/sqljudge/internal/engine"
	"github.com/sqljudge/sqljudge/internal/engine/open"
	"github.com/sqljudge/sqljudge/internal/eval"
	"github.com/sqljudge/sqljudge/internal/usage"
)

// auditLong is the long help of sqljudge audit.
const auditLong = `audit lists, per item, what makes a benchmark's gold query unfit to grade
against, each finding with its evidence, found by running the gold and
auxiliary queries spliced from it on the benchmark's own databases
(read-only). It reads every gold file eval reads (--format, detected when
omitted) except Spider 2.0's result CSVs.

Kinds of finding:
  fails          the gold fails on the database (the engine's error)
  timeout        the gold runs past --timeout
  too_large      the gold result is past --max-rows or --max-bytes
  near_timeout   the gold runs in more than --slow of --timeout (the faster of
                 two runs): its verdicts depend on the machine
  empty          the gold returns no row
  limit_ties     a LIMIT cuts through rows tied on the ORDER BY keys that differ
                 in what is returned (the last kept row and the tied rows past it)
  order_ties     the rule compares rows in order (--compare) and the ORDER BY
                 leaves returned rows tied, or there is no outer ORDER BY
  float_order    a SUM/AVG over floats gives another value summed in another
                 order (the two values, and the engine's own sums of them)
  volatile       random() or a clock function (date('now'), CURRENT_DATE...)
  null_order     an ORDER BY over NULLs keeps (or orders) other rows with NULLs
                 first (SQLite, MySQL) than last (PostgreSQL)
  text_numbers   an ORDER BY, MAX or MIN over numbers stored as text, where
                 sorting them as numbers changes the result (two values that invert)

The console shows the counts by kind and a few examples; --out DIR writes
DIR/findings.jsonl (one finding a line: the item's index and id as eval's
records name them, kind, detail, evidence) and DIR/summary.json (counts by
kind, checks that could not run, inputs, settings). The same inputs and
settings give the same bytes, but for timeout and near_timeout, which
depend on the machine. audit exits 0 whatever it finds, 2 on bad input.
eval --audit runs the same checks while grading and marks the records
(gold_hazards) without changing any verdict.`

// auditExample is the examples section of sqljudge audit's help.
const auditExample = `  # Spider dev
  sqljudge audit --gold dev_gold.sql --db database/ --tables tables.json --out out/audit

  # Defog SQL-Eval on PostgreSQL (the dumps loaded with sqljudge db load)
  sqljudge audit --gold questions_gen_postgres.csv --db postgres://user@localhost:5432/`

type auditFlags struct {
	gold, db, tables, format, out, compare, maxBytes, progress string
	timeout                                                    time.Duration
	workers, maxRows, maxEvidence, examples                    int
	slow                                                       float64
	overwrite, allowSuperuser                                  bool
}

func newAuditCmd() *cobra.Command {
	f := &auditFlags{}
	cmd := &cobra.Command{
		Use:     "audit",
		Short:   "List what makes a benchmark's gold queries unfit to grade against, with evidence",
		Long:    auditLong,
		Example: auditExample,
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return runAudit(cmd, f)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&f.gold, "gold", "", "gold benchmark file")
	fl.StringVar(&f.db, "db", "", open.DBHelp)
	fl.StringVar(&f.tables, "tables", "", "Spider tables.json: checks every db_id")
	fl.StringVar(&f.format, "format", "", "gold `FORMAT`: "+formatList()+" (default: detected from the file)")
	fl.StringVar(&f.out, "out", "", "output folder for findings.jsonl and summary.json (default: console only)")
	fl.BoolVar(&f.overwrite, "overwrite", false, "replace the audit already in --out")
	fl.StringVar(&f.compare, "compare", "auto", "the rule rows are compared by, for order_ties: spider (in order when the gold says ORDER BY), unordered, or auto (unordered for bird and sqleval, spider otherwise)")
	fl.DurationVar(&f.timeout, "timeout", 30*time.Second, "time limit of each query, the gold's and each auxiliary one's")
	fl.Float64Var(&f.slow, "slow", audit.DefaultSlowRatio, "share of --timeout past which a gold is near_timeout")
	fl.IntVar(&f.workers, "workers", runtime.NumCPU(), "items audited at once")
	fl.IntVar(&f.maxRows, "max-rows", engine.DefaultMaxRows, "row cap of each query result")
	fl.StringVar(&f.maxBytes, "max-bytes", "256MiB", "byte cap of each query result, a `SIZE` such as 256MiB")
	fl.IntVar(&f.maxEvidence, "max-evidence", audit.DefaultMaxEvidence, "rows of evidence a finding lists at most (it says when it cut them)")
	fl.IntVar(&f.examples, "examples", 3, "findings of each kind the console shows")
	fl.StringVar(&f.progress, "progress", "auto", "progress bar on stderr: `WHEN` is auto (when a terminal), always or never")
	fl.BoolVar(&f.allowSuperuser, "allow-superuser", false, "PostgreSQL: run under a --db role that may administer the server; refused by default")
	return cmd
}

func runAudit(cmd *cobra.Command, f *auditFlags) error {
	if f.progress != "auto" && f.progress != "always" && f.progress != "never" {
		return usage.Errorf("--progress %q: want auto, always or never", f.progress)
	}
	if f.examples < 0 {
		return usage.Errorf("--examples must not be negative")
	}
	maxBytes, err := parseBytes(f.maxBytes)
	if err != nil {
		return usage.Errorf("--max-bytes %q: %v", f.maxBytes, err)
	}
	start := time.Now()
	sum, reps, err := eval.Audit(cmd.Context(), eval.AuditOptions{
		Gold: f.gold, Format: f.format, DB: f.db, Tables: f.tables, Out: f.out, Overwrite: f.overwrite,
		Timeout: f.timeout, Workers: f.workers, MaxRows: f.maxRows, MaxBytes: maxBytes,
		SlowRatio: f.slow, MaxEvidence: f.maxEvidence, Compare: f.compare, AllowSuperuser: f.allowSuperuser,
		Version: version(), Progress: newProgress(f.progress, cmd.ErrOrStderr()),
	})
	if err != nil {
		return err
	}
	w := cmd.OutOrStdout()
	audit.Print(w, sum, reps, f.examples)
	fmt.Fprintf(w, "%d items, %d gold queries, engine %s, compare %s, wall time %s\n", sum.Items, sum.Queries, sum.Inputs.Engine, sum.Settings.Compare, time.Since(start).Round(time.Millisecond))
	if f.out != "" {
		fmt.Fprintf(w, "findings: %s\nsummary:  %s\n", filepath.Join(f.out, audit.FindingsFile), filepath.Join(f.out, audit.SummaryFile))
	}
	return nil
}
