package serve

import (
	"container/list"
	"context"
	"sync"

	"github.com/sqljudge/sqljudge/internal/engine"
	"github.com/sqljudge/sqljudge/internal/metric"
	"github.com/sqljudge/sqljudge/internal/result"
)

// DefaultGoldCache is the default byte bound of the gold cache (--gold-cache):
// 256 MiB, as counted by engine.SetBytes.
const DefaultGoldCache = 256 << 20

// goldCache is the server's gold-result cache: least recently used entries
// go first once the results held pass a bound in bytes (engine.SetBytes). It keeps
// only what is a property of the gold query: its result, or an error the
// engine raises deterministically (engine.Deterministic); a timeout, a
// cancellation or a result past a cap is returned to the callers waiting
// for it and forgotten. A gold query runs once at a time per key: callers
// asking for a key being computed wait for it (or for their own context).
type goldCache struct {
	limit int64

	mu    sync.Mutex
	m     map[goldKey]*goldEntry
	lru   *list.List // of *goldEntry held, most recently used first
	bytes int64
}

type goldKey struct{ db, sql string }

type goldEntry struct {
	key   goldKey
	ready chan struct{} // closed when set and err are final
	set   *result.Set
	err   error
	size  int64
	elem  *list.Element // nil until held
}

var _ metric.GoldCache = (*goldCache)(nil)

// newGoldCache returns a cache holding at most limit bytes of results.
func newGoldCache(limit int64) *goldCache {
	return &goldCache{limit: limit, m: map[goldKey]*goldEntry{}, lru: list.New()}
}

// Get returns the held result of (db, sql), or runs it. A caller whose
// wait ended with a failure that is not kept (another caller's query was
// cancelled or timed out) runs the query again under its own ctx.
func (c *goldCache) Get(ctx context.Context, db, sql string, run func(context.Context) (*result.Set, error)) (*result.Set, error) {
	k := goldKey{db, sql}
	for {
		c.mu.Lock()
		e, ok := c.m[k]
		if !ok {
			e = &goldEntry{key: k, ready: make(chan struct{})}
			c.m[k] = e
			c.mu.Unlock()
			set, err := run(ctx)
			return c.fill(e, set, err)
		}
		if e.elem != nil {
			c.lru.MoveToFront(e.elem)
		}
		c.mu.Unlock()
		select {
		case <-e.ready:
		case <-ctx.Done():
			return nil, engine.TimeoutError(ctx, db)
		}
		if e.err == nil || engine.Deterministic(e.err) || ctx.Err() != nil {
			return e.set, e.err
		}
	}
}

// fill records the outcome of e's query: held when it is a result or a
// deterministic error no larger than the bound, else forgotten.
func (c *goldCache) fill(e *goldEntry, set *result.Set, err error) (*result.Set, error) {
	e.set, e.err = set, err
	c.mu.Lock()
	defer c.mu.Unlock()
	defer close(e.ready)
	if err != nil && !engine.Deterministic(err) {
		delete(c.m, e.key)
		return set, err
	}
	e.size = engine.SetBytes(set) + int64(len(e.key.db)+len(e.key.sql)) + 200
	if e.size > c.limit {
		delete(c.m, e.key)
		return set, err
	}
	e.elem = c.lru.PushFront(e)
	c.bytes += e.size
	for c.bytes > c.limit {
		old := c.lru.Back().Value.(*goldEntry)
		c.lru.Remove(old.elem)
		delete(c.m, old.key)
		c.bytes -= old.size
	}
	return set, err
}

// size returns the number of results held and their bytes.
func (c *goldCache) size() (n int, bytes int64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.lru.Len(), c.bytes
}
