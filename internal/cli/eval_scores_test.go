package cli

import (
	"math"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sqljudge/sqljudge/internal/metric"
	"github.com/sqljudge/sqljudge/internal/report"
	"github.com/sqljudge/sqljudge/internal/run"
	"github.com/sqljudge/sqljudge/internal/shareddata"
)

// TestEvalScoreMetrics runs eval with soft_f1, ves and rves on Spider dev
// items, and with spider2 on the Spider 2.0 fixture of internal/metric,
// and checks what the records and the summary carry.
func TestEvalScoreMetrics(t *testing.T) {
	spider := shareddata.SubsetPath(t, "spider")
	dir := t.TempDir()
	gold := headFile(t, filepath.Join(spider, "dev_gold.sql"), dir, "gold.sql", 12)
	pred := headFile(t, filepath.Join(spider, "predictions", "c3.sql"), dir, "pred.sql", 12)
	out := filepath.Join(dir, "out")
	code, stdout, stderr := runMain(t, "eval", "--gold", gold, "--pred", pred, "--db", filepath.Join(spider, "database"),
		"--tables", filepath.Join(spider, "tables.json"), "--metrics", "ex_bird,soft_f1,ves,rves", "--ves-repeats", "3",
		"--workers", "2", "--out", out, "--progress", "never")
	if code != ExitOK {
		t.Fatalf("exit %d\n%s\n%s", code, stdout, stderr)
	}
	if !strings.Contains(stderr, "--workers 2 ignored") {
		t.Errorf("stderr should say --workers is ignored: %q", stderr)
	}
	for _, want := range []string{"soft_f1 Soft-F1", "soft_f1 accuracy (all-or-nothing)", "ves VES x100", "rves R-VES x100", "rves reward", "95% bootstrap interval over 12 items"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("console lacks %q:\n%s", want, stdout)
		}
	}
	sum, err := report.ReadSummary(filepath.Join(out, report.SummaryFile))
	if err != nil {
		t.Fatal(err)
	}
	if sum.Run.VESRepeats != 3 || sum.Run.Workers != 1 {
		t.Errorf("run block: ves_repeats %v, workers %v; want 3 and 1", sum.Run.VESRepeats, sum.Run.Workers)
	}
	rv := sum.Overall["rves"]
	if rv.Figure == nil || len(rv.FigureCI95) != 2 || math.Abs(*rv.Figure-100*rv.Fields["score"]) > 1e-9 {
		t.Errorf("rves overall %+v: figure should be 100 x the mean score, with an interval", rv)
	}
	if sf := sum.Overall["soft_f1"]; sf.Figure == nil || sf.Headline != *sf.Figure || sf.Headline != sf.Fields["score"] || sf.HeadlineName != "Soft-F1" {
		t.Errorf("soft_f1 overall %+v: the headline should be Soft-F1, the mean score", sf)
	}
	if rv.Headline != *rv.Figure || rv.HeadlineName != "R-VES x100" || sum.Overall["ex_bird"].HeadlineName != "accuracy" {
		t.Errorf("headlines: rves %v %q, ex_bird %q", rv.Headline, rv.HeadlineName, sum.Overall["ex_bird"].HeadlineName)
	}
	recs, _, err := run.ReadRecords(filepath.Join(out, run.ResultsFile))
	if err != nil || len(recs) != 12 {
		t.Fatalf("%d records, %v", len(recs), err)
	}
	for _, r := range recs {
		bird, rves := r.Verdicts["ex_bird"], r.Verdicts["rves"]
		if rves.Correct != bird.Correct || (rves.Details.(metric.RVESDetails).Reward == 0) == bird.Correct {
			t.Errorf("item %d: rves %+v disagrees with ex_bird %+v on the row sets", r.Index, rves, bird)
		}
	}

	fixture := filepath.Join("..", "metric", "testdata", "spider2")
	out2 := filepath.Join(dir, "out2")
	code, stdout, stderr = runMain(t, "eval", "--gold", filepath.Join(fixture, "gold.jsonl"), "--pred", filepath.Join(fixture, "predictions.jsonl"),
		"--db", filepath.Join(spider, "database"), "--metrics", "spider2", "--out", out2, "--progress", "never")
	if code != ExitOK {
		t.Fatalf("spider2: exit %d\n%s\n%s", code, stdout, stderr)
	}
	sum, err = report.ReadSummary(filepath.Join(out2, report.SummaryFile))
	if err != nil {
		t.Fatal(err)
	}
	if sp := sum.Overall["spider2"]; sp.Count != 28 || sp.Correct != 18 || sp.Status["pred_error"] != 1 || sp.Status["gold_error"] != 1 {
		t.Errorf("spider2 overall %+v; the official evaluator scores 18 of 28", sp)
	}
}

