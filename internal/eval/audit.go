package eval

import (
	"context"
	"fmt"
	"time"

	"github.com/sqljudge/sqljudge/internal/audit"
	"github.com/sqljudge/sqljudge/internal/bench"
	"github.com/sqljudge/sqljudge/internal/engine/open"
	"github.com/sqljudge/sqljudge/internal/outdir"
	"github.com/sqljudge/sqljudge/internal/run"
	"github.com/sqljudge/sqljudge/internal/usage"
)

// AuditOptions are the inputs of Audit: sqljudge audit's flags, with their
// defaults applied by the caller.
type AuditOptions struct {
	// Gold is the gold benchmark file (any format eval reads except
	// spider2, whose gold is results, not SQL); Format its format ("":
	// detected); DB the databases (open.Open); Tables Spider's tables.json
	// (optional: its db_ids are checked).
	Gold, Format, DB, Tables string
	// Out is the folder of findings.jsonl and summary.json ("": none
	// written); Overwrite replaces an earlier audit there.
	Out       string
	Overwrite bool
	// Timeout is the time limit of each query; Workers the items audited
	// at once; MaxRows and MaxBytes cap each result.
	Timeout          time.Duration
	Workers, MaxRows int
	MaxBytes         int64
	// SlowRatio and MaxEvidence are audit.Config's.
	SlowRatio   float64
	MaxEvidence int
	// Compare is the rule rows are compared by: "auto" (Spider's for every
	// format but bird and sqleval, whose official rules compare rows as a
	// set), "spider" or "unordered".
	Compare string
	// AllowSuperuser lets PostgreSQL run the queries under an admin role.
	AllowSuperuser bool
	// Version is sqljudge's version, recorded in the summary; Progress is
	// told of audited items (nil: none).
	Version  string
	Progress run.Progress
}

// Check rejects options Audit cannot use with an InputError naming the flag.
func (o *AuditOptions) Check() error {
	switch {
	case o.Gold == "":
		return usage.Errorf("--gold is required")
	case o.DB == "":
		return usage.Errorf("--db is required: the folder of the benchmark's databases")
	}
	if err := checkQueryLimits(o.Timeout, o.Workers, o.MaxRows, o.MaxBytes); err != nil {
		return err
	}
	switch {
	case o.SlowRatio <= 0 || o.SlowRatio > 1:
		return usage.Errorf("--slow must be in (0, 1]: the share of --timeout past which a gold is near_timeout")
	case o.MaxEvidence < 1:
		return usage.Errorf("--max-evidence must be at least 1")
	case o.Compare != "auto" && o.Compare != "spider" && o.Compare != "unordered":
		return usage.Errorf("--compare %q: want auto, spider or unordered", o.Compare)
	}
	return nil
}

