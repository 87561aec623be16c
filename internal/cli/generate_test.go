package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sqljudge/sqljudge/internal/bench"
	"github.com/sqljudge/sqljudge/internal/generate"
	"github.com/sqljudge/sqljudge/internal/llm/llmtest"
	"github.com/sqljudge/sqljudge/internal/run"
	"github.com/sqljudge/sqljudge/internal/shareddata"
	"github.com/sqljudge/sqljudge/internal/status"
)

// spiderDevGolds returns the shared Spider folder, its dev.json and the
// first n dev questions' gold queries by item id, for a scripted model that
// answers each question with its gold.
func spiderDevGolds(t *testing.T, n int) (spider, dev string, gold map[string]string) {
	t.Helper()
	spider = shareddata.SubsetPath(t, "spider")
	dev = filepath.Join(spider, "dev.json")
	items, err := bench.LoadGold(dev, bench.FormatSpiderJSON)
	if err != nil {
		t.Fatal(err)
	}
	gold = map[string]string{}
	for _, it := range items[:n] {
		gold[it.ID] = it.Gold[0]
	}
	return spider, dev, gold
}

func TestGenerateDirectCommand(t *testing.T) {
	spider, dev, gold := spiderDevGolds(t, 4)
	srv := llmtest.New(t, func(r *llmtest.Request) llmtest.Reply {
		return llmtest.Reply{Content: "```sql\n" + gold[r.Header.Get(generate.HeaderItem)] + "\n```"}
	})
	out := filepath.Join(t.TempDir(), "out")
	args := []string{"generate", "--gold", dev, "--db", filepath.Join(spider, "database"), "--method", "direct",
		"--limit", "4", "--metrics", "ex", "--tables", filepath.Join(spider, "tables.json"), "--out", out,
		"--llm-base-url", srv.BaseURL(), "--llm-model", "scripted-1", "--progress", "never"}
	code, stdout, stderr := runMain(t, args...)
	if code != ExitOK {
		t.Fatalf("exit %d\n%s\n%s", code, stdout, stderr)
	}
	if !strings.Contains(stdout, "4 questions (4 generated") || !strings.Contains(stdout, "1.000") {
		t.Fatalf("stdout:\n%s", stdout)
	}
	for _, f := range []string{generate.PredictionsFile, generate.LedgerFile, generate.SummaryFile, "eval/results.jsonl"} {
		if _, err := os.Stat(filepath.Join(out, f)); err != nil {
			t.Error(err)
		}
	}
	if code, _, stderr := runMain(t, args...); code != ExitUsage || !strings.Contains(stderr, "--resume") {
		t.Fatalf("a second run into the same folder: exit %d, %s", code, stderr)
	}
	code, stdout, _ = runMain(t, append(args, "--overwrite")...)
	if code != ExitOK || srv.Requests() != 4 || !strings.Contains(stdout, "0 requests sent, 4 from the cache") {
		t.Fatalf("re-run: exit %d, %d requests\n%s", code, srv.Requests(), stdout)
	}
	for _, bad := range [][]string{
		{"generate", "--db", spider, "--out", out},
		{"generate", "--gold", dev, "--db", spider, "--out", out, "--config", "CHESS_NOPE"},
		{"generate", "--gold", dev, "--db", spider, "--out", out, "--method", "magic"},
		{"generate", "--gold", filepath.Join(spider, "dev_gold.sql"), "--db", filepath.Join(spider, "database"), "--out", t.TempDir(),
			"--llm-base-url", srv.BaseURL(), "--llm-model", "m", "--limit", "1"},
		{"generate", "--gold", dev, "--db", filepath.Join(spider, "database"), "--out", t.TempDir(),
			"--llm-base-url", srv.BaseURL(), "--llm-model", "m", "--limit", "1", "--metrics", "em"}, // em needs --tables
	} {
		if code, _, stderr := runMain(t, bad...); code != ExitUsage {
			t.Errorf("%v: exit %d, want %d (%s)", bad, code, ExitUsage, stderr)
		}
	}
	if srv.Requests() != 4 {
		t.Fatalf("bad input made %d LLM requests: it must be refused before any", srv.Requests()-4)
	}
}

