package llm_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/sqljudge/sqljudge/internal/llm"
	"github.com/sqljudge/sqljudge/internal/llm/llmtest"
)

func newClient(t *testing.T, srv *llmtest.Server, mod func(*llm.Config)) *llm.Client {
	t.Helper()
	cfg := llm.Config{BaseURL: srv.BaseURL(), Model: "scripted-1", Seed: 7, Temperature: 0, MaxRetries: 3}
	if mod != nil {
		mod(&cfg)
	}
	c, err := llm.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func req(user string) llm.Request {
	return llm.Request{Messages: []llm.Message{{Role: "system", Content: "You judge SQL."}, {Role: "user", Content: user}}}
}

var verdictSchema = &llm.Schema{Name: "verdict", Schema: map[string]any{
	"type": "object", "properties": map[string]any{"correct": map[string]any{"type": "boolean"}},
	"required": []string{"correct"}, "additionalProperties": false,
}}

func TestChatSendsParametersAndReadsUsage(t *testing.T) {
	srv := llmtest.New(t, func(r *llmtest.Request) llmtest.Reply {
		return llmtest.Reply{Content: `{"correct": true}`}
	})
	c := newClient(t, srv, func(c *llm.Config) { c.APIKey = "sk-test"; c.Temperature = 0.3; c.MaxTokens = 256 })
	r := req("Is SELECT 1 right?")
	r.Schema = verdictSchema
	r.Sample = 2
	rep, err := c.Chat(context.Background(), r)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Content != `{"correct": true}` || rep.Cached {
		t.Fatalf("reply %+v", rep)
	}
	log := srv.Log()
	if len(log) != 1 {
		t.Fatalf("%d requests, want 1", len(log))
	}
	got := log[0]
	if got.Model != "scripted-1" || got.Temperature == nil || *got.Temperature != 0.3 || got.Seed == nil || *got.Seed != 9 || got.MaxTokens == nil || *got.MaxTokens != 256 {
		t.Errorf("sent model %q temperature %v seed %v max_tokens %v; want scripted-1, 0.3, 7+2, 256", got.Model, got.Temperature, got.Seed, got.MaxTokens)
	}
	if got.Auth != "Bearer sk-test" {
		t.Errorf("Authorization %q", got.Auth)
	}
	var rf struct {
		Type       string `json:"type"`
		JSONSchema struct {
			Name   string         `json:"name"`
			Schema map[string]any `json:"schema"`
		} `json:"json_schema"`
	}
	if err := json.Unmarshal(got.ResponseFormat, &rf); err != nil || rf.Type != "json_schema" || rf.JSONSchema.Name != "verdict" || rf.JSONSchema.Schema["type"] != "object" {
		t.Errorf("response_format %s (%v)", got.ResponseFormat, err)
	}
	pt, ct := srv.Tokens()
	if rep.PromptTokens != pt || rep.CompletionTokens != ct || pt == 0 || ct == 0 {
		t.Errorf("usage %d/%d, server counted %d/%d", rep.PromptTokens, rep.CompletionTokens, pt, ct)
	}
	u := c.Usage()
	if u.Calls != 1 || u.HTTPRequests != 1 || u.PromptTokens != pt || u.CompletionTokens != ct {
		t.Errorf("usage %+v", u)
	}
}

func TestTemperatureZeroIsSent(t *testing.T) {
	srv := llmtest.New(t, func(r *llmtest.Request) llmtest.Reply { return llmtest.Reply{Content: "ok"} })
	c := newClient(t, srv, nil)
	if _, err := c.Chat(context.Background(), req("x")); err != nil {
		t.Fatal(err)
	}
	got := srv.Log()[0]
	if got.Temperature == nil || *got.Temperature != 0 || got.Seed == nil || *got.Seed != 7 {
		t.Fatalf("temperature %v seed %v: a zero temperature must be sent, not omitted", got.Temperature, got.Seed)
	}
	if got.Auth != "" {
		t.Errorf("no key configured, but Authorization %q was sent", got.Auth)
	}
}

func TestRetryAfter429(t *testing.T) {
	var mu sync.Mutex
	var at []time.Time
	srv := llmtest.New(t, func(r *llmtest.Request) llmtest.Reply {
		mu.Lock()
		at = append(at, time.Now())
		mu.Unlock()
		if r.N == 1 {
			return llmtest.Reply{Status: 429, Header: map[string]string{"Retry-After": "1"}}
		}
		return llmtest.Reply{Content: "fine"}
	})
	c := newClient(t, srv, nil)
	rep, err := c.Chat(context.Background(), req("rate limited"))
	if err != nil {
		t.Fatal(err)
	}
	if rep.Content != "fine" || srv.Requests() != 2 {
		t.Fatalf("content %q after %d requests; want fine after 2", rep.Content, srv.Requests())
	}
	// The server asked for one second: the retry must not come earlier.
	if gap := at[1].Sub(at[0]); gap < time.Second {
		t.Errorf("retried after %s; Retry-After asked for 1s", gap)
	}
	if u := c.Usage(); u.HTTPRequests != 2 || u.Calls != 1 {
		t.Errorf("usage %+v; want 2 HTTP requests for 1 call", u)
	}
}

func TestServerErrorsRetriedThenFail(t *testing.T) {
	srv := llmtest.New(t, func(r *llmtest.Request) llmtest.Reply {
		if strings.Contains(r.User(), "recovers") && r.N == 3 {
			return llmtest.Reply{Content: "back"}
		}
		return llmtest.Reply{Status: 500 + r.N%4, Header: map[string]string{"Retry-After-Ms": "5"}}
	})
	c := newClient(t, srv, func(c *llm.Config) { c.MaxRetries = 2 })
	rep, err := c.Chat(context.Background(), req("recovers on the third try"))
	if err != nil || rep.Content != "back" {
		t.Fatalf("got %v, %v; want the third attempt's reply", rep, err)
	}
	if n := srv.Requests(); n != 3 {
		t.Fatalf("%d requests, want 3", n)
	}
	_, err = c.Chat(context.Background(), req("stays down"))
	if !errors.Is(err, llm.ErrRequest) {
		t.Fatalf("err %v, want ErrRequest", err)
	}
	if n := srv.Requests(); n != 6 {
		t.Fatalf("%d requests in all, want 3 + 3 (first try and 2 retries)", n)
	}
	// MaxRetries 0 means no retry (issue 12.9: it used to mean 4).
	once := newClient(t, srv, func(c *llm.Config) { c.MaxRetries = 0 })
	if _, err := once.Chat(context.Background(), req("no second try")); !errors.Is(err, llm.ErrRequest) {
		t.Fatalf("err %v, want ErrRequest", err)
	}
	if n := srv.Requests(); n != 7 {
		t.Fatalf("%d requests in all, want 6 + 1 (no retry)", n)
	}
}

func TestSlowReplyTimesOut(t *testing.T) {
	srv := llmtest.New(t, func(r *llmtest.Request) llmtest.Reply {
		return llmtest.Reply{Content: "too late", Delay: 10 * time.Second}
	})
	c := newClient(t, srv, func(c *llm.Config) { c.Timeout = 100 * time.Millisecond })
	_, err := c.Chat(context.Background(), req("slow"))
	if !errors.Is(err, llm.ErrRequest) || !strings.Contains(err.Error(), "no reply within") {
		t.Fatalf("err %v, want a timeout wrapping ErrRequest", err)
	}
}

func TestMalformedResponseBody(t *testing.T) {
	srv := llmtest.New(t, func(r *llmtest.Request) llmtest.Reply {
		return llmtest.Reply{Body: `{"choices": [ {"message": `}
	})
	c := newClient(t, srv, nil)
	_, err := c.Chat(context.Background(), req("broken"))
	if !errors.Is(err, llm.ErrRequest) {
		t.Fatalf("err %v, want ErrRequest", err)
	}
}

func TestNoChoicesIsAnError(t *testing.T) {
	srv := llmtest.New(t, func(r *llmtest.Request) llmtest.Reply {
		return llmtest.Reply{Body: `{"id":"x","object":"chat.completion","choices":[],"usage":{"prompt_tokens":1,"completion_tokens":0}}`}
	})
	c := newClient(t, srv, nil)
	if _, err := c.Chat(context.Background(), req("empty")); !errors.Is(err, llm.ErrRequest) {
		t.Fatalf("err %v, want ErrRequest", err)
	}
}

func TestCacheServesRerunWithoutRequests(t *testing.T) {
	srv := llmtest.New(t, func(r *llmtest.Request) llmtest.Reply {
		return llmtest.Reply{Content: fmt.Sprintf(`{"echo": %q, "seed": %d}`, r.User(), *r.Seed)}
	})
	dir := t.TempDir()
	var first []*llm.Reply
	c1 := newClient(t, srv, func(c *llm.Config) { c.CacheDir = dir })
	for s := range 3 {
		for _, q := range []string{"a", "b"} {
			r := req(q)
			r.Sample = s
			rep, err := c1.Chat(context.Background(), r)
			if err != nil {
				t.Fatal(err)
			}
			first = append(first, rep)
		}
	}
	if n := srv.Requests(); n != 6 {
		t.Fatalf("first run made %d requests, want 6 (2 prompts x 3 samples)", n)
	}
	c2 := newClient(t, srv, func(c *llm.Config) { c.CacheDir = dir })
	k := 0
	for s := range 3 {
		for _, q := range []string{"a", "b"} {
			r := req(q)
			r.Sample = s
			rep, err := c2.Chat(context.Background(), r)
			if err != nil {
				t.Fatal(err)
			}
			if !rep.Cached || rep.Content != first[k].Content || rep.Key != first[k].Key || string(rep.Raw) != string(first[k].Raw) {
				t.Errorf("re-run reply %d: cached=%v %q; first run %q", k, rep.Cached, rep.Content, first[k].Content)
			}
			if _, err := os.Stat(c2.Store().Path(rep.Key)); err != nil {
				t.Errorf("raw reply not kept: %v", err)
			}
			k++
		}
	}
	if n := srv.Requests(); n != 6 {
		t.Fatalf("the re-run made %d requests; want none", n-6)
	}
	if u := c2.Usage(); u.CacheHits != 6 || u.HTTPRequests != 0 || u.PromptTokens != 0 {
		t.Errorf("re-run usage %+v", u)
	}
	// Another model is another key: the cache must not answer for it.
	c3 := newClient(t, srv, func(c *llm.Config) { c.CacheDir = dir; c.Model = "other" })
	if rep, err := c3.Chat(context.Background(), req("a")); err != nil || rep.Cached {
		t.Fatalf("other model: %v, cached=%v", err, rep != nil && rep.Cached)
	}
	entries, _ := filepath.Glob(filepath.Join(dir, "*", "*.json"))
	if len(entries) != 7 {
		t.Errorf("%d stored replies, want 7", len(entries))
	}
}

func TestSchemaFallbackWhenServerRejectsIt(t *testing.T) {
	srv := llmtest.New(t, func(r *llmtest.Request) llmtest.Reply {
		if len(r.ResponseFormat) > 0 && string(r.ResponseFormat) != "null" {
			return llmtest.Reply{Status: 400, Body: `{"error":{"message":"response_format json_schema is not supported"}}`}
		}
		return llmtest.Reply{Content: "Sure.\n```json\n{\"correct\": false}\n```"}
	})
	c := newClient(t, srv, nil)
	for i := range 2 {
		r := req(fmt.Sprint("q", i))
		r.Schema = verdictSchema
		rep, err := c.Chat(context.Background(), r)
		if err != nil {
			t.Fatal(err)
		}
		m, err := llm.ExtractObject(rep.Content, "correct")
		if err != nil || m["correct"] != false {
			t.Fatalf("parsed %v, %v", m, err)
		}
	}
	// One rejected request, then two without a schema.
	if n := srv.Requests(); n != 3 {
		t.Fatalf("%d requests, want 3", n)
	}
	if !c.Usage().SchemaFallback {
		t.Error("fallback not reported")
	}
	on := newClient(t, srv, func(c *llm.Config) { c.Schema = llm.SchemaOn })
	r := req("strict")
	r.Schema = verdictSchema
	if _, err := on.Chat(context.Background(), r); !errors.Is(err, llm.ErrRequest) {
		t.Fatalf("schema on: err %v, want the rejection", err)
	}
}

func TestConcurrencyLimit(t *testing.T) {
	var inflight, peak atomic.Int32
	srv := llmtest.New(t, func(r *llmtest.Request) llmtest.Reply {
		n := inflight.Add(1)
		for {
			p := peak.Load()
			if n <= p || peak.CompareAndSwap(p, n) {
				break
			}
		}
		time.Sleep(20 * time.Millisecond)
		inflight.Add(-1)
		return llmtest.Reply{Content: "ok"}
	})
	c := newClient(t, srv, func(c *llm.Config) { c.Concurrency = 2 })
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Go(func() {
			if _, err := c.Chat(context.Background(), req(fmt.Sprint("q", i))); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	if p := peak.Load(); p > 2 || p == 0 {
		t.Fatalf("%d requests in flight at once; the limit is 2", p)
	}
}

func TestConfigErrors(t *testing.T) {
	for _, tc := range []struct {
		cfg  llm.Config
		want string
	}{
		{llm.Config{Model: "m"}, "no base URL"},
		{llm.Config{BaseURL: "http://x"}, "no model"},
		{llm.Config{BaseURL: "http://x", Model: "m", Temperature: 3}, "temperature"},
		{llm.Config{BaseURL: "http://x", Model: "m", Schema: "maybe"}, "schema mode"},
		{llm.Config{BaseURL: "http://x", Model: "m", MaxRetries: -1}, "-1 retries"},
		{llm.Config{BaseURL: "http://x", Model: "m", MaxFailures: -1}, "-1 failures"},
	} {
		_, err := llm.New(tc.cfg)
		if !errors.Is(err, llm.ErrConfig) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%+v: err %v, want %q", tc.cfg, err, tc.want)
		}
	}
	t.Setenv(llm.EnvBaseURL, "http://env/v1")
	t.Setenv(llm.EnvModel, "env-model")
	t.Setenv(llm.EnvAPIKey, "env-key")
	got := llm.Config{Model: "flag-model"}.FromEnv()
	if got.BaseURL != "http://env/v1" || got.Model != "flag-model" || got.APIKey != "env-key" {
		t.Errorf("FromEnv: %+v; flags must win over the environment", got)
	}
}

func TestExtractObject(t *testing.T) {
	for _, tc := range []struct {
		name, reply string
		want        string // JSON of the expected object; "" = error
	}{
		{"bare", `{"verdict": true, "reason": "ok"}`, `{"reason":"ok","verdict":true}`},
		{"fence", "Here you go:\n```json\n{\"verdict\": false}\n```\nDone.", `{"verdict":false}`},
		{"fence without info string", "```\n{\"verdict\": true}\n```", `{"verdict":true}`},
		{"prose around", `I think the query is right. {"verdict": true} That is all.`, `{"verdict":true}`},
		{"braces in strings", `Answer: {"reason": "uses {x} and \"}\"", "verdict": false}`, `{"reason":"uses {x} and \"}\"","verdict":false}`},
		{"last answer wins", "Example: {\"verdict\": true}\nMy answer:\n```json\n{\"verdict\": false}\n```", `{"verdict":false}`},
		{"object without the key is skipped", `{"note": 1} then {"verdict": true}`, `{"verdict":true}`},
		{"unclosed fence", "```json\n{\"verdict\": true}", `{"verdict":true}`},
		{"malformed", `{"verdict": tru`, ""},
		{"no json", "The query is correct.", ""},
		{"missing key", `{"correct": true}`, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m, err := llm.ExtractObject(tc.reply, "verdict")
			if tc.want == "" {
				if !errors.Is(err, llm.ErrNoJSON) {
					t.Fatalf("got %v, %v; want ErrNoJSON", m, err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			b, _ := json.Marshal(m)
			if string(b) != tc.want {
				t.Fatalf("got %s, want %s", b, tc.want)
			}
		})
	}
}

func TestTolerantFields(t *testing.T) {
	m := map[string]any{"a": "TRUE", "b": 0.0, "c": "2", "d": 2.5, "e": "maybe", "f": []any{"x"}}
	if v, ok := llm.Bool(m, "a"); !ok || !v {
		t.Error("a")
	}
	if v, ok := llm.Bool(m, "b"); !ok || v {
		t.Error("b")
	}
	if _, ok := llm.Bool(m, "e"); ok {
		t.Error("e is not a boolean")
	}
	if v, ok := llm.Int(m, "c"); !ok || v != 2 {
		t.Error("c")
	}
	if _, ok := llm.Int(m, "d"); ok {
		t.Error("2.5 is not an integer")
	}
	if llm.String(m, "f") != `["x"]` || llm.String(m, "zz") != "" {
		t.Error("String")
	}
}

// The same prompt sent to another server is another request: a reply
// stored from one endpoint must never answer for another, nor for a
// request that differs in any parameter sent.
func TestCacheKeyCoversURLAndWholeRequest(t *testing.T) {
	a := llmtest.New(t, func(r *llmtest.Request) llmtest.Reply { return llmtest.Reply{Content: `{"from": "a"}`} })
	b := llmtest.New(t, func(r *llmtest.Request) llmtest.Reply { return llmtest.Reply{Content: `{"from": "b"}`} })
	dir := t.TempDir()
	ctx := context.Background()
	ask := func(c *llm.Client, r llm.Request) *llm.Reply {
		t.Helper()
		rep, err := c.Chat(ctx, r)
		if err != nil {
			t.Fatal(err)
		}
		return rep
	}
	r := req("How many singers?")
	r.Schema = verdictSchema
	ra := ask(newClient(t, a, func(c *llm.Config) { c.CacheDir = dir }), r)
	rb := ask(newClient(t, b, func(c *llm.Config) { c.CacheDir = dir }), r)
	if rb.Cached || rb.Content != `{"from": "b"}` || b.Requests() != 1 || rb.Key == ra.Key {
		t.Fatalf("server b was answered from a's cache entry: cached=%v content %s, b got %d requests", rb.Cached, rb.Content, b.Requests())
	}
	// The same URL written with a trailing slash is the same endpoint.
	ra2 := ask(newClient(t, a, func(c *llm.Config) { c.CacheDir = dir; c.BaseURL = a.BaseURL() + "/" }), r)
	if !ra2.Cached || ra2.Key != ra.Key {
		t.Errorf("trailing slash: cached=%v", ra2.Cached)
	}
	keys := map[string]string{"base": ra.Key}
	for name, mod := range map[string]func(*llm.Config){
		"temperature": func(c *llm.Config) { c.Temperature = 0.5 },
		"seed":        func(c *llm.Config) { c.Seed = 8 },
		"max_tokens":  func(c *llm.Config) { c.MaxTokens = 100 },
		"schema off":  func(c *llm.Config) { c.Schema = llm.SchemaOff },
		"model":       func(c *llm.Config) { c.Model = "scripted-2" },
	} {
		rep := ask(newClient(t, a, func(c *llm.Config) { c.CacheDir = dir; mod(c) }), r)
		if rep.Cached {
			t.Errorf("%s changed, yet the reply came from the cache", name)
		}
		for other, k := range keys {
			if k == rep.Key {
				t.Errorf("%s has the key of %s", name, other)
			}
		}
		keys[name] = rep.Key
	}
}

// refusedURL returns a loopback base URL on which nothing listens: every
// connection is refused at once.
func refusedURL(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	return "http://" + addr + "/v1"
}

func TestCheckNamesADeadEndpoint(t *testing.T) {
	srv := llmtest.New(t, func(r *llmtest.Request) llmtest.Reply { return llmtest.Reply{Content: "{}"} })
	if err := newClient(t, srv, nil).Check(context.Background()); err != nil {
		t.Fatalf("a live endpoint: %v", err)
	}
	if srv.Requests() != 0 {
		t.Errorf("the check made %d chat requests", srv.Requests())
	}
	dead := refusedURL(t)
	c, err := llm.New(llm.Config{BaseURL: dead, Model: "m"})
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	err = c.Check(context.Background())
	if !errors.Is(err, llm.ErrUnreachable) || !strings.Contains(err.Error(), dead) {
		t.Fatalf("dead endpoint: %v", err)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("the check took %s on a refused connection", d)
	}
	// A key the server refuses is named too.
	auth := llmtest.New(t, func(r *llmtest.Request) llmtest.Reply { return llmtest.Reply{Status: 401} })
	auth.ModelsStatus = 401
	if err := newClient(t, auth, nil).Check(context.Background()); err == nil || !strings.Contains(err.Error(), "401") {
		t.Errorf("refused key: %v", err)
	}
}

// After MaxFailures consecutive requests that got no HTTP response the
// client stops calling: every later request fails at once with
// ErrUnreachable, and Broken is closed so a run can stop.
func TestCircuitBreakerAfterConsecutiveConnectionFailures(t *testing.T) {
	dead := refusedURL(t)
	c, err := llm.New(llm.Config{BaseURL: dead, Model: "m", MaxFailures: 3})
	if err != nil {
		t.Fatal(err)
	}
	select {
	case <-c.Broken():
		t.Fatal("broken before any request")
	default:
	}
	var called atomic.Int64
	c.OnBreak(func(err error) {
		if called.Add(1) == 1 && !errors.Is(err, llm.ErrUnreachable) {
			t.Errorf("OnBreak got %v", err)
		}
	})
	for i := range 10 {
		_, err := c.Chat(context.Background(), req(fmt.Sprint("q", i)))
		if !errors.Is(err, llm.ErrRequest) {
			t.Fatalf("request %d: %v", i, err)
		}
		if i >= 3 && (!errors.Is(err, llm.ErrUnreachable) || !strings.Contains(err.Error(), "3 consecutive")) {
			t.Fatalf("request %d after the breaker tripped: %v", i, err)
		}
	}
	if called.Load() != 1 {
		t.Errorf("OnBreak called %d times, want once", called.Load())
	}
	if n := c.Usage().HTTPRequests; n != 3 {
		t.Errorf("%d HTTP attempts; the breaker should stop at 3", n)
	}
	select {
	case <-c.Broken():
	default:
		t.Fatal("Broken not closed")
	}
	if !errors.Is(c.Err(), llm.ErrUnreachable) || !strings.Contains(c.Err().Error(), dead) {
		t.Errorf("Err %v", c.Err())
	}
	// A success resets the count: failures that are not consecutive never
	// trip it.
	var n atomic.Int64
	flaky := llmtest.New(t, func(r *llmtest.Request) llmtest.Reply {
		if n.Add(1)%2 == 0 {
			return llmtest.Reply{Status: 500}
		}
		return llmtest.Reply{Content: "{}"}
	})
	fc := newClient(t, flaky, func(c *llm.Config) { c.MaxRetries = 0; c.MaxFailures = 1 })
	for i := range 6 {
		fc.Chat(context.Background(), req(fmt.Sprint("q", i)))
	}
	select {
	case <-fc.Broken():
		t.Error("HTTP errors from a live server tripped the breaker")
	default:
	}
}

func TestRequestHeadersAreSentAndNotKeyed(t *testing.T) {
	srv := llmtest.New(t, func(r *llmtest.Request) llmtest.Reply {
		return llmtest.Reply{Content: "ok " + r.Header.Get("X-Sqljudge-Step")}
	})
	c := newClient(t, srv, nil)
	r := req("Which step?")
	r.Header = map[string]string{"X-Sqljudge-Step": "revise", "X-Sqljudge-Item": "17"}
	rep, err := c.Chat(context.Background(), r)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Content != "ok revise" {
		t.Fatalf("reply %q", rep.Content)
	}
	h := srv.Log()[0].Header
	if h.Get("X-Sqljudge-Step") != "revise" || h.Get("X-Sqljudge-Item") != "17" {
		t.Fatalf("headers %v", h)
	}
	r2 := req("Which step?")
	r2.Header = map[string]string{"X-Sqljudge-Step": "evaluate"}
	if c.Key(r2) != c.Key(r) {
		t.Fatal("headers changed the cache key")
	}
	rep2, err := c.Chat(context.Background(), r2)
	if err != nil {
		t.Fatal(err)
	}
	if !rep2.Cached || srv.Requests() != 1 {
		t.Fatalf("cached=%v requests=%d: a stored reply must serve a request whatever its headers", rep2.Cached, srv.Requests())
	}
}

func TestContextHeadersReachEveryRequest(t *testing.T) {
	srv := llmtest.New(t, func(r *llmtest.Request) llmtest.Reply { return llmtest.Reply{Content: "ok"} })
	c := newClient(t, srv, func(c *llm.Config) { c.EmbedModel = "e" })
	ctx := llm.WithHeaders(context.Background(), map[string]string{"X-Sqljudge-Step": "retrieve_entity", "X-Sqljudge-Item": "3"})
	if _, err := c.Embed(ctx, []string{"New York"}); err != nil {
		t.Fatal(err)
	}
	r := req("hi")
	r.Header = map[string]string{"X-Sqljudge-Step": "revise"}
	if _, err := c.Chat(ctx, r); err != nil {
		t.Fatal(err)
	}
	e := srv.EmbedLog()[0].Header
	h := srv.Log()[0].Header
	if e.Get("X-Sqljudge-Step") != "retrieve_entity" || e.Get("X-Sqljudge-Item") != "3" {
		t.Fatalf("embedding headers %v", e)
	}
	if h.Get("X-Sqljudge-Step") != "revise" || h.Get("X-Sqljudge-Item") != "3" {
		t.Fatalf("chat headers %v: the request's own header wins, the context's others stay", h)
	}
}

// Embedding requests count toward the circuit breaker as chat requests
// do: after MaxFailures of them got no reply, the next fails at once.
func TestCircuitBreakerCountsEmbeddings(t *testing.T) {
	c, err := llm.New(llm.Config{BaseURL: refusedURL(t), EmbedModel: "e", MaxFailures: 2})
	if err != nil {
		t.Fatal(err)
	}
	for i := range 4 {
		_, err := c.Embed(context.Background(), []string{fmt.Sprint("text ", i)})
		if !errors.Is(err, llm.ErrRequest) {
			t.Fatalf("embedding %d: %v", i, err)
		}
		if i >= 2 && !errors.Is(err, llm.ErrUnreachable) {
			t.Fatalf("embedding %d after the breaker tripped: %v", i, err)
		}
	}
	if n := c.Usage().HTTPRequests; n != 2 {
		t.Errorf("%d HTTP attempts; the breaker should stop at 2", n)
	}
	if !errors.Is(c.Err(), llm.ErrUnreachable) {
		t.Errorf("Err %v", c.Err())
	}
}
