package testsuite_test

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"runtime"
	"sync"
	"testing"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/sqljudge/sqljudge/internal/bench"
	"github.com/sqljudge/sqljudge/internal/engine/sqlite"
	"github.com/sqljudge/sqljudge/internal/metric"
	"github.com/sqljudge/sqljudge/internal/result"
	"github.com/sqljudge/sqljudge/internal/shareddata"
	"github.com/sqljudge/sqljudge/internal/testsuite"
)

var (
	devOnce   sync.Once
	devSuite  string
	devReport *testsuite.Report
	devErr    error
)

func spiderGold(t testing.TB) ([]bench.Item, map[string][]string) {
	t.Helper()
	items, err := bench.LoadGold(shareddata.SubsetPath(t, "spider", "dev_gold.sql"), bench.FormatSpider)
	if err != nil {
		t.Fatal(err)
	}
	golds := map[string][]string{}
	for _, it := range items {
		golds[it.DBID] = append(golds[it.DBID], it.Gold...)
	}
	return items, golds
}

// buildDev builds the suites of the Spider dev databases (the committed
// subset's three) once for all tests of the package (seed 1, default
// settings).
func buildDev(t testing.TB) (string, *testsuite.Report) {
	t.Helper()
	_, golds := spiderGold(t)
	db := shareddata.SubsetPath(t, "spider", "database")
	devOnce.Do(func() {
		devSuite, devErr = os.MkdirTemp("", "sqljudge-suite-")
		if devErr != nil {
			return
		}
		devReport, devErr = testsuite.Build(context.Background(), db, golds, devSuite, testsuite.Options{Seed: 1})
	})
	if devErr != nil {
		t.Fatal(devErr)
	}
	return devSuite, devReport
}

func TestMain(m *testing.M) {
	code := m.Run()
	if devSuite != "" {
		os.RemoveAll(devSuite)
	}
	os.Exit(code)
}

func TestDevSuiteReport(t *testing.T) {
	suite, rep := buildDev(t)
	if _, golds := spiderGold(t); len(rep.DBs) != len(golds) {
		t.Fatalf("%d db_ids, want the %d of the Spider dev items", len(rep.DBs), len(golds))
	}
	for _, d := range rep.DBs {
		if d.Databases < 1 || d.Databases > 40 {
			t.Errorf("%s: %d databases, want 1..40", d.DBID, d.Databases)
		}
		files, _ := filepath.Glob(filepath.Join(suite, d.DBID, "*.sqlite"))
		if len(files) != d.Databases {
			t.Errorf("%s: %d files for %d databases", d.DBID, len(files), d.Databases)
		}
		if d.Covered > d.Distinguished || d.Distinguished > d.Runnable || d.ByOriginal > d.Covered {
			t.Errorf("%s: inconsistent counts %+v", d.DBID, d)
		}
	}
	if rep.Coverage < 0.99 {
		t.Errorf("coverage %.4f of the distinguishable neighbours, want >= 0.99", rep.Coverage)
	}
	t.Logf("%d databases (%.1f per db_id), %d neighbours generated, %d run, %d told apart by the original alone, %d by the suite, %d never; coverage %.4f; %d fuzzed databases sampled; %.0fs",
		rep.Total.Databases, rep.MeanDatabases, rep.Total.Generated, rep.Total.Runnable, rep.Total.ByOriginal, rep.Total.Covered, rep.Total.NeverDistinguished, rep.Coverage, rep.Total.Sampled, rep.Seconds)
}

// gradeAll grades items with metrics in parallel.
func gradeAll(t testing.TB, env *metric.Env, items []bench.Item, ms ...metric.Metric) [][]metric.Verdict {
	out := make([][]metric.Verdict, len(items))
	var g errgroup.Group
	g.SetLimit(runtime.NumCPU())
	for i := range items {
		g.Go(func() error {
			x := env.NewExec()
			for _, m := range ms {
				out[i] = append(out[i], m.Grade(context.Background(), x, &items[i]))
			}
			return nil
		})
	}
	_ = g.Wait()
	return out
}

func newTS(t testing.TB, suite string) metric.Metric {
	t.Helper()
	ms, err := metric.New([]string{"ts"}, metric.Options{TS: metric.TSOptions{Dir: suite, Timeout: 60 * time.Second}})
	if err != nil {
		t.Fatal(err)
	}
	return ms[0]
}

