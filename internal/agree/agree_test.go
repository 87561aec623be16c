package agree

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sqljudge/sqljudge/internal/metric"
	"github.com/sqljudge/sqljudge/internal/run"
	"github.com/sqljudge/sqljudge/internal/shareddata"
	"github.com/sqljudge/sqljudge/internal/status"
)

// spiderRun writes a results.jsonl of the first n Spider dev items whose
// verdicts are the official evaluator's for DIN-SQL ("exec" and "exact"),
// and labels equal to its exec verdicts (odd items only when half).
func spiderRun(t *testing.T, n int, half bool) (dir, labels string, want []shareddata.OracleRecord) {
	want = shareddata.SubsetOracle(t, "din_sql")[:n]
	dir = t.TempDir()
	var res, lab strings.Builder
	for i, o := range want {
		r := run.Record{Index: i, ID: fmt.Sprint(i), DBID: "x", Difficulty: o.Hardness, Verdicts: map[string]metric.Verdict{
			"exec":  {Correct: o.Exec == 1, Status: status.OK},
			"exact": {Correct: o.Exact == 1, Status: status.OK},
		}}
		b, err := json.Marshal(r)
		if err != nil {
			t.Fatal(err)
		}
		res.Write(append(b, '\n'))
		if !half || i%2 == 1 {
			fmt.Fprintf(&lab, "{\"id\": \"%d\", \"label\": %t}\n", i, o.Exec == 1)
		}
	}
	labels = filepath.Join(dir, "labels.jsonl")
	for p, s := range map[string]string{filepath.Join(dir, run.ResultsFile): res.String(), labels: lab.String()} {
		if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir, labels, want
}

// TestComputeSpiderOracle: labels equal to the exec verdicts agree with
// exec perfectly; exact's confusion matrix counts the oracle's pairs.
func TestComputeSpiderOracle(t *testing.T) {
	dir, labels, want := spiderRun(t, 200, false)
	doc, err := Compute(Options{Labels: labels, Results: dir, Seed: 3, Resamples: 200})
	if err != nil {
		t.Fatal(err)
	}
	if doc.Matched != 200 || doc.Unlabeled != 0 || doc.LabelsWithoutRecord != 0 {
		t.Fatalf("matched %d, unlabeled %d, without record %d", doc.Matched, doc.Unlabeled, doc.LabelsWithoutRecord)
	}
	if strings.Join(doc.Metrics, ",") != "exact,exec" || strings.Join(doc.Difficulties, ",") != "easy,medium,hard,extra" {
		t.Fatalf("metrics %v, difficulties %v", doc.Metrics, doc.Difficulties)
	}
	if a := doc.Agreement["exec"].All; a.Accuracy.Value != 1 || a.Confusion.FP+a.Confusion.FN != 0 {
		t.Errorf("exec vs its own labels: %+v", a)
	}
	var tp, fp, fn, tn int
	for _, o := range want {
		switch {
		case o.Exec == 1 && o.Exact == 1:
			tp++
		case o.Exec == 0 && o.Exact == 1:
			fp++
		case o.Exec == 1:
			fn++
		default:
			tn++
		}
	}
	c := doc.Agreement["exact"].All.Confusion
	if c.TP != tp || c.FP != fp || c.FN != fn || c.TN != tn || fp+fn == 0 {
		t.Errorf("exact confusion %+v, want tp %d fp %d fn %d tn %d", c, tp, fp, fn, tn)
	}
	if doc.Agreement["exact"].Status[status.OK] != 200 {
		t.Errorf("status counts %v", doc.Agreement["exact"].Status)
	}
	again, err := Compute(Options{Labels: labels, Results: dir, Seed: 3, Resamples: 200})
	if err != nil {
		t.Fatal(err)
	}
	a, _ := json.Marshal(doc)
	b, _ := json.Marshal(again)
	if string(a) != string(b) {
		t.Error("same inputs and seed gave different agreement")
	}
}

// TestComputeInputErrors: partial labels are counted, and bad options or
// ids that match nothing are InputErrors naming what to fix.
func TestComputeInputErrors(t *testing.T) {
	dir, labels, _ := spiderRun(t, 40, true)
	doc, err := Compute(Options{Labels: labels, Results: filepath.Join(dir, run.ResultsFile), Metrics: []string{"exec"}, Seed: 1, Resamples: 50})
	if err != nil {
		t.Fatal(err)
	}
	if doc.Matched != 20 || doc.Unlabeled != 20 || len(doc.Agreement) != 1 || doc.DefaultPath() != filepath.Join(dir, File) {
		t.Fatalf("matched %d, unlabeled %d, agreement %v, path %s", doc.Matched, doc.Unlabeled, doc.Agreement, doc.DefaultPath())
	}
	other := filepath.Join(t.TempDir(), "other.jsonl")
	if err := os.WriteFile(other, []byte(`{"id": "q9", "label": true}`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		o    Options
		want string
	}{
		{Options{Results: dir, Resamples: 1}, "--labels is required"},
		{Options{Labels: labels, Results: dir}, "--resamples must be at least 1"},
		{Options{Labels: labels, Results: t.TempDir(), Resamples: 1}, "--results: "},
		{Options{Labels: other, Results: dir, Resamples: 1}, "the ids do not match"},
		{Options{Labels: labels, Results: dir, Metrics: []string{"ex"}, Resamples: 1}, "--metrics: ex is not in the records"},
	} {
		_, err := Compute(c.o)
		var ie InputError
		if !errors.As(err, &ie) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: error %v, want an InputError with %q", c.o, err, c.want)
		}
	}
}
