package serve

import (
	"context"
	"fmt"
	"regexp"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/sqljudge/sqljudge/internal/equiv"
	"github.com/sqljudge/sqljudge/internal/metric"
)

// gated is a server over a countingEngine whose queries announce their SQL
// on started once they have a worker, and wait, once run, until the test
// lets them go (finish): the test sees which items got a worker, in what
// order, while it holds the workers.
type gated struct {
	t      *testing.T
	s      *Server
	eng    *countingEngine
	clock  *fakeClock
	starts []string // tags of the items whose first query started, in order
	wg     sync.WaitGroup
	mu     sync.Mutex
	res    [][]GradeResult
}

func newGated(t *testing.T, workers int) *gated {
	eng := newCountingEngine(t)
	eng.started, eng.finished = make(chan string, 256), make(chan string)
	s := New(Config{Engine: eng, Workers: workers, Timeout: time.Minute, MetricOptions: metric.Options{
		Equiv: metric.EquivOptions{Seed: 1, Budget: equiv.DefaultMetricBudget, MaxDatabases: 20}}})
	g := &gated{t: t, s: s, eng: eng, clock: newFakeClock()}
	s.sched.now = g.clock.Now
	t.Cleanup(func() {
		// Let every query go, then stop the server.
		done := make(chan struct{})
		go func() { g.wg.Wait(); close(done) }()
		for {
			select {
			case <-eng.finished:
				continue
			case <-done:
			}
			break
		}
		s.Close()
	})
	return g
}

// send grades a request of n items tagged prefix0, prefix1, ... in the
// background, with metric metricName.
func (g *gated) send(prefix string, n int, metricName string) {
	var items []GradeItem
	for k := range n {
		tag := fmt.Sprintf("%s%d", prefix, k)
		items = append(items, GradeItem{DBID: "concert_singer", Metric: metricName,
			Gold: Gold{fmt.Sprintf("SELECT count(*) FROM singer WHERE '%s' = '%s'", tag, tag)},
			Pred: ptr(fmt.Sprintf("SELECT count(*) FROM singer WHERE '%s' <> 'none'", tag))})
	}
	g.wg.Go(func() {
		res := g.s.Grade(context.Background(), GradeRequest{Items: items})
		g.mu.Lock()
		g.res = append(g.res, res)
		g.mu.Unlock()
	})
}

func init() {
	metric.Register("lengthy_ex", "test only: ex, as lengthy as equiv (serve's scheduler tests)", func(o metric.Options) (metric.Metric, error) {
		return lengthyEX{metric.NewEX(o.EX)}, nil
	})
}

// lengthyEX is ex declared lengthy (metric.Lengthy), as equiv and verdict
// are: unlike equiv, which runs on SQLite files only, its queries go
// through the countingEngine, so that the test holds its items at will.
type lengthyEX struct{ *metric.EX }

func (lengthyEX) Lengthy() bool { return true }

var tagOf = regexp.MustCompile(`'([A-Z]+[0-9]+)'`)

// collect takes the start notices that arrived, noting each item's first.
func (g *gated) collect() {
	for {
		select {
		case sql := <-g.eng.started:
			if tag := tagOf.FindStringSubmatch(sql)[1]; !slices.Contains(g.starts, tag) {
				g.starts = append(g.starts, tag)
			}
		default:
			return
		}
	}
}

// waitUntil waits until the items started and those waiting for a worker
// number n together: every item sent is then either running or queued. A
// minute without it fails the test (a safety net, not a timing).
func (g *gated) waitUntil(n int) {
	g.t.Helper()
	for deadline := time.Now().Add(time.Minute); ; time.Sleep(time.Millisecond) {
		g.collect()
		if len(g.starts)+g.s.sched.queued() == n {
			return
		}
		if time.Now().After(deadline) {
			g.t.Fatalf("waited a minute for %d items started or queued: started %v, %d queued", n, g.starts, g.s.sched.queued())
		}
	}
}

// finish lets n queries go, one at a time, each after the next one has
// started (the next item's first query, or the running item's next),
// each having taken a second of the scheduler's (fake) clock.
//
// Query k is let go only once query k-1 has returned and query k has
// reached the engine: by then the scheduler has read the clock for
// whatever query k-1's end decided (a released worker, the next item's
// start), so no advance falls between those reads. Before, under load,
// the next advance could land first and charge an item two seconds or
// none (the order of a fair share then followed the machine's load).
func (g *gated) finish(n int) {
	first := g.eng.total()
	for k := range n {
		for deadline := time.Now().Add(time.Minute); g.eng.total() < first+k; time.Sleep(time.Millisecond) {
			if time.Now().After(deadline) {
				g.t.Fatalf("waited a minute for query %d of %d to reach the engine", k+1, n)
			}
		}
		g.clock.Advance(time.Second)
		<-g.eng.finished
	}
}

// fakeClock is a clock that moves only when told: the scheduler's
// service times, in tests that hold items at will.
type fakeClock struct {
	mu sync.Mutex
	t  time.Time
}

func newFakeClock() *fakeClock { return &fakeClock{t: time.Unix(1_000_000, 0)} }

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *fakeClock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
}

