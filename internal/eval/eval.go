package eval

import (
	"context"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"time"

	"github.com/sqljudge/sqljudge/internal/bench"
	"github.com/sqljudge/sqljudge/internal/engine"
	"github.com/sqljudge/sqljudge/internal/llm"
	"github.com/sqljudge/sqljudge/internal/metric"
	"github.com/sqljudge/sqljudge/internal/outdir"
	"github.com/sqljudge/sqljudge/internal/report"
	"github.com/sqljudge/sqljudge/internal/report/htmlreport"
	"github.com/sqljudge/sqljudge/internal/run"
	"github.com/sqljudge/sqljudge/internal/schema"
	"github.com/sqljudge/sqljudge/internal/shard"
	"github.com/sqljudge/sqljudge/internal/usage"
)

// Options are the inputs of Run: eval's flags, with their defaults
// already applied by the caller.
type Options struct {
	// Gold is the gold benchmark file; Pred the predictions (empty when
	// the gold JSONL has a "pred" field); Format the gold format (empty:
	// detected); see bench.Load.
	Gold, Pred, Format string
	// DB names the databases (see open.Open); Tables is Spider's
	// tables.json (optional; needed by em and for hardness labels).
	DB, Tables string
	// Out is the output folder of results.jsonl, summary.json, report.html.
	Out string
	// Metrics are metric names (metric.New); spaces around names are ignored.
	Metrics []string
	// Timeout is the time limit of each query (positive).
	Timeout time.Duration
	// Workers is the number of items graded at once (at least 1; 1 when
	// ves or rves time queries); MaxRows and MaxBytes cap a query's result.
	Workers, MaxRows int
	MaxBytes         int64
	// Partial summarizes em's partial-matching table.
	Partial bool
	// Resume continues the run in Out; Overwrite replaces it (exclusive).
	Resume, Overwrite bool
	// Suite is the test-suite folder of ts and equiv.
	Suite string
	// Settings holds the metrics' own settings, those metric.Settings
	// declares (--keep-distinct, --em-fixed, --sqleval-fixed,
	// --plug-value, --max-plug, --ves-repeats, --equiv-*), as their flags
	// set them; MetricOptions adds the run's (Suite, Timeout, caps,
	// schemas, judge). Defaults().Settings is metric.DefaultOptions.
	Settings metric.Options
	// Shard ("i/n", see shard.Parse) grades only one shard of the items.
	Shard string
	// HTML writes Out/report.html.
	HTML bool
	// AllowSuperuser lets PostgreSQL predictions run under an admin role.
	AllowSuperuser bool
	// AllowGoldErrors grades on when most of the first items' gold
	// queries fail (see ErrGoldErrors), instead of stopping.
	AllowGoldErrors bool
	// Audit runs the gold audit on each graded item (package audit) and
	// stores its findings in the item's record (gold_hazards); no verdict
	// changes.
	Audit bool
	// Judge are the LLM judges' settings (used when a judge is in Metrics).
	Judge Judge
	// Version is sqljudge's version, recorded in the fingerprint and the
	// summary's run block.
	Version string
	// Progress is told of graded items (nil: none); Log receives notes
	// such as gold queries without a hardness label (nil: discarded).
	Progress run.Progress
	Log      io.Writer
}

// job is what Run sets up before grading.
type job struct {
	items            []bench.Item
	total            int
	shard            shard.Spec
	schemas          schema.Schemas
	eng              engine.Engine
	difficulty       func(*bench.Item) string
	difficultySource string
	client           *llm.Client
	metrics          []metric.Metric
}

