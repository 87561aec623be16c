package htmlreport

import (
	"encoding/json"
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"strings"

	"github.com/sqljudge/sqljudge/internal/metric"
	"github.com/sqljudge/sqljudge/internal/report"
	"github.com/sqljudge/sqljudge/internal/result"
	"github.com/sqljudge/sqljudge/internal/run"
	"github.com/sqljudge/sqljudge/internal/status"
)

// pageData is the page's one JSON blob, compact for large runs: names
// are listed once and items refer to them by position.
//
//	{"runs": ["din_sql", "c3"], "metrics": ["ex", "em"],
//	 "statuses": ["ok", "pred_error"], "levels": ["easy", ...],
//	 "categories": [], "items": [item, ...]}
//
// An item is an array: [index, id, db_id, level, category, question,
// evidence, gold, pred, verdicts, details, sample, compared, facets,
// hazards] where level
// and category are positions in levels and categories (-1: none);
// verdicts has one number per metric, -1 when the item has no verdict of
// it, else 2 x the position of its status in statuses + 1 if correct;
// details is 0, or one entry per metric, null or [detail, fields] (the
// verdict's detail and its details as JSON); sample is null or [gold
// columns, predicted columns, gold row count, predicted row count, rows
// ([op, cell...] each), error]; compared is null, or the second run's
// [pred, verdicts, details, sample] for the item; facets is 0, or one
// entry per metric, null or [outcome, rests_on, step] (see facetsOf);
// hazards is 0 or the gold audit's [kind, detail] pairs (eval --audit).
// "facets" lists, for the filters, the values met: "metric:value" for
// outcome, rests_on and step, the hazard kinds by name.
type pageData struct {
	Runs       []string   `json:"runs"`
	Metrics    []string   `json:"metrics"`
	Statuses   []string   `json:"statuses"`
	Levels     []string   `json:"levels"`
	Categories []string   `json:"categories"`
	Facets     facetLists `json:"facets"`
	Items      []any      `json:"items"`
}

// facetLists are the values the page's filters offer: those met in the
// items, sorted.
type facetLists struct {
	Outcome []string `json:"outcome"`
	RestsOn []string `json:"rests_on"`
	Step    []string `json:"step"`
	Hazard  []string `json:"hazard"`
}

// encoder assigns positions to statuses as they are met.
type encoder struct {
	metrics  []string
	statuses map[string]int
	d        *pageData
}

func buildData(r *Run, o Options) *pageData {
	sum := r.Summary
	d := &pageData{Runs: []string{filepath.Base(r.Dir)}, Metrics: sum.Metrics, Statuses: []string{},
		Levels: sum.Difficulties, Categories: sum.Categories}
	if d.Levels == nil {
		d.Levels = []string{}
	}
	if d.Categories == nil {
		d.Categories = []string{}
	}
	e := &encoder{metrics: sum.Metrics, statuses: map[string]int{}, d: d}
	var cmp map[int]*run.Record
	if o.Compare != nil {
		d.Runs = append(d.Runs, filepath.Base(o.Compare.Dir))
		cmp = make(map[int]*run.Record, len(o.Compare.Records))
		for k := range o.Compare.Records {
			cmp[o.Compare.Records[k].Index] = &o.Compare.Records[k]
		}
	}
	d.Items = make([]any, 0, len(r.Records))
	seen := map[string]map[string]bool{}
	for k := range r.Records {
		rec := &r.Records[k]
		gold := rec.Gold
		if len(rec.GoldAlternatives) > 0 {
			gold = strings.Join(rec.GoldAlternatives, ";\n\n")
		}
		var other any
		if c, ok := cmp[rec.Index]; ok {
			other = []any{c.Pred, e.verdicts(c), e.details(c), sample(c.Sample)}
		}
		d.Items = append(d.Items, []any{rec.Index, rec.ID, rec.DBID, slices.Index(d.Levels, rec.Difficulty),
			slices.Index(d.Categories, rec.Category), rec.Question, rec.Evidence, gold, rec.Pred,
			e.verdicts(rec), e.details(rec), sample(rec.Sample), other, e.facets(rec, seen), hazards(rec, seen)})
	}
	d.Facets = facetLists{Outcome: sortedSet(seen["outcome"]), RestsOn: sortedSet(seen["rests_on"]), Step: sortedSet(seen["step"]), Hazard: sortedSet(seen["hazard"])}
	return d
}

// facets encodes, per metric, what the page filters verdicts by (0 when
// no verdict has any): the outcome its details name (equiv's "verdict":
// equivalent_proved, equivalent_bounded, inequivalent, unknown), what its
// refutation rests on (report.RestsOnKey of metric.Refutation; "" when it
// refutes nothing) and the step that decided (metric.Decider). Each value
// met is added to seen, keyed "metric:value".
func (e *encoder) facets(rec *run.Record, seen map[string]map[string]bool) any {
	out := make([]any, len(e.metrics))
	some := false
	add := func(kind, m, v string) {
		if v == "" {
			return
		}
		if seen[kind] == nil {
			seen[kind] = map[string]bool{}
		}
		seen[kind][m+":"+v] = true
	}
	for i, m := range e.metrics {
		v, ok := rec.Verdicts[m]
		if !ok || v.Details == nil {
			continue
		}
		var f [3]string
		if d, ok := v.Details.(metric.Refutation); ok {
			f[0] = outcome(v)
			if !v.Correct && v.Status == status.OK {
				f[1] = report.RestsOnKey(d.RestsOn())
			}
		}
		if d, ok := v.Details.(metric.Decider); ok {
			f[2] = d.Decider()
		}
		if f == [3]string{} {
			continue
		}
		add("outcome", m, f[0])
		add("rests_on", m, f[1])
		add("step", m, f[2])
		out[i] = f[:]
		some = true
	}
	if !some {
		return 0
	}
	return out
}

