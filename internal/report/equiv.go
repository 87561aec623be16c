package report

import (
	"cmp"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/sqljudge/sqljudge/internal/metric"
	"github.com/sqljudge/sqljudge/internal/run"
	"github.com/sqljudge/sqljudge/internal/sqllex"
	"github.com/sqljudge/sqljudge/internal/status"
)

// restsOnKinds is the order kinds are listed in (equiv.RestsOnKinds;
// report cannot import equiv).
var restsOnKinds = []string{"arity", "null", "empty_table", "duplicates", "value"}

// NoWitness is the RestsOn key of a refutation without a witness: the
// item's database tells gold and prediction apart, and no part of it small
// enough to print does.
const NoWitness = "no_witness"

// Refuted reconciles a metric (ex or ts) with equiv over the same items.
// Correct is the items the metric calls correct, Refuted those of them
// equiv calls wrong (a witness, or a difference on the item's database),
// Proved those it proves equivalent to the gold on every database
// (details' "proved" number 1), ProvedUpToTies those of them whose proof
// holds up to ties ("proved_up_to_ties" 1: which rows that tie on the
// ORDER BY keys each query returns is the engine's choice), NotGraded those equiv could not grade
// (a status other than ok: an error, a timeout). Accepted is the items the
// metric calls wrong and equiv correct, and AcceptedWhy counts them by
// why (AcceptedReasons). So equiv's correct count is Correct - Refuted -
// NotGraded + Accepted.
//
// Assume is equiv's assumption about the data ("declared" or "observed",
// Score.Assume). RestsOn partitions Refuted by what each refutation rests
// on: its witness's kinds joined by "+" in equiv's order ("null",
// "null+duplicates"), or NoWitness; RestsOnKeys orders them.
type Refuted struct {
	Correct     int            `json:"correct"`
	Refuted     int            `json:"refuted"`
	Proved      int            `json:"proved"`
	UpToTies    int            `json:"proved_up_to_ties"`
	Assume      string         `json:"assume,omitempty"`
	RestsOn     map[string]int `json:"rests_on,omitempty"`
	NotGraded   int            `json:"not_graded"`
	Accepted    int            `json:"accepted"`
	AcceptedWhy map[string]int `json:"accepted_why,omitempty"`
}

// The reasons an item the metric calls wrong is one equiv accepts
// (Refuted.AcceptedWhy), a closed set.
const (
	// AcceptedDistinct: the gold or the prediction says DISTINCT, which
	// ex and ts drop before running, as Spider's evaluation.py does
	// (unless --keep-distinct), while equiv runs both as written.
	AcceptedDistinct = "distinct"
	// AcceptedNotGraded: the metric could not grade the item (an error, a
	// timeout) and equiv could.
	AcceptedNotGraded = "not_graded"
	// AcceptedOther: another difference of the rules (the prediction's
	// "value" placeholders, YEAR(CURDATE())...): the record says more.
	AcceptedOther = "other"
)

// AcceptedReasons are the reasons of Refuted.AcceptedWhy in the order
// they are listed, each with what it says.
var AcceptedReasons = []struct{ Key, Text string }{
	{AcceptedDistinct, "with a DISTINCT in the gold or prediction, which %s drops as Spider's evaluation.py does and equiv keeps"},
	{AcceptedNotGraded, "that %s could not grade (an error or a timeout) and equiv could"},
	{AcceptedOther, "with another difference of the rules (the records say which)"},
}

// RestsOnKeys returns the keys of a RestsOn count in the order they are
// listed: by their kinds in equiv's order ("null" before
// "null+duplicates" before "empty_table"), NoWitness last.
func RestsOnKeys(counts map[string]int) []string {
	rank := func(k string) []int {
		if k == NoWitness {
			return []int{len(restsOnKinds)}
		}
		var r []int
		for _, p := range strings.Split(k, "+") {
			i := slices.Index(restsOnKinds, p)
			if i < 0 {
				i = len(restsOnKinds)
			}
			r = append(r, i)
		}
		return r
	}
	return slices.SortedFunc(maps.Keys(counts), func(a, b string) int {
		return cmp.Or(slices.Compare(rank(a), rank(b)), strings.Compare(a, b))
	})
}

// RestsOnKey is the key of a refutation resting on kinds (Refutation's
// RestsOn): the kinds joined by "+", NoWitness for none.
func RestsOnKey(kinds []string) string {
	if len(kinds) == 0 {
		return NoWitness
	}
	return strings.Join(kinds, "+")
}

// restsOnText lists counts by key in RestsOnKeys order: "null 43,
// null+duplicates 2, no witness 1".
func restsOnText(counts map[string]int) string {
	var parts []string
	for _, k := range RestsOnKeys(counts) {
		name := k
		if k == NoWitness {
			name = "no witness"
		}
		parts = append(parts, fmt.Sprintf("%s %d", name, counts[k]))
	}
	if len(parts) == 0 {
		return "none"
	}
	return strings.Join(parts, ", ")
}

