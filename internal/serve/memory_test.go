package serve

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/sqljudge/sqljudge/internal/engine/sqlite"
	"github.com/sqljudge/sqljudge/internal/equiv"
	"github.com/sqljudge/sqljudge/internal/metric"
	"github.com/sqljudge/sqljudge/internal/shareddata"
)

// wide is a query of n rows of a number and a text of 2,500 bytes (k
// makes each its own query).
func wide(n, k int) string {
	return fmt.Sprintf("WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c LIMIT %d) SELECT x, printf('%%0%dd', x) FROM c", n, 2500+k)
}

// TestLargeResultsKeepToTheBudget (issue 41): ten ex items whose gold and
// prediction each return 2,000 rows of 2.5 kB (5 MB; within the caps),
// on two workers under a 16 MiB budget: what the items hold at once never
// passes the budget (an item that does not fit beside the other is graded
// again alone), and every item is correct, as eval says. Before, nothing
// bounded it: 10 such items of 99,000 rows took 1151 MiB.
func TestLargeResultsKeepToTheBudget(t *testing.T) {
	s, _, _ := newTestServer(t, Config{Workers: 2, MaxMemory: 16 << 20})
	var req GradeRequest
	for k := range 10 {
		q := wide(2000, k)
		req.Items = append(req.Items, GradeItem{DBID: "concert_singer", Gold: Gold{q}, Pred: ptr(strings.Replace(q, "FROM c", "FROM c AS d", 1))})
	}
	for i, r := range s.Grade(context.Background(), req) {
		if r.Verdict != Correct {
			t.Errorf("item %d: %s (%.300s)", i, r.Verdict, r.Error)
		}
	}
	if peak, limit := s.mem.Peak(), s.mem.Limit(); peak > limit || peak < 10<<20 {
		t.Errorf("the budget's peak: %d bytes, want at most its limit (%d) and at least one item's 10 MB", peak, limit)
	}
}

// inList is a prediction whose IN list holds n values.
func inList(n int) string {
	var in strings.Builder
	for i := range n {
		fmt.Fprintf(&in, "%d,", i)
	}
	return "SELECT name FROM singer WHERE singer_id IN (" + strings.TrimSuffix(in.String(), ",") + ")"
}

// TestEquivTextCharged (issue 41): what equiv derives from an item's text
// is charged to the budget before the item is graded: a prediction with
// an IN list of 60,000 values (350 kB, 22 MB of equiv's work at 64 bytes
// a byte) under a 16 MiB budget is too_large at once, without a search.
// Before, one with 300,000 values took 1.1 GB.
func TestEquivTextCharged(t *testing.T) {
	eng := sqlite.New(shareddata.SubsetPath(t, "spider", "database"), sqlite.Options{})
	defer eng.Close()
	s, _, _ := newTestServer(t, Config{Engine: eng, MaxMemory: 16 << 20, MetricOptions: metric.Options{
		Equiv: metric.EquivOptions{Seed: 1, Budget: equiv.DefaultMetricBudget, MaxDatabases: 20}}})
	pred := inList(60_000)
	res := s.Grade(context.Background(), GradeRequest{Items: []GradeItem{{DBID: "concert_singer", Metric: "equiv",
		Gold: Gold{"SELECT name FROM singer WHERE age > 40"}, Pred: &pred}}})
	if r := res[0]; r.Verdict != Wrong || !strings.HasPrefix(r.Error, "too_large") {
		t.Errorf("verdict %s (%.300s); want wrong, too_large", r.Verdict, r.Error)
	}
}

// TestBodiesWaitForRoom (issue 41): request bodies in flight are charged
// to the budget (four times their length, for what is decoded from them
// and the response): under a 4 MiB budget, while a request of 600 kB is
// graded a second one waits for room and, when none comes in time, is
// refused with HTTP 429 saying why; once the first is answered the next
// is graded; a body that could not fit even alone is HTTP 413. Before,
// 12 bodies of 62 MB at once took 2087 MiB.
func TestBodiesWaitForRoom(t *testing.T) {
	defer func(w time.Duration) { bodyWait = w }(bodyWait)
	bodyWait = 200 * time.Millisecond
	_, eng, ts := newTestServer(t, Config{MaxMemory: 4 << 20})
	eng.started, eng.finished = make(chan string, 16), make(chan string)
	body := func(pad int) string {
		return fmt.Sprintf(`{"items": [{"db_id": "concert_singer", "gold": "SELECT 1", "pred": "SELECT '%s' IS NOT NULL"}]}`, strings.Repeat("x", pad))
	}
	var wg sync.WaitGroup
	var first int
	wg.Go(func() { first, _ = post(t, ts.URL+"/v1/grade", body(600_000)) })
	<-eng.started // the first request is graded: its body is held
	code, out := post(t, ts.URL+"/v1/grade", body(600_000))
	if code != http.StatusTooManyRequests || !strings.Contains(string(out), "--max-memory") {
		t.Errorf("a second body while the first is graded: HTTP %d %.300s; want 429 naming --max-memory", code, out)
	}
	for range 2 { // the first request's gold and prediction
		<-eng.finished
	}
	wg.Wait()
	if first != http.StatusOK {
		t.Errorf("first request: HTTP %d", first)
	}
	go func() {
		for range eng.finished {
		}
	}()
	if code, out := post(t, ts.URL+"/v1/grade", body(600_000)); code != http.StatusOK {
		t.Errorf("after the first was answered: HTTP %d %.300s", code, out)
	}
	if code, out := post(t, ts.URL+"/v1/grade", body(1_000_000)); code != http.StatusRequestEntityTooLarge || !strings.Contains(string(out), "--max-memory") {
		t.Errorf("a body that cannot fit: HTTP %d %.300s; want 413 naming --max-memory", code, out)
	}
}
