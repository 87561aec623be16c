package metric

import (
	"encoding/json"
	"fmt"

	"github.com/sqljudge/sqljudge/internal/judge"
)

// Details is what a metric's verdict records beyond correct, status and
// detail: each metric's own struct (SQLEvalDetails, TSDetails, EMDetails,
// ScoreDetails, VESDetails, RVESDetails, judge.Details for the LLM
// judges), or RawFields where a metric has none (a verdict read without
// its metric name). It marshals to a JSON object whose keys follow the common ones in
// results.jsonl (Verdict.MarshalJSON sorts them).
type Details interface {
	// Numbers returns what a summary averages over items, keyed by JSON
	// name: a boolean as 0 or 1, a number as it is; other values (strings,
	// lists, objects) are left out. nil when there is none.
	Numbers() map[string]float64
}

// Decider is Details that name how the item was decided, as a short key
// ("ex", "equiv_witness"): the verdict metric's escalation step. The
// summary counts a metric's items by it (report.Summary.DecidedBy).
type Decider interface {
	Decider() string
}

// Refutation is Details that can carry a witness database: RestsOn names
// what its difference rests on ("null", "empty_table", "duplicates",
// "arity", "value"; equiv.RestsOn), nil without a witness. The summary
// counts a metric's refutations by it (report.Summary.RestsOn).
type Refutation interface {
	RestsOn() []string
}

// Assumer is Details that name the assumption about the data a verdict
// was decided under: "declared" (the schema's constraints) or "observed"
// (also what the item's database holds), equiv's --equiv-assume; "" when
// the verdict did not depend on one (verdict decided by ex). The summary
// names it beside the metric's figures (report.Score.Assume).
type Assumer interface {
	Assumption() string
}

// Disagreement is Details that can record a proof and a re-verified
// witness (or the item's database) that disagree about the item: Disagrees
// reports it (equiv and verdict, after equiv's ReasonDisagree). Such an
// item is graded wrong, the witness deciding; the summary counts them
// (report.Summary.Disagreements), a bug of the prover, the kernel or the
// search to report.
type Disagreement interface {
	Disagrees() bool
}

// RawFields are the Details of a verdict read without knowing its metric
// (Verdict.UnmarshalJSON), or of a metric without a type of its own (ex
// and ex_bird write no details; keys a newer sqljudge wrote): each key's
// JSON value as it was written, so a record read and written again keeps
// its bytes.
type RawFields map[string]json.RawMessage

// Numbers returns the booleans (0 or 1) and numbers of m; strings, lists,
// objects and null are left out.
func (m RawFields) Numbers() map[string]float64 {
	var out map[string]float64
	for k, raw := range m {
		var f float64
		switch s := string(raw); {
		case s == "true":
			f = 1
		case s == "false":
			f = 0
		case len(s) > 0 && (s[0] == '-' || s[0] >= '0' && s[0] <= '9'):
			if json.Unmarshal(raw, &f) != nil {
				continue
			}
		default:
			continue
		}
		if out == nil {
			out = map[string]float64{}
		}
		out[k] = f
	}
	return out
}

// SQLEvalDetails are the details of sqleval (Defog SQL-Eval,
// eval/eval.py compare_query_results): Exact is whether the result
// matched exactly (compare_df), not only as a subset (subset_df).
type SQLEvalDetails struct {
	Exact bool `json:"exact"`
}

// Numbers returns {"exact": 0 or 1}: the summary's share of exact matches.
func (d SQLEvalDetails) Numbers() map[string]float64 {
	return map[string]float64{"exact": b2f(d.Exact)}
}

// TSDetails are the details of ts (test-suite accuracy, Zhong et al.
// 2020, test-suite-sql-eval exec_eval.eval_exec_match): Databases is the
// number of databases in the item's suite; Witness the database that told
// gold and prediction apart, or on which a query failed (path as the suite
// lists it; "" when none did); WitnessGold and WitnessPred the two results
// there (result.Set.String), where they were read.
type TSDetails struct {
	Databases   int    `json:"databases"`
	Witness     string `json:"witness,omitempty"`
	WitnessGold string `json:"witness_gold,omitempty"`
	WitnessPred string `json:"witness_pred,omitempty"`
}

// Numbers returns {"databases": n}: the summary's mean suite size.
func (d TSDetails) Numbers() map[string]float64 {
	return map[string]float64{"databases": float64(d.Databases)}
}

// EMDetails are the details of em (Spider exact set match, evaluation.py
// Evaluator.eval_exact_match): Hardness is the gold's level
// (eval_hardness: easy, medium, hard, extra) and Partial the official
// partial_scores by component name (select, where, ... as
// spider.Component.String).
type EMDetails struct {
	Hardness string                 `json:"hardness"`
	Partial  map[string]EMComponent `json:"partial"`
}

