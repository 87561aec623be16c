package serve

import (
	"cmp"
	"context"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/sqljudge/sqljudge/internal/turn"
)

// DefaultQuantum is how long an item holds a worker before it gives the
// worker up to a waiting item, at its next yield point (Config.Quantum).
const DefaultQuantum = 20 * time.Millisecond

// scheduler shares the server's workers between the items of all
// requests, by time, fairly between requests (start-time fair queuing,
// Goyal, Vin and Cheng, SIGCOMM 1996, with requests as flows and the time
// items hold workers as their service):
//
//   - each request has a virtual time, the time its items have held
//     workers, starting from the scheduler's virtual time when it comes
//     to wait (so that a newcomer neither owes for the past nor jumps
//     ahead of it); a free worker goes to the waiting request with the
//     least, the one that came first among equals;
//   - an item of a metric that is not lengthy gives its worker up at its
//     next yield point (turn.Yield: SQLite's progress handler) once it has
//     held it for a quantum and another item waits for one, and waits in
//     its request's queue to get one back: a query that runs for seconds
//     holds a worker a quantum at a time, so a request of fast items
//     behind requests of slow ones waits about a quantum, not until their
//     queries time out;
//   - items of lengthy metrics (metric.Lengthy: equiv's search) never
//     give their worker up at a yield point and hold at most lengthy
//     workers at once, so that the other metrics always keep the rest;
//   - within a request, items start in item order, and paused items get
//     their worker back in the order they paused, before the request's
//     next item starts once pausedPerRequest of them wait.
//
// A waiting item holds no worker, and every blocking wait inside an item
// (turn.Idle) gives its worker up for the wait.
type scheduler struct {
	mu          sync.Mutex
	free        int // workers not held
	lengthyFree int // workers lengthy items may still take
	quantum     time.Duration
	now         func() time.Time
	active      []*queue      // requests with items waiting, in the order they came to wait
	vtime       time.Duration // the virtual time of the request last served
	waiting     int           // tickets waiting, for tests

	// contended is set when a waiting item could run on the worker a
	// preemptible item gives up: Yield's cheap test.
	contended atomic.Bool
}

// newScheduler returns a scheduler of workers workers, at most lengthy of
// which lengthy items hold at once (clamped to 1..workers), whose
// preemptible items give their worker up after quantum (DefaultQuantum
// when 0).
func newScheduler(workers, lengthy int, quantum time.Duration) *scheduler {
	return &scheduler{free: workers, lengthyFree: min(max(lengthy, 1), workers),
		quantum: cmp.Or(quantum, DefaultQuantum), now: time.Now}
}

// queue is one request's items waiting for a worker: paused items (in the
// order they paused) and items not started, by kind (0: other, 1:
// lengthy), each in item order.
type queue struct {
	s      *scheduler
	resume []*ticket
	kind   [2][]*ticket
	live   int           // tickets still waiting
	vt     time.Duration // the request's virtual time (see scheduler)
}

// ticket is one item's place in its request's queue.
type ticket struct {
	ready   chan struct{} // closed when the item has its worker
	lengthy bool
	seq     int // the item's index in its request
	granted bool
	gone    bool // the item stopped waiting (its context ended)
}

// queue returns a new request's queue.
func (s *scheduler) queue() *queue { return &queue{s: s} }

// acquire waits for a worker for item seq of q's request (lengthy: of a
// lengthy metric) and returns the item's slot, holding it; false when ctx
// ended first. The slot's pauses wait under ctx too.
func (q *queue) acquire(ctx context.Context, seq int, lengthy bool) (*slot, bool) {
	s := q.s
	s.mu.Lock()
	t := q.add(&ticket{ready: make(chan struct{}), lengthy: lengthy, seq: seq}, false)
	s.dispatch()
	s.mu.Unlock()
	if !q.wait(ctx, t) {
		return nil, false
	}
	sl := &slot{s: s, q: q, lengthy: lengthy, ctx: ctx}
	sl.hold()
	return sl, true
}

