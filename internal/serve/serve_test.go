package serve

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/sqljudge/sqljudge/internal/bench"
	"github.com/sqljudge/sqljudge/internal/engine"
	"github.com/sqljudge/sqljudge/internal/engine/sqlite"
	"github.com/sqljudge/sqljudge/internal/result"
	"github.com/sqljudge/sqljudge/internal/shareddata"
)

// countingEngine counts the queries that reach the engine, by SQL, and
// tells started about each one.
type countingEngine struct {
	engine.Engine
	mu      sync.Mutex
	n       map[string]int
	started chan string
	// finished, if set, receives each query's SQL when it returns.
	finished chan string
	// timeouts[sql] is how many more times sql fails with
	// engine.ErrTimeout without running.
	timeouts map[string]int
}

func (c *countingEngine) Query(ctx context.Context, db, sql string) (*result.Set, error) {
	c.mu.Lock()
	c.n[sql]++
	if c.timeouts[sql] > 0 {
		c.timeouts[sql]--
		c.mu.Unlock()
		return nil, &engine.QueryError{DB: db, Err: engine.ErrTimeout}
	}
	c.mu.Unlock()
	if c.started != nil {
		select {
		case c.started <- sql:
		default:
		}
	}
	set, err := c.Engine.Query(ctx, db, sql)
	if c.finished != nil {
		c.finished <- sql
	}
	return set, err
}

// total is the number of queries that reached the engine.
func (c *countingEngine) total() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	total := 0
	for _, n := range c.n {
		total += n
	}
	return total
}

// newCountingEngine is a countingEngine over Spider's databases, closed
// when the test ends.
func newCountingEngine(t *testing.T) *countingEngine {
	t.Helper()
	eng := &countingEngine{Engine: sqlite.New(shareddata.SubsetPath(t, "spider", "database"), sqlite.Options{}), n: map[string]int{}}
	t.Cleanup(func() { eng.Close() })
	return eng
}

func newTestServer(t *testing.T, cfg Config) (*Server, *countingEngine, *httptest.Server) {
	t.Helper()
	eng := newCountingEngine(t)
	if cfg.Engine == nil { // a test on the full data brings its own
		cfg.Engine = eng
	}
	if cfg.Timeout == 0 {
		cfg.Timeout = 60 * time.Second
	}
	s := New(cfg)
	ts := httptest.NewServer(s.Handler())
	t.Cleanup(func() { ts.Close(); s.Close() })
	return s, eng, ts
}

