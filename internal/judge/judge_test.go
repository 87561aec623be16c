package judge_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/sqljudge/sqljudge/internal/bench"
	"github.com/sqljudge/sqljudge/internal/engine/sqlite"
	"github.com/sqljudge/sqljudge/internal/judge"
	"github.com/sqljudge/sqljudge/internal/llm"
	"github.com/sqljudge/sqljudge/internal/llm/llmtest"
	"github.com/sqljudge/sqljudge/internal/result"
	"github.com/sqljudge/sqljudge/internal/shareddata"
	"github.com/sqljudge/sqljudge/internal/status"
)

// spiderInput returns a Spider dev item (by index) as a judge input, with
// the schema and both results read from the real database.
func spiderInput(t *testing.T, i int) judge.Input {
	t.Helper()
	spider := shareddata.SubsetPath(t, "spider")
	items, err := bench.Load(bench.Options{Gold: filepath.Join(spider, "dev.json"), Pred: filepath.Join(spider, "predictions", "din_sql.sql")})
	if err != nil {
		t.Fatal(err)
	}
	it := items[i]
	eng := sqlite.New(filepath.Join(spider, "database"), sqlite.Options{})
	t.Cleanup(func() { eng.Close() })
	ctx := context.Background()
	ddl, err := judge.SchemaDDL(ctx, eng, it.DBID)
	if err != nil {
		t.Fatal(err)
	}
	gs, err := eng.Query(ctx, it.DBID, it.Gold[0])
	if err != nil {
		t.Fatal(err)
	}
	ps, err := eng.Query(ctx, it.DBID, it.Pred)
	if err != nil {
		t.Fatal(err)
	}
	return judge.Input{Question: it.Question, Schema: ddl, Pred: it.Pred, Gold: it.Gold[0], PredResult: ps, GoldResult: gs}
}

func newJudge(t *testing.T, srv *llmtest.Server, mod func(*llm.Config)) *judge.Judge {
	t.Helper()
	cfg := llm.Config{BaseURL: srv.BaseURL(), Model: "scripted", MaxRetries: 2, CacheDir: t.TempDir()}
	if mod != nil {
		mod(&cfg)
	}
	c, err := llm.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return judge.New(c)
}

func TestSchemaAndPromptCarryTheItem(t *testing.T) {
	in := spiderInput(t, 0) // concert_singer: How many singers do we have?
	if !strings.Contains(in.Schema, "CREATE TABLE") || !strings.Contains(strings.ToLower(in.Schema), "singer") {
		t.Fatalf("schema of concert_singer: %q", in.Schema)
	}
	srv := llmtest.New(t, func(r *llmtest.Request) llmtest.Reply {
		return llmtest.Reply{Content: `{"E": "Counts the rows of singer, which is what is asked.", "S": 3}`}
	})
	o := newJudge(t, srv, nil).XScore(context.Background(), in)
	if o.Status != status.OK || !o.Correct || deref(det(o).Score) != 3 {
		t.Fatalf("outcome %+v", o)
	}
	r := srv.Log()[0]
	for _, want := range []string{in.Question, in.Pred, "CREATE TABLE"} {
		if !strings.Contains(r.User(), want) {
			t.Errorf("the prompt lacks %q", want)
		}
	}
	if strings.Contains(r.User(), in.Gold) && in.Gold != in.Pred {
		t.Error("xscore is gold-free, but the prompt shows the gold query")
	}
	if !strings.Contains(string(r.ResponseFormat), `"execution_score"`) {
		t.Errorf("no JSON schema sent: %s", r.ResponseFormat)
	}
	tmpl := runOf(o).Templates
	if len(tmpl) != 1 || !strings.HasPrefix(tmpl[0], "xscore.v1@") {
		t.Errorf("templates %v", tmpl)
	}
}

