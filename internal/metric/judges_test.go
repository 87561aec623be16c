package metric_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/sqljudge/sqljudge/internal/bench"
	"github.com/sqljudge/sqljudge/internal/engine/sqlite"
	"github.com/sqljudge/sqljudge/internal/judge"
	"github.com/sqljudge/sqljudge/internal/llm"
	"github.com/sqljudge/sqljudge/internal/llm/llmtest"
	"github.com/sqljudge/sqljudge/internal/metric"
	"github.com/sqljudge/sqljudge/internal/run"
	"github.com/sqljudge/sqljudge/internal/shareddata"
	"github.com/sqljudge/sqljudge/internal/status"
)

// questionOf reads the question out of a judge prompt.
func questionOf(user string) string {
	_, rest, ok := strings.Cut(user, "## Question\n")
	if !ok {
		return ""
	}
	q, _, _ := strings.Cut(rest, "\n")
	return q
}

// oracleModel is a scripted model that agrees with the official Spider
// evaluator: it knows, by question, whether din_sql's prediction executes
// correctly (oracle exec), and answers every judge's prompt accordingly,
// with some prose around its JSON (and the prover in a code fence).
func oracleModel(truth map[string]bool) llmtest.Script {
	return func(r *llmtest.Request) llmtest.Reply {
		q := questionOf(r.User())
		ok, known := truth[q]
		if !known {
			return llmtest.Reply{Status: 400, Body: `{"error":{"message":"unknown question"}}`}
		}
		sys := r.System()
		switch {
		case strings.Contains(sys, "You are a **SQL Prover**"):
			qj, _ := json.Marshal("the answer to " + q)
			return llmtest.Reply{Content: fmt.Sprintf("Checking the query.\n```json\n{\"expected_answer\": %s, \"sql_description\": \"it selects\", \"reason\": \"because\", \"verdict\": %v, \"evidence\": \"col 1\"}\n```", qj, ok)}
		case strings.Contains(sys, "You are a **SQL Refuter**"):
			return llmtest.Reply{Content: fmt.Sprintf(`{"judgement": "compared", "verdict": %v, "ambiguity": "na", "gold_correct": true}`, !ok)}
		case strings.Contains(sys, "You review SQL"):
			s := 1
			if ok {
				s = 3
			}
			return llmtest.Reply{Content: fmt.Sprintf(`{"E": "Reviewed the query against the schema.", "S": %d}`, s)}
		case strings.Contains(sys, `"correct"`):
			return llmtest.Reply{Content: fmt.Sprintf(`My analysis: the queries are compared. {"analysis": "compared", "correct": %v}`, ok)}
		}
		return llmtest.Reply{Status: 400}
	}
}

// spiderSample returns n Spider dev items with din_sql's predictions,
// half of them correct and half wrong by the official evaluator, with
// unique questions, and the oracle's verdict and hardness by question.
func spiderSample(t testing.TB, n int) ([]bench.Item, map[string]bool, map[string]string) {
	spider := shareddata.SubsetPath(t, "spider")
	all, err := bench.Load(bench.Options{Gold: filepath.Join(spider, "dev.json"), Pred: filepath.Join(spider, "predictions", "din_sql.sql")})
	if err != nil {
		t.Fatal(err)
	}
	oracle := shareddata.SubsetOracle(t, "din_sql")
	count := map[string]int{}
	for _, it := range all {
		count[it.Question]++
	}
	truth, hard := map[string]bool{}, map[string]string{}
	var items []bench.Item
	want := map[bool]int{true: n / 2, false: n - n/2}
	for i, it := range all {
		ok := oracle[i].Exec == 1
		if count[it.Question] != 1 || want[ok] == 0 {
			continue
		}
		want[ok]--
		it.Index = len(items)
		items = append(items, it)
		truth[it.Question] = ok
		hard[it.Question] = oracle[i].Hardness
		if len(items) == n {
			break
		}
	}
	return items, truth, hard
}

// correctButDifferent returns the first din_sql item that the official
// evaluator counts correct although the two queries, run as written, give
// different results (ROSE's prover-then-refuter path).
func correctButDifferent(t testing.TB) (bench.Item, string) {
	spider := shareddata.SubsetPath(t, "spider")
	all, err := bench.Load(bench.Options{Gold: filepath.Join(spider, "dev.json"), Pred: filepath.Join(spider, "predictions", "din_sql.sql")})
	if err != nil {
		t.Fatal(err)
	}
	oracle := shareddata.SubsetOracle(t, "din_sql")
	eng := sqlite.New(filepath.Join(spider, "database"), sqlite.Options{})
	defer eng.Close()
	ctx := context.Background()
	for i, it := range all {
		if oracle[i].Exec != 1 {
			continue
		}
		g, gerr := eng.Query(ctx, it.DBID, it.Gold[0])
		p, perr := eng.Query(ctx, it.DBID, it.Pred)
		if gerr == nil && perr == nil && !judge.SameResult(p, g) {
			return it, oracle[i].Hardness
		}
	}
	t.Fatal("no correct din_sql item with different results")
	return bench.Item{}, ""
}

