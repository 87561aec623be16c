package generate_test

import (
	"context"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/sqljudge/sqljudge/internal/bench"
	"github.com/sqljudge/sqljudge/internal/generate"
	"github.com/sqljudge/sqljudge/internal/llm/llmtest"
)

// concertSingerQuestion returns the first Spider dev question on
// concert_singer and the databases folder.
func concertSingerQuestion(t *testing.T) ([]bench.Item, string) {
	t.Helper()
	all, dbDir := spiderQuestions(t, 1)
	for _, it := range all {
		if it.DBID == "concert_singer" {
			return []bench.Item{it}, dbDir
		}
	}
	t.Fatal("no concert_singer question")
	return nil, ""
}

// TestAddConnectionsIsOfficialNoOp: the official filter_column and
// select_tables call add_connections_to_tentative_schema, which assigns
// get_schema_with_connections' result to a local (src/runner/
// database_manager.py) and so changes nothing. With filter_column keeping
// singer.Name alone, the tentative schema is {singer: [Name]} and every
// other table empty; with AddConnections the key columns join it
// (singer.Singer_ID, and the keys of the other tables).
func TestAddConnectionsIsOfficialNoOp(t *testing.T) {
	items, dbDir := concertSingerQuestion(t)
	script := func(r *llmtest.Request) llmtest.Reply {
		switch r.Header.Get(generate.HeaderStep) {
		case "extract_keywords":
			return llmtest.Reply{Content: `["singers"]`}
		case "filter_column":
			yes := "No"
			if strings.Contains(r.User(), "Table name: `singer`\nOriginal column name: `Name`\n") {
				yes = "Yes"
			}
			return llmtest.Reply{Content: `{"chain_of_thought_reasoning": "", "is_column_information_relevant": "` + yes + `"}`}
		case "select_tables":
			return llmtest.Reply{Content: `{"chain_of_thought_reasoning": "", "table_names": ["singer"]}`}
		case "select_columns":
			return llmtest.Reply{Content: `{"chain_of_thought_reasoning": "", "singer": ["Name"]}`}
		}
		return llmtest.Reply{Content: "<FINAL_ANSWER>SELECT count(*) FROM singer</FINAL_ANSWER>"}
	}
	for _, add := range []bool{false, true} {
		srv := llmtest.New(t, script)
		o := options(t, srv, items, dbDir, generate.MethodChess, "CHESS_IR_SS_CG")
		o.AddConnections = add
		sum, err := generate.Run(context.Background(), o)
		if err != nil {
			t.Fatal(err)
		}
		if slices.Contains(sum.Departures, "--add-connections") != add {
			t.Errorf("add=%v: departures %v", add, sum.Departures)
		}
		rec := readLedger(t, o.Out)[0]
		var filter, tables map[string][]string
		for _, s := range rec.Steps {
			switch s.Name {
			case "filter_column":
				filter = s.Schema
			case "select_tables":
				tables = s.Schema
			}
		}
		if !add {
			if !slices.Equal(filter["singer"], []string{"Name"}) || len(filter["stadium"]) != 0 || len(filter["concert"]) != 0 {
				t.Errorf("official filter_column schema %v, want singer.Name alone", filter)
			}
			if len(tables) != 1 || !slices.Equal(tables["singer"], []string{"Name"}) {
				t.Errorf("official select_tables schema %v, want {singer: [Name]}", tables)
			}
			continue
		}
		if !slices.Contains(filter["singer"], "Singer_ID") || !slices.Contains(filter["stadium"], "Stadium_ID") ||
			!slices.Contains(tables["singer"], "Singer_ID") {
			t.Errorf("AddConnections: filter_column %v, select_tables %v: key columns missing", filter, tables)
		}
	}
}

