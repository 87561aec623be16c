package report

import (
	"fmt"
	"reflect"
	"strings"
)

// RunInfo is summary.json's "run" block: the inputs and settings of the
// eval run that wrote the records, as `sqljudge eval` parsed them, and its
// counters. Its fields are in the order of their JSON names, so the block
// reads as it did when it was a map (encoding/json sorts map keys).
type RunInfo struct {
	// Audit is --audit: records carry the gold audit's findings
	// (gold_hazards; absent without --audit).
	Audit bool `json:"audit,omitempty"`
	// DB is the --db DSN or folder, its password redacted.
	DB string `json:"db"`
	// Difficulty names where the difficulty levels came from:
	// "benchmark" (the items' own), "spider_hardness" (Spider's
	// evaluation.py:Evaluator.eval_hardness) or "none".
	Difficulty string `json:"difficulty"`
	// EMFixed is --em-fixed: em grades what sqljudge's own parser reads.
	EMFixed bool `json:"em_fixed"`
	// Engine is the dialect of the --db engine (sqlite, postgres, mysql,
	// duckdb).
	Engine string `json:"engine"`
	// Format is --format, the shape of the gold file.
	Format string `json:"format"`
	// GoMemoryLimit is the soft limit of the Go heap the run had, in
	// bytes (runtime/debug.SetMemoryLimit: eval's 384 MiB unless
	// GOMEMLIMIT says otherwise; absent without one). With
	// SQLiteHeapBytes it bounds the run's memory, whatever the queries.
	GoMemoryLimit int64 `json:"go_memory_limit,omitempty"`
	// Gold is the --gold path.
	Gold string `json:"gold"`
	// Graded counts the items graded by this run, Resumed those kept from
	// an earlier one (--resume); merged runs sum them over the shards.
	Graded int `json:"graded"`
	// ItemsTotal is the benchmark's item count before --shard took its
	// part (absent without --shard).
	ItemsTotal int `json:"items_total,omitempty"`
	// KeepDistinct is --keep-distinct (ex keeps DISTINCT, unlike Spider's
	// evaluation.py which drops it).
	KeepDistinct bool `json:"keep_distinct"`
	// LLM describes the judges' endpoint and what it cost (absent when no
	// judge ran).
	LLM *LLMRun `json:"llm,omitempty"`
	// MaxBytes is the byte cap of a query result (engine.CellBytes).
	MaxBytes int64 `json:"max_bytes"`
	// MaxRows is the row cap of a query result.
	MaxRows int `json:"max_rows"`
	// MergedFrom lists the shard folders `sqljudge merge` joined (absent
	// otherwise).
	MergedFrom []string `json:"merged_from,omitempty"`
	// PlugValue is --plug-value (ts plugs the gold's values into the
	// prediction, as test-suite-sql-eval's --plug_value).
	PlugValue bool `json:"plug_value"`
	// Pred is the --pred path.
	Pred string `json:"pred"`
	// Resumed: see Graded.
	Resumed int `json:"resumed"`
	// Shard is the --shard part "i/n" this run graded (absent without
	// --shard, and in a merged run).
	Shard string `json:"shard,omitempty"`
	// SQLEvalMode says how sqleval graded: "official" (Defog's
	// compare_query_results, quirks included) or "fixed" (--sqleval-fixed);
	// absent when sqleval did not run.
	SQLEvalMode string `json:"sqleval_mode,omitempty"`
	// SQLiteHeapBytes is the cap on SQLite's heap for the whole run, in
	// bytes (sqlite.HeapLimit): all the queries running at once share it,
	// and one that finds it full is too_large (absent when no SQLite
	// engine ran: another --db without --suite).
	SQLiteHeapBytes int64 `json:"sqlite_heap_bytes,omitempty"`
	// Suite is the --suite test-suite folder ("" without one).
	Suite string `json:"suite"`
	// Tables is the --tables path ("" without one).
	Tables string `json:"tables"`
	// TimeoutSeconds is the time limit of each query, in seconds.
	TimeoutSeconds float64 `json:"timeout_seconds"`
	// Version is sqljudge's version.
	Version string `json:"version"`
	// VESRepeats is --ves-repeats, the timed runs of each query (BIRD
	// mini-dev's iterate_num; absent unless ves or rves ran).
	VESRepeats int `json:"ves_repeats,omitempty"`
	// Workers is --workers.
	Workers int `json:"workers"`
}

