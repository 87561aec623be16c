// Package sqlite is sqljudge's SQLite engine, on github.com/mattn/go-sqlite3.
//
// Every database is opened read-only and immutable (mode=ro&immutable=1),
// with PRAGMA query_only on, ATTACH disabled (SQLITE_LIMIT_ATTACHED = 0) and
// an authorizer that refuses ATTACH, DETACH and every pragma but the
// read-only introspection ones (not database_list, which shows the file's
// path); a statement that sqlite3_stmt_readonly calls
// a writer is refused before it runs. Values come back as SQLite's storage
// classes, never converted by declared column type (the driver would turn a
// DATE column into time.Time; the official evaluators see the stored text).
// A query is interrupted with sqlite3_interrupt when its context ends.
//
// What a query may take is bounded too: a result holds at most MaxRows rows
// and MaxBytes bytes (engine.CellBytes); no single string or blob may pass
// a quarter of MaxBytes (SQLITE_LIMIT_LENGTH, set on the connection before each query,
// so a function building a huge value fails at once instead of running
// past the timeout); SQLite's heap is capped process-wide at HeapLimit
// (PRAGMA hard_heap_limit, with a soft limit at half of it) and temporary
// tables and sorts are kept in memory (PRAGMA temp_store = MEMORY), so they
// count against that cap and never fill the disk. A query that hits any of
// these is engine.ErrTooLarge.
package sqlite

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"io"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"
	"unsafe"

	sqlite3 "github.com/mattn/go-sqlite3"

	"github.com/sqljudge/sqljudge/internal/engine"
	"github.com/sqljudge/sqljudge/internal/membudget"
	"github.com/sqljudge/sqljudge/internal/result"
	"github.com/sqljudge/sqljudge/internal/turn"
)

const driverName = "sqljudge-sqlite3-ro"

func init() {
	sql.Register(driverName, &sqlite3.SQLiteDriver{ConnectHook: harden})
}

// readPragmas are the pragmas a query may use: they only read the schema.
// database_list is not one of them: it shows the file's path, which tells
// a grader's scratch copies from the benchmark's database and the
// server's folders to whoever sends a query.
var readPragmas = map[string]bool{
	"table_info": true, "table_xinfo": true, "table_list": true, "index_list": true,
	"index_info": true, "index_xinfo": true, "foreign_key_list": true,
	"collation_list": true, "function_list": true, "pragma_list": true,
	"module_list": true, "compile_options": true,
}

// HeapLimit is the most memory SQLite may allocate in the whole process,
// every connection included (sqlite3_hard_heap_limit64): 384 MiB. A query
// that needs more fails with SQLITE_NOMEM, reported as engine.ErrTooLarge.
// What SQLite counts is what it asked malloc for: small sorter records
// cost the C library's overhead on top, so the resident memory behind a
// full heap is about a third more (about 500 MB), which with eval's Go
// heap keeps a run under 1 GiB.
const HeapLimit = 384 << 20

// heapLimit is the cap Pragmas sets: HeapLimit, but for tests.
var heapLimit int64 = HeapLimit

// Pragmas are the statements every connection runs when it opens: SQLite's
// heap capped at HeapLimit (a soft limit at half of it) and temporary
// tables and sorts kept in memory, under that cap.
func Pragmas() []string {
	return []string{
		fmt.Sprintf("PRAGMA hard_heap_limit = %d", heapLimit),
		fmt.Sprintf("PRAGMA soft_heap_limit = %d", heapLimit/2),
		"PRAGMA temp_store = MEMORY",
	}
}

// harden configures a new connection so no query can write anything, and
// bounds the memory and temporary storage its queries may use.
func harden(c *sqlite3.SQLiteConn) error {
	for _, p := range Pragmas() {
		if _, err := c.Exec(p, nil); err != nil {
			return fmt.Errorf("%s: %w", p, err)
		}
	}
	c.SetLimit(sqlite3.SQLITE_LIMIT_ATTACHED, 0)
	c.RegisterAuthorizer(func(op int, arg1, arg2, arg3 string) int {
		switch op {
		case sqlite3.SQLITE_ATTACH, sqlite3.SQLITE_DETACH:
			return sqlite3.SQLITE_DENY
		case sqlite3.SQLITE_PRAGMA:
			if !readPragmas[strings.ToLower(arg1)] {
				return sqlite3.SQLITE_DENY
			}
		}
		return sqlite3.SQLITE_OK
	})
	return nil
}

// Options configure an Engine.
type Options struct {
	// MaxRows is the row cap; 0 means engine.DefaultMaxRows.
	MaxRows int
	// MaxBytes is the byte cap of a result (engine.CellBytes); a quarter
	// of it is the largest string or blob a query may build; 0 means
	// engine.DefaultMaxBytes.
	MaxBytes int64
	// MaxConns is the number of idle connections kept open per database
	// (more are opened while more queries run at once); 0 means 4.
	MaxConns int
	// MaxPools is the number of databases kept open at once; past it the
	// least recently used one that no query is using is closed (and opened
	// again when needed); 0 means DefaultMaxPools.
	MaxPools int
}

