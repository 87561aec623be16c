package cli

import (
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sqljudge/sqljudge/internal/generate"
	"github.com/sqljudge/sqljudge/internal/llm/llmtest"
)

// TestGenerateFailsLoudly is issue 21.10: generate with an endpoint that
// does not answer fails before any question (exit 1 naming the URL, no
// predictions.sql of placeholders), and a run in which questions failed
// prints its summary and exits 1 saying how many.
func TestGenerateFailsLoudly(t *testing.T) {
	spider, dev, gold := spiderDevGolds(t, 4)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	dead := "http://" + ln.Addr().String() + "/v1"
	ln.Close()
	base := []string{"generate", "--gold", dev, "--db", filepath.Join(spider, "database"), "--method", "direct",
		"--limit", "4", "--llm-model", "scripted-1", "--progress", "never"}
	out := filepath.Join(t.TempDir(), "dead")
	code, stdout, stderr := runMain(t, append(base, "--llm-base-url", dead, "--out", out)...)
	if code != ExitError || !strings.Contains(stderr, dead) || !strings.Contains(stderr, "nothing generated") {
		t.Errorf("unreachable endpoint: exit %d, stdout %q, stderr %q; want exit 1 naming %s", code, stdout, stderr, dead)
	}
	t.Logf("a user sees:\n%s", stderr)
	if _, err := os.Stat(filepath.Join(out, generate.PredictionsFile)); err == nil {
		t.Errorf("the refused run wrote %s", generate.PredictionsFile)
	}

	// The scripted model refuses one of the four questions.
	refused := ""
	for id := range gold {
		refused = max(refused, id)
	}
	srv := llmtest.New(t, func(r *llmtest.Request) llmtest.Reply {
		id := r.Header.Get(generate.HeaderItem)
		if id == refused {
			return llmtest.Reply{Status: 400, Body: `{"error":{"message":"scripted refusal"}}`}
		}
		return llmtest.Reply{Content: "```sql\n" + gold[id] + "\n```"}
	})
	out = filepath.Join(t.TempDir(), "some")
	code, stdout, stderr = runMain(t, append(base, "--llm-base-url", srv.BaseURL(), "--out", out)...)
	if code != ExitError || !strings.Contains(stdout, "4 questions (4 generated, 0 resumed, 1 failed)") ||
		!strings.Contains(stderr, "1 of 4 questions have no prediction") {
		t.Errorf("one question failed: exit %d\nstdout %s\nstderr %s", code, stdout, stderr)
	}
	t.Logf("a user sees:\n%s", stderr)
}
