package equiv

import (
	"context"
	"encoding/json"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/sqljudge/sqljudge/internal/bench"
	"github.com/sqljudge/sqljudge/internal/engine/sqlite"
	"github.com/sqljudge/sqljudge/internal/judge"
	"github.com/sqljudge/sqljudge/internal/llm"
	"github.com/sqljudge/sqljudge/internal/llm/llmtest"
	"github.com/sqljudge/sqljudge/internal/metric"
	"github.com/sqljudge/sqljudge/internal/shareddata"
)

// TestEscalationOnSpider grades three DIN-SQL predictions of Spider dev
// with --metrics verdict: item 23 (EX rejects it: decided by ex, the dev
// database shrunk into a witness), item 6 (EX accepts it, the search
// refutes it: decided by equiv) and item 0 (the gold itself: no witness,
// no judge configured, so equiv's bounded verdict stands).
func TestEscalationOnSpider(t *testing.T) {
	gold := readLines(t, shareddata.Path(t, "spider", "dev_gold.sql"))
	pred := readLines(t, shareddata.Path(t, "spider", "predictions", "din_sql.sql"))
	ms, err := metric.New([]string{"verdict"}, metric.Options{Equiv: metric.EquivOptions{Seed: 1, Budget: 10 * time.Second, MaxDatabases: 150}})
	if err != nil {
		t.Fatal(err)
	}
	defer metric.Close(ms)
	eng := sqlite.New(shareddata.Path(t, "spider", "database"), sqlite.Options{})
	defer eng.Close()
	env := &metric.Env{Engine: eng, Timeout: 10 * time.Second}
	for _, c := range []struct {
		i       int
		correct bool
		step    Step
		witness bool
	}{{23, false, StepEX, true}, {6, false, StepEquiv, true}, {0, true, StepEquiv, false}} {
		g, db, _ := strings.Cut(gold[c.i], "\t")
		it := &bench.Item{Index: c.i, DBID: db, Gold: []string{g}, Pred: pred[c.i]}
		v := ms[0].Grade(context.Background(), env.NewExec(), it)
		d := v.Details.(EscalationDetails)
		if v.Correct != c.correct || d.Step != c.step || (d.Witness != nil) != c.witness || len(d.Evidence) == 0 {
			t.Fatalf("item %d: %+v %+v", c.i, v, d)
		}
		if d.Witness != nil {
			reverifySQLite(t, d.Witness, g, pred[c.i])
		}
		b, _ := json.Marshal(v)
		if !strings.Contains(string(b), `"step":"`+string(c.step)+`"`) {
			t.Errorf("record: %s", b)
		}
	}
}

// TestEscalationAsksTheJudgeLast: with an LLM configured (the scripted
// server, here a model that calls every prediction wrong), an item that ex
// and the search both pass but the prover does not prove (Spider dev item
// 26: ORDER BY count(*) DESC LIMIT 1 against count(concert_ID), where
// ties make the order partial) is decided by rose, and its reasoning is
// the evidence; an item the search refutes (item 6) and an item proved
// (item 0, the gold itself) never reach the judge.
func TestEscalationAsksTheJudgeLast(t *testing.T) {
	items, err := bench.Load(bench.Options{Gold: shareddata.Path(t, "spider", "dev.json"), Pred: shareddata.Path(t, "spider", "predictions", "din_sql.sql")})
	if err != nil {
		t.Fatal(err)
	}
	var asked atomic.Int32
	srv := llmtest.New(t, llmtest.Judges(func(kind, q string) (bool, bool) { asked.Add(1); return false, true }))
	client, err := llm.New(llm.Config{BaseURL: srv.BaseURL(), Model: "scripted"})
	if err != nil {
		t.Fatal(err)
	}
	ms, err := metric.New([]string{"verdict"}, metric.Options{
		Equiv: metric.EquivOptions{Seed: 1, Budget: 10 * time.Second, MaxDatabases: 100},
		Judge: judge.Judge{Client: client, Samples: 1, ParseRetries: 2, XScoreMin: 2},
	})
	if err != nil {
		t.Fatal(err)
	}
	defer metric.Close(ms)
	eng := sqlite.New(shareddata.Path(t, "spider", "database"), sqlite.Options{})
	defer eng.Close()
	env := &metric.Env{Engine: eng, Timeout: 10 * time.Second}
	v := ms[0].Grade(context.Background(), env.NewExec(), &items[6])
	if d := v.Details.(EscalationDetails); d.Step != StepEquiv || v.Correct || asked.Load() != 0 {
		t.Fatalf("item 6: %+v %+v, judge asked %d times", v, d, asked.Load())
	}
	v = ms[0].Grade(context.Background(), env.NewExec(), &items[0])
	if d := v.Details.(EscalationDetails); d.Step != StepEquiv || !v.Correct || d.Proof == nil || d.Decider() != DecidedEquivProved || asked.Load() != 0 {
		t.Fatalf("item 0: %+v %+v, judge asked %d times", v, d, asked.Load())
	}
	v = ms[0].Grade(context.Background(), env.NewExec(), &items[26])
	d := v.Details.(EscalationDetails)
	if d.Step != StepJudge || v.Correct || asked.Load() == 0 || !strings.Contains(string(d.Evidence), "correct") {
		t.Fatalf("item 26: %+v %+v %s, judge asked %d times", v, d, d.Evidence, asked.Load())
	}
}
