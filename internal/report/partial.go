package report

import (
	"fmt"
	"io"
	"slices"

	"github.com/jedib0t/go-pretty/v6/table"
	"github.com/jedib0t/go-pretty/v6/text"

	"github.com/sqljudge/sqljudge/internal/metric"
	"github.com/sqljudge/sqljudge/internal/run"
	"github.com/sqljudge/sqljudge/internal/sqlast/spider"
)

// PartialTable is Spider's official partial-matching table (the part of
// evaluation.evaluate's print_scores that --etype match prints): per
// hardness level of the gold, the exact-match accuracy and, for each
// component of eval_partial_match, accuracy, recall and F1. It is
// summary.json's "partial" field:
//
//	{"metric": "em", "levels": ["easy", "medium", "hard", "extra", "all"],
//	 "components": ["select", ..., "keywords"], "unscored": 0,
//	 "by_level": {"easy": {"count": 248, "exact": 0.802,
//	   "components": {"select": {"acc": 0.952, "rec": 0.875, "f1": 0.912,
//	                             "acc_count": 228, "rec_count": 248}, ...}}, ...}}
type PartialTable struct {
	// Metric is the em metric whose verdicts were aggregated.
	Metric string `json:"metric"`
	// Levels are the official columns: easy, medium, hard, extra, all
	// (always all five, as print_scores prints them).
	Levels []string `json:"levels"`
	// Components are the official rows, in print_scores order.
	Components []string `json:"components"`
	// Unscored is the number of items with a verdict of Metric but no
	// partial scores (their gold could not be read: gold_error); they are
	// in no column, since the official evaluator stops on such a gold.
	Unscored int `json:"unscored"`
	// ByLevel maps a level to its column.
	ByLevel map[string]*PartialLevel `json:"by_level"`
}

// PartialLevel is one column of the partial-matching table.
type PartialLevel struct {
	// Count is the number of items of the level; Exact the share exactly
	// matched (the verdict's correct).
	Count int     `json:"count"`
	Exact float64 `json:"exact"`
	// Components maps a component name to its scores.
	Components map[string]PartialScore `json:"components"`
}

// PartialScore is one cell triple of the table: Acc is the mean match over
// the AccCount items whose prediction has the component, Rec the mean over
// the RecCount items whose gold has it, F1 their harmonic mean (1 where
// both are 0, as evaluation.evaluate sets it; all 0 on a level without
// items).
type PartialScore struct {
	Acc      float64 `json:"acc"`
	Rec      float64 `json:"rec"`
	F1       float64 `json:"f1"`
	AccCount int     `json:"acc_count"`
	RecCount int     `json:"rec_count"`
}

// Partial aggregates the verdicts of the em metric named metricName
// (usually "em") in recs into the official partial-matching table, exactly
// as evaluation.evaluate does: each item adds to the column of its gold's
// hardness (the verdict's "hardness" field) and to "all"; a component's
// accuracy averages the verdicts' "partial" scores over the items whose
// prediction has it (pred_total > 0), its recall over those whose gold has
// it (label_total > 0). Records without a verdict of that metric are
// skipped. It fails when no record has one, or on a verdict whose partial
// fields are malformed, naming the record.
func Partial(recs []run.Record, metricName string) (*PartialTable, error) {
	var tab spider.Table
	graded, unscored := 0, 0
	for _, r := range recs {
		v, ok := r.Verdicts[metricName]
		if !ok {
			continue
		}
		graded++
		h, p, ok, err := metric.EMPartial(v)
		if err != nil {
			return nil, fmt.Errorf("record %d (id %s): %w", r.Index, r.ID, err)
		}
		if !ok {
			unscored++
			continue
		}
		tab.Add(h, v.Correct, p)
	}
	if graded == 0 {
		return nil, fmt.Errorf("no record has a verdict of %s: the partial-matching table needs em", metricName)
	}
	t := &PartialTable{
		Metric: metricName, Levels: append(slices.Clone(spider.Levels), spider.AllLevels),
		Unscored: unscored, ByLevel: map[string]*PartialLevel{},
	}
	for c := spider.Component(0); c < spider.NumComponents; c++ {
		t.Components = append(t.Components, c.String())
	}
	for _, l := range t.Levels {
		s := tab.Level(l)
		pl := &PartialLevel{Count: s.Count, Exact: s.Exact(), Components: map[string]PartialScore{}}
		for c := spider.Component(0); c < spider.NumComponents; c++ {
			var ps PartialScore
			ps.Acc, ps.Rec, ps.F1 = s.Partial(c)
			ps.AccCount, ps.RecCount = s.Counts(c)
			pl.Components[c.String()] = ps
		}
		t.ByLevel[l] = pl
	}
	return t, nil
}

// PrintPartial writes the partial-matching table to the console: a count
// row, the exact-match row, then accuracy, recall and F1 of each component,
// one column per level (easy, medium, hard, extra, all), to 3 decimals as
// print_scores prints them; a level without items shows "-".
func PrintPartial(w io.Writer, p *PartialTable) {
	t := NewConsoleTable(w)
	t.SetTitle(fmt.Sprintf("%s partial matching (Spider evaluation.py)", p.Metric))
	header := table.Row{""}
	for _, l := range p.Levels {
		header = append(header, l)
	}
	t.AppendHeader(header)
	row := func(name string, cell func(*PartialLevel) string) {
		r := table.Row{name}
		for _, l := range p.Levels {
			pl := p.ByLevel[l]
			if pl == nil || pl.Count == 0 {
				r = append(r, "-")
				continue
			}
			r = append(r, cell(pl))
		}
		t.AppendRow(r)
	}
	count := table.Row{"count"}
	for _, l := range p.Levels {
		n := 0
		if pl := p.ByLevel[l]; pl != nil {
			n = pl.Count
		}
		count = append(count, n)
	}
	t.AppendRow(count)
	row("exact match", func(pl *PartialLevel) string { return fmt.Sprintf("%.3f", pl.Exact) })
	for _, sec := range []struct {
		title string
		get   func(PartialScore) float64
	}{
		{"accuracy", func(s PartialScore) float64 { return s.Acc }},
		{"recall", func(s PartialScore) float64 { return s.Rec }},
		{"F1", func(s PartialScore) float64 { return s.F1 }},
	} {
		t.AppendSeparator()
		t.AppendRow(table.Row{sec.title})
		for _, c := range p.Components {
			row(c, func(pl *PartialLevel) string { return fmt.Sprintf("%.3f", sec.get(pl.Components[c])) })
		}
	}
	cfg := []table.ColumnConfig{{Number: 1, Align: text.AlignLeft}}
	for i := range p.Levels {
		cfg = append(cfg, table.ColumnConfig{Number: i + 2, Align: text.AlignRight})
	}
	t.SetColumnConfigs(cfg)
	t.Render()
	if p.Unscored > 0 {
		fmt.Fprintf(w, "%d items with an unreadable gold are in no column of the partial table\n", p.Unscored)
	}
}
