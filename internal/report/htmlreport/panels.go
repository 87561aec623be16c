package htmlreport

import (
	"fmt"
	"net/url"
	"slices"
	"strings"

	"github.com/sqljudge/sqljudge/internal/report"
	"github.com/sqljudge/sqljudge/internal/run"
)

// refutesView is the page's table of equiv against one metric (ex or ts):
// what equiv does with the items the metric calls correct, each count a
// link to those items, and how equiv's accuracy follows from the metric's.
type refutesView struct {
	Metric, Assume                   string
	Correct, Proved, Refuted, Others int
	NotGraded, Accepted              int
	UpToTies                         int // of Proved, proofs up to ties (report.Refuted.UpToTies)
	CorrectLink, ProvedLink          string
	RefutedLink, AcceptedLink        string
	NotGradedLink                    string
	Rows                             []countLink
	Reconcile                        string
}

// countLink is a labelled count with the fragment of its items.
type countLink struct {
	Label, Link string
	N           int
}

// frag builds a page fragment from key, value pairs.
func frag(kv ...string) string {
	var parts []string
	for i := 0; i+1 < len(kv); i += 2 {
		parts = append(parts, kv[i]+"="+url.QueryEscape(kv[i+1]))
	}
	return "#" + strings.Join(parts, "&")
}

// refutesViews builds the tables of equiv against ex and ts from the
// records (report.EquivRefutes), so that a run written before the summary
// held them shows them too.
func refutesViews(r *Run, sum *report.Summary) []refutesView {
	eq := sum.Overall["equiv"]
	var out []refutesView
	refs := report.EquivRefutes(r.Records, sum.Metrics)
	for _, m := range []string{"ex", "ts"} {
		rf, ok := refs[m]
		if !ok || eq == nil {
			continue
		}
		base := []string{"metric", m, "status", "correct"}
		v := refutesView{Metric: m, Assume: rf.Assume, Correct: rf.Correct, Proved: rf.Proved, Refuted: rf.Refuted,
			NotGraded: rf.NotGraded, Accepted: rf.Accepted, UpToTies: rf.UpToTies,
			Others:        rf.Correct - rf.Proved - rf.Refuted - rf.NotGraded,
			CorrectLink:   frag(base...),
			ProvedLink:    frag(append(base, "outcome", "equiv:equivalent_proved")...),
			RefutedLink:   frag(append(base, "and", "equiv:wrong")...),
			NotGradedLink: frag(append(base, "and", "equiv:error")...),
			AcceptedLink:  frag("metric", m, "status", "wrong", "and", "equiv:correct"),
		}
		for _, k := range report.RestsOnKeys(rf.RestsOn) {
			label := k
			if k == report.NoWitness {
				label = "no witness (the item's database)"
			}
			v.Rows = append(v.Rows, countLink{Label: label, N: rf.RestsOn[k], Link: frag(append(base, "rests", "equiv:"+k)...)})
		}
		v.Reconcile = fmt.Sprintf("equiv's accuracy %.4f = (%d %s correct − %d refuted − %d not graded + %d accepted) / %d",
			eq.Accuracy, rf.Correct, m, rf.Refuted, rf.NotGraded, rf.Accepted, eq.Count)
		if why := rf.AcceptedText(m); why != "" {
			v.Reconcile += "; accepted: " + why
		}
		out = append(out, v)
	}
	return out
}

// hazardsView is the page's gold audit section (eval --audit): items per
// kind, and per metric its wrong verdicts on hazardous golds, each a link.
type hazardsView struct {
	Items, Total int
	AnyLink      string
	Kinds        []countLink
	Wrong        []wrongView
}

// wrongView is one metric's wrong verdicts and those on hazardous golds.
type wrongView struct {
	Metric            string
	Wrong, OnHazard   int
	WrongLink, OnLink string
	Kinds             []countLink
}

// hazardsOf builds the gold audit section from the records' gold hazards
// (report.CountHazards); nil when no record has one and the run was not
// audited.
func hazardsOf(r *Run) *hazardsView {
	sum := r.Summary
	if sum.GoldHazards == nil && !slices.ContainsFunc(r.Records, func(x run.Record) bool { return len(x.GoldHazards) > 0 }) {
		return nil
	}
	h := report.CountHazards(r.Records)
	v := &hazardsView{Items: h.Items, Total: len(r.Records), AnyLink: frag("hazard", "any")}
	kinds := sortedByCount(h.ByKind)
	for _, k := range kinds {
		v.Kinds = append(v.Kinds, countLink{Label: k, N: h.ByKind[k], Link: frag("hazard", k)})
	}
	for _, m := range sum.Metrics {
		w, ok := h.Wrong[m]
		if !ok || w.Wrong == 0 {
			continue
		}
		wv := wrongView{Metric: m, Wrong: w.Wrong, OnHazard: w.OnHazard,
			WrongLink: frag("metric", m, "status", "wrong"), OnLink: frag("metric", m, "status", "wrong", "hazard", "any")}
		for _, k := range sortedByCount(w.ByKind) {
			wv.Kinds = append(wv.Kinds, countLink{Label: k, N: w.ByKind[k], Link: frag("metric", m, "status", "wrong", "hazard", k)})
		}
		v.Wrong = append(v.Wrong, wv)
	}
	return v
}

// sortedByCount lists the keys of counts by decreasing count, ties by
// name.
func sortedByCount(counts map[string]int) []string {
	var out []string
	for k, n := range counts {
		if n > 0 {
			out = append(out, k)
		}
	}
	slices.SortFunc(out, func(a, b string) int {
		if counts[a] != counts[b] {
			return counts[b] - counts[a]
		}
		return strings.Compare(a, b)
	})
	return out
}
