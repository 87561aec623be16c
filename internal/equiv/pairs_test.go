package equiv_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sqljudge/sqljudge/internal/equiv"
	"github.com/sqljudge/sqljudge/internal/usage"
)

// TestReadPairsStrict checks the lines encoding/json took silently or
// refused without a line: each is a usage error "file:line: what was
// expected". A byte order mark at the start of the file is skipped.
func TestReadPairsStrict(t *testing.T) {
	const ok = `{"id": "a", "q1": "SELECT 1", "q2": "SELECT 2", "schema": "CREATE TABLE t (x INT)"}` + "\n"
	for _, c := range []struct{ name, body, want string }{
		{"key case", ok + `{"id": "b", "Q1": "SELECT 1", "q2": "SELECT 2", "schema": "x"}`, `:2: expected one JSON object {"id", "q1", "q2", "schema" or "db_id"}: unknown key "Q1" (keys are case-sensitive)`},
		{"key twice", ok + `{"id": "b", "q1": "SELECT 1", "q1": "SELECT 3", "q2": "SELECT 2", "schema": "x"}`, `:2: expected one JSON object {"id", "q1", "q2", "schema" or "db_id"}: key "q1" given twice`},
		{"invalid UTF-8", ok + "{\"id\": \"b\xe9\", \"q1\": \"SELECT 1\", \"q2\": \"SELECT 2\", \"schema\": \"x\"}", `:2: expected one JSON object {"id", "q1", "q2", "schema" or "db_id"}: invalid UTF-8 in a string in "id": expected UTF-8 text`},
		{"long line", ok + `{"id": "b", "q1": "` + strings.Repeat("x", 64<<20) + `"}`, `:2: line longer than 64 MiB, the longest line read`},
		{"BOM later", ok + "\ufeff" + ok, `:2: expected one JSON object`},
	} {
		path := filepath.Join(t.TempDir(), "pairs.jsonl")
		if err := os.WriteFile(path, []byte(c.body), 0o644); err != nil {
			t.Fatal(err)
		}
		_, err := equiv.ReadPairs(path)
		var ue usage.Error
		if !errors.As(err, &ue) || !strings.HasPrefix(err.Error(), path+c.want) {
			t.Errorf("%s: %v\nwant a usage error starting %s%s", c.name, clip(err), path, c.want)
		}
	}
	path := filepath.Join(t.TempDir(), "pairs.jsonl")
	if err := os.WriteFile(path, []byte("\ufeff"+ok), 0o644); err != nil {
		t.Fatal(err)
	}
	if ps, err := equiv.ReadPairs(path); err != nil || len(ps) != 1 || ps[0].ID != "a" || ps[0].Line != 1 {
		t.Errorf("a file starting with a BOM: %+v, %v", ps, err)
	}
}

func clip(err error) string {
	if err == nil {
		return "<nil>"
	}
	s := err.Error()
	if len(s) > 300 {
		s = s[:300] + "…"
	}
	return s
}
