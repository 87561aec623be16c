package catalog_test

import (
	"context"
	"database/sql"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/sqljudge/sqljudge/internal/catalog"
	"github.com/sqljudge/sqljudge/internal/dbload"
	"github.com/sqljudge/sqljudge/internal/shareddata"
)

// TestParseDDLSpiderMaster reads the sqlite_master of every Spider
// database of the shared data (157 files): the CREATE TABLE and CREATE
// INDEX statements as SQLite stores them, given to ParseDDL as one DDL
// text, must give the tables, columns, declared types, NOT NULLs, keys,
// UNIQUE sets and foreign keys that SQLite's PRAGMAs report.
func TestParseDDLSpiderMaster(t *testing.T) {
	files, err := filepath.Glob(filepath.Join(shareddata.Path(t, "spider", "database"), "*", "*.sqlite"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no Spider database (%v)", err)
	}
	for _, f := range files {
		compareMaster(t, f)
	}
	t.Logf("%d Spider databases, %d statements", len(files), masterStatements)
}

// TestParseDDLDefogMaster does the same on the 11 Defog databases loaded
// into SQLite (sqljudge db load).
func TestParseDDLDefogMaster(t *testing.T) {
	if testing.Short() {
		t.Skip("loads 11 databases: not with -short")
	}
	files := shareddata.DefogDumps(t)
	dumps, err := dbload.ReadDumps(files...)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if _, err := dbload.Load(context.Background(), "sqlite:"+dir, dumps, dbload.Options{}); err != nil {
		t.Fatal(err)
	}
	dbs, _ := filepath.Glob(filepath.Join(dir, "*.sqlite"))
	if len(dbs) != 11 {
		t.Fatalf("loaded %d databases, want 11", len(dbs))
	}
	for _, f := range dbs {
		compareMaster(t, f)
	}
	t.Logf("%d Defog databases", len(dbs))
}

// masterStatements counts the statements compareMaster read.
var masterStatements int

// compareMaster compares ParseDDL's reading of the file's sqlite_master
// statements with its PRAGMAs.
func compareMaster(t *testing.T, path string) {
	t.Helper()
	db, err := sql.Open("sqlite3", "file:"+path+"?mode=ro&immutable=1")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	stmts := queryStrings(t, db, "SELECT sql FROM sqlite_master WHERE type IN ('table', 'index') AND sql IS NOT NULL ORDER BY rowid")
	masterStatements += len(stmts)
	ddl := strings.Join(stmts, ";\n")
	parsed, err := catalog.ParseDDL(ddl)
	if err != nil {
		t.Errorf("%s: %v", filepath.Base(path), err)
		return
	}
	want, got := pragmaFacts(t, db), parsedFacts(parsed)
	if !slices.Equal(got, want) {
		t.Errorf("%s:\n%s", filepath.Base(path), factDiff(want, got))
	}
}

// factDiff lists the facts only SQLite or only ParseDDL has.
func factDiff(want, got sqliteFacts) string {
	var b strings.Builder
	for _, f := range want {
		if !slices.Contains(got, f) {
			fmt.Fprintf(&b, "  SQLite only:   %s\n", f)
		}
	}
	for _, f := range got {
		if !slices.Contains(want, f) {
			fmt.Fprintf(&b, "  ParseDDL only: %s\n", f)
		}
	}
	return b.String()
}
