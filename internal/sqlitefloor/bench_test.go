package sqlitefloor_test

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/sqljudge/sqljudge/internal/bench"
	"github.com/sqljudge/sqljudge/internal/cli"
	"github.com/sqljudge/sqljudge/internal/engine"
	"github.com/sqljudge/sqljudge/internal/engine/sqlite"
	"github.com/sqljudge/sqljudge/internal/metric"
	"github.com/sqljudge/sqljudge/internal/result"
	"github.com/sqljudge/sqljudge/internal/run"
	"github.com/sqljudge/sqljudge/internal/shareddata"
	"github.com/sqljudge/sqljudge/internal/sqlitefloor"
)

// SuiteEnv names a Spider dev test suite (built by `sqljudge testsuite
// build` on dev_gold.sql) for BenchmarkSpiderDevTSFloor; without it the
// benchmark builds one with the defaults and seed 1 (about 20 s of CPU).
const SuiteEnv = "SQLJUDGE_BENCH_SUITE"

// BenchmarkSpiderDevEXFloor grades Spider dev (DIN-SQL's 1034
// predictions) with `sqljudge eval --metrics ex` in process, and replays
// the queries that run executed (recorded once, before timing) through
// the floor (Replay, 2 workers as eval's default). Each iteration runs
// both, floor first; it reports the CPU time (user + system, getrusage)
// of each and their ratio, eval/floor.
func BenchmarkSpiderDevEXFloor(b *testing.B) {
	spider := shareddata.Path(b, "spider")
	args := evalArgs(spider, b.TempDir(), "ex")
	items := spiderItems(b, spider)
	eng := &recorder{Engine: sqlite.New(filepath.Join(spider, "database"), sqlite.Options{})}
	ms, err := metric.New([]string{"ex"}, metric.Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer metric.Close(ms)
	record(b, eng, ms, items)
	compare(b, eng.queries(), args)
}

// BenchmarkSpiderDevTSFloor is BenchmarkSpiderDevEXFloor for ts, on the
// suite SuiteEnv names (or one it builds).
func BenchmarkSpiderDevTSFloor(b *testing.B) {
	spider := shareddata.Path(b, "spider")
	suite := spiderSuite(b, spider)
	args := append(evalArgs(spider, b.TempDir(), "ts"), "--suite", suite)
	items := spiderItems(b, spider)
	rec := &recorder{Engine: sqlite.New("", sqlite.Options{})}
	ts, err := metric.NewTS(metric.TSOptions{Dir: suite, Timeout: 30 * time.Second, Engine: rec}, metric.EXOptions{})
	if err != nil {
		b.Fatal(err)
	}
	defer ts.Close()
	record(b, sqlite.New(filepath.Join(spider, "database"), sqlite.Options{}), []metric.Metric{ts}, items)
	compare(b, rec.queries(), args)
}

// evalArgs are the arguments of `sqljudge eval` on Spider dev with DIN-SQL's
// predictions and metric m, its defaults otherwise, written to out.
func evalArgs(spider, out, m string) []string {
	return []string{"eval", "--gold", filepath.Join(spider, "dev_gold.sql"),
		"--pred", filepath.Join(spider, "predictions", "din_sql.sql"),
		"--db", filepath.Join(spider, "database"), "--metrics", m,
		"--out", out, "--overwrite", "--progress", "never"}
}

func spiderItems(b *testing.B, spider string) []bench.Item {
	items, err := bench.Load(bench.Options{
		Gold: filepath.Join(spider, "dev_gold.sql"),
		Pred: filepath.Join(spider, "predictions", "din_sql.sql"),
	})
	if err != nil {
		b.Fatal(err)
	}
	return items
}

// record grades items with ms as eval does (run.Runner, 2 workers, a
// shared prediction cache) on eng, so that the recorders see every query
// executed.
func record(b *testing.B, eng engine.Engine, ms []metric.Metric, items []bench.Item) {
	r := &run.Runner{
		Env:     &metric.Env{Engine: eng, Timeout: 30 * time.Second, SharePreds: true},
		Metrics: ms,
		Opts:    run.Options{OutDir: b.TempDir(), Workers: 2},
	}
	if _, err := r.Run(context.Background(), items); err != nil {
		b.Fatal(err)
	}
}

// compare times, b.N times, the floor's replay of queries then the eval
// command args, and reports the CPU time of each per iteration and the
// ratio.
func compare(b *testing.B, queries []sqlitefloor.Query, args []string) {
	var floorCPU, evalCPU time.Duration
	var tally sqlitefloor.Tally
	b.ResetTimer()
	for range b.N {
		d := cpuTime(func() {
			var err error
			if tally, err = sqlitefloor.Replay(queries, 2); err != nil {
				b.Fatal(err)
			}
		})
		floorCPU += d
		evalCPU += cpuTime(func() {
			if code := cli.Main(args, nil, io.Discard, io.Discard); code != cli.ExitOK {
				b.Fatalf("eval exited %d", code)
			}
		})
	}
	n := float64(b.N)
	b.ReportMetric(float64(len(queries)), "queries")
	b.ReportMetric(float64(tally.Rows), "rows")
	b.ReportMetric(floorCPU.Seconds()*1e3/n, "floor-cpu-ms/op")
	b.ReportMetric(evalCPU.Seconds()*1e3/n, "eval-cpu-ms/op")
	b.ReportMetric(evalCPU.Seconds()/floorCPU.Seconds(), "eval/floor")
}

// cpuTime returns the process's user and system CPU time spent in f,
// after a collection that is not counted (the garbage of what ran before
// is not f's).
func cpuTime(f func()) time.Duration {
	runtime.GC()
	t0 := rusage()
	f()
	return rusage() - t0
}

func rusage() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		panic(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// recorder is an engine that notes every query it runs, in the order they
// start, with the file of its database.
type recorder struct {
	*sqlite.Engine
	mu sync.Mutex
	qs []sqlitefloor.Query
}

func (r *recorder) Query(ctx context.Context, db, sql string) (*result.Set, error) {
	path, err := r.Path(db)
	if err == nil {
		r.mu.Lock()
		r.qs = append(r.qs, sqlitefloor.Query{Path: path, SQL: sql})
		r.mu.Unlock()
	}
	return r.Engine.Query(ctx, db, sql)
}

func (r *recorder) queries() []sqlitefloor.Query {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.qs
}

var (
	suiteOnce sync.Once
	suiteDir  string
	suiteErr  error
)

// spiderSuite returns the suite SuiteEnv names, or builds one for Spider
// dev once per test binary (removed by TestMain).
func spiderSuite(b *testing.B, spider string) string {
	if d := os.Getenv(SuiteEnv); d != "" {
		return d
	}
	suiteOnce.Do(func() {
		if suiteDir, suiteErr = os.MkdirTemp("", "sqlitefloor-suite-"); suiteErr != nil {
			return
		}
		args := []string{"testsuite", "build", "--db", filepath.Join(spider, "database"),
			"--gold", filepath.Join(spider, "dev_gold.sql"), "--tables", filepath.Join(spider, "tables.json"),
			"--out", suiteDir, "--seed", "1"}
		if code := cli.Main(args, nil, io.Discard, io.Discard); code != cli.ExitOK {
			suiteErr = fmt.Errorf("testsuite build exited %d", code)
		}
	})
	if suiteErr != nil {
		b.Fatal(suiteErr)
	}
	return suiteDir
}

func TestMain(m *testing.M) {
	code := m.Run()
	if suiteDir != "" {
		os.RemoveAll(suiteDir)
	}
	os.Exit(code)
}
