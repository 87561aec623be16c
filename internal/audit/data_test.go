package audit_test

import (
	"context"
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
	out, err := dbload.ReadDumps(files...)
	if err != nil {
		t.Fatal(err)
	}
	return out
}
