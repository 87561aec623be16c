package equiv

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/sqljudge/sqljudge/internal/catalog"
	"github.com/sqljudge/sqljudge/internal/engine"
	"github.com/sqljudge/sqljudge/internal/prove"
	"github.com/sqljudge/sqljudge/internal/prove/check"
	"github.com/sqljudge/sqljudge/internal/prove/explain"
)

// nameCauses are the root causes of issue 37 in the kernel's name
// resolution (R1-R4), which the engine's reading must catch.
var nameCauses = []string{"R1", "R2", "R3", "R4"}

// misreadCertificate is the certificate a kernel with its name
// resolution fix reverted wrote for an R1-R4 pair: it read q1 as q2's
// canonical form (the output alias inside an ORDER BY expression, a
// double-quoted alias or rowid name taken for a string), so q1's renaming
// step ends at q2's canonical text and the method is identical.
func misreadCertificate(t *testing.T, q1, q2 string, s check.Schema) *check.Certificate {
	t.Helper()
	nf, err := check.Rename(q2, s, "a")
	if err != nil {
		t.Fatalf("q2 has no canonical form: %v", err)
	}
	c := &check.Certificate{Kernel: check.KernelVersion, Method: check.MethodIdentical,
		NormalForms: check.NormalForms{Q1: nf, Q2: nf}, Columns: []int{}, Obligations: []check.Obligation{}}
	c.Q1Steps = []check.Step{{Rule: check.RuleRename, At: -1, Before: q1, After: nf}}
	if q2 != nf {
		c.Q2Steps = []check.Step{{Rule: check.RuleRename, At: -1, Before: q2, After: nf}}
	}
	return c
}

// nameCausePairs returns the SQLite pairs of wrongProofsFile whose root
// cause is one of R1-R4, each with its schema.
func nameCausePairs(t *testing.T) []wrongProof {
	var out []wrongProof
	for _, w := range readWrongProofs(t) {
		if slices.Contains(nameCauses, w.Cause) && slices.Contains(w.Engines, "sqlite") {
			out = append(out, w)
		}
	}
	for _, c := range nameCauses {
		if !slices.ContainsFunc(out, func(w wrongProof) bool { return w.Cause == c }) {
			t.Fatalf("no SQLite pair of %s in %s", c, wrongProofsFile)
		}
	}
	return out
}

// TestEngineReadingCatchesMisreadNames: for every R1-R4 pair, SQLite
// compiles q1 and the fixed kernel's renaming of it alike (R4's fix
// refuses rowid names: no renaming), and q1 and the
// renaming a kernel with the fix reverted wrote (q2's canonical text)
// otherwise: explain.Validate refuses that certificate, naming q1's
// renaming step.
func TestEngineReadingCatchesMisreadNames(t *testing.T) {
	ctx := context.Background()
	for _, w := range nameCausePairs(t) {
		t.Run(w.ID, func(t *testing.T) {
			db, err := catalog.ParseDDL(w.Schema)
			if err != nil {
				t.Fatal(err)
			}
			s := proveSchema(db, engine.SQLite)
			sc, err := explain.NewScratch(ctx, db.CreateStatements(engine.SQLite))
			if err != nil {
				t.Fatal(err)
			}
			defer sc.Close()
			var ref *check.Refusal
			switch r1, err := check.Rename(w.Q1, s, "a"); {
			case errors.As(err, &ref):
				t.Logf("the fixed kernel refuses q1: %v", err) // R4: rowid names
			case err != nil:
				t.Fatal(err)
			default:
				if err := sc.SameReading(ctx, w.Q1, r1); err != nil {
					t.Errorf("the fixed kernel's renaming of q1 is not SQLite's reading: %v", err)
				}
			}
			err = explain.Validate(ctx, sc, misreadCertificate(t, w.Q1, w.Q2, s))
			var m *explain.Mismatch
			if !errors.As(err, &m) || m.Where != "q1 step 1 (rename)" {
				t.Fatalf("the misread renaming passes: %v", err)
			}
			t.Logf("%s: %v", w.Cause, err)
		})
	}
}

// TestProveQueriesRefusesMisreadNames: with a prover whose kernel reads
// names as before the fixes of R1-R4 (a test hook writing the misread
// certificate), ProveQueries gives no proof, stopped by "engine
// reading"; and equiv check, with a kernel that accepts the misread
// renaming, still fails the record.
func TestProveQueriesRefusesMisreadNames(t *testing.T) {
	ctx := context.Background()
	for _, w := range nameCausePairs(t) {
		t.Run(w.ID, func(t *testing.T) {
			db, err := catalog.ParseDDL(w.Schema)
			if err != nil {
				t.Fatal(err)
			}
			cert := misreadCertificate(t, w.Q1, w.Q2, proveSchema(db, engine.SQLite))
			defer func(f func(context.Context, string, string, prove.Schema, prove.Options) prove.Attempt) {
				proveFunc = f
			}(proveFunc)
			proveFunc = func(context.Context, string, string, prove.Schema, prove.Options) prove.Attempt {
				return prove.Attempt{Certificate: cert}
			}
			got, note := ProveQueries(ctx, w.Q1, w.Q2, db, engine.SQLite, Rule(w.Rule), nil)
			if got != nil || note.StoppedBy != StoppedByEngineReading || !strings.Contains(note.Detail, "q1 step 1 (rename)") {
				t.Errorf("the misread proof is kept: %+v", note)
			}
			defer func(f func(context.Context, check.Input, *check.Certificate) error) { kernelCheck = f }(kernelCheck)
			kernelCheck = func(context.Context, check.Input, *check.Certificate) error { return nil }
			rec := Record{ID: w.ID, Outcome: Outcome{Proof: cert}}
			pairs := map[string]PairLine{w.ID: {ID: w.ID, Schema: w.Schema, Q1: w.Q1, Q2: w.Q2}}
			err = checkRecord(ctx, rec, pairs, "", nil, engine.SQLite, w.Rule, nil, nil)
			var m *explain.Mismatch
			if !errors.As(err, &m) {
				t.Errorf("equiv check accepts the misread proof: %v", err)
			}
		})
	}
}

// TestSpiderRenamingsReadAlike: on every EX-correct DIN-SQL item of
// Spider dev, the kernel's renaming of the gold and of the prediction (when
// it has one) compiles on SQLite, over the item's tables, to the same
// program as the query: the validation costs no proof there.
func TestSpiderRenamingsReadAlike(t *testing.T) {
	ctx := context.Background()
	ids, pairs := spiderDIN(t)
	same := 0
	for _, i := range ids {
		p := pairs[i]
		db, err := ReadSchema(ctx, p)
		if err != nil {
			t.Fatal(err)
		}
		s := proveSchema(db, engine.SQLite)
		sc, err := explain.NewScratch(ctx, db.CreateStatements(engine.SQLite))
		if err != nil {
			t.Fatal(err)
		}
		for _, q := range []string{p.Q1, p.Q2} {
			r, err := check.Rename(q, s, "a")
			if err != nil {
				continue // the kernel refuses it: no proof rests on it
			}
			if err := sc.SameReading(ctx, q, r); err != nil {
				t.Errorf("item %d: %v", i, err)
			}
			same++
		}
		sc.Close()
	}
	if same < len(ids) {
		t.Errorf("only %d renamings of %d items compared", same, len(ids))
	}
	t.Logf("%d renamings of %d items read alike", same, len(ids))
}
