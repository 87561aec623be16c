package open_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/sqljudge/sqljudge/internal/engine"
	"github.com/sqljudge/sqljudge/internal/equiv"
	"github.com/sqljudge/sqljudge/internal/sandbox/open"
	"github.com/sqljudge/sqljudge/internal/usage"
)

// TestOpen: "" is the SQLite sandbox, a DSN of another scheme a usage
// error, and duckdb: the DuckDB sandbox in a binary built with -tags duckdb
// and a usage error naming the tag otherwise.
func TestOpen(t *testing.T) {
	ctx := context.Background()
	sb, err := open.Open(ctx, "", open.Options{})
	if err != nil || sb.Dialect() != engine.SQLite {
		t.Fatalf(`Open(""): %v`, err)
	}
	sb.Close()
	var ue usage.Error
	if _, err := open.Open(ctx, "sqlite:x", open.Options{}); !errors.As(err, &ue) {
		t.Errorf("Open(sqlite:x): %v, want a usage error", err)
	}
	dir := t.TempDir()
	sb, err = open.Open(ctx, "duckdb:"+dir, open.Options{})
	switch {
	case err == nil:
		if sb.Dialect() != engine.DuckDB {
			t.Errorf("duckdb: gave a %s sandbox", sb.Dialect())
		}
		sb.Close()
	case !errors.As(err, &ue) || !strings.Contains(err.Error(), "-tags duckdb"):
		t.Errorf("duckdb: without the build tag: %v, want a usage error naming -tags duckdb", err)
	}
}

// TestDuckDBCommand runs `equiv --db duckdb:DIR`: with the sandbox this
// package registers in a binary built with -tags duckdb (CI runs it so),
// the verdicts and no scratch file left in DIR; without it, a usage error
// (exit 2) naming the tag and no record.
func TestDuckDBCommand(t *testing.T) {
	dir := t.TempDir()
	built := true
	if sb, err := open.Open(context.Background(), "duckdb:"+dir, open.Options{}); err != nil {
		built = false
	} else {
		sb.Close()
	}
	file := filepath.Join(dir, "pairs.jsonl")
	body := `{"id": "a", "q1": "SELECT x FROM t WHERE x > 1", "q2": "SELECT x FROM t WHERE x >= 1", "schema": "CREATE TABLE t (x INT PRIMARY KEY)"}
{"id": "b", "q1": "SELECT x FROM t WHERE y = y", "q2": "SELECT x FROM t", "schema": "CREATE TABLE t (x INT PRIMARY KEY, y INT NOT NULL)"}
{"id": "c", "q1": "SELECT 1", "q2": "SELECT 2", "schema": "CREATE TABLE t (x INT"}
`
	if err := os.WriteFile(file, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	scratch := filepath.Join(dir, "scratch")
	if err := os.Mkdir(scratch, 0o755); err != nil {
		t.Fatal(err)
	}
	var console strings.Builder
	out := filepath.Join(dir, "out")
	err := equiv.RunCommand(context.Background(), equiv.CommandOptions{Pairs: file, Out: out, DB: "duckdb:" + scratch, Seed: 1, Budget: 20 * time.Minute, MaxDatabases: 60} /* bounded by work, not by the load */, &console)
	if !built {
		var ue usage.Error
		if !errors.As(err, &ue) || !strings.Contains(err.Error(), "-tags duckdb") {
			t.Fatalf("equiv --db duckdb: without the tag: %v, want a usage error naming -tags duckdb", err)
		}
		if _, err := os.Stat(filepath.Join(out, equiv.ResultsFile)); err == nil {
			t.Fatal("records written by a refused run")
		}
		return
	}
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(out, equiv.ResultsFile))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	if len(lines) != 3 || !strings.HasPrefix(lines[0], `{"id":"a","verdict":"inequivalent"`) || !strings.HasPrefix(lines[1], `{"id":"b","verdict":"equivalent_bounded"`) || !strings.HasPrefix(lines[2], `{"id":"c","verdict":"unknown"`) {
		t.Fatalf("records:\n%s", b)
	}
	if left, _ := os.ReadDir(scratch); len(left) != 0 {
		t.Fatalf("scratch files left: %v", left)
	}
}