// DefaultMaxPools is the number of databases an engine keeps open at once
// when Options.MaxPools is 0: more than any benchmark's databases graded
// together (Spider's 166 training databases come and go).
const DefaultMaxPools = 64

// connMaxIdle is how long an idle connection stays open: a database no
// item has used for a while holds no file descriptor.
const connMaxIdle = time.Minute

// Engine is the SQLite engine. Databases are named by db_id and found under
// a root folder (Spider's and BIRD's layouts), or named by file path.
type Engine struct {
	root  string
	lim   engine.Limits
	conns int
	pools *engine.Pools[*sql.DB]
	found sync.Map // db_id -> its file, symlinks resolved (Path)
}

var _ engine.Engine = (*Engine)(nil)

// New returns an engine over the databases under root. A db_id "x" is
// looked for at root/x/x.sqlite, root/x.sqlite, root/x/x.db and root/x.db,
// in that order. With root "", a database name is a file path. If root is
// itself a database file, every db_id names it.
func New(root string, opts Options) *Engine {
	if opts.MaxConns <= 0 {
		opts.MaxConns = 4
	}
	if opts.MaxPools <= 0 {
		opts.MaxPools = DefaultMaxPools
	}
	lim := engine.Limits{MaxRows: opts.MaxRows, MaxBytes: opts.MaxBytes}.WithDefaults()
	pools := engine.NewPools(engine.CloseDB, nil)
	pools.SetMaxOpen(opts.MaxPools)
	return &Engine{root: root, lim: lim, conns: opts.MaxConns, pools: pools}
}

// Dialect returns engine.SQLite.
func (e *Engine) Dialect() engine.Dialect { return engine.SQLite }

// Path returns the file of database db, or an error wrapping
// engine.ErrNoDatabase that lists where it looked. With a root, db must be
// a name (engine.CheckDBID) and its file, symlinks resolved, must lie
// inside root (engine.FileWithin): anything else is an error wrapping
// engine.ErrBadDBID. The path returned then has its symlinks resolved, so
// aliases of one file share one connection pool; it is remembered for the
// engine's life. With root "", db is a file path (internal callers only:
// test-suite databases), remembered once found until Release(db).
func (e *Engine) Path(db string) (string, error) {
	if e.root == "" {
		// A file found once is remembered until Release (suite builders
		// release a database before they move or delete it): ts asks
		// for the same suite files thousands of times a run.
		if _, ok := e.found.Load(db); ok {
			return db, nil
		}
		if fileExists(db) {
			e.found.Store(db, db)
			return db, nil
		}
		return "", fmt.Errorf("%w: no file %s", engine.ErrNoDatabase, db)
	}
	if err := engine.CheckDBID(db); err != nil {
		return "", err
	}
	if p, ok := e.found.Load(db); ok {
		return p.(string), nil
	}
	p, err := e.find(db)
	if err != nil {
		return "", err
	}
	e.found.Store(db, p)
	return p, nil
}

// find looks for the file of db under the root (see Path).
func (e *Engine) find(db string) (string, error) {
	if fileExists(e.root) {
		return filepath.EvalSymlinks(e.root)
	}
	cands := []string{
		filepath.Join(e.root, db, db+".sqlite"),
		filepath.Join(e.root, db+".sqlite"),
		filepath.Join(e.root, db, db+".db"),
		filepath.Join(e.root, db+".db"),
	}
	for _, c := range cands {
		if fileExists(c) {
			return engine.FileWithin(e.root, c, db)
		}
	}
	return "", fmt.Errorf("%w: %q: no file %s", engine.ErrNoDatabase, db, cands[0])
}

func fileExists(p string) bool {
	st, err := os.Stat(p)
	return err == nil && st.Mode().IsRegular()
}

// Check returns nil when the database file of db exists.
func (e *Engine) Check(ctx context.Context, db string) error {
	_, err := e.Path(db)
	return err
}