// assumptions sets Score.Assume of every metric whose verdicts name one
// (metric.Assumer): "observed" when a verdict says so, else "declared".
func assumptions(s *Summary, recs []run.Record, metrics []string) {
	byMetric := map[string]string{}
	for _, m := range metrics {
		if a := assumptionOf(recs, m); a != "" {
			byMetric[m] = a
		}
	}
	s.eachScore(func(sc *Score, m string) { sc.Assume = byMetric[m] })
}

// assumptionOf is the assumption metric m's verdicts were decided under:
// "observed" when one says so, else "declared" when one names one, else
// "".
func assumptionOf(recs []run.Record, m string) string {
	out := ""
	for _, r := range recs {
		if d, ok := r.Verdicts[m].Details.(metric.Assumer); ok {
			switch a := d.Assumption(); a {
			case "observed":
				return a
			case "":
			default:
				out = a
			}
		}
	}
	return out
}

// labelled is metric m's name with its assumption when it has one:
// "equiv (assume declared)".
func (s *Summary) labelled(m string) string {
	if sc := s.Overall[m]; sc != nil && sc.Assume != "" {
		return m + " (assume " + sc.Assume + ")"
	}
	return m
}

// restsOn fills RestsOn and a note per metric whose verdicts carry
// witnesses: "equiv (assume declared) witnesses (52) rest on: null 30,
// empty_table 9, value 15" (a witness resting on two kinds counts under
// both).
func restsOn(s *Summary, recs []run.Record, metrics []string) {
	for _, m := range metrics {
		counts := map[string]int{}
		n := 0
		for _, rec := range recs {
			d, ok := rec.Verdicts[m].Details.(metric.Refutation)
			if !ok {
				continue
			}
			kinds := d.RestsOn()
			if len(kinds) > 0 {
				n++
			}
			for _, k := range kinds {
				counts[k]++
			}
		}
		if n == 0 {
			continue
		}
		if s.RestsOn == nil {
			s.RestsOn = map[string]map[string]int{}
		}
		s.RestsOn[m] = counts
		s.Notes = append(s.Notes, fmt.Sprintf("%s witnesses (%d) rest on: %s", s.labelled(m), n, restsOnText(counts)))
	}
}

// decidedBy fills DecidedBy and a note per metric whose verdicts name how
// each item was decided: "verdict decided by: ex 15, equiv_witness 7 (of
// 31 items)", the ways by decreasing count (ties by name).
func decidedBy(s *Summary, recs []run.Record, metrics []string) {
	for _, m := range metrics {
		counts := map[string]int{}
		n := 0
		for _, rec := range recs {
			if d, ok := rec.Verdicts[m].Details.(metric.Decider); ok {
				counts[d.Decider()]++
				n++
			}
		}
		if n == 0 {
			continue
		}
		if s.DecidedBy == nil {
			s.DecidedBy = map[string]map[string]int{}
		}
		s.DecidedBy[m] = counts
		order := slices.SortedFunc(maps.Keys(counts), func(a, b string) int {
			return cmp.Or(counts[b]-counts[a], strings.Compare(a, b))
		})
		parts := make([]string, len(order))
		for i, k := range order {
			parts[i] = fmt.Sprintf("%s %d", k, counts[k])
		}
		s.Notes = append(s.Notes, fmt.Sprintf("%s decided by: %s (of %d items)", m, strings.Join(parts, ", "), n))
	}
}

// EquivRefutes reconciles ex and ts, where they graded beside equiv, with
// equiv over recs (see Refuted); nil without equiv.
func EquivRefutes(recs []run.Record, metrics []string) map[string]Refuted {
	if !slices.Contains(metrics, "equiv") {
		return nil
	}
	var out map[string]Refuted
	for _, m := range []string{"ex", "ts"} {
		if !slices.Contains(metrics, m) {
			continue
		}
		r := Refuted{RestsOn: map[string]int{}, AcceptedWhy: map[string]int{}, Assume: assumptionOf(recs, "equiv")}
		for _, rec := range recs {
			v, ok := rec.Verdicts[m]
			e, eok := rec.Verdicts["equiv"]
			if !ok || !eok {
				continue
			}
			if !v.Correct {
				if e.Correct {
					r.Accepted++
					r.AcceptedWhy[acceptedWhy(rec, v)]++
				}
				continue
			}
			r.Correct++
			switch {
			case e.Correct:
			case e.Status == status.OK:
				r.Refuted++
				var kinds []string
				if d, ok := e.Details.(metric.Refutation); ok {
					kinds = d.RestsOn()
				}
				r.RestsOn[RestsOnKey(kinds)]++
			default:
				r.NotGraded++
			}
			if e.Details != nil && e.Details.Numbers()["proved"] == 1 {
				r.Proved++
				if e.Details.Numbers()["proved_up_to_ties"] == 1 {
					r.UpToTies++
				}
			}
		}
		if out == nil {
			out = map[string]Refuted{}
		}
		out[m] = r
	}
	return out
}

