package serve

import (
	"cmp"
	"context"
	"slices"
	"sync"
)

// scheduler hands the server's workers to the items waiting for one,
// fairly between requests: the requests with items waiting take turns
// (round-robin), one item each, so that a request's first item waits for
// at most one item of each request already waiting, however many items
// those hold; within a request, the waiting items go in item order. Items of lengthy
// metrics (metric.Lengthy: equiv's search, which holds a worker up to
// --equiv-budget) hold at most lengthy workers at once, so that the other
// metrics keep the rest: a request whose turn comes with only lengthy
// items and no lengthy worker free keeps its turn for later.
type scheduler struct {
	mu          sync.Mutex
	free        int      // workers not held
	lengthyFree int      // workers lengthy items may still take
	ring        []*queue // requests with items waiting, in turn order
	waiting     int      // items waiting, for tests
}

// newScheduler returns a scheduler of workers workers, at most lengthy of
// which lengthy items hold at once (clamped to 1..workers).
func newScheduler(workers, lengthy int) *scheduler {
	return &scheduler{free: workers, lengthyFree: min(max(lengthy, 1), workers)}
}

// queue is one request's items waiting for a worker, by kind (0: other,
// 1: lengthy), each in item order.
type queue struct {
	s    *scheduler
	kind [2][]*ticket
	live int // tickets still waiting
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
// lengthy metric) and returns the function that gives it back; false when
// ctx ended first (nothing to give back then).
func (q *queue) acquire(ctx context.Context, seq int, lengthy bool) (release func(), ok bool) {
	s := q.s
	s.mu.Lock()
	t := &ticket{ready: make(chan struct{}), lengthy: lengthy, seq: seq}
	k := kindOf(lengthy)
	at, _ := slices.BinarySearchFunc(q.kind[k], seq, func(x *ticket, seq int) int { return cmp.Compare(x.seq, seq) })
	q.kind[k] = slices.Insert(q.kind[k], at, t)
	if q.live++; q.live == 1 {
		s.ring = append(s.ring, q)
	}
	s.waiting++
	s.dispatch()
	s.mu.Unlock()
	release = func() { s.release(lengthy) }
	select {
	case <-t.ready:
		return release, true
	case <-ctx.Done():
	}
	s.mu.Lock()
	granted := t.granted
	if !granted {
		t.gone = true
		s.waiting--
		if q.live--; q.live == 0 {
			s.ring = slices.DeleteFunc(s.ring, func(x *queue) bool { return x == q })
		}
	}
	s.mu.Unlock()
	if granted { // the worker came as ctx ended: give it back
		s.release(lengthy)
	}
	return nil, false
}

func kindOf(lengthy bool) int {
	if lengthy {
		return 1
	}
	return 0
}

// release gives a worker back and hands it on.
func (s *scheduler) release(lengthy bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.free++
	if lengthy {
		s.lengthyFree++
	}
	s.dispatch()
}

// dispatch hands free workers to waiting items, a turn at a time: the
// first request in the ring with an item that may run gives its first
// such item and goes to the end of the ring (or leaves it, when it has no
// item left). s.mu is held.
func (s *scheduler) dispatch() {
	for s.free > 0 {
		i := slices.IndexFunc(s.ring, func(q *queue) bool { return q.next(s.lengthyFree > 0) != nil })
		if i < 0 {
			return
		}
		q := s.ring[i]
		t := q.next(s.lengthyFree > 0)
		q.kind[kindOf(t.lengthy)] = q.kind[kindOf(t.lengthy)][1:]
		t.granted = true
		close(t.ready)
		s.free--
		if t.lengthy {
			s.lengthyFree--
		}
		s.waiting--
		s.ring = slices.Delete(s.ring, i, i+1)
		if q.live--; q.live > 0 {
			s.ring = append(s.ring, q)
		}
	}
}

// next returns q's first waiting item that may run (a lengthy one only
// with lengthyOK), nil when none; it drops the items that stopped waiting
// from the heads of its queues.
func (q *queue) next(lengthyOK bool) *ticket {
	var best *ticket
	for k := range q.kind {
		for len(q.kind[k]) > 0 && q.kind[k][0].gone {
			q.kind[k] = q.kind[k][1:]
		}
		if len(q.kind[k]) == 0 || k == 1 && !lengthyOK {
			continue
		}
		if t := q.kind[k][0]; best == nil || t.seq < best.seq {
			best = t
		}
	}
	return best
}

// queued returns the number of items waiting for a worker.
func (s *scheduler) queued() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.waiting
}
