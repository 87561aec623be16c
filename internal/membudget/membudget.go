package membudget

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"runtime"
	"slices"
	"sync"
	"time"

	"github.com/sqljudge/sqljudge/internal/turn"
)

// ErrFull is the error of a charge that did not fit beside what other
// holders held: running alone (Exclusive) it may fit.
var ErrFull = errors.New("the server's memory budget (--max-memory) is full")

// ErrTooLarge is the error of a charge that would take a holder past
// HolderMax: it does not fit even alone.
var ErrTooLarge = errors.New("more than one item may hold of the server's memory budget (--max-memory)")

// Budget is a process's memory budget in bytes. It is safe for
// concurrent use.
type Budget struct {
	limit int64
	evict func(need int64)

	mu        sync.Mutex
	used      int64     // bytes of the charges held
	peak      int64     // the most used has been
	exclusive *Ledger   // the holder running with the others kept small
	queue     []*Ledger // holders waiting for that, first come first
	changed   chan struct{}
}

// New returns a budget of limit bytes.
func New(limit int64) *Budget {
	return &Budget{limit: limit, changed: make(chan struct{})}
}

// SetEvictor sets the function a charge that does not fit calls first,
// without any lock of b held, to free need bytes of what b's holders keep
// only to save work (the gold cache's least recently used results).
func (b *Budget) SetEvictor(evict func(need int64)) { b.evict = evict }

// Limit returns the budget's bytes.
func (b *Budget) Limit() int64 { return b.limit }

// HolderMax is the most one holder may hold: the limit less an eighth.
func (b *Budget) HolderMax() int64 { return b.limit - b.shared() }

// shared is what the holders other than an exclusive one may hold
// together: an eighth of the limit.
func (b *Budget) shared() int64 { return b.limit / 8 }

// Used returns the bytes charged now.
func (b *Budget) Used() int64 {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.used
}

// Peak returns the most bytes charged at once so far.
func (b *Budget) Peak() int64 {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.peak
}

// Ledger is one holder's account: the charges it holds.
type Ledger struct {
	b       *Budget
	charges []*Charge // held, each once (b.mu)
	full    bool      // a charge was refused with ErrFull (b.mu)
	of      map[any]*Charge
}

// own returns the bytes of the live charges l holds, forgetting the dead
// ones. b.mu is held.
func (l *Ledger) own() int64 {
	l.charges = slices.DeleteFunc(l.charges, func(c *Charge) bool { return c.dead })
	var n int64
	for _, c := range l.charges {
		n += c.n
	}
	return n
}

// Ledger returns a new, empty ledger of b.
func (b *Budget) Ledger() *Ledger { return &Ledger{b: b} }

// Charge is a block of memory held by one or more ledgers (and keepers
// such as a cache: Keep), counted once.
type Charge struct {
	b    *Budget
	n    int64
	refs int
	dead bool // its bytes are no longer counted (b.mu)
}

// Charge returns a new charge of n bytes held by l, or ErrTooLarge or
// ErrFull (wrapped, with what was asked).
func (l *Ledger) Charge(n int64) (*Charge, error) {
	c := &Charge{b: l.b}
	if err := l.grow(c, n, true); err != nil {
		return nil, err
	}
	return c, nil
}

// Grow adds n bytes to c, held by l, or returns ErrTooLarge or ErrFull
// (c is then unchanged).
func (l *Ledger) Grow(c *Charge, n int64) error { return l.grow(c, n, false) }

// grow charges n more bytes to c for l (c new: held by l from now on),
// calling the evictor once when they do not fit.
func (l *Ledger) grow(c *Charge, n int64, isNew bool) error {
	b := l.b
	for evicted := false; ; evicted = true {
		b.mu.Lock()
		err := b.room(l, n)
		if err == nil {
			b.used += n
			b.peak = max(b.peak, b.used)
			c.n += n
			if isNew {
				c.refs++
				l.charges = append(l.charges, c)
			}
			b.mu.Unlock()
			return nil
		}
		if evicted {
			if errors.Is(err, ErrFull) {
				l.full = true
			}
			b.mu.Unlock()
			return err
		}
		b.mu.Unlock()
		b.reclaim(n, errors.Is(err, ErrFull))
	}
}

