// Package mysql is sqljudge's MySQL and MariaDB engine, on
// github.com/go-sql-driver/mysql (tested on MariaDB 10.11).
//
// A db_id names a database on the server, reached with the credentials,
// address and parameters of the DSN given to New. Every query:
//
//   - must be one statement starting with SELECT, WITH, VALUES, TABLE or
//     SHOW, without an INTO clause (SELECT ... INTO OUTFILE writes a
//     file on the server, INTO @v changes the session) and without a
//     comment the server runs as code (/*! … */, /*M! … */, /*+ … */),
//     read as the server reads it whatever its sql_mode (CheckQuery);
//     anything else is engine.ErrRejected before it is sent. The driver
//     never enables multi-statements, so the server refuses a second
//     statement too;
//   - runs on a session of its own, opened for it and closed after it, so
//     nothing one query leaves in its session (a lock from GET_LOCK, a user
//     variable) reaches the next or outlives it;
//   - runs inside START TRANSACTION READ ONLY on a session set to
//     TRANSACTION READ ONLY, and is always rolled back;
//   - is bounded on the server by max_statement_time (MariaDB, seconds) or
//     max_execution_time (MySQL, milliseconds) set to the time left before
//     the context's deadline, and when the context ends the engine sends
//     KILL QUERY for its connection from a separate one (the driver alone
//     only closes its socket, which leaves the query running);
//   - reads at most Options.MaxRows rows and Options.MaxBytes bytes
//     (engine.CellBytes; the query is killed beyond);
//   - is a timeout when its time limit passed before its last row came,
//     whatever the server returned: a query stopped by the server's limit
//     or by KILL QUERY may end without an error (MariaDB's BENCHMARK()
//     returns 0).
//
// Values come in the text protocol and are decoded in one place,
// decode.go. Sessions use time_zone '+00:00'.
package mysql

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"net/url"
	"slices"
	"strings"
	"sync"
	"time"

	mysqldrv "github.com/go-sql-driver/mysql"

	"github.com/sqljudge/sqljudge/internal/engine"
	"github.com/sqljudge/sqljudge/internal/result"
	"github.com/sqljudge/sqljudge/internal/sqllex"
)

// Options configure an Engine.
type Options struct {
	// MaxRows is the row cap; 0 means engine.DefaultMaxRows.
	MaxRows int
	// MaxBytes is the byte cap of a result (engine.CellBytes); 0 means
	// engine.DefaultMaxBytes.
	MaxBytes int64
	// MaxConns is the number of connections open at once per database; 0
	// means 4. Each query runs on a new connection, closed after it: a
	// session keeps what a query leaves in it (named locks of GET_LOCK,
	// user variables, LAST_INSERT_ID, whatever a stored function sets),
	// and the driver cannot reset one (it has no COM_RESET_CONNECTION), so
	// no session serves two queries.
	MaxConns int
	// StatementTimeout bounds a query on the server when its context has no
	// deadline; 0 means no bound. With a deadline, the time left is used.
	StatementTimeout time.Duration
	// DBPrefix is put before every db_id to name its database on the
	// server ("" by default); tests use it to keep their databases apart.
	// A query that names a database itself (geography.state) reaches that
	// database, prefix or not.
	DBPrefix string
	// SessionParams are session variables every connection sets when it
	// opens (the driver's SET name=value; the value as SQL, e.g.
	// "'STRICT_ALL_TABLES'"), besides the engine's time_zone, which wins on
	// a clash: package equiv pins sql_mode on its scratch databases.
	SessionParams map[string]string
}

// Engine is the MySQL/MariaDB engine. It is safe for concurrent use.
type Engine struct {
	base  *mysqldrv.Config
	opts  Options
	lim   engine.Limits
	pools *engine.Pools[*sql.DB] // by db_id, and killerKey

	mu      sync.Mutex
	flavour string // "mariadb" or "mysql", learnt on first connection
}

// killerKey names, among the pools, the one without a database that sends
// KILL QUERY (no database name holds a NUL byte).
const killerKey = "\x00kill"

var _ engine.Engine = (*Engine)(nil)