func TestGoldAgainstGoldPassesEverySuite(t *testing.T) {
	suite, _ := buildDev(t)
	items, _ := spiderGold(t)
	for i := range items {
		items[i].Pred = items[i].Gold[0]
	}
	eng := sqlite.New(shareddata.SubsetPath(t, "spider", "database"), sqlite.Options{})
	defer eng.Close()
	got := gradeAll(t, &metric.Env{Engine: eng, Timeout: time.Minute}, items, newTS(t, suite))
	for i, v := range got {
		if !v[0].Correct {
			t.Errorf("item %d (%s): gold vs gold ts %+v", i, items[i].DBID, v[0])
		}
	}
}

// TestTSNeverPassesWhatEXFails grades the four published prediction files:
// ts never passes an item ex fails (the original database is in every
// suite), and some items ex passes are told apart by a fuzzed database,
// the witness, on which the two results differ.
func TestTSNeverPassesWhatEXFails(t *testing.T) {
	suite, _ := buildDev(t)
	spider := shareddata.SubsetPath(t, "spider")
	eng := sqlite.New(filepath.Join(spider, "database"), sqlite.Options{})
	defer eng.Close()
	env := &metric.Env{Engine: eng, Timeout: time.Minute}
	ts := newTS(t, suite)
	wit := sqlite.New("", sqlite.Options{})
	defer wit.Close()
	for _, sys := range []string{"din_sql", "c3", "dail_sql_gpt35", "resdsql"} {
		items, err := bench.Load(bench.Options{Gold: filepath.Join(spider, "dev_gold.sql"), Pred: filepath.Join(spider, "predictions", sys+".sql")})
		if err != nil {
			t.Fatal(err)
		}
		got := gradeAll(t, env, items, &metric.EX{}, ts)
		exOK, tsOK, split := 0, 0, 0
		for i, v := range got {
			ex, tv := v[0], v[1]
			if ex.Correct {
				exOK++
			}
			if tv.Correct {
				tsOK++
			}
			if tv.Correct && !ex.Correct {
				t.Errorf("%s item %d: ts passes what ex fails", sys, i)
			}
			if ex.Correct && !tv.Correct {
				split++
				td, _ := tv.Details.(metric.TSDetails)
				w := td.Witness
				if w == "" || filepath.Base(w) == items[i].DBID+".sqlite" {
					t.Errorf("%s item %d: passes ex but ts names witness %q", sys, i, w)
				}
				if tv.Status == "ok" {
					// On the witness, the two results really differ.
					ex := &metric.EX{}
					p, g, ordered := ex.Prepare(items[i].Pred, items[i].Gold[0])
					gs, gerr := wit.QueryFile(context.Background(), w, g)
					ps, perr := wit.QueryFile(context.Background(), w, p)
					if gerr != nil || perr != nil || result.SpiderEqual(gs, ps, ordered) {
						t.Errorf("%s item %d: on witness %s the results are equal (%v, %v)", sys, i, w, gerr, perr)
					}
				}
			}
		}
		if split == 0 {
			t.Errorf("%s: no item passes ex and fails ts", sys)
		}
		t.Logf("%s: EX %.4f, TS %.4f, %d items pass EX and fail TS", sys, float64(exOK)/float64(len(items)), float64(tsOK)/float64(len(items)), split)
	}
}

// TestOneDatabaseSuiteEqualsEX: on a suite of the original databases only,
// ts equals ex on every item of the four prediction files.
func TestOneDatabaseSuiteEqualsEX(t *testing.T) {
	spider := shareddata.SubsetPath(t, "spider")
	suite := t.TempDir()
	_, golds := spiderGold(t)
	for id := range golds {
		os.MkdirAll(filepath.Join(suite, id), 0o755)
		if err := os.Symlink(filepath.Join(spider, "database", id, id+".sqlite"), filepath.Join(suite, id, id+".sqlite")); err != nil {
			t.Fatal(err)
		}
	}
	eng := sqlite.New(filepath.Join(spider, "database"), sqlite.Options{})
	defer eng.Close()
	env := &metric.Env{Engine: eng, Timeout: time.Minute}
	ts := newTS(t, suite)
	for _, sys := range []string{"din_sql", "c3", "dail_sql_gpt35", "resdsql"} {
		items, err := bench.Load(bench.Options{Gold: filepath.Join(spider, "dev_gold.sql"), Pred: filepath.Join(spider, "predictions", sys+".sql")})
		if err != nil {
			t.Fatal(err)
		}
		for i, v := range gradeAll(t, env, items, &metric.EX{}, ts) {
			if v[0].Correct != v[1].Correct || v[0].Status != v[1].Status {
				t.Errorf("%s item %d: ex %+v, ts on a one-database suite %+v", sys, i, v[0], v[1])
			}
		}
	}
}

