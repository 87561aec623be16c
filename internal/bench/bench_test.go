package bench

import (
	"cmp"
	"encoding/csv"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/sqljudge/sqljudge/internal/shareddata"
	"github.com/sqljudge/sqljudge/internal/sqllex"
)

func write(t *testing.T, name, content string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// wantInputError checks that err is an *InputError at file:line whose
// message contains msg.
func wantInputError(t *testing.T, err error, file string, line int, msg string) {
	t.Helper()
	var ie *InputError
	if !errors.As(err, &ie) {
		t.Fatalf("err = %v (%T), want an *InputError", err, err)
	}
	if !errors.Is(err, ErrFormat) {
		t.Errorf("err does not wrap ErrFormat")
	}
	if ie.Pos.File != file || ie.Pos.Line != line || !strings.Contains(ie.Msg, msg) {
		t.Errorf("err = %q; want %s:%d: ...%s...", err, file, line, msg)
	}
}

func TestSpiderDevGoldAndPredictions(t *testing.T) {
	spider := shareddata.SubsetPath(t, "spider")
	gold := filepath.Join(spider, "dev_gold.sql")
	items, err := Load(Options{Gold: gold, Pred: filepath.Join(spider, "predictions", "resdsql.sql")})
	if err != nil {
		t.Fatal(err)
	}
	raw, _ := os.ReadFile(gold)
	lines := strings.Split(strings.TrimRight(string(raw), "\n"), "\n")
	if len(items) != len(lines) {
		t.Fatalf("%d items for %d gold lines", len(items), len(lines))
	}
	for i, it := range items {
		sql, db, _ := strings.Cut(strings.TrimSpace(lines[i]), "\t")
		if it.Index != i || it.ID != strconv.Itoa(i) || it.DBID != db || it.Gold[0] != sql || it.Pred == "" {
			t.Fatalf("item %d = %+v; gold line %q", i, it, lines[i])
		}
		if it.GoldPos.Line != i+1 || it.PredPos.Line != i+1 {
			t.Fatalf("item %d read at %s / %s", i, it.GoldPos, it.PredPos)
		}
	}
	// dev.json holds the same questions.
	js, err := Load(Options{Gold: filepath.Join(spider, "dev.json"), Pred: filepath.Join(spider, "predictions", "resdsql.sql")})
	if err != nil {
		t.Fatal(err)
	}
	if len(js) != len(items) {
		t.Fatalf("dev.json: %d items, dev_gold.sql: %d", len(js), len(items))
	}
	for i := range js {
		if js[i].DBID != items[i].DBID || js[i].Question == "" || js[i].Pred != items[i].Pred {
			t.Fatalf("dev.json item %d = %+v", i, js[i])
		}
	}
}

func TestPredictionSuffixAndCountMismatch(t *testing.T) {
	gold := write(t, "gold.sql", "SELECT 1\tdb_a\nSELECT 2\tdb_b\nSELECT 3\tdb_a\n")
	pred := write(t, "pred.sql", "SELECT 1\tdb_a\nselect 2;\n  SELECT 3  \n\n")
	items, err := Load(Options{Gold: gold, Pred: pred})
	if err != nil {
		t.Fatal(err)
	}
	if got := []string{items[0].Pred, items[1].Pred, items[2].Pred}; got[0] != "SELECT 1" || got[1] != "select 2;" || got[2] != "SELECT 3" {
		t.Errorf("predictions %q", got)
	}
	short := write(t, "short.sql", "SELECT 1\nSELECT 2\n")
	_, err = Load(Options{Gold: gold, Pred: short})
	wantInputError(t, err, short, 2, "2 predictions for 3 gold items")
	long := write(t, "long.sql", "SELECT 1\nSELECT 2\nSELECT 3\nSELECT 4\n")
	_, err = Load(Options{Gold: gold, Pred: long})
	wantInputError(t, err, long, 4, "4 predictions for 3 gold items")
	// A blank line inside a single-turn file is an empty prediction.
	blank := write(t, "blank.sql", "SELECT 1\n\nSELECT 3\n")
	items, err = Load(Options{Gold: gold, Pred: blank})
	if err != nil || items[1].Pred != "" || items[2].Pred != "SELECT 3" {
		t.Fatalf("blank prediction: %v %+v", err, items)
	}
}

func TestMalformedSpiderGold(t *testing.T) {
	gold := write(t, "gold.sql", "SELECT 1\tdb_a\nSELECT 2 db_b\n")
	_, err := Load(Options{Gold: gold, Pred: gold})
	wantInputError(t, err, gold, 2, "expected \"SQL<TAB>db_id\"")
}

func TestInteractionsKeepBlankLinesAsBoundaries(t *testing.T) {
	gold := write(t, "gold.txt", "SELECT 1\tdb\nSELECT 2\tdb\n\nSELECT 3\tdb\n\n\nSELECT 4\tdb\nSELECT 5\tdb\n")
	pred := write(t, "pred.txt", "p1\np2\n\np3\n\np4\np5\n")
	items, err := Load(Options{Gold: gold, Pred: pred})
	if err != nil {
		t.Fatal(err)
	}
	want := []struct{ inter, turn int }{{0, 0}, {0, 1}, {1, 0}, {2, 0}, {2, 1}}
	for i, w := range want {
		if items[i].Interaction != w.inter || items[i].Turn != w.turn || items[i].Pred != "p"+strconv.Itoa(i+1) || items[i].Index != i {
			t.Errorf("item %d: interaction %d turn %d pred %q; want %d %d p%d", i, items[i].Interaction, items[i].Turn, items[i].Pred, w.inter, w.turn, i+1)
		}
	}
	// A prediction file whose interactions do not line up.
	bad := write(t, "bad.txt", "p1\n\np2\np3\n\np4\np5\n")
	_, err = Load(Options{Gold: gold, Pred: bad})
	wantInputError(t, err, bad, 3, "blank lines must separate the same interactions")
}

func TestBirdPairsByQuestionID(t *testing.T) {
	gold := write(t, "dev.json", `[
  {"question_id": 5, "db_id": "a", "question": "q5", "evidence": "e5", "SQL": "SELECT 5", "difficulty": "simple"},
  {"question_id": 7, "db_id": "b", "question": "q7", "evidence": "", "SQL": "SELECT 7", "difficulty": "challenging"},
  {"question_id": 9, "db_id": "a", "question": "q9", "evidence": "", "SQL": "SELECT 9", "difficulty": "moderate"}
]`)
	pred := write(t, "predict_dev.json", `{"9": "SELECT p9\t----- bird -----\ta", "5": "SELECT p5\t----- bird -----\ta", "7": "SELECT p7\t----- bird -----\tb"}`)
	items, err := Load(Options{Gold: gold, Pred: pred})
	if err != nil {
		t.Fatal(err)
	}
	for _, it := range items {
		if it.Pred != "SELECT p"+it.ID || it.Gold[0] != "SELECT "+it.ID || it.Question != "q"+it.ID {
			t.Errorf("item %s paired with %q", it.ID, it.Pred)
		}
	}
	if items[0].Difficulty != "simple" || items[0].Evidence != "e5" || items[1].GoldPos.Line != 3 {
		t.Errorf("fields: %+v", items[:2])
	}
	missing := write(t, "predict_dev.json", `{"9": "SELECT p9\t----- bird -----\ta", "5": "SELECT p5\t----- bird -----\ta"}`)
	_, err = Load(Options{Gold: gold, Pred: missing})
	wantInputError(t, err, gold, 3, `no prediction for id "7"`)
	extra := write(t, "predict_dev.json", "{\"9\": \"x\",\n \"5\": \"y\",\n \"7\": \"z\",\n \"11\": \"w\"}")
	_, err = Load(Options{Gold: gold, Pred: extra})
	wantInputError(t, err, extra, 4, `prediction for id "11" has no gold item`)
}

func TestSQLEvalQuestions(t *testing.T) {
	for _, name := range []string{"questions_gen_postgres.csv", "questions_gen_sqlite.csv", "questions_gen_mysql.csv"} {
		path := shareddata.Path(t, "defog", "questions", name)
		items, err := Load(Options{Gold: path, Pred: path, Format: FormatSQLEval})
		if err == nil {
			t.Fatalf("%s as its own prediction file should not pair", name)
		}
		items, err = readSQLEvalCSV(path)
		if err != nil {
			t.Fatal(err)
		}
		if len(items) != 210 {
			t.Fatalf("%s: %d items, want 210", name, len(items))
		}
		multi := 0
		for _, it := range items {
			if it.DBID == "" || it.Question == "" || it.Category == "" {
				t.Errorf("%s item %d: %+v", name, it.Index, it)
			}
			if len(it.Gold) > 1 {
				multi++
			}
			// The alternatives are the query split at its top-level
			// semicolons: rejoined, they give the query back.
			var parts []string
			for _, g := range it.Gold {
				if g == "" || len(sqllex.SplitStatements(g)) != 1 {
					t.Errorf("%s item %d: alternative %q", name, it.Index, g)
				}
				parts = append(parts, g)
			}
			if strings.Join(strings.Fields(strings.Join(parts, ";")), " ") != strings.Join(strings.Fields(strings.TrimRight(strings.TrimSpace(it.GoldText), ";")), " ") {
				t.Errorf("%s item %d: alternatives %q do not rebuild %q", name, it.Index, it.Gold, it.GoldText)
			}
		}
		t.Logf("%s: %d items, %d with several gold queries", name, len(items), multi)
	}
}

func TestSQLEvalCSVErrors(t *testing.T) {
	noCol := write(t, "q.csv", "db_name,question\nacademic,how many\n")
	_, err := Load(Options{Gold: noCol, Pred: noCol})
	wantInputError(t, err, noCol, 1, `no "query" column`)
	// A record with too many fields is an error, as in pandas; one with
	// too few is padded with NaN (read as ""), as pandas pads it.
	ragged := write(t, "q.csv", "db_name,query,question\nacademic,SELECT 1,how many\nacademic,SELECT 2,q,x\n")
	_, err = readSQLEvalCSV(ragged)
	wantInputError(t, err, ragged, 3, "4 fields, the header has 3")
	short := write(t, "q.csv", "db_name,query,question\nacademic,SELECT 1,how many\nacademic,SELECT 2\n")
	items, err := readSQLEvalCSV(short)
	if err != nil || len(items) != 2 || items[1].Question != "" || items[1].Gold[0] != "SELECT 2" {
		t.Errorf("short record: %v %+v", err, items)
	}
}

func TestJSONL(t *testing.T) {
	gold := write(t, "b.jsonl", `{"id": "a", "db_id": "x", "question": "q", "gold": "SELECT 1", "pred": "SELECT 2"}
{"id": 2, "db_id": "x", "gold": ["SELECT 1", "SELECT 1.0"], "pred": "SELECT 1", "difficulty": "hard"}
`)
	items, err := Load(Options{Gold: gold})
	if err != nil {
		t.Fatal(err)
	}
	if items[0].ID != "a" || items[1].ID != "2" || len(items[1].Gold) != 2 || items[1].Difficulty != "hard" || items[0].Pred != "SELECT 2" {
		t.Errorf("items %+v", items)
	}
	// Predictions from another JSONL file, by id.
	preds := write(t, "p.jsonl", `{"id": 2, "pred": "P2"}`+"\n"+`{"id": "a", "pred": "PA"}`+"\n")
	items, err = Load(Options{Gold: gold, Pred: preds})
	if err != nil || items[0].Pred != "PA" || items[1].Pred != "P2" {
		t.Fatalf("%v %+v", err, items)
	}
	bad := write(t, "bad.jsonl", `{"id": "a", "db_id": "x", "gold": "SELECT 1", "pred": "p"}`+"\n"+`{"id": "b", "db_id": "x", "gold": 3}`+"\n")
	_, err = Load(Options{Gold: bad})
	wantInputError(t, err, bad, 2, `"gold" must be a string`)
	broken := write(t, "broken.jsonl", `{"id": "a", "db_id": "x", "gold": "SELECT 1", "pred": "p"}`+"\n"+`{"id": "b", `+"\n")
	_, err = Load(Options{Gold: broken})
	wantInputError(t, err, broken, 2, "expected a JSON object")
	nopred := write(t, "nopred.jsonl", `{"id": "a", "db_id": "x", "gold": "SELECT 1"}`+"\n")
	_, err = Load(Options{Gold: nopred})
	wantInputError(t, err, nopred, 1, "has no prediction")
}

// TestSQLEvalResultsCSV reads sql-eval's own results CSV (the questions'
// columns plus generated_query, exact_match, correct, error_msg, sorted by
// db_name, query_category and question as eval/api_runner.py writes it):
// as --gold alone its generated_query is each row's prediction; as --pred
// it is paired by row, and a file whose rows are not the gold's (sorted
// otherwise) is refused at the first row that differs.
func TestSQLEvalResultsCSV(t *testing.T) {
	questions := shareddata.Path(t, "defog", "questions", "questions_gen_postgres.csv")
	if _, err := Load(Options{Gold: questions, Pred: questions}); err == nil || !strings.Contains(err.Error(), `no "generated_query" column`) {
		t.Fatalf("a questions CSV as predictions: %v", err)
	}
	items, err := LoadGold(questions, FormatSQLEval)
	if err != nil {
		t.Fatal(err)
	}
	items = items[:30]
	rows := make([]Item, len(items))
	copy(rows, items)
	for i := range rows {
		rows[i].Pred = "SELECT " + strconv.Itoa(i)
	}
	dir := t.TempDir()
	write := func(name string, rs []Item) string {
		var b strings.Builder
		w := csv.NewWriter(&b)
		head := []string{"db_name", "db_type", "query_category", "query", "question", "instructions"}
		if rs[0].Pred != "" {
			head = append(head, "generated_query", "exact_match", "correct", "error_msg")
		}
		w.Write(head)
		for _, r := range rs {
			w.Write([]string{r.DBID, "postgres", r.Category, r.GoldText, r.Question, r.Instructions, r.Pred, "0", "0", ""}[:len(head)])
		}
		w.Flush()
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	sorted := slices.Clone(rows)
	slices.SortStableFunc(sorted, func(a, b Item) int {
		return cmp.Or(cmp.Compare(a.DBID, b.DBID), cmp.Compare(a.Category, b.Category), cmp.Compare(a.Question, b.Question))
	})
	results := write("results.csv", sorted)
	got, err := Load(Options{Gold: results})
	if err != nil {
		t.Fatal(err)
	}
	for k, it := range got {
		if it.Pred != sorted[k].Pred || it.Question != sorted[k].Question || it.Category != sorted[k].Category || it.GoldText != sorted[k].GoldText {
			t.Errorf("row %d: %q %q, want %q %q", k, it.Question, it.Pred, sorted[k].Question, sorted[k].Pred)
		}
	}
	inOrder := write("in_order.csv", rows)
	questions30 := write("questions.csv", items)
	got, err = Load(Options{Gold: questions30, Pred: inOrder})
	if err != nil {
		t.Fatal(err)
	}
	for k, it := range got {
		if it.Pred != rows[k].Pred {
			t.Errorf("row %d paired with %q, want %q", k, it.Pred, rows[k].Pred)
		}
	}
	_, err = Load(Options{Gold: questions30, Pred: results})
	if err == nil || !strings.Contains(err.Error(), "sorted by db_name, query_category and question") || !strings.Contains(err.Error(), "results.csv:") {
		t.Errorf("sorted results paired by row with the questions: %v", err)
	}
}

// TestSwappedGoldAndPred: a prediction file given as --gold, with the gold
// file as --pred, is reported as swapped.
func TestSwappedGoldAndPred(t *testing.T) {
	spider := shareddata.SubsetPath(t, "spider")
	gold, pred := filepath.Join(spider, "dev_gold.sql"), filepath.Join(spider, "predictions", "c3.sql")
	_, err := Load(Options{Gold: pred, Pred: gold})
	wantInputError(t, err, pred, 1, "--gold and --pred look swapped")
	// A gold file that is merely broken says nothing of a swap.
	bad := write(t, "bad.sql", "SELECT 1\n")
	_, err = Load(Options{Gold: bad, Pred: pred})
	if err == nil || strings.Contains(err.Error(), "swapped") {
		t.Errorf("broken gold, real predictions: %v", err)
	}
}

// TestMultiLinePredictionsSuggestJSONL: more prediction lines than gold
// items, where a line does not start a query, names that line and
// suggests JSONL.
func TestMultiLinePredictionsSuggestJSONL(t *testing.T) {
	gold := write(t, "gold.sql", "SELECT 1\tdb_a\nSELECT 2\tdb_b\n")
	pred := write(t, "pred.sql", "SELECT a\n  FROM t\nSELECT 2\n")
	_, err := Load(Options{Gold: gold, Pred: pred})
	wantInputError(t, err, pred, 3, `line 2 ("FROM") does not start a query`)
	if !strings.Contains(err.Error(), "write JSONL") {
		t.Errorf("no JSONL suggestion: %v", err)
	}
	// The suggested form reads.
	jl := write(t, "pred.jsonl", `{"pred": "SELECT a\n  FROM t"}`+"\n"+`{"pred": "SELECT 2"}`+"\n")
	items, err := Load(Options{Gold: gold, Pred: jl})
	if err != nil || items[0].Pred != "SELECT a\n  FROM t" {
		t.Fatalf("JSONL predictions: %v %+v", err, items)
	}
	long := write(t, "long.sql", "SELECT 1\nSELECT 2\nSELECT 3\n")
	_, err = Load(Options{Gold: gold, Pred: long})
	var ie *InputError
	if !errors.As(err, &ie) || strings.Contains(ie.Msg, "write JSONL") {
		t.Errorf("one query too many, each on its line: %v", err)
	}
}