// add puts t in q (resume: a paused item's) and q among the active
// requests when it had nothing waiting. s.mu is held.
func (q *queue) add(t *ticket, resume bool) *ticket {
	s := q.s
	if resume {
		q.resume = append(q.resume, t)
	} else {
		k := kindOf(t.lengthy)
		at, _ := slices.BinarySearchFunc(q.kind[k], t.seq, func(x *ticket, seq int) int { return cmp.Compare(x.seq, seq) })
		q.kind[k] = slices.Insert(q.kind[k], at, t)
	}
	if q.live++; q.live == 1 {
		q.vt = max(q.vt, s.vtime)
		s.active = append(s.active, q)
	}
	s.waiting++
	return t
}

// wait waits until t is granted (true) or ctx ends (false; t then leaves
// the queue, or its worker, granted as ctx ended, is given back).
func (q *queue) wait(ctx context.Context, t *ticket) bool {
	s := q.s
	select {
	case <-t.ready:
		return true
	case <-ctx.Done():
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if t.granted { // the worker came as ctx ended: give it back
		s.giveBack(t.lengthy)
		return false
	}
	t.gone = true
	s.waiting--
	if q.live--; q.live == 0 {
		s.active = slices.DeleteFunc(s.active, func(x *queue) bool { return x == q })
	}
	s.dispatch()
	return false
}

func kindOf(lengthy bool) int {
	if lengthy {
		return 1
	}
	return 0
}

// giveBack returns a worker to the pool and hands it on. s.mu is held.
func (s *scheduler) giveBack(lengthy bool) {
	s.free++
	if lengthy {
		s.lengthyFree++
	}
	s.dispatch()
}

// dispatch hands free workers to waiting items: each to the first waiting
// item that may run of the request with the least virtual time. s.mu is
// held.
func (s *scheduler) dispatch() {
	for s.free > 0 {
		var best *queue
		var bt *ticket
		for _, q := range s.active {
			if t := q.next(s.lengthyFree > 0); t != nil && (best == nil || q.vt < best.vt) {
				best, bt = q, t
			}
		}
		if best == nil {
			break
		}
		best.take(bt)
		bt.granted = true
		close(bt.ready)
		s.free--
		if bt.lengthy {
			s.lengthyFree--
		}
		s.waiting--
		s.vtime = best.vt
		if best.live--; best.live == 0 {
			s.active = slices.DeleteFunc(s.active, func(x *queue) bool { return x == best })
		}
	}
	s.contended.Store(s.free == 0 && slices.ContainsFunc(s.active, func(q *queue) bool { return q.next(s.lengthyFree > 0) != nil }))
}

// pausedPerRequest is how many paused items a request may have before
// the next of its items to run is a paused one rather than one not
// started: a slow item does not keep the fast ones behind it waiting, and
// the items a request holds paused (each with its query's connection and
// partial result) stay few.
const pausedPerRequest = 4

// next returns q's waiting item to run next, among those that may (a
// lengthy one only with lengthyOK): the first not started, in item
// order, unless it has pausedPerRequest paused items or none not started,
// then the first paused; nil when none. It drops the items that stopped
// waiting from its lists.
func (q *queue) next(lengthyOK bool) *ticket {
	q.resume = slices.DeleteFunc(q.resume, func(t *ticket) bool { return t.gone })
	var paused *ticket
	for _, t := range q.resume {
		if !t.lengthy || lengthyOK {
			paused = t
			break
		}
	}
	if paused != nil && len(q.resume) >= pausedPerRequest {
		return paused
	}
	if t := q.nextNew(lengthyOK); t != nil {
		return t
	}
	return paused
}

// nextNew returns q's first item not started that may run.
func (q *queue) nextNew(lengthyOK bool) *ticket {
	var best *ticket
	for k := range q.kind {
		q.kind[k] = dropGone(q.kind[k])
		if len(q.kind[k]) == 0 || k == 1 && !lengthyOK {
			continue
		}
		if t := q.kind[k][0]; best == nil || t.seq < best.seq {
			best = t
		}
	}
	return best
}

// take removes t, which next returned, from q's lists.
func (q *queue) take(t *ticket) {
	if i := slices.Index(q.resume, t); i >= 0 {
		q.resume = slices.Delete(q.resume, i, i+1)
		return
	}
	k := kindOf(t.lengthy)
	q.kind[k] = q.kind[k][1:]
}

func dropGone(ts []*ticket) []*ticket {
	for len(ts) > 0 && ts[0].gone {
		ts = ts[1:]
	}
	return ts
}

// queued returns the number of items waiting for a worker.
func (s *scheduler) queued() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.waiting
}

