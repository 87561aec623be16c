package bench_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sqljudge/sqljudge/internal/bench"
)

func TestSpider2Layouts(t *testing.T) {
	dir := t.TempDir()
	res := filepath.Join(dir, "exec_result")
	if err := os.MkdirAll(res, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, n := range []string{"local1.csv", "local2_a.csv", "local2_b.csv", "local22_a.csv"} {
		if err := os.WriteFile(filepath.Join(res, n), []byte("a\n1\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	mk := func(name, s string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	official := mk("spider2lite_eval.jsonl", `{"instance_id": "local1", "condition_cols": [0], "ignore_order": true}
{"instance_id": "bq001", "condition_cols": [], "ignore_order": true}
{"instance_id": "local2", "condition_cols": [[0], [0]], "ignore_order": false}
`)
	mk("spider2-lite.jsonl", `{"instance_id": "local1", "db": "concert_singer"}
{"instance_id": "local2", "db": "pets_1"}
`)
	items, err := bench.LoadGold(official, bench.FormatAuto)
	if err != nil {
		t.Fatal(err)
	}
	if len(items) != 2 {
		t.Fatalf("%d items; want the 2 local instances", len(items))
	}
	a, b := items[0], items[1]
	if a.ID != "local1" || a.DBID != "concert_singer" || a.GoldResultsMulti || len(a.GoldResults) != 1 || !a.IgnoreOrder {
		t.Errorf("local1: %+v", a)
	}
	// resolve_gold_paths: local2_a, local2_b, not local22_a.
	if b.DBID != "pets_1" || !b.GoldResultsMulti || len(b.GoldResults) != 2 || b.GoldText != "exec_result/local2_a.csv;exec_result/local2_b.csv" || b.IgnoreOrder {
		t.Errorf("local2: %+v", b)
	}
	// Predictions as the official --result_dir: <id>.sql files.
	preds := filepath.Join(dir, "pred")
	os.MkdirAll(preds, 0o755)
	os.WriteFile(filepath.Join(preds, "local1.sql"), []byte("```sql\nSELECT 1\n```"), 0o644)
	os.WriteFile(filepath.Join(preds, "local2.sql"), []byte("SELECT 2"), 0o644)
	os.WriteFile(filepath.Join(preds, "notes.txt"), []byte("not a prediction"), 0o644)
	paired, err := bench.Load(bench.Options{Gold: official, Pred: preds})
	if err != nil {
		t.Fatal(err)
	}
	if paired[0].Pred != "```sql\nSELECT 1\n```" || paired[1].Pred != "SELECT 2" {
		t.Errorf("predictions from a folder: %q, %q", paired[0].Pred, paired[1].Pred)
	}
	os.WriteFile(filepath.Join(preds, "local9.sql"), []byte("SELECT 9"), 0o644)
	if _, err := bench.Load(bench.Options{Gold: official, Pred: preds}); err == nil || !strings.Contains(err.Error(), "local9.sql: prediction for id \"local9\" has no gold item") {
		t.Errorf("an extra prediction file: %v", err)
	}
	bad := []struct{ name, content, want string }{
		{"missing.jsonl", `{"id": "x", "db_id": "d", "gold_result": "exec_result/nope.csv"}`, "missing.jsonl:1: gold result"},
		{"nodb.jsonl", `{"id": "x", "gold_result": ["exec_result/local1.csv"]}`, "nodb.jsonl:1: missing \"db_id\""},
		{"shape.jsonl", `{"id": "x", "db_id": "d", "gold_result": 3}`, "shape.jsonl:1: \"gold_result\" must be"},
	}
	for _, c := range bad {
		_, err := bench.LoadGold(mk(c.name, c.content), bench.FormatSpider2)
		if err == nil || !strings.Contains(err.Error(), c.want) || !errors.Is(err, bench.ErrFormat) {
			t.Errorf("%s: error %v; want %q", c.name, err, c.want)
		}
	}
}

// TestSpider2GoldListOfOne is issue 21.11: a "gold_result" list of one
// CSV is one gold file, graded by the single-gold rule as the official
// evaluator grades one gold file; a list of two is several golds.
func TestSpider2GoldListOfOne(t *testing.T) {
	dir := t.TempDir()
	os.MkdirAll(filepath.Join(dir, "g"), 0o755)
	for _, n := range []string{"a.csv", "b.csv"} {
		os.WriteFile(filepath.Join(dir, "g", n), []byte("x\n1\n"), 0o644)
	}
	p := filepath.Join(dir, "gold.jsonl")
	os.WriteFile(p, []byte(`{"id": "1", "db_id": "d", "gold_result": ["g/a.csv"], "condition_cols": [0]}
{"id": "2", "db_id": "d", "gold_result": ["g/a.csv", "g/b.csv"], "condition_cols": [0]}
{"id": "3", "db_id": "d", "gold_result": "g/a.csv"}
`), 0o644)
	items, err := bench.LoadGold(p, bench.FormatSpider2)
	if err != nil {
		t.Fatal(err)
	}
	for i, multi := range []bool{false, true, false} {
		if items[i].GoldResultsMulti != multi {
			t.Errorf("item %s (%d gold files): GoldResultsMulti %v, want %v", items[i].ID, len(items[i].GoldResults), items[i].GoldResultsMulti, multi)
		}
	}
}
