package serve

import "github.com/sqljudge/sqljudge/internal/metric"

// DefaultGoldCache is the default byte bound of the gold cache (--gold-cache):
// 256 MiB, as counted by engine.SetBytes.
const DefaultGoldCache = 256 << 20

// newGoldCache returns the server's gold-result cache (a metric.Cache):
// least recently used entries go first once the results held pass limit
// bytes (engine.SetBytes). It keeps only what is a property of the gold
// query: its result, or an error the engine raises deterministically
// (engine.Deterministic); a timeout, a cancellation or a result past a cap
// is returned to the callers waiting for it and forgotten.
func newGoldCache(limit int64) *metric.Cache {
	return metric.NewCache(metric.CachePolicy{MaxBytes: limit, Errors: metric.KeepDeterministicErrors, LRU: true})
}
