package serve

import (
	"encoding/json"
	"path/filepath"
	"testing"
	"time"

	"github.com/sqljudge/sqljudge/internal/engine/sqlite"
	"github.com/sqljudge/sqljudge/internal/metric"
	"github.com/sqljudge/sqljudge/internal/shareddata"
)

// TestGradeEquiv grades with the equiv and verdict metrics (registered by
// package equiv, which serve imports as eval does) on Spider's
// concert_singer: "age > 35" returns the same singers as the gold's
// "age > 40" on the item's database (no singer is 36 to 40), so ex accepts
// it, but equiv finds a database with such a singer and rejects it; the
// gold itself is correct under both.
func TestGradeEquiv(t *testing.T) {
	eng := sqlite.New(shareddata.SubsetPath(t, "spider", "database"), sqlite.Options{})
	t.Cleanup(func() { eng.Close() })
	_, _, ts := newTestServer(t, Config{Engine: eng, MetricOptions: metric.Options{
		Equiv: metric.EquivOptions{Seed: 1, Budget: 5 * time.Second, MaxDatabases: 20}}})
	gold := Gold{"SELECT name FROM singer WHERE age > 40"}
	wrong, right := ptr("SELECT name FROM singer WHERE age > 35"), ptr("SELECT name FROM singer WHERE 40 < age")
	req := GradeRequest{Items: []GradeItem{
		{ID: json.RawMessage(`1`), DBID: "concert_singer", Gold: gold, Pred: wrong, Metric: "ex"},
		{ID: json.RawMessage(`2`), DBID: "concert_singer", Gold: gold, Pred: wrong, Metric: "equiv"},
		{ID: json.RawMessage(`3`), DBID: "concert_singer", Gold: gold, Pred: right, Metric: "equiv"},
		{ID: json.RawMessage(`4`), DBID: "concert_singer", Gold: gold, Pred: wrong, Metric: "verdict"},
	}}
	want := []Verdict{Correct, Wrong, Correct, Wrong}
	for i, r := range grade(t, ts.URL, req) {
		if r.Verdict != want[i] || r.Error != "" {
			t.Errorf("item %s (%s): %+v; want %s", req.Items[i].ID, req.Items[i].Metric, r, want[i])
		}
	}
}

// TestCloseRemovesScratchDatabases grades one item with equiv, whose metric
// keeps its scratch databases in a folder under TMPDIR, then closes the
// server: the folder is gone, and a metric asked for after Close is refused
// rather than built and never closed (each stopped server used to leave its
// sqljudge-equiv-* folder behind).
func TestCloseRemovesScratchDatabases(t *testing.T) {
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	eng := sqlite.New(shareddata.SubsetPath(t, "spider", "database"), sqlite.Options{})
	t.Cleanup(func() { eng.Close() })
	s, _, ts := newTestServer(t, Config{Engine: eng, MetricOptions: metric.Options{
		Equiv: metric.EquivOptions{Seed: 1, Budget: 5 * time.Second, MaxDatabases: 5}}})
	req := GradeRequest{Items: []GradeItem{{ID: json.RawMessage(`1`), DBID: "concert_singer",
		Gold: Gold{"SELECT count(*) FROM singer"}, Pred: ptr("SELECT count(*) FROM singer"), Metric: "equiv"}}}
	if r := grade(t, ts.URL, req); r[0].Verdict != Correct {
		t.Fatalf("%+v", r[0])
	}
	if n := scratchFolders(t, tmp); n != 1 {
		t.Fatalf("%d scratch folders while serving; want 1", n)
	}
	s.Close()
	if n := scratchFolders(t, tmp); n != 0 {
		t.Fatalf("%d scratch folders after Close; want 0", n)
	}
	if _, err := s.metric("equiv"); err == nil {
		t.Fatal("a metric was built after Close")
	}
}

func scratchFolders(t *testing.T, dir string) int {
	t.Helper()
	m, err := filepath.Glob(filepath.Join(dir, "sqljudge-equiv-*"))
	if err != nil {
		t.Fatal(err)
	}
	return len(m)
}