func TestUnparseableReplyIsRetriedThenRecorded(t *testing.T) {
	in := spiderInput(t, 1)
	// First a reply without JSON, then, once told what was wrong, one in a
	// code fence.
	srv := llmtest.New(t, func(r *llmtest.Request) llmtest.Reply {
		if len(r.Messages) == 2 {
			return llmtest.Reply{Content: "The query looks right to me."}
		}
		return llmtest.Reply{Content: "Analysis done.\n```json\n{\"E\": \"fine\", \"S\": \"2\"}\n```"}
	})
	j := newJudge(t, srv, nil)
	o := j.XScore(context.Background(), in)
	if o.Status != status.OK || deref(det(o).Score) != 2 || det(o).Calls != 2 || len(runOf(o).Replies) != 2 {
		t.Fatalf("outcome %+v", o)
	}
	// The retry is not the same request again: it carries the bad reply
	// and a correction naming what was wrong, and the attempt is recorded.
	log := srv.Log()
	if len(log) != 2 || len(log[1].Messages) != 4 {
		t.Fatalf("requests: %+v", log)
	}
	if first, _ := json.Marshal(log[0].Messages); bytes.Equal(first, mustJSON(t, log[1].Messages)) {
		t.Fatal("the parse retry resent the identical request")
	}
	if m := log[1].Messages; m[0] != log[0].Messages[0] || m[1] != log[0].Messages[1] ||
		m[2].Role != "assistant" || m[2].Content != "The query looks right to me." ||
		m[3].Role != "user" || !strings.Contains(m[3].Content, "JSON") || !strings.Contains(m[3].Content, `"E"`) {
		t.Errorf("retry messages %+v", m)
	}
	if runOf(o).ParseRetries != 1 || len(runOf(o).ParseErrors) != 1 ||
		!strings.Contains(runOf(o).ParseErrors[0], "xscore.v1 sample 0 attempt 0") {
		t.Errorf("attempts not recorded: %v %v", runOf(o).ParseRetries, runOf(o).ParseErrors)
	}
	if tm := runOf(o).Templates; len(tm) != 2 || !strings.HasPrefix(tm[1], "parse_retry.v1@") {
		t.Errorf("templates %v", tm)
	}
	// Never parseable: 1 + ParseRetries (2) attempts, then the status.
	bad := llmtest.New(t, func(r *llmtest.Request) llmtest.Reply {
		return llmtest.Reply{Content: `{"E": "half a reply", "S": `}
	})
	jb := newJudge(t, bad, nil)
	o = jb.XScore(context.Background(), in)
	if o.Status != status.JudgeUnparseable || o.Correct || det(o).Calls != 3 || bad.Requests() != 3 {
		t.Fatalf("outcome %+v after %d requests", o, bad.Requests())
	}
	if runOf(o).ParseRetries != 2 || len(runOf(o).ParseErrors) != 3 {
		t.Errorf("attempts: %v %v", runOf(o).ParseRetries, runOf(o).ParseErrors)
	}
	for _, k := range runOf(o).Replies {
		if _, ok := jb.Client.Store().Get(k); !ok {
			t.Errorf("raw reply %s not kept", k)
		}
	}
	if !strings.Contains(o.Detail, "xscore.v1") {
		t.Errorf("detail %q should name the prompt", o.Detail)
	}
	// A score outside 0-3 is unparseable too.
	oob := llmtest.New(t, func(r *llmtest.Request) llmtest.Reply { return llmtest.Reply{Content: `{"E": "x", "S": 7}`} })
	if o := newJudge(t, oob, nil).XScore(context.Background(), in); o.Status != status.JudgeUnparseable {
		t.Fatalf("score 7: %+v", o)
	}
}