// Run grades every item of o.Gold (or of o.Shard) with o.Metrics, writes
// Out/results.jsonl (run.Runner: in input order, resumable), then
// Out/summary.json with its run block and, when o.HTML, Out/report.html,
// and returns the summary (report.Summarize, with WallSeconds, Run and,
// when o.Partial, em's partial table). Errors: InputError for bad options
// or inputs (unknown db_id, unwritable Out, results of other settings,
// a locked Out); an interrupted run or a tripped LLM circuit breaker
// returns an error saying the finished items are in results.jsonl.
func Run(ctx context.Context, o Options) (*report.Summary, error) {
	if err := o.Check(); err != nil {
		return nil, err
	}
	if o.Log == nil {
		o.Log = io.Discard
	}
	if o.Timed() {
		o.Workers = 1 // concurrent items would time each other's load
	}
	j, err := setup(ctx, &o)
	if j != nil {
		defer j.eng.Close()
		defer metric.Close(j.metrics)
	}
	if err != nil {
		return nil, err
	}
	if j.client != nil {
		var stop func()
		if ctx, stop, err = watchEndpoint(ctx, j.client, o.Judge.Check); err != nil {
			return nil, err
		}
		defer stop()
	}
	if err := prepareOut(o.Out); err != nil {
		return nil, err
	}
	fp, err := fingerprint(&o)
	if err != nil {
		return nil, err
	}
	r := &run.Runner{
		Env:     &metric.Env{Engine: j.eng, Timeout: o.Timeout, SharePreds: true},
		Metrics: j.metrics,
		Opts: run.Options{
			OutDir: o.Out, Workers: o.Workers, Resume: o.Resume, Overwrite: o.Overwrite,
			Difficulty: j.difficulty, Progress: o.Progress, Fingerprint: fp,
			Samples: MaxSamples,
			Derived: []string{report.SummaryFile, htmlreport.File},
		},
	}
	if !o.AllowGoldErrors {
		r.Opts.Watch = newGoldCheck(len(j.items)).watch
	}
	if o.Audit {
		r.Opts.GoldHazards = goldHazards(&o, j)
	}
	sum, recs, stats, err := Grade(ctx, r, j.items)
	if errors.Is(err, outdir.ErrOutputExists) || errors.Is(err, outdir.ErrSettingsChanged) || errors.Is(err, outdir.ErrLocked) || errors.Is(err, ErrGoldErrors) {
		return nil, InputError{Err: err}
	}
	if err != nil {
		if j.client != nil && j.client.Err() != nil {
			return nil, fmt.Errorf("%w; run stopped: the finished items are in %s; continue with --resume once the endpoint answers", j.client.Err(), filepath.Join(o.Out, run.ResultsFile))
		}
		if ctx.Err() != nil {
			return nil, fmt.Errorf("interrupted: the finished items are in %s; continue with --resume", filepath.Join(o.Out, run.ResultsFile))
		}
		return nil, err
	}
	return finish(&o, j, sum, recs, stats)
}

// checkQueryLimits rejects the flags that bound each query, shared by
// eval and audit: --timeout (positive), --workers and --max-rows (at
// least 1), --max-bytes (positive); the error names the flag.
func checkQueryLimits(timeout time.Duration, workers, maxRows int, maxBytes int64) error {
	switch {
	case timeout <= 0:
		return usage.Errorf("--timeout must be positive")
	case workers <= 0:
		return usage.Errorf("--workers must be at least 1")
	case maxRows <= 0:
		return usage.Errorf("--max-rows must be at least 1")
	case maxBytes <= 0:
		return usage.Errorf("--max-bytes must be positive")
	}
	return nil
}

// Check rejects options Run cannot use with an InputError naming the flag
// each comes from, in the order of sqljudge eval's flag checks. Run calls it
// first; the CLI calls it before it warns about the flags.
func (o *Options) Check() error {
	switch {
	case o.Gold == "":
		return usage.Errorf("--gold is required (or try --demo)")
	case o.DB == "":
		return usage.Errorf("--db is required: the folder of the benchmark's databases")
	case o.Out == "":
		return usage.Errorf("--out is required: the folder for results.jsonl and summary.json")
	}
	if err := checkQueryLimits(o.Timeout, o.Workers, o.MaxRows, o.MaxBytes); err != nil {
		return err
	}
	switch {
	case o.Resume && o.Overwrite:
		return usage.Errorf("--resume and --overwrite exclude each other")
	case hasMetric(o.Metrics, "em") && o.Tables == "":
		return usage.Errorf("em needs the database schemas: give --tables with the benchmark's tables.json (Spider and BIRD ship one beside the databases)")
	case o.Partial && !hasMetric(o.Metrics, "em"):
		return usage.Errorf("--partial prints em's partial-matching table: add em to --metrics")
	}
	// The metrics' settings, as each declares its rules.
	if err := metric.CheckSettings(&o.Settings, o.Metrics); err != nil {
		return usage.Error{Err: err}
	}
	return nil
}
