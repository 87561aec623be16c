package cli

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/sqljudge/sqljudge/internal/report"
	"github.com/sqljudge/sqljudge/internal/run"
	"github.com/sqljudge/sqljudge/internal/shareddata"
)

// TestWrongTablesOrDatabasesExit2 is issue 21.9: --tables dev.json (the
// questions, not the schemas) is exit 2 naming the file; one database
// given for all of Spider (--db .../concert_singer.sqlite) makes most gold
// queries fail, and the run stops with exit 2 once they are the majority,
// saying the databases or tables are likely wrong, unless
// --allow-gold-errors. Ten items of another database, all failing, stop
// at the tenth.
func TestWrongTablesOrDatabasesExit2(t *testing.T) {
	spider := shareddata.Path(t, "spider")
	dir := t.TempDir()
	gold, pred, db := spiderSubset(t, dir, 120)
	base := []string{"eval", "--gold", gold, "--pred", pred, "--progress", "never", "--html=false"}

	dev := filepath.Join(spider, "dev.json")
	code, _, stderr := runMain(t, append(base, "--db", db, "--tables", dev, "--metrics", "ex,em", "--out", filepath.Join(dir, "tables"))...)
	if code != ExitUsage || !strings.Contains(stderr, dev+": entry 0 (concert_singer)") || !strings.Contains(stderr, "not a Spider tables.json entry") {
		t.Errorf("--tables dev.json: exit %d, stderr %q", code, stderr)
	}

	one := filepath.Join(db, "concert_singer", "concert_singer.sqlite")
	out := filepath.Join(dir, "onedb")
	code, _, stderr = runMain(t, append(base, "--db", one, "--out", out)...)
	if code != ExitUsage || !regexp.MustCompile(`: (\d+) of the first (\d+) items are gold_error for ex`).MatchString(stderr) || !strings.Contains(stderr, "--allow-gold-errors") {
		t.Fatalf("--db one database: exit %d, stderr %q", code, stderr)
	}
	t.Logf("a user sees:\n%s", stderr)
	recs, _, err := run.ReadRecords(filepath.Join(out, run.ResultsFile))
	// Items 0-44 are concert_singer's: the failures outnumber the rest
	// from item 90 on, and the run stops there, not after all 120.
	if err != nil || len(recs) < 90 || len(recs) >= 120 {
		t.Errorf("the stopped run wrote %d records (%v); want about 91, not all 120", len(recs), err)
	}
	// Items 45 on are of other databases: a run of 60 of them stops at
	// the 50th record, one of 10 at the 10th, one of 9 is not checked.
	for _, c := range []struct {
		n    int
		want string
	}{{60, "50 of the first 50 items"}, {10, "10 of the first 10 items"}, {9, ""}} {
		g := linesFile(t, gold, dir, "g.sql", 45, 45+c.n)
		p := linesFile(t, pred, dir, "p.sql", 45, 45+c.n)
		code, _, stderr := runMain(t, "eval", "--gold", g, "--pred", p, "--db", one, "--progress", "never", "--html=false", "--overwrite", "--out", filepath.Join(dir, "other"))
		if c.want == "" && code != ExitOK || c.want != "" && (code != ExitUsage || !strings.Contains(stderr, c.want)) {
			t.Errorf("%d items of other databases: exit %d, stderr %q; want %q", c.n, code, stderr, c.want)
		}
	}
	code, _, stderr = runMain(t, append(base, "--db", one, "--out", out, "--overwrite", "--allow-gold-errors")...)
	if code != ExitOK {
		t.Fatalf("--allow-gold-errors: exit %d %s", code, stderr)
	}
	sum, err := report.ReadSummary(filepath.Join(out, report.SummaryFile))
	if err != nil || sum.Items != 120 || 2*sum.Overall["ex"].Status["gold_error"] <= 120 {
		t.Errorf("with --allow-gold-errors: %v %+v", err, sum.Overall["ex"])
	}
}

// linesFile writes lines [from, to) of src to dir/dst and returns its path.
func linesFile(t *testing.T, src, dir, dst string, from, to int) string {
	t.Helper()
	lines := strings.SplitAfter(string(readFile(t, src)), "\n")
	p := filepath.Join(dir, dst)
	if err := os.WriteFile(p, []byte(strings.Join(lines[from:to], "")), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}