func TestTransportFailuresAreVerdicts(t *testing.T) {
	in := spiderInput(t, 2)
	ok := `{"analysis": "same logic", "correct": true}`
	for _, tc := range []struct {
		name   string
		script llmtest.Script
		mod    func(*llm.Config)
		status status.Status
		reqs   int
	}{
		{"429 then success", func(r *llmtest.Request) llmtest.Reply {
			if r.N == 1 {
				return llmtest.Reply{Status: 429, Header: map[string]string{"Retry-After-Ms": "10"}}
			}
			return llmtest.Reply{Content: ok}
		}, nil, status.OK, 2},
		{"500s", func(r *llmtest.Request) llmtest.Reply {
			return llmtest.Reply{Status: 500, Header: map[string]string{"Retry-After-Ms": "1"}}
		}, nil, status.JudgeError, 3},
		{"slow past the timeout", func(r *llmtest.Request) llmtest.Reply {
			return llmtest.Reply{Content: ok, Delay: 10 * time.Second}
		}, func(c *llm.Config) { c.Timeout = 50 * time.Millisecond }, status.JudgeError, 1},
		{"malformed response body", func(r *llmtest.Request) llmtest.Reply {
			return llmtest.Reply{Body: `{"choices": [`}
		}, nil, status.JudgeError, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := llmtest.New(t, tc.script)
			o := newJudge(t, srv, tc.mod).FLEX(context.Background(), in, true)
			if o.Status != tc.status || srv.Requests() != tc.reqs {
				t.Fatalf("status %s after %d requests (%s); want %s after %d", o.Status, srv.Requests(), o.Detail, tc.status, tc.reqs)
			}
			if tc.status != status.OK && (o.Correct || o.Detail == "") {
				t.Fatalf("a failed judgement must be incorrect with a reason: %+v", o)
			}
		})
	}
}

func TestSamplesMajorityAndAgreement(t *testing.T) {
	in := spiderInput(t, 3)
	// The scripted model answers by seed: seed 0 says wrong, 1 and 2 say
	// correct.
	srv := llmtest.New(t, func(r *llmtest.Request) llmtest.Reply {
		return llmtest.Reply{Content: fmt.Sprintf(`{"analysis": "seed %d", "correct": %v}`, *r.Seed, *r.Seed != 0)}
	})
	j := newJudge(t, srv, nil)
	j.Samples = 3
	o := j.FLEX(context.Background(), in, true)
	votes := votesOf(o)
	if !o.Correct || runOf(o).Agreement != 2.0/3 || fmt.Sprint(votes) != "[0 1 1]" || srv.Requests() != 3 {
		t.Fatalf("outcome %+v after %d requests", o, srv.Requests())
	}
	if deref(det(o).Analysis) != "seed 1" {
		t.Errorf("fields should come from a majority sample: %v", deref(det(o).Analysis))
	}
	// Two samples that split: the tie goes to incorrect.
	j.Samples = 2
	if o := j.FLEX(context.Background(), in, true); o.Correct || runOf(o).Agreement != 0.5 {
		t.Fatalf("tie: %+v", o)
	}
}

func TestSameResultCountsDuplicates(t *testing.T) {
	set := func(rows ...string) *result.Set {
		s := &result.Set{Columns: []string{"x", "y"}}
		for _, r := range rows {
			a, b, _ := strings.Cut(r, ",")
			s.Rows = append(s.Rows, []result.Value{result.TextValue(a), result.TextValue(b)})
		}
		return s
	}
	// ROSE's XOR of hashes makes both of these 0, so it calls them equal.
	if judge.SameResult(set("a,1", "a,1", "b,2", "b,2"), set("c,3", "c,3", "d,4", "d,4")) {
		t.Error("[a,a,b,b] must differ from [c,c,d,d]")
	}
	if judge.SameResult(set("a,1", "a,1", "b,2"), set("a,1", "b,2", "b,2")) {
		t.Error("duplicates must be counted")
	}
	if !judge.SameResult(set("a,1", "b,2", "b,2"), set("b,2", "a,1", "b,2")) {
		t.Error("row order must not matter")
	}
	if judge.SameResult(set("a,1"), set("a,1", "a,1")) {
		t.Error("row counts differ")
	}
}

