package soundness

import (
	"context"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/sqljudge/sqljudge/internal/equiv"
	"github.com/sqljudge/sqljudge/internal/prove/check"
	sqlitesb "github.com/sqljudge/sqljudge/internal/sandbox/sqlite"
	"github.com/sqljudge/sqljudge/internal/testserver"
)

// Z3 returns Z3's executable; without it the test fails in CI
// (testserver.Required) and is skipped elsewhere, saying why.
func Z3(t *testing.T) check.Solver {
	t.Helper()
	z, err := check.FindZ3()
	if err != nil {
		if testserver.Required() {
			t.Fatalf("%v: CI must install z3 (.ci/run does)", err)
		}
		t.Skipf("skipped: %v", err)
	}
	return z
}

// Scale is the factor of the default database cap proved pairs are
// searched with: 10 in CI (testserver.Required), 1 elsewhere.
func Scale() int {
	if testserver.Required() {
		return 10
	}
	return 1
}

// Proved is a pair the prover proved, and its rule.
type Proved struct {
	Name string
	Pair equiv.Pair
	Rule equiv.Rule
}

// SearchAll searches each pair (two at a time) with the prover off, to
// maxDatabases databases, and fails the test on any witness: a pair both
// proved and refuted.
func SearchAll(t *testing.T, pairs []Proved, maxDatabases int) {
	t.Helper()
	sb, err := sqlitesb.New(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer sb.Close()
	sem := make(chan struct{}, 2)
	var wg sync.WaitGroup
	for _, p := range pairs {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer func() { <-sem; wg.Done() }()
			out, err := equiv.Decide(context.Background(), p.Pair, equiv.Options{NoProof: true, Sandbox: sb, Seed: 1, Rule: p.Rule, Budget: 10 * time.Minute, MaxDatabases: maxDatabases})
			if err != nil {
				t.Errorf("%s: %v", p.Name, err)
				return
			}
			if out.Verdict == equiv.Inequivalent {
				t.Errorf("%s: PROVED AND REFUTED\nq1: %s\nq2: %s\nwitness:\n%s", p.Name, p.Pair.Q1, p.Pair.Q2, out.Witness.SQL)
			}
		}()
	}
	wg.Wait()
}

// Lines returns the non-blank lines of a file.
func Lines(t *testing.T, path string) []string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, l := range strings.Split(string(b), "\n") {
		if strings.TrimSpace(l) != "" {
			out = append(out, l)
		}
	}
	return out
}
