package sqlite_test

import (
	"path/filepath"
	"testing"

	"github.com/sqljudge/sqljudge/internal/sandbox"
	"github.com/sqljudge/sqljudge/internal/sandbox/sandboxtest"
	"github.com/sqljudge/sqljudge/internal/sandbox/sqlite"
)

// TestSandboxSuite runs the shared sandbox suite on scratch SQLite files.
func TestSandboxSuite(t *testing.T) {
	sandboxtest.Run(t, sandboxtest.Config{
		New: func(t *testing.T) sandbox.Sandbox {
			sb, err := sqlite.New(t.TempDir())
			if err != nil {
				t.Fatal(err)
			}
			return sb
		},
		Fresh: sandboxtest.FreshSQLite,
		Leftovers: func(t *testing.T, sb sandbox.Sandbox) []string {
			files, err := filepath.Glob(filepath.Join(sb.(*sqlite.Sandbox).Dir(), "*"))
			if err != nil {
				t.Fatal(err)
			}
			return files
		},
	})
}
