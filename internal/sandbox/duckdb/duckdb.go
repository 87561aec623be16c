// Package duckdb is equiv's DuckDB sandbox: scratch DuckDB files in a
// temporary folder, written through the read-write driver and queried
// through sqljudge's read-only DuckDB engine (engine/duckdb). Only a
// binary built with -tags duckdb links it: sandbox/open's duckdb.go
// registers it for `--db duckdb:[DIR]`, as engine/open registers the
// DuckDB engine.
package duckdb

import (
	"context"
	"database/sql"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"sync/atomic"

	_ "github.com/duckdb/duckdb-go/v2" // the "duckdb" driver, to write scratch files

	"github.com/sqljudge/sqljudge/internal/engine"
	"github.com/sqljudge/sqljudge/internal/engine/duckdb"
	"github.com/sqljudge/sqljudge/internal/result"
	"github.com/sqljudge/sqljudge/internal/sandbox"
)

// Sandbox makes scratch DuckDB files under a temporary folder. It never
// opens a file it did not create. It is safe for concurrent use.
type Sandbox struct {
	dir string
	eng *duckdb.Engine
	n   atomic.Int64
}

var _ sandbox.Sandbox = (*Sandbox)(nil)

// New returns a sandbox whose files live in a new temporary folder under
// dir ("" for the system's), removed by Close.
func New(dir string) (*Sandbox, error) {
	d, err := os.MkdirTemp(dir, "sqljudge-equiv-")
	if err != nil {
		return nil, err
	}
	return &Sandbox{dir: d, eng: duckdb.New(d, duckdb.Options{MaxConns: 1, MaxRows: 10_000, MemoryLimit: "1GB"})}, nil
}

// Dir is the folder the scratch files live in.
func (s *Sandbox) Dir() string { return s.dir }

// Dialect returns engine.DuckDB.
func (s *Sandbox) Dialect() engine.Dialect { return engine.DuckDB }

// Close closes the engine and removes the folder.
func (s *Sandbox) Close() error {
	err := s.eng.Close()
	if rmErr := os.RemoveAll(s.dir); err == nil {
		err = rmErr
	}
	return err
}

// writerConfig is the configuration of the writer: no file, network or
// extension access from SQL (a CHECK of the pair's DDL runs there).
func writerConfig() string {
	v := url.Values{}
	v.Set("enable_external_access", "false")
	v.Set("autoinstall_known_extensions", "false")
	v.Set("autoload_known_extensions", "false")
	v.Set("memory_limit", "1GB")
	return v.Encode()
}

// scratch is one scratch file. It is never open for writing and for
// reading at once (DuckDB keeps one database per file and process): each
// Load opens a writer on the file, after the engine let go of it, and
// closes the writer before the engine reads the file again.
type scratch struct {
	sb   *Sandbox
	name string
	path string
}

// Open returns a scratch database: a new file holding the tables of ddl.
func (s *Sandbox) Open(ctx context.Context, ddl []string) (sandbox.Scratch, error) {
	name := fmt.Sprintf("s%d", s.n.Add(1))
	sc := &scratch{sb: s, name: name, path: filepath.Join(s.dir, name+".duckdb")}
	err := sc.write(ctx, func(w *sql.DB) error {
		return sandbox.ExecInTx(ctx, w, ddl)
	})
	if err != nil {
		sc.Close()
		return nil, err
	}
	return sc, nil
}

// Load empties the tables, referencing tables first, each DELETE in a
// transaction of its own (DuckDB checks a foreign key against the rows a
// transaction deleted as if they were still there, and a key against
// them too), then inserts the rows (parameters) in one transaction. A
// failed Load may leave the tables empty.
func (sc *scratch) Load(ctx context.Context, tables []sandbox.TableRows) error {
	return sc.write(ctx, func(w *sql.DB) error {
		for i := len(tables) - 1; i >= 0; i-- {
			if _, err := w.ExecContext(ctx, "DELETE FROM "+tables[i].Name); err != nil {
				return err
			}
		}
		tx, err := w.BeginTx(ctx, nil)
		if err != nil {
			return err
		}
		if err := sandbox.InsertRows(ctx, engine.DuckDB, tx, tables); err != nil {
			tx.Rollback()
			return err
		}
		return tx.Commit()
	})
}

// Exec runs the statements (a witness's script) in one transaction, each
// checked to be one statement (the driver would run a second one).
func (sc *scratch) Exec(ctx context.Context, stmts []string) error {
	return sc.write(ctx, func(w *sql.DB) error { return sandbox.ExecInTx(ctx, w, stmts) })
}

// write opens a writer on the file (created if missing), runs f and
// closes the writer.
func (sc *scratch) write(ctx context.Context, f func(*sql.DB) error) error {
	_ = sc.sb.eng.Release(sc.name)
	w, err := sql.Open("duckdb", sc.path+"?"+writerConfig())
	if err != nil {
		return err
	}
	w.SetMaxOpenConns(1)
	if err := f(w); err != nil {
		w.Close()
		return err
	}
	return w.Close()
}

// Query runs q through the read-only DuckDB engine.
func (sc *scratch) Query(ctx context.Context, q string) (*result.Set, error) {
	return sc.sb.eng.Query(ctx, sc.name, q)
}

// Close lets the engine's connections go and removes the file and its
// write-ahead log.
func (sc *scratch) Close() error {
	_ = sc.sb.eng.Release(sc.name)
	for _, p := range []string{sc.path, sc.path + ".wal"} {
		if err := os.Remove(p); err != nil && !os.IsNotExist(err) {
			return err
		}
	}
	return nil
}
