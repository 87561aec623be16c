package generate_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/sqljudge/sqljudge/internal/bench"
	"github.com/sqljudge/sqljudge/internal/dbload"
	"github.com/sqljudge/sqljudge/internal/engine/postgres"
	"github.com/sqljudge/sqljudge/internal/eval"
	"github.com/sqljudge/sqljudge/internal/generate"
	"github.com/sqljudge/sqljudge/internal/llm"
	"github.com/sqljudge/sqljudge/internal/llm/llmtest"
	"github.com/sqljudge/sqljudge/internal/shareddata"
	"github.com/sqljudge/sqljudge/internal/testserver"
)

// TestDirectDefogOnPostgres generates Defog SQL-Eval's restaurants
// questions (questions_gen_postgres.csv) on the PostgreSQL test server, the
// dump loaded by dbload as `sqljudge db load` does, and grades them with
// sqleval there, end to end: the direct prompt holds the CREATE TABLE
// statements read from information_schema (every table of the dump, with
// its columns) and the question's instructions, and the scripted model's
// gold replies grade correct.
func TestDirectDefogOnPostgres(t *testing.T) {
	server := testserver.Postgres(t)
	defog := shareddata.Path(t, "defog")
	dump, err := dbload.ReadDump(filepath.Join(defog, "defog_data", "restaurants", "restaurants.sql"))
	if err != nil {
		t.Fatal(err)
	}
	prefix := testserver.Name("sjt_gen_")
	t.Cleanup(func() { testserver.DropPostgresDB(t, server, prefix+dump.Name) })
	if _, err := dbload.Load(context.Background(), server, []*dbload.Dump{dump}, dbload.Options{Prefix: prefix}); err != nil {
		t.Fatal(err)
	}
	eng, err := postgres.New(server, postgres.Options{DBPrefix: prefix, AllowSuperuser: true})
	if err != nil {
		t.Fatal(err)
	}
	defer eng.Close()
	all, err := bench.LoadGold(filepath.Join(defog, "questions", "questions_gen_postgres.csv"), bench.FormatSQLEval)
	if err != nil {
		t.Fatal(err)
	}
	var items []bench.Item
	for _, it := range all {
		if it.DBID == "restaurants" && !strings.Contains(it.Gold[0], "{") {
			items = append(items, it)
		}
	}
	if len(items) < 10 {
		t.Fatalf("%d restaurants questions", len(items))
	}
	byID := map[string]*bench.Item{}
	for i := range items {
		byID[items[i].ID] = &items[i]
	}
	srv := llmtest.New(t, func(r *llmtest.Request) llmtest.Reply {
		it := byID[r.Header.Get(generate.HeaderItem)]
		p := r.User()
		for _, want := range []string{"on a postgres database", "CREATE TABLE location (", "CREATE TABLE restaurant (", "  food_type text", it.Instructions} {
			if !strings.Contains(p, want) {
				t.Errorf("question %s: the prompt lacks %q:\n%s", it.ID, want, p)
			}
		}
		return llmtest.Reply{Content: "```sql\n" + it.Gold[0] + "\n```"}
	})
	o := generate.Options{
		Items: items, Engine: eng, Out: filepath.Join(t.TempDir(), "out"), Method: generate.MethodDirect,
		LLM: llm.Config{BaseURL: srv.BaseURL(), Model: "scripted-1"}, Seed: 1, Metrics: []string{"sqleval"},
	}
	sum, err := generate.Run(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	if sum.Failed != 0 || sum.Eval.Overall["sqleval"].Accuracy != 1 {
		t.Fatalf("%d failed, sqleval %.3f on %d questions, want 1", sum.Failed, sum.Eval.Overall["sqleval"].Accuracy, len(items))
	}
}

// TestRunCommandEquivRefusesServerEngines: generate --metrics equiv (or
// verdict) on a PostgreSQL --db is refused before any LLM request, with
// eval's usage error (eval.CheckMetricsDialect), instead of generating
// every question and then grading each one as an internal error. The
// questions run on the server's own "postgres" database, which every
// server has, so that only the metric can be refused.
func TestRunCommandEquivRefusesServerEngines(t *testing.T) {
	dsn := testserver.Postgres(t)
	gold := filepath.Join(t.TempDir(), "q.jsonl")
	q := `{"id": "one", "db_id": "postgres", "question": "What is one?", "gold": "SELECT 1"}` + "\n"
	if err := os.WriteFile(gold, []byte(q), 0o644); err != nil {
		t.Fatal(err)
	}
	srv := llmtest.New(t, func(*llmtest.Request) llmtest.Reply { return llmtest.Reply{Content: "```sql\nSELECT 1\n```"} })
	for _, m := range []string{"equiv", "verdict"} {
		o := generate.CommandOptions{
			Gold: gold, DB: dsn, AllowSuperuser: true, Out: filepath.Join(t.TempDir(), "out"),
			Method: generate.MethodDirect, Timeout: time.Second, Workers: 1, MaxRows: 100, Metrics: []string{"ex", m},
			LLM: eval.Judge{BaseURL: srv.BaseURL(), Model: "scripted-1"},
		}
		sum, err := generate.RunCommand(context.Background(), o)
		var ue generate.InputError
		if sum != nil || !errors.As(err, &ue) || !strings.Contains(err.Error(), "not on postgres") {
			t.Errorf("%s on PostgreSQL: summary %v, error %v; want an input error saying \"not on postgres\"", m, sum, err)
		}
	}
	if n := srv.Requests(); n != 0 {
		t.Errorf("%d LLM requests before the refusal, want none", n)
	}
}