// reclaim frees what it can before a charge of need bytes is refused:
// the evictor's cache first (with evict: what it keeps counts against the
// others' room, not a holder's own), then the results no one holds any
// more, which the garbage collector finds (Free, through the cleanups
// the engine registers), waiting briefly for their cleanups to run.
func (b *Budget) reclaim(need int64, evict bool) {
	if evict && b.evict != nil {
		b.evict(need)
	}
	before := b.Used()
	runtime.GC()
	// Cleanups run on their own goroutine after the collection: wait
	// while they keep freeing, at most reclaimWait.
	deadline := time.Now().Add(reclaimWait)
	for last := before; time.Now().Before(deadline); {
		time.Sleep(reclaimWait / 20)
		now := b.Used()
		if now == last && now < before {
			return
		}
		last = now
	}
}

// reclaimWait bounds the wait for the cleanups of a collection.
const reclaimWait = 100 * time.Millisecond

// room says whether l may take n more bytes. b.mu is held.
func (b *Budget) room(l *Ledger, n int64) error {
	if own := l.own(); own+n > b.HolderMax() {
		return fmt.Errorf("%w: %d bytes held and %d more asked, over %d", ErrTooLarge, own, n, b.HolderMax())
	}
	free := b.limit - b.used
	if b.exclusive != l && (b.exclusive != nil || len(b.queue) > 0) {
		// An exclusive holder runs or waits: the others keep to an
		// eighth.
		var excl int64
		if b.exclusive != nil {
			excl = b.exclusive.own()
		}
		free = min(free, b.shared()-(b.used-excl))
	}
	if n > free {
		return fmt.Errorf("%w: %d bytes asked, %d free of %d", ErrFull, n, max(free, 0), b.limit)
	}
	return nil
}

// Name records that c is the charge of what key identifies (a query's
// result set), for ChargeOf, while l holds c.
func (l *Ledger) Name(key any, c *Charge) {
	l.b.mu.Lock()
	defer l.b.mu.Unlock()
	if l.of == nil {
		l.of = map[any]*Charge{}
	}
	l.of[key] = c
}

// ChargeOf returns the charge Name recorded for key, nil when none (what
// key identifies was not charged to l).
func (l *Ledger) ChargeOf(key any) *Charge {
	l.b.mu.Lock()
	defer l.b.mu.Unlock()
	return l.of[key]
}

// Full reports whether a charge of l was refused with ErrFull.
func (l *Ledger) Full() bool {
	l.b.mu.Lock()
	defer l.b.mu.Unlock()
	return l.full
}

// Held returns the bytes of the charges l holds.
func (l *Ledger) Held() int64 {
	l.b.mu.Lock()
	defer l.b.mu.Unlock()
	return l.own()
}

// Hold makes l a holder of c too (a gold result another item computed),
// until l is released. It is never refused: the bytes are counted once,
// already.
func (l *Ledger) Hold(c *Charge) {
	b := l.b
	b.mu.Lock()
	defer b.mu.Unlock()
	if c.dead || slices.Contains(l.charges, c) {
		return
	}
	c.refs++
	l.charges = append(l.charges, c)
}

// Drop lets l's hold on c go before l is released (a query's partial
// result, dropped when it failed).
func (l *Ledger) Drop(c *Charge) {
	b := l.b
	b.mu.Lock()
	defer b.mu.Unlock()
	i := slices.Index(l.charges, c)
	if i < 0 {
		return
	}
	l.charges = slices.Delete(l.charges, i, i+1)
	maps.DeleteFunc(l.of, func(_ any, x *Charge) bool { return x == c })
	b.unref(c)
}

// Release lets every charge of l go. l may be used again afterwards.
func (l *Ledger) Release() {
	b := l.b
	b.mu.Lock()
	defer b.mu.Unlock()
	for _, c := range l.charges {
		b.unref(c)
	}
	l.charges, l.of = nil, nil
}