func post(t testing.TB, url string, body any) (int, []byte) {
	t.Helper()
	var b []byte
	switch x := body.(type) {
	case string:
		b = []byte(x)
	default:
		var err error
		if b, err = json.Marshal(x); err != nil {
			t.Fatal(err)
		}
	}
	resp, err := http.Post(url, "application/json", bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	out, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, out
}

func grade(t testing.TB, url string, req GradeRequest) []GradeResult {
	t.Helper()
	code, body := post(t, url+"/v1/grade", req)
	if code != http.StatusOK {
		t.Fatalf("HTTP %d: %s", code, body)
	}
	var resp GradeResponse
	if err := json.Unmarshal(body, &resp); err != nil {
		t.Fatal(err)
	}
	if len(resp.Results) != len(req.Items) {
		t.Fatalf("%d results for %d items", len(resp.Results), len(req.Items))
	}
	return resp.Results
}

func spiderItems(t testing.TB, system string) []bench.Item {
	t.Helper()
	spider := shareddata.SubsetPath(t, "spider")
	items, err := bench.Load(bench.Options{Gold: filepath.Join(spider, "dev_gold.sql"), Pred: filepath.Join(spider, "predictions", system+".sql")})
	if err != nil {
		t.Fatal(err)
	}
	return items
}

func ptr(s string) *string { return &s }

// TestGradeSpiderDevMatchesOfficial grades DIN-SQL's Spider dev
// predictions (the committed subset's 179) through /v1/grade in batches of
// 64 from two clients and checks every verdict against the official evaluator's, and that each
// gold query ran once across all requests.
func TestGradeSpiderDevMatchesOfficial(t *testing.T) {
	_, eng, ts := newTestServer(t, Config{Workers: 2})
	items := spiderItems(t, "din_sql")
	oracle := shareddata.SubsetOracle(t, "din_sql")
	results := make([]GradeResult, len(items))
	var wg sync.WaitGroup
	batches := make(chan int)
	for range 2 {
		wg.Go(func() {
			for lo := range batches {
				hi := min(lo+64, len(items))
				req := GradeRequest{Preset: "arctic"}
				for _, it := range items[lo:hi] {
					req.Items = append(req.Items, GradeItem{ID: json.RawMessage(fmt.Sprint(it.Index)), DBID: it.DBID, Gold: it.Gold, Pred: ptr(it.Pred)})
				}
				copy(results[lo:hi], grade(t, ts.URL, req))
			}
		})
	}
	for lo := 0; lo < len(items); lo += 64 {
		batches <- lo
	}
	close(batches)
	wg.Wait()
	correct := 0
	for i, r := range results {
		if string(r.ID) != fmt.Sprint(i) {
			t.Fatalf("result %d has id %s", i, r.ID)
		}
		if r.Correct != (oracle[i].Exec == 1) {
			t.Errorf("item %d: correct %v, official exec %d (%s: %s)", i, r.Correct, oracle[i].Exec, r.Verdict, r.Error)
		}
		want := map[Verdict]float64{Correct: 1, Wrong: 0.1, Invalid: 0, Timeout: 0}[r.Verdict]
		if r.Verdict == Error || r.Reward != want {
			t.Errorf("item %d: verdict %s reward %v", i, r.Verdict, r.Reward)
		}
		if r.Correct {
			correct++
		}
	}
	want := 0 // the official EX count: 851 of the full 1034 (0.8230)
	for _, o := range oracle {
		want += o.Exec
	}
	if correct != want || len(oracle) != len(items) {
		t.Errorf("%d of %d correct; the official evaluator has %d of %d", correct, len(items), want, len(oracle))
	}
	// Grading again runs no gold query: the cache spans requests.
	total := eng.total()
	req := GradeRequest{}
	for _, it := range items[:100] {
		req.Items = append(req.Items, GradeItem{DBID: it.DBID, Gold: it.Gold, Pred: ptr(it.Gold[0])})
	}
	for _, r := range grade(t, ts.URL, req) {
		if r.Verdict != Correct {
			t.Fatalf("gold against itself: %+v", r)
		}
	}
	after := eng.total()
	// Its distinct predictions (each a gold text, run as a prediction;
	// Spider dev repeats some questions) and no gold.
	distinct := map[string]bool{}
	for _, it := range req.Items {
		distinct[it.DBID+"\x00"+*it.Pred] = true
	}
	if after-total != len(distinct) || len(distinct) < 50 {
		t.Errorf("second request ran %d queries, want %d (its distinct predictions only)", after-total, len(distinct))
	}
}

// TestGradeVerdicts covers each verdict, per-item metric and preset
// overrides, completions, and request errors.
func TestGradeVerdicts(t *testing.T) {
	_, _, ts := newTestServer(t, Config{Timeout: 2 * time.Second})
	gold := Gold{"SELECT name, age FROM singer WHERE age > 40"}
	req := GradeRequest{Preset: "arctic", Items: []GradeItem{
		{ID: json.RawMessage(`"a"`), DBID: "concert_singer", Gold: gold, Pred: ptr("SELECT age, name FROM singer WHERE age > 40")},
		{ID: json.RawMessage(`"b"`), DBID: "concert_singer", Gold: gold, Pred: ptr("SELECT age, name FROM singer WHERE age > 40"), Metric: "ex_bird"},
		{ID: json.RawMessage(`"c"`), DBID: "concert_singer", Gold: gold, Completion: ptr("I think.\n```sql\nSELECT 1\n```\nNo:\n```sql\nSELECT name, age FROM singer WHERE age > 40;\n```\n")},
		{ID: json.RawMessage(`"d"`), DBID: "concert_singer", Gold: gold, Completion: ptr("<answer>SELECT name FROM singer</answer>"), Preset: "binary"},
		{ID: json.RawMessage(`"e"`), DBID: "no_such_db", Gold: gold, Pred: ptr("SELECT 1")},
		{ID: json.RawMessage(`"f"`), DBID: "concert_singer", Gold: gold, Pred: ptr("SELECT nme FROM singer")},
		{ID: json.RawMessage(`"g"`), DBID: "concert_singer", Gold: gold, Pred: ptr("DELETE FROM singer")},
		{ID: json.RawMessage(`"h"`), DBID: "concert_singer", Gold: gold, Completion: ptr("   ")},
		{ID: json.RawMessage(`"i"`), DBID: "concert_singer", Gold: Gold{"SELECT nme FROM singer"}, Pred: ptr("SELECT 1")},
		{ID: json.RawMessage(`"j"`), DBID: "concert_singer", Gold: Gold{"SELECT 2", "SELECT name, age FROM singer WHERE age > 40"}, Pred: ptr("SELECT name, age FROM singer WHERE age > 40")},
		{ID: json.RawMessage(`"k"`), DBID: "concert_singer", Gold: Gold{"SELECT 2"}, Pred: ptr("SELECT 2\x00garbage")},
	}}
	want := []struct {
		v      Verdict
		reward float64
		sql    string
	}{
		{Correct, 1, ""}, {Wrong, 0.1, ""}, {Correct, 1, "SELECT name, age FROM singer WHERE age > 40;"}, {Wrong, 0, "SELECT name FROM singer"},
		{Error, 0, ""}, {Invalid, 0, ""}, {Invalid, 0, ""}, {Invalid, 0, ""}, {Error, 0, ""}, {Correct, 1, ""}, {Invalid, 0, ""},
	}
	res := grade(t, ts.URL, req)
	if strings.Contains(res[4].Error, "/") || !strings.Contains(res[4].Error, "no_such_db") {
		t.Errorf("unknown db_id: %q; want a message naming it without a server path", res[4].Error)
	}
	for i, r := range res {
		w := want[i]
		if r.Verdict != w.v || r.Reward != w.reward || r.Correct != (w.v == Correct) || (w.sql != "" && r.SQL != w.sql) || string(r.ID) != string(req.Items[i].ID) {
			t.Errorf("item %s: %+v; want %s reward %v sql %q", req.Items[i].ID, r, w.v, w.reward, w.sql)
		}
		if (r.Verdict == Error || r.Verdict == Invalid) && r.Error == "" {
			t.Errorf("item %s: %s without a message", req.Items[i].ID, r.Verdict)
		}
	}
	for _, c := range []struct{ body, want string }{
		{`{"items": [`, "malformed JSON"},
		{`{"preset": "arctic"}`, `no \"items\"`},
		{`{"items": []}`, `no \"items\"`},
		{`{"items": [{"db_id": "x", "gold": 3}]}`, "gold"},
		{`{"preset": "nope", "items": [{"db_id": "concert_singer", "gold": "SELECT 1", "pred": "SELECT 1"}]}`, `\"preset\": unknown preset`},
		{`{"metric": "nope", "items": [{"db_id": "concert_singer", "gold": "SELECT 1", "pred": "SELECT 1"}]}`, `\"metric\": unknown metric`},
		{`{"items": [{"db_id": "concert_singer", "gold": "SELECT 1", "pred": "SELECT 1"}, {"db_id": "concert_singer", "gold": "SELECT 1", "pred": "SELECT 1", "metric": "nope"}]}`, `items[1].metric: unknown metric`},
		{`{"items": [{"db_id": "concert_singer", "gold": "SELECT 1", "pred": "SELECT 1", "preset": "nope"}]}`, `items[0].preset: unknown preset`},
		{`{"items": [{"db_id": "concert_singer", "gold": "", "pred": "SELECT 1"}]}`, `items[0].gold: alternative 0 is empty`},
		{`{"items": [{"db_id": "concert_singer", "gold": [], "pred": "SELECT 1"}]}`, `items[0].gold: missing`},
		{`{"items": [{"db_id": "concert_singer", "gold": ["SELECT 1", " "], "pred": "SELECT 1"}]}`, `items[0].gold: alternative 1 is empty`},
		{`{"items": [{"db_id": "concert_singer", "pred": "SELECT 1"}]}`, `items[0].gold: missing`},
		{`{"items": [{"gold": "SELECT 1", "pred": "SELECT 1"}]}`, `items[0].db_id: bad db_id \"\"`},
		{`{"items": [{"db_id": "concert_singer", "gold": "SELECT 1"}]}`, `items[0].pred: missing`},
		{`{"items": [{"db_id": "concert_singer", "gold": "SELECT 1", "pred": "SELECT 1", "completion": "x"}]}`, `items[0].pred: give`},
	} {
		code, body := post(t, ts.URL+"/v1/grade", c.body)
		if code != http.StatusBadRequest || !strings.Contains(string(body), c.want) || !json.Valid(body) {
			t.Errorf("%s: HTTP %d %s; want 400 with %q", c.body, code, body, c.want)
		}
	}
	resp, err := http.Get(ts.URL + "/healthz")
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || strings.TrimSpace(string(b)) != `{"ok":true}` {
		t.Errorf("healthz: %d %s", resp.StatusCode, b)
	}
}

// TestDuplicatesGradedOnce sends an RL-like group: the same completion
// eight times and one other; the repeated prediction runs once.
func TestDuplicatesGradedOnce(t *testing.T) {
	_, eng, ts := newTestServer(t, Config{})
	c := "<answer>SELECT count(*) FROM singer WHERE age > 30</answer>"
	req := GradeRequest{Preset: "arctic"}
	for k := range 9 {
		it := GradeItem{ID: json.RawMessage(fmt.Sprint(k)), DBID: "concert_singer", Gold: Gold{"SELECT count(*) FROM singer"}, Completion: ptr(c)}
		if k == 4 {
			it.Completion = ptr("SELECT count(*) FROM singer")
		}
		req.Items = append(req.Items, it)
	}
	for k, r := range grade(t, ts.URL, req) {
		want := Wrong
		if k == 4 {
			want = Correct
		}
		if r.Verdict != want || string(r.ID) != fmt.Sprint(k) {
			t.Errorf("item %d: %+v, want %s", k, r, want)
		}
	}
	if n := eng.n["SELECT count(*) FROM singer WHERE age > 30"]; n != 1 {
		t.Errorf("the repeated prediction ran %d times, want 1", n)
	}
}

const neverEnds = "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT count(*) FROM c"

// TestTimeoutLetsOthersProceed sends a never-ending query and, while it
// runs, another request, which is answered first; the first ends as
// timeout.
func TestTimeoutLetsOthersProceed(t *testing.T) {
	_, eng, ts := newTestServer(t, Config{Workers: 2, Timeout: 1500 * time.Millisecond})
	eng.started = make(chan string, 16)
	order := make(chan string, 2)
	var slow []GradeResult
	go func() {
		slow = grade(t, ts.URL, GradeRequest{Items: []GradeItem{{DBID: "concert_singer", Gold: Gold{"SELECT 1"}, Pred: ptr(neverEnds)}}})
		order <- "slow"
	}()
	for sql := range eng.started {
		if sql == neverEnds {
			break
		}
	}
	fast := grade(t, ts.URL, GradeRequest{Items: []GradeItem{{DBID: "concert_singer", Gold: Gold{"SELECT count(*) FROM singer"}, Pred: ptr("SELECT count(*) FROM singer")}}})
	order <- "fast"
	if first := <-order; first != "fast" {
		t.Errorf("the quick request waited for the never-ending one")
	}
	<-order
	if fast[0].Verdict != Correct || slow[0].Verdict != Timeout || slow[0].Error == "" {
		t.Errorf("fast %+v, slow %+v", fast[0], slow[0])
	}
}

// TestShutdownDrains stops the server while a request is in flight: the
// request is answered, new connections are refused, Serve returns nil.
func TestShutdownDrains(t *testing.T) {
	eng := newCountingEngine(t)
	eng.started = make(chan string, 16)
	s := New(Config{Engine: eng, Timeout: time.Second, Workers: 2})
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	url := "http://" + ln.Addr().String()
	ctx, stop := context.WithCancel(context.Background())
	served := make(chan error, 1)
	go func() { served <- s.Serve(ctx, ln, Shutdown{Drain: 30 * time.Second}) }()
	got := make(chan []GradeResult, 1)
	go func() {
		got <- grade(t, url, GradeRequest{Items: []GradeItem{{DBID: "concert_singer", Gold: Gold{"SELECT 1"}, Pred: ptr(neverEnds)}}})
	}()
	for sql := range eng.started {
		if sql == neverEnds {
			break
		}
	}
	stop() // as SIGTERM does through the CLI's context
	res := <-got
	if res[0].Verdict != Timeout {
		t.Errorf("in-flight request: %+v, want its timeout verdict", res[0])
	}
	if err := <-served; err != nil {
		t.Errorf("Serve: %v", err)
	}
	if _, err := http.Get(url + "/healthz"); err == nil {
		t.Errorf("the stopped server still accepts connections")
	}
}

// TestOpenRLHF speaks OpenRLHF's remote reward protocol: labels as JSON
// strings, or looked up by prompt in --labels; the completion is the
// query without its prompt.
func TestOpenRLHF(t *testing.T) {
	prompt := "Question: how many singers?\n"
	labels := map[string]Label{prompt: {DBID: "concert_singer", Gold: Gold{"SELECT count(*) FROM singer"}}}
	_, _, ts := newTestServer(t, Config{Labels: labels})
	good := prompt + "<think>count them</think>\n<solution>SELECT count(*) FROM singer</solution>"
	wrong := prompt + "<think>count</think><solution>SELECT count(*) FROM stadium</solution>"
	noThink := prompt + "<solution>SELECT count(*) FROM singer</solution>"
	label := `{"db_id": "concert_singer", "gold": "SELECT count(*) FROM singer"}`
	body := map[string]any{
		"query":   []string{good, wrong, noThink, good},
		"prompts": []string{prompt, prompt, prompt, prompt},
		"labels":  []any{label, label, label, nil},
	}
	code, out := post(t, ts.URL+"/v1/openrlhf?preset=skyrl-sql", body)
	if code != 200 {
		t.Fatalf("HTTP %d %s", code, out)
	}
	var resp struct {
		Rewards   []any            `json:"rewards"`
		Scores    []any            `json:"scores"`
		ExtraLogs map[string][]any `json:"extra_logs"`
	}
	if err := json.Unmarshal(out, &resp); err != nil {
		t.Fatal(err)
	}
	want := fmt.Sprint([]float64{1, 0, -1, 1}, []float64{1, 0, 0, 1}, []float64{1, 0, 0, 1}, []float64{1, 1, 0, 1})
	if got := fmt.Sprint(resp.Rewards, resp.Scores, resp.ExtraLogs["correct"], resp.ExtraLogs["executed"]); got != want || len(resp.ExtraLogs) != 2 {
		t.Errorf("got %s\nwant %s\n%s", got, want, out)
	}
	for k, vs := range resp.ExtraLogs {
		for _, v := range vs {
			if _, ok := v.(float64); !ok {
				t.Errorf("extra_logs %s holds %v, not a number", k, v)
			}
		}
	}
	// A prompt not in --labels, a malformed label, a label without gold or
	// with an unknown metric: HTTP 400 naming the sample, never a reward
	// that looks like a wrong answer.
	for _, c := range []struct {
		label any
		want  string
	}{
		{nil, "labels[1]: no label sent and the prompt is not in the --labels file"},
		{"{not json", "labels[1]: label"},
		{`{"db_id": "concert_singer"}`, `labels[1]: label`},
		{`{"db_id": "concert_singer", "gold": "SELECT 1", "metric": "nope"}`, `labels[1].metric: unknown metric`},
		{map[string]any{"db_id": "concert_singer", "gold": []string{}}, `labels[1]: label`},
	} {
		code, out = post(t, ts.URL+"/v1/openrlhf", map[string]any{"query": []string{good, "other" + good}, "prompts": []string{prompt, "other"}, "labels": []any{nil, c.label}})
		if code != 400 || !strings.Contains(string(out), c.want) {
			t.Errorf("label %v: HTTP %d %s; want 400 with %q", c.label, code, out, c.want)
		}
	}
	for _, c := range []string{`{"query": []}`, `{"query": ["x"], "prompts": ["a", "b"]}`} {
		if code, out := post(t, ts.URL+"/v1/openrlhf", c); code != 400 {
			t.Errorf("%s: HTTP %d %s", c, code, out)
		}
	}
	if code, out := post(t, ts.URL+"/v1/openrlhf?preset=nope", `{"query": ["x"]}`); code != 400 || !strings.Contains(string(out), "unknown preset") {
		t.Errorf("unknown preset: HTTP %d %s", code, out)
	}
}

// TestVerlExample runs examples/verl_reward.py's compute_score, as verl's
// naive reward manager calls it, against the server.
func TestVerlExample(t *testing.T) {
	py := "/usr/bin/python3"
	if _, err := os.Stat(py); err != nil {
		if py, err = exec.LookPath("python3"); err != nil {
			if os.Getenv("CI") != "" {
				t.Fatal("python3 is needed to test examples/verl_reward.py")
			}
			t.Skip("no python3 to run examples/verl_reward.py")
		}
	}
	_, _, ts := newTestServer(t, Config{Token: "verl-token"})
	script := `
import json, sys
sys.path.insert(0, "../../examples")
import verl_reward
gt = json.dumps({"db_id": "concert_singer", "gold": "SELECT count(*) FROM singer"})
out = [verl_reward.compute_score(data_source="spider", solution_str=s, ground_truth=gt, extra_info={"index": i})
       for i, s in enumerate(["<think>x</think><answer>` + "```sql\\nSELECT count(*) FROM singer\\n```" + `</answer>",
                              "SELECT count(*) FROM stadium", "SELECT nope FROM singer"])]
try:
    verl_reward.compute_score(data_source="spider", solution_str="x", ground_truth=json.dumps({"db_id": "concert_singer", "gold": 3}))
except ValueError as e:
    out.append(str(e)[:30])
print(json.dumps(out))
`
	cmd := exec.Command(py, "-c", script)
	cmd.Env = append(os.Environ(), "SQLJUDGE_URL="+ts.URL, "SQLJUDGE_PRESET=arctic", "SQLJUDGE_SERVE_TOKEN=verl-token")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	want := `[{"score": 1.0, "correct": true, "verdict": "correct"}, {"score": 0.1, "correct": false, "verdict": "wrong"}, {"score": 0.0, "correct": false, "verdict": "invalid"}, "sqljudge rejected the request:"]`
	if strings.TrimSpace(string(out)) != want {
		t.Errorf("got  %s\nwant %s", out, want)
	}
}