// ParseDSN reads a DSN in the URL form the CLI takes,
// mysql://user:pass@host[:port]/[db][?param=value&...] (port 3306 by
// default; user, password and database percent-decoded; parameters are
// go-sql-driver's), or in go-sql-driver's own form
// user:pass@tcp(host:port)/db?param=value. A charset or collation of a
// character set whose multi-byte characters may hold ASCII bytes (GBK,
// Big5, Shift-JIS, CP932, GB18030: unsafeCharsets) is refused.
func ParseDSN(dsn string) (*mysqldrv.Config, error) {
	rest, isURL := strings.CutPrefix(dsn, "mysql://")
	if !isURL {
		cfg, err := mysqldrv.ParseDSN(dsn)
		if err != nil {
			return nil, fmt.Errorf("mysql: bad DSN: %w", err)
		}
		return cfg, checkCharset(cfg)
	}
	userinfo, hostpart := "", rest
	if i := strings.LastIndex(rest, "@"); i >= 0 {
		userinfo, hostpart = rest[:i], rest[i+1:]
	}
	addr, path, _ := strings.Cut(hostpart, "/")
	db, query, _ := strings.Cut(path, "?")
	if addr == "" {
		addr = "127.0.0.1:3306"
	} else if !strings.Contains(addr, ":") {
		addr += ":3306"
	}
	native := "tcp(" + addr + ")/"
	if query != "" {
		native += "?" + query
	}
	cfg, err := mysqldrv.ParseDSN(native)
	if err != nil {
		return nil, fmt.Errorf("mysql: bad DSN: %w", err)
	}
	user, pass, _ := strings.Cut(userinfo, ":")
	if cfg.User, err = url.PathUnescape(user); err != nil {
		return nil, fmt.Errorf("mysql: bad DSN: user: %w", err)
	}
	if cfg.Passwd, err = url.PathUnescape(pass); err != nil {
		return nil, fmt.Errorf("mysql: bad DSN: password: %w", err)
	}
	if cfg.DBName, err = url.PathUnescape(db); err != nil {
		return nil, fmt.Errorf("mysql: bad DSN: database: %w", err)
	}
	return cfg, checkCharset(cfg)
}

// unsafeCharsets are the client character sets whose multi-byte
// characters may hold an ASCII byte (a backslash, a quote, a backtick) as
// their second byte: under them the server would read a query's quotes
// and comments otherwise than CheckQuery (sqllex.NextMySQL) does.
var unsafeCharsets = []string{"big5", "cp932", "gb18030", "gbk", "sjis"}

// checkCharset refuses a DSN whose charset or collation parameter names
// one of unsafeCharsets.
func checkCharset(cfg *mysqldrv.Config) error {
	_, params, _ := strings.Cut(cfg.FormatDSN(), "?")
	vals, _ := url.ParseQuery(params)
	names := strings.Split(vals.Get("charset"), ",")
	names = append(names, strings.SplitN(cfg.Collation, "_", 2)[0])
	for _, n := range names {
		if slices.Contains(unsafeCharsets, strings.ToLower(strings.TrimSpace(n))) {
			return fmt.Errorf("mysql: bad DSN: character set %s: sqljudge reads queries as the server does only under a character set whose multi-byte characters hold no ASCII byte (utf8mb4, the default, utf8, latin1, ...)", n)
		}
	}
	return nil
}

// New returns an engine for the server of dsn (see ParseDSN). The
// database named in dsn is not used: each query names its own. New does
// not connect; Check and Query do. It fails only on a malformed dsn.
func New(dsn string, opts Options) (*Engine, error) {
	cfg, err := ParseDSN(dsn)
	if err != nil {
		return nil, err
	}
	if opts.MaxConns <= 0 {
		opts.MaxConns = 4
	}
	cfg.MultiStatements = false
	cfg.AllowAllFiles = false
	cfg.InterpolateParams = false
	cfg.ParseTime = false // values are decoded from their text (decode.go)
	if cfg.Params == nil {
		cfg.Params = map[string]string{}
	}
	for k, v := range opts.SessionParams {
		cfg.Params[k] = v
	}
	cfg.Params["time_zone"] = "'+00:00'"
	if cfg.Timeout == 0 {
		cfg.Timeout = 10 * time.Second
	}
	lim := engine.Limits{MaxRows: opts.MaxRows, MaxBytes: opts.MaxBytes}.WithDefaults()
	return &Engine{base: cfg, opts: opts, lim: lim, pools: engine.NewPools(engine.CloseDB, errors.New("mysql: engine is closed"))}, nil
}

