package equiv

import (
	"context"
	"database/sql"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/sqljudge/sqljudge/internal/bench"
	"github.com/sqljudge/sqljudge/internal/engine/sqlite"
	"github.com/sqljudge/sqljudge/internal/metric"
	"github.com/sqljudge/sqljudge/internal/result"
	"github.com/sqljudge/sqljudge/internal/shareddata"
)

// TestMetricOnSpider grades two DIN-SQL predictions of Spider dev that EX
// accepts: item 6 (wrong on a one-row table with a NULL age) and item 0
// (SELECT count(*) FROM singer, the gold itself). The wrong item's record
// carries the witness as verdicts.equiv.witness, which re-runs from its
// SQL alone and reads back into Details.
func TestMetricOnSpider(t *testing.T) {
	_, pairs := spiderDIN(t)
	ms, err := metric.New([]string{"equiv"}, metric.Options{Equiv: metric.EquivOptions{Seed: 1, Budget: 10 * time.Second, MaxDatabases: 150}})
	if err != nil {
		t.Fatal(err)
	}
	defer metric.Close(ms)
	eng := sqlite.New(shareddata.Path(t, "spider", "database"), sqlite.Options{})
	defer eng.Close()
	env := &metric.Env{Engine: eng, Timeout: 10 * time.Second}
	grade := func(i int) metric.Verdict {
		p := pairs[i]
		it := &bench.Item{Index: i, DBID: p.ID, Gold: []string{p.Q1}, Pred: p.Q2}
		return ms[0].Grade(context.Background(), env.NewExec(), it)
	}
	// Item 0 is the gold itself up to case: proved (a renaming needs no
	// solver), its search cut to TripwireDatabases.
	right := grade(0)
	if rd := right.Details.(Details); !right.Correct || rd.Witness != nil || rd.Verdict != EquivalentProved || rd.Proof == nil || rd.Databases != TripwireDatabases {
		t.Fatalf("item 0: %+v", right)
	}
	wrong := grade(6)
	d := wrong.Details.(Details)
	if wrong.Correct || d.Witness == nil || d.Witness.Rows != 1 {
		t.Fatalf("item 6: %+v", wrong)
	}
	reverifySQLite(t, d.Witness, pairs[6].Q1, pairs[6].Q2)
	b, err := json.Marshal(wrong)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), `"verdict":"inequivalent","witness":{"sql":"CREATE TABLE`) {
		t.Fatalf("record: %s", b)
	}
	back, err := metric.DecodeVerdict("equiv", b)
	if err != nil {
		t.Fatal(err)
	}
	if bd, ok := back.Details.(Details); !ok || bd.Witness == nil || bd.Witness.SQL != d.Witness.SQL {
		t.Fatalf("decoded: %+v", back.Details)
	}
}

// TestMetricSaysBudgetExhausted: an item whose search the budget stopped
// says so in its record (verdicts.equiv.budget_exhausted) and counts in the
// summary's share (Numbers).
func TestMetricSaysBudgetExhausted(t *testing.T) {
	_, pairs := spiderDIN(t)
	ms, err := metric.New([]string{"equiv"}, metric.Options{Equiv: metric.EquivOptions{Seed: 1, Budget: time.Nanosecond, MaxDatabases: 150}})
	if err != nil {
		t.Fatal(err)
	}
	defer metric.Close(ms)
	eng := sqlite.New(shareddata.Path(t, "spider", "database"), sqlite.Options{})
	defer eng.Close()
	env := &metric.Env{Engine: eng, Timeout: 10 * time.Second}
	p := pairs[0]
	v := ms[0].Grade(context.Background(), env.NewExec(), &bench.Item{DBID: p.ID, Gold: []string{p.Q1}, Pred: p.Q2})
	d, ok := v.Details.(Details)
	if !ok || !d.BudgetExhausted || d.Numbers()["budget_exhausted"] != 1 {
		t.Fatalf("the budget stopped the search, the verdict does not say so: %+v", v)
	}
	if b, _ := json.Marshal(v); !strings.Contains(string(b), `"budget_exhausted":true`) {
		t.Fatalf("record: %s", b)
	}
}

// TestMetricItemDatabaseSeparates grades DIN-SQL's prediction of Spider dev
// item 235 (flight_2), SELECT DISTINCT where the gold keeps duplicates: the
// official test-suite evaluator strips DISTINCT and calls it right, and
// the item's own database tells the queries as written apart. The verdict
// is inequivalent with its evidence (a witness cut from the item's
// database, or the reason naming it), never "equivalent_bounded" beside
// correct: false, which a reader takes for a contradiction.
func TestMetricItemDatabaseSeparates(t *testing.T) {
	_, pairs := spiderDIN(t)
	ms, err := metric.New([]string{"equiv"}, metric.Options{Equiv: metric.EquivOptions{Seed: 1, Budget: 10 * time.Second, MaxDatabases: 20}})
	if err != nil {
		t.Fatal(err)
	}
	defer metric.Close(ms)
	eng := sqlite.New(shareddata.Path(t, "spider", "database"), sqlite.Options{})
	defer eng.Close()
	env := &metric.Env{Engine: eng, Timeout: 10 * time.Second}
	p := pairs[235]
	it := &bench.Item{Index: 235, DBID: p.ID, Gold: []string{p.Q1}, Pred: p.Q2}
	v := ms[0].Grade(context.Background(), env.NewExec(), it)
	d := v.Details.(Details)
	if v.Correct || d.Verdict != Inequivalent {
		t.Fatalf("item 235: %+v", v)
	}
	if d.Witness != nil {
		reverifySQLite(t, d.Witness, p.Q1, p.Q2)
	} else if !strings.Contains(d.Reason, "item's database (flight_2)") {
		t.Fatalf("no witness and no reason naming the database: %+v", d)
	}
}