// acceptedWhy says why an item metric verdict v calls wrong is one equiv
// accepts (AcceptedReasons).
func acceptedWhy(rec run.Record, v metric.Verdict) string {
	switch {
	case v.Status != status.OK:
		return AcceptedNotGraded
	case sqllex.RemoveDistinct(rec.Pred) != rec.Pred:
		return AcceptedDistinct
	}
	for _, g := range append([]string{rec.Gold}, rec.GoldAlternatives...) {
		if sqllex.RemoveDistinct(g) != g {
			return AcceptedDistinct
		}
	}
	return AcceptedOther
}

// equivRefutes fills EquivRefutes and its notes, when equiv ran beside ex
// or ts: what equiv does with the items each calls correct (the
// refutations by what they rest on), and how equiv's accuracy follows from
// the metric's.
func equivRefutes(s *Summary, recs []run.Record, metrics []string) {
	s.EquivRefutes = EquivRefutes(recs, metrics)
	for _, m := range []string{"ex", "ts"} {
		r, ok := s.EquivRefutes[m]
		if !ok {
			continue
		}
		s.Notes = append(s.Notes, r.refutesNote(s.labelled("equiv"), m))
		if eq := s.Overall["equiv"]; eq != nil {
			s.Notes = append(s.Notes, r.reconcileNote(s.labelled("equiv"), m, eq))
		}
	}
}

// refutesNote says what equiv does with the items m calls correct:
// "equiv (assume declared) refutes 128 and proves 613 of the 851 items ex
// calls correct; the refutations rest on null 43, ...".
func (r Refuted) refutesNote(equiv, m string) string {
	n := fmt.Sprintf("%s refutes %d and proves %d of the %d items %s calls correct", equiv, r.Refuted, r.Proved, r.Correct, m)
	if r.UpToTies > 0 {
		n += fmt.Sprintf(" (%d of the proofs up to ties: the same results allowed, which rows that tie on the ORDER BY keys each returns the engine's choice)", r.UpToTies)
	}
	if r.Refuted == 0 {
		return n
	}
	n += "; the refutations rest on " + restsOnText(r.RestsOn)
	if r.Assume == "declared" && r.restsOnData() {
		n += " (null, empty_table, duplicates: data the schema allows and the item's database may not hold; --equiv-assume observed keeps to what it holds)"
	}
	return n
}

// AcceptedText says why the items m calls wrong are ones equiv accepts:
// "3 with a DISTINCT in the gold or prediction, which ex drops ...".
func (r Refuted) AcceptedText(m string) string {
	var why []string
	for _, a := range AcceptedReasons {
		if k := r.AcceptedWhy[a.Key]; k > 0 {
			text := a.Text
			if strings.Contains(text, "%s") {
				text = fmt.Sprintf(text, m)
			}
			why = append(why, fmt.Sprintf("%d %s", k, text))
		}
	}
	return strings.Join(why, "; ")
}

// restsOnData reports whether some refutation rests on a NULL, an empty
// table or repeated rows: data an item's database may never hold.
func (r Refuted) restsOnData() bool {
	for k, n := range r.RestsOn {
		for _, kind := range strings.Split(k, "+") {
			if n > 0 && (kind == "null" || kind == "empty_table" || kind == "duplicates") {
				return true
			}
		}
	}
	return false
}

// reconcileNote says how equiv's accuracy follows from m's: "equiv
// (assume declared) accuracy 0.7021 (726 of 1034): the 851 items ex calls
// correct, less 128 refuted and 0 not graded, plus 3 ex calls wrong that
// equiv accepts (distinct 3: ...)".
func (r Refuted) reconcileNote(equiv, m string, eq *Score) string {
	n := fmt.Sprintf("%s accuracy %.4f (%d of %d) = the %d items %s calls correct - %d equiv refutes - %d equiv could not grade + %d %s calls wrong and equiv accepts",
		equiv, eq.Accuracy, eq.Correct, eq.Count, r.Correct, m, r.Refuted, r.NotGraded, r.Accepted, m)
	if why := r.AcceptedText(m); why != "" {
		n += " (" + why + ")"
	}
	if r.Correct-r.Refuted-r.NotGraded+r.Accepted != eq.Correct {
		n += fmt.Sprintf("; the rest of equiv's %d correct items have no %s verdict", eq.Correct, m)
	}
	return n
}
