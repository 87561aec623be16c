package report

import (
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"

	"github.com/sqljudge/sqljudge/internal/run"
)

// HazardCounts is summary.json's "gold_hazards" (eval --audit): the items
// with at least one gold hazard, and the items with one of each kind; and,
// per metric, how many of the items it calls wrong sit on a gold with a
// hazard (Wrong). No verdict depends on them: they say which wrong
// verdicts may be the gold's fault.
//
//	{"items": 112, "by_kind": {"limit_ties": 50, ...},
//	 "wrong": {"ex": {"wrong": 183, "on_hazard": 34, "by_kind": {"limit_ties": 12, ...}}}}
type HazardCounts struct {
	Items  int                   `json:"items"`
	ByKind map[string]int        `json:"by_kind"`
	Wrong  map[string]WrongCount `json:"wrong,omitempty"`
}

// WrongCount counts a metric's items not correct (Wrong: any status but
// an unjudged one), those of them whose gold has a hazard (OnHazard) and
// those with a hazard of each kind (ByKind; an item with two kinds counts
// under both).
type WrongCount struct {
	Wrong    int            `json:"wrong"`
	OnHazard int            `json:"on_hazard"`
	ByKind   map[string]int `json:"by_kind"`
}

// CountHazards counts the gold hazards of the latest record of each item,
// and the wrong verdicts of each metric of the records on them.
func CountHazards(recs []run.Record) *HazardCounts {
	c := &HazardCounts{ByKind: map[string]int{}, Wrong: map[string]WrongCount{}}
	latest := run.LatestInOrder(recs)
	for _, m := range recordMetrics(latest) {
		c.Wrong[m] = WrongCount{ByKind: map[string]int{}}
	}
	for _, r := range latest {
		kinds := hazardKinds(r)
		if len(kinds) > 0 {
			c.Items++
		}
		for _, k := range kinds {
			c.ByKind[k]++
		}
		for m, v := range r.Verdicts {
			if v.Correct || v.Status.Unjudged() {
				continue
			}
			w := c.Wrong[m]
			w.Wrong++
			if len(kinds) > 0 {
				w.OnHazard++
			}
			for _, k := range kinds {
				w.ByKind[k]++
			}
			c.Wrong[m] = w
		}
	}
	return c
}

// hazardKinds lists the kinds of r's gold hazards, each once.
func hazardKinds(r run.Record) []string {
	var out []string
	for _, h := range r.GoldHazards {
		if !slices.Contains(out, h.Kind) {
			out = append(out, h.Kind)
		}
	}
	return out
}

// PrintHazards writes, after a run with eval --audit, how many items the
// gold audit marked, by kind in the order of kinds (the audit's report
// order; others after, by name), and per metric how many of the items it
// calls wrong sit on a gold with a hazard. Nothing without --audit.
func PrintHazards(w io.Writer, sum *Summary, kinds []string) {
	h := sum.GoldHazards
	if h == nil {
		return
	}
	fmt.Fprintf(w, "gold audit: %d of %d items have gold hazards%s, listed in their records' gold_hazards and on the page; no verdict changed\n",
		h.Items, sum.Items, byKindText(h.ByKind, kinds))
	for _, m := range sum.Metrics {
		wc, ok := h.Wrong[m]
		if !ok || wc.Wrong == 0 {
			continue
		}
		fmt.Fprintf(w, "gold audit: %d of the %d items %s calls wrong sit on a gold with a hazard%s: the gold, not the prediction, may be why\n",
			wc.OnHazard, wc.Wrong, m, byKindText(wc.ByKind, kinds))
	}
}

// byKindText lists counts by kind, " (empty 4, limit_ties 10)", in the
// order of kinds and then by name; "" when there is none.
func byKindText(counts map[string]int, kinds []string) string {
	order := slices.Clone(kinds)
	for _, k := range slices.Sorted(maps.Keys(counts)) {
		if !slices.Contains(order, k) {
			order = append(order, k)
		}
	}
	var parts []string
	for _, k := range order {
		if n := counts[k]; n > 0 {
			parts = append(parts, fmt.Sprintf("%s %d", k, n))
		}
	}
	if len(parts) == 0 {
		return ""
	}
	return " (" + strings.Join(parts, ", ") + ")"
}