// outcome is the "verdict" string of v's details (equiv's search verdict),
// "" when they have none.
func outcome(v metric.Verdict) string {
	b, err := v.DetailsJSON()
	if err != nil {
		return ""
	}
	var d struct {
		Verdict string `json:"verdict"`
	}
	if json.Unmarshal([]byte(b), &d) != nil {
		return ""
	}
	return d.Verdict
}

// hazards encodes rec's gold hazards as [kind, detail] pairs (0 without
// one), adding each kind to seen["hazard"].
func hazards(rec *run.Record, seen map[string]map[string]bool) any {
	if len(rec.GoldHazards) == 0 {
		return 0
	}
	if seen["hazard"] == nil {
		seen["hazard"] = map[string]bool{}
	}
	out := make([][2]string, len(rec.GoldHazards))
	for i, h := range rec.GoldHazards {
		out[i] = [2]string{h.Kind, h.Detail}
		seen["hazard"][h.Kind] = true
	}
	return out
}

// sortedSet returns the keys of set, sorted (never nil).
func sortedSet(set map[string]bool) []string {
	out := slices.Sorted(maps.Keys(set))
	if out == nil {
		out = []string{}
	}
	return out
}

// verdicts encodes rec's verdicts, one number per metric.
func (e *encoder) verdicts(rec *run.Record) []int {
	out := make([]int, len(e.metrics))
	for i, m := range e.metrics {
		v, ok := rec.Verdicts[m]
		if !ok {
			out[i] = -1
			continue
		}
		out[i] = 2 * e.status(string(v.Status))
		if v.Correct {
			out[i]++
		}
	}
	return out
}

func (e *encoder) status(s string) int {
	k, ok := e.statuses[s]
	if !ok {
		k = len(e.d.Statuses)
		e.statuses[s] = k
		e.d.Statuses = append(e.d.Statuses, s)
	}
	return k
}

// details encodes each verdict's detail and fields, or 0 when no verdict
// has either.
func (e *encoder) details(rec *run.Record) any {
	out := make([]any, len(e.metrics))
	some := false
	for i, m := range e.metrics {
		v, ok := rec.Verdicts[m]
		if !ok {
			continue
		}
		fields := ""
		if v.Details != nil {
			if f, err := v.DetailsJSON(); err == nil {
				fields = shortFields(f)
			}
		}
		if v.Detail == "" && fields == "" {
			continue
		}
		out[i] = []string{v.Detail, fields}
		some = true
	}
	if !some {
		return 0
	}
	return out
}

// sample encodes a result sample (nil: null).
func sample(s *result.Sample) any {
	if s == nil {
		return nil
	}
	rows := make([][]string, len(s.Rows))
	for i, r := range s.Rows {
		rows[i] = append([]string{r.Op}, r.Cells...)
	}
	return []any{nonNil(s.GoldColumns), nonNil(s.PredColumns), s.GoldRows, s.PredRows, rows, s.Err}
}

func nonNil(xs []string) []string {
	if xs == nil {
		return []string{}
	}
	return xs
}

// maxField is the most bytes of one verdict field's JSON the page keeps.
const maxField = 200

// maxWitness is the most bytes of an equiv witness's JSON (the "witness"
// field of the equiv and verdict metrics: the SQL of the database that
// tells gold from prediction and both results) the page keeps: the item
// view shows it, so it is exempt from maxField up to this bound.
const maxWitness = 16 << 10

// maxProof is the most bytes of an equiv proof's JSON (the "proof" field
// of the equiv and verdict metrics: steps, normal forms, obligations) the
// page keeps: the item view shows it as a list of steps.
const maxProof = 32 << 10

// fieldLimit is the most bytes the page keeps of verdict field k's JSON.
func fieldLimit(k string) int {
	switch k {
	case "witness":
		return maxWitness
	case "proof":
		return maxProof
	}
	return maxField
}

// shortFields returns the details JSON f with each value longer than its
// fieldLimit (em's per-component "partial" scores, ~1 KB an item; a
// witness over maxWitness) replaced by a string saying where it is, so
// that the page of a large run stays small; the page's partial table
// aggregates them.
func shortFields(f string) string {
	if len(f) <= maxField {
		return f
	}
	var m map[string]json.RawMessage
	if json.Unmarshal([]byte(f), &m) != nil {
		return f
	}
	cut := false
	for k, raw := range m {
		if len(raw) > fieldLimit(k) {
			m[k], _ = json.Marshal(fmt.Sprintf("(%d bytes of JSON, in results.jsonl)", len(raw)))
			cut = true
		}
	}
	if !cut {
		return f
	}
	b, err := json.Marshal(m)
	if err != nil {
		return f
	}
	return string(b)
}
