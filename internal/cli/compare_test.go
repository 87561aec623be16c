package cli

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/sqljudge/sqljudge/internal/report"
	"github.com/sqljudge/sqljudge/internal/run"
	"github.com/sqljudge/sqljudge/internal/shareddata"
)

// TestReportCompareConsole is issue 21.4: report A --compare B without
// --html prints, per metric, both accuracies, A - B with its paired
// bootstrap interval, McNemar's exact p-value and the counts only A /
// only B gets right, here DIN-SQL against C3 on Spider dev EX.
func TestReportCompareConsole(t *testing.T) {
	spider := shareddata.Path(t, "spider")
	tmp := t.TempDir()
	out := map[string]string{}
	for _, sys := range []string{"din_sql", "c3"} {
		out[sys] = filepath.Join(tmp, sys)
		code, stdout, stderr := runMain(t, "eval", "--gold", filepath.Join(spider, "dev_gold.sql"),
			"--pred", filepath.Join(spider, "predictions", sys+".sql"), "--db", filepath.Join(spider, "database"),
			"--metrics", "ex", "--progress", "never", "--html=false", "--out", out[sys])
		if code != ExitOK {
			t.Fatalf("eval %s: exit %d\n%s\n%s", sys, code, stdout, stderr)
		}
	}
	code, stdout, stderr := runMain(t, "report", out["din_sql"], "--compare", out["c3"])
	if code != ExitOK {
		t.Fatalf("report --compare: exit %d\n%s\n%s", code, stdout, stderr)
	}
	t.Logf("a user sees:\n%s", stdout)
	// Count from the records what the row must say.
	a, _, _ := run.ReadRecords(filepath.Join(out["din_sql"], run.ResultsFile))
	b, _, _ := run.ReadRecords(filepath.Join(out["c3"], run.ResultsFile))
	onlyA, onlyB := 0, 0
	for i := range a {
		x, y := a[i].Verdicts["ex"].Correct, b[i].Verdicts["ex"].Correct
		if x && !y {
			onlyA++
		} else if y && !x {
			onlyB++
		}
	}
	sa, _ := report.ReadSummary(filepath.Join(out["din_sql"], report.SummaryFile))
	sb, _ := report.ReadSummary(filepath.Join(out["c3"], report.SummaryFile))
	if onlyA != 82 || onlyB != 70 {
		t.Fatalf("discordant pairs %d/%d: the test's scipy p-value is for 82/70", onlyA, onlyB)
	}
	// scipy.stats.binomtest(70, 152, 0.5).pvalue = 0.37233205154529386.
	row := regexp.MustCompile(`│ ex +│ +1034 │ +(\S+) │ +(\S+) │ +(\S+) │ +\[(\S+), (\S+)\] │ +(\S+) │ +(\d+) │ +(\d+) │`).FindStringSubmatch(stdout)
	if row == nil {
		t.Fatalf("no ex row in:\n%s", stdout)
	}
	want := []string{f4(sa.Overall["ex"].Accuracy), f4(sb.Overall["ex"].Accuracy), signed(sa.Overall["ex"].Accuracy - sb.Overall["ex"].Accuracy)}
	if !slices.Equal(row[1:4], want) || row[6] != "0.372" || row[7] != "82" || row[8] != "70" {
		t.Errorf("ex row %q; want accuracies and difference %q, p 0.372, only A 82, only B 70", row[1:], want)
	}
	lo, _ := strconv.ParseFloat(row[4], 64)
	hi, _ := strconv.ParseFloat(row[5], 64)
	if d := sa.Overall["ex"].Accuracy - sb.Overall["ex"].Accuracy; !(lo < d && d < hi) {
		t.Errorf("interval [%s, %s] does not hold %v", row[4], row[5], d)
	}
	c, err := report.CompareRuns(a, b, nil)
	if err != nil || len(c.Metrics) != 1 || c.Metrics[0].OnlyA != 82 || len(c.Metrics[0].OnlyBItems) != 70 {
		t.Fatalf("CompareRuns: %v %+v", err, c)
	}
	m := c.Metrics[0]
	if !(m.Diff.CI.Lo < m.Diff.Value && m.Diff.Value < m.Diff.CI.Hi) {
		t.Errorf("interval %v does not hold %v", m.Diff.CI, m.Diff.Value)
	}
}

func f4(x float64) string     { return fmt.Sprintf("%.4f", x) }
func signed(x float64) string { return fmt.Sprintf("%+.4f", x) }

