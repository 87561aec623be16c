// Package sandbox defines the scratch databases in which `sqljudge equiv`
// decides pairs: the only databases sqljudge writes. A Sandbox makes
// scratch databases on one engine; each engine has its own package
// (sandbox/sqlite, sandbox/postgres, sandbox/mysql, sandbox/duckdb),
// sandbox/open picks one from a DSN, and sandbox/sandboxtest is the suite
// every sandbox passes. This package holds what they share: the
// interfaces, loading rows with parameters, the one-statement rule and the
// naming and sweeping of scratch databases on a server (scratch.go).
package sandbox

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/sqljudge/sqljudge/internal/catalog"
	"github.com/sqljudge/sqljudge/internal/engine"
	"github.com/sqljudge/sqljudge/internal/result"
	"github.com/sqljudge/sqljudge/internal/sqllex"
)

// Sandbox makes scratch databases on one engine. It never opens a
// database it did not create (but those a DBReader reads). Implementations
// are safe for concurrent use.
//
// No text of a pair reaches a sandbox as SQL of its own: the statements
// given to Open and Exec are a rendering of a parsed schema
// (catalog.Database.CreateStatements, Script: quoted names, CHECKs printed
// again from a parse, literals escaped for the dialect), each sent as one
// statement (PostgreSQL's extended protocol, MySQL without
// multi-statements, SQLite and DuckDB checked to hold one); Load passes
// values as parameters; Query runs a pair's query through the engine's
// read-only path (on PostgreSQL, the engine's statement check, decoding
// and caps in a read-only savepoint of the scratch's own session; on
// MySQL, the same on a read-only session of the scratch's own that reads
// its writer's uncommitted rows). The server sandboxes pin the session settings that
// change how SQL text is read (standard_conforming_strings, search_path,
// sql_mode).
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

// An Explainer is a Scratch that shows the engine's plan of a query
// without running it: Explain returns the plan of q (one read-only query,
// as Query takes) over the scratch's tables and the rows of the last
// Load, as the engine prints it (PostgreSQL: EXPLAIN (VERBOSE, COSTS OFF,
// FORMAT JSON)), under Query's guards (a read-only savepoint rolled back,
// the statement timeout). The error is the engine's when it refuses q.
// Package prove/explain compares such plans (a proof's renamings).
type Explainer interface {
	Explain(ctx context.Context, q string) ([]byte, error)
}

// A DBReader is a Sandbox that can read an existing database of its
// server, named by a db_id, through its read-only engine: a db_id pair's
// schema and values (ReadDB, catalog.Read), and what its data satisfies
// (QueryDB, equiv's AssumeObserved). It only reads.
type DBReader interface {
	ReadDB(ctx context.Context, dbID string, o catalog.Options) (*catalog.Database, error)
	// QueryDB runs one read-only query on database dbID.
	QueryDB(ctx context.Context, dbID, q string) (*result.Set, error)
}

// A Sweeper is a server Sandbox that dropped, when it was made, the stale
// scratch databases of earlier runs (see scratch.go); Swept names them.
type Sweeper interface {
	Swept() []string
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

// ErrSetup is the error of a server or an account that cannot host
// scratch databases (a missing privilege): a usage error, checked before
// the first pair.
var ErrSetup = errors.New("the database account cannot run equiv")

// CloseTimeout bounds the drop of a scratch database, which runs with a
// context of its own (a run stopped by its budget or by the user still
// drops it).
const CloseTimeout = 10 * time.Second

// ProbeDDL is the schema a server sandbox tries a scratch database with
// before the first pair: a table "probe" (a INTEGER PRIMARY KEY, b TEXT).
const ProbeDDL = "CREATE TABLE probe (a INTEGER PRIMARY KEY, b TEXT)"

// Probe creates a scratch database of sb with ProbeDDL, loads a row into
// it, runs then on it (when not nil) and drops it: the error says which
// step failed ("cannot create and use a scratch database: …", "cannot
// write to its scratch database: …"), or is then's.
func Probe(ctx context.Context, sb Sandbox, then func(Scratch) error) error {
	sch, err := catalog.ParseDDL(ProbeDDL)
	if err != nil {
		return err
	}
	d := sb.Dialect()
	sc, err := sb.Open(ctx, sch.CreateStatements(d))
	if err != nil {
		return fmt.Errorf("cannot create and use a scratch database: %w", err)
	}
	defer sc.Close()
	rows := []TableRows{{Name: catalog.TableIdent(d, sch.Tables[0]), Cols: 2, Rows: [][]result.Value{{result.IntValue(1), result.TextValue("x")}}}}
	if err := sc.Load(ctx, rows); err != nil {
		return fmt.Errorf("cannot write to its scratch database: %w", err)
	}
	if then != nil {
		return then(sc)
	}
	return nil
}

// OneStatement refuses a text that holds more than one statement
// (sqllex splits as SQLite does): a sandbox whose driver would run a
// second statement of a string calls it before each Exec.
func OneStatement(st string) error {
	if end, more := sqllex.FirstStatement(st); more {
		return fmt.Errorf("%s: more than one statement (a second starts at byte %d)", Abbreviate(st), end)
	}
	return nil
}

// ExecInTx runs statements on db in one transaction, one at a time, each
// checked to be one statement first (OneStatement: a driver that would
// run a second statement of a string, as SQLite's and DuckDB's do, never
// gets one); the first failure rolls back and is the error, naming the
// statement.
func ExecInTx(ctx context.Context, db *sql.DB, stmts []string) error {
	tx, err := db.BeginTx(ctx, nil)
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
			return fmt.Errorf("%s: %w", Abbreviate(st), err)
		}
	}
	return tx.Commit()
}