// slot is an item's hold on a worker: the turn.Turn its work runs under.
// It is given up at yield points (preemptible items only), for idle
// waits, and for good by release.
type slot struct {
	s       *scheduler
	q       *queue
	lengthy bool
	ctx     context.Context // the item's: a pause ends with it

	pause sync.Mutex   // one pause at a time
	done  bool         // released for good (s.mu)
	since atomic.Int64 // when the current hold began (UnixNano); 0 when not held
	mu    sync.Mutex
	used  time.Duration // the time of the past holds
}

var _ turn.Turn = (*slot)(nil)

// hold marks the worker held from now.
func (sl *slot) hold() { sl.since.Store(sl.s.now().UnixNano()) }

// Used returns the time the slot has held a worker.
func (sl *slot) Used() time.Duration {
	sl.mu.Lock()
	defer sl.mu.Unlock()
	u := sl.used
	if since := sl.since.Load(); since != 0 {
		u += sl.s.now().Sub(time.Unix(0, since))
	}
	return u
}

// Yield gives the worker up when another item waits for one and the
// current hold has lasted a quantum; lengthy items never do.
func (sl *slot) Yield(ctx context.Context) error {
	if err := ctx.Err(); err != nil || sl.lengthy || !sl.s.contended.Load() {
		return err
	}
	since := sl.since.Load()
	if since == 0 || sl.s.now().Sub(time.Unix(0, since)) < sl.s.quantum {
		return nil
	}
	return sl.away(ctx, nil)
}

// Idle gives the worker up while wait runs, then waits for one.
func (sl *slot) Idle(ctx context.Context, wait func() error) error {
	return sl.away(ctx, wait)
}

// away gives the worker up (for a yield when wait is nil, and only if an
// item still waits for it), runs wait, then waits for a worker: until the
// item's context ends, so that the item never works without one. It
// returns wait's error, else ctx's.
func (sl *slot) away(ctx context.Context, wait func() error) error {
	sl.pause.Lock()
	defer sl.pause.Unlock()
	s := sl.s
	s.mu.Lock()
	if sl.since.Load() == 0 || wait == nil && !s.contended.Load() {
		s.mu.Unlock()
		if wait != nil {
			return wait()
		}
		return ctx.Err()
	}
	sl.drop()
	var t *ticket
	if wait == nil {
		t = sl.q.add(&ticket{ready: make(chan struct{}), lengthy: sl.lengthy}, true)
	}
	s.giveBack(sl.lengthy)
	s.mu.Unlock()
	var err error
	if wait != nil {
		err = wait()
		s.mu.Lock()
		t = sl.q.add(&ticket{ready: make(chan struct{}), lengthy: sl.lengthy}, true)
		s.dispatch()
		s.mu.Unlock()
	}
	if !sl.q.wait(sl.ctx, t) {
		return sl.ctx.Err() // the item is over: it ends without a worker
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if sl.done { // released while this goroutine waited: not its worker any more
		s.giveBack(sl.lengthy)
		return cmp.Or(err, context.Canceled)
	}
	sl.hold()
	return cmp.Or(err, ctx.Err())
}

// drop ends the current hold: its time goes to the slot's and to its
// request's virtual time. s.mu is held.
func (sl *slot) drop() {
	since := sl.since.Swap(0)
	if since == 0 {
		return
	}
	d := sl.s.now().Sub(time.Unix(0, since))
	sl.mu.Lock()
	sl.used += d
	sl.mu.Unlock()
	sl.q.vt += d
}

// release gives the worker back for good (nothing when the slot holds
// none: its item's context ended during a pause).
func (sl *slot) release() {
	s := sl.s
	s.mu.Lock()
	defer s.mu.Unlock()
	sl.done = true
	if sl.since.Load() == 0 {
		return
	}
	sl.drop()
	s.giveBack(sl.lengthy)
}