func runJudges(t testing.TB, items []bench.Item, hard map[string]string, client *llm.Client, out string, metrics []string) []run.Record {
	spider := shareddata.SubsetPath(t, "spider")
	eng := sqlite.New(filepath.Join(spider, "database"), sqlite.Options{})
	defer eng.Close()
	ms, err := metric.New(metrics, metric.Options{Judge: *judge.New(client)})
	if err != nil {
		t.Fatal(err)
	}
	r := &run.Runner{
		Env: &metric.Env{Engine: eng}, Metrics: ms,
		Opts: run.Options{OutDir: out, Workers: 2, Overwrite: true, Difficulty: func(it *bench.Item) string { return hard[it.Question] }},
	}
	if _, err := r.Run(context.Background(), items); err != nil {
		t.Fatal(err)
	}
	recs, _, err := run.ReadRecords(filepath.Join(out, run.ResultsFile))
	if err != nil {
		t.Fatal(err)
	}
	return recs
}

// TestJudgesEndToEndSpiderDev grades 12 Spider dev items with all three
// judges through the runner, against a scripted model that agrees with the
// official evaluator, and checks each judge's verdicts, the calls ROSE's
// design prescribes, the records, and that a re-run from the cache makes
// no request and writes the same bytes.
func TestJudgesEndToEndSpiderDev(t *testing.T) {
	items, truth, hard := spiderSample(t, 12)
	extra, h := correctButDifferent(t)
	extra.Index = len(items)
	items = append(items, extra)
	truth[extra.Question], hard[extra.Question] = true, h
	srv := llmtest.New(t, oracleModel(truth))
	cache := t.TempDir()
	client, err := llm.New(llm.Config{BaseURL: srv.BaseURL(), Model: "scripted", CacheDir: cache})
	if err != nil {
		t.Fatal(err)
	}
	out1 := t.TempDir()
	recs := runJudges(t, items, hard, client, out1, []string{"ex", "xscore", "rose", "flex"})
	if len(recs) != len(items) {
		t.Fatalf("%d records for %d items", len(recs), len(items))
	}
	calls := 0
	paths := map[string]int{}
	for _, rec := range recs {
		ro := rec.Verdicts["rose"]
		paths[fmt.Sprintf("%s equal=%v calls=%v", ro.Status, ro.DetailMap()["results_equal"], ro.DetailMap()["calls"])]++
		want := truth[rec.Question]
		ex, xs, ro, fl := rec.Verdicts["ex"], rec.Verdicts["xscore"], rec.Verdicts["rose"], rec.Verdicts["flex"]
		if ex.Correct != want {
			t.Fatalf("item %d: ex %v disagrees with the official evaluator", rec.Index, ex.Correct)
		}
		// xscore: one call, score 3 or 1 from the model.
		if xs.Status != "ok" || xs.Correct != want || xs.DetailMap()["calls"] != 1.0 || xs.DetailMap()["score"] != map[bool]float64{true: 3, false: 1}[want] {
			t.Errorf("item %d xscore: %+v", rec.Index, xs)
		}
		// rose: the cascade's calls.
		switch {
		case ro.Status == "pred_error":
			if ro.Correct || ro.DetailMap()["calls"] != 0.0 || want {
				t.Errorf("item %d rose on a failing prediction: %+v", rec.Index, ro)
			}
		case ro.DetailMap()["results_equal"] == true:
			if ro.Correct != want || ro.DetailMap()["calls"] != 1.0 || ro.DetailMap()["overturned"] != !want || ro.DetailMap()["prover"] != nil {
				t.Errorf("item %d rose, equal results: %+v", rec.Index, ro)
			}
		default:
			wantCalls := 1.0
			if want {
				wantCalls = 2
			}
			if ro.Correct != want || ro.DetailMap()["prover"] != want || ro.DetailMap()["calls"] != wantCalls {
				t.Errorf("item %d rose, different results: %+v", rec.Index, ro)
			}
		}
		// flex: strict after a passing ex, loose after a failing one.
		if fl.Status == "ok" {
			mode := map[bool]string{true: "strict", false: "loose"}[ex.Correct]
			if fl.Correct != want || fl.DetailMap()["prompt"] != mode || fl.DetailMap()["ex"] != ex.Correct || fl.DetailMap()["calls"] != 1.0 || fl.DetailMap()["flipped"] != false {
				t.Errorf("item %d flex: %+v", rec.Index, fl)
			}
		}
		for _, m := range []string{"xscore", "rose", "flex"} {
			v := rec.Verdicts[m]
			n, _ := v.DetailMap()["calls"].(float64)
			calls += int(n)
			if n == 0 {
				continue
			}
			replies, _ := v.DetailMap()["replies"].([]any)
			if len(replies) != int(n) {
				t.Errorf("item %d %s: %d replies for %v calls", rec.Index, m, len(replies), n)
			}
			for _, k := range replies {
				if _, err := os.Stat(client.Store().Path(k.(string))); err != nil {
					t.Errorf("item %d %s: raw reply missing: %v", rec.Index, m, err)
				}
			}
			tmpls, _ := v.DetailMap()["templates"].([]any)
			if len(tmpls) == 0 || !regexp.MustCompile(`\.v[0-9]+@[0-9a-f]{12}`).MatchString(fmt.Sprint(tmpls)) {
				t.Errorf("item %d %s: templates %v", rec.Index, m, tmpls)
			}
		}
	}
	t.Logf("rose paths: %v", paths)
	// The sample must exercise both branches of the cascade.
	if paths["ok equal=true calls=1"] == 0 || paths["ok equal=false calls=1"] == 0 || paths["ok equal=false calls=2"] == 0 {
		t.Errorf("rose paths %v: the sample misses a branch", paths)
	}
	if srv.Requests() != calls {
		t.Fatalf("the server got %d requests; the records account for %d calls", srv.Requests(), calls)
	}

	// Re-run from the cache: no request, the same records byte for byte.
	before := srv.Requests()
	client2, err := llm.New(llm.Config{BaseURL: srv.BaseURL(), Model: "scripted", CacheDir: cache})
	if err != nil {
		t.Fatal(err)
	}
	out2 := t.TempDir()
	runJudges(t, items, hard, client2, out2, []string{"ex", "xscore", "rose", "flex"})
	if n := srv.Requests() - before; n != 0 {
		t.Fatalf("the re-run made %d requests; the cache should serve all", n)
	}
	if u := client2.Usage(); u.CacheHits != int64(calls) || u.HTTPRequests != 0 {
		t.Errorf("re-run usage %+v, want %d cache hits", u, calls)
	}
	a, _ := os.ReadFile(filepath.Join(out1, run.ResultsFile))
	b, _ := os.ReadFile(filepath.Join(out2, run.ResultsFile))
	if string(a) != string(b) {
		t.Fatal("the re-run wrote different records")
	}
}

