package metric_test

import (
	"bufio"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/sqljudge/sqljudge/internal/bench"
	"github.com/sqljudge/sqljudge/internal/engine/sqlite"
	"github.com/sqljudge/sqljudge/internal/metric"
	"github.com/sqljudge/sqljudge/internal/shareddata"
	"github.com/sqljudge/sqljudge/internal/status"
)

// TestSpider2ParityWithOfficial grades the fixture in testdata/spider2
// (extra and reordered columns, row order, the 1e-2 tolerance, duplicate
// rows, several golds, condition_cols in each official reading, nulls, CSV
// typing, 500-row chunks, a failing prediction) and asserts every verdict
// equals the official evaluate_single_sql_instance's score
// (testdata/oracle/spider2.jsonl, written by spider2.py with pandas 1.5.3),
// for both gold layouts: the official spider2lite_eval.jsonl with
// exec_result/, and sqljudge's JSONL.
func TestSpider2ParityWithOfficial(t *testing.T) {
	spider := shareddata.SubsetPath(t, "spider")
	eng := sqlite.New(filepath.Join(spider, "database"), sqlite.Options{})
	defer eng.Close()
	env := &metric.Env{Engine: eng, Timeout: 30 * time.Second}
	oracle := map[string]int{}
	f, err := os.Open(filepath.Join("testdata", "oracle", "spider2.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var r struct {
			InstanceID string `json:"instance_id"`
			Score      int    `json:"score"`
		}
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			t.Fatal(err)
		}
		oracle[r.InstanceID] = r.Score
	}
	dir := filepath.Join("testdata", "spider2")
	for _, gold := range []string{"spider2lite_eval.jsonl", "gold.jsonl"} {
		t.Run(gold, func(t *testing.T) {
			p := filepath.Join(dir, gold)
			if f, err := bench.Detect(p); err != nil || f != bench.FormatSpider2 {
				t.Fatalf("Detect(%s) = %q, %v; want spider2", p, f, err)
			}
			items, err := bench.Load(bench.Options{Gold: p, Pred: filepath.Join(dir, "predictions.jsonl")})
			if err != nil {
				t.Fatal(err)
			}
			if len(items) != len(oracle) || len(items) < 25 {
				t.Fatalf("%d items, %d oracle verdicts", len(items), len(oracle))
			}
			m := &metric.Spider2{}
			right := 0
			for i := range items {
				it := &items[i]
				v := m.Grade(context.Background(), env.NewExec(), it)
				want, ok := oracle[it.ID]
				if !ok {
					t.Fatalf("no oracle verdict for %s", it.ID)
				}
				sd, _ := v.Details.(metric.ScoreDetails)
				score := sd.Score
				if v.Correct != (want == 1) || score != float64(want) {
					t.Errorf("%s (%s): spider2 correct=%v score=%v status=%s %s; official score %d",
						it.ID, it.Question, v.Correct, score, v.Status, v.Detail, want)
				}
				if want == 1 {
					right++
				}
				if it.ID == "local018" && v.Status != status.PredError {
					t.Errorf("a failing prediction: status %s, want pred_error", v.Status)
				}
			}
			if right == 0 || right == len(items) {
				t.Errorf("the fixture should hold both verdicts; %d of %d right", right, len(items))
			}
		})
	}
}
