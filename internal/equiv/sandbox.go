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
	// statements add; an error (a constraint the engine enforces) leaves
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

// Open returns a scratch database; its files are written at each Load.
func (s *SQLiteSandbox) Open(ctx context.Context, ddl []string) (Scratch, error) {
	sc := &sqliteScratch{sb: s, ddl: ddl, base: filepath.Join(s.dir, fmt.Sprintf("s%d", s.n.Add(1)))}
	if err := sc.Load(ctx, nil, nil); err != nil {
		return nil, err
	}
	return sc, nil
}

type sqliteScratch struct {
	sb   *SQLiteSandbox
	ddl  []string
	base string
	k    int
	path string
}

// Load writes a new file with the DDL and the inserts (SQLite's files are
// opened immutable by the engine, so each database is a new file).
func (sc *sqliteScratch) Load(ctx context.Context, _ []string, inserts []string) error {
	sc.drop()
	sc.k++
	sc.path = fmt.Sprintf("%s-%d.sqlite", sc.base, sc.k)
	return writeSQLite(ctx, sc.path, append(append([]string(nil), sc.ddl...), inserts...))
}

// writeSQLite creates the SQLite file at path by running the statements,
// in one transaction.
func writeSQLite(ctx context.Context, path string, stmts []string) error {
	db, err := sql.Open("sqlite3", "file:"+path+"?_journal_mode=OFF&_sync=OFF")
	if err != nil {
		return err
	}
	defer db.Close()
	db.SetMaxOpenConns(1)
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	for _, st := range stmts {
		if _, err := tx.ExecContext(ctx, st); err != nil {
			tx.Rollback()
			return fmt.Errorf("%s: %w", abbreviateSQL(st), err)
		}
	}
	if err := tx.Commit(); err != nil {
		return err
	}
	return db.Close()
}

func abbreviateSQL(s string) string {
	if len(s) > 60 {
		return s[:60] + "…"
	}
	return s
}

func (sc *sqliteScratch) Query(ctx context.Context, q string) (*result.Set, error) {
	return sc.sb.eng.QueryFile(ctx, sc.path, q)
}

func (sc *sqliteScratch) drop() {
	if sc.path != "" {
		_ = sc.sb.eng.Release(sc.path)
		_ = os.Remove(sc.path)
		sc.path = ""
	}
}

func (sc *sqliteScratch) Close() error {
	sc.drop()
	return nil
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
