package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sqljudge/sqljudge/internal/report"
	"github.com/sqljudge/sqljudge/internal/run"
	"github.com/sqljudge/sqljudge/internal/shareddata"
)

// The errors of issue 39 item 7: each says what to do.

// TestWrongArgumentCountExit2: a command given too few or too many
// arguments is the user's input, exit 2 with its usage line (it was exit 1
// with cobra's bare "accepts 1 arg(s), received 0").
func TestWrongArgumentCountExit2(t *testing.T) {
	for _, c := range []struct {
		args []string
		use  string
	}{
		{[]string{"report"}, "usage: sqljudge report OUT"},
		{[]string{"report", "a", "b"}, "usage: sqljudge report OUT"},
		{[]string{"merge"}, "usage: sqljudge merge"},
		{[]string{"equiv", "check"}, "usage: sqljudge equiv check OUT"},
		{[]string{"equiv", "check", "a", "b"}, "usage: sqljudge equiv check OUT"},
		{[]string{"audit", "extra"}, "usage: sqljudge audit"},
	} {
		code, _, stderr := runMain(t, c.args...)
		if code != ExitUsage || !strings.Contains(stderr, c.use) || !strings.Contains(stderr, "--help") {
			t.Errorf("%v: exit %d, stderr %q; want %d with %q", c.args, code, stderr, ExitUsage, c.use)
		}
	}
}