// Audit checks every gold query of o.Gold on o.DB (audit.Run), writes
// Out/findings.jsonl and Out/summary.json when o.Out is set, and returns
// the summary and the reports, one per item in item order. Bad options and
// inputs (a malformed gold file, an unknown db_id, an Out holding an
// earlier audit) are InputErrors, found before any query runs.
func Audit(ctx context.Context, o AuditOptions) (*audit.Summary, []audit.ItemReport, error) {
	if err := o.Check(); err != nil {
		return nil, nil, err
	}
	format := bench.Format(o.Format)
	if format == bench.FormatAuto {
		var err error
		if format, err = bench.Detect(o.Gold); err != nil {
			return nil, nil, err
		}
	}
	items, err := bench.LoadGold(o.Gold, format)
	if err != nil {
		return nil, nil, err
	}
	if len(items[0].GoldResults) > 0 {
		return nil, nil, usage.Errorf("%s: the gold is Spider 2.0 result CSVs, not SQL: there is no gold query to audit", items[0].GoldPos)
	}
	hash, err := outdir.FileHash(o.Gold)
	if err != nil {
		return nil, nil, usage.Errorf("--gold %s: %v", o.Gold, err)
	}
	if o.Out != "" {
		if err := audit.CheckOut(o.Out, o.Overwrite); err != nil {
			return nil, nil, err
		}
	}
	_, eng, err := openDatabases(ctx, items, o.DB, o.Tables, open.Options{MaxRows: o.MaxRows, MaxBytes: o.MaxBytes, MaxConns: o.Workers, AllowSuperuser: o.AllowSuperuser}, nil)
	if eng != nil {
		defer eng.Close()
	}
	if err != nil {
		return nil, nil, err
	}
	compare := compareRule(o.Compare, format)
	cfg := &audit.Config{Engine: eng, Timeout: o.Timeout, SlowRatio: o.SlowRatio, MaxEvidence: o.MaxEvidence,
		Ordered: orderedRule(compare), Expand: format == bench.FormatSQLEval}
	reps, err := audit.Run(ctx, cfg, items, o.Workers, o.Progress)
	if err != nil {
		if ctx.Err() != nil {
			return nil, nil, fmt.Errorf("interrupted: nothing written")
		}
		return nil, nil, err
	}
	sum := audit.Summarize(reps,
		audit.Inputs{Gold: o.Gold, SHA256: hash, Format: string(format), DB: open.Redact(o.DB), Tables: o.Tables, Engine: string(eng.Dialect())},
		audit.Settings{Version: o.Version, TimeoutSeconds: o.Timeout.Seconds(), SlowRatio: o.SlowRatio, MaxEvidence: o.MaxEvidence,
			TieWindow: audit.TieWindow, MaxRows: o.MaxRows, MaxBytes: o.MaxBytes, Workers: o.Workers, Compare: compare, Expand: cfg.Expand})
	if o.Out != "" {
		if err := audit.Write(o.Out, reps, sum); err != nil {
			return nil, nil, err
		}
	}
	return sum, reps, nil
}

// compareRule resolves --compare "auto" from the gold's format: BIRD's
// ex_bird and SQL-Eval compare rows as sets (SQL-Eval sorts them first),
// every other benchmark is graded with Spider's rule.
func compareRule(compare string, f bench.Format) string {
	if compare != "auto" {
		return compare
	}
	if f == bench.FormatBird || f == bench.FormatSQLEval {
		return "unordered"
	}
	return "spider"
}

// orderedRule is the audit.Config.Ordered of a rule name.
func orderedRule(compare string) func(string) bool {
	if compare == "spider" {
		return audit.SpiderOrdered
	}
	return nil
}

// goldHazards returns run.Options.GoldHazards for eval --audit: each
// graded item's gold is audited with the run's engine and time limit,
// under the order rule of the metrics (Spider's when ex, ts, equiv or
// verdict grade, which compare in order when the gold says ORDER BY), and
// its findings become the record's gold_hazards.
func goldHazards(o *Options, j *job) func(context.Context, *bench.Item) []run.GoldHazard {
	compare := "unordered"
	for _, m := range []string{"ex", "ts", "equiv", "verdict"} {
		if hasMetric(o.Metrics, m) {
			compare = "spider"
		}
	}
	format := bench.Format(o.Format)
	if format == bench.FormatAuto {
		format, _ = bench.Detect(o.Gold) // bench.Load read the file already
	}
	cfg := &audit.Config{Engine: j.eng, Timeout: o.Timeout, Ordered: orderedRule(compare), Expand: format == bench.FormatSQLEval}
	return func(ctx context.Context, it *bench.Item) []run.GoldHazard {
		rep, err := cfg.Item(ctx, it)
		if err != nil {
			return nil // the run is ending: the record is not written
		}
		var out []run.GoldHazard
		for _, f := range rep.Findings {
			d := f.Detail
			if f.Query != nil {
				d = fmt.Sprintf("gold query %d: %s", *f.Query+1, d)
			}
			out = append(out, run.GoldHazard{Kind: string(f.Kind), Detail: d})
		}
		return out
	}
}