// TestReportCompareOtherBenchmarkExit2 is issue 21.3: report --compare
// refuses (exit 2, with or without --html, writing no page) a run of
// the first 100 items against the whole of Spider dev, and a run of a
// shuffled copy of the gold against the gold.
func TestReportCompareOtherBenchmarkExit2(t *testing.T) {
	spider := shareddata.Path(t, "spider")
	tmp := t.TempDir()
	db := filepath.Join(spider, "database")
	eval := func(gold, pred, out string) string {
		t.Helper()
		out = filepath.Join(tmp, out)
		if code, stdout, stderr := runMain(t, "eval", "--gold", gold, "--pred", pred, "--db", db, "--metrics", "ex",
			"--progress", "never", "--html=false", "--out", out); code != ExitOK {
			t.Fatalf("eval %s: exit %d\n%s\n%s", out, code, stdout, stderr)
		}
		return out
	}
	gold := headFile(t, filepath.Join(spider, "dev_gold.sql"), tmp, "gold.sql", 100)
	pred := headFile(t, filepath.Join(spider, "predictions", "c3.sql"), tmp, "pred.sql", 100)
	first100 := eval(gold, pred, "first100")
	// The same 20 items with gold and predictions in reverse order.
	g20 := headFile(t, gold, tmp, "g20.sql", 20)
	p20 := headFile(t, pred, tmp, "p20.sql", 20)
	straight := eval(g20, p20, "straight")
	shuffled := eval(reversed(t, g20), reversed(t, p20), "shuffled")
	whole := filepath.Join(tmp, "whole")
	if code, _, stderr := runMain(t, "eval", "--gold", filepath.Join(spider, "dev_gold.sql"), "--pred", filepath.Join(spider, "predictions", "c3.sql"),
		"--db", db, "--metrics", "ex", "--progress", "never", "--html=false", "--out", whole); code != ExitOK {
		t.Fatalf("eval whole: %s", stderr)
	}
	page := filepath.Join(tmp, "cmp.html")
	for _, c := range []struct{ a, b, want string }{
		{whole, first100, "the runs hold 1034 and 100 items"},
		{straight, shuffled, "item 0 differs"},
	} {
		for _, html := range [][]string{nil, {"--html", page}} {
			code, stdout, stderr := runMain(t, append([]string{"report", c.a, "--compare", c.b}, html...)...)
			if code != ExitUsage || !strings.Contains(stderr, c.want) || stdout != "" {
				t.Errorf("report %s --compare %s %v: exit %d, stdout %q, stderr %q; want exit 2 and %q", c.a, c.b, html, code, stdout, stderr, c.want)
			}
			if _, err := os.Stat(page); err == nil {
				t.Fatalf("a refused comparison wrote %s", page)
			}
		}
	}
	if code, _, stderr := runMain(t, "report", straight, "--compare", straight); code != ExitOK {
		t.Errorf("a run against itself: exit %d %s", code, stderr)
	}
}

// reversed writes the lines of path (NAME.sql) in reverse order to
// NAME_rev.sql.
func reversed(t *testing.T, path string) string {
	t.Helper()
	lines := strings.SplitAfter(strings.TrimSuffix(string(readFile(t, path)), "\n"), "\n")
	for i := range lines {
		lines[i] = strings.TrimSuffix(lines[i], "\n")
	}
	slices.Reverse(lines)
	p := strings.TrimSuffix(path, ".sql") + "_rev.sql"
	if err := os.WriteFile(p, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestReportRefusesStaleSummary is issue 21.2 as a user met it: a
// folder whose summary.json counts 20 items over 7 records (left by an
// --overwrite run killed part way) prints no table: report exits 2
// saying the summary does not match results.jsonl.
func TestReportRefusesStaleSummary(t *testing.T) {
	dir := t.TempDir()
	gold, pred, db := spiderSubset(t, dir, 20)
	out := filepath.Join(dir, "out")
	if code, _, stderr := runMain(t, "eval", "--gold", gold, "--pred", pred, "--db", db, "--out", out, "--progress", "never"); code != ExitOK {
		t.Fatalf("eval: %s", stderr)
	}
	old := readFile(t, filepath.Join(out, report.SummaryFile))
	gold7 := headFile(t, gold, dir, "gold7.sql", 7)
	pred7 := headFile(t, pred, dir, "pred7.sql", 7)
	if code, _, stderr := runMain(t, "eval", "--gold", gold7, "--pred", pred7, "--db", db, "--out", out, "--progress", "never", "--overwrite"); code != ExitOK {
		t.Fatalf("eval --overwrite: %s", stderr)
	}
	if code, _, stderr := runMain(t, "report", out); code != ExitOK {
		t.Fatalf("report of a finished run: exit %d %s", code, stderr)
	}
	os.WriteFile(filepath.Join(out, report.SummaryFile), old, 0o644)
	code, stdout, stderr := runMain(t, "report", out)
	if code != ExitUsage || stdout != "" || !strings.Contains(stderr, "summary.json does not match results.jsonl: it counts 20 items, results.jsonl holds 7") {
		t.Errorf("report of a stale summary: exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
	t.Logf("a user sees:\n%s", stderr)
}
