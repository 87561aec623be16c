package serve

import (
	"context"
	"database/sql"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/sqljudge/sqljudge/internal/engine/sqlite"
	"github.com/sqljudge/sqljudge/internal/equiv"
	"github.com/sqljudge/sqljudge/internal/metric"
	"github.com/sqljudge/sqljudge/internal/shareddata"
)

// TestGradeEquiv grades with the equiv and verdict metrics (registered by
// package equiv, which serve imports as eval does) on Spider's
// concert_singer: "age > 35" returns the same singers as the gold's
// "age > 40" on the item's database (no singer is 36 to 40), so ex accepts
// it, but equiv finds a database with such a singer and rejects it; the
// gold itself is correct under both.
func TestGradeEquiv(t *testing.T) {
	eng := sqlite.New(shareddata.SubsetPath(t, "spider", "database"), sqlite.Options{})
	t.Cleanup(func() { eng.Close() })
	_, _, ts := newTestServer(t, Config{Engine: eng, MetricOptions: metric.Options{
		Equiv: metric.EquivOptions{Seed: 1, Budget: 20 * time.Second, MaxDatabases: 300}}})
	gold := Gold{"SELECT name FROM singer WHERE age > 40"}
	wrong, right := ptr("SELECT name FROM singer WHERE age > 35"), ptr("SELECT name FROM singer WHERE 40 < age")
	req := GradeRequest{Items: []GradeItem{
		{ID: json.RawMessage(`1`), DBID: "concert_singer", Gold: gold, Pred: wrong, Metric: "ex"},
		{ID: json.RawMessage(`2`), DBID: "concert_singer", Gold: gold, Pred: wrong, Metric: "equiv"},
		{ID: json.RawMessage(`3`), DBID: "concert_singer", Gold: gold, Pred: right, Metric: "equiv"},
		{ID: json.RawMessage(`4`), DBID: "concert_singer", Gold: gold, Pred: wrong, Metric: "verdict"},
	}}
	want := []Verdict{Correct, Wrong, Correct, Wrong}
	res := grade(t, ts.URL, req)
	for i, r := range res {
		if r.Verdict != want[i] || r.Error != "" {
			t.Errorf("item %s (%s): %+v; want %s", req.Items[i].ID, req.Items[i].Metric, r, want[i])
		}
	}
	// The wrong items carry the witness as eval's record does
	// (verdicts.<metric>.witness), and it re-runs: on a database built from
	// its SQL alone, gold and prediction return what it says, and differ.
	for _, i := range []int{1, 3} {
		w := witnessOf(t, res[i], req.Items[i].Metric)
		if w == nil {
			t.Fatalf("item %s (%s) has no witness: %+v", req.Items[i].ID, req.Items[i].Metric, res[i])
		}
		rerunWitness(t, w, gold[0], *wrong)
	}
	if w := witnessOf(t, res[2], "equiv"); w != nil {
		t.Errorf("a correct item carries a witness: %+v", w)
	}
}

// witnessOf decodes result r's verdicts.<name>.witness (nil when absent),
// failing the test when r has no verdict of that metric.
func witnessOf(t *testing.T, r GradeResult, name string) *equiv.Witness {
	t.Helper()
	v, ok := r.Verdicts[name]
	if !ok {
		t.Fatalf("result %s has no verdicts.%s: %+v", r.ID, name, r)
	}
	raw, ok := v.Details.(metric.RawFields)["witness"]
	if !ok {
		return nil
	}
	var w equiv.Witness
	if err := json.Unmarshal(raw, &w); err != nil {
		t.Fatal(err)
	}
	return &w
}

// rerunWitness builds a SQLite file from the witness's SQL alone (through
// the read-write sqlite3 driver), runs both queries on it through the
// read-only engine and requires the witness's results and a difference.
func rerunWitness(t *testing.T, w *equiv.Witness, gold, pred string) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "w.sqlite")
	db, err := sql.Open("sqlite3", path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec(w.SQL); err != nil {
		t.Fatalf("the witness SQL does not run: %v\n%s", err, w.SQL)
	}
	db.Close()
	eng := sqlite.New("", sqlite.Options{})
	defer eng.Close()
	var got [2]int
	for i, q := range []string{gold, pred} {
		set, err := eng.QueryFile(context.Background(), path, q)
		if err != nil {
			t.Fatalf("%s fails on the witness: %v", q, err)
		}
		got[i] = len(set.Rows)
	}
	if got[0] != len(w.Q1.Rows) || got[1] != len(w.Q2.Rows) || got[0] == got[1] {
		t.Fatalf("the witness re-runs to %d and %d rows; it says %d and %d\n%s", got[0], got[1], len(w.Q1.Rows), len(w.Q2.Rows), w.SQL)
	}
}