// TestSoftF1HeadlineIsTheMeanScore grades DIN-SQL's Spider dev predictions
// with soft_f1: the headline in summary.json, the console and the page is
// BIRD's Soft-F1, the mean score (0.8480 by the official mini-dev
// functions, testdata/oracle/soft_f1_din_sql.jsonl), and the share of items
// scoring 1 (0.8133) comes second, labelled all-or-nothing.
func TestSoftF1HeadlineIsTheMeanScore(t *testing.T) {
	spider := shareddata.Path(t, "spider")
	out := filepath.Join(t.TempDir(), "out")
	code, stdout, stderr := runMain(t, "eval", "--gold", filepath.Join(spider, "dev_gold.sql"),
		"--pred", filepath.Join(spider, "predictions", "din_sql.sql"), "--db", filepath.Join(spider, "database"),
		"--metrics", "soft_f1", "--out", out, "--progress", "never")
	if code != ExitOK {
		t.Fatalf("exit %d\n%s\n%s", code, stdout, stderr)
	}
	sum, err := report.ReadSummary(filepath.Join(out, report.SummaryFile))
	if err != nil {
		t.Fatal(err)
	}
	sf := sum.Overall["soft_f1"]
	if math.Abs(sf.Headline-0.8480) > 5e-5 || sf.HeadlineName != "Soft-F1" || math.Abs(sf.Accuracy-0.8133) > 5e-5 {
		t.Errorf("soft_f1 headline %s %.4f, accuracy %.4f; want Soft-F1 0.8480 (official mean), accuracy 0.8133", sf.HeadlineName, sf.Headline, sf.Accuracy)
	}
	if len(sf.FigureCI95) != 2 || !(sf.FigureCI95[0] < sf.Headline && sf.Headline < sf.FigureCI95[1]) {
		t.Errorf("soft_f1 interval %v around %v", sf.FigureCI95, sf.Headline)
	}
	lines := strings.Split(stdout, "\n")
	first, second := -1, -1
	for k, l := range lines {
		if strings.Contains(l, "soft_f1 Soft-F1 ") && first < 0 {
			first = k
		}
		if strings.Contains(l, "soft_f1 accuracy (all-or-nothing)") {
			second = k
		}
	}
	if first < 0 || second != first+1 || !strings.Contains(lines[first], "0.848") || !strings.Contains(lines[second], "0.813") {
		t.Errorf("console: want the Soft-F1 row (0.848) first, then the all-or-nothing row (0.813):\n%s", stdout)
	}
	if !strings.Contains(stdout, "soft_f1 Soft-F1: 0.8480, 95% bootstrap interval over 1034 items") {
		t.Errorf("console lacks the Soft-F1 interval line:\n%s", stdout)
	}
}

func TestEvalScoreMetricsUsage(t *testing.T) {
	spider := shareddata.SubsetPath(t, "spider")
	dir := t.TempDir()
	db := filepath.Join(spider, "database")
	fixture := filepath.Join("..", "metric", "testdata", "spider2")
	sp2 := []string{"--gold", filepath.Join(fixture, "gold.jsonl"), "--pred", filepath.Join(fixture, "predictions.jsonl"), "--db", db, "--out", dir}
	cases := []struct {
		name string
		args []string
		want string
	}{
		{"ves-repeats 0", []string{"eval", "--demo", "--metrics", "ves", "--ves-repeats", "0", "--out", dir}, "--ves-repeats must be at least 1"},
		{"ex on spider2 gold", append([]string{"eval", "--metrics", "spider2,ex"}, sp2...), "gold.jsonl:1: the gold is Spider 2.0 result CSVs, which only the spider2 metric grades; drop ex"},
		{"spider2 on SQL gold", []string{"eval", "--demo", "--metrics", "spider2", "--out", dir}, "spider2 compares with gold result CSVs"},
	}
	for _, c := range cases {
		code, _, stderr := runMain(t, c.args...)
		if code != ExitUsage || !strings.Contains(stderr, c.want) {
			t.Errorf("%s: exit %d, stderr %q; want exit %d with %q", c.name, code, stderr, ExitUsage, c.want)
		}
	}
}
