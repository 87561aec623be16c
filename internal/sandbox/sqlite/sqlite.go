// Package sqlite is equiv's SQLite sandbox: scratch SQLite files under a
// temporary folder, written through the read-write "sqlite3" driver and
// queried through sqljudge's read-only SQLite engine (engine/sqlite).
package sqlite

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
	"sync/atomic"

	_ "github.com/mattn/go-sqlite3" // the "sqlite3" driver, to write scratch databases

	"github.com/sqljudge/sqljudge/internal/engine"
	sqliteeng "github.com/sqljudge/sqljudge/internal/engine/sqlite"
	"github.com/sqljudge/sqljudge/internal/result"
	"github.com/sqljudge/sqljudge/internal/sandbox"
)

// Sandbox makes scratch SQLite files under a temporary folder. It never
// opens a file it did not create. It is safe for concurrent use.
type Sandbox struct {
	dir string
	eng *sqliteeng.Engine
	n   atomic.Int64
}

var _ sandbox.Sandbox = (*Sandbox)(nil)

// New returns a sandbox whose files live in a new temporary folder under
// dir ("" for the system's), removed by Close.
func New(dir string) (*Sandbox, error) {
	d, err := os.MkdirTemp(dir, "sqljudge-equiv-")
	if err != nil && dir == "" {
		return nil, fmt.Errorf("equiv needs a folder for its scratch databases and the temporary folder %s cannot hold one (%w): set TMPDIR to a writable folder", os.TempDir(), err)
	}
	if err != nil {
		return nil, err
	}
	return &Sandbox{dir: d, eng: sqliteeng.New("", sqliteeng.Options{MaxConns: 1, MaxRows: 10_000})}, nil
}

// Dir is the folder the scratch files live in.
func (s *Sandbox) Dir() string { return s.dir }

// Dialect returns engine.SQLite.
func (s *Sandbox) Dialect() engine.Dialect { return engine.SQLite }

// Close closes the engine and removes the folder.
func (s *Sandbox) Close() error {
	err := s.eng.Close()
	if rmErr := os.RemoveAll(s.dir); err == nil {
		err = rmErr
	}
	return err
}

// Open returns a scratch database: a new file with the DDL, kept open for
// writing; each Load replaces its rows in one transaction.
func (s *Sandbox) Open(ctx context.Context, ddl []string) (sandbox.Scratch, error) {
	path := filepath.Join(s.dir, fmt.Sprintf("s%d.sqlite", s.n.Add(1)))
	// journal_mode=MEMORY: no journal file, yet a failed Load rolls back.
	w, err := sql.Open("sqlite3", "file:"+path+"?_journal_mode=MEMORY&_sync=OFF")
	if err != nil {
		return nil, err
	}
	w.SetMaxOpenConns(1)
	sc := &scratch{sb: s, path: path, w: w}
	if err := sandbox.ExecInTx(ctx, w, ddl); err != nil {
		sc.Close()
		return nil, err
	}
	return sc, nil
}

type scratch struct {
	sb   *Sandbox
	path string
	w    *sql.DB
}

// Load empties the tables and inserts the rows (parameters) in one
// transaction, after closing the engine's read-only connections to the
// file (it opens the file immutable, so a connection must not outlive a
// change).
func (sc *scratch) Load(ctx context.Context, tables []sandbox.TableRows) error {
	_ = sc.sb.eng.Release(sc.path)
	tx, err := sc.w.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	if err := sandbox.LoadRows(ctx, engine.SQLite, tx, tables); err != nil {
		tx.Rollback()
		return err
	}
	return tx.Commit()
}

// Exec runs the statements in one transaction, each after checking that
// it is one statement (the driver would run a second one).
func (sc *scratch) Exec(ctx context.Context, stmts []string) error {
	_ = sc.sb.eng.Release(sc.path)
	return sandbox.ExecInTx(ctx, sc.w, stmts)
}

// Query runs q through the read-only SQLite engine.
func (sc *scratch) Query(ctx context.Context, q string) (*result.Set, error) {
	return sc.sb.eng.QueryFile(ctx, sc.path, q)
}

// Close closes the writer and the engine's connections and removes the
// file.
func (sc *scratch) Close() error {
	_ = sc.sb.eng.Release(sc.path)
	err := sc.w.Close()
	if rmErr := os.Remove(sc.path); err == nil && !os.IsNotExist(rmErr) {
		err = rmErr
	}
	return err
}
