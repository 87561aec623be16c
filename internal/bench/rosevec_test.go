package bench_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sqljudge/sqljudge/internal/bench"
	"github.com/sqljudge/sqljudge/internal/shareddata"
)

// Spider's dev.json holds a parsed "sql" object beside "query";
// encoding/json's case-insensitive keys once sent it into BIRD's "SQL".
func TestSpiderDevJSONLoadsWithQuestions(t *testing.T) {
	spider := shareddata.Path(t, "spider")
	items, err := bench.Load(bench.Options{Gold: filepath.Join(spider, "dev.json"), Pred: filepath.Join(spider, "predictions", "resdsql.sql")})
	if err != nil {
		t.Fatal(err)
	}
	if len(items) != 1034 || items[0].Question != "How many singers do we have?" || items[0].Gold[0] != "SELECT count(*) FROM singer" {
		t.Fatalf("%d items; first %+v", len(items), items[0])
	}
}

func write(t *testing.T, name, s string) string {
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestRoseVecAndLabels(t *testing.T) {
	p := write(t, "rv.json", `[
  {"question_id": 43, "db_id": "concert_singer", "question": "How many singers?",
   "predicted_sql": "SELECT count(*) FROM singer", "gold_sql": "SELECT count(*) FROM singer", "label": true},
  {"question_id": 47, "db_id": "concert_singer", "question": "Names?",
   "predicted_sql": "SELECT name FROM stadium", "gold_sql": "SELECT name FROM singer", "evidence": "hint", "label": "false"}
]`)
	if f, err := bench.Detect(p); err != nil || f != bench.FormatRoseVec {
		t.Fatalf("Detect = %q, %v", f, err)
	}
	items, err := bench.Load(bench.Options{Gold: p})
	if err != nil {
		t.Fatal(err)
	}
	if len(items) != 2 || items[1].ID != "47" || items[1].Pred != "SELECT name FROM stadium" || items[1].Gold[0] != "SELECT name FROM singer" || items[1].Evidence != "hint" {
		t.Fatalf("items %+v", items)
	}
	labels, err := bench.ReadLabels(p)
	if err != nil {
		t.Fatal(err)
	}
	if !labels["43"].Correct || labels["47"].Correct || labels["47"].Pos.Line != 4 {
		t.Fatalf("labels %+v", labels)
	}
	jl := write(t, "l.jsonl", "{\"id\": \"a\", \"label\": 1}\n\n{\"id\": \"b\", \"label\": false}\n")
	labels, err = bench.ReadLabels(jl)
	if err != nil || !labels["a"].Correct || labels["b"].Correct || len(labels) != 2 {
		t.Fatalf("jsonl labels %+v, %v", labels, err)
	}
}

func TestRoseVecErrors(t *testing.T) {
	for _, tc := range []struct{ name, content, want string }{
		{"no prediction", `[{"question_id": 1, "db_id": "d", "gold_sql": "SELECT 1", "predicted_sql": null}]`, "no \"predicted_sql\""},
		{"duplicate id", "[{\"question_id\": 1, \"db_id\": \"d\", \"gold_sql\": \"a\", \"predicted_sql\": \"b\"},\n{\"question_id\": 1, \"db_id\": \"d\", \"gold_sql\": \"a\", \"predicted_sql\": \"b\"}]", "rv.json:2: duplicate question_id 1"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := bench.Load(bench.Options{Gold: write(t, "rv.json", tc.content), Format: bench.FormatRoseVec})
			if !errors.Is(err, bench.ErrFormat) || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err %v, want %q", err, tc.want)
			}
		})
	}
	for _, tc := range []struct{ name, content, want string }{
		{"bad label", "{\"id\": 1, \"label\": true}\n{\"id\": 2, \"label\": \"maybe\"}\n", "l.jsonl:2: id 2: \"label\" must be true or false"},
		{"missing label", "{\"id\": 1}\n", "l.jsonl:1: id 1: \"label\" must be"},
		{"duplicate", "{\"id\": 1, \"label\": true}\n{\"id\": 1, \"label\": false}\n", "l.jsonl:2: duplicate id 1"},
		{"not json", "{\"id\": 1, \n", "l.jsonl:1: expected a JSON object"},
		{"empty", "\n", "no labels"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := bench.ReadLabels(write(t, "l.jsonl", tc.content))
			if !errors.Is(err, bench.ErrFormat) || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err %v, want %q", err, tc.want)
			}
		})
	}
}
