package cli

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sqljudge/sqljudge/internal/agree"
	"github.com/sqljudge/sqljudge/internal/bench"
	"github.com/sqljudge/sqljudge/internal/llm/llmtest"
	"github.com/sqljudge/sqljudge/internal/shareddata"
)

// roseVecFromSpider writes a ROSE-VEC file of the first n Spider dev items
// with din_sql's predictions, labelled with the official evaluator's exec
// verdict and carrying its hardness as difficulty. It returns the file
// and the label by question.
func roseVecFromSpider(t *testing.T, n int) (string, map[string]bool) {
	spider := shareddata.SubsetPath(t, "spider")
	items, err := bench.Load(bench.Options{Gold: filepath.Join(spider, "dev.json"), Pred: filepath.Join(spider, "predictions", "din_sql.sql")})
	if err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(filepath.Join(spider, "oracle", "din_sql.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	type oracle struct {
		Hardness string `json:"hardness"`
		Exec     int    `json:"exec"`
	}
	var or []oracle
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var o oracle
		if err := json.Unmarshal(sc.Bytes(), &o); err != nil {
			t.Fatal(err)
		}
		or = append(or, o)
	}
	var recs []map[string]any
	truth := map[string]bool{}
	for i := range n {
		it := items[i]
		recs = append(recs, map[string]any{
			"question_id": 1000 + i, "db_id": it.DBID, "question": it.Question,
			"predicted_sql": it.Pred, "gold_sql": it.Gold[0], "evidence": "",
			"difficulty": or[i].Hardness, "label": or[i].Exec == 1,
		})
		truth[it.Question] = or[i].Exec == 1
	}
	b, _ := json.MarshalIndent(recs, "", "  ")
	p := filepath.Join(t.TempDir(), "rose-vec-spider.json")
	if err := os.WriteFile(p, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return p, truth
}

func question(user string) string {
	_, rest, _ := strings.Cut(user, "## Question\n")
	q, _, _ := strings.Cut(rest, "\n")
	return q
}

func sqljudge(t *testing.T, args ...string) (string, string, int) {
	t.Helper()
	var out, errb bytes.Buffer
	code := Main(args, strings.NewReader(""), &out, &errb)
	return out.String(), errb.String(), code
}

// TestEvalRoseVecThenAgree grades a ROSE-VEC file with ex and rose (against
// a scripted model that agrees with the official evaluator), then measures
// agreement with the file's labels, which are the official evaluator's
// verdicts: both metrics must agree perfectly, per difficulty too.
func TestEvalRoseVecThenAgree(t *testing.T) {
	rv, truth := roseVecFromSpider(t, 40)
	srv := llmtest.New(t, func(r *llmtest.Request) llmtest.Reply {
		ok := truth[question(r.User())]
		if strings.Contains(r.System(), "You are a **SQL Prover**") {
			return llmtest.Reply{Content: fmt.Sprintf(`{"expected_answer": "", "sql_description": "", "reason": "r", "verdict": %v, "evidence": ""}`, ok)}
		}
		return llmtest.Reply{Content: fmt.Sprintf(`{"judgement": "j", "verdict": %v, "ambiguity": "na", "gold_correct": true}`, !ok)}
	})
	db := shareddata.SubsetPath(t, "spider", "database")
	out := filepath.Join(t.TempDir(), "run")
	stdout, stderr, code := sqljudge(t, "eval", "--gold", rv, "--db", db, "--metrics", "ex,rose", "--out", out,
		"--llm-base-url", srv.BaseURL(), "--llm-model", "scripted", "--progress", "never")
	if code != 0 {
		t.Fatalf("eval exit %d: %s%s", code, stdout, stderr)
	}
	var sum struct {
		Run map[string]any `json:"run"`
	}
	b, _ := os.ReadFile(filepath.Join(out, "summary.json"))
	if err := json.Unmarshal(b, &sum); err != nil {
		t.Fatal(err)
	}
	u, _ := sum.Run["llm"].(map[string]any)
	if u == nil || u["calls"] != float64(srv.Requests()) || u["model"] != "scripted" || u["prompt_tokens"].(float64) <= 0 {
		t.Fatalf("summary llm usage %v (server got %d requests)", u, srv.Requests())
	}

	stdout, stderr, code = sqljudge(t, "agree", "--labels", rv, "--results", out, "--resamples", "200")
	if code != 0 {
		t.Fatalf("agree exit %d: %s%s", code, stdout, stderr)
	}
	first, _ := os.ReadFile(filepath.Join(out, agree.File))
	var doc struct {
		Matched   int `json:"matched"`
		Agreement map[string]struct {
			All struct {
				N     int `json:"n"`
				Kappa struct {
					Value *float64 `json:"value"`
				} `json:"kappa"`
				Confusion map[string]int `json:"confusion"`
			} `json:"all"`
			ByDifficulty map[string]json.RawMessage `json:"by_difficulty"`
		} `json:"agreement"`
	}
	if err := json.Unmarshal(first, &doc); err != nil {
		t.Fatal(err)
	}
	if doc.Matched != 40 {
		t.Fatalf("%d matched items, want 40", doc.Matched)
	}
	for _, m := range []string{"ex", "rose"} {
		a := doc.Agreement[m]
		if a.All.N != 40 || a.All.Kappa.Value == nil || *a.All.Kappa.Value != 1 || a.All.Confusion["fp"]+a.All.Confusion["fn"] != 0 {
			t.Errorf("%s: %+v; want perfect agreement with the official verdicts", m, a.All)
		}
		if len(a.ByDifficulty) < 3 {
			t.Errorf("%s: per-difficulty levels %v", m, a.ByDifficulty)
		}
	}
	if !strings.Contains(stdout, "kappa") || !strings.Contains(stdout, "1.000") {
		t.Errorf("table:\n%s", stdout)
	}
	// Deterministic for a seed.
	if _, _, code := sqljudge(t, "agree", "--labels", rv, "--results", out, "--resamples", "200"); code != 0 {
		t.Fatal("second agree failed")
	}
	again, _ := os.ReadFile(filepath.Join(out, agree.File))
	if !bytes.Equal(first, again) {
		t.Fatal("agree is not deterministic for a seed")
	}

	// JSONL labels, flipped: every metric now disagrees everywhere.
	var jl strings.Builder
	var recs []map[string]any
	raw, _ := os.ReadFile(rv)
	_ = json.Unmarshal(raw, &recs)
	for _, r := range recs {
		fmt.Fprintf(&jl, "{\"id\": %v, \"label\": %v}\n", r["question_id"], !r["label"].(bool))
	}
	lp := filepath.Join(t.TempDir(), "labels.jsonl")
	os.WriteFile(lp, []byte(jl.String()), 0o644)
	flipped := filepath.Join(t.TempDir(), "agree.json")
	if stdout, stderr, code := sqljudge(t, "agree", "--labels", lp, "--results", out, "--out", flipped, "--metrics", "ex"); code != 0 {
		t.Fatalf("agree on JSONL: %s%s", stdout, stderr)
	}
	b, _ = os.ReadFile(flipped)
	var fl struct {
		Agreement map[string]struct {
			All struct {
				Accuracy struct {
					Value *float64 `json:"value"`
				} `json:"accuracy"`
			} `json:"all"`
		} `json:"agreement"`
	}
	if err := json.Unmarshal(b, &fl); err != nil {
		t.Fatal(err)
	}
	if a := fl.Agreement["ex"].All.Accuracy.Value; a == nil || *a != 0 || len(fl.Agreement) != 1 {
		t.Errorf("flipped labels should give ex accuracy 0 (and only ex): %s", b)
	}
}

func TestAgreeErrors(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.jsonl")
	os.WriteFile(bad, []byte("{\"id\": 1, \"label\": true}\n{\"id\": 2, \"label\": \"maybe\"}\n"), 0o644)
	res := filepath.Join(dir, "out")
	os.MkdirAll(res, 0o755)
	os.WriteFile(filepath.Join(res, "results.jsonl"), []byte(`{"index":0,"id":"9","db_id":"x","difficulty":"","gold":"g","pred":"p","verdicts":{"ex":{"correct":true,"status":"ok"}}}`+"\n"), 0o644)
	_, stderr, code := sqljudge(t, "agree", "--labels", bad, "--results", res)
	if code != ExitUsage || !strings.Contains(stderr, "bad.jsonl:2") || !strings.Contains(stderr, "label") {
		t.Errorf("bad label: exit %d, %s", code, stderr)
	}
	good := filepath.Join(dir, "good.jsonl")
	os.WriteFile(good, []byte("{\"id\": 1, \"label\": true}\n"), 0o644)
	_, stderr, code = sqljudge(t, "agree", "--labels", good, "--results", res)
	if code != ExitUsage || !strings.Contains(stderr, "ids do not match") {
		t.Errorf("no match: exit %d, %s", code, stderr)
	}
	_, stderr, code = sqljudge(t, "agree", "--results", res)
	if code != ExitUsage || !strings.Contains(stderr, "--labels is required") {
		t.Errorf("no labels: exit %d, %s", code, stderr)
	}
}
