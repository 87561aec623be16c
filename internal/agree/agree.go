// Package agree measures how well each metric of an eval run agrees with
// human labels: Cohen's kappa, accuracy, MCC, F1 of "correct" and the
// confusion matrix, each with a seeded percentile-bootstrap 95% interval
// (stats.Agree), over all labelled items and per difficulty. The label is
// the truth, the metric's verdict the prediction. It is the library behind
// `sqljudge agree`.
package agree

import (
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"

	"github.com/sqljudge/sqljudge/internal/bench"
	"github.com/sqljudge/sqljudge/internal/report"
	"github.com/sqljudge/sqljudge/internal/run"
	"github.com/sqljudge/sqljudge/internal/stats"
	"github.com/sqljudge/sqljudge/internal/status"
	"github.com/sqljudge/sqljudge/internal/usage"
)

// File is the name of the agreement JSON in a run's folder.
const File = "agreement.json"

// Schema identifies the agreement JSON's format.
const Schema = "sqljudge.agreement/v1"

// InputError marks an error that is the caller's input (a missing or
// unreadable results file, labels whose ids match no record, an unknown
// metric), not a failure of the computation. The CLI exits 2 on it.
type InputError = usage.Error

// Options are the inputs of Compute.
type Options struct {
	// Labels is the human labels file: ROSE-VEC JSON or JSONL {id, label}
	// (bench.ReadLabels).
	Labels string
	// Results is a run's output folder or its results.jsonl.
	Results string
	// Metrics are the metrics to measure; empty means every metric in the
	// records, sorted by name.
	Metrics []string
	// Seed seeds the bootstrap resampling; Resamples (at least 1) is the
	// number of bootstrap resamples.
	Seed      uint64
	Resamples int
}

// MetricAgreement is one metric's agreement, overall and per difficulty.
type MetricAgreement struct {
	All          stats.Agreement            `json:"all"`
	ByDifficulty map[string]stats.Agreement `json:"by_difficulty,omitempty"`
	// Status counts the metric's verdicts on the labelled items by status.
	Status map[status.Status]int `json:"status"`
}

// Doc is the agreement JSON (schema Schema).
type Doc struct {
	Schema    string `json:"schema"`
	Labels    string `json:"labels"`
	Results   string `json:"results"`
	Seed      uint64 `json:"seed"`
	Resamples int    `json:"resamples"`
	// Matched is the number of records with a label; Unlabeled records
	// have none; LabelsWithoutRecord are labels no record matched.
	Matched             int                         `json:"matched"`
	Unlabeled           int                         `json:"unlabeled_records"`
	LabelsWithoutRecord int                         `json:"labels_without_record"`
	Difficulties        []string                    `json:"difficulties"`
	Metrics             []string                    `json:"metrics"`
	Agreement           map[string]*MetricAgreement `json:"agreement"`
}

// Compute reads the run's records (the latest of each item, run.Latest)
// and the labels, pairs them by item id, and measures every metric's
// agreement. A verdict that is not ok counts as recorded (correct =
// false). Errors: InputError for options or files that are the caller's
// input; bench.ReadLabels' errors for a bad labels file. Same inputs and
// seed give the same Doc.
func Compute(o Options) (*Doc, error) {
	switch {
	case o.Labels == "":
		return nil, usage.Errorf("--labels is required: a ROSE-VEC JSON or JSONL {id, label} file")
	case o.Results == "":
		return nil, usage.Errorf("--results is required: the output folder of an eval run")
	case o.Resamples < 1:
		return nil, usage.Errorf("--resamples must be at least 1")
	}
	path := o.Results
	if st, err := os.Stat(path); err == nil && st.IsDir() {
		path = filepath.Join(path, run.ResultsFile)
	}
	recs, _, err := run.ReadRecords(path)
	if err != nil {
		return nil, usage.Errorf("--results: %v", err)
	}
	labels, err := bench.ReadLabels(o.Labels)
	if err != nil {
		return nil, err
	}
	doc := &Doc{Schema: Schema, Labels: o.Labels, Results: path, Seed: o.Seed, Resamples: o.Resamples, Agreement: map[string]*MetricAgreement{}}
	matched, metricSet := doc.match(recs, labels)
	if len(matched) == 0 {
		return nil, usage.Errorf("no record of %s has a label in %s: the ids do not match (records use question_id, the JSONL id, or the 0-based index)", path, o.Labels)
	}
	doc.Metrics = slices.Sorted(maps.Keys(metricSet))
	if len(o.Metrics) > 0 {
		for _, m := range o.Metrics {
			if !metricSet[m] {
				return nil, usage.Errorf("--metrics: %s is not in the records (they have %v)", m, doc.Metrics)
			}
		}
		doc.Metrics = o.Metrics
	}
	levels := map[string]bool{}
	for _, r := range matched {
		if r.Difficulty != "" {
			levels[r.Difficulty] = true
		}
	}
	doc.Difficulties = report.OrderLevels(slices.Collect(maps.Keys(levels)))
	for _, m := range doc.Metrics {
		doc.Agreement[m] = measure(m, matched, labels, o.Resamples, o.Seed)
	}
	return doc, nil
}

// match returns the latest records that have a label, in index order, and
// the metrics they hold; it sets doc's counts.
func (doc *Doc) match(recs []run.Record, labels map[string]bench.Label) ([]run.Record, map[string]bool) {
	metricSet := map[string]bool{}
	var matched []run.Record
	used := map[string]bool{}
	for _, r := range run.LatestInOrder(recs) {
		if _, ok := labels[r.ID]; !ok {
			doc.Unlabeled++
			continue
		}
		used[r.ID] = true
		matched = append(matched, r)
		for m := range r.Verdicts {
			metricSet[m] = true
		}
	}
	doc.Matched = len(matched)
	doc.LabelsWithoutRecord = len(labels) - len(used)
	return matched, metricSet
}

// measure is metric m's agreement on the matched records.
func measure(m string, matched []run.Record, labels map[string]bench.Label, resamples int, seed uint64) *MetricAgreement {
	ma := &MetricAgreement{Status: map[status.Status]int{}}
	var lab, ver []bool
	byLevel := map[string][2][]bool{}
	for _, r := range matched {
		v, ok := r.Verdicts[m]
		if !ok {
			continue
		}
		l := labels[r.ID].Correct
		lab, ver = append(lab, l), append(ver, v.Correct)
		ma.Status[v.Status]++
		if r.Difficulty != "" {
			p := byLevel[r.Difficulty]
			byLevel[r.Difficulty] = [2][]bool{append(p[0], l), append(p[1], v.Correct)}
		}
	}
	ma.All = stats.Agree(lab, ver, resamples, seed)
	if len(byLevel) > 0 {
		ma.ByDifficulty = map[string]stats.Agreement{}
		for lv, p := range byLevel {
			ma.ByDifficulty[lv] = stats.Agree(p[0], p[1], resamples, seed)
		}
	}
	return ma
}

// DefaultPath is where the agreement JSON goes when no path is given:
// File beside the results file.
func (doc *Doc) DefaultPath() string { return filepath.Join(filepath.Dir(doc.Results), File) }

// Write writes doc as indented JSON with a final newline to path.
func (doc *Doc) Write(path string) error {
	b, err := json.MarshalIndent(doc, "", "  ")
	if err != nil {
		return err
	}
	if err := os.WriteFile(path, append(b, '\n'), 0o644); err != nil {
		return fmt.Errorf("cannot write %s: %w", path, err)
	}
	return nil
}
