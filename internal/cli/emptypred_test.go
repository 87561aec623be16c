package cli

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/sqljudge/sqljudge/internal/demo"
	"github.com/sqljudge/sqljudge/internal/run"
)

// TestEmptyPredictionDetail: an empty prediction (a blank line of a
// prediction file, "pred": "") is graded as a query returning no rows, as
// the official evaluators run it; its record says so in each verdict's
// detail instead of a bare wrong (or, against a gold with no rows,
// correct) verdict.
func TestEmptyPredictionDetail(t *testing.T) {
	dir := t.TempDir()
	files, err := demo.Materialize(filepath.Join(dir, "in"))
	if err != nil {
		t.Fatal(err)
	}
	gold := filepath.Join(dir, "b.jsonl")
	body := `{"id": "e", "db_id": "bookshop", "gold": "SELECT 1", "pred": ""}
{"id": "c", "db_id": "bookshop", "gold": "SELECT 1 WHERE 0", "pred": "  -- nothing\n"}
{"id": "p", "db_id": "bookshop", "gold": "SELECT 1", "pred": "SELECT 1"}
`
	if err := os.WriteFile(gold, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "out")
	if code, stdout, stderr := runMain(t, "eval", "--gold", gold, "--db", files.DBDir, "--metrics", "ex,ex_bird", "--out", out, "--progress", "never"); code != ExitOK {
		t.Fatalf("exit %d\n%s\n%s", code, stdout, stderr)
	}
	recs, _, err := run.ReadRecords(filepath.Join(out, run.ResultsFile))
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"e": emptyDetail, "c": emptyDetail, "p": ""}
	for _, r := range recs {
		for m, v := range r.Verdicts {
			if v.Detail != want[r.ID] {
				t.Errorf("item %s, %s: detail %q, want %q", r.ID, m, v.Detail, want[r.ID])
			}
		}
	}
}

const emptyDetail = "empty prediction: no statement, graded as a query returning no rows"
