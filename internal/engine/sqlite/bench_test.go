package sqlite_test

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"github.com/sqljudge/sqljudge/internal/engine/sqlite"
	"github.com/sqljudge/sqljudge/internal/shareddata"
	"github.com/sqljudge/sqljudge/internal/turn"
)

// BenchmarkQueryRows reads 50,000 rows of an integer, a text and a float
// through the engine's row loop (on Spider's concert_singer database).
func BenchmarkQueryRows(b *testing.B) {
	e := sqlite.New(shareddata.SubsetPath(b, "spider", "database"), sqlite.Options{})
	defer e.Close()
	const q = `WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 50000)
		SELECT x, 'singer ' || x, x * 0.5 FROM c`
	for b.Loop() {
		s, err := e.Query(context.Background(), "concert_singer", q)
		if err != nil || len(s.Rows) != 50000 {
			b.Fatalf("%v, %d rows", err, len(s.Rows))
		}
	}
}

// idleTurn is a turn.Turn that never gives its worker up and counts the
// calls of Yield: the cost of the progress handler alone.
type idleTurn struct{ yields *atomic.Int64 }

func (t idleTurn) Yield(ctx context.Context) error {
	t.yields.Add(1)
	return ctx.Err()
}
func (idleTurn) Idle(ctx context.Context, wait func() error) error { return wait() }
func (idleTurn) Used() time.Duration                               { return 0 }

// BenchmarkProgressHandler runs a query of 2 million steps of SQLite's
// virtual machine (a count over a recursive CTE) without a turn (eval)
// and with one (serve: SQLite's progress handler calls turn.Yield every
// 10,000 instructions): the cost of being preemptible, and the yield
// points a query meets (yields/op).
func BenchmarkProgressHandler(b *testing.B) {
	e := sqlite.New(shareddata.SubsetPath(b, "spider", "database"), sqlite.Options{})
	defer e.Close()
	const q = `WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 2000000) SELECT count(*) FROM c`
	var yields atomic.Int64
	for name, ctx := range map[string]context.Context{"eval": context.Background(), "serve": turn.With(context.Background(), idleTurn{&yields})} {
		b.Run(name, func(b *testing.B) {
			yields.Store(0)
			for b.Loop() {
				if _, err := e.Query(ctx, "concert_singer", q); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(yields.Load())/float64(b.N), "yields/op")
		})
	}
}
