package equiv

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"strings"

	"github.com/sqljudge/sqljudge/internal/bench"
	"github.com/sqljudge/sqljudge/internal/engine/sqlite"
	"github.com/sqljudge/sqljudge/internal/metric"
	"github.com/sqljudge/sqljudge/internal/prove/check"
	"github.com/sqljudge/sqljudge/internal/status"
)

func init() {
	metric.Register("verdict", "escalation to one auditable verdict: ex, then ts (with --suite), then equiv, then an LLM judge (rose, when configured); the step that decided and its evidence", func(o metric.Options) (metric.Metric, error) {
		return NewEscalation(o)
	})
	metric.RegisterDetails[EscalationDetails]("verdict")
}

// Step is a step of the escalation, a closed set: the one that decided is
// named in the record.
type Step string

// The steps, in the order they run.
const (
	StepEX    Step = "ex"    // execution match on the item's database
	StepTS    Step = "ts"    // test-suite accuracy (with --suite)
	StepEquiv Step = "equiv" // the counterexample search
	StepJudge Step = "rose"  // the ROSE LLM judge (when one is configured)
)

// EscalationDetails are the details of the verdict metric: the Step that
// decided, the Witness when a database tells gold and prediction apart
// (for ex, the item's database shrunk to the smallest part that still
// does, when the search could), the Proof when equiv proved the pair, the
// Databases the search compared, and
// the deciding step's own verdict as Evidence (its results.jsonl object:
// ts's witness database, the judge's reasoning, ...).
type EscalationDetails struct {
	Step      Step               `json:"step"`
	Witness   *Witness           `json:"witness,omitempty"`
	Proof     *check.Certificate `json:"proof,omitempty"`
	Databases int                `json:"databases,omitempty"`
	Evidence  json.RawMessage    `json:"evidence,omitempty"`
}

// Numbers returns nil: the step is text.
func (d EscalationDetails) Numbers() map[string]float64 { return nil }

// The keys Decider returns beyond the steps' names: how the equiv step
// decided, read from its Evidence.
const (
	DecidedEquivWitness   = "equiv_witness"       // a witness tells them apart: wrong
	DecidedEquivItemDB    = "equiv_item_database" // the item's database tells them apart, no part small enough to print does: wrong
	DecidedEquivProved    = "equiv_proved"        // a proof (equivalent_proved): correct, no judge asked
	DecidedEquivNoWitness = "equiv_no_witness"    // the search found no witness (equivalent_bounded): correct
	DecidedEquivUnknown   = "equiv_unknown"       // the search could not decide for the gold's sake (schema, gold); the item's database did (correct)
	DecidedEquivError     = "equiv_error"         // the search's queries failed (a timeout, ...): its status
	DecidedEquivDisagree  = "equiv_disagree"      // a proof against a witness or the item's database (ReasonDisagree): wrong, a bug to report
	DecidedEquivPredFails = "equiv_pred_fails"    // a database on which the gold runs and the prediction fails or is not deterministic: wrong
	DecidedEquivUnchecked = "equiv_unchecked"     // the prediction kept the search from checking it (a result that did not reproduce): wrong
)

// Disagrees reports whether the equiv step decided on a proof and a
// witness that disagree (metric.Disagreement).
func (d EscalationDetails) Disagrees() bool { return d.Decider() == DecidedEquivDisagree }

// RestsOn names what the witness rests on (metric.Refutation), nil
// without one.
func (d EscalationDetails) RestsOn() []string { return d.Witness.restsOn() }

// Assumption names the assumption equiv's search ran under when the
// equiv step decided (metric.Assumer: read from its Evidence, "declared"
// when it names none), "" when another step did.
func (d EscalationDetails) Assumption() string {
	if d.Step != StepEquiv {
		return ""
	}
	var ev struct {
		Assume Assume `json:"assume"`
	}
	_ = json.Unmarshal(d.Evidence, &ev)
	return Details{Assume: ev.Assume}.Assumption()
}

// Decider names how the item was decided (metric.Decider): the step ("ex",
// "ts", "rose"), or for equiv one of the Decided* keys.
func (d EscalationDetails) Decider() string {
	if d.Step != StepEquiv {
		return string(d.Step)
	}
	var ev struct {
		Correct bool          `json:"correct"`
		Status  status.Status `json:"status"`
		Verdict Verdict       `json:"verdict"`
		Reason  string        `json:"reason"`
	}
	_ = json.Unmarshal(d.Evidence, &ev)
	switch {
	case strings.HasPrefix(ev.Reason, ReasonDisagree):
		return DecidedEquivDisagree
	case ev.Status != status.OK:
		return DecidedEquivError
	case d.Witness != nil && d.Witness.Q2Fails != nil:
		return DecidedEquivPredFails
	case d.Witness != nil:
		return DecidedEquivWitness
	case ev.Verdict == Inequivalent:
		return DecidedEquivItemDB
	case ev.Verdict == EquivalentProved:
		return DecidedEquivProved
	case !ev.Correct:
		return DecidedEquivUnchecked
	case ev.Verdict == Unknown:
		return DecidedEquivUnknown
	}
	return DecidedEquivNoWitness
}

