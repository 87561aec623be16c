package serve

import (
	"bytes"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"
)

// TestRequestBounds: a body past --max-body and a batch past --max-batch
// (10,000 items by default, on both endpoints) are refused with HTTP 413
// naming the flag, before anything is graded; a batch at the bound is
// graded.
func TestRequestBounds(t *testing.T) {
	_, eng, ts := newTestServer(t, Config{})
	item := `{"db_id": "concert_singer", "gold": "SELECT 1", "pred": "SELECT 1"}`
	many := `{"items": [` + strings.TrimSuffix(strings.Repeat(item+",", DefaultMaxBatch+1), ",") + `]}`
	if code, out := post(t, ts.URL+"/v1/grade", many); code != http.StatusRequestEntityTooLarge || !strings.Contains(string(out), "--max-batch") {
		t.Errorf("%d items: HTTP %d %.200s; want 413 naming --max-batch", DefaultMaxBatch+1, code, out)
	}
	queries := `{"query": [` + strings.TrimSuffix(strings.Repeat(`"SELECT 1",`, DefaultMaxBatch+1), ",") + `]}`
	if code, out := post(t, ts.URL+"/v1/openrlhf", queries); code != http.StatusRequestEntityTooLarge || !strings.Contains(string(out), "--max-batch") {
		t.Errorf("%d queries: HTTP %d %.200s; want 413 naming --max-batch", DefaultMaxBatch+1, code, out)
	}
	if n := eng.total(); n != 0 {
		t.Errorf("refused requests ran %d queries", n)
	}
	big := `{"items": [{"db_id": "concert_singer", "gold": "SELECT 1", "pred": "SELECT '` + strings.Repeat("x", DefaultMaxBody) + `'"}]}`
	if code, out := post(t, ts.URL+"/v1/grade", big); code != http.StatusRequestEntityTooLarge || !strings.Contains(string(out), "--max-body") {
		t.Errorf("a %d-byte body: HTTP %d %.200s; want 413 naming --max-body", len(big), code, out)
	}

	_, _, small := newTestServer(t, Config{MaxBatch: 3, MaxBody: 4096})
	three := fmt.Sprintf(`{"preset": "binary", "items": [%s, %s, %s], "unknown": {"x": [1]}}`, item, item, item)
	if code, out := post(t, small.URL+"/v1/grade", three); code != http.StatusOK {
		t.Errorf("3 items at --max-batch 3: HTTP %d %s", code, out)
	}
	if code, out := post(t, small.URL+"/v1/grade", strings.Replace(three, "]", ", "+item+"]", 1)); code != http.StatusRequestEntityTooLarge {
		t.Errorf("4 items at --max-batch 3: HTTP %d %s", code, out)
	}
	if code, out := post(t, small.URL+"/v1/grade", `{"items": [`+item+`], "metric": "`+strings.Repeat("x", 5000)+`"}`); code != http.StatusRequestEntityTooLarge {
		t.Errorf("5 kB at --max-body 4096: HTTP %d %.200s", code, out)
	}
}

// syncBuffer is a bytes.Buffer safe for the server's concurrent writes.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// TestOneLogLinePerRequest: 500 items with unknown db_ids write one log
// line, which shows no server path.
func TestOneLogLinePerRequest(t *testing.T) {
	var log syncBuffer
	_, _, ts := newTestServer(t, Config{Log: &log})
	req := GradeRequest{}
	for k := range 500 {
		req.Items = append(req.Items, GradeItem{DBID: fmt.Sprintf("no_such_db_%d", k), Gold: Gold{"SELECT 1"}, Pred: ptr("SELECT 1")})
	}
	for _, r := range grade(t, ts.URL, req) {
		if r.Verdict != Error {
			t.Fatalf("%+v", r)
		}
	}
	out := log.String()
	if n := strings.Count(out, "\n"); n != 1 || !strings.Contains(out, "500 of 500 items not graded") || strings.Contains(out, "/database") {
		t.Errorf("%d log lines:\n%.500s", n, out)
	}
}
