package cli

import (
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/sqljudge/sqljudge/internal/report"
	"github.com/sqljudge/sqljudge/internal/shareddata"
)

// TestAuditCommand runs sqljudge audit on the committed Spider subset: it
// exits 0 with findings, prints the table by kind with examples and the
// output paths; a used --out is exit 2 without --overwrite, and so is a
// missing --gold or a bad --slow.
func TestAuditCommand(t *testing.T) {
	gold, db := shareddata.SubsetPath(t, "spider", "dev_gold.sql"), shareddata.SubsetPath(t, "spider", "database")
	out := filepath.Join(t.TempDir(), "audit")
	args := []string{"audit", "--gold", gold, "--db", db, "--progress", "never", "--out", out}
	code, stdout, stderr := runMain(t, args...)
	if code != ExitOK || !strings.Contains(stdout, "│ limit_ties     │       10 │") || !strings.Contains(stdout, "item 26 (id 26, concert_singer): LIMIT 1 keeps 1 of 2 rows") ||
		!strings.Contains(stdout, "findings: "+filepath.Join(out, "findings.jsonl")) {
		t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
	}
	if code, _, stderr = runMain(t, args...); code != ExitUsage || !strings.Contains(stderr, "holds an earlier audit; use --overwrite") {
		t.Errorf("a used --out: exit %d, %s", code, stderr)
	}
	if code, _, _ = runMain(t, append(args, "--overwrite")...); code != ExitOK {
		t.Errorf("--overwrite: exit %d", code)
	}
	if code, _, stderr = runMain(t, "audit", "--db", db); code != ExitUsage || !strings.Contains(stderr, "--gold is required") {
		t.Errorf("no --gold: exit %d, %s", code, stderr)
	}
	if code, _, stderr = runMain(t, "audit", "--gold", gold, "--db", db, "--slow", "2"); code != ExitUsage || !strings.Contains(stderr, "--slow") {
		t.Errorf("--slow 2: exit %d, %s", code, stderr)
	}
}

// TestMergeCountsGoldHazards grades the Spider subset with --audit whole
// and in two shards: the merged summary counts the gold hazards of the
// records as the single run's does.
func TestMergeCountsGoldHazards(t *testing.T) {
	spider := shareddata.SubsetPath(t, "spider")
	tmp := t.TempDir()
	base := []string{"eval", "--gold", filepath.Join(spider, "dev_gold.sql"), "--pred", filepath.Join(spider, "predictions", "din_sql.sql"),
		"--db", filepath.Join(spider, "database"), "--audit", "--progress", "never", "--html=false"}
	var outs []string
	for _, shard := range []string{"", "0/2", "1/2"} {
		out := filepath.Join(tmp, "run"+strings.ReplaceAll(shard, "/", "of"))
		args := append(append([]string{}, base...), "--out", out)
		if shard != "" {
			args = append(args, "--shard", shard)
		}
		if code, stdout, stderr := runMain(t, args...); code != ExitOK || shard == "" && !strings.Contains(stdout, "gold audit: 22 of 179 items have gold hazards (empty 4, limit_ties 10, float_order 2, text_numbers 8)") {
			t.Fatalf("eval %s: exit %d\n%s\n%s", shard, code, stdout, stderr)
		}
		outs = append(outs, out)
	}
	merged := filepath.Join(tmp, "merged")
	if code, stdout, stderr := runMain(t, "merge", "--out", merged, outs[1], outs[2]); code != ExitOK {
		t.Fatalf("merge: exit %d\n%s\n%s", code, stdout, stderr)
	}
	want, err := report.ReadSummary(filepath.Join(outs[0], report.SummaryFile))
	if err != nil {
		t.Fatal(err)
	}
	got, err := report.ReadSummary(filepath.Join(merged, report.SummaryFile))
	if err != nil {
		t.Fatal(err)
	}
	if want.GoldHazards == nil || !reflect.DeepEqual(got.GoldHazards, want.GoldHazards) || !got.Run.Audit {
		t.Errorf("merged gold_hazards %+v, single run's %+v", got.GoldHazards, want.GoldHazards)
	}
}