func TestRenderResultPolicy(t *testing.T) {
	spider := shareddata.Path(t, "spider")
	eng := sqlite.New(filepath.Join(spider, "database"), sqlite.Options{})
	defer eng.Close()
	ctx := context.Background()
	s, err := eng.Query(ctx, "world_1", "SELECT Name, Continent FROM country ORDER BY Code")
	if err != nil {
		t.Fatal(err)
	}
	n := s.Len()
	if n <= 20 {
		t.Fatalf("world_1.country has %d rows; the test needs more than 20", n)
	}
	out := judge.RenderResult(s, nil)
	lines := strings.Split(out, "\n")
	if lines[0] != fmt.Sprintf("shape: %d rows x 2 columns", n) {
		t.Errorf("first line %q", lines[0])
	}
	if lines[1] != "| Name | Continent |" {
		t.Errorf("header %q", lines[1])
	}
	if want := fmt.Sprintf("| ... %d rows not shown ... |", n-20); lines[3+10] != want {
		t.Errorf("line after the head %q, want %q", lines[13], want)
	}
	if !strings.Contains(out, "| "+result.PyStr(s.Rows[0][0])+" |") || !strings.Contains(out, "| "+result.PyStr(s.Rows[n-1][0])+" |") {
		t.Error("head or tail row missing")
	}
	if strings.Contains(out, "| "+result.PyStr(s.Rows[10][0])+" |") && s.Rows[10][0] != s.Rows[n-1][0] {
		t.Error("row 11 should be cut")
	}
	if last := lines[len(lines)-1]; last != fmt.Sprintf("(%d rows in total)", n) {
		t.Errorf("last line %q", last)
	}
	long := &result.Set{Columns: []string{"t"}, Rows: [][]result.Value{{result.TextValue(strings.Repeat("é", 75) + "|x")}, {result.NullValue()}}}
	out = judge.RenderResult(long, nil)
	if !strings.Contains(out, strings.Repeat("é", 60)+"…[+18 chars]") || !strings.Contains(out, "| NULL |") {
		t.Errorf("cut or NULL: %s", out)
	}
}

func TestTemplatesHaveStableHashes(t *testing.T) {
	seen := map[string]bool{}
	for _, tm := range judge.Templates() {
		if len(tm.Hash) != 12 || seen[tm.Hash] {
			t.Errorf("%s: hash %q", tm.ID, tm.Hash)
		}
		seen[tm.Hash] = true
		msgs, err := tm.Messages(judge.PromptData{Question: "Q?", Schema: "CREATE TABLE t(x);", Pred: "SELECT 1", Gold: "SELECT 2", PredResult: "p", GoldResult: "g"})
		if err != nil || len(msgs) != 2 || msgs[0].Role != "system" || !strings.Contains(msgs[1].Content, "Q?") {
			t.Errorf("%s renders %v, %v", tm.ID, msgs, err)
		}
	}
}

// objectKeys returns the keys of the JSON object raw, in the order they
// appear in the bytes.
func objectKeys(t *testing.T, raw json.RawMessage) []string {
	t.Helper()
	dec := json.NewDecoder(bytes.NewReader(raw))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		t.Fatalf("not an object: %s", raw)
	}
	var keys []string
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			t.Fatal(err)
		}
		keys = append(keys, tok.(string))
		var skip json.RawMessage
		if err := dec.Decode(&skip); err != nil {
			t.Fatal(err)
		}
	}
	return keys
}

