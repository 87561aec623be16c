package serve

import (
	"context"
	"errors"
	"testing"

	"github.com/sqljudge/sqljudge/internal/result"
)

// TestFailedGoldIsNotRemembered: a gold that timed out once is run again
// by the next request (and then grades), while a gold that fails
// deterministically (an unknown column) runs once for both requests.
func TestFailedGoldIsNotRemembered(t *testing.T) {
	_, eng, ts := newTestServer(t, Config{})
	slowGold := "SELECT count(*) FROM singer"
	badGold := "SELECT no_such_column FROM singer"
	eng.timeouts = map[string]int{slowGold: 1}
	req := GradeRequest{Items: []GradeItem{
		{DBID: "concert_singer", Gold: Gold{slowGold}, Pred: ptr("SELECT count(*) FROM singer")},
		{DBID: "concert_singer", Gold: Gold{badGold}, Pred: ptr("SELECT 1")},
	}}
	first := grade(t, ts.URL, req)
	if first[0].Verdict != Error || first[1].Verdict != Error {
		t.Fatalf("first request: %+v", first)
	}
	second := grade(t, ts.URL, req)
	if second[0].Verdict != Correct {
		t.Errorf("the gold that timed out once is still failing: %+v", second[0])
	}
	if second[1].Verdict != Error {
		t.Errorf("failing gold: %+v", second[1])
	}
	eng.mu.Lock()
	defer eng.mu.Unlock()
	// slowGold is also the prediction of item 0: two gold runs and one
	// prediction run (the prediction of the first request never ran).
	if eng.n[slowGold] != 3 || eng.n[badGold] != 1 {
		t.Errorf("runs: timed-out gold %d (want 3: twice as gold, once as prediction), failing gold %d (want 1)", eng.n[slowGold], eng.n[badGold])
	}
}

// TestGoldCacheBoundedInBytes fills a small gold cache with results of
// known size: the bytes held never pass the bound, the least recently
// used result goes first, and an evicted gold runs again.
func TestGoldCacheBoundedInBytes(t *testing.T) {
	golds := []string{"SELECT * FROM singer", "SELECT * FROM stadium", "SELECT * FROM concert", "SELECT * FROM singer_in_concert"}
	s, eng, ts := newTestServer(t, Config{GoldCache: 3000})
	for _, g := range golds {
		grade(t, ts.URL, GradeRequest{Items: []GradeItem{{DBID: "concert_singer", Gold: Gold{g}, Pred: ptr("SELECT 1")}}})
		if n, b := s.golds.Len(); b > 3000 || n == 0 {
			t.Fatalf("after %q: %d results, %d bytes held; bound 3000", g, n, b)
		}
	}
	eng.mu.Lock()
	before := eng.n[golds[0]]
	eng.mu.Unlock()
	grade(t, ts.URL, GradeRequest{Items: []GradeItem{{DBID: "concert_singer", Gold: Gold{golds[0]}, Pred: ptr("SELECT 1")}}})
	eng.mu.Lock()
	defer eng.mu.Unlock()
	if eng.n[golds[0]] != before+1 {
		t.Errorf("the least recently used gold ran %d times again, want 1 (it was evicted)", eng.n[golds[0]]-before)
	}
}

// TestGoldCacheWaiterOutlivesCancelledLeader: a caller waiting for a gold
// query that another caller started gets the result even when that caller
// hangs up mid-query: the cancellation is not shared, the waiter runs the
// query itself (or, if it asks only after the leader gave up, runs it
// first-hand); either way it gets the result, and only that is held.
func TestGoldCacheWaiterOutlivesCancelledLeader(t *testing.T) {
	c := newGoldCache(1 << 20)
	started, release := make(chan struct{}), make(chan struct{})
	leaderCtx, hangUp := context.WithCancel(context.Background())
	leader := make(chan error, 1)
	go func() {
		_, err := c.Get(leaderCtx, "db", "q", func(ctx context.Context) (*result.Set, error) {
			close(started)
			<-release
			return nil, ctx.Err()
		})
		leader <- err
	}()
	<-started
	waiter := make(chan *result.Set, 1)
	go func() {
		set, err := c.Get(context.Background(), "db", "q", func(context.Context) (*result.Set, error) {
			return &result.Set{Columns: []string{"x"}, Rows: [][]result.Value{{result.IntValue(1)}}}, nil
		})
		if err != nil {
			t.Errorf("waiter: %v", err)
		}
		waiter <- set
	}()
	hangUp()
	close(release)
	if err := <-leader; !errors.Is(err, context.Canceled) {
		t.Errorf("leader: %v, want its own cancellation", err)
	}
	if set := <-waiter; set.Len() != 1 {
		t.Errorf("waiter got %v, want the result it ran", set)
	}
	if n, _ := c.Len(); n != 1 {
		t.Errorf("%d results held, want 1", n)
	}
}
