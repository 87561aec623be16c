package cli

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sqljudge/sqljudge/internal/report"
)

// TestVerdictDecidedBy: --metrics verdict counts the items by the step
// that decided them, in summary.json and on the console (the demo: 15
// items ex rejects, 7 a witness refutes, 7 the prover proves, 2 the search
// finds no witness for; the 7 proofs need no SMT solver, so the counts are
// the same with or without Z3).
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
	want := map[string]int{"ex": 15, "equiv_witness": 7, "equiv_proved": 7, "equiv_no_witness": 2}
	if got := sum.DecidedBy["verdict"]; fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("decided_by %v, want %v", got, want)
	}
	if line := "note: verdict decided by: ex 15, equiv_proved 7, equiv_witness 7, equiv_no_witness 2 (of 31 items)"; !strings.Contains(stdout, line) {
		t.Errorf("console lacks %q:\n%s", line, stdout)
	}
}
