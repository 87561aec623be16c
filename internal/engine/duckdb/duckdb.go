// Package duckdb is sqljudge's DuckDB engine, on
// github.com/duckdb/duckdb-go/v2 (cgo, DuckDB's static library).
//
// Linking DuckDB costs about 60 MB of binary and 40 s of a cold build, so
// the CLI includes this engine only when built with -tags duckdb (see
// internal/engine/open); the package itself builds without a tag, and its
// tests run under the default `go test ./...`.
//
// A db_id names a database file, <root>/<db>.duckdb or
// <root>/<db>/<db>.duckdb, or every db_id names the root when it is a file.
// Every database is opened with access_mode READ_ONLY,
// enable_external_access false (no file, network or extension access from
// SQL), extension auto-loading off, TimeZone UTC and lock_configuration on
// (no SET can undo any of it). A query is split by DuckDB's own parser (on a private
// in-memory database) and must be exactly one statement, of type SELECT:
// the driver would run every statement but the last while preparing. A
// query is interrupted inside DuckDB (duckdb_interrupt) when its context
// ends.
//
// The driver materialises a result before the first row is read, so the
// row cap is checked after the query ran; DuckDB's memory_limit (80% of RAM
// unless Options.MemoryLimit says otherwise) bounds what that can take.
package duckdb

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"

	duckdb "github.com/duckdb/duckdb-go/v2"
	"github.com/duckdb/duckdb-go/v2/mapping"

	"github.com/sqljudge/sqljudge/internal/engine"
	"github.com/sqljudge/sqljudge/internal/result"
)

// Options configure an Engine.
type Options struct {
	// MaxRows is the row cap; 0 means engine.DefaultMaxRows.
	MaxRows int
	// MaxBytes is the byte cap of a result (engine.CellBytes); 0 means
	// engine.DefaultMaxBytes.
	MaxBytes int64
	// MaxConns is the number of connections kept per database; 0 means 4.
	MaxConns int
	// MemoryLimit is DuckDB's memory_limit per database ("4GB"); "" keeps
	// DuckDB's default.
	MemoryLimit string
}

// Engine is the DuckDB engine. It is safe for concurrent use.
type Engine struct {
	root  string
	opts  Options
	lim   engine.Limits
	pools *engine.Pools[*sql.DB]

	parseMu   sync.Mutex
	parseDB   mapping.Database
	parseConn mapping.Connection
	parseOK   bool
}

var _ engine.Engine = (*Engine)(nil)

// New returns an engine over the database files under root (a folder, or
// one .duckdb file). It opens nothing until a query needs it.
func New(root string, opts Options) *Engine {
	if opts.MaxConns <= 0 {
		opts.MaxConns = 4
	}
	lim := engine.Limits{MaxRows: opts.MaxRows, MaxBytes: opts.MaxBytes}.WithDefaults()
	return &Engine{root: root, opts: opts, lim: lim, pools: engine.NewPools(engine.CloseDB, errors.New("duckdb: engine is closed"))}
}

// Dialect returns engine.DuckDB.
func (e *Engine) Dialect() engine.Dialect { return engine.DuckDB }

// Path returns the file of database db, or an error wrapping
// engine.ErrNoDatabase that says where it looked. db must be a name
// (engine.CheckDBID) and its file, symlinks resolved, must lie inside the
// root folder (engine.FileWithin); anything else is an error wrapping
// engine.ErrBadDBID. The path returned has its symlinks resolved.
func (e *Engine) Path(db string) (string, error) {
	if err := engine.CheckDBID(db); err != nil {
		return "", err
	}
	if st, err := os.Stat(e.root); err == nil && st.Mode().IsRegular() {
		return e.root, nil
	}
	cands := []string{filepath.Join(e.root, db+".duckdb"), filepath.Join(e.root, db, db+".duckdb")}
	for _, c := range cands {
		if st, err := os.Stat(c); err == nil && st.Mode().IsRegular() {
			return engine.FileWithin(e.root, c, db)
		}
	}
	return "", fmt.Errorf("%w: %q: no file %s", engine.ErrNoDatabase, db, cands[0])
}

// Check returns nil when the database file of db exists.
func (e *Engine) Check(ctx context.Context, db string) error {
	_, err := e.Path(db)
	if err != nil {
		return &engine.QueryError{DB: db, Err: err}
	}
	return nil
}

// readOnlyConfig is the configuration every database is opened with.
func (e *Engine) readOnlyConfig() url.Values {
	v := url.Values{}
	v.Set("access_mode", "READ_ONLY")
	v.Set("enable_external_access", "false")
	v.Set("autoinstall_known_extensions", "false")
	v.Set("autoload_known_extensions", "false")
	v.Set("allow_community_extensions", "false")
	if e.opts.MemoryLimit != "" {
		v.Set("memory_limit", e.opts.MemoryLimit)
	}
	return v
}

