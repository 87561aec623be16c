package equiv

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/sqljudge/sqljudge/internal/sandbox"
	"github.com/sqljudge/sqljudge/internal/testserver"
	"github.com/sqljudge/sqljudge/internal/usage"
)

// TestPostgresSetupIsAUsageError: equiv with a role that cannot create
// databases stops before any pair, with a usage error (exit 2) and no
// record written (the sandbox's vetting is sandbox/postgres's test).
func TestPostgresSetupIsAUsageError(t *testing.T) {
	server := testserver.Postgres(t)
	noCreate, _ := testserver.PostgresRole(t, server, "")
	out := filepath.Join(t.TempDir(), "out")
	pairs := filepath.Join(t.TempDir(), "pairs.jsonl")
	if err := os.WriteFile(pairs, []byte(`{"id": "a", "q1": "SELECT x FROM t", "q2": "SELECT x FROM t WHERE x > 0", "schema": "CREATE TABLE t (x INT)"}`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	var ue usage.Error
	if err := RunCommand(context.Background(), CommandOptions{Pairs: pairs, Out: out, DB: noCreate}, &strings.Builder{}); !errors.As(err, &ue) || !strings.Contains(err.Error(), "may not create databases") {
		t.Errorf("equiv with a role that cannot create databases: %v, want a usage error (exit 2)", err)
	}
	if _, err := os.Stat(filepath.Join(out, ResultsFile)); err == nil {
		t.Errorf("a setup failure left records in %s", out)
	}
}

// setupFailing fails the Open numbered failAt with a *sandbox.SetupError, as a
// server that refuses CREATE DATABASE mid-run would.
type setupFailing struct {
	sandbox.Sandbox
	failAt int64
	opens  atomic.Int64
}

func (s *setupFailing) Open(ctx context.Context, ddl []string) (sandbox.Scratch, error) {
	if s.opens.Add(1) == s.failAt {
		return nil, &sandbox.SetupError{Err: errors.New("permission denied to create database")}
	}
	return s.Sandbox.Open(ctx, ddl)
}

// TestSetupFailureIsNotAVerdict: a scratch database that cannot be made
// mid-run stops the run with the error; the pairs decided before keep
// their records, the pair that met the failure gets none, and --resume
// decides it once the server is fixed.
func TestSetupFailureIsNotAVerdict(t *testing.T) {
	dir := t.TempDir()
	pairs := filepath.Join(dir, "pairs.jsonl")
	if err := os.WriteFile(pairs, []byte(`{"id": "a", "q1": "SELECT x FROM t", "q2": "SELECT x FROM t WHERE x > 0", "schema": "CREATE TABLE t (x INT)"}
{"id": "b", "q1": "SELECT x FROM t", "q2": "SELECT DISTINCT x FROM t", "schema": "CREATE TABLE t (x INTEGER PRIMARY KEY)"}
`), 0o644); err != nil {
		t.Fatal(err)
	}
	lines, err := ReadPairs(pairs)
	if err != nil {
		t.Fatal(err)
	}
	o := CommandOptions{Pairs: pairs, Out: dir, Workers: 1, MaxDatabases: 50}
	// Pair a opens twice (its search and its witness's re-verification);
	// the third Open is pair b's.
	sb := &setupFailing{Sandbox: newSQLite(t), failAt: 3}
	_, _, err = decideAll(context.Background(), o, sb, "", lines, nil)
	var se *sandbox.SetupError
	if !errors.As(err, &se) {
		t.Fatalf("decideAll: %v, want the setup error", err)
	}
	recs, err := readRecords(filepath.Join(dir, ResultsFile))
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := recs["a"]; !ok || len(recs) != 1 {
		t.Fatalf("records after the failure: %v, want pair a's only", recs)
	}
	all, _, err := decideAll(context.Background(), o, newSQLite(t), "", lines, recs)
	if err != nil || len(all) != 2 || all[1].Verdict != EquivalentProved {
		t.Fatalf("resumed: %v, %+v", err, all)
	}
}
