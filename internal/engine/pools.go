package engine

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/sqljudge/sqljudge/internal/result"
)

// Pools keeps one connection pool per key (a database file or a database
// on a server), opened on first use: the pool registry every engine shares.
// P is *sql.DB or a driver's own pool. With a bound (SetMaxOpen), pools
// taken with Acquire are closed least recently used first once more than
// the bound are open and no query holds them. It is safe for concurrent
// use.
type Pools[P any] struct {
	mu       sync.Mutex
	m        map[string]*poolEntry[P]
	closed   bool
	closeP   func(P) error
	closeErr error
	max      int
	clock    uint64
}

type poolEntry[P any] struct {
	p     P
	users int    // Acquire calls not yet released
	used  uint64 // clock of the last Acquire
}

// NewPools returns an empty registry whose pools closeP closes. With a
// non-nil closedErr, Get fails with it once Close was called; with nil, a
// later Get opens pools again.
func NewPools[P any](closeP func(P) error, closedErr error) *Pools[P] {
	return &Pools[P]{m: map[string]*poolEntry[P]{}, closeP: closeP, closeErr: closedErr}
}

// SetMaxOpen bounds the pools kept open to n (0: no bound): past it, the
// least recently used pool no Acquire holds is closed (a later Acquire
// opens it again). Only pools taken with Acquire may be bounded.
func (ps *Pools[P]) SetMaxOpen(n int) {
	ps.mu.Lock()
	defer ps.mu.Unlock()
	ps.max = n
}

// Get returns the pool of key, opening it with open the first time.
func (ps *Pools[P]) Get(key string, open func() (P, error)) (P, error) {
	ps.mu.Lock()
	defer ps.mu.Unlock()
	e, err := ps.entry(key, open)
	if err != nil {
		var zero P
		return zero, err
	}
	return e.p, nil
}

// Acquire returns the pool of key, opened with open if needed, and the
// function that releases it; the pool is not closed by the bound
// (SetMaxOpen) until released.
func (ps *Pools[P]) Acquire(key string, open func() (P, error)) (P, func(), error) {
	ps.mu.Lock()
	defer ps.mu.Unlock()
	e, err := ps.entry(key, open)
	if err != nil {
		var zero P
		return zero, nil, err
	}
	e.users++
	var once sync.Once
	return e.p, func() {
		once.Do(func() {
			ps.mu.Lock()
			defer ps.mu.Unlock()
			e.users--
			ps.evict()
		})
	}, nil
}

// entry returns key's entry, opening its pool if needed; ps.mu is held.
func (ps *Pools[P]) entry(key string, open func() (P, error)) (*poolEntry[P], error) {
	if ps.closed && ps.closeErr != nil {
		return nil, ps.closeErr
	}
	ps.clock++
	if e, ok := ps.m[key]; ok {
		e.used = ps.clock
		return e, nil
	}
	p, err := open()
	if err != nil {
		return nil, err
	}
	e := &poolEntry[P]{p: p, used: ps.clock}
	ps.m[key] = e
	ps.evict()
	return e, nil
}

// evict closes the least recently used idle pools while more than the
// bound are open; ps.mu is held.
func (ps *Pools[P]) evict() {
	for ps.max > 0 && len(ps.m) > ps.max {
		var oldKey string
		var old *poolEntry[P]
		for k, e := range ps.m {
			if e.users == 0 && (old == nil || e.used < old.used) {
				oldKey, old = k, e
			}
		}
		if old == nil {
			return // every pool is in use: close one when it is released
		}
		delete(ps.m, oldKey)
		_ = ps.closeP(old.p)
	}
}

// Len returns the number of pools open.
func (ps *Pools[P]) Len() int {
	ps.mu.Lock()
	defer ps.mu.Unlock()
	return len(ps.m)
}

// Release closes the pool of key, if open; a later Get opens it again.
func (ps *Pools[P]) Release(key string) error {
	ps.mu.Lock()
	e, ok := ps.m[key]
	delete(ps.m, key)
	ps.mu.Unlock()
	if ok {
		return ps.closeP(e.p)
	}
	return nil
}

// Close closes every pool and returns their errors joined.
func (ps *Pools[P]) Close() error {
	ps.mu.Lock()
	defer ps.mu.Unlock()
	ps.closed = true
	var errs []error
	for k, e := range ps.m {
		errs = append(errs, ps.closeP(e.p))
		delete(ps.m, k)
	}
	return errors.Join(errs...)
}

// CloseDB closes a database/sql pool (for NewPools).
func CloseDB(p *sql.DB) error { return p.Close() }

// QueryFailure returns the error of a query on database db that failed
// with err: TimeoutError when ctx ended (whatever err says), err itself when
// it is a *QueryError already, and otherwise err in a *QueryError, wrapping
// ErrTimeout with serverTimeout's message when serverTimeout (nil: none)
// returns one (the server stopped the query at its own time limit).
func QueryFailure(ctx context.Context, db string, err error, serverTimeout func(error) string) error {
	if ctx.Err() != nil {
		return TimeoutError(ctx, db)
	}
	var qe *QueryError
	if errors.As(err, &qe) {
		return err
	}
	if serverTimeout != nil {
		if msg := serverTimeout(err); msg != "" {
			return &QueryError{DB: db, Err: fmt.Errorf("%w: %s", ErrTimeout, msg)}
		}
	}
	return &QueryError{DB: db, Err: err}
}

// ConnectFailure returns the error of a connection to database db that
// failed with err: TimeoutError when ctx ended, a *QueryError wrapping
// ErrNoDatabase that names the server's database name when noDB (the
// server said it has no such database), else err in a *QueryError.
func ConnectFailure(ctx context.Context, db, name string, err error, noDB bool) error {
	if ctx.Err() != nil {
		return TimeoutError(ctx, db)
	}
	if noDB {
		return &QueryError{DB: db, Err: fmt.Errorf("%w: the server has no database %q", ErrNoDatabase, name)}
	}
	return &QueryError{DB: db, Err: err}
}

// RawQuery runs f on the driver's own connection (of type C) of a
// connection taken from pool for one query on database db, and returns
// its result; a failure goes through QueryFailure. SQLite and DuckDB read
// below database/sql this way, for their drivers' statement types and
// interrupts.
func RawQuery[C any](ctx context.Context, pool *sql.DB, db string, f func(C) (*result.Set, error)) (*result.Set, error) {
	conn, err := pool.Conn(ctx)
	if err != nil {
		return nil, ConnectFailure(ctx, db, db, err, false)
	}
	defer conn.Close()
	var set *result.Set
	err = conn.Raw(func(dc any) error {
		c, ok := dc.(C)
		if !ok {
			return fmt.Errorf("unexpected driver connection %T", dc)
		}
		set, err = f(c)
		return err
	})
	if err != nil {
		return nil, QueryFailure(ctx, db, err, nil)
	}
	return set, nil
}

// StatementTimeout returns the bound a server engine puts on a query under
// ctx: the time left before ctx's deadline (at least a millisecond), or
// fallback when ctx has none (0: no bound); rounded up to the millisecond
// the servers count in.
func StatementTimeout(ctx context.Context, fallback time.Duration) time.Duration {
	d := fallback
	if dl, ok := ctx.Deadline(); ok {
		d = max(time.Until(dl), time.Millisecond)
	}
	if d <= 0 {
		return 0
	}
	if r := d % time.Millisecond; r != 0 {
		d += time.Millisecond - r
	}
	return d
}
