package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sqljudge/sqljudge/internal/shareddata"
)

// TestDBLoadSQLite builds the SQLite variant of Defog from its dumps with
// `db load` and refuses to overwrite it without --replace.
func TestDBLoadSQLite(t *testing.T) {
	dumps := shareddata.DefogDumps(t)
	dir := t.TempDir()
	code, stdout, stderr := runMain(t, append([]string{"db", "load", "--dsn", "sqlite:" + filepath.Join(dir, "db"), "--now", "2024-03-31T12:00:00Z"}, dumps...)...)
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if lines := strings.Split(strings.TrimSpace(stdout), "\n"); len(lines) != 11 || !strings.Contains(lines[0], "academic.sqlite: 15 tables, 70 rows") {
		t.Errorf("output:\n%s", stdout)
	}
	// Loading again refuses to overwrite, and names the file.
	code, _, stderr = runMain(t, "db", "load", "--dsn", "sqlite:"+filepath.Join(dir, "db"), dumps[0])
	if code != ExitUsage || !strings.Contains(stderr, "--replace") {
		t.Errorf("second load: exit %d, %s", code, stderr)
	}
}

func TestDBLoadBadInput(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.sql")
	if err := os.WriteFile(bad, []byte("CREATE TABLE t (a int);\nINSERT INTO t VALUES (random());\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"db", "load", bad}, "--dsn is required"},
		{[]string{"db", "load", "--dsn", dir, bad}, bad + ":2: t.a: unsupported function random()"},
		{[]string{"db", "load", "--dsn", dir, "--now", "yesterday", bad}, "--now \"yesterday\": want RFC 3339"},
		{[]string{"db", "load", "--dsn", dir, filepath.Join(dir, "missing.sql")}, "cannot read dump"},
		{[]string{"db", "load", "--dsn", "oracle://x", bad}, "unknown scheme"},
	} {
		code, _, stderr := runMain(t, c.args...)
		if code != ExitUsage || !strings.Contains(stderr, c.want) {
			t.Errorf("%v: exit %d, stderr %q, want exit %d and %q", c.args, code, stderr, ExitUsage, c.want)
		}
	}
}