// TestRequestsShareWorkersFairly: with one worker held by request A (5
// items), B (1 item) and C (2 items) arrive; each item's queries take a
// second of the scheduler's clock. A free worker goes to the waiting
// request whose items have held workers the least (A's first item ran 2
// s: B, then C, then A and C tied at 2 s, A first as it came first), so
// B's item runs after one of A's, not after all of them (issue 31: a
// healthy ex request waited 20.2 s behind 8 slow equiv requests).
func TestRequestsShareWorkersFairly(t *testing.T) {
	g := newGated(t, 1)
	g.send("A", 5, "ex")
	g.waitUntil(5)
	g.send("B", 1, "ex")
	g.waitUntil(6)
	g.send("C", 2, "ex")
	g.waitUntil(8)
	g.finish(16) // each ex item runs its gold, then its prediction
	g.wg.Wait()
	g.collect()
	var requests string
	for _, tag := range g.starts {
		requests += tag[:1]
	}
	if want := "ABCACAAA"; requests != want {
		t.Fatalf("items got the worker in the order %v (requests %s), want requests %s", g.starts, requests, want)
	}
	for _, res := range g.res {
		for _, r := range res {
			if r.Verdict != Correct {
				t.Errorf("%+v", r)
			}
		}
	}
}

// TestLengthyItemsLeaveAWorker: with two workers, items of a lengthy
// metric (equiv and verdict, whose item may hold its worker up to
// --equiv-budget; here lengthy_ex, whose queries the test holds) hold at
// most one at once by default, so while three such requests wait, a
// healthy ex request runs at once on the other. Before, the second
// lengthy request took the second worker and the ex request waited for
// the lengthy items.
func TestLengthyItemsLeaveAWorker(t *testing.T) {
	g := newGated(t, 2)
	for name, want := range map[string]bool{"equiv": true, "verdict": true, "lengthy_ex": true, "ex": false} {
		if m, err := g.s.metric(name); err != nil || lengthy(m) != want {
			t.Fatalf("%s: lengthy %v (%v), want %v", name, !want, err, want)
		}
	}
	g.send("L", 1, "lengthy_ex")
	g.waitUntil(1)
	g.send("M", 1, "lengthy_ex")
	g.send("N", 1, "lengthy_ex")
	g.waitUntil(3)
	if want := []string{"L0"}; !slices.Equal(g.starts, want) {
		t.Fatalf("started %v with %d queued, want %v: lengthy items took both workers", g.starts, g.s.sched.queued(), want)
	}
	g.send("H", 1, "ex")
	g.waitUntil(4)
	if want := []string{"L0", "H0"}; !slices.Equal(g.starts, want) {
		t.Fatalf("started %v, want %v: the ex item waits behind lengthy items", g.starts, want)
	}
}

// slowSQL is the k-th of a family of predictions that never end (a
// recursive CTE counting without bound), each its own query.
func slowSQL(k int) string {
	return fmt.Sprintf("WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT count(*) FROM c WHERE x <> -%d", k+1)
}

// TestSlowQueriesShareTheWorker (issue 41): with one worker, four
// requests of two ex items whose predictions never end (a query
// timeout of 30 s) all get the worker in turn, each query paused at
// SQLite's progress handler after a quantum, and a healthy ex request
// sent behind them is answered while every slow query still runs.
// Before, turn-taking only ordered items waiting for a worker: the first
// slow item held it until its query timed out, and a healthy request
// waited for one slow item of each request ahead (112.7 s behind 8).
func TestSlowQueriesShareTheWorker(t *testing.T) {
	eng := newCountingEngine(t)
	eng.started = make(chan string, 1024)
	s := New(Config{Engine: eng, Workers: 1, Timeout: 30 * time.Second})
	t.Cleanup(s.Close)
	ctx, stop := context.WithCancel(context.Background())
	defer stop()
	slow := map[string]bool{}
	slowDone := make(chan []GradeResult, 4)
	for r := range 4 {
		var items []GradeItem
		for k := range 2 {
			sql := slowSQL(2*r + k)
			slow[sql] = true
			items = append(items, GradeItem{DBID: "concert_singer", Gold: Gold{"SELECT 1"}, Pred: ptr(sql)})
		}
		go func() { slowDone <- s.Grade(ctx, GradeRequest{Items: items}) }()
	}
	seen := map[string]bool{}
	guard := time.After(hangGuard)
	for len(seen) < len(slow) {
		select {
		case sql := <-eng.started:
			if slow[sql] {
				seen[sql] = true
			}
		case res := <-slowDone:
			t.Fatalf("a slow request ended (%+v) before every slow query had the worker (%d of %d had it)", res, len(seen), len(slow))
		case <-guard:
			t.Fatalf("after %s, %d of %d slow queries had the worker", hangGuard, len(seen), len(slow))
		}
	}
	healthy := make(chan []GradeResult, 1)
	go func() {
		healthy <- s.Grade(context.Background(), GradeRequest{Items: []GradeItem{{DBID: "concert_singer",
			Gold: Gold{"SELECT count(*) FROM singer"}, Pred: ptr("SELECT count(*) FROM singer")}}})
	}()
	select {
	case res := <-healthy:
		if res[0].Verdict != Correct {
			t.Errorf("healthy request: %+v", res[0])
		}
	case res := <-slowDone:
		t.Fatalf("a slow request ended (%+v) before the healthy one", res)
	case <-time.After(hangGuard):
		t.Fatalf("the healthy request waited %s", hangGuard)
	}
	stop()
	for range 4 {
		<-slowDone
	}
}