// TestEquivCheckWithoutDB: equiv check of a run whose proved pairs name a
// database by db_id, without --db, says the flag is missing (exit 2)
// instead of "proofs do not check"; with it, they check.
func TestEquivCheckWithoutDB(t *testing.T) {
	dir := t.TempDir()
	pairs := filepath.Join(dir, "pairs.jsonl")
	body := `{"id": "p1", "db_id": "concert_singer", "q1": "SELECT count(*) FROM singer", "q2": "SELECT COUNT(*) FROM singer AS s"}` + "\n"
	if err := os.WriteFile(pairs, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	db := shareddata.SubsetPath(t, "spider", "database")
	out := filepath.Join(dir, "out")
	if code, stdout, stderr := runMain(t, "equiv", "--pairs", pairs, "--db", db, "--out", out); code != ExitOK || !strings.Contains(stdout, "equivalent_proved") {
		t.Fatalf("equiv: exit %d\n%s\n%s", code, stdout, stderr)
	}
	code, stdout, stderr := runMain(t, "equiv", "check", out, "--pairs", pairs)
	if code != ExitUsage || !strings.Contains(stderr, "--db is missing") || strings.Contains(stderr+stdout, "do not check") {
		t.Errorf("without --db: exit %d\n%s\n%s", code, stdout, stderr)
	}
	if code, stdout, stderr := runMain(t, "equiv", "check", out, "--pairs", pairs, "--db", db); code != ExitOK || !strings.Contains(stdout, "1 proofs checked, all valid") {
		t.Errorf("with --db: exit %d\n%s\n%s", code, stdout, stderr)
	}
}

// TestReportOnOtherFolders: report on the folder of equiv, audit or a test
// suite says what the folder holds and which command reads it (exit 2),
// instead of a JSON error about summary.json.
func TestReportOnOtherFolders(t *testing.T) {
	dir := t.TempDir()
	pairs := filepath.Join(dir, "pairs.jsonl")
	body := `{"id": "p1", "q1": "SELECT a FROM t", "q2": "SELECT a FROM t WHERE a > 0", "schema": "CREATE TABLE t (a INT)"}` + "\n"
	if err := os.WriteFile(pairs, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	eq := filepath.Join(dir, "equiv")
	if code, _, stderr := runMain(t, "equiv", "--pairs", pairs, "--out", eq); code != ExitOK {
		t.Fatalf("equiv: exit %d %s", code, stderr)
	}
	gold, db := shareddata.SubsetPath(t, "spider", "dev_gold.sql"), shareddata.SubsetPath(t, "spider", "database")
	au := filepath.Join(dir, "audit")
	if code, _, stderr := runMain(t, "audit", "--gold", gold, "--db", db, "--out", au, "--progress", "never"); code != ExitOK {
		t.Fatalf("audit: exit %d %s", code, stderr)
	}
	for folder, want := range map[string]string{
		eq: "holds the output of sqljudge equiv (pairs of queries decided, not a benchmark graded): its proofs are re-checked by sqljudge equiv check",
		au: "holds the findings of sqljudge audit",
	} {
		code, _, stderr := runMain(t, "report", folder)
		if code != ExitUsage || !strings.Contains(stderr, want) || strings.Contains(stderr, "json:") {
			t.Errorf("report %s: exit %d, %q; want %q", folder, code, stderr, want)
		}
	}
}

// TestMissingDBFolder: a --db folder that does not exist is exit 2 saying
// what --db wants, not a bare stat error.
func TestMissingDBFolder(t *testing.T) {
	dir := t.TempDir()
	gold, pred, _ := spiderSubset(t, dir, 3)
	missing := filepath.Join(dir, "no", "database")
	for _, args := range [][]string{
		{"eval", "--gold", gold, "--pred", pred, "--db", missing, "--out", filepath.Join(dir, "out")},
		{"audit", "--gold", gold, "--db", missing},
	} {
		code, _, stderr := runMain(t, args...)
		if code != ExitUsage || !strings.Contains(stderr, missing+" does not exist: want the folder of the benchmark's SQLite databases") || strings.Contains(stderr, "stat ") {
			t.Errorf("%s: exit %d, %q", args[0], code, stderr)
		}
	}
}

// TestEquivFlagsNeedEquiv: an --equiv-* flag set in a run without equiv or
// verdict is refused (exit 2), as --em-fixed without em is; with verdict it
// is taken.
func TestEquivFlagsNeedEquiv(t *testing.T) {
	dir := t.TempDir()
	gold, pred, db := spiderSubset(t, dir, 3)
	base := []string{"eval", "--gold", gold, "--pred", pred, "--db", db, "--progress", "never", "--html=false"}
	for _, flag := range []string{"--equiv-budget=3s", "--equiv-seed=2", "--equiv-max-databases=10", "--equiv-assume=observed"} {
		code, _, stderr := runMain(t, append(base, "--metrics", "ex", flag, "--out", filepath.Join(dir, "a"))...)
		name, _, _ := strings.Cut(flag, "=")
		if code != ExitUsage || !strings.Contains(stderr, name+" sets how equiv or verdict grades: add equiv or verdict to --metrics") {
			t.Errorf("%s without equiv: exit %d, %q", flag, code, stderr)
		}
	}
	if code, _, stderr := runMain(t, append(base, "--metrics", "verdict", "--equiv-max-databases=10", "--out", filepath.Join(dir, "b"))...); code != ExitOK {
		t.Errorf("--equiv-max-databases with verdict: exit %d, %s", code, stderr)
	}
}

// TestEmptyPredictionSaid: an empty prediction line is named in the
// console and the summary, and em's detail says the prediction is empty
// before the official parser's IndexError.
func TestEmptyPredictionSaid(t *testing.T) {
	dir := t.TempDir()
	spider := shareddata.SubsetPath(t, "spider")
	gold := headFile(t, filepath.Join(spider, "dev_gold.sql"), dir, "gold.sql", 3)
	pred := filepath.Join(dir, "pred.sql")
	if err := os.WriteFile(pred, []byte("SELECT count(*) FROM singer\n\nSELECT name FROM singer\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "out")
	code, stdout, stderr := runMain(t, "eval", "--gold", gold, "--pred", pred, "--db", filepath.Join(spider, "database"), "--tables", filepath.Join(spider, "tables.json"),
		"--metrics", "ex,em", "--out", out, "--progress", "never", "--html=false")
	if code != ExitOK || !strings.Contains(stdout, "note: 1 of the 3 predictions is empty (a blank line of the prediction file, or only comments): items 1;") {
		t.Fatalf("exit %d\n%s\n%s", code, stdout, stderr)
	}
	sum, err := report.ReadSummary(filepath.Join(out, report.SummaryFile))
	if err != nil || sum.EmptyPredictions != 1 {
		t.Errorf("summary: %v, empty_predictions %d", err, sum.EmptyPredictions)
	}
	recs, _, err := run.ReadRecords(filepath.Join(out, run.ResultsFile))
	if err != nil {
		t.Fatal(err)
	}
	if d := recs[1].Verdicts["em"].Detail; !strings.HasPrefix(d, "empty prediction: no statement (") || !strings.Contains(d, "IndexError") {
		t.Errorf("em detail %q", d)
	}
}

// TestEquivWithoutTempFolder: equiv where the temporary folder is missing
// (a container root without /tmp) says to set TMPDIR.
func TestEquivWithoutTempFolder(t *testing.T) {
	dir := t.TempDir()
	pairs := filepath.Join(dir, "pairs.jsonl")
	if err := os.WriteFile(pairs, []byte(`{"id": "p1", "q1": "SELECT a FROM t", "q2": "SELECT a FROM t", "schema": "CREATE TABLE t (a INT)"}`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Setenv("TMPDIR", filepath.Join(dir, "no-tmp"))
	code, _, stderr := runMain(t, "equiv", "--pairs", pairs, "--out", filepath.Join(dir, "out"))
	if code == ExitOK || !strings.Contains(stderr, "set TMPDIR to a writable folder") {
		t.Errorf("exit %d, %q", code, stderr)
	}
}