// TestMetricRecordIsBounded: a record of the equiv and verdict metrics
// stays small whatever the queries return or hold. A prediction that pads
// each name with a 1 MB string is refuted by a witness whose q2 cells are
// cut to result.SampleCellBytes (ending in "…", counted in cut_cells), as a
// report's samples are; a prediction holding a 70 kB literal, which the
// witness must insert to tell it from the gold (coalesce: not a NULL name), gets a witness without its
// SQL (sql_omitted_bytes says how long it was) but with its results.
// Before, both records carried the values whole (a 20 MB cell made a 20 MB
// record, in results.jsonl and in serve's response).
func TestMetricRecordIsBounded(t *testing.T) {
	ms, err := metric.New([]string{"equiv", "verdict"}, metric.Options{Equiv: metric.EquivOptions{Seed: 1, Budget: 20 * time.Second, MaxDatabases: 300}})
	if err != nil {
		t.Fatal(err)
	}
	defer metric.Close(ms)
	eng := sqlite.New(shareddata.SubsetPath(t, "spider", "database"), sqlite.Options{})
	defer eng.Close()
	env := &metric.Env{Engine: eng, Timeout: 10 * time.Second}
	grade := func(m metric.Metric, gold, pred string) (*Witness, []byte) {
		t.Helper()
		v := m.Grade(context.Background(), env.NewExec(), &bench.Item{DBID: "concert_singer", Gold: []string{gold}, Pred: pred})
		b, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		var w *Witness
		switch d := v.Details.(type) {
		case Details:
			w = d.Witness
		case EscalationDetails:
			w = d.Witness
		}
		if v.Correct || w == nil {
			t.Fatalf("%s: want a witness: %s", m.Name(), b)
		}
		return w, b
	}
	for _, m := range ms {
		w, b := grade(m, "SELECT name FROM singer WHERE age > 40", "SELECT name || printf('%.*c', 1000000, 'x') FROM singer WHERE age > 40")
		cell, _ := w.Q2.Rows[0][0].(string)
		if w.Q2.CutCells != len(w.Q2.Rows) || !strings.HasSuffix(cell, "…") || len(cell) > result.SampleCellBytes+len("…") {
			t.Errorf("%s: q2 cells not cut (%d cut, first %d bytes)", m.Name(), w.Q2.CutCells, len(cell))
		}
		if len(b) > 16<<10 {
			t.Errorf("%s: a record of %d bytes", m.Name(), len(b))
		}
	}
	long := strings.Repeat("x", 70_000)
	w, b := grade(ms[0], "SELECT name FROM singer", "SELECT name FROM singer WHERE coalesce(name, '') <> '"+long+"'")
	if w.SQL != "" || w.SQLOmitted <= MaxWitnessSQL || len(w.Q1.Rows) == 0 || len(b) > 16<<10 {
		t.Errorf("want a witness without its SQL (%d bytes): sql %d bytes, omitted %d, record %d bytes", MaxWitnessSQL, len(w.SQL), w.SQLOmitted, len(b))
	}
}

// TestMetricProofAgainstItemDatabase: SQLite lets a primary key that is
// not an INTEGER one hold NULL, so the prover's SQLite model does not take
// such a key column for NOT NULL: COUNT(*) and COUNT(id) are not proved
// equal (count_star needs id NOT NULL), and the item's database, which
// holds such a NULL, tells them apart: inequivalent and wrong, no proof.
func TestMetricProofAgainstItemDatabase(t *testing.T) {
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "nullpk"), 0o755); err != nil {
		t.Fatal(err)
	}
	db, err := sql.Open("sqlite3", filepath.Join(dir, "nullpk", "nullpk.sqlite"))
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{"CREATE TABLE t (id TEXT PRIMARY KEY, name TEXT)", "INSERT INTO t VALUES ('a', 'x'), (NULL, 'y')"} {
		if _, err := db.Exec(s); err != nil {
			t.Fatal(err)
		}
	}
	db.Close()
	ms, err := metric.New([]string{"equiv"}, metric.Options{Equiv: metric.EquivOptions{Seed: 1, Budget: 10 * time.Second, MaxDatabases: 50}})
	if err != nil {
		t.Fatal(err)
	}
	defer metric.Close(ms)
	eng := sqlite.New(dir, sqlite.Options{})
	defer eng.Close()
	env := &metric.Env{Engine: eng, Timeout: 10 * time.Second}
	it := &bench.Item{Index: 0, DBID: "nullpk", Gold: []string{"SELECT count(*) FROM t"}, Pred: "SELECT count(id) FROM t"}
	v := ms[0].Grade(context.Background(), env.NewExec(), it)
	d := v.Details.(Details)
	if v.Correct || d.Verdict != Inequivalent || d.Proof != nil || d.Prover == nil || d.Prover.Result != ProverNoProof {
		t.Fatalf("%+v %+v", v, d)
	}
}