// TestCloseRemovesScratchDatabases grades one item with equiv, whose metric
// keeps its scratch databases in a folder under TMPDIR, then closes the
// server: the folder is gone, and a metric asked for after Close is refused
// rather than built and never closed (each stopped server used to leave its
// sqljudge-equiv-* folder behind).
func TestCloseRemovesScratchDatabases(t *testing.T) {
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	eng := sqlite.New(shareddata.SubsetPath(t, "spider", "database"), sqlite.Options{})
	t.Cleanup(func() { eng.Close() })
	s, _, ts := newTestServer(t, Config{Engine: eng, MetricOptions: metric.Options{
		Equiv: metric.EquivOptions{Seed: 1, Budget: 5 * time.Second, MaxDatabases: 5}}})
	req := GradeRequest{Items: []GradeItem{{ID: json.RawMessage(`1`), DBID: "concert_singer",
		Gold: Gold{"SELECT count(*) FROM singer"}, Pred: ptr("SELECT count(*) FROM singer"), Metric: "equiv"}}}
	if r := grade(t, ts.URL, req); r[0].Verdict != Correct {
		t.Fatalf("%+v", r[0])
	}
	if n := scratchFolders(t, tmp); n != 1 {
		t.Fatalf("%d scratch folders while serving; want 1", n)
	}
	s.Close()
	if n := scratchFolders(t, tmp); n != 0 {
		t.Fatalf("%d scratch folders after Close; want 0", n)
	}
	if _, err := s.metric("equiv"); err == nil {
		t.Fatal("a metric was built after Close")
	}
}

func scratchFolders(t *testing.T, dir string) int {
	t.Helper()
	m, err := filepath.Glob(filepath.Join(dir, "sqljudge-equiv-*"))
	if err != nil {
		t.Fatal(err)
	}
	return len(m)
}

// TestSlowPredictionIsNotRewarded is the reward-gaming attack of issue 31:
// a wrong prediction ("age > 35" for the gold's "age > 40", which equiv
// refutes) padded with a recursive CTE joined in, so that it runs past the
// search's query timeout on every scratch database while the gold runs
// there in microseconds. The search could not compare the two, equiv said
// "unknown", and the item fell back to ex on the item's database: correct,
// reward 1. Now neither equiv nor verdict counts it correct: its verdict is
// timeout, whose reward is never above a wrong answer's, under every
// preset. The CTE's depth depends on the data (1,000 rows on the item's
// database, where singer holds 6 rows; 10^15 elsewhere), so that the test
// does not depend on the machine's speed; the attack as reported (30
// million rows everywhere) was run by hand (docs/serve.md).
func TestSlowPredictionIsNotRewarded(t *testing.T) {
	eng := sqlite.New(shareddata.SubsetPath(t, "spider", "database"), sqlite.Options{})
	t.Cleanup(func() { eng.Close() })
	_, _, ts := newTestServer(t, Config{Engine: eng, MetricOptions: metric.Options{
		Equiv: metric.EquivOptions{Seed: 1, Budget: equiv.DefaultMetricBudget, MaxDatabases: equiv.DefaultMetricMaxDatabases}}})
	gold := Gold{"SELECT name FROM singer WHERE age > 40"}
	padded := ptr("WITH RECURSIVE pad(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM pad " +
		"WHERE n < (SELECT CASE count(*) WHEN 6 THEN 1000 ELSE 1e15 END FROM singer)) " +
		"SELECT name FROM singer, (SELECT max(n) AS m FROM pad) WHERE age > 35 AND m > 0")
	items := []GradeItem{
		{ID: json.RawMessage(`0`), DBID: "concert_singer", Gold: gold, Pred: padded, Metric: "ex", Preset: "arctic"},
		{ID: json.RawMessage(`1`), DBID: "concert_singer", Gold: gold, Pred: padded, Metric: "equiv", Preset: "arctic"},
		{ID: json.RawMessage(`2`), DBID: "concert_singer", Gold: gold, Completion: ptr(sqlr1Completion(*padded)), Metric: "verdict", Preset: "sql-r1"},
	}
	res := grade(t, ts.URL, GradeRequest{Items: items})
	// ex alone sees only the item's database, where the two agree.
	if res[0].Verdict != Correct {
		t.Errorf("ex: %+v; ex should accept it on the item's database", res[0])
	}
	for i, r := range res[1:] {
		it := items[i+1]
		p, _ := PresetByName(it.Preset)
		wrong := p.Reward(Outcome{Verdict: Wrong, Parsed: Parsed{SQL: r.SQL}, FormatOK: true})
		switch {
		case r.Correct || r.Verdict != Timeout || r.Reward > wrong:
			t.Errorf("%s/%s: verdict %s, reward %v (a wrong answer's: %v): %s", it.Metric, it.Preset, r.Verdict, r.Reward, wrong, r.Error)
		case !strings.Contains(r.Error, "the prediction ran past equiv's limits where the gold did not (timed out on"):
			t.Errorf("%s/%s: the error does not say why: %q", it.Metric, it.Preset, r.Error)
		}
	}
	// Under every preset, timeout is rewarded at most as a wrong answer.
	for _, p := range Presets() {
		o := Outcome{Parsed: Parsed{SQL: *padded}, FormatOK: true}
		o.Verdict = Timeout
		timeout := p.Reward(o)
		o.Verdict = Wrong
		if wrong := p.Reward(o); timeout > wrong {
			t.Errorf("preset %s rewards a timeout %v, above a wrong answer's %v", p.Name, timeout, wrong)
		}
	}
}

// sqlr1Completion wraps sql in a completion that follows SQL-R1's format.
func sqlr1Completion(sql string) string {
	return "<think>t</think><answer>```sql\n" + sql + "\n```</answer>"
}