// The reasoning must precede the verdict in the schema sent, or a model
// that follows the schema answers before it reasons: the request bytes
// must list properties in the declared order, not Go's sorted map order.
func TestSchemaPropertiesGoOutInDeclaredOrder(t *testing.T) {
	in := spiderInput(t, 0)
	srv := llmtest.New(t, func(r *llmtest.Request) llmtest.Reply {
		switch {
		case strings.Contains(r.System(), "SQL Refuter"):
			return llmtest.Reply{Content: `{"judgement": "a", "verdict": false, "ambiguity": "na", "gold_correct": true}`}
		case strings.Contains(r.System(), "SQL Prover"):
			return llmtest.Reply{Content: `{"expected_answer": "a", "sql_description": "b", "reason": "c", "verdict": true, "evidence": "d"}`}
		case strings.Contains(r.User(), "Execution Score") || strings.Contains(r.System(), "score"):
			return llmtest.Reply{Content: `{"E": "x", "S": 3}`}
		}
		return llmtest.Reply{Content: `{"analysis": "x", "correct": true}`}
	})
	j := newJudge(t, srv, nil)
	ctx := context.Background()
	j.XScore(ctx, in)
	diff := in
	diff.PredResult = &result.Set{Columns: []string{"n"}, Rows: [][]result.Value{{result.TextValue("other")}}}
	j.ROSE(ctx, diff) // prover, then refuter
	j.FLEX(ctx, in, true)
	want := map[string][]string{
		"execution_score": {"E", "S"},
		"rose_prover":     {"expected_answer", "sql_description", "reason", "verdict", "evidence"},
		"rose_refuter":    {"judgement", "verdict", "ambiguity", "gold_correct"},
		"flex":            {"analysis", "correct"},
	}
	seen := map[string]bool{}
	for _, r := range srv.Log() {
		var rf struct {
			JSONSchema struct {
				Name   string          `json:"name"`
				Schema json.RawMessage `json:"schema"`
			} `json:"json_schema"`
		}
		if err := json.Unmarshal(r.ResponseFormat, &rf); err != nil {
			t.Fatal(err)
		}
		var s struct {
			Properties json.RawMessage `json:"properties"`
			Required   []string        `json:"required"`
		}
		if err := json.Unmarshal(rf.JSONSchema.Schema, &s); err != nil {
			t.Fatal(err)
		}
		name := rf.JSONSchema.Name
		seen[name] = true
		if got := objectKeys(t, s.Properties); !slices.Equal(got, want[name]) {
			t.Errorf("%s: properties go out as %v, want %v", name, got, want[name])
		}
		if !slices.Equal(s.Required, want[name]) {
			t.Errorf("%s: required %v, want %v", name, s.Required, want[name])
		}
	}
	if len(seen) != len(want) {
		t.Errorf("schemas sent: %v", seen)
	}
}

