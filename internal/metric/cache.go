package metric

import (
	"container/list"
	"context"
	"strings"
	"sync"

	"github.com/sqljudge/sqljudge/internal/engine"
	"github.com/sqljudge/sqljudge/internal/membudget"
	"github.com/sqljudge/sqljudge/internal/result"
	"github.com/sqljudge/sqljudge/internal/turn"
)

// CachePolicy says what a Cache keeps. The zero policy keeps every result
// and every error for good (a run's gold results: RunGolds).
type CachePolicy struct {
	// MaxBytes bounds the bytes held, each entry counted as its result's
	// engine.SetBytes plus its key plus 200; past it the oldest entries go
	// (see LRU), and an entry larger than the bound is not kept. 0: no
	// bound.
	MaxBytes int64
	// MaxEntries bounds the entries held; past it the oldest go. 0: no
	// bound.
	MaxEntries int
	// MaxResultBytes is the largest result (engine.SetBytes) kept; a
	// larger one is returned to its callers and forgotten. 0: no bound.
	MaxResultBytes int64
	// Errors says which errors are kept like results.
	Errors ErrorPolicy
	// LRU makes a hit an entry's latest use, so that the least recently
	// used go first; without it entries go in the order they were kept.
	LRU bool
}

// ErrorPolicy says which failed queries a Cache keeps.
type ErrorPolicy int

const (
	// KeepErrors keeps every error like a result: a query that failed or
	// timed out once fails so for every later caller (a run's golds and
	// predictions, which must grade alike every item that repeats them).
	KeepErrors ErrorPolicy = iota
	// KeepDeterministicErrors keeps only the errors the engine raises
	// whatever the run (engine.Deterministic); a timeout, a cancellation
	// or a result past a cap is returned to the callers waiting for it
	// and forgotten, and each waiter runs the query again under its own
	// context (serve's gold cache).
	KeepDeterministicErrors
)

// The policies of the caches package metric keeps itself.
var (
	// RunGolds is an Env's gold cache unless Env.Golds says otherwise:
	// every gold result and error of the run, each computed once (eval).
	RunGolds = CachePolicy{}
	// RecentPreds is the cache of predicted results an Env with
	// SharePreds shares across items: the PredCacheSize most recent, none
	// over predCacheMaxBytes, errors kept.
	RecentPreds = CachePolicy{MaxEntries: PredCacheSize, MaxResultBytes: predCacheMaxBytes}
)

// PredCacheSize is how many predicted results an Env with SharePreds keeps
// across items: the most recent ones. Spider's questions come in
// paraphrase pairs that a system often answers with the same SQL, so the
// second of a pair finds the first's result (277 of DIN-SQL's 1034 Spider
// dev predictions repeat one on the same database).
const PredCacheSize = 64

// predCacheMaxBytes is the largest result (engine.SetBytes) the
// predictions' cache keeps, so that it never holds more than
// PredCacheSize times this.
const predCacheMaxBytes = 1 << 20

// Cache holds query results (or errors) by (database, SQL) under a
// CachePolicy: a run's gold results (RunGolds), the predictions items
// share (RecentPreds), serve's gold results (bounded in bytes, least
// recently used first). A query runs once at a time per key: callers
// asking for a key being computed wait for it, or for their own context.
// It is safe for concurrent use.
type Cache struct {
	p CachePolicy

	mu    sync.Mutex
	m     map[goldKey]*cacheEntry
	held  *list.List // of *cacheEntry, most recent first
	bytes int64
}

type cacheEntry struct {
	key   goldKey
	ready chan struct{} // closed when set and err are final
	set   *result.Set
	err   error
	size  int64
	elem  *list.Element // nil until held
	// charge is set's charge to the memory budget (membudget: serve's),
	// nil when the query ran without a Ledger; let is the cache's hold
	// on it, let go when the entry leaves.
	charge *membudget.Charge
	let    func()
}

// NewCache returns an empty cache keeping what p says.
func NewCache(p CachePolicy) *Cache {
	return &Cache{p: p, m: map[goldKey]*cacheEntry{}, held: list.New()}
}