// Dialect returns engine.MySQL.
func (e *Engine) Dialect() engine.Dialect { return engine.MySQL }

// Database returns the server's name of the database of db_id db.
func (e *Engine) Database(db string) string { return e.opts.DBPrefix + db }

// open returns a pool of conns connections to db; with fresh, every
// connection is closed when released.
func (e *Engine) open(db string, conns int, fresh bool) (*sql.DB, error) {
	cfg := e.base.Clone()
	cfg.DBName = db
	c, err := mysqldrv.NewConnector(cfg)
	if err != nil {
		return nil, err
	}
	p := sql.OpenDB(c)
	p.SetMaxOpenConns(conns)
	if fresh {
		// No connection is handed out twice: see Options.MaxConns.
		p.SetMaxIdleConns(0)
	} else {
		p.SetMaxIdleConns(conns)
		p.SetConnMaxIdleTime(time.Minute)
	}
	return p, nil
}

func (e *Engine) pool(db string) (*sql.DB, *sql.DB, error) {
	killer, err := e.pools.Get(killerKey, func() (*sql.DB, error) { return e.open("", 2, false) })
	if err != nil {
		return nil, nil, err
	}
	p, err := e.pools.Get(db, func() (*sql.DB, error) { return e.open(e.Database(db), e.opts.MaxConns, true) })
	if err != nil {
		return nil, nil, err
	}
	return p, killer, nil
}

// MySQL error numbers the engine maps.
const (
	erBadDB            = 1049 // ER_BAD_DB_ERROR: unknown database
	erQueryInterrupted = 1317 // ER_QUERY_INTERRUPTED: KILL QUERY
	erStatementTimeout = 1969 // MariaDB ER_STATEMENT_TIMEOUT: max_statement_time
	erQueryTimeout     = 3024 // MySQL ER_QUERY_TIMEOUT: max_execution_time
)

func errNumber(err error) uint16 {
	var me *mysqldrv.MySQLError
	if errors.As(err, &me) {
		return me.Number
	}
	return 0
}

func (e *Engine) conn(ctx context.Context, db string) (*sql.Conn, *sql.DB, error) {
	p, killer, err := e.pool(db)
	if err != nil {
		return nil, nil, &engine.QueryError{DB: db, Err: err}
	}
	c, err := p.Conn(ctx)
	if err != nil {
		return nil, nil, engine.ConnectFailure(ctx, db, e.Database(db), err, errNumber(err) == erBadDB)
	}
	return c, killer, nil
}

// Check connects to database db: nil when it exists, an error wrapping
// engine.ErrNoDatabase when the server has no such database.
func (e *Engine) Check(ctx context.Context, db string) error {
	c, _, err := e.conn(ctx, db)
	if err != nil {
		return err
	}
	err = c.PingContext(ctx)
	c.Close()
	if err != nil {
		if errNumber(err) == erBadDB {
			return &engine.QueryError{DB: db, Err: fmt.Errorf("%w: the server has no database %q", engine.ErrNoDatabase, e.Database(db))}
		}
		return &engine.QueryError{DB: db, Err: err}
	}
	return nil
}

// Query runs one read-only query on database db. See the package comment
// and engine.Engine.
func (e *Engine) Query(ctx context.Context, db, q string) (*result.Set, error) {
	blank, err := CheckQuery(db, q)
	if err != nil {
		return nil, err
	}
	if blank {
		return &result.Set{}, nil
	}
	c, killer, err := e.conn(ctx, db)
	if err != nil {
		return nil, err
	}
	set, err := e.run(ctx, c, killer, db, q)
	if ctx.Err() != nil || err != nil && errors.Is(err, engine.ErrTooLarge) {
		// The driver has given up this connection (or will): make sure the
		// pool does not hand it out again.
		_ = c.Raw(func(any) error { return driver.ErrBadConn })
	}
	c.Close()
	if err != nil {
		return nil, e.Failure(ctx, db, err)
	}
	return set, nil
}

