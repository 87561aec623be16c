package equiv

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/sqljudge/sqljudge/internal/bench"
	"github.com/sqljudge/sqljudge/internal/catalog"
	"github.com/sqljudge/sqljudge/internal/engine/sqlite"
	"github.com/sqljudge/sqljudge/internal/metric"
	"github.com/sqljudge/sqljudge/internal/prove/check"
	"github.com/sqljudge/sqljudge/internal/report"
	"github.com/sqljudge/sqljudge/internal/run"
	"github.com/sqljudge/sqljudge/internal/shareddata"
	"github.com/sqljudge/sqljudge/internal/status"
)

// lyingProver "proves" every pair: a stand-in for a prover or kernel bug
// (issue 37 found 96 wrong proofs), so that what the tripwire and the
// metrics do with a wrong proof is tested whatever the kernel fixes.
func lyingProver(context.Context, string, string, *catalog.Database) (*check.Certificate, *ProverNote) {
	return &check.Certificate{Kernel: check.KernelVersion, Method: check.MethodIdentical}, &ProverNote{Result: ProverProved, Solver: "none"}
}

// TestDisagreementIsNeverCorrect: a proof against a re-verified witness
// grades the item wrong in the equiv and verdict metrics, with reason
// "proof and witness disagree", counted in the summary and its notes,
// whether or not the item's database separates the pair (issue 37.6).
// Before, the item was unknown and graded correct when the item's
// database agreed (age > 0 holds for every singer of concert_singer), and
// when it separated them (age > 40) the record said inequivalent with no
// reason: the disagreement was lost. With a search of one database (the
// empty one, which does not separate the pair) the item's database is the
// only witness: the same.
func TestDisagreementIsNeverCorrect(t *testing.T) {
	eng := sqlite.New(shareddata.SubsetPath(t, "spider", "database"), sqlite.Options{})
	defer eng.Close()
	env := &metric.Env{Engine: eng, Timeout: 10 * time.Second}
	for _, c := range []struct {
		name, pred   string
		maxDatabases int
		witness      bool
	}{
		{"item database agrees", "SELECT count(*) FROM singer WHERE age > 0", 60, true},
		{"item database separates", "SELECT count(*) FROM singer WHERE age > 40", 60, true},
		// More than five singers: only the item's database (six) has them.
		{"only the item database separates", "SELECT CASE WHEN count(*) > 5 THEN count(*) + 1 ELSE count(*) END FROM singer", 3, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			o := metric.Options{Equiv: metric.EquivOptions{Seed: 1, Budget: 10 * time.Second, MaxDatabases: c.maxDatabases}}
			eq, err := NewMetric(o.Equiv)
			if err != nil {
				t.Fatal(err)
			}
			defer eq.Close()
			eq.prover = lyingProver
			esc, err := NewEscalation(o)
			if err != nil {
				t.Fatal(err)
			}
			defer esc.Close()
			esc.eq.prover = lyingProver
			it := &bench.Item{DBID: "concert_singer", Gold: []string{"SELECT count(*) FROM singer"}, Pred: c.pred}
			rec := run.Record{Verdicts: map[string]metric.Verdict{}}
			ms := []metric.Metric{eq, esc}
			if !metric.NewEX(metric.EXOptions{}).Grade(context.Background(), env.NewExec(), it).Correct {
				ms = ms[:1] // verdict: ex decides first, equiv never runs
				delete(rec.Verdicts, "verdict")
			}
			for _, m := range ms {
				v := m.Grade(context.Background(), env.NewExec(), it)
				rec.Verdicts[m.Name()] = v
				b, _ := json.Marshal(v)
				dis, ok := v.Details.(metric.Disagreement)
				if v.Correct || !ok || !dis.Disagrees() {
					t.Fatalf("%s: a wrong proof against a witness graded correct or not as a disagreement: %s", m.Name(), b)
				}
				if d, ok := v.Details.(Details); ok {
					if d.Proof == nil || d.Verdict != Inequivalent || c.witness && d.Witness == nil {
						t.Errorf("equiv: want the proof and the witness kept, verdict inequivalent: %s", b)
					}
					if d.Witness != nil && d.Witness.Q2Fails == nil {
						reverifySQLite(t, d.Witness, it.Gold[0], it.Pred)
					}
				}
				if d, ok := v.Details.(EscalationDetails); ok && d.Decider() != DecidedEquivDisagree {
					t.Errorf("verdict: decided by %s, want %s", d.Decider(), DecidedEquivDisagree)
				}
			}
			names := []string{"equiv"}
			if len(ms) == 2 {
				names = append(names, "verdict")
			}
			sum := report.Summarize([]run.Record{rec}, names)
			for _, m := range names {
				if sum.Disagreements[m] != 1 || !slices.ContainsFunc(sum.Notes, func(n string) bool { return strings.HasPrefix(n, m+": 1 item(s) where a proof") }) {
					t.Errorf("%s: summary disagreements %v, notes %q: want 1 and a note", m, sum.Disagreements, sum.Notes)
				}
			}
		})
	}
}

