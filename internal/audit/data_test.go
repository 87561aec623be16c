package audit_test

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/sqljudge/sqljudge/internal/dbload"
	"github.com/sqljudge/sqljudge/internal/shareddata"
)

// academicSQLite loads the committed Defog academic dump into SQLite files
// in a temporary folder, as `sqljudge db load --dsn sqlite:DIR` does, and
// returns the folder.
func academicSQLite(t *testing.T) string {
	t.Helper()
	return loadSQLite(t, shareddata.SubsetPath(t, "defog", "defog_data", "academic", "academic.sql"))
}

// loadSQLite loads PostgreSQL dumps into SQLite files in a temporary
// folder and returns it.
func loadSQLite(t *testing.T, files ...string) string {
	t.Helper()
	dir := t.TempDir()
	if _, err := dbload.Load(context.Background(), "sqlite:"+dir, readDumps(t, files), dbload.Options{}); err != nil {
		t.Fatal(err)
	}
	return dir
}

// readDumps reads PostgreSQL dump files.
func readDumps(t *testing.T, files []string) []*dbload.Dump {
	t.Helper()
	var out []*dbload.Dump
	for _, f := range files {
		d, err := dbload.ReadDump(f)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, d)
	}
	return out
}

// defogDumps returns the 11 Defog dumps of the full data.
func defogDumps(t *testing.T) []string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(shareddata.Path(t, "defog", "defog_data"), "*", "*.sql"))
	if err != nil || len(files) != 11 {
		t.Fatalf("want the 11 Defog dumps, found %d (%v)", len(files), err)
	}
	return files
}
