package cli

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sqljudge/sqljudge/internal/report"
)

// TestVerdictDecidedBy: --metrics verdict counts the items by the step
// that decided them, in summary.json and on the console (the demo: 15
// items ex rejects, 7 a witness refutes, 9 the search finds no witness
// for).
func TestVerdictDecidedBy(t *testing.T) {
	out := filepath.Join(t.TempDir(), "out")
	// The search ends at its bound (--equiv-max-databases), not at the
	// time budget, whatever the machine's load.
	code, stdout, stderr := runMain(t, "eval", "--demo", "--metrics", "verdict", "--equiv-budget", "10m", "--out", out, "--progress", "never")
	if code != ExitOK {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	sum, err := report.ReadSummary(filepath.Join(out, report.SummaryFile))
	if err != nil {
		t.Fatal(err)
	}
	got := sum.DecidedBy["verdict"]
	if line := fmt.Sprintf("note: verdict decided by: ex %d, equiv_no_witness %d, equiv_witness %d (of 31 items)", got["ex"], got["equiv_no_witness"], got["equiv_witness"]); !strings.Contains(stdout, line) {
		t.Errorf("console lacks %q:\n%s", line, stdout)
	}
	// A search that a query's timeout cut short (a loaded machine: CI runs
	// the packages' tests side by side) may miss its witness, and its
	// record says so (budget_exhausted); the split is then not fixed.
	records, err := os.ReadFile(filepath.Join(out, "results.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	if got["ex"] != 15 || got["equiv_witness"]+got["equiv_no_witness"] != 16 || len(got) != 3 {
		t.Errorf("decided_by %v, want ex 15 and 16 decided by the search", got)
	}
	if strings.Contains(string(records), `"budget_exhausted":true`) {
		t.Logf("a search was cut short by a time limit on this machine: decided_by %v", got)
		return
	}
	if want := map[string]int{"ex": 15, "equiv_witness": 7, "equiv_no_witness": 9}; fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("decided_by %v, want %v", got, want)
	}
}
