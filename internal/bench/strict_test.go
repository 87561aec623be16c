package bench

import (
	"strings"
	"testing"
)

// TestStrictJSONInputs checks each JSON reader of gold, prediction and
// label files against what encoding/json took silently: a key in another
// case (taken for the field), a key given twice (the last kept), invalid
// UTF-8 (replaced, changing ids), and a BOM at the start (refused as
// "invalid character 'ï'"; now skipped).
func TestStrictJSONInputs(t *testing.T) {
	const jl = `{"id": "a", "db_id": "x", "gold": "SELECT 1", "pred": "p"}` + "\n"
	const dev = `[
  {"question_id": 5, "db_id": "a", "question": "q5", "SQL": "SELECT 5"},
  ` // followed by a second object
	const rv = `[
  {"question_id": 1, "db_id": "d", "gold_sql": "a", "predicted_sql": "b"},
  `
	for _, c := range []struct {
		name, file, content string
		format              Format
		line                int
		want                string
	}{
		{"jsonl key case", "b.jsonl", jl + `{"id": "b", "db_id": "x", "gold": "SELECT 1", "Pred": "q"}`, FormatJSONL, 2, `unknown key "Pred" (keys are case-sensitive: expected "pred")`},
		{"jsonl key twice", "b.jsonl", jl + `{"id": "b", "db_id": "x", "gold": "SELECT 1", "pred": "q", "pred": "r"}`, FormatJSONL, 2, `key "pred" given twice`},
		{"jsonl invalid UTF-8", "b.jsonl", jl + "{\"id\": \"b\xe9\", \"db_id\": \"x\", \"gold\": \"SELECT 1\", \"pred\": \"q\"}", FormatJSONL, 2, `invalid UTF-8 in a string in "id"`},
		{"jsonl long line", "b.jsonl", jl + `{"id": "b", "gold": "` + strings.Repeat("x", 64<<20) + `"}`, FormatJSONL, 2, "line longer than 64 MiB"},
		{"dev.json key twice", "dev.json", dev + `{"question_id": 6, "db_id": "a", "db_id": "b", "SQL": "SELECT 6"}]`, FormatBird, 3, `key "db_id" given twice`},
		{"dev.json invalid UTF-8", "dev.json", dev + "{\"question_id\": 6, \"db_id\": \"a\xe9\", \"SQL\": \"SELECT 6\"}]", FormatBird, 3, `invalid UTF-8 in a string in "[1].db_id"`},
		{"rose-vec key case", "rv.json", rv + `{"question_id": 2, "DB_ID": "d", "gold_sql": "a", "predicted_sql": "b"}]`, FormatRoseVec, 3, `unknown key "DB_ID"`},
		{"spider2 key twice", "s.jsonl", `{"id": "local1", "id": "local2", "db_id": "x", "gold_result": "a.csv"}`, FormatSpider2, 1, `key "id" given twice`},
	} {
		t.Run(c.name, func(t *testing.T) {
			p := write(t, c.file, c.content)
			_, err := LoadGold(p, c.format)
			wantInputError(t, err, p, c.line, c.want)
		})
	}
	gold := write(t, "b.jsonl", jl+`{"id": "b", "db_id": "x", "gold": "SELECT 1"}`+"\n")
	for _, c := range []struct {
		name, file, content string
		line                int
		want                string
	}{
		{"preds key case", "p.jsonl", `{"id": "a", "pred": "p"}` + "\n" + `{"id": "b", "Pred": "q"}`, 2, `unknown key "Pred"`},
		{"preds key twice", "p.jsonl", `{"id": "a", "pred": "p"}` + "\n" + `{"id": "b", "pred": "q", "pred": "r"}`, 2, `key "pred" given twice`},
		{"bird preds invalid UTF-8", "predict_dev.json", "{\"a\": \"p\",\n \"b\xe9\": \"q\"}", 2, "invalid UTF-8"},
	} {
		t.Run(c.name, func(t *testing.T) {
			p := write(t, c.file, c.content)
			_, err := Load(Options{Gold: gold, Pred: p})
			wantInputError(t, err, p, c.line, c.want)
		})
	}
	// A BOM at the start of a file is skipped.
	for name, content := range map[string]string{
		"b.jsonl":  jl,
		"dev.json": `[{"question_id": 5, "db_id": "a", "question": "q5", "SQL": "SELECT 5"}]`,
		"rv.json":  `[{"question_id": 1, "db_id": "d", "gold_sql": "a", "predicted_sql": "b"}]`,
	} {
		items, err := LoadGold(write(t, name, "\ufeff"+content), FormatAuto)
		if err != nil || len(items) != 1 {
			t.Errorf("%s with a BOM: %v, %d items", name, err, len(items))
		}
	}
	for name, content := range map[string]string{
		"p.jsonl":          `{"id": "a", "pred": "PA"}` + "\n" + `{"id": "b", "pred": "PB"}`,
		"predict_dev.json": `{"a": "PA", "b": "PB"}`,
	} {
		items, err := Load(Options{Gold: gold, Pred: write(t, name, "\ufeff"+content)})
		if err != nil || items[0].Pred != "PA" || items[1].Pred != "PB" {
			t.Errorf("%s with a BOM: %v", name, err)
		}
	}
}
