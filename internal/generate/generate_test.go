package generate_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/sqljudge/sqljudge/internal/bench"
	"github.com/sqljudge/sqljudge/internal/dbload"
	"github.com/sqljudge/sqljudge/internal/engine/sqlite"
	"github.com/sqljudge/sqljudge/internal/generate"
	"github.com/sqljudge/sqljudge/internal/llm"
	"github.com/sqljudge/sqljudge/internal/llm/llmtest"
	"github.com/sqljudge/sqljudge/internal/shareddata"
)

// spiderQuestions returns every stride-th question of Spider dev.json, from
// several databases.
func spiderQuestions(t testing.TB, stride int) ([]bench.Item, string) {
	t.Helper()
	spider := shareddata.Path(t, "spider")
	all, err := bench.LoadGold(filepath.Join(spider, "dev.json"), bench.FormatSpiderJSON)
	if err != nil {
		t.Fatal(err)
	}
	var items []bench.Item
	for i := 0; i < len(all); i += stride {
		items = append(items, all[i])
	}
	return items, filepath.Join(spider, "database")
}

func goldByID(items []bench.Item) map[string]string {
	m := map[string]string{}
	for _, it := range items {
		m[it.ID] = it.Gold[0]
	}
	return m
}

func options(t testing.TB, srv *llmtest.Server, items []bench.Item, dbDir, method, config string) generate.Options {
	t.Helper()
	eng := sqlite.New(dbDir, sqlite.Options{})
	t.Cleanup(func() { eng.Close() })
	o := generate.Options{
		Items: items, Engine: eng, Out: filepath.Join(t.TempDir(), "out"), Method: method,
		LLM: llm.Config{BaseURL: srv.BaseURL(), Model: "scripted-1"}, Seed: 1,
		Metrics: []string{"ex"},
	}
	if method == generate.MethodChess {
		c, err := generate.LookupConfig(config)
		if err != nil {
			t.Fatal(err)
		}
		o.Config = c
	}
	return o
}

func readLedger(t testing.TB, out string) []generate.Record {
	t.Helper()
	m, err := generate.ReadLedger(filepath.Join(out, generate.LedgerFile))
	if err != nil {
		t.Fatal(err)
	}
	idx := make([]int, 0, len(m))
	for i := range m {
		idx = append(idx, i)
	}
	sort.Ints(idx)
	recs := make([]generate.Record, len(idx))
	for k, i := range idx {
		recs[k] = m[i]
	}
	return recs
}

