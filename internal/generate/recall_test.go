package generate_test

import (
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/sqljudge/sqljudge/internal/bench"
	"github.com/sqljudge/sqljudge/internal/engine/sqlite"
	"github.com/sqljudge/sqljudge/internal/generate"
	"github.com/sqljudge/sqljudge/internal/generate/index"
	"github.com/sqljudge/sqljudge/internal/llm"
	"github.com/sqljudge/sqljudge/internal/llm/llmtest"
	"github.com/sqljudge/sqljudge/internal/result"
	"github.com/sqljudge/sqljudge/internal/shareddata"
)

var literalRE = regexp.MustCompile(`'([^']{6,})'|"([^"]{6,})"`)

// misspell removes the middle character of s: one edit.
func misspell(s string) string {
	r := []rune(s)
	m := len(r) / 2
	return string(append(r[:m:m], r[m+1:]...))
}

// storedValue tells whether some text column of db holds v.
func storedValue(t *testing.T, eng *sqlite.Engine, db, v string) bool {
	ctx := context.Background()
	tabs, err := eng.Query(ctx, db, "SELECT name FROM sqlite_master WHERE type='table'")
	if err != nil {
		t.Fatal(err)
	}
	for _, tr := range tabs.Rows {
		tbl := result.PyStr(tr[0])
		cols, err := eng.Query(ctx, db, "SELECT name FROM pragma_table_info('"+strings.ReplaceAll(tbl, "'", "''")+"')")
		if err != nil {
			t.Fatal(err)
		}
		for _, cr := range cols.Rows {
			q := "SELECT 1 FROM `" + tbl + "` WHERE `" + result.PyStr(cr[0]) + "` = '" + strings.ReplaceAll(v, "'", "''") + "' LIMIT 1"
			if rs, err := eng.Query(ctx, db, q); err == nil && rs.Len() > 0 {
				return true
			}
		}
	}
	return false
}

// misspelledQuestions returns up to 40 questions of all that mention a
// string literal of their gold (the first question of each stored value),
// the mention misspelled, with the stored value and the misspelled
// keyword of each by question id.
func misspelledQuestions(t *testing.T, eng *sqlite.Engine, all []bench.Item) (items []bench.Item, values, keyword map[string]string) {
	values, keyword = map[string]string{}, map[string]string{}
	seen := map[string]bool{} // each stored value once
	for _, it := range all {
		m := literalRE.FindStringSubmatch(it.Gold[0])
		if m == nil {
			continue
		}
		v := m[1] + m[2]
		at := strings.Index(strings.ToLower(it.Question), strings.ToLower(v))
		if at < 0 || strings.ContainsAny(v, "%_") || seen[it.DBID+"\x00"+v] || !storedValue(t, eng, it.DBID, v) {
			continue
		}
		mention := it.Question[at : at+len(v)]
		wrong := misspell(mention)
		it.Question = it.Question[:at] + wrong + it.Question[at+len(v):]
		items = append(items, it)
		values[it.ID], keyword[it.ID] = v, wrong
		seen[it.DBID+"\x00"+v] = true
		if len(items) == 40 {
			break
		}
	}
	return items, values, keyword
}