func TestGenerateChessCommand(t *testing.T) {
	spider, dev, gold := spiderDevGolds(t, 2)
	srv := llmtest.New(t, func(r *llmtest.Request) llmtest.Reply {
		switch r.Header.Get(generate.HeaderStep) {
		case "extract_keywords":
			return llmtest.Reply{Content: `["singers", "France"]`}
		case "filter_column":
			return llmtest.Reply{Content: `{"chain_of_thought_reasoning": "", "is_column_information_relevant": "Yes"}`}
		case "select_tables":
			return llmtest.Reply{Content: `{"chain_of_thought_reasoning": "", "table_names": ["singer"]}`}
		case "select_columns":
			return llmtest.Reply{Content: `{"chain_of_thought_reasoning": "", "singer": ["Name"]}`}
		}
		return llmtest.Reply{Content: "<FINAL_ANSWER>" + gold[r.Header.Get(generate.HeaderItem)] + "</FINAL_ANSWER>"}
	})
	out := filepath.Join(t.TempDir(), "out")
	code, stdout, stderr := runMain(t, "generate", "--gold", dev, "--db", filepath.Join(spider, "database"),
		"--method", "chess", "--config", "CHESS_IR_SS_CG", "--limit", "2", "--metrics", "ex", "--out", out,
		"--llm-base-url", srv.BaseURL(), "--llm-model", "scripted-1", "--embed-model", "scripted-embed", "--progress", "never")
	if code != ExitOK {
		t.Fatalf("exit %d\n%s\n%s", code, stdout, stderr)
	}
	if !strings.Contains(stdout, "CHESS_IR_SS_CG: 2 questions (2 generated") || !strings.Contains(stdout, "1.000") {
		t.Fatalf("stdout:\n%s", stdout)
	}
	if _, err := os.Stat(filepath.Join(out, "index", "concert_singer.index.json.gz")); err != nil {
		t.Fatalf("the value index was not built in OUT/index: %v", err)
	}
	if len(srv.EmbedLog()) == 0 {
		t.Fatal("no embedding request: retrieve_entity did not run on the index")
	}
}

// TestGenerateEquivMetric: generate --metrics equiv grades with equiv's
// options at eval's defaults (seed, budget, databases, assumption), as
// eval --metrics equiv would: before the grading options were shared with
// eval, generate built them without equiv's and every such run failed
// ("needs a positive --equiv-budget"). The scripted model answers the
// first question with its gold and the second with a query that returns
// the gold's result on the item's database but not on every database:
// ex passes both, equiv only the first, with a witness for the second.
func TestGenerateEquivMetric(t *testing.T) {
	spider, dev, gold := spiderDevGolds(t, 2)
	items, err := bench.LoadGold(dev, bench.FormatSpiderJSON)
	if err != nil {
		t.Fatal(err)
	}
	const narrowed = "SELECT count(*) FROM singer WHERE Age > 0"
	if !strings.EqualFold(strings.TrimSpace(items[1].Gold[0]), "SELECT count(*) FROM singer") {
		t.Fatalf("the second dev question's gold is %q: pick another narrowed prediction", items[1].Gold[0])
	}
	srv := llmtest.New(t, func(r *llmtest.Request) llmtest.Reply {
		id := r.Header.Get(generate.HeaderItem)
		if id == items[1].ID {
			return llmtest.Reply{Content: "```sql\n" + narrowed + "\n```"}
		}
		return llmtest.Reply{Content: "```sql\n" + gold[id] + "\n```"}
	})
	out := filepath.Join(t.TempDir(), "out")
	// equiv's search writes its scratch databases under TMPDIR: a run
	// that ends must leave nothing there (every generate --metrics equiv
	// once left its scratch folder behind).
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	code, stdout, stderr := runMain(t, "generate", "--gold", dev, "--db", filepath.Join(spider, "database"),
		"--method", "direct", "--limit", "2", "--metrics", "ex,equiv", "--out", out,
		"--llm-base-url", srv.BaseURL(), "--llm-model", "scripted-1", "--progress", "never")
	if code != ExitOK {
		t.Fatalf("exit %d\n%s\n%s", code, stdout, stderr)
	}
	recs, _, err := run.ReadRecords(filepath.Join(out, "eval", run.ResultsFile))
	if err != nil {
		t.Fatal(err)
	}
	if len(recs) != 2 {
		t.Fatalf("%d records, want 2", len(recs))
	}
	for i, r := range recs {
		ex, eq := r.Verdicts["ex"], r.Verdicts["equiv"]
		if !ex.Correct {
			t.Errorf("item %d (%s): ex %+v, want correct", i, r.Pred, ex)
		}
		if want := i == 0; eq.Correct != want || eq.Status != status.OK {
			t.Errorf("item %d (%s): equiv %+v, want correct %v with status ok", i, r.Pred, eq, want)
		}
	}
	if recs[1].Verdicts["equiv"].Details == nil {
		t.Errorf("equiv's verdict of the narrowed prediction has no details (its witness)")
	}
	if left, err := os.ReadDir(tmp); err != nil || len(left) != 0 {
		names := make([]string, len(left))
		for i, e := range left {
			names[i] = e.Name()
		}
		t.Errorf("generate left %v in TMPDIR (err %v), want nothing", names, err)
	}
}
