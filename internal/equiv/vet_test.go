package equiv

import (
	"context"
	"errors"
	"github.com/sqljudge/sqljudge/internal/outdir"
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

// TestResumeCutsATornRecord: a run killed mid-record leaves half a line in
// results.jsonl; --resume cuts it (outdir.ResumeJournal) before appending,
// so that a resumed run stopped in its turn still keeps every record it
// wrote. (Before, new records followed the torn bytes on the same line,
// and that line, unreadable, lost the first of them.)
func TestResumeCutsATornRecord(t *testing.T) {
	dir := t.TempDir()
	pairs := filepath.Join(dir, "pairs.jsonl")
	a := `"q1": "SELECT x FROM t", "q2": "SELECT x FROM t WHERE x > 0", "schema": "CREATE TABLE t (x INT)"}`
	if err := os.WriteFile(pairs, []byte(`{"id": "a", `+a+"\n"+`{"id": "a2", `+a+"\n"+
		`{"id": "b", "q1": "SELECT x FROM t", "q2": "SELECT DISTINCT x FROM t", "schema": "CREATE TABLE t (x INTEGER PRIMARY KEY)"}`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	lines, err := ReadPairs(pairs)
	if err != nil {
		t.Fatal(err)
	}
	o := CommandOptions{Pairs: pairs, Out: dir, Workers: 1, MaxDatabases: 50}
	if _, _, err := decideAll(context.Background(), o, newSQLite(t), "", lines, nil); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, ResultsFile)
	whole, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	first := strings.IndexByte(string(whole), '\n') + 1
	if err := os.WriteFile(path, whole[:first+15], 0o644); err != nil {
		t.Fatal(err)
	}
	prev, err := resumeRecords(path)
	if err != nil || len(prev) != 1 {
		t.Fatalf("resume read %v, %v; want pair a only", prev, err)
	}
	// Pair a2 opens twice; the third Open, pair b's, fails.
	sb := &setupFailing{Sandbox: newSQLite(t), failAt: 3}
	var se *sandbox.SetupError
	if _, _, err := decideAll(context.Background(), o, sb, "", lines, prev); !errors.As(err, &se) {
		t.Fatalf("resumed run: %v, want the setup error", err)
	}
	got, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	second := first + strings.IndexByte(string(whole[first:]), '\n') + 1
	if string(got) != string(whole[:second]) {
		t.Fatalf("results.jsonl after a resumed run that stopped:\n%s\nwant pairs a and a2 whole:\n%s", got, whole[:second])
	}
}

// TestCheckNeedsAnEquivFolder: equiv check on a folder without a
// fingerprint, or with another command's, is a usage error naming it.
func TestCheckNeedsAnEquivFolder(t *testing.T) {
	empty, other := t.TempDir(), t.TempDir()
	if err := os.WriteFile(filepath.Join(other, "fingerprint.json"), []byte(`{"version": "v1", "inputs": {}, "settings": {}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	for dir, want := range map[string]string{
		empty: "(is the folder the output of sqljudge equiv?)",
		other: filepath.Join(other, "fingerprint.json") + ": not the fingerprint of a sqljudge equiv run",
	} {
		var ue usage.Error
		err := RunCheck(context.Background(), CheckOptions{Out: dir, Pairs: "pairs.jsonl"}, &strings.Builder{})
		if !errors.As(err, &ue) || !strings.Contains(err.Error(), want) {
			t.Errorf("equiv check %s: %v, want a usage error saying %q", dir, err, want)
		}
	}
}

// TestCheckPostgresRunNeedsAServer: equiv check of a PostgreSQL run
// without --db, or with a folder, is a usage error asking for a
// postgres:// DSN: its proofs' renamings are read on the server, never
// passed on the kernel's word.
func TestCheckPostgresRunNeedsAServer(t *testing.T) {
	dir := t.TempDir()
	pairs := filepath.Join(dir, "pairs.jsonl")
	if err := os.WriteFile(pairs, []byte(`{"id": "a", "q1": "SELECT 1", "q2": "SELECT 1", "schema": "CREATE TABLE t (a INT)"}`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	h, err := outdir.FileHash(pairs)
	if err != nil {
		t.Fatal(err)
	}
	fp := `{"version": "equiv", "inputs": {"pairs": "` + h + `"}, "settings": {"engine": "postgres", "rule": "bag"}}`
	if err := os.WriteFile(filepath.Join(dir, "fingerprint.json"), []byte(fp), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, ResultsFile), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, db := range []string{"", dir} {
		var ue usage.Error
		err := RunCheck(context.Background(), CheckOptions{Out: dir, Pairs: pairs, DB: db}, &strings.Builder{})
		if !errors.As(err, &ue) || !strings.Contains(err.Error(), "postgres:// DSN") {
			t.Errorf("--db %q: %v, want a usage error asking for a postgres:// DSN", db, err)
		}
	}
}