// TestSameSeedSameBytes rebuilds two db_ids: the same seed gives
// byte-identical databases, another seed other ones.
func TestSameSeedSameBytes(t *testing.T) {
	_, golds := spiderGold(t)
	db := shareddata.SubsetPath(t, "spider", "database")
	sub := map[string][]string{"concert_singer": golds["concert_singer"], "pets_1": golds["pets_1"]}
	build := func(seed uint64) string {
		out := t.TempDir()
		if _, err := testsuite.Build(context.Background(), db, sub, out, testsuite.Options{Seed: seed, Workers: 2}); err != nil {
			t.Fatal(err)
		}
		return out
	}
	a, b, c := build(7), build(7), build(8)
	files := func(dir string) map[string][]byte {
		m := map[string][]byte{}
		paths, _ := filepath.Glob(filepath.Join(dir, "*", "*.sqlite"))
		for _, p := range paths {
			rel, _ := filepath.Rel(dir, p)
			m[rel], _ = os.ReadFile(p)
		}
		return m
	}
	fa, fb, fc := files(a), files(b), files(c)
	if len(fa) < 4 || len(fa) != len(fb) {
		t.Fatalf("%d and %d files", len(fa), len(fb))
	}
	for name, data := range fa {
		if !bytes.Equal(data, fb[name]) {
			t.Errorf("%s differs between two builds with seed 7", name)
		}
	}
	differ := false
	for name, data := range fa {
		if filepath.Base(name) != "concert_singer.sqlite" && filepath.Base(name) != "pets_1.sqlite" && !bytes.Equal(data, fc[name]) {
			differ = true
		}
	}
	if !differ {
		t.Error("seeds 7 and 8 built the same databases")
	}
}

// BenchmarkTSSpiderDev grades Spider dev (1034 items, DIN-SQL) with ts on
// the suites built from the 20 dev databases (built once, not timed); the
// ts metric, and so its gold cache, is new each iteration.
func BenchmarkTSSpiderDev(b *testing.B) {
	suite, _ := buildDev(b)
	spider := shareddata.SubsetPath(b, "spider")
	items, err := bench.Load(bench.Options{Gold: filepath.Join(spider, "dev_gold.sql"), Pred: filepath.Join(spider, "predictions", "din_sql.sql")})
	if err != nil {
		b.Fatal(err)
	}
	eng := sqlite.New(filepath.Join(spider, "database"), sqlite.Options{})
	defer eng.Close()
	b.ResetTimer()
	for range b.N {
		gradeAll(b, &metric.Env{Engine: eng, Timeout: time.Minute}, items, newTS(b, suite))
	}
	b.ReportMetric(float64(len(items)*b.N)/b.Elapsed().Seconds(), "items/s")
}

// BenchmarkTSBuiltSuite is BenchmarkTSSpiderDev on a suite built
// beforehand (sqljudge testsuite build --seed 1 over Spider dev), named by
// SQLJUDGE_BENCH_SUITE, so that a profile (-cpuprofile) of grading alone
// takes seconds, and the official evaluator can be run on the same folder
// (evaluation.py --db SUITE --etype exec) for the side-by-side figure.
func BenchmarkTSBuiltSuite(b *testing.B) {
	suite := os.Getenv("SQLJUDGE_BENCH_SUITE")
	if suite == "" {
		b.Skip("SQLJUDGE_BENCH_SUITE is not set: no prebuilt suite")
	}
	spider := shareddata.Path(b, "spider")
	items, err := bench.Load(bench.Options{Gold: filepath.Join(spider, "dev_gold.sql"), Pred: filepath.Join(spider, "predictions", "din_sql.sql")})
	if err != nil {
		b.Fatal(err)
	}
	eng := sqlite.New(filepath.Join(spider, "database"), sqlite.Options{})
	defer eng.Close()
	for b.Loop() {
		gradeAll(b, &metric.Env{Engine: eng, Timeout: time.Minute}, items, newTS(b, suite))
	}
	b.ReportMetric(float64(len(items)*b.N)/b.Elapsed().Seconds(), "items/s")
}
