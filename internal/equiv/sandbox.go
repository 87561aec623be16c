package equiv

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"

	_ "github.com/mattn/go-sqlite3" // the "sqlite3" driver, to write scratch databases

	"github.com/sqljudge/sqljudge/internal/engine"
	"github.com/sqljudge/sqljudge/internal/engine/sqlite"
	"github.com/sqljudge/sqljudge/internal/result"
	"github.com/sqljudge/sqljudge/internal/sqllex"
)

// Sandbox makes scratch databases on one engine: the only databases equiv
// writes. It never opens a database it did not create. Implementations are
// safe for concurrent use.
type Sandbox interface {
	// Dialect is the engine's SQL dialect.
	Dialect() engine.Dialect
	// Open creates an empty scratch database and runs the statements of
	// ddl in it. Its error is the engine's (the DDL is the caller's input).
	Open(ctx context.Context, ddl []string) (Scratch, error)
	// Close releases what the sandbox holds (not the scratch databases,
	// which their Close drops).
	Close() error
}

// Scratch is one scratch database of a Sandbox, used by one goroutine.
type Scratch interface {
	// Load replaces the rows of every table with those the INSERT
	// statements add (tables are the tables' names as quoted SQL
	// identifiers of the dialect); an error (a constraint the engine enforces) leaves
	// the database unusable until the next successful Load.
	Load(ctx context.Context, tables []string, inserts []string) error
	// Query runs one read-only query through the engine.
	Query(ctx context.Context, q string) (*result.Set, error)
	// Close drops the scratch database.
	Close() error
}

// SQLiteSandbox makes scratch SQLite files under a temporary folder,
// written through the read-write "sqlite3" driver and queried through
// sqljudge's read-only SQLite engine (package sqlite).
type SQLiteSandbox struct {
	dir string
	eng *sqlite.Engine
	n   atomic.Int64
}

var _ Sandbox = (*SQLiteSandbox)(nil)

// NewSQLiteSandbox returns a sandbox whose files live in a new temporary
// folder under dir ("" for the system's), removed by Close.
func NewSQLiteSandbox(dir string) (*SQLiteSandbox, error) {
	d, err := os.MkdirTemp(dir, "sqljudge-equiv-")
	if err != nil {
		return nil, err
	}
	return &SQLiteSandbox{dir: d, eng: sqlite.New("", sqlite.Options{MaxConns: 1, MaxRows: 10_000})}, nil
}

// Dialect returns engine.SQLite.
func (s *SQLiteSandbox) Dialect() engine.Dialect { return engine.SQLite }

// Close closes the engine and removes the folder.
func (s *SQLiteSandbox) Close() error {
	err := s.eng.Close()
	if rmErr := os.RemoveAll(s.dir); err == nil {
		err = rmErr
	}
	return err
}

// Open returns a scratch database: a new file with the DDL, kept open for
// writing; each Load replaces its rows in one transaction.
func (s *SQLiteSandbox) Open(ctx context.Context, ddl []string) (Scratch, error) {
	path := filepath.Join(s.dir, fmt.Sprintf("s%d.sqlite", s.n.Add(1)))
	// journal_mode=MEMORY: no journal file, yet a failed Load rolls back.
	w, err := sql.Open("sqlite3", "file:"+path+"?_journal_mode=MEMORY&_sync=OFF")
	if err != nil {
		return nil, err
	}
	w.SetMaxOpenConns(1)
	sc := &sqliteScratch{sb: s, path: path, w: w}
	if err := sc.exec(ctx, ddl); err != nil {
		sc.Close()
		return nil, err
	}
	return sc, nil
}

type sqliteScratch struct {
	sb   *SQLiteSandbox
	path string
	w    *sql.DB
}

// Load empties the tables and runs the inserts in one transaction, then
// closes the engine's read-only connections to the file (it opens the
// file immutable, so a connection must not outlive a change).
func (sc *sqliteScratch) Load(ctx context.Context, tables []string, inserts []string) error {
	_ = sc.sb.eng.Release(sc.path)
	stmts := make([]string, 0, len(tables)+len(inserts))
	for _, t := range tables {
		stmts = append(stmts, "DELETE FROM "+t)
	}
	return sc.exec(ctx, append(stmts, inserts...))
}

// exec runs the statements in one transaction on the writer.
func (sc *sqliteScratch) exec(ctx context.Context, stmts []string) error {
	tx, err := sc.w.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	for _, st := range stmts {
		if _, err := tx.ExecContext(ctx, st); err != nil {
			tx.Rollback()
			return fmt.Errorf("%s: %w", abbreviateSQL(st), err)
		}
	}
	return tx.Commit()
}

func abbreviateSQL(s string) string {
	if len(s) > 60 {
		return s[:60] + "…"
	}
	return s
}

// Query runs q through the read-only SQLite engine.
func (sc *sqliteScratch) Query(ctx context.Context, q string) (*result.Set, error) {
	return sc.sb.eng.QueryFile(ctx, sc.path, q)
}

// Close closes the writer and the engine's connections and removes the
// file.
func (sc *sqliteScratch) Close() error {
	_ = sc.sb.eng.Release(sc.path)
	err := sc.w.Close()
	if rmErr := os.Remove(sc.path); err == nil && !os.IsNotExist(rmErr) {
		err = rmErr
	}
	return err
}

// splitScript splits a script into its statements (sqllex's statement
// splitting), dropping blank ones.
func splitScript(script string) []string {
	var out []string
	for _, st := range sqllex.SplitStatements(script) {
		if st = strings.TrimSpace(st); st != "" && !sqllex.IsBlank(st) {
			out = append(out, st)
		}
	}
	return out
}