// CheckQuery vets a query before it is sent, as Query does: no NUL
// character (as engine.CheckStatement), then the rules every engine
// shares as MySQL and MariaDB read the text (sqllex.NextMySQL: backslash
// escapes in strings, # and "-- " comments, no [identifiers]; SQLite's
// reading, which engine.CheckStatement uses, hid /*! … */ behind a
// quote escaped by a backslash, or behind 1--1), under every reading the
// session's sql_mode could give it (sqllex.MySQLModes: backslash escapes
// on or off, "…" a string or a name), each of which must pass:
//
//   - no comment the server runs as code (sqllex.MySQLCodeComment:
//     /*! … */, /*M! … */, /*+ … */): MariaDB runs the inside of
//     /*!SET SESSION tx_read_only = */ (SELECT 0) as a SET statement;
//   - no INTO keyword (SELECT ... INTO OUTFILE writes a file on the
//     server, INTO @v a variable of the session);
//   - one statement, whose first keyword (after opening parentheses) is
//     one of engine.QueryKeywords.
//
// blank is true for a text of only blanks, comments and semicolons, which
// has the empty result; the error is an *engine.QueryError wrapping
// engine.ErrRejected.
func CheckQuery(db, q string) (blank bool, err error) {
	if strings.ContainsRune(q, 0) {
		return false, &engine.QueryError{DB: db, Err: fmt.Errorf("%w: the query contains a null character", engine.ErrRejected)}
	}
	blank = true
	for _, m := range sqllex.MySQLModes(q) {
		mysqlBlank, why := readQuery(q, m)
		if why != "" {
			return false, &engine.QueryError{DB: db, Err: fmt.Errorf("%w: %s", engine.ErrRejected, why)}
		}
		blank = blank && mysqlBlank
	}
	return blank, nil
}

// abbrev cuts a comment to 40 bytes for a message.
func abbrev(s string) string {
	if len(s) > 40 {
		return s[:40] + "…"
	}
	return s
}

// readQuery reads q as MySQL does under mode m: whether it is blank, and
// why it is refused ("" when it is not).
func readQuery(q string, m sqllex.MySQLMode) (blank bool, why string) {
	first, ended := "", false
	for i := 0; i < len(q); {
		t, next := sqllex.NextMySQL(q, i, m)
		i = next
		switch {
		case t.Kind == sqllex.Space:
			continue
		case t.Kind == sqllex.Comment:
			if sqllex.MySQLCodeComment(t.Text) {
				return false, fmt.Sprintf("MariaDB and MySQL run the inside of a comment %s as part of the statement (/*! … */, /*M! … */, /*+ … */ are code)", abbrev(t.Text))
			}
			continue
		case t.Kind == sqllex.Punct && t.Text == ";":
			ended = first != ""
			continue
		case ended:
			return false, "you can only execute one statement at a time"
		case t.Kind == sqllex.Word && strings.EqualFold(t.Text, "INTO"):
			return false, "SELECT ... INTO writes a file or a variable"
		}
		if first == "" {
			if t.Kind == sqllex.Punct && t.Text == "(" {
				continue
			}
			first = "something else"
			if t.Kind == sqllex.Word {
				first = strings.ToUpper(t.Text)
			}
			if !slices.Contains(engine.QueryKeywords, first) {
				return false, fmt.Sprintf("only queries run here (%s), not %s", strings.Join(engine.QueryKeywords, ", "), first)
			}
		}
	}
	return first == "", ""
}

// Failure is the error Query returns for err, an error of a query on
// database db run under ctx (RunOn's, or the driver's): a timeout when
// ctx ended or the server stopped the query at its time limit
// (max_statement_time, max_execution_time), else an *engine.QueryError
// (engine.QueryFailure).
func (e *Engine) Failure(ctx context.Context, db string, err error) error {
	return engine.QueryFailure(ctx, db, err, serverTimeout)
}

// StatementTimeout is the time limit a query run under ctx gets on the
// server: the time left before ctx's deadline, else
// Options.StatementTimeout (0: none).
func (e *Engine) StatementTimeout(ctx context.Context) time.Duration {
	return engine.StatementTimeout(ctx, e.opts.StatementTimeout)
}

