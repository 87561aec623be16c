package equiv

import (
	"encoding/json"
	"testing"

	"github.com/sqljudge/sqljudge/internal/metric"
	"github.com/sqljudge/sqljudge/internal/status"
)

// TestDecider checks each key the verdict metric's records are counted
// by, from the deciding step and, for equiv, its verdict's evidence as
// decided writes it.
func TestDecider(t *testing.T) {
	eq := func(v metric.Verdict, w *Witness) EscalationDetails {
		return decided(StepEquiv, v, w).Details.(EscalationDetails)
	}
	w := &Witness{SQL: "CREATE TABLE t (x INT);"}
	for _, c := range []struct {
		d    EscalationDetails
		want string
	}{
		{decided(StepEX, metric.Verdict{Status: status.PredError}, nil).Details.(EscalationDetails), "ex"},
		{decided(StepTS, metric.Verdict{Status: status.OK}, nil).Details.(EscalationDetails), "ts"},
		{decided(StepJudge, metric.Verdict{Status: status.OK, Correct: true}, nil).Details.(EscalationDetails), "rose"},
		{eq(metric.Verdict{Status: status.OK, Details: Details{Verdict: Inequivalent, Witness: w}}, w), DecidedEquivWitness},
		{eq(metric.Verdict{Status: status.OK, Details: Details{Verdict: Inequivalent}}, nil), DecidedEquivItemDB},
		{eq(metric.Verdict{Status: status.OK, Correct: true, Details: Details{Verdict: EquivalentBounded}}, nil), DecidedEquivNoWitness},
		{eq(metric.Verdict{Status: status.OK, Correct: true, Details: Details{Verdict: Unknown}}, nil), DecidedEquivUnknown},
		{eq(metric.Verdict{Status: status.Timeout}, nil), DecidedEquivError},
		{eq(metric.Verdict{Status: status.OK, Correct: true, Details: Details{Verdict: EquivalentProved}}, nil), DecidedEquivProved},
		{eq(metric.Verdict{Status: status.OK, Details: Details{Verdict: Unknown, Reason: ReasonDisagree + " (the item's database x separates them)"}}, w), DecidedEquivDisagree},
	} {
		if got := c.d.Decider(); got != c.want {
			ev, _ := json.Marshal(c.d)
			t.Errorf("%s: Decider() = %q, want %q", ev, got, c.want)
		}
	}
}
