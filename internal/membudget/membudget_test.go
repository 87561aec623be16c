package membudget

import (
	"context"
	"errors"
	"testing"
	"time"
)

const MiB = 1 << 20

// TestChargesAreCountedOnce: charges add up; a charge held by a ledger
// and kept by a cache is counted once and goes with its last holder;
// Free stops counting it whoever holds it.
func TestChargesAreCountedOnce(t *testing.T) {
	b := New(64 * MiB)
	item, other := b.Ledger(), b.Ledger()
	c, err := item.Charge(3 * MiB)
	if err != nil {
		t.Fatal(err)
	}
	if err := item.Grow(c, MiB); err != nil {
		t.Fatal(err)
	}
	item.Name("set", c)
	if item.ChargeOf("set") != c || b.Used() != 4*MiB || item.Held() != 4*MiB {
		t.Fatalf("used %d, held %d", b.Used(), item.Held())
	}
	let := c.Keep() // a cache keeps it
	other.Hold(c)   // another item reads it from the cache
	if b.Used() != 4*MiB || other.Held() != 4*MiB {
		t.Fatalf("shared: used %d, other holds %d; want 4 MiB, counted once", b.Used(), other.Held())
	}
	item.Release()
	other.Release()
	if b.Used() != 4*MiB {
		t.Fatalf("kept by the cache: used %d", b.Used())
	}
	let()
	let()
	if b.Used() != 0 {
		t.Fatalf("let go by all: used %d", b.Used())
	}
	d, _ := item.Charge(MiB)
	d.Keep()
	d.Free()
	if b.Used() != 0 || item.Held() != 0 {
		t.Fatalf("freed: used %d, held %d", b.Used(), item.Held())
	}
	if b.Peak() != 4*MiB {
		t.Fatalf("peak %d, want 4 MiB", b.Peak())
	}
}

// TestTooLargeAndFull: a holder may take 7/8 of the limit (ErrTooLarge
// past it, whatever the others hold); past the room the others leave it
// is ErrFull, after the evictor was asked for the difference.
func TestTooLargeAndFull(t *testing.T) {
	b := New(64 * MiB)
	var asked int64
	b.SetEvictor(func(need int64) { asked += need })
	a := b.Ledger()
	if _, err := a.Charge(57 * MiB); !errors.Is(err, ErrTooLarge) {
		t.Fatalf("57 of 64 MiB: %v, want ErrTooLarge", err)
	}
	if _, err := a.Charge(40 * MiB); err != nil {
		t.Fatal(err)
	}
	o := b.Ledger()
	if _, err := o.Charge(30 * MiB); !errors.Is(err, ErrFull) || !o.Full() || a.Full() {
		t.Fatalf("30 MiB beside 40: %v (full %v, %v), want ErrFull for the second", err, o.Full(), a.Full())
	}
	if asked != 30*MiB {
		t.Fatalf("the evictor was asked for %d, want 30 MiB", asked)
	}
	if b.Used() != 40*MiB || b.Peak() > b.Limit() {
		t.Fatalf("used %d, peak %d", b.Used(), b.Peak())
	}
}

// TestExclusiveKeepsTheOthersSmall: a holder that did not fit waits until
// the others hold at most an eighth of the limit, then may take 7/8 of
// it, while the others' charges past that eighth are ErrFull.
func TestExclusiveKeepsTheOthersSmall(t *testing.T) {
	b := New(64 * MiB)
	big := b.Ledger()
	if _, err := big.Charge(40 * MiB); err != nil {
		t.Fatal(err)
	}
	retry := b.Ledger()
	granted := make(chan func())
	go func() {
		release, err := b.Exclusive(context.Background(), retry)
		if err != nil {
			t.Error(err)
		}
		granted <- release
	}()
	for !waiting(b) {
		time.Sleep(time.Millisecond)
	}
	small := b.Ledger()
	if _, err := small.Charge(9 * MiB); !errors.Is(err, ErrFull) {
		t.Fatalf("9 MiB while a holder waits to run alone: %v, want ErrFull (others keep to 8 MiB)", err)
	}
	select {
	case <-granted:
		t.Fatal("granted while another holds 40 MiB")
	case <-time.After(10 * time.Millisecond):
	}
	big.Release()
	release := <-granted
	if _, err := small.Charge(8 * MiB); err != nil {
		t.Fatalf("8 MiB for the others while one runs alone: %v", err)
	}
	if _, err := retry.Charge(56 * MiB); err != nil {
		t.Fatalf("alone, 56 of 64 MiB: %v", err)
	}
	if _, err := small.Charge(MiB); !errors.Is(err, ErrFull) {
		t.Fatalf("the others past their eighth: %v, want ErrFull", err)
	}
	release()
	if b.Peak() > b.Limit() {
		t.Fatalf("peak %d over the limit", b.Peak())
	}
}

func waiting(b *Budget) bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	return len(b.queue) > 0
}

// TestWaitForRoom: a body's charge waits for room, and is ErrFull when
// its context ends first.
func TestWaitForRoom(t *testing.T) {
	b := New(64 * MiB)
	a := b.Ledger()
	if _, err := a.Charge(50 * MiB); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := b.Ledger().Wait(ctx, 20*MiB); !errors.Is(err, ErrFull) {
		t.Fatalf("no room and no time: %v", err)
	}
	done := make(chan error)
	go func() {
		_, err := b.Ledger().Wait(context.Background(), 20*MiB)
		done <- err
	}()
	a.Release()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
}
