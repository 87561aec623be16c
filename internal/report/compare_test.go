package report

import (
	"errors"
	"slices"
	"testing"

	"github.com/sqljudge/sqljudge/internal/metric"
	"github.com/sqljudge/sqljudge/internal/run"
	"github.com/sqljudge/sqljudge/internal/status"
)

// TestCompareRuns pairs two runs' verdicts by item: only-A/only-B counts
// and items, unjudged items left out, a metric of one run only skipped,
// the latest record of an item used, and runs of other items refused.
func TestCompareRuns(t *testing.T) {
	mk := func(i int, gold string, ex bool, judge status.Status) run.Record {
		return run.Record{Index: i, ID: string(rune('a' + i)), DBID: "db", Gold: gold, Verdicts: map[string]metric.Verdict{
			"ex":    {Correct: ex, Status: status.OK},
			"judge": {Correct: ex, Status: judge},
		}}
	}
	a := []run.Record{mk(0, "g0", true, status.OK), mk(1, "g1", true, status.JudgeError), mk(2, "g2", false, status.OK), mk(3, "g3", true, status.OK)}
	b := []run.Record{mk(0, "g0", false, status.OK), mk(1, "g1", false, status.OK), mk(2, "g2", true, status.OK), mk(3, "g3", false, status.OK), mk(3, "g3", true, status.OK)}
	delete(b[0].Verdicts, "judge")
	c, err := CompareRuns(a, b, []string{"ex", "judge", "em"})
	if err != nil {
		t.Fatal(err)
	}
	if c.Items != 4 || len(c.Metrics) != 2 {
		t.Fatalf("%+v", c)
	}
	ex, j := c.Metrics[0], c.Metrics[1]
	if ex.Metric != "ex" || ex.N != 4 || ex.OnlyA != 2 || ex.OnlyB != 1 || ex.BothRight != 1 || !slices.Equal(ex.OnlyAItems, []int{0, 1}) || !slices.Equal(ex.OnlyBItems, []int{2}) {
		t.Errorf("ex %+v", ex)
	}
	if ex.AccuracyA != 0.75 || ex.AccuracyB != 0.5 || ex.Diff.Value != 0.25 || ex.McNemarP != 1 {
		t.Errorf("ex %+v", ex)
	}
	// Item 0 has no judge verdict in b, item 1 is unjudged in a.
	if j.Metric != "judge" || j.N != 2 || j.Excluded != 2 || j.OnlyB != 1 || j.BothRight != 1 {
		t.Errorf("judge %+v", j)
	}
	for name, other := range map[string][]run.Record{
		"fewer items":   b[:3],
		"shuffled gold": {b[1], mk(0, "g1", false, status.OK), b[2], b[3]},
	} {
		if _, err := CompareRuns(a, other, nil); !errors.Is(err, ErrNotComparable) {
			t.Errorf("%s: %v, want ErrNotComparable", name, err)
		}
	}
}
