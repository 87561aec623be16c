package eval

import (
	"time"

	"github.com/sqljudge/sqljudge/internal/engine"
	"github.com/sqljudge/sqljudge/internal/equiv"
	"github.com/sqljudge/sqljudge/internal/judge"
	"github.com/sqljudge/sqljudge/internal/llm"
	"github.com/sqljudge/sqljudge/internal/metric"
	"github.com/sqljudge/sqljudge/internal/schema"
)

// Defaults of eval's flags that the metrics read and that package metric
// or equiv does not already hold (metric.DefaultMaxPlug,
// metric.DefaultVESRepeats, equiv.DefaultMetricBudget,
// equiv.DefaultMetricMaxDatabases).
const (
	// DefaultTimeout is --timeout, the time limit of each query.
	DefaultTimeout = 30 * time.Second
	// DefaultMaxBytes is --max-bytes (128MiB), the byte cap of a query
	// result, below the engines' own engine.DefaultMaxBytes.
	DefaultMaxBytes int64 = 128 << 20
	// DefaultEquivSeed is --equiv-seed.
	DefaultEquivSeed int64 = 1
)

// Defaults returns Options holding eval's default for every setting that
// MetricOptions reads: --timeout, --max-rows, --max-bytes, --max-plug,
// --ves-repeats, --equiv-seed, --equiv-budget, --equiv-max-databases,
// --equiv-assume (booleans, Suite and Judge stay zero: their defaults are
// off, none, and the LLM flags' own). eval's flags take their defaults
// from it, and a command that grades as eval does without eval's flags
// (generate --metrics) starts from it, so that both build their metrics
// with the same options.
func Defaults() Options {
	return Options{
		Timeout: DefaultTimeout, MaxRows: engine.DefaultMaxRows, MaxBytes: DefaultMaxBytes,
		MaxPlug: metric.DefaultMaxPlug, VESRepeats: metric.DefaultVESRepeats,
		EquivSeed: DefaultEquivSeed, EquivBudget: equiv.DefaultMetricBudget,
		EquivMaxDatabases: equiv.DefaultMetricMaxDatabases, EquivAssume: string(equiv.AssumeDeclared),
	}
}

// MetricOptions gives each metric its own options from o's (metric.New):
// ex, em (with the schemas ss of tables.json, nil for none), sqleval, ts,
// ves and rves, equiv and verdict, and the LLM judges (with client, nil
// when no judge is asked for). It is the one place eval's settings become
// metric options: eval calls it, and so does generate for its grading.
func (o *Options) MetricOptions(ss schema.Schemas, client *llm.Client) metric.Options {
	return metric.Options{
		EX:      metric.EXOptions{KeepDistinct: o.KeepDistinct},
		EM:      metric.EMOptions{Schemas: ss, Fixed: o.EMFixed},
		SQLEval: metric.SQLEvalOptions{Fixed: o.SQLEvalFixed},
		TS: metric.TSOptions{
			Dir: o.Suite, PlugValue: o.PlugValue, MaxPlug: o.MaxPlug,
			Timeout: o.Timeout, MaxRows: o.MaxRows, MaxBytes: o.MaxBytes,
		},
		VES: metric.VESOptions{Repeats: o.VESRepeats},
		Equiv: metric.EquivOptions{
			Seed: o.EquivSeed, Budget: o.EquivBudget, MaxDatabases: o.EquivMaxDatabases, Suite: o.Suite, Assume: o.EquivAssume,
		},
		Judge: judge.Judge{
			Client: client, Samples: o.Judge.Samples,
			ParseRetries: o.Judge.ParseRetries, XScoreMin: o.Judge.XScoreMin,
		},
	}
}