// pool returns the connection pool of the file at path and the function
// that releases it (see engine.Pools.Acquire).
func (e *Engine) pool(path string) (*sql.DB, func(), error) {
	return e.pools.Acquire(path, func() (*sql.DB, error) {
		abs, err := filepath.Abs(path)
		if err != nil {
			return nil, err
		}
		// _mutex=no (SQLITE_OPEN_NOMUTEX): database/sql hands a
		// connection to one goroutine at a time, and sqlite3_interrupt,
		// the one call made from another goroutine, takes no mutex; the
		// driver's default serialises every call on a per-connection
		// mutex for nothing.
		u := url.URL{Scheme: "file", OmitHost: true, Path: abs, RawQuery: "mode=ro&immutable=1&_query_only=1&_mutex=no"}
		p, err := sql.Open(driverName, u.String())
		if err != nil {
			return nil, err
		}
		// No bound on the connections open: the callers bound the
		// queries running at once (eval's workers), and under serve's
		// scheduler a query paused for other requests keeps its
		// connection, which another query on the same database must not
		// wait for while it holds a worker.
		p.SetMaxIdleConns(e.conns)
		p.SetConnMaxIdleTime(connMaxIdle)
		return p, nil
	})
}

// Query runs one read-only statement on database db. See engine.Engine.
func (e *Engine) Query(ctx context.Context, db, q string) (*result.Set, error) {
	path, err := e.Path(db)
	if err != nil {
		return nil, &engine.QueryError{DB: db, Err: err}
	}
	return e.QueryFile(ctx, path, q)
}

// QueryFile runs one read-only statement on the database file at path.
func (e *Engine) QueryFile(ctx context.Context, path, q string) (*result.Set, error) {
	blank, err := engine.CheckStatement(path, q, nil)
	if err != nil {
		return nil, err
	}
	if blank {
		return &result.Set{}, nil
	}
	p, release, err := e.pool(path)
	if err != nil {
		return nil, &engine.QueryError{DB: path, Err: err}
	}
	defer release()
	in, err := heap.enter(ctx)
	if err != nil {
		return nil, engine.QueryFailure(ctx, path, err, nil)
	}
	set, err := e.rawQuery(ctx, p, path, q)
	crowded := heap.crowded(in)
	heap.exit()
	if !errors.Is(err, errHeapFull) || !crowded {
		return set, err
	}
	// The heap cap is every query's: run it again alone, so that whether
	// it fits does not depend on what else ran.
	if err := heap.enterAlone(ctx); err != nil {
		return nil, engine.QueryFailure(ctx, path, err, nil)
	}
	defer heap.exitAlone()
	return e.rawQuery(ctx, p, path, q)
}

// rawQuery runs q on a connection of pool p, to the file at path.
func (e *Engine) rawQuery(ctx context.Context, p *sql.DB, path, q string) (*result.Set, error) {
	return engine.RawQuery(ctx, p, path, func(c *sqlite3.SQLiteConn) (*result.Set, error) {
		return e.run(ctx, c, q)
	})
}

// errHeapFull marks the error of a query stopped by SQLite's heap cap
// (SQLITE_NOMEM).
var errHeapFull = errors.New("SQLite's heap is full")

// lengthLimit is the SQLITE_LIMIT_LENGTH of a byte cap: a quarter of it
// (64 MiB by default; no benchmark value comes near), so that a function
// building one huge value stops at once and no single call runs long past
// the timeout (sqlite3_interrupt is only seen between steps). SQLite's
// limit is an int no larger than its compiled maximum (1e9).
func lengthLimit(maxBytes int64) int {
	l := maxBytes / 4
	if l > 1_000_000_000 {
		return 1_000_000_000
	}
	if l < 1 {
		l = 1
	}
	return int(l)
}

func (e *Engine) run(ctx context.Context, c *sqlite3.SQLiteConn, q string) (*result.Set, error) {
	c.SetLimit(sqlite3.SQLITE_LIMIT_LENGTH, lengthLimit(e.lim.MaxBytes))
	if turn.From(ctx) != nil {
		// Under serve's scheduler: the query yields its worker every so
		// often (turn.Yield).
		defer setProgress(c, &progress{ctx: ctx})()
	}
	set, err := e.query(ctx, c, q)
	var se sqlite3.Error
	isSQLite := err != nil && errors.As(err, &se)
	if err != nil && (ctx.Err() != nil || errors.Is(err, engine.ErrTooLarge) || isSQLite && (se.Code == sqlite3.ErrTooBig || se.Code == sqlite3.ErrNomem)) {
		releaseHeap() // a query stopped by a cap or the clock may have filled SQLite's heap
	}
	if isSQLite {
		switch se.Code {
		case sqlite3.ErrTooBig:
			return nil, &engine.QueryError{Err: fmt.Errorf("%w: a value of more than %d bytes (a quarter of --max-bytes): %v", engine.ErrTooLarge, lengthLimit(e.lim.MaxBytes), err)}
		case sqlite3.ErrNomem:
			return nil, &engine.QueryError{Err: fmt.Errorf("%w: %w: the query needs more than its %d bytes (the cap of all queries; it ran alone, or it ran where no other query held any): %v", engine.ErrTooLarge, errHeapFull, heapLimit, err)}
		case sqlite3.ErrAuth:
			// Refused by the authorizer while running (a pragma's
			// table-valued function, pragma_database_list).
			return nil, &engine.QueryError{Err: fmt.Errorf("%w: %v", engine.ErrRejected, err)}
		}
	}
	return set, err
}