// LLMRun is the "llm" part of RunInfo: the client's settings (never its
// key) and its usage over the run (llm.Usage), fields in the order of their
// JSON names.
type LLMRun struct {
	// BaseURL is the endpoint, without a trailing slash.
	BaseURL string `json:"base_url"`
	// CacheDir is the reply cache folder ("" without one).
	CacheDir string `json:"cache_dir"`
	// CacheHits counts the calls served from the cache.
	CacheHits int64 `json:"cache_hits"`
	// Calls counts the judge's calls (cached or not).
	Calls int64 `json:"calls"`
	// CompletionTokens sums the replies' completion tokens.
	CompletionTokens int64 `json:"completion_tokens"`
	// Concurrency is the number of requests in flight at once.
	Concurrency int `json:"concurrency"`
	// Cost is the estimated cost in US dollars (0 when the price is
	// unknown).
	Cost float64 `json:"cost"`
	// HTTPRequests counts the requests sent, retries included.
	HTTPRequests int64 `json:"http_requests"`
	// MaxFailures is the circuit breaker's count of failed calls in a row.
	MaxFailures int `json:"max_failures"`
	// MaxRetries is the retries after a failed request.
	MaxRetries int `json:"max_retries"`
	// MaxTokens is the completion cap (0: none).
	MaxTokens int `json:"max_tokens"`
	// Model is the model name.
	Model string `json:"model"`
	// PromptTokens sums the replies' prompt tokens.
	PromptTokens int64 `json:"prompt_tokens"`
	// Samples is the judgements per item.
	Samples int `json:"samples"`
	// Schema is the JSON-schema mode.
	Schema string `json:"schema"`
	// SchemaFallback tells the endpoint refused JSON-schema output and
	// plain JSON was asked for instead.
	SchemaFallback bool `json:"schema_fallback"`
	// Seed is the seed of sample 0.
	Seed int64 `json:"seed"`
	// Temperature is the sampling temperature.
	Temperature float64 `json:"temperature"`
	// TimeoutSeconds is the time limit of one request, in seconds.
	TimeoutSeconds float64 `json:"timeout_seconds"`
}

// SetSettings sets the fields of ri named by the JSON keys of m to m's
// values (metric.RunInfoOf: the metrics' settings, each under the key it
// declares). An error names a key that is no field of RunInfo or a value
// of another type than its field's: a metric declaring a run-block key
// that RunInfo lacks.
func (ri *RunInfo) SetSettings(m map[string]any) error {
	v := reflect.ValueOf(ri).Elem()
	for key, val := range m {
		f, ok := runInfoField(key)
		if !ok {
			return fmt.Errorf("run block: no field %q", key)
		}
		x := reflect.ValueOf(val)
		if !x.Type().AssignableTo(f.Type) {
			return fmt.Errorf("run block: %q is a %s, not a %s", key, f.Type, x.Type())
		}
		v.FieldByIndex(f.Index).Set(x)
	}
	return nil
}

// Setting returns the field of ri of JSON key key, and whether there is
// one.
func (ri *RunInfo) Setting(key string) (any, bool) {
	f, ok := runInfoField(key)
	if !ok {
		return nil, false
	}
	return reflect.ValueOf(ri).Elem().FieldByIndex(f.Index).Interface(), true
}

// runInfoField returns RunInfo's field of JSON name key.
func runInfoField(key string) (reflect.StructField, bool) {
	t := reflect.TypeFor[RunInfo]()
	for i := range t.NumField() {
		f := t.Field(i)
		if name, _, _ := strings.Cut(f.Tag.Get("json"), ","); name == key {
			return f, true
		}
	}
	return reflect.StructField{}, false
}