// initConn sets the session time zone to UTC (an ICU setting, which the
// open-time configuration does not take) and then locks the configuration
// for the whole database, so that no query can change a setting. Once
// locked, later connections inherit UTC and skip both steps.
func initConn(ex driver.ExecerContext) error {
	ctx := context.Background()
	for _, s := range []string{"SET GLOBAL TimeZone = 'UTC'", "SET GLOBAL lock_configuration = true"} {
		if _, err := ex.ExecContext(ctx, s, nil); err != nil {
			if strings.Contains(err.Error(), "locked") {
				return nil
			}
			return fmt.Errorf("duckdb: %s: %w", s, err)
		}
	}
	return nil
}

func (e *Engine) pool(path string) (*sql.DB, error) {
	return e.pools.Get(path, func() (*sql.DB, error) {
		c, err := duckdb.NewConnector(path+"?"+e.readOnlyConfig().Encode(), initConn)
		if err != nil {
			return nil, err
		}
		p := sql.OpenDB(c)
		p.SetMaxOpenConns(e.opts.MaxConns)
		p.SetMaxIdleConns(e.opts.MaxConns)
		return p, nil
	})
}

// statements returns how many statements DuckDB's parser finds in q, or
// the parser's error.
func (e *Engine) statements(q string) (int, error) {
	e.parseMu.Lock()
	defer e.parseMu.Unlock()
	if !e.parseOK {
		if mapping.Open("", &e.parseDB) == mapping.StateError {
			return 0, errors.New("duckdb: cannot open the parser's in-memory database")
		}
		if mapping.Connect(e.parseDB, &e.parseConn) == mapping.StateError {
			mapping.Close(&e.parseDB)
			return 0, errors.New("duckdb: cannot connect to the parser's in-memory database")
		}
		e.parseOK = true
	}
	var stmts mapping.ExtractedStatements
	n := mapping.ExtractStatements(e.parseConn, q, &stmts)
	defer mapping.DestroyExtracted(&stmts)
	if n == 0 {
		if msg := mapping.ExtractStatementsError(stmts); msg != "" {
			return 0, errors.New(msg)
		}
	}
	return int(n), nil
}

// Query runs one read-only SELECT on database db. See the package comment
// and engine.Engine.
func (e *Engine) Query(ctx context.Context, db, q string) (*result.Set, error) {
	blank, err := engine.CheckStatement(db, q, nil)
	if err != nil {
		return nil, err
	}
	if blank {
		return &result.Set{}, nil
	}
	n, err := e.statements(q)
	switch {
	case err != nil:
		return nil, &engine.QueryError{DB: db, Err: err}
	case n > 1:
		return nil, &engine.QueryError{DB: db, Err: fmt.Errorf("%w: you can only execute one statement at a time", engine.ErrRejected)}
	case n == 0:
		return &result.Set{}, nil
	}
	path, err := e.Path(db)
	if err != nil {
		return nil, &engine.QueryError{DB: db, Err: err}
	}
	p, err := e.pool(path)
	if err != nil {
		return nil, &engine.QueryError{DB: db, Err: err}
	}
	return engine.RawQuery(ctx, p, db, func(c *duckdb.Conn) (*result.Set, error) {
		return e.run(ctx, c, db, q)
	})
}

func (e *Engine) run(ctx context.Context, c *duckdb.Conn, db, q string) (*result.Set, error) {
	ds, err := c.PrepareContext(ctx, q)
	if err != nil {
		return nil, err
	}
	defer ds.Close()
	st, ok := ds.(*duckdb.Stmt)
	if !ok {
		return nil, fmt.Errorf("unexpected driver statement %T", ds)
	}
	typ, err := st.StatementType()
	if err != nil {
		return nil, err
	}
	if typ != duckdb.STATEMENT_TYPE_SELECT {
		return nil, &engine.QueryError{DB: db, Err: fmt.Errorf("%w: only SELECT queries run here", engine.ErrRejected)}
	}
	dr, err := st.QueryContext(ctx, nil)
	if err != nil {
		return nil, err
	}
	defer dr.Close()
	typeNames := make([]string, len(dr.Columns()))
	if tn, ok := dr.(driver.RowsColumnTypeDatabaseTypeName); ok {
		for i := range typeNames {
			typeNames[i] = tn.ColumnTypeDatabaseTypeName(i)
		}
	}
	return engine.ReadRows(db, dr, e.lim, func(c *engine.Collector, i int, v driver.Value) result.Value {
		return decode(c, v, typeNames[i])
	})
}

// Release closes the connections to database db, if any; a later query
// opens it again (equiv calls it before it rewrites a scratch file, as a
// connection must not outlive a change made by another).
func (e *Engine) Release(db string) error {
	path, err := e.Path(db)
	if err != nil {
		return nil // never opened: no file
	}
	return e.pools.Release(path)
}

// Close closes every database and the parser's.
func (e *Engine) Close() error {
	err := e.pools.Close()
	e.parseMu.Lock()
	defer e.parseMu.Unlock()
	if e.parseOK {
		mapping.Disconnect(&e.parseConn)
		mapping.Close(&e.parseDB)
		e.parseOK = false
	}
	return err
}
