package cli

import (
	"encoding/json"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/sqljudge/sqljudge/internal/llm/llmtest"
	"github.com/sqljudge/sqljudge/internal/run"
	"github.com/sqljudge/sqljudge/internal/shareddata"
)

// A judge that reads the question, given a gold file without questions
// (Spider's dev_gold.sql), must refuse the run up front with exit 2, not
// grade every item as judge_error.
func TestJudgesNeedQuestionsUpFront(t *testing.T) {
	spider := shareddata.SubsetPath(t, "spider")
	srv := llmtest.New(t, func(r *llmtest.Request) llmtest.Reply { return llmtest.Reply{Content: `{"E": "x", "S": 3}`} })
	gold := filepath.Join(spider, "dev_gold.sql")
	for _, m := range []string{"xscore", "rose", "flex"} {
		out := t.TempDir()
		code, _, stderr := runMain(t, "eval", "--gold", gold, "--pred", filepath.Join(spider, "predictions", "din_sql.sql"),
			"--db", filepath.Join(spider, "database"), "--metrics", "ex,"+m, "--out", out,
			"--llm-base-url", srv.BaseURL(), "--llm-model", "scripted")
		if code != ExitUsage || !strings.Contains(stderr, gold+":1: "+m+" needs the question") || !strings.Contains(stderr, fmt.Sprintf("%d of %d", shareddata.SubsetItems, shareddata.SubsetItems)) {
			t.Errorf("%s: exit %d, stderr %q", m, code, stderr)
		}
		if _, err := os.Stat(filepath.Join(out, run.ResultsFile)); err == nil {
			t.Errorf("%s: a refused run wrote results", m)
		}
	}
	if srv.Requests() != 0 {
		t.Errorf("%d requests for a refused run", srv.Requests())
	}
}

// deadURL returns a loopback base URL on which nothing listens.
func deadURL(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	return "http://" + addr + "/v1"
}

// firstItems writes the first n items of Spider dev (dev.json and DIN-SQL's
// predictions) to a temporary gold and prediction file.
func firstItems(t *testing.T, n int) (gold, pred string) {
	t.Helper()
	spider := shareddata.SubsetPath(t, "spider")
	b, err := os.ReadFile(filepath.Join(spider, "dev.json"))
	if err != nil {
		t.Fatal(err)
	}
	var all []json.RawMessage
	if err := json.Unmarshal(b, &all); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	gold = filepath.Join(dir, "dev.json")
	gb, _ := json.Marshal(all[:n])
	if err := os.WriteFile(gold, gb, 0o644); err != nil {
		t.Fatal(err)
	}
	return gold, headFile(t, filepath.Join(spider, "predictions", "din_sql.sql"), dir, "pred.sql", n)
}

// A dead endpoint must stop the run in seconds, naming the URL, not cost
// seconds of retries per item: the check before grading catches it; with
// the check off, the circuit breaker stops the run after a few
// consecutive failures, keeping what was finished.
func TestDeadEndpointStopsTheRunFast(t *testing.T) {
	spider := shareddata.SubsetPath(t, "spider")
	gold, pred := firstItems(t, shareddata.SubsetItems)
	dead := deadURL(t)
	args := func(out string, extra ...string) []string {
		return append([]string{"eval", "--gold", gold, "--pred", pred, "--db", filepath.Join(spider, "database"),
			"--metrics", "ex,xscore", "--out", out, "--llm-base-url", dead, "--llm-model", "m"}, extra...)
	}
	out := t.TempDir()
	start := time.Now()
	code, _, stderr := runMain(t, args(out)...)
	if code != ExitError || !strings.Contains(stderr, dead) || !strings.Contains(stderr, "unreachable") {
		t.Fatalf("exit %d, stderr %q", code, stderr)
	}
	t.Logf("checked: failed in %s: %s", time.Since(start), strings.TrimSpace(stderr))
	if _, err := os.Stat(filepath.Join(out, run.ResultsFile)); err == nil {
		t.Error("a run refused up front wrote results")
	}

	out = t.TempDir()
	start = time.Now()
	code, _, stderr = runMain(t, args(out, "--llm-check=false", "--llm-retries", "0", "--llm-max-failures", "3", "--workers", "1")...)
	if code != ExitError || !strings.Contains(stderr, dead) || !strings.Contains(stderr, "circuit breaker") || !strings.Contains(stderr, "--resume") {
		t.Fatalf("exit %d, stderr %q", code, stderr)
	}
	t.Logf("breaker: failed in %s: %s", time.Since(start), strings.TrimSpace(stderr))
	recs, _, err := run.ReadRecords(filepath.Join(out, run.ResultsFile))
	if err != nil {
		t.Fatal(err)
	}
	if len(recs) > 3 {
		t.Errorf("%d records written; the breaker should stop after 3 failed items", len(recs))
	}
}
