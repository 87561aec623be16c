package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/sqljudge/sqljudge/internal/generate"
	"github.com/sqljudge/sqljudge/internal/llm/llmtest"
)

// TestGenerateEmbeddingModels runs CHESS on two concert_singer questions
// (with a BIRD-style description file, so that retrieve_context embeds)
// and checks the embedding models asked for: by default CHESS's own,
// text-embedding-3-small for retrieve_entity (retrieve_entity.py) and
// text-embedding-3-large for retrieve_context (db_catalog/preprocess.py);
// the two flags override them. An endpoint that serves no embeddings is
// exit 2 before any chat request, unless --no-embeddings, which
// summary.json lists among the departures.
func TestGenerateEmbeddingModels(t *testing.T) {
	spider, dev, gold := spiderDevGolds(t, 2)
	dbs := t.TempDir()
	dir := filepath.Join(dbs, "concert_singer")
	os.MkdirAll(filepath.Join(dir, "database_description"), 0o755)
	b, err := os.ReadFile(filepath.Join(spider, "database", "concert_singer", "concert_singer.sqlite"))
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(dir, "concert_singer.sqlite"), b, 0o644)
	os.WriteFile(filepath.Join(dir, "database_description", "singer.csv"),
		[]byte("original_column_name,column_name,column_description,data_format,value_description\nCountry,country,the country of the singer,text,\n"), 0o644)
	srv := llmtest.New(t, func(r *llmtest.Request) llmtest.Reply {
		switch r.Header.Get(generate.HeaderStep) {
		case "extract_keywords":
			return llmtest.Reply{Content: `["singers", "France", "country"]`}
		case "filter_column":
			return llmtest.Reply{Content: `{"chain_of_thought_reasoning": "", "is_column_information_relevant": "Yes"}`}
		case "select_tables":
			return llmtest.Reply{Content: `{"chain_of_thought_reasoning": "", "table_names": ["singer"]}`}
		case "select_columns":
			return llmtest.Reply{Content: `{"chain_of_thought_reasoning": "", "singer": ["Name"]}`}
		}
		return llmtest.Reply{Content: "<FINAL_ANSWER>" + gold[r.Header.Get(generate.HeaderItem)] + "</FINAL_ANSWER>"}
	})
	run := func(extra ...string) (int, string, string) {
		args := append([]string{"generate", "--gold", dev, "--db", dbs, "--method", "chess", "--config", "CHESS_IR_SS_CG",
			"--limit", "2", "--out", filepath.Join(t.TempDir(), "out"), "--llm-base-url", srv.BaseURL(), "--llm-model", "scripted-1",
			"--progress", "never"}, extra...)
		return runMain(t, args...)
	}
	models := func(from int) map[string][]string {
		m := map[string][]string{}
		for _, r := range srv.EmbedLog()[from:] {
			step := r.Header.Get(generate.HeaderStep)
			if !slices.Contains(m[step], r.Model) {
				m[step] = append(m[step], r.Model)
			}
		}
		return m
	}
	t.Setenv("SQLJUDGE_EMBED_MODEL", "")
	if code, stdout, stderr := run(); code != ExitOK {
		t.Fatalf("exit %d\n%s%s", code, stdout, stderr)
	}
	got := models(0)
	if !slices.Equal(got["retrieve_entity"], []string{"text-embedding-3-small"}) || !slices.Equal(got["retrieve_context"], []string{"text-embedding-3-large"}) {
		t.Errorf("default embedding models per step: %v", got)
	}
	n := len(srv.EmbedLog())
	if code, stdout, stderr := run("--embed-model-entity", "e-small", "--embed-model-context", "e-large"); code != ExitOK {
		t.Fatalf("exit %d\n%s%s", code, stdout, stderr)
	}
	if got := models(n); !slices.Equal(got["retrieve_entity"], []string{"e-small"}) || !slices.Equal(got["retrieve_context"], []string{"e-large"}) {
		t.Errorf("flagged embedding models per step: %v", got)
	}

	srv.SetEmbedScript(func(*llmtest.EmbedRequest) llmtest.Reply { return llmtest.Reply{Status: 404} })
	chats := srv.Requests()
	code, _, stderr := run("--llm-retries", "0")
	if code != ExitUsage || !strings.Contains(stderr, "--no-embeddings") || srv.Requests() != chats {
		t.Errorf("no embeddings: exit %d, %d chat requests, %q", code, srv.Requests()-chats, stderr)
	}
	out := filepath.Join(t.TempDir(), "out")
	code, stdout, stderr := runMain(t, "generate", "--gold", dev, "--db", dbs, "--method", "chess", "--config", "CHESS_IR_SS_CG", "--limit", "2", "--out", out,
		"--llm-base-url", srv.BaseURL(), "--llm-model", "scripted-1", "--progress", "never", "--no-embeddings")
	if code != ExitOK {
		t.Fatalf("--no-embeddings: exit %d\n%s%s", code, stdout, stderr)
	}
	var sum generate.Summary
	if b, err := os.ReadFile(filepath.Join(out, generate.SummaryFile)); err != nil || json.Unmarshal(b, &sum) != nil {
		t.Fatal(err)
	}
	if !slices.Equal(sum.Departures, []string{"--no-embeddings"}) || sum.EmbedModels != nil {
		t.Errorf("summary departures %v, embedding models %v", sum.Departures, sum.EmbedModels)
	}
}

// TestGenerateChessNeedsSQLite: --method chess on a server engine is exit 2
// naming --method direct, before any connection or request.
func TestGenerateChessNeedsSQLite(t *testing.T) {
	_, dev, _ := spiderDevGolds(t, 1)
	code, _, stderr := runMain(t, "generate", "--gold", dev, "--db", "postgres://u@127.0.0.1:1/?sslmode=disable", "--method", "chess",
		"--out", filepath.Join(t.TempDir(), "out"), "--llm-base-url", "http://127.0.0.1:1/v1", "--llm-model", "m")
	if code != ExitUsage || !strings.Contains(stderr, "--method direct") {
		t.Errorf("exit %d, %q", code, stderr)
	}
}