// TimeLimitStatement is the statement that bounds the run time of each
// later statement of a session to d on the server: SET SESSION
// max_statement_time (seconds, to the millisecond) on MariaDB (mariadb
// true), max_execution_time (milliseconds) on MySQL; 0 means no bound.
func TimeLimitStatement(mariadb bool, d time.Duration) string {
	if mariadb {
		return fmt.Sprintf("SET SESSION max_statement_time = %.3f", d.Seconds())
	}
	return fmt.Sprintf("SET SESSION max_execution_time = %d", d.Milliseconds())
}

// serverTimeout returns the message of a query the server stopped at its
// own time limit (max_statement_time, max_execution_time), else "".
func serverTimeout(err error) string {
	switch errNumber(err) {
	case erStatementTimeout, erQueryTimeout:
		return err.Error()
	}
	return ""
}

// flavourOf learns whether the server is MariaDB (once per engine).
func (e *Engine) flavourOf(ctx context.Context, c *sql.Conn) (string, error) {
	e.mu.Lock()
	f := e.flavour
	e.mu.Unlock()
	if f != "" {
		return f, nil
	}
	var v string
	if err := c.QueryRowContext(ctx, "SELECT VERSION()").Scan(&v); err != nil {
		return "", err
	}
	f = "mysql"
	if strings.Contains(strings.ToLower(v), "mariadb") {
		f = "mariadb"
	}
	e.mu.Lock()
	e.flavour = f
	e.mu.Unlock()
	return f, nil
}

// timeoutSetting returns the statement that bounds the next statement's
// run time on the server, and that bound (0: none), rounded up to the
// millisecond the server counts in.
func (e *Engine) timeoutSetting(ctx context.Context, flavour string) (string, time.Duration) {
	d := e.StatementTimeout(ctx)
	return TimeLimitStatement(flavour == "mariadb", d), d
}

func (e *Engine) run(ctx context.Context, c *sql.Conn, killer *sql.DB, db, q string) (*result.Set, error) {
	id, limit, err := e.startReadOnly(ctx, c)
	if err != nil {
		return nil, err
	}
	defer endSession(ctx, c)
	return e.RunOn(ctx, c, killer, id, db, q, limit)
}

// RunOn runs q, which CheckQuery let through, on c: a session of
// CONNECTION_ID id that the caller made read-only and bounded on the
// server to limit (0: none; TimeLimitStatement). When ctx ends (its
// deadline, the caller, or the row cap), KILL QUERY id is sent from
// killer, another connection to the server. The rows are read under the
// engine's caps (Options.MaxRows, MaxBytes; engine.TooLarge beyond) and
// decoded by their MySQL types (decode.go); once limit has passed since
// q was sent, whatever came back is a timeout (engine.ErrTimeout: a query
// the server stopped may end without an error). Its errors are raw: pass
// them through Failure. After an error other than the server's own
// (*mysql.MySQLError), or once ctx ended, the session must not be used
// again.
func (e *Engine) RunOn(ctx context.Context, c *sql.Conn, killer *sql.DB, id uint64, db, q string, limit time.Duration) (*result.Set, error) {
	qctx, cancel := context.WithCancel(ctx)
	defer cancel()
	defer killOnDone(qctx, killer, id)()

	sent := time.Now()
	rows, err := c.QueryContext(qctx, q)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	set, err := e.collect(rows, db, cancel)
	if err != nil {
		return nil, err
	}
	// A query stopped by max_statement_time or KILL QUERY does not always
	// fail: MariaDB's BENCHMARK() returns 0 without an error or a warning.
	// Whatever came back once the time limit passed is not the query's
	// result. The server starts counting after the query was sent, so its
	// limit has passed here when it stopped the query (give or take its
	// timer's precision: a millisecond is allowed).
	if limit > 0 && time.Since(sent) >= limit-time.Millisecond || qctx.Err() != nil {
		return nil, &engine.QueryError{DB: db, Err: fmt.Errorf("%w: the query reached its time limit (%s); what the server returned after it is not a result", engine.ErrTimeout, limit.Round(time.Millisecond))}
	}
	return set, nil
}

