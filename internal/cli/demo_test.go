package cli

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestDemoTempFolder checks where --demo writes its benchmark and that it
// cleans up: with --out the folder is removed when the run ends (each run
// left a sqljudge-demo-* folder in /tmp); without a usable temporary
// folder (an empty container root has no /tmp) it is made beside --out,
// or in the current folder without --out, instead of failing with
// "stat /tmp: no such file or directory"; without --out the folder holds
// the output and stays.
func TestDemoTempFolder(t *testing.T) {
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	work := t.TempDir()
	if code, stdout, stderr := runMain(t, "eval", "--demo", "--out", filepath.Join(work, "out"), "--progress", "never"); code != ExitOK {
		t.Fatalf("exit %d\n%s\n%s", code, stdout, stderr)
	}
	wantEntries(t, tmp)
	wantEntries(t, work, "out")

	t.Setenv("TMPDIR", filepath.Join(tmp, "missing"))
	if code, stdout, stderr := runMain(t, "eval", "--demo", "--out", filepath.Join(work, "out2"), "--progress", "never"); code != ExitOK {
		t.Fatalf("no temporary folder: exit %d\n%s\n%s", code, stdout, stderr)
	}
	wantEntries(t, work, "out", "out2")
	if code, _, stderr := runMain(t, "eval", "--demo", "--metrics", "nope", "--out", filepath.Join(work, "out3")); code != ExitUsage {
		t.Fatalf("a usage error: exit %d\n%s", code, stderr)
	}
	wantEntries(t, work, "out", "out2")

	t.Chdir(work)
	code, stdout, stderr := runMain(t, "eval", "--demo", "--progress", "never")
	if code != ExitOK {
		t.Fatalf("no --out, no temporary folder: exit %d\n%s\n%s", code, stdout, stderr)
	}
	kept, _ := filepath.Glob(filepath.Join(work, "sqljudge-demo-*", "out", "summary.json"))
	if len(kept) != 1 || !strings.Contains(stdout, kept[0]) {
		t.Errorf("without --out the output stays in the demo folder and is named: %v\n%s", kept, stdout)
	}
}

// wantEntries checks that dir holds exactly the names given.
func wantEntries(t *testing.T, dir string, names ...string) {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range ents {
		got = append(got, e.Name())
	}
	if strings.Join(got, " ") != strings.Join(names, " ") {
		t.Errorf("%s holds %v, want %v", dir, got, names)
	}
}

// TestEvalListsOutputs: the console names every file a run writes for a
// reader, report.html included (it was never named), and not report.html
// under --html=false.
func TestEvalListsOutputs(t *testing.T) {
	out := filepath.Join(t.TempDir(), "out")
	code, stdout, stderr := runMain(t, "eval", "--demo", "--out", out, "--progress", "never")
	if code != ExitOK {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	want := fmt.Sprintf("records: %s\nsummary: %s\nreport:  %s\n", filepath.Join(out, "results.jsonl"), filepath.Join(out, "summary.json"), filepath.Join(out, "report.html"))
	if !strings.HasSuffix(stdout, want) {
		t.Errorf("console ends:\n%s\nwant:\n%s", tail(stdout), want)
	}
	if _, err := os.Stat(filepath.Join(out, "report.html")); err != nil {
		t.Error(err)
	}
	code, stdout, _ = runMain(t, "eval", "--demo", "--out", out, "--overwrite", "--html=false", "--progress", "never")
	if code != ExitOK || strings.Contains(stdout, "report.html") {
		t.Errorf("--html=false: exit %d, console names report.html:\n%s", code, tail(stdout))
	}
}

func tail(s string) string {
	if len(s) > 600 {
		return "…" + s[len(s)-600:]
	}
	return s
}