// TestJudgesNeedAClientAndQuestions checks the errors a user sees.
func TestJudgesNeedAClientAndQuestions(t *testing.T) {
	for _, m := range []string{"xscore", "rose", "flex"} {
		if _, err := metric.New([]string{m}, metric.Options{}); err == nil || !strings.Contains(err.Error(), "--llm-base-url") {
			t.Errorf("%s without a client: %v", m, err)
		}
	}
	items, truth, hard := spiderSample(t, 2)
	for i := range items {
		items[i].Question = ""
	}
	srv := llmtest.New(t, oracleModel(truth))
	client, err := llm.New(llm.Config{BaseURL: srv.BaseURL(), Model: "scripted"})
	if err != nil {
		t.Fatal(err)
	}
	// Every setting says what it means: no zero stands for a default.
	for _, c := range []struct {
		o    metric.Options
		want string
	}{
		{metric.Options{Judge: judge.Judge{Client: client, ParseRetries: 2, XScoreMin: 2}}, "0 samples per item"},
		{metric.Options{Judge: judge.Judge{Client: client, Samples: 1, ParseRetries: -1, XScoreMin: 2}}, "-1 parse retries"},
		{metric.Options{Judge: judge.Judge{Client: client, Samples: 1, ParseRetries: 2, XScoreMin: 4}}, "Execution Score 4"},
	} {
		if _, err := metric.New([]string{"xscore"}, c.o); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: %v, want an error saying %q", c.o, err, c.want)
		}
	}
	recs := runJudges(t, items, hard, client, t.TempDir(), []string{"xscore", "rose", "flex"})
	for _, rec := range recs {
		for m, v := range rec.Verdicts {
			if v.Status != "judge_error" || !strings.Contains(v.Detail, "needs the question") {
				t.Errorf("%s without a question: %+v", m, v)
			}
		}
	}
	if srv.Requests() != 0 {
		t.Errorf("%d requests for items without questions", srv.Requests())
	}
}