// startReadOnly makes c's session read-only with the server-side time limit
// of its flavour, and opens a read-only transaction. It returns the
// session's CONNECTION_ID (for KILL QUERY) and the time limit it set
// (engine.StatementTimeout of ctx and the configured StatementTimeout).
func (e *Engine) startReadOnly(ctx context.Context, c *sql.Conn) (uint64, time.Duration, error) {
	flavour, err := e.flavourOf(ctx, c)
	if err != nil {
		return 0, 0, err
	}
	var id uint64
	if err := c.QueryRowContext(ctx, "SELECT CONNECTION_ID()").Scan(&id); err != nil {
		return 0, 0, err
	}
	setLimit, limit := e.timeoutSetting(ctx, flavour)
	for _, s := range []string{"SET SESSION TRANSACTION READ ONLY", setLimit, "START TRANSACTION READ ONLY"} {
		if _, err := c.ExecContext(ctx, s); err != nil {
			return 0, 0, fmt.Errorf("%s: %w", s, err)
		}
	}
	return id, limit, nil
}

// endSession rolls back the transaction startReadOnly opened on c and frees
// the session's named locks, within 5 s even when ctx has ended; errors are
// ignored (the connection is closed afterwards anyway).
func endSession(ctx context.Context, c *sql.Conn) {
	rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
	defer cancel()
	_, _ = c.ExecContext(rctx, "ROLLBACK")
	// The session ends when its connection closes, but the server
	// frees its named locks only once the thread has noticed: free
	// them now, so that no other client waits on one after Query
	// returned (MariaDB 10.5+, MySQL 5.7+; an older server has no
	// such function and frees them at the close).
	_, _ = c.ExecContext(rctx, "DO RELEASE_ALL_LOCKS()")
}

// killOnDone arranges that when qctx ends (deadline, caller, or the row
// cap), the query of connection id is stopped on the server with KILL QUERY
// sent from killer (within 5 s). The returned function unregisters that,
// or waits for a KILL already under way; run defers it.
func killOnDone(qctx context.Context, killer *sql.DB, id uint64) func() {
	killed := make(chan struct{})
	stop := context.AfterFunc(qctx, func() {
		defer close(killed)
		kctx, kcancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer kcancel()
		_, _ = killer.ExecContext(kctx, fmt.Sprintf("KILL QUERY %d", id))
	})
	return func() {
		if !stop() {
			<-killed
		}
	}
}

// collect reads rows into a result set of db under e's limits, decoding
// each column by its MySQL type. On a result over the row cap, or a value
// that does not decode or fit, it calls cancel (stopping the query on the
// server) and returns the error (engine.TooLarge for the row cap).
func (e *Engine) collect(rows *sql.Rows, db string, cancel context.CancelFunc) (*result.Set, error) {
	types, err := rows.ColumnTypes()
	if err != nil {
		return nil, err
	}
	names := make([]string, len(types))
	desc := make([]string, len(types))
	decs := make([]engine.RawDecoder, len(types))
	for i, ct := range types {
		names[i] = ct.Name()
		desc[i] = fmt.Sprintf("%q (%s)", ct.Name(), ct.DatabaseTypeName())
		decs[i] = decoderFor(ct.DatabaseTypeName())
	}
	col := engine.NewCollector(db, names, e.lim)
	raw := make([]sql.RawBytes, len(types))
	dest := make([]any, len(types))
	for i := range raw {
		dest[i] = &raw[i]
	}
	for rows.Next() {
		if col.Full() {
			cancel()
			return nil, engine.TooLarge(db, e.lim.MaxRows)
		}
		if err := rows.Scan(dest...); err != nil {
			return nil, err
		}
		if err := engine.AddRaw(col, raw, decs, desc); err != nil {
			cancel()
			return nil, err
		}
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	return col.Set, nil
}

// Close closes every connection pool.
func (e *Engine) Close() error { return e.pools.Close() }

// Release closes the connections to database db, if any; a later query
// opens them again (equiv calls it before it drops a scratch database).
func (e *Engine) Release(db string) error { return e.pools.Release(db) }
