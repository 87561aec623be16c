package htmlreport

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"github.com/sqljudge/sqljudge/internal/result"
	"github.com/sqljudge/sqljudge/internal/run"
)

// pageData is the page's one JSON blob, compact for large runs: names
// are listed once and items refer to them by position.
//
//	{"runs": ["din_sql", "c3"], "metrics": ["ex", "em"],
//	 "statuses": ["ok", "pred_error"], "levels": ["easy", ...],
//	 "categories": [], "items": [item, ...]}
//
// An item is an array: [index, id, db_id, level, category, question,
// evidence, gold, pred, verdicts, details, sample, compared] where level
// and category are positions in levels and categories (-1: none);
// verdicts has one number per metric, -1 when the item has no verdict of
// it, else 2 x the position of its status in statuses + 1 if correct;
// details is 0, or one entry per metric, null or [detail, fields] (the
// verdict's detail and its details as JSON); sample is null or [gold
// columns, predicted columns, gold row count, predicted row count, rows
// ([op, cell...] each), error]; compared is null, or the second run's
// [pred, verdicts, details, sample] for the item.
type pageData struct {
	Runs       []string `json:"runs"`
	Metrics    []string `json:"metrics"`
	Statuses   []string `json:"statuses"`
	Levels     []string `json:"levels"`
	Categories []string `json:"categories"`
	Items      []any    `json:"items"`
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
			e.verdicts(rec), e.details(rec), sample(rec.Sample), other})
	}
	return d
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
