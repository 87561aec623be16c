package turn

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"
)

// pausable is a Turn whose held time moves only while the test says it
// holds its worker.
type pausable struct {
	mu    sync.Mutex
	used  time.Duration
	since time.Time // zero while paused
}

func (p *pausable) Yield(ctx context.Context) error { return ctx.Err() }
func (p *pausable) Idle(ctx context.Context, wait func() error) error {
	p.set(false)
	defer p.set(true)
	return wait()
}

func (p *pausable) Used() time.Duration {
	p.mu.Lock()
	defer p.mu.Unlock()
	u := p.used
	if !p.since.IsZero() {
		u += time.Since(p.since)
	}
	return u
}

func (p *pausable) set(held bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	switch {
	case held && p.since.IsZero():
		p.since = time.Now()
	case !held && !p.since.IsZero():
		p.used += time.Since(p.since)
		p.since = time.Time{}
	}
}

// TestWithTimeoutCountsHeldTime: a context bounded by 50 ms of its
// Turn's held time does not end while the Turn waits for a worker (ten
// times that long), and ends, with context.DeadlineExceeded, once the
// Turn has held one 50 ms more; a child context reports the same error.
func TestWithTimeoutCountsHeldTime(t *testing.T) {
	p := &pausable{}
	ctx, cancel := WithTimeout(With(context.Background(), p), 50*time.Millisecond)
	defer cancel()
	child, cancelChild := context.WithCancel(ctx)
	defer cancelChild()
	time.Sleep(500 * time.Millisecond) // paused: nothing counts
	if err := ctx.Err(); err != nil {
		t.Fatalf("ended after 0 s held: %v", err)
	}
	p.set(true)
	select {
	case <-child.Done():
	case <-time.After(time.Minute):
		t.Fatal("still running a minute after the Turn took its worker")
	}
	if !errors.Is(ctx.Err(), context.DeadlineExceeded) || !errors.Is(child.Err(), context.DeadlineExceeded) {
		t.Fatalf("Err %v, child's %v; want context.DeadlineExceeded", ctx.Err(), child.Err())
	}
	if u := p.Used(); u < 50*time.Millisecond {
		t.Fatalf("ended after %s held, before 50 ms", u)
	}
}

// TestWithTimeoutWithoutTurn: without a Turn it is a wall-clock timeout;
// a parent's end ends it with the parent's error.
func TestWithTimeoutWithoutTurn(t *testing.T) {
	ctx, cancel := WithTimeout(context.Background(), time.Millisecond)
	defer cancel()
	<-ctx.Done()
	if !errors.Is(ctx.Err(), context.DeadlineExceeded) {
		t.Fatal(ctx.Err())
	}
	parent, stop := context.WithCancel(With(context.Background(), &pausable{}))
	ctx, cancel = WithTimeout(parent, time.Hour)
	defer cancel()
	stop()
	<-ctx.Done()
	if !errors.Is(ctx.Err(), context.Canceled) {
		t.Fatal(ctx.Err())
	}
	if Idle(context.Background(), func() error { return errors.New("x") }).Error() != "x" {
		t.Fatal("Idle without a Turn does not call through")
	}
}