func TestDirectEndToEnd(t *testing.T) {
	items, dbDir := spiderQuestions(t, 97)
	gold := goldByID(items)
	srv := llmtest.New(t, func(r *llmtest.Request) llmtest.Reply {
		if r.Header.Get(generate.HeaderStep) != "direct" {
			return llmtest.Reply{Status: 400}
		}
		return llmtest.Reply{Content: "Here it is:\n```sql\n" + gold[r.Header.Get(generate.HeaderItem)] + ";\n```\n"}
	})
	o := options(t, srv, items, dbDir, generate.MethodDirect, "")
	sum, err := generate.Run(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	if srv.Requests() != len(items) {
		t.Fatalf("%d requests for %d questions", srv.Requests(), len(items))
	}
	for _, r := range srv.Log() {
		if !strings.Contains(r.User(), "CREATE TABLE") || r.Header.Get(generate.HeaderItem) == "" {
			t.Fatalf("direct prompt without schema or item header: %v", r.Header)
		}
	}
	if got := sum.Eval.Overall["ex"].Accuracy; got != 1 {
		t.Fatalf("ex %.3f, want 1: every prediction is the gold", got)
	}
	preds, _ := os.ReadFile(filepath.Join(o.Out, generate.PredictionsFile))
	lines := strings.Split(strings.TrimSuffix(string(preds), "\n"), "\n")
	for i, it := range items {
		if lines[i] != strings.TrimSuffix(strings.TrimSpace(it.Gold[0]), ";") {
			t.Fatalf("line %d: %q, want the gold %q", i+1, lines[i], it.Gold[0])
		}
	}
	recs := readLedger(t, o.Out)
	if len(recs) != len(items) || recs[0].Steps[0].Name != "direct" || recs[0].Calls != 1 || recs[0].PromptTokens == 0 {
		t.Fatalf("ledger %+v", recs[0])
	}

	// resume: nothing left to do; overwrite: every reply from the cache
	o.Resume = true
	sum, err = generate.Run(context.Background(), o)
	if err != nil || sum.Generated != 0 || sum.Resumed != len(items) {
		t.Fatalf("resume: %+v %v", sum, err)
	}
	o.Resume, o.Overwrite = false, true
	sum, err = generate.Run(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	if srv.Requests() != len(items) || sum.HTTP.Requests != 0 || sum.HTTP.CacheHits != int64(len(items)) {
		t.Fatalf("re-run made %d requests (%+v), want none", srv.Requests()-len(items), sum.HTTP)
	}
	o.Overwrite = false
	if _, err := generate.Run(context.Background(), o); err == nil {
		t.Fatal("a second run into the same folder without --resume or --overwrite must fail")
	}

	// A run killed mid-write: the ledger keeps one whole record and half
	// of the next; --resume drops the torn line, generates the rest (from
	// the cache) and leaves a ledger of whole records in question order.
	path := filepath.Join(o.Out, generate.LedgerFile)
	whole, _ := os.ReadFile(path)
	first := strings.IndexByte(string(whole), '\n') + 1
	if err := os.WriteFile(path, whole[:first+20], 0o644); err != nil {
		t.Fatal(err)
	}
	o.Resume = true
	sum, err = generate.Run(context.Background(), o)
	if err != nil || sum.Resumed != 1 || sum.Generated != len(items)-1 {
		t.Fatalf("resume after a torn ledger: %+v %v", sum, err)
	}
	again, _ := os.ReadFile(path)
	lines = strings.Split(strings.TrimSuffix(string(again), "\n"), "\n")
	recs = readLedger(t, o.Out)
	if len(lines) != len(items) || len(recs) != len(items) {
		t.Fatalf("ledger after resuming a torn one: %d lines, %d records, want %d", len(lines), len(recs), len(items))
	}
	for i, r := range recs {
		if r.ID != items[i].ID || !strings.HasPrefix(lines[i], fmt.Sprintf(`{"index":%d,`, items[i].Index)) {
			t.Fatalf("ledger line %d is item %s, want %s in question order", i+1, r.ID, items[i].ID)
		}
	}
}

var candidateRE = regexp.MustCompile(`(?m)^Candidate Response #(\d+): Query: (.*)$`)

const wrongSQL = "SELECT 'wrong answer'"

// chessScript answers every CHESS step for questions whose gold it knows:
// template one proposes the gold, template two a failing query (sample 0,
// revised into a wrong one) and the wrong one; the unit tests pass the gold
// only.
func chessScript(t testing.TB, gold map[string]string) llmtest.Script {
	return chessScriptN(t, gold, 1)
}

// chessScriptN is chessScript with nTests generated unit tests.
func chessScriptN(t testing.TB, gold map[string]string, nTests int) llmtest.Script {
	tests := make([]string, nTests)
	for i := range tests {
		tests[i] = fmt.Sprintf("'The answer SQL query should satisfy condition %d of the question'", i+1)
	}
	unitTests := "<Thinking>the clusters differ</Thinking>\n<Answer>\n[" + strings.Join(tests, ", ") + "]\n</Answer>"
	return func(r *llmtest.Request) llmtest.Reply {
		g := gold[r.Header.Get(generate.HeaderItem)]
		p := r.User()
		switch r.Header.Get(generate.HeaderStep) {
		case "extract_keywords":
			return llmtest.Reply{Content: "```python\n[\"singer\", \"concert\"]\n```"}
		case "filter_column":
			return llmtest.Reply{Content: "```json\n{\"chain_of_thought_reasoning\": \"maybe\", \"is_column_information_relevant\": \"Yes\"}\n```"}
		case "select_tables":
			tables := regexp.MustCompile(`(?m)^CREATE TABLE (\S+)`).FindAllStringSubmatch(p, -1)
			var names []string
			for _, m := range tables {
				names = append(names, fmt.Sprintf("%q", m[1]))
			}
			return llmtest.Reply{Content: "```json\n{\"chain_of_thought_reasoning\": \"all\", \"table_names\": [" + strings.Join(names, ", ") + "]}\n```"}
		case "select_columns":
			return llmtest.Reply{Content: "{\"chain_of_thought_reasoning\": \"none needed\"}"}
		case "generate_candidate":
			if strings.Contains(p, "Query Plan Guided SQL Generation") {
				if r.Seed != nil && *r.Seed == 1 { // sample 0 (seed 1 + 0)
					return llmtest.Reply{Content: "Plan...\n<FINAL_ANSWER>\nSELECT no_such_column FROM sqlite_master\n</FINAL_ANSWER>"}
				}
				return llmtest.Reply{Content: "<FINAL_ANSWER>" + wrongSQL + "</FINAL_ANSWER>"}
			}
			return llmtest.Reply{Content: "**1. Divide and Conquer:** ...\n<FINAL_ANSWER>\n" + g + "\n</FINAL_ANSWER>"}
		case "revise":
			if strings.Contains(p, g) {
				return llmtest.Reply{Content: "<FINAL_ANSWER>" + g + "</FINAL_ANSWER>"}
			}
			if !strings.Contains(p, "no such column") {
				t.Errorf("revise prompt without the error: %.200s", p[len(p)-600:])
			}
			return llmtest.Reply{Content: "Step 3: Correct the Query\n<FINAL_ANSWER>\n" + wrongSQL + "\n</FINAL_ANSWER>"}
		case "generate_unit_test":
			return llmtest.Reply{Content: unitTests}
		case "evaluate":
			var lines []string
			for _, m := range candidateRE.FindAllStringSubmatch(p, -1) {
				v := "[Failed]"
				if strings.TrimSpace(m[2]) == strings.TrimSpace(g) {
					v = "[Passed]"
				}
				lines = append(lines, "Candidate Response #"+m[1]+": "+v)
			}
			return llmtest.Reply{Content: "<Thinking>...</Thinking>\n<Answer>\n" + strings.Join(lines, "\n") + "\n</Answer>"}
		}
		t.Errorf("unexpected step %q", r.Header.Get(generate.HeaderStep))
		return llmtest.Reply{Status: 400}
	}
}

func TestChessIRCGUTSpiderDev(t *testing.T) {
	items, dbDir := spiderQuestions(t, 150)
	gold := goldByID(items)
	srv := llmtest.New(t, chessScript(t, gold))
	o := options(t, srv, items, dbDir, generate.MethodChess, "CHESS_IR_CG_UT")
	sum, err := generate.Run(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	if got := sum.Eval.Overall["ex"].Accuracy; got != 1 {
		t.Fatalf("ex %.3f, want 1", got)
	}
	// per question: keywords 1, candidates 20, revise 1, unit tests 1,
	// evaluate 2 (one generated test and the hard-coded one)
	want := map[string]int{"extract_keywords": 1, "generate_candidate": 20, "revise": 1, "generate_unit_test": 1, "evaluate": 2}
	perItem := map[string]map[string]int{}
	var order []string
	for _, r := range srv.Log() {
		id, step := r.Header.Get(generate.HeaderItem), r.Header.Get(generate.HeaderStep)
		if perItem[id] == nil {
			perItem[id] = map[string]int{}
		}
		perItem[id][step]++
		if id == items[0].ID && (len(order) == 0 || order[len(order)-1] != step) {
			order = append(order, step)
		}
		if step == "generate_candidate" && (r.Temperature == nil || *r.Temperature != 0.5) {
			t.Fatalf("candidate temperature %v, want 0.5", r.Temperature)
		}
	}
	for _, it := range items {
		for step, n := range want {
			if perItem[it.ID][step] != n {
				t.Fatalf("question %s: %d %s calls, want %d (%v)", it.ID, perItem[it.ID][step], step, n, perItem[it.ID])
			}
		}
	}
	if strings.Join(order, ",") != "extract_keywords,generate_candidate,revise,generate_unit_test,evaluate" {
		t.Fatalf("step order %v", order)
	}
	recs := readLedger(t, o.Out)
	var names []string
	for _, s := range recs[0].Steps {
		names = append(names, s.Name)
	}
	if strings.Join(names, ",") != "extract_keywords,retrieve_entity,retrieve_context,generate_candidate,revise,generate_unit_test,evaluate" {
		t.Fatalf("ledger steps %v", names)
	}
	ev := recs[0].Steps[len(recs[0].Steps)-1]
	if ev.Winner == nil || len(ev.UnitTests) != 0 || ev.Reason == "" || len(ev.Clusters) != 2 {
		t.Fatalf("evaluate step %+v", ev)
	}
	n := srv.Requests()
	o.Overwrite = true
	if _, err := generate.Run(context.Background(), o); err != nil {
		t.Fatal(err)
	}
	if srv.Requests() != n {
		t.Fatalf("re-run made %d requests, want 0", srv.Requests()-n)
	}
	js, _ := json.Marshal(sum.Steps)
	t.Logf("%d questions, %.1f calls and %.0f prompt tokens per question; steps %s", len(items), sum.PerQuestion.Calls, sum.PerQuestion.PromptTokens, js)
}

func TestChessIRSSCG(t *testing.T) {
	items, dbDir := spiderQuestions(t, 400)
	gold := goldByID(items)
	srv := llmtest.New(t, chessScript(t, gold))
	o := options(t, srv, items, dbDir, generate.MethodChess, "CHESS_IR_SS_CG")
	sum, err := generate.Run(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	if got := sum.Eval.Overall["ex"].Accuracy; got != 1 {
		t.Fatalf("ex %.3f, want 1", got)
	}
	eng := sqlite.New(dbDir, sqlite.Options{})
	defer eng.Close()
	for _, it := range items {
		cols, err := eng.Query(context.Background(), it.DBID,
			"SELECT count(*) FROM sqlite_master m, pragma_table_info(m.name) WHERE m.type = 'table' AND m.name <> 'sqlite_sequence'")
		if err != nil {
			t.Fatal(err)
		}
		want := map[string]int{"extract_keywords": 1, "filter_column": int(cols.Rows[0][0].I), "select_tables": 1, "select_columns": 1, "generate_candidate": 1}
		got := map[string]int{}
		var order []string
		for _, r := range srv.Log() {
			if r.Header.Get(generate.HeaderItem) != it.ID {
				continue
			}
			step := r.Header.Get(generate.HeaderStep)
			got[step]++
			if len(order) == 0 || order[len(order)-1] != step {
				order = append(order, step)
			}
			if step == "generate_candidate" && *r.Temperature != 0.01 || step == "filter_column" && *r.Temperature != 0.2 {
				t.Fatalf("%s at temperature %v", step, *r.Temperature)
			}
		}
		for step, n := range want {
			if got[step] != n {
				t.Fatalf("question %s (%s): %d %s calls, want %d", it.ID, it.DBID, got[step], step, n)
			}
		}
		if strings.Join(order, ",") != "extract_keywords,filter_column,select_tables,select_columns,generate_candidate" {
			t.Fatalf("step order %v", order)
		}
	}
	recs := readLedger(t, o.Out)
	var names []string
	for _, s := range recs[0].Steps {
		names = append(names, s.Name)
	}
	if strings.Join(names, ",") != "extract_keywords,retrieve_entity,retrieve_context,filter_column,select_tables,select_columns,generate_candidate,revise" {
		t.Fatalf("ledger steps %v", names)
	}
	if len(recs[0].Steps[4].Schema) == 0 {
		t.Fatalf("select_tables kept no table: %+v", recs[0].Steps[4])
	}
}

// TestUnitTestTieGoesToLargestCluster: every candidate passes every unit
// test; the winner is then a candidate of the largest result cluster, not
// the first candidate.
func TestUnitTestTieGoesToLargestCluster(t *testing.T) {
	items, dbDir := spiderQuestions(t, 1034)
	g := items[0].Gold[0]
	srv := llmtest.New(t, func(r *llmtest.Request) llmtest.Reply {
		p := r.User()
		switch r.Header.Get(generate.HeaderStep) {
		case "extract_keywords":
			return llmtest.Reply{Content: `["singers"]`}
		case "generate_candidate":
			// template one: samples 0-4 the gold, 5-9 a wrong query; template two: the wrong query
			if !strings.Contains(p, "Query Plan Guided") && *r.Seed < 6 {
				return llmtest.Reply{Content: "<FINAL_ANSWER>" + g + "</FINAL_ANSWER>"}
			}
			return llmtest.Reply{Content: "<FINAL_ANSWER>" + wrongSQL + "</FINAL_ANSWER>"}
		case "generate_unit_test":
			return llmtest.Reply{Content: "<Answer>['The answer SQL query should count', 'The answer SQL query should use singer']</Answer>"}
		case "evaluate":
			n := len(candidateRE.FindAllString(p, -1))
			return llmtest.Reply{Content: "<Answer>\n" + strings.Repeat("Candidate Response #1: [Passed]\n", n) + "</Answer>"}
		}
		t.Errorf("unexpected step %s", r.Header.Get(generate.HeaderStep))
		return llmtest.Reply{Status: 400}
	})
	o := options(t, srv, items, dbDir, generate.MethodChess, "CHESS_IR_CG_UT")
	if _, err := generate.Run(context.Background(), o); err != nil {
		t.Fatal(err)
	}
	rec := readLedger(t, o.Out)[0]
	ev := rec.Steps[len(rec.Steps)-1]
	if ev.Name != "evaluate" || ev.Winner == nil || *ev.Winner != 5 || rec.Pred != wrongSQL || !strings.Contains(ev.Reason, "largest result cluster (15") {
		t.Fatalf("winner %v (%q), pred %q; want candidate 5 of the cluster of 15", ev.Winner, ev.Reason, rec.Pred)
	}
	for _, sc := range ev.Scores {
		if sc != 3 {
			t.Fatalf("scores %v, want 3 everywhere (two tests and the hard-coded one)", ev.Scores)
		}
	}
}

// TestSameSeedSameOutputs: two runs with their own caches give the same
// prompts (hashes, in order) and the same predictions.
func TestSameSeedSameOutputs(t *testing.T) {
	items, dbDir := spiderQuestions(t, 517)
	srv := llmtest.New(t, chessScript(t, goldByID(items)))
	var preds [2][]byte
	var hashes [2][]string
	for i := range 2 {
		o := options(t, srv, items, dbDir, generate.MethodChess, "CHESS_IR_SS_CG")
		o.Metrics = nil
		if _, err := generate.Run(context.Background(), o); err != nil {
			t.Fatal(err)
		}
		preds[i], _ = os.ReadFile(filepath.Join(o.Out, generate.PredictionsFile))
		for _, r := range readLedger(t, o.Out) {
			for _, s := range r.Steps {
				for _, c := range s.Calls {
					hashes[i] = append(hashes[i], s.Name+":"+c.PromptHash)
				}
			}
		}
	}
	if string(preds[0]) != string(preds[1]) || strings.Join(hashes[0], ",") != strings.Join(hashes[1], ",") || len(hashes[0]) == 0 {
		t.Fatalf("two runs differ:\n%s\n%s", strings.Join(hashes[0], ","), strings.Join(hashes[1], ","))
	}
}

// TestFailedQuestionIsRedoneByResume: a question whose requests fail (after
// the client's retries) is recorded with its error and no prediction; the
// others are kept, and --resume redoes only the failed one.
func TestFailedQuestionIsRedoneByResume(t *testing.T) {
	items, dbDir := spiderQuestions(t, 300)
	gold := goldByID(items)
	down := items[1].ID
	var mu sync.Mutex
	failing := true
	srv := llmtest.New(t, func(r *llmtest.Request) llmtest.Reply {
		mu.Lock()
		defer mu.Unlock()
		if failing && r.Header.Get(generate.HeaderItem) == down {
			return llmtest.Reply{Status: 503}
		}
		return llmtest.Reply{Content: "```sql\n" + gold[r.Header.Get(generate.HeaderItem)] + "\n```"}
	})
	o := options(t, srv, items, dbDir, generate.MethodDirect, "")
	sum, err := generate.Run(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	if sum.Failed != 1 || sum.Eval.Overall["ex"].Correct != len(items)-1 {
		t.Fatalf("failed %d, ex correct %d of %d", sum.Failed, sum.Eval.Overall["ex"].Correct, len(items))
	}
	recs := readLedger(t, o.Out)
	if recs[1].Error == "" || recs[1].Pred != "" {
		t.Fatalf("the failed question's record: %+v", recs[1])
	}
	mu.Lock()
	failing = false
	mu.Unlock()
	n := srv.Requests()
	o.Resume = true
	sum, err = generate.Run(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	if sum.Generated != 1 || sum.Failed != 0 || srv.Requests() != n+1 || sum.Eval.Overall["ex"].Accuracy != 1 {
		t.Fatalf("resume: generated %d, failed %d, %d requests, ex %.3f", sum.Generated, sum.Failed, srv.Requests()-n, sum.Eval.Overall["ex"].Accuracy)
	}
}

// TestDirectSQLEvalInstructions: Defog SQL-Eval questions (SQLite variant,
// restaurants loaded by dbload) carry their instructions into the direct
// prompt, and sqleval grades the gold replies correct.
func TestDirectSQLEvalInstructions(t *testing.T) {
	defog := shareddata.Path(t, "defog")
	dump, err := dbload.ReadDump(filepath.Join(defog, "defog_data", "restaurants", "restaurants.sql"))
	if err != nil {
		t.Fatal(err)
	}
	dbDir := t.TempDir()
	if _, err := dbload.Load(context.Background(), "sqlite:"+dbDir, []*dbload.Dump{dump}, dbload.Options{}); err != nil {
		t.Fatal(err)
	}
	all, err := bench.LoadGold(filepath.Join(defog, "questions", "questions_gen_sqlite.csv"), bench.FormatSQLEval)
	if err != nil {
		t.Fatal(err)
	}
	var items []bench.Item
	withInstr := 0
	for _, it := range all {
		if it.DBID == "restaurants" && !strings.Contains(it.Gold[0], "{") {
			items = append(items, it)
			if it.Instructions != "" {
				withInstr++
			}
		}
	}
	if len(items) < 10 || withInstr == 0 {
		t.Fatalf("%d restaurants questions, %d with instructions", len(items), withInstr)
	}
	byID := map[string]*bench.Item{}
	for i := range items {
		byID[items[i].ID] = &items[i]
	}
	srv := llmtest.New(t, func(r *llmtest.Request) llmtest.Reply {
		it := byID[r.Header.Get(generate.HeaderItem)]
		if it.Instructions != "" && !strings.Contains(r.User(), it.Instructions) {
			t.Errorf("question %s: the prompt lacks its instructions", it.ID)
		}
		return llmtest.Reply{Content: "```sql\n" + it.Gold[0] + "\n```"}
	})
	o := options(t, srv, items, dbDir, generate.MethodDirect, "")
	o.Metrics = []string{"sqleval"}
	sum, err := generate.Run(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	if got := sum.Eval.Overall["sqleval"].Accuracy; got != 1 {
		t.Fatalf("sqleval %.3f on %d questions, want 1", got, len(items))
	}
}

// TestTimedOutCandidateIsRevised: a candidate that runs past --timeout is
// stopped, counted as a failed execution and revised with the timeout as
// its result.
func TestTimedOutCandidateIsRevised(t *testing.T) {
	items, dbDir := spiderQuestions(t, 1034)
	g := items[0].Gold[0]
	const endless = "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT count(*) FROM c"
	var revisePrompt string
	srv := llmtest.New(t, func(r *llmtest.Request) llmtest.Reply {
		switch r.Header.Get(generate.HeaderStep) {
		case "extract_keywords":
			return llmtest.Reply{Content: `["singers"]`}
		case "generate_candidate":
			return llmtest.Reply{Content: "<FINAL_ANSWER>" + endless + "</FINAL_ANSWER>"}
		case "revise":
			revisePrompt = r.User()
			return llmtest.Reply{Content: "<FINAL_ANSWER>" + g + "</FINAL_ANSWER>"}
		}
		return llmtest.Reply{Content: `{"chain_of_thought_reasoning": "", "is_column_information_relevant": "Yes", "table_names": ["singer"], "singer": ["Singer_ID"]}`}
	})
	o := options(t, srv, items, dbDir, generate.MethodChess, "CHESS_IR_SS_CG")
	o.Timeout = 300 * time.Millisecond
	sum, err := generate.Run(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	rec := readLedger(t, o.Out)[0]
	var gen generate.Step
	for _, s := range rec.Steps {
		if s.Name == "generate_candidate" {
			gen = s
		}
	}
	if len(gen.Candidates) != 1 || gen.Candidates[0].Status != "error" || !strings.Contains(gen.Candidates[0].Error, "timed out") {
		t.Fatalf("candidate %+v", gen.Candidates)
	}
	if !strings.Contains(revisePrompt, endless) || !strings.Contains(revisePrompt, "timed out") {
		t.Fatalf("the revise prompt lacks the query or its timeout")
	}
	if rec.Pred != g || sum.Eval.Overall["ex"].Accuracy != 1 {
		t.Fatalf("pred %q", rec.Pred)
	}
}

// TestDirectBirdInput: a BIRD-format question file (Spider questions written
// with question_id, evidence and difficulty) gives predict_dev.json keyed by
// question_id, the evidence reaches the prompt, and ex_bird grades it.
func TestDirectBirdInput(t *testing.T) {
	spider, dbDir := spiderQuestions(t, 211)
	var bird []map[string]any
	for i, it := range spider {
		bird = append(bird, map[string]any{"question_id": 1000 + i, "db_id": it.DBID, "question": it.Question,
			"evidence": "hint number " + it.ID, "SQL": it.Gold[0], "difficulty": "simple"})
	}
	path := filepath.Join(t.TempDir(), "dev.json")
	b, _ := json.Marshal(bird)
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
	items, err := bench.LoadGold(path, bench.FormatBird)
	if err != nil {
		t.Fatal(err)
	}
	byID := map[string]bench.Item{}
	for _, it := range items {
		byID[it.ID] = it
	}
	srv := llmtest.New(t, func(r *llmtest.Request) llmtest.Reply {
		it := byID[r.Header.Get(generate.HeaderItem)]
		if !strings.Contains(r.User(), it.Evidence) {
			t.Errorf("question %s: the prompt lacks the evidence", it.ID)
		}
		return llmtest.Reply{Content: it.Gold[0]}
	})
	o := options(t, srv, items, dbDir, generate.MethodDirect, "")
	o.Metrics = []string{"ex_bird"}
	sum, err := generate.Run(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	if sum.Eval.Overall["ex_bird"].Accuracy != 1 {
		t.Fatalf("ex_bird %.3f", sum.Eval.Overall["ex_bird"].Accuracy)
	}
	var preds map[string]string
	b, err = os.ReadFile(filepath.Join(o.Out, generate.BirdPredictionsFile))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &preds); err != nil {
		t.Fatal(err)
	}
	for _, it := range items {
		if preds[it.ID] != strings.TrimSpace(it.Gold[0])+"\t----- bird -----\t"+it.DBID {
			t.Fatalf("predict_dev.json[%s] = %q", it.ID, preds[it.ID])
		}
	}
	paired, err := bench.Load(bench.Options{Gold: path, Pred: filepath.Join(o.Out, generate.BirdPredictionsFile)})
	if err != nil || len(paired) != len(items) || paired[0].Pred == "" {
		t.Fatalf("eval cannot read predict_dev.json back: %v", err)
	}
}