// TestOfficialFailuresAndRecoveriesCounted: where the official code fails
// a step outright, sqljudge asks again or goes on, and says so. A keyword
// reply with text around the list (eval raises SyntaxError officially) is
// marked official_fail in the ledger and asked again; an evaluation reply
// with one verdict for 20 candidates (the official evaluate scores only
// the first candidate) is recorded as a recovery; the summary counts both.
func TestOfficialFailuresAndRecoveriesCounted(t *testing.T) {
	items, dbDir := concertSingerQuestion(t)
	var mu sync.Mutex
	keywordCalls := 0
	srv := llmtest.New(t, func(r *llmtest.Request) llmtest.Reply {
		switch r.Header.Get(generate.HeaderStep) {
		case "extract_keywords":
			mu.Lock()
			defer mu.Unlock()
			keywordCalls++
			if keywordCalls == 1 {
				return llmtest.Reply{Content: "Here are the keywords:\n[\"singers\"]"}
			}
			return llmtest.Reply{Content: `["singers"]`}
		case "generate_unit_test":
			return llmtest.Reply{Content: "<Answer>['The answer SQL query should count singers']</Answer>"}
		case "evaluate":
			return llmtest.Reply{Content: "<Answer>\nCandidate Response #1: [Passed]\n</Answer>"}
		}
		if r.Seed != nil && *r.Seed%2 == 0 { // two result clusters, so unit tests run
			return llmtest.Reply{Content: "<FINAL_ANSWER>SELECT name FROM stadium</FINAL_ANSWER>"}
		}
		return llmtest.Reply{Content: "<FINAL_ANSWER>" + items[0].Gold[0] + "</FINAL_ANSWER>"}
	})
	o := options(t, srv, items, dbDir, generate.MethodChess, "CHESS_IR_CG_UT")
	sum, err := generate.Run(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	rec := readLedger(t, o.Out)[0]
	kw := rec.Steps[0]
	if kw.Name != "extract_keywords" || len(kw.Calls) != 2 || !kw.Calls[0].OfficialFail || kw.Calls[1].OfficialFail || len(kw.Keywords) != 1 {
		t.Errorf("extract_keywords step %+v", kw)
	}
	var recovery string
	for _, s := range rec.Steps {
		if s.Name == "evaluate" {
			recovery = s.Recovery
		}
	}
	if !strings.Contains(recovery, "scores only the first 1") {
		t.Errorf("evaluate recovery %q", recovery)
	}
	if sum.OfficialFailures != 1 || sum.Recoveries != 1 || sum.Steps["extract_keywords"].OfficialFailures != 1 || sum.Steps["evaluate"].Recoveries != 1 {
		t.Errorf("summary: %d official failures, %d recoveries; steps %+v %+v", sum.OfficialFailures, sum.Recoveries, sum.Steps["extract_keywords"], sum.Steps["evaluate"])
	}
}

// TestFilterColumnMissingVerdict: a filter_column reply without
// is_column_information_relevant is read officially (a JSON object), and
// the KeyError that follows is caught per column in filter_column.py: the
// column is not chosen and nothing is asked again.
func TestFilterColumnMissingVerdict(t *testing.T) {
	items, dbDir := concertSingerQuestion(t)
	srv := llmtest.New(t, func(r *llmtest.Request) llmtest.Reply {
		switch r.Header.Get(generate.HeaderStep) {
		case "extract_keywords":
			return llmtest.Reply{Content: `["singers"]`}
		case "filter_column":
			if strings.Contains(r.User(), "Original column name: `Name`\n") {
				return llmtest.Reply{Content: `{"chain_of_thought_reasoning": "", "relevant": "Yes"}`}
			}
			return llmtest.Reply{Content: `{"chain_of_thought_reasoning": "", "is_column_information_relevant": "Yes"}`}
		case "select_tables":
			return llmtest.Reply{Content: `{"chain_of_thought_reasoning": "", "table_names": ["singer"]}`}
		case "select_columns":
			return llmtest.Reply{Content: `{"chain_of_thought_reasoning": "", "singer": ["Age"]}`}
		}
		return llmtest.Reply{Content: "<FINAL_ANSWER>SELECT count(*) FROM singer</FINAL_ANSWER>"}
	})
	o := options(t, srv, items, dbDir, generate.MethodChess, "CHESS_IR_SS_CG")
	if _, err := generate.Run(context.Background(), o); err != nil {
		t.Fatal(err)
	}
	for _, s := range readLedger(t, o.Out)[0].Steps {
		if s.Name != "filter_column" {
			continue
		}
		for _, c := range s.Calls {
			if c.Attempt > 0 || c.ParseError != "" {
				t.Errorf("filter_column asked again: %+v", c)
			}
		}
		for tb, cols := range s.Schema {
			if slices.Contains(cols, "Name") {
				t.Errorf("%s.Name chosen without a verdict: %v", tb, s.Schema)
			}
		}
		if !slices.Contains(s.Schema["singer"], "Age") {
			t.Errorf("filter_column schema %v lacks singer.Age", s.Schema)
		}
	}
}
