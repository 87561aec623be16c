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
// items ex rejects, 7 a witness refutes, 6 the prover proves, 3 the search
// finds no witness for, among them bookshop-29, whose sums of REAL prices
// the engine adds in the order of its join, which the two queries need
// not share; the 6 proofs need no SMT solver, so the counts are the same
// with or without Z3).
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
	if line := "note: verdict decided by: ex 15, equiv_witness 7, equiv_proved 6, "; !strings.Contains(stdout, line) {
		t.Errorf("console lacks %q:\n%s", line, stdout)
	}
	// A search that a time limit cut short (a loaded machine: CI runs the
	// packages' tests side by side) may miss its witness, and its record
	// says so: budget_exhausted, or "limited" when a query ran past its
	// timeout on some database; the split is then not fixed.
	records, err := os.ReadFile(filepath.Join(out, "results.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	if got["ex"] != 15 || got["equiv_proved"] != 6 || got["equiv_witness"]+got["equiv_no_witness"] != 10 || len(got) != 4 {
		t.Errorf("decided_by %v, want ex 15, equiv_proved 6 and 10 decided by the search", got)
	}
	if strings.Contains(string(records), `"budget_exhausted":true`) || strings.Contains(string(records), `"limited":{`) {
		t.Logf("a search was cut short by a time limit on this machine: decided_by %v", got)
		return
	}
	if want := map[string]int{"ex": 15, "equiv_proved": 6, "equiv_witness": 7, "equiv_no_witness": 3}; fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("decided_by %v, want %v", got, want)
	}
}

// TestEquivRestsOnAndAssume: eval's summary counts the equiv witnesses by
// what they rest on (as many counts as witnesses at least), names the
// assumption beside equiv's figures (console, summary), and
// --equiv-assume observed puts the assumptions in each record and the
// mode in the fingerprint, refuting no more items than declared.
func TestEquivRestsOnAndAssume(t *testing.T) {
	witnesses := map[string]int{}
	for _, a := range []string{"declared", "observed"} {
		out := filepath.Join(t.TempDir(), a)
		code, stdout, stderr := runMain(t, "eval", "--demo", "--metrics", "ex,equiv", "--equiv-assume", a, "--equiv-budget", "10m", "--out", out, "--progress", "never")
		if code != ExitOK {
			t.Fatalf("%s: exit %d\n%s", a, code, stderr)
		}
		sum, err := report.ReadSummary(filepath.Join(out, report.SummaryFile))
		if err != nil {
			t.Fatal(err)
		}
		records, err := os.ReadFile(filepath.Join(out, "results.jsonl"))
		if err != nil {
			t.Fatal(err)
		}
		witnesses[a] = strings.Count(string(records), `"witness":{`)
		total := 0
		for _, n := range sum.RestsOn["equiv"] {
			total += n
		}
		if witnesses[a] == 0 || total < witnesses[a] || !strings.Contains(stdout, "equiv (assume "+a+") witnesses (") {
			t.Errorf("%s: rests_on %v for %d witnesses; console:\n%s", a, sum.RestsOn, witnesses[a], stdout)
		}
		// The assumption stands beside every equiv figure: the score
		// table's row, the status table's row, the summary's scores and
		// the refutations of ex's correct items.
		if !strings.Contains(stdout, "│ equiv (assume "+a+") │") || strings.Count(stdout, "│ equiv (assume "+a+")") != 2 || sum.Overall["equiv"].Assume != a || sum.ByDifficulty["easy"]["equiv"].Assume != a ||
			sum.EquivRefutes["ex"].Assume != a || !strings.Contains(stdout, "note: equiv (assume "+a+") refutes ") {
			t.Errorf("%s: the assumption is not named beside equiv's figures; console:\n%s", a, stdout)
		}
		fp, err := os.ReadFile(filepath.Join(out, "fingerprint.json"))
		if err != nil {
			t.Fatal(err)
		}
		if observed := strings.Contains(string(fp), `"equiv_assume": "observed"`); observed != (a == "observed") {
			t.Errorf("%s: fingerprint %s", a, fp)
		}
		if has := strings.Contains(string(records), `"assumptions":["non_empty `); has != (a == "observed") {
			t.Errorf("%s: records with assumptions: %v", a, has)
		}
	}
	if witnesses["observed"] > witnesses["declared"] {
		t.Errorf("observed refutes %d items, declared %d", witnesses["observed"], witnesses["declared"])
	}
	if code, _, stderr := runMain(t, "eval", "--demo", "--metrics", "equiv", "--equiv-assume", "seen", "--out", filepath.Join(t.TempDir(), "x")); code != ExitUsage || !strings.Contains(stderr, "--equiv-assume") {
		t.Errorf("--equiv-assume seen: exit %d, %s", code, stderr)
	}
}
