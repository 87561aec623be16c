package metric_test

import (
	"context"
	"math"
	"path/filepath"
	"testing"
	"time"

	"github.com/sqljudge/sqljudge/internal/bench"
	"github.com/sqljudge/sqljudge/internal/engine/sqlite"
	"github.com/sqljudge/sqljudge/internal/metric"
	"github.com/sqljudge/sqljudge/internal/shareddata"
	"github.com/sqljudge/sqljudge/internal/status"
)

// slowCount returns the singer count after counting a recursive series of
// n rows: the same result as fastCount, about n times the work.
func slowCount(n string) string {
	return "SELECT count(*) FROM singer WHERE (SELECT count(*) FROM (WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x+1 FROM c WHERE x < " + n + ") SELECT x FROM c)) > 0"
}

const fastCount = "SELECT count(*) FROM singer"

// TestRVESBins checks rves and ves on clear cases on a Spider database: a
// prediction about a thousand times slower than its gold gets the lowest
// reward (0.25), one a thousand times faster the highest (1.25), a wrong
// or failing one 0. ves and rves share one timing per item. (That a
// prediction as fast as its gold gets r about 1 is a timing figure,
// measured by BenchmarkVESStability, not asserted here.)
func TestRVESBins(t *testing.T) {
	spider := shareddata.SubsetPath(t, "spider")
	eng := sqlite.New(filepath.Join(spider, "database"), sqlite.Options{})
	defer eng.Close()
	env := &metric.Env{Engine: eng, Timeout: 30 * time.Second}
	rves, ves := &metric.RVES{Repeats: 3}, &metric.VES{Repeats: 3}
	cases := []struct {
		name, gold, pred string
		reward           float64
		status           status.Status
	}{
		{"10x slower", fastCount, slowCount("500000"), 0.25, status.OK},
		{"10x faster", slowCount("500000"), fastCount, 1.25, status.OK},
		{"wrong rows", fastCount, "SELECT count(*) + 1 FROM singer", 0, status.OK},
		{"failing", fastCount, "SELECT count(*) FROM singers", 0, status.PredError},
	}
	for _, c := range cases {
		it := &bench.Item{DBID: "concert_singer", Gold: []string{c.gold}, Pred: c.pred}
		x := env.NewExec()
		r := rves.Grade(context.Background(), x, it)
		v := ves.Grade(context.Background(), x, it)
		ratio := r.Details.(metric.RVESDetails).Ratio
		if r.Status != c.status || v.Status != c.status {
			t.Errorf("%s: status rves %s ves %s, want %s (%s)", c.name, r.Status, v.Status, c.status, r.Detail)
		}
		if v.Details.(metric.VESDetails).Ratio != ratio {
			t.Errorf("%s: ves ratio %v, rves ratio %v: one timing should serve both", c.name, v.Details.(metric.VESDetails).Ratio, ratio)
		}
		if got := v.Details.(metric.VESDetails).Score; got != math.Sqrt(ratio) {
			t.Errorf("%s: ves score %v, want sqrt(%v)", c.name, got, ratio)
		}
		rw := r.Details.(metric.RVESDetails).Reward
		if r.Details.(metric.RVESDetails).Score != math.Sqrt(rw) || rw != metric.RVESReward(ratio) {
			t.Errorf("%s: rves score %v reward %v for ratio %v", c.name, r.Details.(metric.RVESDetails).Score, rw, ratio)
		}
		if rw != c.reward {
			t.Errorf("%s: reward %v (ratio %.4g), want %v", c.name, rw, ratio, c.reward)
		}
		if r.Correct != (c.reward != 0) {
			t.Errorf("%s: correct %v", c.name, r.Correct)
		}
		t.Logf("%s: ratio %.4g, reward %v, ves score %.4g", c.name, ratio, rw, v.Details.(metric.VESDetails).Score)
	}
}

func TestRVESRewardBins(t *testing.T) {
	for _, c := range []struct{ r, want float64 }{
		{0, 0}, {0.01, 0.25}, {0.25, 0.5}, {0.49, 0.5}, {0.5, 0.75}, {0.99, 0.75}, {1, 1}, {1.99, 1}, {2, 1.25}, {40, 1.25},
	} {
		if got := metric.RVESReward(c.r); got != c.want {
			t.Errorf("RVESReward(%v) = %v, want %v", c.r, got, c.want)
		}
	}
}

// BenchmarkVESStability grades the first 200 Spider dev items (DIN-SQL's
// predictions) with ves and rves twice, 100 timed runs per query as
// mini-dev, and reports both runs' VES and R-VES, their relative
// difference (the issue asks for agreement within 5%), and the mean ratio
// r of the items whose prediction is correct (about 1 when those run as
// fast as the gold):
//
//	go test ./internal/metric -run '^$' -bench VESStability -benchtime 1x
func BenchmarkVESStability(b *testing.B) {
	spider := shareddata.SubsetPath(b, "spider")
	eng := sqlite.New(filepath.Join(spider, "database"), sqlite.Options{})
	defer eng.Close()
	items, err := bench.Load(bench.Options{
		Gold: filepath.Join(spider, "dev_gold.sql"),
		Pred: filepath.Join(spider, "predictions", "din_sql.sql"),
	})
	if err != nil {
		b.Fatal(err)
	}
	items = items[:200]
	var ratio float64
	var correct int
	run := func() (ves, rves float64) {
		env := &metric.Env{Engine: eng, Timeout: 30 * time.Second}
		mv, mr := &metric.VES{Repeats: 100}, &metric.RVES{Repeats: 100}
		for i := range items {
			x := env.NewExec()
			v := mv.Grade(context.Background(), x, &items[i])
			ves += v.Details.(metric.VESDetails).Score
			rves += mr.Grade(context.Background(), x, &items[i]).Details.(metric.RVESDetails).Score
			if v.Correct {
				ratio += v.Details.(metric.VESDetails).Ratio
				correct++
			}
		}
		n := float64(len(items))
		return 100 * ves / n, 100 * rves / n
	}
	for b.Loop() {
		v1, r1 := run()
		v2, r2 := run()
		b.ReportMetric(ratio/float64(correct), "r_correct")
		b.ReportMetric(v1, "VES1")
		b.ReportMetric(v2, "VES2")
		b.ReportMetric(100*math.Abs(v1-v2)/max(v1, v2), "VES_diff_%")
		b.ReportMetric(r1, "RVES1")
		b.ReportMetric(r2, "RVES2")
		b.ReportMetric(100*math.Abs(r1-r2)/max(r1, r2), "RVES_diff_%")
	}
}