// TestTiesOnTheItemDatabase: Spider dev item 845 (DIN-SQL's prediction)
// orders by COUNT(*) DESC LIMIT 1 as the gold does, grouped by the other
// side of the join; two conductors tie on the orchestra database, and the
// two queries name different ones, so EX calls the item wrong. The prover
// proves the pair up to ties (proof.ties), which a difference of ties does
// not contradict: the item is wrong as EX has it (inequivalent, the proof
// kept, no witness), not a disagreement of proof and witness, and the
// summary counts no disagreement. Before, the record said "internal:
// proof and witness disagree": a bug report for what is the engine's
// choice.
func TestTiesOnTheItemDatabase(t *testing.T) {
	z := z3Solver(t)
	eng := sqlite.New(shareddata.Path(t, "spider", "database"), sqlite.Options{})
	defer eng.Close()
	env := &metric.Env{Engine: eng, Timeout: 10 * time.Second}
	it := &bench.Item{ID: "845", DBID: "orchestra",
		Gold: []string{"SELECT T1.Name FROM conductor AS T1 JOIN orchestra AS T2 ON T1.Conductor_ID  =  T2.Conductor_ID GROUP BY T2.Conductor_ID ORDER BY COUNT(*) DESC LIMIT 1"},
		Pred: "SELECT T1.Name FROM conductor AS T1 JOIN orchestra AS T2 ON T1.Conductor_ID = T2.Conductor_ID GROUP BY T1.Conductor_ID, T1.Name ORDER BY count(*) DESC LIMIT 1"}
	if metric.NewEX(metric.EXOptions{}).Grade(context.Background(), env.NewExec(), it).Correct {
		t.Fatal("ex calls item 845 correct: the orchestra database no longer shows the tie")
	}
	eq, err := NewMetric(metric.EquivOptions{Seed: 1, Budget: 20 * time.Second, MaxDatabases: 60})
	if err != nil {
		t.Fatal(err)
	}
	defer eq.Close()
	eq.solver = z
	v := eq.Grade(context.Background(), env.NewExec(), it)
	b, _ := json.Marshal(v)
	d, ok := v.Details.(Details)
	if v.Correct || v.Status != status.OK || !ok || d.Verdict != Inequivalent || d.Proof == nil || !d.Proof.Ties || d.Reason != "" || d.Witness != nil {
		t.Fatalf("want wrong, inequivalent, the proof up to ties kept, no reason and no witness: %s", b)
	}
	if dis, ok := v.Details.(metric.Disagreement); ok && dis.Disagrees() {
		t.Errorf("a difference of ties counted as a disagreement: %s", b)
	}
	rec := run.Record{Verdicts: map[string]metric.Verdict{"equiv": v}}
	if sum := report.Summarize([]run.Record{rec}, []string{"equiv"}); sum.Disagreements["equiv"] != 0 {
		t.Errorf("summary disagreements %v, want none", sum.Disagreements)
	}
}
