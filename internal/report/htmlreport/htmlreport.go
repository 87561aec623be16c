// Package htmlreport writes a run's report as one self-contained HTML page
// (OUT/report.html, `sqljudge report OUT --html FILE`): the summary table
// by metric and difficulty, one row per item with filters by metric,
// status and difficulty, a drill-down per item (question, gold,
// prediction, verdicts, a diff of result samples), and optionally a second
// run side by side. CSS and JS are inline; the page loads nothing.
//
// It reads only what a run wrote (results.jsonl, summary.json) plus the
// result samples the records keep (run.Record.Sample).
package htmlreport

import (
	"bytes"
	_ "embed"
	"encoding/json"
	"fmt"
	"html/template"
	"io"
	"maps"
	"path/filepath"
	"slices"
	"strings"

	"github.com/sqljudge/sqljudge/internal/report"
	"github.com/sqljudge/sqljudge/internal/result"
	"github.com/sqljudge/sqljudge/internal/run"
)

// File is the name of the page eval writes into its output folder.
const File = "report.html"

// Run is one run to report.
type Run struct {
	// Dir is the run's output folder (shown as its name).
	Dir string
	// Summary is its summary.json.
	Summary *report.Summary
	// Records are its records, one per item (the latest), in index order.
	Records []run.Record
}

// Load reads a run's output folder: summary.json and results.jsonl.
func Load(dir string) (*Run, error) {
	sum, err := report.ReadSummary(filepath.Join(dir, report.SummaryFile))
	if err != nil {
		return nil, fmt.Errorf("%s: no finished run: %w", dir, err)
	}
	recs, _, err := run.ReadRecords(filepath.Join(dir, run.ResultsFile))
	if err != nil {
		return nil, err
	}
	return &Run{Dir: dir, Summary: sum, Records: run.LatestInOrder(recs)}, nil
}

// Options configure Write.
type Options struct {
	// Title heads the page; "" means "sqljudge report".
	Title string
	// Compare, if set, is a second run shown beside the first: its
	// summary, and per item its prediction and verdicts (matched by
	// index), with a filter for the items whose verdicts differ.
	Compare *Run
}

//go:embed page.html.tmpl
var pageTmpl string

var page = template.Must(template.New("page").Funcs(template.FuncMap{
	"base": filepath.Base,
}).Parse(pageTmpl))

// Write renders the page of r to w.
//
// The summary table has one row per difficulty level and one "all" row;
// each cell (<td data-metric="ex" data-difficulty="easy"
// data-accuracy="0.8230...">) shows the accuracy of summary.json with its
// correct and graded counts. Items are <tr class="item" data-index="N">
// rows, N the item's index (no other element has data-index), each
// followed by its drill-down row; the filters only hide rows.
func Write(w io.Writer, r *Run, o Options) error {
	v := buildView(r, o)
	return page.Execute(w, v)
}

type view struct {
	Title       string
	Dir, CmpDir string
	RunInfo     []kv
	Metrics     []string
	Levels      []levelView
	CmpLevels   []levelView
	Statuses    []string
	Difficulty  []string
	Items       []itemView
	HasCmp      bool
	Cols        int
}

type kv struct{ K, V string }

type levelView struct {
	Name  string
	Cells []cellView
}

type cellView struct {
	Metric, Level string
	Has           bool
	Accuracy      string // %.4f
	Exact         string // full precision
	Correct       int
	Count         int
}

type itemView struct {
	Index                          int
	ID, DBID, Difficulty           string
	Question, Evidence, Gold, Pred string
	Verdicts                       []verdictView
	VAttr                          string
	Sample                         *result.Sample
	Cmp                            *cmpView
	Differs                        bool
}

type cmpView struct {
	Pred     string
	Verdicts []verdictView
	VAttr    string
	Sample   *result.Sample
}

type verdictView struct {
	Metric, Status, Detail, Fields string
	Correct, Present               bool
}

