package serve

import (
	"testing"
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
		if n, b := s.golds.size(); b > 3000 || n == 0 {
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
