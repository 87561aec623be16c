package metric

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/sqljudge/sqljudge/internal/engine"
	"github.com/sqljudge/sqljudge/internal/result"
)

// counted returns a run function for Cache.Get that counts its calls in
// *n and returns a result of one text cell of size bytes, or err.
func counted(n *int, size int, err error) func(context.Context) (*result.Set, error) {
	return func(context.Context) (*result.Set, error) {
		*n++
		if err != nil {
			return nil, err
		}
		return &result.Set{Rows: [][]result.Value{{result.TextValue(strings.Repeat("x", size))}}}, nil
	}
}

// TestCachePolicyBounds checks each bound of a CachePolicy: MaxEntries
// evicts the oldest entry, in the order entries were kept (FIFO) or of
// their last use (LRU); MaxBytes evicts the least recently used once the
// bytes held pass it, and keeps no entry larger than itself;
// MaxResultBytes keeps no result larger than itself.
func TestCachePolicyBounds(t *testing.T) {
	ctx := context.Background()
	runs := map[string]int{}
	get := func(c *Cache, sql string, size int) {
		n := runs[sql]
		if _, err := c.Get(ctx, "db", sql, counted(&n, size, nil)); err != nil {
			t.Fatal(err)
		}
		runs[sql] = n
	}
	for _, lru := range []bool{false, true} {
		clear(runs)
		c := NewCache(CachePolicy{MaxEntries: 2, LRU: lru})
		get(c, "a", 1)
		get(c, "b", 1)
		get(c, "a", 1) // a hit: under LRU, b is now the oldest
		get(c, "c", 1) // evicts a (FIFO) or b (LRU)
		get(c, "a", 1)
		get(c, "b", 1)
		want := map[string]int{"a": 2, "b": 2, "c": 1} // FIFO: a goes, then b
		if lru {
			want = map[string]int{"a": 1, "b": 2, "c": 1}
		}
		for q, w := range want {
			if runs[q] != w {
				t.Errorf("MaxEntries 2, LRU %v: %s ran %d times, want %d", lru, q, runs[q], w)
			}
		}
		if n, _ := c.Len(); n != 2 {
			t.Errorf("MaxEntries 2, LRU %v: %d held", lru, n)
		}
	}

	clear(runs)
	one := engine.SetBytes(&result.Set{Rows: [][]result.Value{{result.TextValue(strings.Repeat("x", 1000))}}}) + 1 + 2 + 200
	c := NewCache(CachePolicy{MaxBytes: 2*one + one/2, LRU: true})
	get(c, "p", 1000)
	get(c, "q", 1000)
	get(c, "p", 1000) // p is now the most recent
	get(c, "r", 1000) // over 2.5 entries: q, the least recently used, goes
	if n, b := c.Len(); n != 2 || b != 2*one {
		t.Errorf("MaxBytes: %d held in %d bytes, want 2 in %d", n, b, 2*one)
	}
	get(c, "q", 1000)
	get(c, "huge", 10_000) // larger than the bound: returned, not kept
	get(c, "huge", 10_000)
	if runs["q"] != 2 || runs["p"] != 1 || runs["huge"] != 2 {
		t.Errorf("MaxBytes: runs %v, want q evicted once, p never, huge never kept", runs)
	}

	clear(runs)
	c = NewCache(CachePolicy{MaxResultBytes: 500})
	for range 2 {
		get(c, "small", 10)
		get(c, "big", 1000)
	}
	if runs["small"] != 1 || runs["big"] != 2 {
		t.Errorf("MaxResultBytes: runs %v, want small once, big twice", runs)
	}
}

// TestCacheErrorPolicy checks which failures a Cache keeps: under
// KeepErrors every error, a timeout included, is held like a result (a
// run's golds and predictions); under KeepDeterministicErrors only an
// error of the query itself is, and a timeout runs again (serve's golds).
func TestCacheErrorPolicy(t *testing.T) {
	ctx := context.Background()
	syntax := &engine.QueryError{DB: "db", Err: errors.New("near \"SELEC\": syntax error")}
	timeout := &engine.QueryError{DB: "db", Err: fmt.Errorf("slow: %w", engine.ErrTimeout)}
	for _, c := range []struct {
		errs          ErrorPolicy
		syntax, timed int // runs of each of 3 calls
	}{
		{KeepErrors, 1, 1},
		{KeepDeterministicErrors, 1, 3},
	} {
		cache := NewCache(CachePolicy{Errors: c.errs})
		var ns, nt int
		for range 3 {
			if _, err := cache.Get(ctx, "db", "s", counted(&ns, 0, syntax)); err != syntax {
				t.Errorf("policy %v: %v, want the syntax error", c.errs, err)
			}
			if _, err := cache.Get(ctx, "db", "t", counted(&nt, 0, timeout)); err != timeout {
				t.Errorf("policy %v: %v, want the timeout", c.errs, err)
			}
		}
		if ns != c.syntax || nt != c.timed {
			t.Errorf("policy %v: syntax error ran %d times, timeout %d; want %d and %d", c.errs, ns, nt, c.syntax, c.timed)
		}
	}
}
