package cli

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/sqljudge/sqljudge/internal/shareddata"
)

// TestAuditCommand runs sqljudge audit on the committed Spider subset: it
// exits 0 with findings, prints the table by kind with examples and the
// output paths; a used --out is exit 2 without --overwrite, and so is a
// missing --gold or a bad --slow.
func TestAuditCommand(t *testing.T) {
	gold, db := shareddata.SubsetPath(t, "spider", "dev_gold.sql"), shareddata.SubsetPath(t, "spider", "database")
	out := filepath.Join(t.TempDir(), "audit")
	args := []string{"audit", "--gold", gold, "--db", db, "--progress", "never", "--out", out}
	code, stdout, stderr := runMain(t, args...)
	if code != ExitOK || !strings.Contains(stdout, "│ limit_ties   │") || !strings.Contains(stdout, "item 26 (id 26, concert_singer): LIMIT 1 keeps 1 of 2 rows") ||
		!strings.Contains(stdout, "findings: "+filepath.Join(out, "findings.jsonl")) {
		t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
	}
	if code, _, stderr = runMain(t, args...); code != ExitUsage || !strings.Contains(stderr, "holds an earlier audit; use --overwrite") {
		t.Errorf("a used --out: exit %d, %s", code, stderr)
	}
	if code, _, _ = runMain(t, append(args, "--overwrite")...); code != ExitOK {
		t.Errorf("--overwrite: exit %d", code)
	}
	if code, _, stderr = runMain(t, "audit", "--db", db); code != ExitUsage || !strings.Contains(stderr, "--gold is required") {
		t.Errorf("no --gold: exit %d, %s", code, stderr)
	}
	if code, _, stderr = runMain(t, "audit", "--gold", gold, "--db", db, "--slow", "2"); code != ExitUsage || !strings.Contains(stderr, "--slow") {
		t.Errorf("--slow 2: exit %d, %s", code, stderr)
	}
}
