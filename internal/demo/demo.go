// Package demo holds the demo benchmark embedded in the sqljudge binary: a
// small bookshop database built from bookshop.sql and 31 questions with gold
// and predicted SQL (bookshop.jsonl) whose predictions exercise every
// verdict: correct, reordered columns, an extra column, a wrong filter, an
// error, a timeout, a result past the row cap, a refused write and a gold
// that fails. `sqljudge eval --demo` grades it with no files at hand.
package demo

import (
	"database/sql"
	_ "embed"
	"fmt"
	"os"
	"path/filepath"

	_ "github.com/mattn/go-sqlite3" // registers "sqlite3", used only to build the demo database
)

//go:embed bookshop.sql
var schemaSQL string

//go:embed bookshop.jsonl
var questions []byte

// DBID is the db_id of the demo database.
const DBID = "bookshop"

// Files are the paths of a materialised demo benchmark.
type Files struct {
	// Gold is the JSONL benchmark with gold and predicted SQL.
	Gold string
	// DBDir is the database folder (DBDir/bookshop/bookshop.sqlite).
	DBDir string
}

// Materialize writes the demo benchmark under dir: the questions file and
// the database built from the embedded SQL script.
func Materialize(dir string) (Files, error) {
	f := Files{Gold: filepath.Join(dir, "bookshop.jsonl"), DBDir: filepath.Join(dir, "db")}
	dbFile := filepath.Join(f.DBDir, DBID, DBID+".sqlite")
	if err := os.MkdirAll(filepath.Dir(dbFile), 0o755); err != nil {
		return f, err
	}
	if err := os.WriteFile(f.Gold, questions, 0o644); err != nil {
		return f, err
	}
	_ = os.Remove(dbFile)
	db, err := sql.Open("sqlite3", dbFile)
	if err != nil {
		return f, err
	}
	defer db.Close()
	if _, err := db.Exec(schemaSQL); err != nil {
		return f, fmt.Errorf("building the demo database: %w", err)
	}
	return f, db.Close()
}
