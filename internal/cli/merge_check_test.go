package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sqljudge/sqljudge/internal/outdir"
	"github.com/sqljudge/sqljudge/internal/report"
	"github.com/sqljudge/sqljudge/internal/run"
	"github.com/sqljudge/sqljudge/internal/shareddata"
)

// TestMergeRefusesShardsOfOtherRuns is issue 21.1: shards graded from
// other predictions, a shuffled gold, with and without --tables, or
// under other --keep-distinct, --em-fixed, --max-rows or --timeout are
// refused (exit 2, the differing fields listed as eval --resume lists
// them); so are an --out that is a shard folder and folders holding an
// empty summary or no record. Shards graded alike merge into a folder
// with its own fingerprint.json, on which eval --resume works.
func TestMergeRefusesShardsOfOtherRuns(t *testing.T) {
	spider := shareddata.Path(t, "spider")
	tmp := t.TempDir()
	gold, pred, db := spiderSubset(t, tmp, 12)
	tables := filepath.Join(spider, "tables.json")
	base := []string{"--db", db, "--metrics", "ex", "--progress", "never", "--html=false"}
	n := 0
	shard := func(i int, args ...string) string {
		t.Helper()
		n++
		out := filepath.Join(tmp, "s"+strings.Repeat("x", n))
		all := append([]string{"eval", "--shard", []string{"0/2", "1/2"}[i], "--out", out}, base...)
		all = append(all, args...)
		if code, stdout, stderr := runMain(t, all...); code != ExitOK {
			t.Fatalf("eval %v: exit %d\n%s\n%s", all, code, stdout, stderr)
		}
		return out
	}
	std := []string{"--gold", gold, "--pred", pred, "--tables", tables}
	with := func(extra ...string) []string { return append(append([]string{}, std...), extra...) }
	s0 := shard(0, std...)
	s0em := shard(0, with("--metrics", "ex,em")...)
	for _, c := range []struct {
		name  string
		first string
		args  []string
		want  string
	}{
		{"other predictions", s0, []string{"--gold", gold, "--pred", headFile(t, filepath.Join(spider, "predictions", "c3.sql"), tmp, "c3.sql", 12), "--tables", tables}, "pred: sha256:"},
		{"shuffled gold", s0, []string{"--gold", reversed(t, gold), "--pred", reversed(t, pred), "--tables", tables}, "gold: sha256:"},
		{"without --tables", s0, []string{"--gold", gold, "--pred", pred}, "tables: sha256:"},
		{"--keep-distinct", s0, with("--keep-distinct"), "keep_distinct: false -> true"},
		{"--em-fixed", s0em, with("--metrics", "ex,em", "--em-fixed"), "em_fixed: false -> true"},
		{"--max-rows", s0, with("--max-rows", "500"), "max_rows: 100000 -> 500"},
		{"--timeout", s0, with("--timeout", "7s"), "timeout: 30s -> 7s"},
	} {
		s1 := shard(1, c.args...)
		code, _, stderr := runMain(t, "merge", c.first, s1, "--out", filepath.Join(tmp, "merged-"+strings.Fields(c.name)[0]))
		if code != ExitUsage || !strings.Contains(stderr, "cannot merge") || !strings.Contains(stderr, c.want) {
			t.Errorf("%s: merge exit %d, stderr %q; want exit 2 listing %q", c.name, code, stderr, c.want)
		}
	}

	s1 := shard(1, std...)
	merged := filepath.Join(tmp, "merged")
	if code, stdout, stderr := runMain(t, "merge", s0, s1, "--out", merged); code != ExitOK {
		t.Fatalf("merge of like shards: exit %d\n%s\n%s", code, stdout, stderr)
	}
	if got, want := readFile(t, filepath.Join(merged, outdir.FingerprintFile)), readFile(t, filepath.Join(s0, outdir.FingerprintFile)); string(got) != string(want) {
		t.Errorf("merged fingerprint.json\n%s\nwant the shards'\n%s", got, want)
	}
	// Merged again with --overwrite and --html=false: no page of the
	// replaced merge stays.
	os.WriteFile(filepath.Join(merged, "report.html"), []byte("<p>an earlier merge</p>"), 0o644)
	if code, _, stderr := runMain(t, "merge", s0, s1, "--out", merged, "--overwrite", "--html=false"); code != ExitOK {
		t.Fatalf("merge --overwrite: %s", stderr)
	}
	if _, err := os.Stat(filepath.Join(merged, "report.html")); err == nil {
		t.Errorf("merge --overwrite --html=false left the earlier report.html")
	}
	resume := append([]string{"eval", "--resume", "--out", merged}, append(base, std...)...)
	if code, stdout, stderr := runMain(t, resume...); code != ExitOK {
		t.Fatalf("eval --resume on the merged folder: exit %d\n%s\n%s", code, stdout, stderr)
	}
	if sum, err := report.ReadSummary(filepath.Join(merged, report.SummaryFile)); err != nil || sum.Run.Graded != 0 || sum.Run.Resumed != 12 {
		t.Errorf("resumed merged run: %v %+v", err, sum)
	}

	empty := filepath.Join(tmp, "empty-summary")
	copyDir(t, s1, empty)
	os.WriteFile(filepath.Join(empty, report.SummaryFile), []byte("{}\n"), 0o644)
	locked := filepath.Join(tmp, "locked")
	os.MkdirAll(locked, 0o755)
	unlock, err := outdir.Lock(locked)
	if err != nil {
		t.Fatal(err)
	}
	defer unlock()
	norecs := filepath.Join(tmp, "no-records")
	copyDir(t, s1, norecs)
	os.WriteFile(filepath.Join(norecs, run.ResultsFile), nil, 0o644)
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{s0, s1, "--out", s0}, "is the shard folder"},
		{[]string{s0, s1, "--out", s1 + "/."}, "is the shard folder"},
		{[]string{s0, empty, "--out", filepath.Join(tmp, "m1")}, "no finished run"},
		{[]string{s0, norecs, "--out", filepath.Join(tmp, "m2")}, "holds no record"},
		{[]string{s0, s1, "--out", locked}, "another sqljudge run is writing to " + locked},
	} {
		before := readFile(t, filepath.Join(s0, run.ResultsFile))
		code, _, stderr := runMain(t, append([]string{"merge", "--overwrite"}, c.args...)...)
		if code != ExitUsage || !strings.Contains(stderr, c.want) {
			t.Errorf("merge %v: exit %d, stderr %q; want exit 2 and %q", c.args, code, stderr, c.want)
		}
		if string(before) != string(readFile(t, filepath.Join(s0, run.ResultsFile))) {
			t.Fatalf("merge %v changed a shard's records", c.args)
		}
	}
}

// copyDir copies the files of folder src into a new folder dst.
func copyDir(t *testing.T, src, dst string) {
	t.Helper()
	es, err := os.ReadDir(src)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(dst, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, e := range es {
		if e.Type().IsRegular() {
			if err := os.WriteFile(filepath.Join(dst, e.Name()), readFile(t, filepath.Join(src, e.Name())), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
}