func mustJSON(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// schemaLines returns the table lines of a ROSE db_info text, sorted
// (ROSE collects the tables in a Python set, whose order varies), and the
// text with those lines removed.
func schemaLines(s string) ([]string, string) {
	var lines []string
	var rest strings.Builder
	for _, l := range strings.SplitAfter(s, "\n") {
		if strings.Contains(l, " (") && strings.HasSuffix(l, ")\n") {
			lines = append(lines, l)
			continue
		}
		rest.WriteString(l)
	}
	slices.Sort(lines)
	return lines, rest.String()
}

// The database information in ROSE's prompts is ROSE's get_db_info: the
// tables the SQL mentions, with types, keys and foreign keys, checked
// against ROSE's own function on 42 Spider dev cases
// (testdata/oracle/rose_db_info.py).
func TestDBInfoMatchesROSE(t *testing.T) {
	var cases []struct {
		Index  int      `json:"index"`
		DBID   string   `json:"db_id"`
		SQLs   []string `json:"sqls"`
		DBInfo string   `json:"db_info"`
	}
	b, err := os.ReadFile(filepath.Join("testdata", "rose_db_info.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &cases); err != nil {
		t.Fatal(err)
	}
	eng := sqlite.New(filepath.Join(shareddata.Path(t, "spider"), "database"), sqlite.Options{})
	defer eng.Close()
	infos := map[string]*judge.DBInfo{}
	multi := 0
	for _, c := range cases {
		info, ok := infos[c.DBID]
		if !ok {
			if info, err = judge.LoadDBInfo(context.Background(), eng, c.DBID); err != nil {
				t.Fatal(err)
			}
			infos[c.DBID] = info
		}
		got := info.For(c.SQLs...)
		gl, grest := schemaLines(got)
		wl, wrest := schemaLines(c.DBInfo)
		if !slices.Equal(gl, wl) || grest != wrest {
			t.Errorf("item %d %v:\n got %q\nwant %q", c.Index, c.SQLs, got, c.DBInfo)
		}
		if len(wl) > 1 {
			multi++
		}
		if strings.Contains(got, "CREATE TABLE") {
			t.Errorf("item %d: DDL in ROSE's db_info", c.Index)
		}
	}
	if len(cases) < 40 || multi == 0 {
		t.Errorf("%d cases, %d with several tables: the oracle file is too thin", len(cases), multi)
	}
}

// BIRD's column descriptions, when the database folder has them, follow
// the table lines as ROSE writes them; a Latin-1 file is read too.
func TestDBInfoReadsBIRDDescriptions(t *testing.T) {
	src := filepath.Join(shareddata.SubsetPath(t, "spider"), "database", "concert_singer", "concert_singer.sqlite")
	dir := filepath.Join(t.TempDir(), "concert_singer")
	if err := os.MkdirAll(filepath.Join(dir, "database_description"), 0o755); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(dir, "concert_singer.sqlite"), b, 0o644)
	csvText := "\xef\xbb\xbforiginal_column_name,column_name,column_description,data_format,value_description\n" +
		"Singer_ID,singer id,the id of the singer,integer,\n" +
		"Name,,the singer's name,text,\"commonsense evidence:\n\nfull   name\"\n" +
		"Country,,,text,country of birth\n"
	os.WriteFile(filepath.Join(dir, "database_description", "singer.csv"), []byte(csvText), 0o644)
	os.WriteFile(filepath.Join(dir, "database_description", "stadium.csv"), []byte("original_column_name,column_description\nName,nom du stade \xe9t\xe9\n"), 0o644)
	eng := sqlite.New(filepath.Dir(dir), sqlite.Options{})
	defer eng.Close()
	info, err := judge.LoadDBInfo(context.Background(), eng, "concert_singer")
	if err != nil {
		t.Fatal(err)
	}
	got := info.For("SELECT Name FROM singer JOIN stadium")
	want := "Descriptions:\n-- Table: singer\n  Singer_ID: the id of the singer\n  Name: the singer's name; value_description: commonsense evidence: full name\n  Country: country of birth\n" +
		"\n-- Table: stadium\n  Name: nom du stade été\n"
	if !strings.HasSuffix(got, want) || !strings.Contains(got, "Schema:\nsinger (") || strings.Contains(got, "concert (") {
		t.Errorf("db_info %q\nwant it to end with %q", got, want)
	}
	if other := info.For("SELECT 1"); other != "Database: concert_singer\n" {
		t.Errorf("no table mentioned: %q", other)
	}
}

// ROSE's prompts are ROSE's: its worked examples and special rules, the
// database information of the mentioned tables (not the DDL), the first
// 20 rows of a result, and the refuter's variant without results when
// both results are equal.
func TestROSEPromptsAreROSEs(t *testing.T) {
	in := spiderInput(t, 0)
	eng := sqlite.New(filepath.Join(shareddata.SubsetPath(t, "spider"), "database"), sqlite.Options{})
	defer eng.Close()
	info, err := judge.LoadDBInfo(context.Background(), eng, "concert_singer")
	if err != nil {
		t.Fatal(err)
	}
	in.DBInfo = info
	srv := llmtest.New(t, func(r *llmtest.Request) llmtest.Reply {
		if strings.Contains(r.System(), "SQL Refuter") {
			return llmtest.Reply{Content: `{"judgement": "same", "verdict": false, "ambiguity": "na", "gold_correct": true}`}
		}
		return llmtest.Reply{Content: `{"expected_answer": "a count", "sql_description": "counts", "reason": "it counts the singers", "verdict": true, "evidence": "row 0"}`}
	})
	j := newJudge(t, srv, nil)
	diff := in
	diff.PredResult = &result.Set{Columns: []string{"COUNT(*)"}, Rows: [][]result.Value{{result.IntValue(7)}}}
	if o := j.ROSE(context.Background(), diff); o.Status != status.OK || !o.Correct {
		t.Fatalf("outcome %+v", o)
	}
	log := srv.Log()
	if len(log) != 2 {
		t.Fatalf("%d requests, want prover then refuter", len(log))
	}
	prover, refuter := log[0], log[1]
	for _, want := range []string{
		"You are a **SQL Prover**",
		`Q: "What percentage of refunds are from euro payments?"`,
		`- "After [year]" means on or after [year], including the specified year.`,
		"5. `evidence` - directional description of the evidence",
	} {
		if !strings.Contains(prover.System(), want) {
			t.Errorf("prover system prompt lacks %q", want)
		}
	}
	wantUser := "###### Database Information\n" + strings.TrimSpace(info.For(in.Pred)) // TrimSpace: the field ends the section
	if !strings.Contains(prover.User(), wantUser) || strings.Contains(prover.User(), "CREATE TABLE") || strings.Contains(prover.User(), in.Gold+"\n") && in.Gold != in.Pred {
		t.Errorf("prover user prompt:\n%s", prover.User())
	}
	if !strings.Contains(prover.User(), "###### SQL Execution Result\n   COUNT(*)\n0         7") {
		t.Errorf("prover result not as pandas shows it:\n%s", prover.User())
	}
	for _, want := range []string{"You are a **SQL Refuter**", "**Ambiguous Schema (Overturn or Gold Fault)**", `Q: "City of user with id=5"`} {
		if !strings.Contains(refuter.System(), want) {
			t.Errorf("refuter system prompt lacks %q", want)
		}
	}
	for _, want := range []string{"###### Prover's Reasoning\nit counts the singers", "###### Gold SQL Execution Result\n", "###### Gold Standard SQL\n" + in.Gold} {
		if !strings.Contains(refuter.User(), want) {
			t.Errorf("refuter user prompt lacks %q:\n%s", want, refuter.User())
		}
	}
	// Equal results: one call, the refuter's prompt without results.
	if o := j.ROSE(context.Background(), in); o.Status != status.OK {
		t.Fatalf("equal results: %+v", o)
	}
	eq := srv.Log()[2]
	if !strings.Contains(eq.User(), "Execution results are not provided because the gold and predicted SQL produce identical results.") || strings.Contains(eq.User(), "Execution Result") {
		t.Errorf("equal-results refuter prompt:\n%s", eq.User())
	}
}

func TestRenderFrameLikePandas(t *testing.T) {
	s := &result.Set{Columns: []string{"name", "n"}}
	for i := range 25 {
		s.Rows = append(s.Rows, []result.Value{result.TextValue(fmt.Sprintf("row%d", i)), result.IntValue(int64(i * 100))})
	}
	s.Rows[3][1] = result.NullValue()
	s.Rows[4][0] = result.TextValue(strings.Repeat("x", 60))
	out := judge.RenderFrame(s, judge.FrameRows)
	lines := strings.Split(out, "\n")
	if len(lines) != 21 {
		t.Fatalf("%d lines, want a header and 20 rows:\n%s", len(lines), out)
	}
	xs := strings.Repeat("x", 47) + "..."
	if lines[0] != "    "+strings.Repeat(" ", 46)+"name     n" || lines[1] != "0   "+strings.Repeat(" ", 46)+"row0     0" ||
		lines[4] != "3   "+strings.Repeat(" ", 46)+"row3  None" || lines[5] != "4   "+xs+"   400" || !strings.HasPrefix(lines[20], "19  ") {
		t.Errorf("frame:\n%s", out)
	}
	if got := judge.RenderFrame(&result.Set{Columns: []string{"a", "b"}}, 20); got != "Empty DataFrame\nColumns: [a, b]\nIndex: []" {
		t.Errorf("empty: %q", got)
	}
}

// det is the outcome's details, zero when it has none.
func det(o judge.Outcome) judge.Details {
	if o.Details == nil {
		return judge.Details{}
	}
	return *o.Details
}

// runOf is the outcome's record of samples, zero when it has none.
func runOf(o judge.Outcome) judge.Run {
	if d := det(o); d.Run != nil {
		return *d.Run
	}
	return judge.Run{}
}

// votesOf lists the votes, -1 for a sample that failed.
func votesOf(o judge.Outcome) []int {
	var out []int
	for _, v := range runOf(o).Votes {
		out = append(out, deref(v)-boolInt(v == nil))
	}
	return out
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// deref is *p, the zero value for nil.
func deref[T any](p *T) (x T) {
	if p != nil {
		x = *p
	}
	return x
}