// BenchmarkJudgeCallsSpiderDev measures, on all 1034 Spider dev items
// with din_sql's predictions and a scripted model that agrees with the
// official evaluator, the LLM calls and tokens each judge spends per item
// (tokens counted by llmtest.CountTokens on the real prompts). Run with
//
//	go test ./internal/metric -run '^$' -bench JudgeCalls -benchtime 1x
func BenchmarkJudgeCallsSpiderDev(b *testing.B) {
	spider := shareddata.SubsetPath(b, "spider")
	all, err := bench.Load(bench.Options{Gold: filepath.Join(spider, "dev.json"), Pred: filepath.Join(spider, "predictions", "din_sql.sql")})
	if err != nil {
		b.Fatal(err)
	}
	oracle := shareddata.SubsetOracle(b, "din_sql")
	items := all
	truth := map[string]bool{}
	for i, it := range items {
		// A repeated question keeps its first verdict; the scripted model
		// answers by question.
		if _, ok := truth[it.Question]; !ok {
			truth[it.Question] = oracle[i].Exec == 1
		}
	}
	for _, m := range []string{"xscore", "rose", "flex"} {
		b.Run(m, func(b *testing.B) {
			for range b.N {
				srv := llmtest.New(b, oracleModel(truth))
				client, err := llm.New(llm.Config{BaseURL: srv.BaseURL(), Model: "scripted"})
				if err != nil {
					b.Fatal(err)
				}
				recs := runJudges(b, items, nil, client, b.TempDir(), []string{m})
				pt, ct := srv.Tokens()
				n := float64(len(recs))
				b.ReportMetric(float64(srv.Requests())/n, "calls/item")
				b.ReportMetric(float64(pt)/n, "prompt-tok/item")
				b.ReportMetric(float64(ct)/n, "completion-tok/item")
				if m == "rose" {
					equal, differ, twoCalls := 0, 0, 0
					for _, r := range recs {
						v := r.Verdicts[m]
						switch {
						case v.DetailMap()["results_equal"] == true:
							equal++
						case v.DetailMap()["calls"] == 2.0:
							twoCalls++
							differ++
						case v.DetailMap()["calls"] == 1.0:
							differ++
						}
					}
					b.ReportMetric(float64(equal)/n, "equal-results/item")
					b.ReportMetric(float64(differ)/n, "differing/item")
					b.ReportMetric(float64(twoCalls)/n, "two-call/item")
				}
			}
		})
	}
}

// judge_error is the judge failing, not the prediction: --resume asks the
// model again for those items (and only those), keeping every other
// verdict.
func TestResumeReasksJudgeErrors(t *testing.T) {
	items, truth, hard := spiderSample(t, 8)
	var down atomic.Bool
	down.Store(true)
	oracle := oracleModel(truth)
	srv := llmtest.New(t, func(r *llmtest.Request) llmtest.Reply {
		// While down, the endpoint fails the items of odd index.
		if down.Load() && len(questionOf(r.User()))%2 == 1 {
			return llmtest.Reply{Status: 503}
		}
		return oracle(r)
	})
	client, err := llm.New(llm.Config{BaseURL: srv.BaseURL(), Model: "scripted", CacheDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	spider := shareddata.SubsetPath(t, "spider")
	eng := sqlite.New(filepath.Join(spider, "database"), sqlite.Options{})
	defer eng.Close()
	ms, err := metric.New([]string{"ex", "xscore"}, metric.Options{Judge: *judge.New(client)})
	if err != nil {
		t.Fatal(err)
	}
	out := t.TempDir()
	grade := func(resume bool) []run.Record {
		r := &run.Runner{Env: &metric.Env{Engine: eng}, Metrics: ms,
			Opts: run.Options{OutDir: out, Workers: 2, Resume: resume, Difficulty: func(it *bench.Item) string { return hard[it.Question] }}}
		if _, err := r.Run(context.Background(), items); err != nil {
			t.Fatal(err)
		}
		recs, _, err := run.ReadRecords(filepath.Join(out, run.ResultsFile))
		if err != nil {
			t.Fatal(err)
		}
		return recs
	}
	first := grade(false)
	failed := 0
	for _, rec := range first {
		if rec.Verdicts["xscore"].Status == status.JudgeError {
			failed++
		}
	}
	if failed == 0 || failed == len(items) {
		t.Fatalf("%d of %d judge errors: the test needs some of each", failed, len(items))
	}
	before := srv.Requests()
	down.Store(false)
	second := grade(true)
	if len(second) != len(items) {
		t.Fatalf("%d records after resume", len(second))
	}
	for i, rec := range second {
		xs := rec.Verdicts["xscore"]
		if xs.Status != status.OK || xs.Correct != truth[rec.Question] {
			t.Errorf("item %d after resume: %+v", i, xs)
		}
		if rec.Verdicts["ex"].Correct != first[i].Verdicts["ex"].Correct {
			t.Errorf("item %d: ex changed on resume", i)
		}
	}
	if n := srv.Requests() - before; n != failed {
		t.Errorf("resume made %d requests; want %d, one per judge_error", n, failed)
	}
}