// Escalation is the verdict metric: it runs the steps in order and stops
// at the first that decides. ex on the item's database (a difference there
// decides: wrong, with the database shrunk into a witness); ts when a
// suite is given (a suite database that tells them apart decides); equiv
// (a witness decides, and so does a proof: equivalent_proved, correct);
// then, when the search found nothing and an LLM judge is configured, ROSE
// decides; without one, equiv's "no witness" is the verdict (correct).
type Escalation struct {
	ex    *metric.EX
	ts    metric.Metric
	eq    *Metric
	judge metric.Metric
}

// NewEscalation builds the steps from the metric options; the caller closes
// it.
func NewEscalation(o metric.Options) (*Escalation, error) {
	eq, err := NewMetric(o.Equiv)
	if err != nil {
		return nil, err
	}
	e := &Escalation{ex: metric.NewEX(o.EX), eq: eq}
	if o.TS.Dir != "" {
		if e.ts, err = metric.NewTS(o.TS, o.EX); err != nil {
			eq.Close()
			return nil, err
		}
	}
	if o.Judge.Client != nil {
		js, err := metric.New([]string{string(StepJudge)}, o)
		if err != nil {
			e.Close()
			return nil, err
		}
		e.judge = js[0]
	}
	return e, nil
}

// Name returns "verdict".
func (e *Escalation) Name() string { return "verdict" }

// Lengthy returns true: an item may run equiv's search (metric.Lengthy).
func (e *Escalation) Lengthy() bool { return true }

// Close closes the steps that hold resources.
func (e *Escalation) Close() error {
	var errs []error
	for _, m := range []any{e.eq, e.ts, e.judge} {
		if c, ok := m.(io.Closer); ok && c != nil {
			errs = append(errs, c.Close())
		}
	}
	return errors.Join(errs...)
}

// Check delegates to ts, when a suite is given.
func (e *Escalation) Check(ctx context.Context, db string) error {
	if c, ok := e.ts.(metric.Checker); ok {
		return c.Check(ctx, db)
	}
	return nil
}

// CheckItem delegates to the judge, when one is configured.
func (e *Escalation) CheckItem(it *bench.Item) error {
	if c, ok := e.judge.(metric.ItemChecker); ok {
		return c.CheckItem(it)
	}
	return nil
}

// Grade runs the steps in order.
func (e *Escalation) Grade(ctx context.Context, x *metric.Exec, it *bench.Item) metric.Verdict {
	v := e.ex.Grade(ctx, x, it)
	if v.Status != status.OK || !v.Correct {
		return decided(StepEX, v, e.exWitness(ctx, x, it))
	}
	if e.ts != nil {
		if v := e.ts.Grade(ctx, x, it); v.Status != status.OK || !v.Correct {
			return decided(StepTS, v, nil)
		}
	}
	v = e.eq.Grade(ctx, x, it)
	d, _ := v.Details.(Details)
	// A proof decides: no judge is asked.
	if v.Status != status.OK || !v.Correct || e.judge == nil || d.Verdict == EquivalentProved {
		out := decided(StepEquiv, v, d.Witness)
		ed := out.Details.(EscalationDetails)
		ed.Databases, ed.Proof = d.Databases, d.Proof
		out.Details = ed
		return out
	}
	return decided(StepJudge, e.judge.Grade(ctx, x, it), nil)
}

// decided returns the deciding step's verdict with its evidence.
func decided(step Step, v metric.Verdict, w *Witness) metric.Verdict {
	ev, _ := json.Marshal(v)
	return metric.Verdict{Correct: v.Correct, Status: v.Status, Detail: v.Detail,
		Details: EscalationDetails{Step: step, Witness: w, Evidence: ev}}
}

// exWitness shrinks the item's database (at most suiteRows rows a table)
// into a witness, for an item ex rejected; nil when the queries fail or the
// part read does not tell them apart.
func (e *Escalation) exWitness(ctx context.Context, x *metric.Exec, it *bench.Item) *Witness {
	eng, ok := x.Env().Engine.(*sqlite.Engine)
	if !ok || len(it.Gold) == 0 {
		return nil
	}
	path, err := eng.Path(it.DBID)
	if err != nil {
		return nil
	}
	return e.eq.itemDBWitness(ctx, it.ID, it.Gold[0], it.Pred, path)
}