// TestValueRetrievalRecall: Spider dev questions whose gold compares with a
// string literal of at least six characters stored in the database and
// mentioned in the question (the first question of each distinct value);
// the mention is misspelled by one edit (its middle character deleted) and
// given as a keyword; the stored value must reach the candidate-generation
// prompt as an example value. Shorter values are left out: one edit in a
// word of five letters or fewer leaves it no character 3-gram in common
// with the stored value, so CHESS's LSH cannot find it by design.
func TestValueRetrievalRecall(t *testing.T) {
	start := time.Now()
	all, dbDir := spiderQuestions(t, 1)
	eng := sqlite.New(dbDir, sqlite.Options{})
	defer eng.Close()
	items, values, keyword := misspelledQuestions(t, eng, all)
	dbs := map[string]int{}
	for _, it := range items {
		dbs[it.DBID]++
	}
	t.Logf("%d questions selected in %s from %v", len(items), time.Since(start), dbs)
	if len(items) < 20 {
		t.Fatalf("only %d questions with a stored, mentioned literal", len(items))
	}
	var mu sync.Mutex
	found := map[string]bool{}
	srv := llmtest.New(t, func(r *llmtest.Request) llmtest.Reply {
		id := r.Header.Get(generate.HeaderItem)
		switch r.Header.Get(generate.HeaderStep) {
		case "extract_keywords":
			return llmtest.Reply{Content: `["` + keyword[id] + `", "number"]`}
		case "generate_candidate":
			mu.Lock()
			found[id] = strings.Contains(r.User(), "`"+values[id]+"`")
			mu.Unlock()
			return llmtest.Reply{Content: "<FINAL_ANSWER>SELECT 1</FINAL_ANSWER>"}
		}
		return llmtest.Reply{Content: "<FINAL_ANSWER>SELECT 1</FINAL_ANSWER>"}
	})
	emb, err := llm.New(llm.Config{BaseURL: srv.BaseURL(), EmbedModel: "scripted-embed"})
	if err != nil {
		t.Fatal(err)
	}
	o := generate.Options{
		Items: items, Engine: eng, Out: filepath.Join(t.TempDir(), "out"), Method: generate.MethodChess,
		Config: generate.Config{Name: "recall", KeywordsTemperature: 0.2, ContextTopK: 5,
			Generators: []generate.GeneratorConfig{{Template: "generate_candidate_one", Temperature: 0.5, Samples: 1}}},
		LLM:      llm.Config{BaseURL: srv.BaseURL(), Model: "scripted-1"},
		Embedder: emb,
		// Spider's CHAR and VARCHAR columns are indexed (the extension
		// TextAffinity): CHESS's own rule leaves most of them out.
		Retriever: generate.IndexRetriever(filepath.Join(t.TempDir(), "index"), eng.Path, index.Options{EmbedModel: "scripted-embed", TextAffinity: true}, emb, emb),
	}
	sum, err := generate.Run(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	if sum.HTTP.EmbedRequests != int64(len(srv.EmbedLog())) || sum.HTTP.EmbedTokens == 0 {
		t.Fatalf("summary counts %d embedding requests (%d tokens), the server got %d", sum.HTTP.EmbedRequests, sum.HTTP.EmbedTokens, len(srv.EmbedLog()))
	}
	if len(srv.EmbedLog()) == 0 {
		t.Fatal("retrieve_entity made no embedding request")
	}
	for _, e := range srv.EmbedLog() {
		if e.Header.Get(generate.HeaderStep) != "retrieve_entity" || values[e.Header.Get(generate.HeaderItem)] == "" {
			t.Fatalf("embedding request headers %v", e.Header)
		}
	}
	hit := 0
	var missed []string
	for _, it := range items {
		if found[it.ID] {
			hit++
		} else {
			missed = append(missed, keyword[it.ID]+" -> "+values[it.ID])
		}
	}
	recall := float64(hit) / float64(len(items))
	t.Logf("value recall %.3f (%d of %d questions); missed: %v", recall, hit, len(items), missed)
	if recall < 0.9 {
		t.Fatalf("value recall %.3f, want >= 0.9", recall)
	}
}

// TestDescriptionsReachPrompts: with BIRD-style description files beside a
// database, filter_column's column profiles show every description (as the
// official get_column_profiles loads them all) and the candidate prompt
// shows those retrieve_context found.
func TestDescriptionsReachPrompts(t *testing.T) {
	src := shareddata.SubsetPath(t, "spider", "database", "concert_singer", "concert_singer.sqlite")
	dbDir := t.TempDir()
	dir := filepath.Join(dbDir, "concert_singer")
	if err := os.MkdirAll(filepath.Join(dir, "database_description"), 0o755); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "concert_singer.sqlite"), data, 0o644); err != nil {
		t.Fatal(err)
	}
	csv := "original_column_name,column_name,column_description,data_format,value_description\n" +
		"Country,country,the country whose citizen the singer is,text,\n" +
		"Age,,age of the singer in years,integer,\n"
	if err := os.WriteFile(filepath.Join(dir, "database_description", "singer.csv"), []byte(csv), 0o644); err != nil {
		t.Fatal(err)
	}
	all, _ := spiderQuestions(t, 1)
	var items []bench.Item
	for _, it := range all {
		if it.DBID == "concert_singer" && strings.Contains(strings.ToLower(it.Question), "country") {
			items = append(items, it)
		}
	}
	items = items[:1]
	var mu sync.Mutex
	profiles, candidate := "", ""
	srv := llmtest.New(t, func(r *llmtest.Request) llmtest.Reply {
		mu.Lock()
		defer mu.Unlock()
		switch r.Header.Get(generate.HeaderStep) {
		case "extract_keywords":
			return llmtest.Reply{Content: `["country", "singer"]`}
		case "filter_column":
			profiles += r.User()
			return llmtest.Reply{Content: `{"chain_of_thought_reasoning": "", "is_column_information_relevant": "Yes"}`}
		case "select_tables":
			return llmtest.Reply{Content: `{"chain_of_thought_reasoning": "", "table_names": ["singer"]}`}
		case "select_columns":
			return llmtest.Reply{Content: `{"chain_of_thought_reasoning": "", "singer": ["Country"]}`}
		case "generate_candidate":
			candidate = r.User()
		}
		return llmtest.Reply{Content: "<FINAL_ANSWER>SELECT Country FROM singer</FINAL_ANSWER>"}
	})
	emb, err := llm.New(llm.Config{BaseURL: srv.BaseURL(), EmbedModel: "scripted-embed"})
	if err != nil {
		t.Fatal(err)
	}
	eng := sqlite.New(dbDir, sqlite.Options{})
	defer eng.Close()
	c, _ := generate.LookupConfig("CHESS_IR_SS_CG")
	o := generate.Options{
		Items: items, Engine: eng, Out: filepath.Join(t.TempDir(), "out"), Method: generate.MethodChess, Config: c,
		LLM:       llm.Config{BaseURL: srv.BaseURL(), Model: "scripted-1"},
		Retriever: generate.IndexRetriever(filepath.Join(t.TempDir(), "index"), eng.Path, index.Options{EmbedModel: "scripted-embed"}, emb, emb),
	}
	if _, err := generate.Run(context.Background(), o); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"Description: the country whose citizen the singer is", "Description: age of the singer in years"} {
		if !strings.Contains(profiles, want) {
			t.Errorf("filter_column profiles lack %q", want)
		}
	}
	if !strings.Contains(candidate, "| Column Description: the country whose citizen the singer is") {
		t.Errorf("the candidate prompt lacks the retrieved description:\n%s", candidate[len(candidate)-3000:])
	}
}