// Get returns the held result of (db, sql), or runs it with run under
// ctx. A caller whose wait ended with a failure that is not kept (another
// caller's query was cancelled or timed out, under
// KeepDeterministicErrors) runs the query again under its own ctx; one
// whose ctx ends while it waits gets engine.TimeoutError.
func (c *Cache) Get(ctx context.Context, db, sql string, run func(context.Context) (*result.Set, error)) (*result.Set, error) {
	k := goldKey{db, sql}
	for {
		c.mu.Lock()
		e, ok := c.m[k]
		if !ok {
			e = &cacheEntry{key: k, ready: make(chan struct{})}
			c.m[k] = e
			c.mu.Unlock()
			set, err := run(ctx)
			if l := membudget.From(ctx); l != nil && set != nil {
				e.charge = l.ChargeOf(set)
			}
			return c.fill(e, set, err)
		}
		if e.elem != nil && c.p.LRU {
			c.held.MoveToFront(e.elem)
		}
		c.mu.Unlock()
		// Another caller computes it: wait, without holding a worker
		// (turn.Idle) unless it is there already: that caller may need
		// one.
		select {
		case <-e.ready:
		default:
			_ = turn.Idle(ctx, func() error {
				select {
				case <-e.ready:
				case <-ctx.Done():
				}
				return nil
			})
		}
		if ctx.Err() != nil {
			return nil, engine.TimeoutError(ctx, db)
		}
		if e.err == nil || c.keeps(e.err) || ctx.Err() != nil {
			if l := membudget.From(ctx); l != nil && e.charge != nil {
				l.Hold(e.charge) // the caller holds the result too
			}
			return e.set, e.err
		}
	}
}

// keeps reports whether the policy keeps error err.
func (c *Cache) keeps(err error) bool {
	return c.p.Errors == KeepErrors || engine.Deterministic(err)
}

// fill records the outcome of e's query: held when the policy keeps it,
// then the oldest entries past the bounds go.
func (c *Cache) fill(e *cacheEntry, set *result.Set, err error) (*result.Set, error) {
	e.set, e.err = set, err
	c.mu.Lock()
	defer c.mu.Unlock()
	defer close(e.ready)
	if err != nil && !c.keeps(err) {
		delete(c.m, e.key)
		return set, err
	}
	if c.p.MaxBytes > 0 || c.p.MaxResultBytes > 0 {
		n := engine.SetBytes(set)
		e.size = n + int64(len(e.key.db)+len(e.key.sql)) + 200
		if (c.p.MaxResultBytes > 0 && err == nil && n > c.p.MaxResultBytes) || (c.p.MaxBytes > 0 && e.size > c.p.MaxBytes) {
			delete(c.m, e.key)
			return set, err
		}
	}
	e.elem = c.held.PushFront(e)
	c.bytes += e.size
	if e.charge != nil {
		e.let = e.charge.Keep()
	}
	for (c.p.MaxBytes > 0 && c.bytes > c.p.MaxBytes) || (c.p.MaxEntries > 0 && c.held.Len() > c.p.MaxEntries) {
		c.evictOldest()
	}
	return set, err
}

// evictOldest lets the least recently used entry go. c.mu is held.
func (c *Cache) evictOldest() {
	old := c.held.Back().Value.(*cacheEntry)
	c.held.Remove(old.elem)
	if c.m[old.key] == old {
		delete(c.m, old.key)
	}
	c.bytes -= old.size
	if old.let != nil {
		old.let()
	}
}

// Evict lets the least recently used results go until the charges to the
// memory budget they held come to need bytes, or none is left (the
// evictor of serve's membudget.Budget: a charge that does not fit frees
// what is only kept to save work first). A result an item still holds
// stays counted for that item.
func (c *Cache) Evict(need int64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for freed := int64(0); freed < need && c.held.Len() > 0; {
		if old := c.held.Back().Value.(*cacheEntry); old.charge != nil {
			freed += old.charge.Bytes()
		}
		c.evictOldest()
	}
}

// Len returns the number of results held and their bytes (counted only
// under a policy with a byte bound).
func (c *Cache) Len() (n int, bytes int64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.held.Len(), c.bytes
}

// volatileWords are the words (lower case) of SQLite's functions whose
// value is not fixed by the database: random(), randomblob(), the date and
// time functions (whose time value defaults to 'now'), CURRENT_DATE and
// the like, changes() and last_insert_rowid(). A query whose text holds
// one of them anywhere (in a name or a string too: the test is cheap and
// errs on the side of running) is never shared.
var volatileWords = []string{"random", "now", "current_", "date", "time", "julianday", "unixepoch", "strftime", "changes", "last_insert_rowid"}

// shareable reports whether running sql twice on the same immutable SQLite
// database must give the same result, so that one run may stand for both.
func shareable(sql string) bool {
	lower := strings.ToLower(sql)
	for _, w := range volatileWords {
		if strings.Contains(lower, w) {
			return false
		}
	}
	return true
}
