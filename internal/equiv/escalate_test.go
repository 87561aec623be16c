package equiv

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/sqljudge/sqljudge/internal/bench"
	"github.com/sqljudge/sqljudge/internal/engine/sqlite"
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
