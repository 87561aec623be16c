package equiv

import (
	"context"
	"database/sql"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strconv"
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
//
// No text of a pair reaches a sandbox as SQL of its own: the statements
// given to Open and Exec are equiv's own rendering of a parsed schema
// (Schema.CreateStatements, Schema.Script: quoted names, CHECKs printed
// again from a parse, literals escaped for the dialect), each sent as one
// statement (PostgreSQL's extended protocol, MySQL without
// multi-statements, SQLite checked to hold one); Load passes values as
// parameters; Query runs a pair's query through the engine's read-only
// path. The server sandboxes pin the session settings that change how
// SQL text is read (standard_conforming_strings, search_path, sql_mode).
type Sandbox interface {
	// Dialect is the engine's SQL dialect.
	Dialect() engine.Dialect
	// Open creates an empty scratch database and runs the statements of
	// ddl in it, one at a time. Its error is the engine's when a
	// statement fails (the schema is the pair's), a *SetupError when the
	// scratch database itself cannot be made (the sandbox's).
	Open(ctx context.Context, ddl []string) (Scratch, error)
	// Close releases what the sandbox holds (not the scratch databases,
	// which their Close drops).
	Close() error
}

// Scratch is one scratch database of a Sandbox, used by one goroutine.
type Scratch interface {
	// Load empties every table of tables (referencing tables last in the
	// slice, emptied first) and inserts their rows, values passed as
	// parameters, in one transaction; an error (a constraint the engine
	// enforces) leaves the database unusable until the next successful
	// Load.
	Load(ctx context.Context, tables []TableRows) error
	// Exec runs statements the caller rendered (a witness's script), one
	// statement per call, in one transaction.
	Exec(ctx context.Context, stmts []string) error
	// Query runs one read-only query through the engine.
	Query(ctx context.Context, q string) (*result.Set, error)
	// Close drops the scratch database.
	Close() error
}

// TableRows are the rows of one table for Scratch.Load: the table's name
// as a quoted identifier of the dialect, its number of columns, and its
// rows (each of Cols values, in column order).
type TableRows struct {
	Name string
	Cols int
	Rows [][]result.Value
}

// SetupError is the error of a sandbox that cannot make a scratch
// database (CREATE DATABASE refused, the server gone): the tool's
// failure, never a verdict on a pair.
type SetupError struct{ Err error }

func (e *SetupError) Error() string { return "cannot create a scratch database: " + e.Err.Error() }

func (e *SetupError) Unwrap() error { return e.Err }

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

// Load empties the tables and inserts the rows (parameters) in one
// transaction, after closing the engine's read-only connections to the
// file (it opens the file immutable, so a connection must not outlive a
// change).
func (sc *sqliteScratch) Load(ctx context.Context, tables []TableRows) error {
	_ = sc.sb.eng.Release(sc.path)
	tx, err := sc.w.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	if err := loadRows(ctx, engine.SQLite, tx, tables); err != nil {
		tx.Rollback()
		return err
	}
	return tx.Commit()
}

// Exec runs the statements in one transaction, each after checking that
// it is one statement (the driver would run a second one).
func (sc *sqliteScratch) Exec(ctx context.Context, stmts []string) error {
	_ = sc.sb.eng.Release(sc.path)
	return sc.exec(ctx, stmts)
}

// exec runs the statements in one transaction on the writer.
func (sc *sqliteScratch) exec(ctx context.Context, stmts []string) error {
	tx, err := sc.w.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	for _, st := range stmts {
		if err := OneStatement(st); err != nil {
			tx.Rollback()
			return err
		}
		if _, err := tx.ExecContext(ctx, st); err != nil {
			tx.Rollback()
			return fmt.Errorf("%s: %w", abbreviateSQL(st), err)
		}
	}
	return tx.Commit()
}

// OneStatement refuses a text that holds more than one statement
// (sqllex splits as SQLite does): a sandbox whose driver would run a
// second statement of a string calls it before each Exec.
func OneStatement(st string) error {
	if end, more := sqllex.FirstStatement(st); more {
		return fmt.Errorf("%s: more than one statement (a second starts at byte %d)", abbreviateSQL(st), end)
	}
	return nil
}

// Execer is what InsertRows writes through: a transaction or a
// connection of database/sql.
type Execer interface {
	PrepareContext(ctx context.Context, query string) (*sql.Stmt, error)
	ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
}

// loadRows empties the tables (last first) and inserts their rows
// (deleteRows, insertRows).
func loadRows(ctx context.Context, d engine.Dialect, x Execer, tables []TableRows) error {
	if err := deleteRows(ctx, x, tables); err != nil {
		return err
	}
	return InsertRows(ctx, d, x, tables)
}

// deleteRows empties the tables, the last first.
func deleteRows(ctx context.Context, x Execer, tables []TableRows) error {
	for i := len(tables) - 1; i >= 0; i-- {
		if _, err := x.ExecContext(ctx, "DELETE FROM "+tables[i].Name); err != nil {
			return err
		}
	}
	return nil
}

// InsertRows inserts the tables' rows through database/sql, one prepared
// INSERT per table of dialect d, values as parameters of d's driver:
// nil for NULL, int64, float64, bool (int64 on SQLite) or string. Its
// error names the INSERT.
func InsertRows(ctx context.Context, d engine.Dialect, x Execer, tables []TableRows) error {
	for _, t := range tables {
		if len(t.Rows) == 0 {
			continue
		}
		q := insertSQL(d, t.Name, t.Cols)
		st, err := x.PrepareContext(ctx, q)
		if err != nil {
			return fmt.Errorf("%s: %w", abbreviateSQL(q), err)
		}
		for _, row := range t.Rows {
			if _, err := st.ExecContext(ctx, args(d, row)...); err != nil {
				st.Close()
				return fmt.Errorf("%s: %w", abbreviateSQL(q), err)
			}
		}
		st.Close()
	}
	return nil
}

// argOf is v as a parameter of dialect d's database/sql driver: nil for
// NULL (and a float that is not finite), an int64, a float64, a bool (an
// int64 on SQLite, as catalog.Literal writes it) or a string.
func argOf(d engine.Dialect, v result.Value) any {
	switch v.K {
	case result.Null:
		return nil
	case result.Int:
		return v.I
	case result.Bool:
		if d == engine.SQLite {
			return v.I
		}
		return v.I != 0
	case result.Float:
		if math.IsInf(v.F, 0) || math.IsNaN(v.F) {
			return nil
		}
		return v.F
	}
	return v.S
}

// insertSQL is the INSERT of one row of a table of n columns with
// parameters: $1, $2… on PostgreSQL, ? elsewhere.
func insertSQL(d engine.Dialect, table string, n int) string {
	var b strings.Builder
	b.WriteString("INSERT INTO " + table + " VALUES (")
	for i := range n {
		if i > 0 {
			b.WriteString(", ")
		}
		if d == engine.Postgres {
			b.WriteString("$" + strconv.Itoa(i+1))
		} else {
			b.WriteByte('?')
		}
	}
	b.WriteByte(')')
	return b.String()
}

// args are a row's values as parameters of dialect d's driver.
func args(d engine.Dialect, row []result.Value) []any {
	out := make([]any, len(row))
	for i, v := range row {
		out[i] = argOf(d, v)
	}
	return out
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
