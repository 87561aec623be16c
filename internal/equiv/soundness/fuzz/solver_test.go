package fuzz

import (
	"context"
	"fmt"
	"slices"
	"testing"

	"github.com/sqljudge/sqljudge/internal/catalog"
	"github.com/sqljudge/sqljudge/internal/engine"
	"github.com/sqljudge/sqljudge/internal/equiv"
	"github.com/sqljudge/sqljudge/internal/prove/check"
)

// TestZ3PoolAnswersAsZ3: the pooled solver the fuzzer runs gives the
// answers check.Z3 gives, call after call, on the obligations of the
// issue's example pairs the fixed kernel still proves (as the prover
// writes them) and on scripts that are unsat and sat; a script Z3 reports an error for is an error, after which it
// answers again.
func TestZ3PoolAnswersAsZ3(t *testing.T) {
	z, err := check.FindZ3()
	if err != nil {
		t.Skipf("skipped: %v", err)
	}
	var scripts []string
	for _, ex := range issueExamples() {
		db, err := catalog.ParseDDL(ex.s.script())
		if err != nil {
			t.Fatal(err)
		}
		if cert, _ := equiv.ProveQueries(context.Background(), ex.p.sql1, ex.p.sql2, db, engine.SQLite, equiv.RuleBag, z); cert != nil {
			for _, o := range cert.Obligations {
				scripts = append(scripts, o.SMT)
			}
		}
	}
	scripts = append(scripts, "(declare-const x Int)\n(assert (and (> x 2) (< x 1)))\n(check-sat)\n",
		"(declare-const x Int)\n(assert (> x 2))\n(check-sat)\n")
	want, err := z.Check(context.Background(), scripts)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(want, "sat") || !slices.Contains(want, "unsat") {
		t.Fatalf("Z3's answers %v hold no sat or no unsat", want)
	}
	p := check.NewZ3Pool(z, 1)
	defer p.Close()
	for round := range 2 {
		got, err := p.Check(context.Background(), scripts)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(got, want) {
			t.Fatalf("round %d: pooled %v, check.Z3 %v", round, got, want)
		}
	}
	if _, err := p.Check(context.Background(), []string{"(assert (undefined-symbol))\n(check-sat)\n"}); err == nil {
		t.Fatal("a script Z3 refuses gave no error")
	}
	if got, err := p.Check(context.Background(), scripts[len(scripts)-1:]); err != nil || fmt.Sprint(got) != "[sat]" {
		t.Fatalf("after an error: %v, %v", got, err)
	}
}