// EMComponent is one component's entry of Spider's partial_scores
// (evaluation.py eval_partial_match): Acc, Rec and F1 are all 1 when the
// component matched and 0 when not (sqljudge records the match, as the
// official table averages it); LabelTotal and PredTotal are the numbers of
// gold and predicted units.
type EMComponent struct {
	Acc        int `json:"acc"`
	F1         int `json:"f1"`
	LabelTotal int `json:"label_total"`
	PredTotal  int `json:"pred_total"`
	Rec        int `json:"rec"`
}

// Numbers returns nil: em's details feed the partial-matching table
// (EMPartial), not the summary's means.
func (d EMDetails) Numbers() map[string]float64 { return nil }

// ScoreDetails are the details of a metric scoring an item in [0, 1]:
// soft_f1 (BIRD mini-dev evaluation_f1.py calculate_f1_score) and spider2
// (Spider 2.0 evaluate.py: 1 or 0).
type ScoreDetails struct {
	Score float64 `json:"score"`
}

// Numbers returns {"score": s}.
func (d ScoreDetails) Numbers() map[string]float64 {
	return map[string]float64{"score": d.Score}
}

// VESDetails are the details of ves (BIRD evaluation_ves.py): Ratio is
// the gold/pred time ratio r (MeasureEfficiency) and Score sqrt(r) when
// the row sets are equal, else 0.
type VESDetails struct {
	Ratio float64 `json:"ratio"`
	Score float64 `json:"score"`
}

// Numbers returns {"ratio": r, "score": s}.
func (d VESDetails) Numbers() map[string]float64 {
	return map[string]float64{"ratio": d.Ratio, "score": d.Score}
}

// RVESDetails are the details of rves (BIRD mini-dev evaluation_ves.py):
// Ratio is the time ratio r, Reward its bin (RVESReward) and Score
// sqrt(Reward).
type RVESDetails struct {
	Ratio  float64 `json:"ratio"`
	Reward float64 `json:"reward"`
	Score  float64 `json:"score"`
}

// Numbers returns {"ratio": r, "reward": w, "score": s}.
func (d RVESDetails) Numbers() map[string]float64 {
	return map[string]float64{"ratio": d.Ratio, "reward": d.Reward, "score": d.Score}
}

func b2f(b bool) float64 {
	if b {
		return 1
	}
	return 0
}

// detailDecoders maps a metric name to the reader of its details; a
// metric without one (ex, ex_bird: no details) reads them as RawFields.
var detailDecoders = map[string]func([]byte) (Details, error){}

// registerDetails makes DecodeVerdict read the details of the named
// metrics as a T. Called from init only.
func registerDetails[T Details](names ...string) {
	for _, n := range names {
		detailDecoders[n] = func(data []byte) (Details, error) {
			var t T
			err := json.Unmarshal(data, &t)
			return t, err
		}
	}
}

// RegisterDetails makes DecodeVerdict read the details of the named
// metrics as a T, for a metric registered outside this package (equiv).
// Called from init only.
func RegisterDetails[T Details](names ...string) { registerDetails[T](names...) }

func init() {
	registerDetails[SQLEvalDetails]("sqleval")
	registerDetails[TSDetails]("ts")
	registerDetails[EMDetails]("em")
	registerDetails[ScoreDetails]("soft_f1", "spider2")
	registerDetails[VESDetails]("ves")
	registerDetails[RVESDetails]("rves")
	registerDetails[judge.Details]("xscore", "rose", "flex")
}

// DecodeVerdict reads a verdict that metric name wrote into
// results.jsonl (the object Verdict.MarshalJSON writes), its details into
// the metric's own type (SQLEvalDetails for "sqleval", ...); a metric
// without one keeps RawFields. An error says what does not fit the
// metric's type (e.g. a "databases" that is not an integer).
func DecodeVerdict(name string, data []byte) (Verdict, error) {
	var v Verdict
	if err := json.Unmarshal(data, &v); err != nil {
		return v, err
	}
	dec, ok := detailDecoders[name]
	if !ok || v.Details == nil {
		return v, nil
	}
	d, err := dec(data)
	if err != nil {
		return v, fmt.Errorf("%s verdict details: %w", name, err)
	}
	v.Details = d
	return v, nil
}

// DetailsJSON returns the details as a JSON object with sorted keys, as
// they appear after the common keys in results.jsonl; "" when there are
// none.
func (v Verdict) DetailsJSON() (string, error) {
	if v.Details == nil {
		return "", nil
	}
	m, err := detailFields(v.Details)
	if err != nil {
		return "", err
	}
	if len(m) == 0 {
		return "", nil
	}
	out, err := json.Marshal(m) // map keys are written sorted
	return string(out), err
}

// detailFields returns the details as the JSON object results.jsonl holds
// after the common keys, key by key (Verdict.MarshalJSON, DetailsJSON).
func detailFields(d Details) (map[string]json.RawMessage, error) {
	b, err := json.Marshal(d)
	if err != nil {
		return nil, fmt.Errorf("verdict details: %w", err)
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, fmt.Errorf("verdict details %T: not a JSON object: %w", d, err)
	}
	return m, nil
}
