package eval

import (
	"time"

	"github.com/sqljudge/sqljudge/internal/engine"
	"github.com/sqljudge/sqljudge/internal/llm"
	"github.com/sqljudge/sqljudge/internal/metric"
	"github.com/sqljudge/sqljudge/internal/schema"
)

// Defaults of eval's flags that the metrics read and that no metric
// declares (the metrics' own are metric.Settings' defaults).
const (
	// DefaultTimeout is --timeout, the time limit of each query.
	DefaultTimeout = 30 * time.Second
	// DefaultMaxBytes is --max-bytes (128MiB), the byte cap of a query
	// result, below the engines' own engine.DefaultMaxBytes.
	DefaultMaxBytes int64 = 128 << 20
)

// Defaults returns Options holding eval's default for every setting that
// MetricOptions reads: --timeout, --max-rows, --max-bytes and, in
// Settings, every setting the metrics declare (metric.DefaultOptions:
// --max-plug, --ves-repeats, --equiv-seed, ...; Suite and Judge stay
// zero: their defaults are none and the LLM flags' own). A command that
// grades as eval does (generate --metrics) starts from it, so that both
// build their metrics with the same options.
func Defaults() Options {
	return Options{
		Timeout: DefaultTimeout, MaxRows: engine.DefaultMaxRows, MaxBytes: DefaultMaxBytes,
		Settings: metric.DefaultOptions(),
	}
}

// MetricOptions gives each metric its own options (metric.New): the
// metrics' settings o.Settings, with the run's added: the suite of ts and
// equiv, ts's time limit and caps, em's schemas ss (tables.json, nil for
// none) and the LLM judges' settings with client (nil when no judge is
// asked for). It is the one place eval's settings become metric options:
// eval calls it, and so does generate for its grading.
func (o *Options) MetricOptions(ss schema.Schemas, client *llm.Client) metric.Options {
	m := o.Settings
	m.EM.Schemas = ss
	m.TS.Dir, m.TS.Timeout, m.TS.MaxRows, m.TS.MaxBytes = o.Suite, o.Timeout, o.MaxRows, o.MaxBytes
	m.Equiv.Suite = o.Suite
	m.Judge.Client = client // the judges' settings are in o.Settings
	return m
}
