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
	"github.com/sqljudge/sqljudge/internal/status"
)

// scratchGuards are conditions a prediction can hold that are true on
// concert_singer's own database and false on the search's scratch
// databases (issue 41): its data (six singers), the text sqlite_master
// keeps of its CREATE TABLE (the item's holds newlines, the scratch
// copies render one line) and the file path in pragma_database_list.
var scratchGuards = map[string]string{
	"data":          "(SELECT count(*) FROM singer) = 6",
	"sqlite_master": "(SELECT instr(sql, char(10)) FROM sqlite_master WHERE name = 'singer') > 0",
	"database_list": "(SELECT file FROM pragma_database_list) NOT LIKE '%sqljudge-equiv-%'",
}

// fallbackAttack is a wrong prediction built to make equiv fall back to
// the item's database (issue 41, "Reward for wrong predictions"): it
// fails, turns nondeterministic or exhausts the search's work on every
// scratch database and returns the gold's result on the item's.
type fallbackAttack struct {
	name, gold, pred string
}

// fallbackAttacks are the attacks of issue 41 on concert_singer, each
// graded correct by the equiv and verdict metrics before: the gold
// counts the six singers (or the three over 40).
func fallbackAttacks() []fallbackAttack {
	count := "SELECT count(*) FROM singer"
	var out []fallbackAttack
	for _, g := range []string{"data", "sqlite_master", "database_list"} {
		out = append(out, fallbackAttack{"fails/" + g, count,
			"SELECT 6 WHERE json(CASE WHEN " + scratchGuards[g] + " THEN '1' ELSE '{' END) IS NOT NULL"})
	}
	out = append(out,
		fallbackAttack{"random/data", count, "SELECT CASE WHEN " + scratchGuards["data"] + " THEN 6 ELSE random() END"},
		fallbackAttack{"subtle/sqlite_master", "SELECT count(*) FROM singer WHERE age > 40",
			"SELECT count(*) FROM singer WHERE age >= 40 AND json(CASE WHEN " + scratchGuards["sqlite_master"] + " THEN '1' ELSE '{' END) IS NOT NULL"},
		// A 100 KB literal kept the prover busy past the whole budget:
		// "budget ended while creating the schema", then the fallback.
		fallbackAttack{"padding", count, "SELECT count(*) FROM singer WHERE name <> '" + strings.Repeat("x", 100_000) + "'"},
		// Slow only where the guard is false: a timeout on every scratch
		// database (this one held before: Limits).
		fallbackAttack{"timeout/data", count, "SELECT CASE WHEN " + scratchGuards["data"] + " THEN 6 ELSE (WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 1000000000) SELECT count(*) FROM c) END"},
	)
	return out
}

// subsetMetrics builds the named metrics with o's equiv settings and an
// environment on the committed subset's Spider databases, closed at the
// test's end.
func subsetMetrics(t *testing.T, o metric.EquivOptions, names ...string) ([]metric.Metric, *metric.Env) {
	t.Helper()
	ms, err := metric.New(names, metric.Options{Equiv: o})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { metric.Close(ms) })
	eng := sqlite.New(shareddata.SubsetPath(t, "spider", "database"), sqlite.Options{})
	t.Cleanup(func() { eng.Close() })
	return ms, &metric.Env{Engine: eng, Timeout: 10 * time.Second}
}

// TestFallbackAttacksAreWrong: no prediction that fails, turns
// nondeterministic, times out or exhausts the work of the search where
// the gold runs is graded correct by the equiv and verdict metrics, on
// a database where it returns the gold's result (issue 41.1). Each was
// graded correct before (the timeout one excepted), by the comparison on
// the item's database that equiv fell back to.
func TestFallbackAttacksAreWrong(t *testing.T) {
	ms, env := subsetMetrics(t, metric.EquivOptions{Seed: 1, Budget: 8 * time.Second, MaxDatabases: 100}, "equiv", "verdict")
	for _, a := range fallbackAttacks() {
		t.Run(a.name, func(t *testing.T) {
			it := &bench.Item{DBID: "concert_singer", Gold: []string{a.gold}, Pred: a.pred}
			if v := metric.NewEX(metric.EXOptions{}).Grade(context.Background(), env.NewExec(), it); a.name != "fails/database_list" && !v.Correct {
				t.Fatalf("ex on the item's database should call it correct (the attack's premise): %+v", v)
			}
			for _, m := range ms {
				v := m.Grade(context.Background(), env.NewExec(), it)
				b, _ := json.Marshal(v)
				if v.Correct {
					t.Errorf("%s grades the attack correct: %.600s", m.Name(), b)
				}
				if v.Status.ToolFailure() {
					t.Errorf("%s: a tool failure is no verdict on the prediction: %.600s", m.Name(), b)
				}
			}
		})
	}
}

// TestPredictionFailureIsAWitness: a database on which the gold runs and
// the prediction fails is a witness against the prediction: the record
// carries it (the database where q2 fails, q1's result there and q2's
// error), re-verified, and the verdict is inequivalent with status ok
// (the prediction ran on the item's database).
func TestPredictionFailureIsAWitness(t *testing.T) {
	ms, env := subsetMetrics(t, metric.EquivOptions{Seed: 1, Budget: 10 * time.Second, MaxDatabases: 100}, "equiv")
	for _, c := range []struct {
		pred string
		kind FailureKind
	}{
		{"SELECT 6 WHERE json(CASE WHEN " + scratchGuards["data"] + " THEN '1' ELSE '{' END) IS NOT NULL", FailsError},
		{"SELECT CASE WHEN " + scratchGuards["data"] + " THEN 6 ELSE random() END", FailsNondeterministic},
	} {
		it := &bench.Item{DBID: "concert_singer", Gold: []string{"SELECT count(*) FROM singer"}, Pred: c.pred}
		v := ms[0].Grade(context.Background(), env.NewExec(), it)
		d := v.Details.(Details)
		if v.Correct || v.Status != status.OK || d.Verdict != Inequivalent || d.Witness == nil || d.Witness.Q2Fails == nil || d.Witness.Q2Fails.Kind != c.kind {
			b, _ := json.Marshal(v)
			t.Fatalf("%s: want a witness on which the prediction fails (%s): %s", c.pred, c.kind, b)
		}
		if !strings.Contains(d.Witness.SQL, "CREATE TABLE") || len(d.Witness.Q1.Columns) != 1 {
			t.Errorf("witness: %+v", d.Witness)
		}
	}
}