// txControl are the first keywords of SQLite's transaction control
// statements, which sqlite3_stmt_readonly calls read-only: one that ran
// would leave its connection inside a transaction (or a savepoint) for the
// next query, which then fails ("cannot start a transaction within a
// transaction"). They are refused, as the server engines refuse every
// statement but a query (engine.QueryKeywords).
var txControl = []string{"BEGIN", "COMMIT", "END", "ROLLBACK", "SAVEPOINT", "RELEASE"}

func (e *Engine) query(ctx context.Context, c *sqlite3.SQLiteConn, q string) (*result.Set, error) {
	if kw := engine.FirstKeyword(q); slices.Contains(txControl, kw) {
		return nil, fmt.Errorf("%w: transaction control (%s) is not a query", engine.ErrRejected, kw)
	}
	defer func() {
		// Belt and braces: no connection goes back to the pool inside a
		// transaction.
		if !c.AutoCommit() {
			_, _ = c.Exec("ROLLBACK", nil)
		}
	}()
	st, err := c.PrepareContext(ctx, q)
	if err != nil {
		var se sqlite3.Error
		if errors.As(err, &se) && se.Code == sqlite3.ErrAuth {
			// Refused by the authorizer (ATTACH, a pragma that sets).
			return nil, fmt.Errorf("%w: %v", engine.ErrRejected, err)
		}
		return nil, err
	}
	defer st.Close()
	s := st.(*sqlite3.SQLiteStmt)
	if !s.Readonly() {
		return nil, fmt.Errorf("%w: the statement would write to the database", engine.ErrRejected)
	}
	dr, err := s.QueryContext(ctx, nil)
	if err != nil {
		return nil, err
	}
	defer dr.Close()
	rows := dr.(*sqlite3.SQLiteRows)
	// Turn off the driver's conversion of DATE/DATETIME/TIMESTAMP and
	// BOOLEAN columns: DeclTypes returns the slice the driver consults.
	dt := rows.DeclTypes()
	for i := range dt {
		dt[i] = ""
	}
	lim := e.lim
	lim.Ledger = membudget.From(ctx) // serve's memory budget, nil elsewhere
	return readRows(rows, lim)
}

// readRows reads the rows of a query under lim, as engine.ReadRows does
// (the row cap asked before a row is converted, the byte cap by
// Collector.Add), with the storage classes mapped in the loop: one
// driver.Value slice is reused for every row (Next overwrites it), rows
// are cut from a RowSlab, and no cell goes through a function value.
func readRows(rows *sqlite3.SQLiteRows, lim engine.Limits) (*result.Set, error) {
	c := engine.NewCollector("", rows.Columns(), lim)
	dest := make([]driver.Value, len(c.Set.Columns))
	var slab engine.RowSlab
	for {
		if err := rows.Next(dest); err != nil {
			if err == io.EOF {
				return c.Set, nil
			}
			c.Drop()
			return nil, err
		}
		if c.Full() {
			c.Drop()
			return nil, engine.TooLarge("", lim.MaxRows)
		}
		row := slab.Next(len(dest))
		for i, v := range dest {
			row[i] = value(c, v)
		}
		if err := c.Add(row); err != nil {
			c.Drop()
			return nil, err
		}
	}
}

// value maps a driver value (int64, float64, string, []byte or nil: the
// storage classes, the declared types' conversions being off) onto the
// typed value model as engine.Collector.Value does, taking a blob without
// a copy.
func value(c *engine.Collector, v driver.Value) result.Value {
	switch x := v.(type) {
	case int64:
		return result.Value{K: result.Int, I: x}
	case string:
		return c.Text(x)
	case nil:
		return result.Value{}
	case float64:
		return result.Value{K: result.Float, F: x}
	case []byte:
		if len(x) > 0 {
			// The driver allocates every blob afresh (C.GoBytes in
			// SQLiteRows.Next) and keeps no reference: take it
			// without a second copy, so a large blob costs its size
			// once.
			return result.Value{K: result.Blob, S: unsafe.String(&x[0], len(x))}
		}
	}
	return c.Value(v)
}

// Release closes the connections to the database file at path, if any (a
// later query opens them again), and, with root "", forgets that the file
// was found. Suite builders call it for databases they move or delete.
func (e *Engine) Release(path string) error {
	if e.root == "" {
		e.found.Delete(path)
	}
	return e.pools.Release(path)
}

// OpenPools returns the number of databases with a connection pool open.
func (e *Engine) OpenPools() int { return e.pools.Len() }

// Close closes every connection pool.
func (e *Engine) Close() error { return e.pools.Close() }
