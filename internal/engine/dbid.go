package engine

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// ErrBadDBID: a db_id that is not a database name (it holds a path
// separator, "..", or a NUL character, or is empty), or whose database
// file lies outside the engine's root folder once symlinks are resolved.
// A file engine (SQLite, DuckDB) refuses such a db_id before it opens
// anything, so that a db_id sent over the network (sqljudge serve) or read
// from a benchmark file (eval, generate) can never open a file outside
// --db.
var ErrBadDBID = errors.New("bad db_id")

// CheckDBID returns nil when db is a database name: not empty, without "/"
// or "\", without "..", without a NUL character. Otherwise it returns an
// error wrapping ErrBadDBID that states the rule broken.
func CheckDBID(db string) error {
	var why string
	switch {
	case db == "":
		why = "it is empty"
	case strings.ContainsAny(db, `/\`):
		why = `it holds a path separator ("/" or "\")`
	case strings.Contains(db, ".."):
		why = `it holds ".."`
	case strings.ContainsRune(db, 0):
		why = "it holds a NUL character"
	default:
		return nil
	}
	return fmt.Errorf("%w %q: a db_id must be a database name, not a path: %s", ErrBadDBID, db, why)
}

// FileWithin returns the file at path with every symlink resolved
// (filepath.EvalSymlinks), after checking that it lies inside the folder
// root, whose symlinks are resolved too. A file outside root (reached by a
// symlink inside it) is an error wrapping ErrBadDBID naming db; neither
// path is shown, so the message can go back to a network client. A path
// that cannot be resolved (it does not exist) is an error wrapping
// ErrNoDatabase.
func FileWithin(root, path, db string) (string, error) {
	rroot, err := filepath.EvalSymlinks(root)
	if err != nil {
		return "", fmt.Errorf("%w: %q: the database folder cannot be read", ErrNoDatabase, db)
	}
	rpath, err := filepath.EvalSymlinks(path)
	if err != nil {
		return "", fmt.Errorf("%w: %q: its file cannot be resolved", ErrNoDatabase, db)
	}
	rel, err := filepath.Rel(rroot, rpath)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) || filepath.IsAbs(rel) {
		return "", fmt.Errorf("%w %q: its database file lies outside the database folder (--db) once symlinks are resolved", ErrBadDBID, db)
	}
	if st, err := os.Stat(rpath); err != nil || !st.Mode().IsRegular() {
		return "", fmt.Errorf("%w: %q: not a regular file", ErrNoDatabase, db)
	}
	return rpath, nil
}
