package metric_test

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
	"github.com/sqljudge/sqljudge/internal/shareddata"
)

var systems = shareddata.Systems

// TestEXParityWithOfficialEvaluator asserts that the ex verdict of every
// Spider dev item equals the official evaluator's exec, for each of the four
// published prediction files: on the committed subset (179 items), and on
// all 1034 items when the full data is available.
func TestEXParityWithOfficialEvaluator(t *testing.T) {
	for _, set := range shareddata.Sets(t) {
		t.Run(set.Name, func(t *testing.T) { exParity(t, set) })
	}
}

func exParity(t *testing.T, set shareddata.Set) {
	spider := filepath.Join(set.Dir, "spider")
	eng := sqlite.New(filepath.Join(spider, "database"), sqlite.Options{})
	defer eng.Close()
	env := &metric.Env{Engine: eng, Timeout: 60 * time.Second}
	ex := &metric.EX{}
	for _, sys := range systems {
		t.Run(sys, func(t *testing.T) {
			items, err := bench.Load(bench.Options{
				Gold: filepath.Join(spider, "dev_gold.sql"),
				Pred: filepath.Join(spider, "predictions", sys+".sql"),
			})
			if err != nil {
				t.Fatal(err)
			}
			oracle := shareddata.OracleIn(t, set.Dir, sys)
			if len(items) != set.Items || len(oracle) != set.Items {
				t.Fatalf("%d items, %d oracle records; want %d", len(items), len(oracle), set.Items)
			}
			got := gradeAll(ex, env, items)
			agree, correct := 0, 0
			for i, o := range oracle {
				if o.I != i || o.DBID != items[i].DBID {
					t.Fatalf("oracle record %d is item %d on %s; gold item is on %s", i, o.I, o.DBID, items[i].DBID)
				}
				if got[i].Correct {
					correct++
				}
				if got[i].Correct == (o.Exec == 1) {
					agree++
					continue
				}
				t.Errorf("item %d (%s): ex correct=%v status=%s %s; official exec=%d\n  gold: %s\n  pred: %s",
					i, o.DBID, got[i].Correct, got[i].Status, got[i].Detail, o.Exec, items[i].Gold[0], items[i].Pred)
			}
			t.Logf("%s: %d/%d agree with the official exec; EX = %.4f", sys, agree, set.Items, float64(correct)/float64(set.Items))
		})
	}
}

// gradeAll grades every item with m on env, NumCPU items at a time, and
// returns the verdicts in item order.
func gradeAll(m metric.Metric, env *metric.Env, items []bench.Item) []metric.Verdict {
	got := make([]metric.Verdict, len(items))
	var g errgroup.Group
	g.SetLimit(runtime.NumCPU())
	for i := range items {
		g.Go(func() error {
			got[i] = m.Grade(context.Background(), env.NewExec(), &items[i])
			return nil
		})
	}
	_ = g.Wait()
	return got
}