// Keep makes the caller a holder of c (a cache that keeps the result),
// until it calls the returned function (once).
func (c *Charge) Keep() (release func()) {
	b := c.b
	b.mu.Lock()
	c.refs++
	b.mu.Unlock()
	var once sync.Once
	return func() {
		once.Do(func() {
			b.mu.Lock()
			defer b.mu.Unlock()
			b.unref(c)
		})
	}
}

// Bytes returns c's size.
func (c *Charge) Bytes() int64 {
	c.b.mu.Lock()
	defer c.b.mu.Unlock()
	return c.n
}

// Free stops counting c's bytes, whoever holds it: what it stands for
// is gone (the engine calls it from the cleanup of a result set the
// garbage collector found unreachable).
func (c *Charge) Free() {
	b := c.b
	b.mu.Lock()
	defer b.mu.Unlock()
	b.kill(c)
}

// unref drops one hold on c, and its bytes with the last. b.mu is held.
func (b *Budget) unref(c *Charge) {
	if c.refs--; c.refs <= 0 {
		b.kill(c)
	}
}

// kill stops counting c. b.mu is held.
func (b *Budget) kill(c *Charge) {
	if c.dead {
		return
	}
	c.dead = true
	b.used -= c.n
	b.signal()
}

// signal wakes the waiters. b.mu is held.
func (b *Budget) signal() {
	close(b.changed)
	b.changed = make(chan struct{})
}

// Exclusive waits until l's turn comes among the holders that asked, and
// the others hold at most an eighth of the limit (what the evictor can
// free counted as free), then makes l the exclusive holder until release:
// meanwhile the others are kept to that eighth (their charges past it
// are ErrFull), so l may take up to HolderMax. It waits without a worker
// (turn.Idle); it returns ctx's error when ctx ends first.
func (b *Budget) Exclusive(ctx context.Context, l *Ledger) (release func(), err error) {
	b.mu.Lock()
	b.queue = append(b.queue, l)
	b.signal()
	b.mu.Unlock()
	err = turn.Idle(ctx, func() error {
		for reclaimed := false; ; {
			b.mu.Lock()
			need := b.used - l.own() - b.shared()
			if b.exclusive == nil && b.queue[0] == l && need <= 0 {
				b.exclusive = l
				b.queue = b.queue[1:]
				b.signal()
				b.mu.Unlock()
				return nil
			}
			ch := b.changed
			b.mu.Unlock()
			switch {
			case need > 0 && !reclaimed:
				b.reclaim(need, true)
				reclaimed = true
				continue
			case need > 0 && b.evict != nil:
				b.evict(need)
			}
			select {
			case <-ch:
			case <-ctx.Done():
				return ctx.Err()
			}
		}
	})
	if err != nil {
		b.mu.Lock()
		defer b.mu.Unlock()
		if b.exclusive == l {
			b.exclusive = nil
		}
		b.queue = slices.DeleteFunc(b.queue, func(x *Ledger) bool { return x == l })
		b.signal()
		return nil, err
	}
	return func() {
		b.mu.Lock()
		defer b.mu.Unlock()
		b.exclusive = nil
		b.signal()
	}, nil
}

// Wait returns a new charge of n bytes held by l, waiting, while it does
// not fit beside the others (ErrFull), until it does or ctx ends (ErrFull
// then). ErrTooLarge is returned at once. For what can wait without
// holding anything else: a request's body, before it is read.
func (l *Ledger) Wait(ctx context.Context, n int64) (*Charge, error) {
	for {
		b := l.b
		b.mu.Lock()
		ch := b.changed
		b.mu.Unlock()
		c, err := l.Charge(n)
		if err == nil || errors.Is(err, ErrTooLarge) {
			return c, err
		}
		select {
		case <-ch:
		case <-ctx.Done():
			return nil, err
		}
	}
}

type key struct{}

// With returns ctx carrying l: results read under it are charged to l.
func With(ctx context.Context, l *Ledger) context.Context {
	return context.WithValue(ctx, key{}, l)
}

// From returns the Ledger ctx carries, nil when none.
func From(ctx context.Context) *Ledger {
	l, _ := ctx.Value(key{}).(*Ledger)
	return l
}
