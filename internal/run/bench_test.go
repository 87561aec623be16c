package run_test

import (
	"context"
	"path/filepath"
	"runtime"
	"testing"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/sqljudge/sqljudge/internal/bench"
	"github.com/sqljudge/sqljudge/internal/engine/sqlite"
	"github.com/sqljudge/sqljudge/internal/metric"
	"github.com/sqljudge/sqljudge/internal/run"
	"github.com/sqljudge/sqljudge/internal/shareddata"
)

// BenchmarkSpiderDevEX grades Spider dev (1034 items, DIN-SQL's
// predictions) with ex through the whole runner: worker pool, gold cache
// (fresh each iteration), comparison, records written to disk.
func BenchmarkSpiderDevEX(b *testing.B) {
	items, db := fullSpiderItems(b, "din_sql")
	eng := sqlite.New(db, sqlite.Options{})
	defer eng.Close()
	ms, _ := metric.New([]string{"ex"}, metric.Options{})
	b.ResetTimer()
	for range b.N {
		r := &run.Runner{
			Env:     &metric.Env{Engine: eng, Timeout: 60 * time.Second},
			Metrics: ms,
			Opts:    run.Options{OutDir: b.TempDir(), Workers: runtime.NumCPU()},
		}
		if _, err := r.Run(context.Background(), items); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(len(items)*b.N)/b.Elapsed().Seconds(), "items/s")
}

// BenchmarkSpiderDevRawExecution only executes the same 2068 queries (each
// item's gold and prediction, as ex runs them) on the same engine with the
// same number of workers: no cache, no comparison, no records. It is the
// floor BenchmarkSpiderDevEX is measured against.
func BenchmarkSpiderDevRawExecution(b *testing.B) {
	items, db := fullSpiderItems(b, "din_sql")
	eng := sqlite.New(db, sqlite.Options{})
	defer eng.Close()
	ex := &metric.EX{}
	type q struct{ db, sql string }
	var qs []q
	for _, it := range items {
		p, g, _ := ex.Prepare(it.Pred, it.Gold[0])
		qs = append(qs, q{it.DBID, g}, q{it.DBID, p})
	}
	b.ResetTimer()
	for range b.N {
		var g errgroup.Group
		g.SetLimit(runtime.NumCPU())
		for _, x := range qs {
			g.Go(func() error {
				ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
				defer cancel()
				_, _ = eng.Query(ctx, x.db, x.sql)
				return nil
			})
		}
		_ = g.Wait()
	}
	b.ReportMetric(float64(len(qs)*b.N)/b.Elapsed().Seconds(), "queries/s")
}

// fullSpiderItems loads all of Spider dev (1034 items) with one system's
// predictions from the full data (shareddata.Path): a benchmark measured on
// the committed subset would report a figure for 179 items.
func fullSpiderItems(b *testing.B, system string) ([]bench.Item, string) {
	b.Helper()
	spider := shareddata.Path(b, "spider")
	items, err := bench.Load(bench.Options{
		Gold: filepath.Join(spider, "dev_gold.sql"),
		Pred: filepath.Join(spider, "predictions", system+".sql"),
	})
	if err != nil {
		b.Fatal(err)
	}
	return items, filepath.Join(spider, "database")
}