func buildView(r *Run, o Options) view {
	sum := r.Summary
	v := view{Title: o.Title, Dir: r.Dir, Metrics: sum.Metrics, Difficulty: sum.Difficulties, HasCmp: o.Compare != nil}
	if v.Title == "" {
		v.Title = "sqljudge report"
	}
	for _, e := range runEntries(sum.Run) {
		if e.V != "" && e.V != "<nil>" {
			v.RunInfo = append(v.RunInfo, e)
		}
	}
	v.RunInfo = append(v.RunInfo, kv{"items", fmt.Sprint(sum.Items)}, kv{"wall_seconds", fmt.Sprintf("%.2f", sum.WallSeconds)})
	v.Levels = levels(sum, sum.Metrics)
	statuses := map[string]bool{}
	var cmpByIndex map[int]run.Record
	if o.Compare != nil {
		v.CmpDir = o.Compare.Dir
		v.CmpLevels = levels(o.Compare.Summary, sum.Metrics)
		cmpByIndex = map[int]run.Record{}
		for _, c := range o.Compare.Records {
			cmpByIndex[c.Index] = c
		}
	}
	for _, rec := range r.Records {
		it := itemView{Index: rec.Index, ID: rec.ID, DBID: rec.DBID, Difficulty: rec.Difficulty,
			Question: rec.Question, Evidence: rec.Evidence, Gold: rec.Gold, Pred: rec.Pred}
		if len(rec.GoldAlternatives) > 0 {
			it.Gold = strings.Join(rec.GoldAlternatives, ";\n\n")
		}
		it.Verdicts, it.VAttr = verdicts(rec, sum.Metrics, statuses)
		it.Sample = rec.Sample
		if c, ok := cmpByIndex[rec.Index]; ok {
			cv := &cmpView{Pred: c.Pred}
			cv.Verdicts, cv.VAttr = verdicts(c, sum.Metrics, statuses)
			cv.Sample = c.Sample
			for k := range cv.Verdicts {
				if cv.Verdicts[k].Correct != it.Verdicts[k].Correct || cv.Verdicts[k].Present != it.Verdicts[k].Present {
					it.Differs = true
				}
			}
			it.Cmp = cv
		} else if o.Compare != nil {
			it.Differs = true
		}
		v.Items = append(v.Items, it)
	}
	v.Statuses = slices.Sorted(maps.Keys(statuses))
	v.Cols = 5 + len(sum.Metrics)
	if v.HasCmp {
		v.Cols += len(sum.Metrics)
	}
	return v
}

// levels builds the summary table rows: "all", then each difficulty level.
func levels(sum *report.Summary, metrics []string) []levelView {
	var out []levelView
	row := func(name string, scores map[string]*report.Score) {
		lv := levelView{Name: name}
		for _, m := range metrics {
			c := cellView{Metric: m, Level: name}
			if sc, ok := scores[m]; ok && sc != nil {
				c.Has, c.Correct, c.Count = true, sc.Correct, sc.Count
				c.Accuracy = fmt.Sprintf("%.4f", sc.Accuracy)
				c.Exact = fmt.Sprint(sc.Accuracy)
			}
			lv.Cells = append(lv.Cells, c)
		}
		out = append(out, lv)
	}
	row(report.All, sum.Overall)
	for _, l := range sum.Difficulties {
		row(l, sum.ByDifficulty[l])
	}
	return out
}

// verdicts renders a record's verdicts for metrics, and the row's
// data-v attribute "metric=status:0|1;..." the filters read.
func verdicts(rec run.Record, metrics []string, statuses map[string]bool) ([]verdictView, string) {
	var out []verdictView
	var attr []string
	for _, m := range metrics {
		v, ok := rec.Verdicts[m]
		vv := verdictView{Metric: m, Present: ok}
		if ok {
			vv.Correct, vv.Status, vv.Detail = v.Correct, string(v.Status), v.Detail
			if d, err := v.DetailsJSON(); err == nil {
				vv.Fields = d
			}
			statuses[vv.Status] = true
			c := "0"
			if v.Correct {
				c = "1"
			}
			attr = append(attr, m+"="+vv.Status+":"+c)
		}
		out = append(out, vv)
	}
	return out, strings.Join(attr, ";")
}

// runEntries lists the run block as its JSON names and values, by name,
// each value as fmt prints it (numbers as written in summary.json).
func runEntries(r *report.RunInfo) []kv {
	if r == nil {
		return nil
	}
	b, err := json.Marshal(r)
	if err != nil {
		return nil
	}
	var m map[string]any
	d := json.NewDecoder(bytes.NewReader(b))
	d.UseNumber()
	if d.Decode(&m) != nil {
		return nil
	}
	out := make([]kv, 0, len(m))
	for _, k := range slices.Sorted(maps.Keys(m)) {
		out = append(out, kv{k, fmt.Sprint(m[k])})
	}
	return out
}
