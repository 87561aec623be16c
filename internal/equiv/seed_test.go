package equiv

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/sqljudge/sqljudge/internal/shareddata"
)

// TestSearchIndependentOfFolder: a pair on a database file searches the
// same databases wherever the file lies (the metric's pairs name the
// item's database by its path; the demo is materialised in a fresh
// temporary folder on every run): the same seed gives the same outcome
// on copies of the file in two folders. The seed once hashed the path,
// so the demo's verdicts changed from run to run.
func TestSearchIndependentOfFolder(t *testing.T) {
	src := shareddata.SubsetPath(t, "spider", "database", "concert_singer", "concert_singer.sqlite")
	b, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, dir := range []string{"a", "somewhere/else"} {
		p := filepath.Join(t.TempDir(), dir, "concert_singer", "concert_singer.sqlite")
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
		out, err := Decide(context.Background(), Pair{ID: "x", Q1: "SELECT DISTINCT country FROM singer", Q2: "SELECT country FROM singer", DB: p},
			Options{Sandbox: newSQLite(t), Seed: 1, Budget: time.Minute, MaxDatabases: 200, NoProof: true})
		if err != nil {
			t.Fatal(err)
		}
		if out.Witness == nil {
			t.Fatalf("%s: no witness (%s)", dir, out.Verdict)
		}
		got = append(got, fmt.Sprintf("%s %d %s", out.Verdict, out.Search.Databases, out.Witness.SQL))
	}
	if got[0] != got[1] {
		t.Fatalf("the same pair on copies of one file in two folders:\n%s\n%s", got[0], got[1])
	}
}
