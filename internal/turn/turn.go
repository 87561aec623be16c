package turn

import (
	"context"
	"sync"
	"time"
)

// Turn is an item's hold on one worker of a pool.
type Turn interface {
	// Yield gives the worker up when another item waits for one and this
	// turn has held it for its quantum, then waits to get one back. It
	// returns at once otherwise, and returns ctx's error when ctx ends
	// while it waits (the caller then stops: a SQLite query is
	// interrupted). It is called often (every few thousand SQLite
	// instructions) and must be cheap when it does not yield.
	Yield(ctx context.Context) error
	// Idle gives the worker up while wait runs (a blocking wait for
	// something other items must do first), then waits to get one back,
	// and returns wait's error, or ctx's when ctx ends first.
	Idle(ctx context.Context, wait func() error) error
	// Used is the time this turn has held a worker so far, its current
	// hold included.
	Used() time.Duration
}

type key struct{}

// With returns ctx carrying t: the code that runs under it yields t.
func With(ctx context.Context, t Turn) context.Context {
	return context.WithValue(ctx, key{}, t)
}

// From returns the Turn ctx carries, nil when none.
func From(ctx context.Context) Turn {
	t, _ := ctx.Value(key{}).(Turn)
	return t
}

// Yield yields ctx's Turn (Turn.Yield); without one it returns ctx's
// error, nil while ctx lasts.
func Yield(ctx context.Context) error {
	if t := From(ctx); t != nil {
		return t.Yield(ctx)
	}
	return ctx.Err()
}

// Idle runs wait without holding ctx's Turn's worker (Turn.Idle); without
// a Turn it runs wait.
func Idle(ctx context.Context, wait func() error) error {
	if t := From(ctx); t != nil {
		return t.Idle(ctx, wait)
	}
	return wait()
}

// WithTimeout returns a copy of parent that ends, with
// context.DeadlineExceeded as its Err (as context.WithTimeout's), once
// parent's Turn has held a worker for d more; the time the Turn waits for
// one does not count. Without a Turn it is context.WithTimeout(parent, d).
// Its Deadline is the wall time at which d would run out if the Turn held
// its worker from now on. The cancel function releases its timer.
func WithTimeout(parent context.Context, d time.Duration) (context.Context, context.CancelFunc) {
	t := From(parent)
	if t == nil {
		return context.WithTimeout(parent, d)
	}
	c := &runCtx{parent: parent, t: t, start: t.Used(), d: d, done: make(chan struct{})}
	c.mu.Lock()
	c.timer = time.AfterFunc(d, c.check)
	c.mu.Unlock()
	stop := context.AfterFunc(parent, func() { c.end(parent.Err()) })
	return c, func() {
		stop()
		c.end(context.Canceled)
	}
}

// runCtx is a context that ends once its Turn has held a worker for d
// since it was made, or when its parent ends.
type runCtx struct {
	parent context.Context
	t      Turn
	start  time.Duration // t.Used() when made
	d      time.Duration
	done   chan struct{}

	mu    sync.Mutex
	err   error
	timer *time.Timer
}

// left is how much of d the Turn has not used yet.
func (c *runCtx) left() time.Duration { return c.d - (c.t.Used() - c.start) }

// check ends c when d is used up, else sets the timer for what is left
// (the Turn may have waited since the timer was set).
func (c *runCtx) check() {
	left := c.left()
	if left <= 0 {
		c.end(context.DeadlineExceeded)
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.err == nil {
		c.timer.Reset(left)
	}
}

// end ends c with err (the first call wins).
func (c *runCtx) end(err error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.err != nil {
		return
	}
	c.err = err
	c.timer.Stop()
	close(c.done)
}

func (c *runCtx) Deadline() (time.Time, bool) {
	dl := time.Now().Add(max(c.left(), 0))
	if pd, ok := c.parent.Deadline(); ok && pd.Before(dl) {
		return pd, true
	}
	return dl, true
}

func (c *runCtx) Done() <-chan struct{} { return c.done }

func (c *runCtx) Err() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.err
}

func (c *runCtx) Value(k any) any { return c.parent.Value(k) }
