package sqlite

import (
	"context"
	"sync"

	"github.com/sqljudge/sqljudge/internal/turn"
)

// heapGate keeps count of the queries that hold SQLite's heap, whose cap
// (HeapLimit) they share, so that a query that hit the cap while others
// held part of it runs again alone before it is too_large: its verdict
// then does not depend on its neighbours. Queries enter it shared; one
// that runs alone waits until no other query runs, and while it waits or
// runs no query enters (a query that runs already, paused or not, goes on
// to its end). Every wait is a turn.Idle: it holds no worker of serve's
// scheduler, which the queries it waits for may need.
type heapGate struct {
	mu      sync.Mutex
	running int    // queries inside, shared
	starts  uint64 // queries entered so far
	alone   bool   // a query runs alone
	waiting int    // queries waiting to run alone
	changed chan struct{}
}

// heap is the gate of every query of the process (SQLite's heap cap is
// the process's).
var heap = &heapGate{changed: make(chan struct{})}

// entry is one query's stay in the gate.
type entry struct {
	start  uint64 // g.starts when it entered
	others bool   // other queries ran when it entered
}

// enter waits until no query runs or waits to run alone, then enters.
func (g *heapGate) enter(ctx context.Context) (entry, error) {
	err := g.waitFor(ctx, func() bool { return !g.alone && g.waiting == 0 })
	if err != nil {
		return entry{}, err
	}
	defer g.mu.Unlock()
	g.starts++
	g.running++
	return entry{start: g.starts, others: g.running > 1}, nil
}

// crowded reports whether other queries ran at some time while e's query
// ran: when it entered, now, or entering since.
func (g *heapGate) crowded(e entry) bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	return e.others || g.running > 1 || g.starts != e.start
}

// exit leaves the gate.
func (g *heapGate) exit() {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.running--
	g.signal()
}

// enterAlone waits until no query runs, holding back those that would
// enter meanwhile, then runs alone until exitAlone.
func (g *heapGate) enterAlone(ctx context.Context) error {
	g.mu.Lock()
	g.waiting++
	g.mu.Unlock()
	err := g.waitFor(ctx, func() bool { return g.running == 0 && !g.alone })
	if err != nil {
		g.mu.Lock()
	}
	defer g.mu.Unlock()
	g.waiting--
	if err != nil {
		g.signal()
		return err
	}
	g.alone = true
	return nil
}

// exitAlone ends a query's run alone.
func (g *heapGate) exitAlone() {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.alone = false
	g.signal()
}

// waitFor waits until ok (called with g.mu held) holds and returns with
// g.mu held, or returns ctx's error (g.mu not held) when ctx ends first.
// It waits without a worker (turn.Idle) unless ok holds at once, and
// checks ok again once it has a worker back.
func (g *heapGate) waitFor(ctx context.Context, ok func() bool) error {
	for {
		g.mu.Lock()
		if ok() {
			return nil
		}
		g.mu.Unlock()
		err := turn.Idle(ctx, func() error {
			for {
				g.mu.Lock()
				if ok() {
					g.mu.Unlock()
					return nil
				}
				ch := g.changed
				g.mu.Unlock()
				select {
				case <-ch:
				case <-ctx.Done():
					return ctx.Err()
				}
			}
		})
		if err != nil {
			return err
		}
	}
}

// signal wakes the waiters. g.mu is held.
func (g *heapGate) signal() {
	close(g.changed)
	g.changed = make(chan struct{})
}