// Execer is what InsertRows writes through: a transaction or a
// connection of database/sql.
type Execer interface {
	PrepareContext(ctx context.Context, query string) (*sql.Stmt, error)
	ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
}

// LoadRows empties the tables (DeleteRows) and inserts their rows
// (InsertRows).
func LoadRows(ctx context.Context, d engine.Dialect, x Execer, tables []TableRows) error {
	if err := DeleteRows(ctx, x, tables); err != nil {
		return err
	}
	return InsertRows(ctx, d, x, tables)
}

// DeleteRows empties the tables, the last first.
func DeleteRows(ctx context.Context, x Execer, tables []TableRows) error {
	for i := len(tables) - 1; i >= 0; i-- {
		if _, err := x.ExecContext(ctx, "DELETE FROM "+tables[i].Name); err != nil {
			return err
		}
	}
	return nil
}

// InsertRows inserts the tables' rows through database/sql, one prepared
// INSERT per table of dialect d (InsertSQL), values as parameters of d's
// driver (ArgOf). Its error names the INSERT.
func InsertRows(ctx context.Context, d engine.Dialect, x Execer, tables []TableRows) error {
	for _, t := range tables {
		if len(t.Rows) == 0 {
			continue
		}
		q := InsertSQL(d, t.Name, t.Cols)
		st, err := x.PrepareContext(ctx, q)
		if err != nil {
			return fmt.Errorf("%s: %w", Abbreviate(q), err)
		}
		for _, row := range t.Rows {
			if _, err := st.ExecContext(ctx, args(d, row)...); err != nil {
				st.Close()
				return fmt.Errorf("%s: %w", Abbreviate(q), err)
			}
		}
		st.Close()
	}
	return nil
}

// args are a row's values as parameters of dialect d's driver.
func args(d engine.Dialect, row []result.Value) []any {
	out := make([]any, len(row))
	for i, v := range row {
		out[i] = ArgOf(d, v)
	}
	return out
}

// ArgOf is v as a parameter of dialect d's database/sql driver: nil for
// NULL (and a float that is not finite), an int64, a float64, a bool (an
// int64 on SQLite, as catalog.Literal writes it) or a string.
func ArgOf(d engine.Dialect, v result.Value) any {
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

// InsertSQL is the INSERT of one row of a table of n columns with
// parameters of dialect d: InsertRowsSQL(d, table, n, 1).
func InsertSQL(d engine.Dialect, table string, n int) string {
	return InsertRowsSQL(d, table, n, 1)
}

// InsertRowsSQL is the INSERT of rows rows of a table of cols columns
// (table already quoted), values as parameters of dialect d: on
// PostgreSQL numbered across the rows, row after row, from $1
// (INSERT INTO t VALUES ($1, $2), ($3, $4)), elsewhere
// INSERT INTO t VALUES (?, ?), (?, ?). It holds rows×cols parameters;
// the caller keeps that within the server's bound (PostgreSQL's 65535:
// see the PostgreSQL sandbox's load). With cols 0 each row is ().
func InsertRowsSQL(d engine.Dialect, table string, cols, rows int) string {
	var b strings.Builder
	b.Grow(len(table) + 20 + rows*cols*6)
	b.WriteString("INSERT INTO " + table + " VALUES ")
	for r := range rows {
		if r > 0 {
			b.WriteString(", ")
		}
		b.WriteByte('(')
		for c := range cols {
			if c > 0 {
				b.WriteString(", ")
			}
			if d == engine.Postgres {
				b.WriteByte('$')
				b.WriteString(strconv.Itoa(r*cols + c + 1))
			} else {
				b.WriteByte('?')
			}
		}
		b.WriteByte(')')
	}
	return b.String()
}

// Abbreviate cuts a statement to 60 bytes for a message.
func Abbreviate(s string) string {
	if len(s) > 60 {
		return s[:60] + "…"
	}
	return s
}

// SplitScript splits a script into its statements (sqllex's statement
// splitting), dropping blank ones.
func SplitScript(script string) []string {
	var out []string
	for _, st := range sqllex.SplitStatements(script) {
		if st = strings.TrimSpace(st); st != "" && !sqllex.IsBlank(st) {
			out = append(out, st)
		}
	}
	return out
}
