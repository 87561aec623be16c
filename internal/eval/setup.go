package eval

import (
	"context"
	"fmt"
	"math"
	"path/filepath"
	"runtime/debug"

	"github.com/sqljudge/sqljudge/internal/bench"
	"github.com/sqljudge/sqljudge/internal/engine"
	"github.com/sqljudge/sqljudge/internal/engine/open"
	"github.com/sqljudge/sqljudge/internal/engine/sqlite"
	_ "github.com/sqljudge/sqljudge/internal/equiv" // registers the equiv metric
	"github.com/sqljudge/sqljudge/internal/metric"
	"github.com/sqljudge/sqljudge/internal/report"
	"github.com/sqljudge/sqljudge/internal/run"
	"github.com/sqljudge/sqljudge/internal/schema"
	"github.com/sqljudge/sqljudge/internal/shard"
	"github.com/sqljudge/sqljudge/internal/usage"
)

// setup loads the items, opens the engine, checks every db_id, labels
// difficulties and builds the metrics. The job it returns is non-nil once
// the engine is open (even with an error): the caller closes it.
func setup(ctx context.Context, o *Options) (*job, error) {
	items, err := bench.Load(bench.Options{Gold: o.Gold, Pred: o.Pred, Format: bench.Format(o.Format)})
	if err != nil {
		return nil, err
	}
	if err := checkGoldKind(items, o.Metrics); err != nil {
		return nil, err
	}
	j := &job{total: len(items)}
	if o.Shard != "" {
		if j.shard, err = shard.Parse(o.Shard); err != nil {
			return nil, InputError{Err: err}
		}
		items = j.shard.Select(items)
	}
	j.items = items
	j.schemas, j.eng, err = openDatabases(ctx, items, o.DB, o.Tables, open.Options{MaxRows: o.MaxRows, MaxBytes: o.MaxBytes, MaxConns: o.Workers, AllowSuperuser: o.AllowSuperuser},
		func(d engine.Dialect) error { return CheckMetricsDialect(o.Metrics, d) })
	if j.eng == nil {
		return nil, err
	}
	if err != nil {
		return j, err
	}
	j.difficulty, j.difficultySource = HardnessLabels(o.Log, items, j.schemas)
	if j.client, err = NewJudgeClient(o.Judge, o.Out, o.Metrics); err != nil {
		return j, err
	}
	j.metrics, err = metric.New(o.Metrics, o.MetricOptions(j.schemas, j.client))
	if err != nil {
		return j, InputError{Err: err}
	}
	if err := CheckMetrics(ctx, items, j.metrics); err != nil {
		return j, err
	}
	return j, nil
}

// CheckMetricsDialect fails when one of metrics cannot grade on an engine
// of dialect d: equiv and verdict search for a witness on SQLite files
// only. The error is the caller's input (a usage error, exit 2), given
// before any item is graded; eval and generate --metrics both call it.
func CheckMetricsDialect(metrics []string, d engine.Dialect) error {
	if d != engine.SQLite && (hasMetric(metrics, "equiv") || hasMetric(metrics, "verdict")) {
		return usage.Errorf("--metrics equiv and verdict search for a witness on SQLite databases (--db a folder of .sqlite files), not on %s: decide such pairs with `sqljudge equiv --db DSN` and db_id pairs", d)
	}
	return nil
}

// openDatabases reads tables.json (when tablesPath is not "") and opens
// the engine of db, as eval and audit both do, then asks dialect (when not
// nil) whether the engine suits the run and checks that every item's
// db_id has a database (and is in tables.json). The engine is returned,
// to be closed by the caller, whenever it opened, even with an error;
// every error is the user's input (an InputError).
func openDatabases(ctx context.Context, items []bench.Item, db, tablesPath string, oo open.Options, dialect func(engine.Dialect) error) (schema.Schemas, engine.Engine, error) {
	var schemas schema.Schemas
	if tablesPath != "" {
		var err error
		if schemas, err = schema.Load(tablesPath); err != nil {
			return nil, nil, InputError{Err: err}
		}
	}
	eng, err := open.Open(db, oo)
	if err != nil {
		return nil, nil, InputError{Err: err}
	}
	if dialect != nil {
		if err := dialect(eng.Dialect()); err != nil {
			return schemas, eng, err
		}
	}
	return schemas, eng, CheckDatabases(ctx, items, eng, schemas, tablesPath)
}

// finish completes the summary of the run's records (Grade's) with the
// run block, the gold hazards and em's partial table, and writes
// summary.json and, when o.HTML, report.html.
func finish(o *Options, j *job, sum *report.Summary, recs []run.Record, stats run.Stats) (*report.Summary, error) {
	var err error
	sum.Run = &report.RunInfo{
		Version: o.Version, Gold: o.Gold, Pred: o.Pred, DB: open.Redact(o.DB), Tables: o.Tables,
		Format: o.Format, Engine: string(j.eng.Dialect()), TimeoutSeconds: o.Timeout.Seconds(),
		Workers: o.Workers, MaxRows: o.MaxRows, MaxBytes: o.MaxBytes,
		Graded: stats.Graded, Resumed: stats.Resumed, Suite: o.Suite,
		Difficulty: j.difficultySource, Audit: o.Audit,
	}
	// The metrics' settings, as each declares its run-block key.
	if err := sum.Run.SetSettings(metric.RunInfoOf(&o.Settings, o.Metrics)); err != nil {
		return nil, err
	}
	if o.Audit {
		sum.GoldHazards = report.CountHazards(recs)
	}
	memoryCaps(sum.Run, j.eng.Dialect(), o.Suite)
	if o.Shard != "" {
		sum.Run.Shard, sum.Run.ItemsTotal = j.shard.String(), j.total
	}
	if o.Partial {
		if sum.Partial, err = report.Partial(recs, "em"); err != nil {
			return nil, fmt.Errorf("%s: %w", filepath.Join(o.Out, run.ResultsFile), err)
		}
	}
	if j.client != nil {
		sum.Run.LLM = usageSummary(j.client, o.Settings.Judge.Samples)
	}
	if err := sum.Write(filepath.Join(o.Out, report.SummaryFile)); err != nil {
		return nil, err
	}
	if o.HTML {
		if err := writeRunHTML(o.Out, sum, recs); err != nil {
			return nil, err
		}
	}
	return sum, nil
}

// memoryCaps states in ri the caps that bound the run's memory, whatever
// its queries: the Go heap's soft limit in force (none when unlimited) and,
// when a SQLite engine ran (the --db dialect, or a --suite), the cap on
// SQLite's heap shared by all the run's queries.
func memoryCaps(ri *report.RunInfo, d engine.Dialect, suite string) {
	if l := debug.SetMemoryLimit(-1); l != math.MaxInt64 {
		ri.GoMemoryLimit = l
	}
	if d == engine.SQLite || suite != "" {
		ri.SQLiteHeapBytes = sqlite.HeapLimit
	}
}
