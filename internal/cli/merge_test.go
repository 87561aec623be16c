package cli

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/sqljudge/sqljudge/internal/report"
	"github.com/sqljudge/sqljudge/internal/report/htmlreport"
	"github.com/sqljudge/sqljudge/internal/run"
	"github.com/sqljudge/sqljudge/internal/shareddata"
)

// TestShardsMergeToSingleRun grades Spider dev (DIN-SQL's predictions, ex
// and em by hardness, with the partial table) once whole and once in four
// shards run out of order, one of them interrupted and resumed, and
// checks that merge gives the single run's records byte for byte and its
// summary's counts, accuracies and partial table.
func TestShardsMergeToSingleRun(t *testing.T) {
	spider := shareddata.SubsetPath(t, "spider")
	base := []string{"eval",
		"--gold", filepath.Join(spider, "dev_gold.sql"),
		"--pred", filepath.Join(spider, "predictions", "din_sql.sql"),
		"--db", filepath.Join(spider, "database"),
		"--tables", filepath.Join(spider, "tables.json"),
		"--metrics", "ex,em", "--partial", "--progress", "never", "--html=false"}
	tmp := t.TempDir()
	eval := func(args ...string) {
		t.Helper()
		if code, stdout, stderr := runMain(t, append(append([]string{}, base...), args...)...); code != ExitOK {
			t.Fatalf("eval %v: exit %d\n%s\n%s", args, code, stdout, stderr)
		}
	}
	single := filepath.Join(tmp, "single")
	eval("--out", single)

	var shards []string
	for _, i := range []int{3, 1, 0, 2} {
		out := filepath.Join(tmp, fmt.Sprintf("shard%d", i))
		eval("--shard", fmt.Sprintf("%d/4", i), "--out", out)
		recs, _, err := run.ReadRecords(filepath.Join(out, run.ResultsFile))
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range recs {
			if r.Index%4 != i {
				t.Fatalf("shard %d/4 holds item %d", i, r.Index)
			}
		}
		if want := (shareddata.SubsetItems - i + 3) / 4; len(recs) != want {
			t.Fatalf("shard %d/4 has %d records, want %d", i, len(recs), want)
		}
		shards = append(shards, out)
	}
	// Cut shard 1 short (as a killed run leaves it) and resume it: the
	// runner finds shard items by their global index.
	p1 := filepath.Join(tmp, "shard1", run.ResultsFile)
	b, err := os.ReadFile(p1)
	if err != nil {
		t.Fatal(err)
	}
	full := string(b)
	lines := strings.SplitAfter(full, "\n")
	cut := strings.Join(lines[:20], "") + lines[20][:10]
	if err := os.WriteFile(p1, []byte(cut), 0o644); err != nil {
		t.Fatal(err)
	}
	eval("--shard", "1/4", "--resume", "--out", filepath.Join(tmp, "shard1"))
	if b, _ := os.ReadFile(p1); string(b) != full {
		t.Fatalf("resumed shard 1/4 differs from its first run")
	}

	merged := filepath.Join(tmp, "merged")
	code, stdout, stderr := runMain(t, append([]string{"merge", "--out", merged}, shards...)...)
	if code != ExitOK {
		t.Fatalf("merge: exit %d\n%s\n%s", code, stdout, stderr)
	}
	want, _ := os.ReadFile(filepath.Join(single, run.ResultsFile))
	got, _ := os.ReadFile(filepath.Join(merged, run.ResultsFile))
	if len(want) == 0 || !bytes.Equal(want, got) {
		t.Fatalf("merged results.jsonl (%d bytes) differs from the single run's (%d bytes)", len(got), len(want))
	}
	if _, err := os.Stat(filepath.Join(merged, htmlreport.File)); err != nil {
		t.Errorf("merge wrote no HTML report: %v", err)
	}
	ws, err := report.ReadSummary(filepath.Join(single, report.SummaryFile))
	if err != nil {
		t.Fatal(err)
	}
	gs, err := report.ReadSummary(filepath.Join(merged, report.SummaryFile))
	if err != nil {
		t.Fatal(err)
	}
	if gs.Items != shareddata.SubsetItems || !reflect.DeepEqual(ws.Overall, gs.Overall) || !reflect.DeepEqual(ws.ByDifficulty, gs.ByDifficulty) ||
		!reflect.DeepEqual(ws.Difficulties, gs.Difficulties) || !reflect.DeepEqual(ws.Partial, gs.Partial) {
		t.Fatalf("merged summary differs from the single run's:\n%+v\n%+v", gs.Overall, ws.Overall)
	}
	if gs.Run.Difficulty != "spider_hardness" || gs.Run.Graded+gs.Run.Resumed != shareddata.SubsetItems || gs.Run.Shard != "" {
		t.Errorf("merged run block %v", gs.Run)
	}

	// Input mistakes are exit 2 with a message naming the problem.
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{shards[0], shards[1], shards[2]}, "shard 2/4 is missing"},
		{[]string{shards[0], shards[1], shards[2], shards[3], shards[0]}, "are both shard 3/4"},
		{[]string{single, shards[0]}, "is in both"},
		{[]string{filepath.Join(tmp, "nowhere")}, "no finished run"},
	} {
		code, _, stderr := runMain(t, append([]string{"merge", "--out", filepath.Join(tmp, "bad")}, c.args...)...)
		if code != ExitUsage || !strings.Contains(stderr, c.want) {
			t.Errorf("merge %v: exit %d, %q; want exit 2 and %q", c.args, code, stderr, c.want)
		}
	}
	if code, _, stderr := runMain(t, append(append([]string{}, base...), "--shard", "4/4", "--out", filepath.Join(tmp, "x"))...); code != ExitUsage || !strings.Contains(stderr, "0 <= i < n") {
		t.Errorf("--shard 4/4: exit %d, %q", code, stderr)
	}
}
