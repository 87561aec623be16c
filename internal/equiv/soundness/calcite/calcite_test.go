package calcite_test

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/sqljudge/sqljudge/internal/engine"
	"github.com/sqljudge/sqljudge/internal/equiv"
	"github.com/sqljudge/sqljudge/internal/equiv/soundness"
)

// TestProvedCalcitePairsNotRefuted: every Calcite pair (VeriEQL's
// development set, internal/equiv/testdata/calcite) the prover proves on
// SQLite survives a search of 10x DefaultMaxDatabases databases (in CI);
// the pairs the search refutes are among the 397, so none may be proved.
func TestProvedCalcitePairsNotRefuted(t *testing.T) {
	z := soundness.Z3(t)
	lines, err := equiv.ReadPairs(filepath.FromSlash("../../testdata/calcite/pairs.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	var ps []soundness.Proved
	for _, l := range lines {
		p := equiv.Pair{ID: l.ID, Q1: l.Q1, Q2: l.Q2, Schema: l.Schema}
		s, err := equiv.ReadSchema(context.Background(), p)
		if err != nil {
			continue
		}
		if cert, _ := equiv.ProveQueries(context.Background(), p.Q1, p.Q2, s, engine.SQLite, equiv.RuleBag, z); cert != nil {
			ps = append(ps, soundness.Proved{Name: l.ID, Pair: p, Rule: equiv.RuleBag})
		}
	}
	// A floor, so that a prover that proves nothing does not pass.
	if len(ps) < 50 {
		t.Errorf("%d Calcite pairs proved, want at least 50", len(ps))
	}
	t.Logf("%d of %d Calcite pairs proved; searching each to %d databases", len(ps), len(lines), soundness.Scale()*equiv.DefaultMaxDatabases)
	soundness.SearchAll(t, ps, soundness.Scale()*equiv.DefaultMaxDatabases)
}
