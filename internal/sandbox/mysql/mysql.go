// Package mysql is equiv's MariaDB/MySQL sandbox: scratch databases on a
// MariaDB or MySQL server, each created, filled and dropped by the sandbox
// and queried through sqljudge's MySQL engine (engine/mysql).
package mysql

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	mysqldrv "github.com/go-sql-driver/mysql"

	"github.com/sqljudge/sqljudge/internal/catalog"
	"github.com/sqljudge/sqljudge/internal/engine"
	"github.com/sqljudge/sqljudge/internal/engine/mysql"
	"github.com/sqljudge/sqljudge/internal/result"
	"github.com/sqljudge/sqljudge/internal/sandbox"
	"github.com/sqljudge/sqljudge/internal/sqllex"
)

// Sandbox makes scratch databases on a MariaDB or MySQL server: each
// Open runs CREATE DATABASE under a new name (sandbox.ScratchPrefix; utf8mb4 with
// the server's default collation), and the scratch's Close drops it. It
// never opens or changes another database. Each scratch database has two
// sessions of its own, one statement per call (multi-statements stay
// off), both pinning sql_mode (mysqlSQLMode: no ANSI_QUOTES, no
// NO_BACKSLASH_ESCAPES, no PIPES_AS_CONCAT), time_zone and, on MariaDB,
// max_statement_time:
//
//   - the writer creates the tables (once a pair: DDL commits at once on
//     MySQL) and holds the rows of the database tried in a transaction it
//     never commits: each Load rolls the last one back and inserts the
//     new rows, one prepared multi-row INSERT per table, values as
//     parameters (mysqlScratch.Load);
//   - the reader runs the queries: every transaction of the session is
//     READ ONLY at READ UNCOMMITTED (the only way another session sees the
//     writer's rows; a transaction cannot turn read-only half-way on
//     MySQL), each query checked, run, capped, decoded and classified by
//     sqljudge's MySQL engine (package mysql: CheckQuery, RunOn, Failure)
//     and followed by a reset that frees its named locks and discards the
//     session when the query left a user variable or an insert id in it
//     (mysqlScratch.Query).
//
// The account needs CREATE, DROP, SELECT, INSERT, DELETE and REFERENCES
// on the scratch databases, SELECT on the db_id databases it reads, and
// nothing else, e.g.
//
//	GRANT CREATE, DROP, SELECT, INSERT, DELETE, REFERENCES
//	  ON `sqljudge\_equiv\_%`.* TO 'equiv'@'localhost';
//
// An account with more (any privilege on *.* but USAGE, anything but
// those six on the scratch databases, anything but SELECT and SHOW VIEW
// elsewhere, anything on mysql, performance_schema or sys, EXECUTE on a
// routine, PROXY, WITH GRANT OPTION, or a role that has any of these), or
// on a server whose grants to PUBLIC give more than SELECT and SHOW VIEW
// outside those, is refused with engine.ErrPrivileged unless
// allowSuperuser (vetAccount); one whose privileges cannot be read, or
// that cannot create, fill and drop a scratch database, is refused with
// sandbox.ErrSetup before the first pair. Each scratch database carries
// sandbox.Marker in its comment (MariaDB), by which a sweep knows it.
//
// What a pair's query can read (MySQL lets a query name another database):
// every database the account may SELECT, which with the grant above is
// the scratch databases of other runs under the same account (they hold
// the values sampled from db_id databases) and the db_id databases
// themselves. Give runs of different trust an account each.
type Sandbox struct {
	cfg       *mysqldrv.Config // the DSN's, without a database: the writers'
	readerCfg *mysqldrv.Config // the readers' (cfg, and a lock wait timeout of 1s)
	mariadb   bool
	admin     *sql.DB // CREATE and DROP DATABASE, KILL QUERY
	eng       *mysql.Engine
	prefix    string
	n         atomic.Int64
	swept     []string
}

var (
	_ sandbox.Sandbox  = (*Sandbox)(nil)
	_ sandbox.DBReader = (*Sandbox)(nil)
	_ sandbox.Sweeper  = (*Sandbox)(nil)
)

// mysqlSQLMode is the sql_mode of every session of the sandbox, readers
// included: strict, and reading SQL text as equiv renders it ('…'
// strings with backslash escapes, `…` names, || as OR is never rendered).
const mysqlSQLMode = "'STRICT_ALL_TABLES,ERROR_FOR_DIVISION_BY_ZERO,NO_ENGINE_SUBSTITUTION'"

// New parses dsn (mysql.ParseDSN: mysql://user:pass@host:port/ or
// go-sql-driver's form), connects to the server, vets the account (unless
// allowSuperuser), tries a scratch database, drops the stale ones of
// earlier runs and returns the sandbox.
func New(ctx context.Context, dsn string, allowSuperuser bool) (*Sandbox, error) {
	cfg, err := mysql.ParseDSN(dsn)
	if err != nil {
		return nil, fmt.Errorf("--db: %w", err)
	}
	cfg.DBName = ""
	cfg.MultiStatements = false
	cfg.AllowAllFiles = false
	cfg.InterpolateParams = false
	if cfg.Params == nil {
		cfg.Params = map[string]string{}
	}
	cfg.Params["time_zone"] = "'+00:00'"
	cfg.Params["sql_mode"] = mysqlSQLMode
	cfg.Params["lock_wait_timeout"] = "10"
	admin, err := openMySQL(cfg)
	if err != nil {
		return nil, err
	}
	admin.SetMaxOpenConns(2)
	var version string
	if err := admin.QueryRowContext(ctx, "SELECT VERSION()").Scan(&version); err != nil {
		admin.Close()
		return nil, fmt.Errorf("--db: cannot connect: %w", err)
	}
	mariadb := strings.Contains(version, "MariaDB")
	if mariadb {
		cfg.Params["max_statement_time"] = strconv.Itoa(int(mysqlSessionLimit.Seconds()))
	}
	cfg.Params["innodb_lock_wait_timeout"] = "10"
	rcfg := cfg.Clone()
	// A locking read (… LOCK IN SHARE MODE) of a row the writer holds
	// waits for a writer that waits for it: let it fail at once.
	rcfg.Params["innodb_lock_wait_timeout"] = "1"
	s := &Sandbox{cfg: cfg, readerCfg: rcfg, mariadb: mariadb, admin: admin, prefix: sandbox.ScratchPrefix()}
	if err := s.setup(ctx, dsn, allowSuperuser); err != nil {
		admin.Close()
		if s.eng != nil {
			s.eng.Close()
		}
		return nil, err
	}
	return s, nil
}

// setup vets the account, makes the engine, tries a scratch database and
// sweeps the stale ones.
func (s *Sandbox) setup(ctx context.Context, dsn string, allowSuperuser bool) error {
	if !allowSuperuser {
		if err := vetAccount(ctx, s.admin); err != nil {
			return err
		}
	}
	eng, err := mysql.New(dsn, mysql.Options{MaxConns: 2, MaxRows: 10_000, SessionParams: map[string]string{"sql_mode": mysqlSQLMode}})
	if err != nil {
		return err
	}
	s.eng = eng
	if err := s.probe(ctx); err != nil {
		return err
	}
	s.swept, err = sweep(ctx, s.admin, s.mariadb, sandbox.StaleAfter)
	return err
}

func openMySQL(cfg *mysqldrv.Config) (*sql.DB, error) {
	conn, err := mysqldrv.NewConnector(cfg)
	if err != nil {
		return nil, fmt.Errorf("--db: %w", err)
	}
	return sql.OpenDB(conn), nil
}

// probe creates, fills and drops a scratch database (sandbox.Probe).
func (s *Sandbox) probe(ctx context.Context) error {
	var user string
	_ = s.admin.QueryRowContext(ctx, "SELECT CURRENT_USER()").Scan(&user)
	if err := sandbox.Probe(ctx, s, nil); err != nil {
		return fmt.Errorf("%w: account %s %v; %s", sandbox.ErrSetup, user, err, mysqlGrantAdvice)
	}
	return nil
}

// mysqlGrantAdvice says how to make an account fit for equiv.
const mysqlGrantAdvice = "grant an account CREATE, DROP, SELECT, INSERT, DELETE and REFERENCES on `sqljudge\\_equiv\\_%`.* (and SELECT on the db_id databases it reads) and nothing else (docs/equiv.md, \"Engines\")"

// Dialect returns engine.MySQL.
func (s *Sandbox) Dialect() engine.Dialect { return engine.MySQL }

// Swept names the stale scratch databases New dropped.
func (s *Sandbox) Swept() []string { return s.swept }

// Prefix is the name prefix of this sandbox's scratch databases
// (prefix_<n>).
func (s *Sandbox) Prefix() string { return s.prefix }

// Close closes the engine and the administrative connections.
func (s *Sandbox) Close() error {
	err := s.eng.Close()
	if aerr := s.admin.Close(); err == nil {
		err = aerr
	}
	return err
}

// Open creates a scratch database and runs ddl in it, statement by
// statement, on the scratch's writer session (DDL commits at once on
// MySQL: tables are created here, once a pair, never for a database
// tried).
func (s *Sandbox) Open(ctx context.Context, ddl []string) (sandbox.Scratch, error) {
	name := fmt.Sprintf("%s_%d", s.prefix, s.n.Add(1))
	create := "CREATE DATABASE " + engine.MySQL.QuoteIdent(name) + " CHARACTER SET utf8mb4"
	if s.mariadb {
		create += " COMMENT '" + sandbox.Marker(name) + "'" // the name holds no quote
	}
	if _, err := s.admin.ExecContext(ctx, create); err != nil {
		return nil, &sandbox.SetupError{Err: err}
	}
	sc := &mysqlScratch{sb: s, name: name}
	w, err := s.pool(name, s.cfg)
	if err != nil {
		sc.Close()
		return nil, &sandbox.SetupError{Err: err}
	}
	sc.w = w
	r, err := s.pool(name, s.readerCfg)
	if err != nil {
		sc.Close()
		return nil, &sandbox.SetupError{Err: err}
	}
	sc.r = r
	for _, st := range ddl {
		if _, err := sc.w.ExecContext(ctx, st); err != nil {
			sc.Close()
			return nil, fmt.Errorf("%s: %w", sandbox.Abbreviate(st), err)
		}
	}
	return sc, nil
}

// pool opens a pool of one connection to database name with cfg's
// settings.
func (s *Sandbox) pool(name string, cfg *mysqldrv.Config) (*sql.DB, error) {
	c := cfg.Clone()
	c.DBName = name
	p, err := openMySQL(c)
	if err != nil {
		return nil, err
	}
	p.SetMaxOpenConns(1)
	p.SetMaxIdleConns(1)
	return p, nil
}

// mysqlScratch is one scratch database and its two sessions: the writer,
// which creates the tables and holds the rows of the database tried in a
// transaction it never commits, and the reader, which runs the queries,
// read-only, reading the writer's uncommitted rows (see Sandbox).
type mysqlScratch struct {
	sb   *Sandbox
	name string

	w  *sql.DB   // the writer's pool (one connection)
	wc *sql.Conn // the writer's session; nil once discarded
	// open: wc is inside the transaction of the last Load or Exec,
	// which holds the rows (never committed).
	open bool
	// committed: rows may have been committed (an Exec of DDL commits
	// at once), so the next Load deletes them first.
	committed bool
	// inserts are the multi-row INSERTs prepared on wc, by table and
	// number of rows.
	inserts map[insertKey]*sql.Stmt

	r      *sql.DB   // the reader's pool (one connection)
	rc     *sql.Conn // the reader's session; nil once discarded
	rid    uint64    // rc's CONNECTION_ID, for KILL QUERY
	rlimit time.Duration
	// rsettings are rc's mysqlReaderSettings when it opened (MariaDB).
	rsettings []sql.NullString
}

type insertKey struct {
	table string
	rows  int
}

// mysqlMaxPrepared bounds the INSERTs prepared on a writer session (the
// server bounds them all, max_prepared_stmt_count).
const mysqlMaxPrepared = 64

// writer returns the writer's session, opening one when there is none.
func (sc *mysqlScratch) writer(ctx context.Context) (*sql.Conn, error) {
	if sc.wc != nil {
		return sc.wc, nil
	}
	c, err := sc.w.Conn(ctx)
	if err != nil {
		return nil, err
	}
	sc.wc, sc.open = c, false
	return c, nil
}

// discardWriter closes the writer's session for good (the server rolls
// its transaction back): after a failure that may have left it anywhere.
func (sc *mysqlScratch) discardWriter() {
	if sc.wc == nil {
		return
	}
	for _, st := range sc.inserts {
		st.Close()
	}
	_ = sc.wc.Raw(func(any) error { return driver.ErrBadConn })
	sc.wc.Close()
	sc.wc, sc.open, sc.inserts = nil, false, nil
}

// rollback ends the writer's transaction after a failed Load or Exec
// (to "": all of it), or discards the session when it cannot.
func (sc *mysqlScratch) rollback(ctx context.Context, to string) {
	rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
	defer cancel()
	if sc.wc == nil {
		return
	}
	st := "ROLLBACK"
	if to != "" {
		st = "ROLLBACK TO SAVEPOINT " + to
	}
	if _, err := sc.wc.ExecContext(rctx, st); err != nil || ctx.Err() != nil {
		sc.discardWriter()
		return
	}
	if to == "" {
		sc.open = false
	}
}

// Load replaces the rows of the last database tried by tables' rows, on
// the writer session, in one transaction that is never committed:
// ROLLBACK AND CHAIN (the last database's rows go away with their
// transaction, and a new one begins: no DELETE, no commit to flush) or
// START TRANSACTION, then one multi-row INSERT per table that has rows,
// prepared once per table and number of rows, values as parameters
// (referencing tables last, as tables orders them). After an Exec that
// committed rows (see Exec) it first deletes them, foreign key checks off
// (a table may reference itself), and commits that. A failed Load rolls
// back.
func (sc *mysqlScratch) Load(ctx context.Context, tables []sandbox.TableRows) error {
	c, err := sc.writer(ctx)
	if err != nil {
		return err
	}
	if sc.committed {
		if err := sc.clear(ctx, c, tables); err != nil {
			return err
		}
	}
	begin := "START TRANSACTION"
	if sc.open {
		begin = "ROLLBACK AND CHAIN"
	}
	if _, err := c.ExecContext(ctx, begin); err != nil {
		sc.discardWriter()
		return err
	}
	sc.open = true
	for _, t := range tables {
		if len(t.Rows) == 0 {
			continue
		}
		if err := sc.insert(ctx, c, t); err != nil {
			sc.rollback(ctx, "")
			return err
		}
	}
	return nil
}

// clear deletes the committed rows of tables and commits.
func (sc *mysqlScratch) clear(ctx context.Context, c *sql.Conn, tables []sandbox.TableRows) error {
	if sc.open {
		sc.rollback(ctx, "")
		if sc.wc == nil {
			return errors.New("mysql: the writer session was lost")
		}
	}
	err := func() error {
		for _, st := range []string{"START TRANSACTION", "SET SESSION foreign_key_checks = 0"} {
			if _, err := c.ExecContext(ctx, st); err != nil {
				return err
			}
		}
		sc.open = true
		if err := sandbox.DeleteRows(ctx, c, tables); err != nil {
			return err
		}
		for _, st := range []string{"SET SESSION foreign_key_checks = 1", "COMMIT"} {
			if _, err := c.ExecContext(ctx, st); err != nil {
				return err
			}
		}
		return nil
	}()
	if err != nil {
		sc.rollback(ctx, "")
		if sc.wc != nil {
			if _, ferr := sc.wc.ExecContext(context.WithoutCancel(ctx), "SET SESSION foreign_key_checks = 1"); ferr != nil {
				sc.discardWriter()
			}
		}
		return err
	}
	sc.open, sc.committed = false, false
	return nil
}

// insert inserts t's rows with one prepared multi-row INSERT.
func (sc *mysqlScratch) insert(ctx context.Context, c *sql.Conn, t sandbox.TableRows) error {
	k := insertKey{t.Name, len(t.Rows)}
	st := sc.inserts[k]
	q := ""
	if st == nil {
		q = sandbox.InsertRowsSQL(engine.MySQL, t.Name, t.Cols, len(t.Rows))
		var err error
		if st, err = c.PrepareContext(ctx, q); err != nil {
			return fmt.Errorf("%s: %w", sandbox.Abbreviate(q), err)
		}
		if len(sc.inserts) < mysqlMaxPrepared {
			if sc.inserts == nil {
				sc.inserts = map[insertKey]*sql.Stmt{}
			}
			sc.inserts[k] = st
		} else {
			defer st.Close()
		}
	}
	args := make([]any, 0, len(t.Rows)*t.Cols)
	for _, row := range t.Rows {
		for _, v := range row {
			args = append(args, sandbox.ArgOf(engine.MySQL, v))
		}
	}
	if _, err := st.ExecContext(ctx, args...); err != nil {
		if q == "" {
			q = sandbox.InsertRowsSQL(engine.MySQL, t.Name, t.Cols, len(t.Rows))
		}
		return fmt.Errorf("%s: %w", sandbox.Abbreviate(q), err)
	}
	return nil
}

// Exec runs the statements, one per call, on the writer session, after
// the rows of the last Load, in its transaction. When all are INSERTs
// they run under a savepoint: a failure undoes them all and keeps the
// loaded rows, and like those rows they are never committed. A statement
// of another kind (a witness's CREATE TABLE) commits at once on MySQL,
// the rows before it included: the Exec is then committed, and the next
// Load deletes the rows first; a failure rolls back what it can.
func (sc *mysqlScratch) Exec(ctx context.Context, stmts []string) error {
	c, err := sc.writer(ctx)
	if err != nil {
		return err
	}
	inserts := true
	for _, st := range stmts {
		if !isInsert(st) {
			inserts = false
		}
	}
	var pre []string
	if !sc.open {
		pre = append(pre, "START TRANSACTION")
	}
	if inserts {
		pre = append(pre, "SAVEPOINT sqljudge_exec")
	}
	for _, st := range pre {
		if _, err := c.ExecContext(ctx, st); err != nil {
			sc.discardWriter()
			return err
		}
		sc.open = true
	}
	if !inserts {
		sc.committed = true
	}
	for _, st := range stmts {
		if _, err := c.ExecContext(ctx, st); err != nil {
			if inserts {
				sc.rollback(ctx, "sqljudge_exec")
			} else {
				sc.rollback(ctx, "")
			}
			return fmt.Errorf("%s: %w", sandbox.Abbreviate(st), err)
		}
	}
	post := "RELEASE SAVEPOINT sqljudge_exec"
	if !inserts {
		post = "COMMIT"
	}
	if _, err := c.ExecContext(ctx, post); err != nil {
		sc.discardWriter()
		return err
	}
	if !inserts {
		sc.open = false
	}
	return nil
}

// isInsert reports whether st's first word is INSERT.
func isInsert(st string) bool {
	for _, t := range sqllex.Tokenize(st) {
		if t.Kind == sqllex.Word {
			return strings.EqualFold(t.Text, "INSERT")
		}
	}
	return false
}

// mysqlReaderSetup makes a reader session read-only for good and lets it
// read the writer's uncommitted rows: every later transaction of the
// session, each query's own included (autocommit), is READ ONLY
// (the server refuses a write, SELECT … FOR UPDATE included) at READ
// UNCOMMITTED. No statement a query may be (engine.QueryKeywords) changes
// it.
const mysqlReaderSetup = "SET SESSION TRANSACTION ISOLATION LEVEL READ UNCOMMITTED, READ ONLY"

// mysqlReaderReset ends each query on the reader: it frees the named
// locks the query took (GET_LOCK) and reads whether it left anything else
// in the session (a user variable, @v := …; LAST_INSERT_ID(n)), in which
// case the session is discarded. On MariaDB it also reads the session's
// max_statement_time and mysqlReaderSettings back (mariadbReaderReset).
const mysqlReaderReset = "SELECT RELEASE_ALL_LOCKS(), LAST_INSERT_ID(), (SELECT COUNT(*) FROM information_schema.USER_VARIABLES)"

// mysqlReaderSettings are the session settings of a reader that no query
// may change, read when the session opens and after each query on
// MariaDB: a session whose settings differ from those it opened with is
// discarded. They are what keeps the session read-only and bounded
// (tx_read_only, tx_isolation, autocommit, in_transaction, the lock
// waits), how the server reads the next query's text (sql_mode, the
// character sets), and what a query returns (time zone, collation,
// sql_select_limit, the sizes and formats of results). No statement a
// query may be changes them; the check is for a way through that
// mysql.CheckQuery does not know of (MariaDB ran /*!SET SESSION
// tx_read_only = */ (SELECT 0) before comments that are code were
// refused). max_statement_time is read too, and must be the limit Query
// set.
var mysqlReaderSettings = []string{
	"tx_read_only", "tx_isolation", "autocommit", "in_transaction", "sql_mode",
	"character_set_client", "character_set_connection", "character_set_results", "collation_connection",
	"time_zone", "sql_select_limit", "max_join_size", "div_precision_increment", "group_concat_max_len",
	"lc_time_names", "default_week_format", "sql_auto_is_null", "max_recursive_iterations",
	"innodb_lock_wait_timeout", "lock_wait_timeout",
}

// sessionSelect lists mysqlReaderSettings for a SELECT: @@SESSION.a, ….
func sessionSelect() string {
	vars := make([]string, len(mysqlReaderSettings))
	for i, v := range mysqlReaderSettings {
		vars[i] = "@@SESSION." + v
	}
	return strings.Join(vars, ", ")
}

// mariadbReaderOpen and mariadbReaderReset are the statements that read
// a MariaDB reader's id and settings when it opens, and end each query
// (mysqlReaderReset, then max_statement_time and mysqlReaderSettings).
var (
	mariadbReaderOpen  = "SELECT CONNECTION_ID(), " + sessionSelect()
	mariadbReaderReset = mysqlReaderReset + ", @@SESSION.max_statement_time, " + sessionSelect()
)

// reader returns the reader's session, opening one when there is none:
// read-only for good (mysqlReaderSetup), its id and, on MariaDB, its
// settings read (mysqlReaderSettings).
func (sc *mysqlScratch) reader(ctx context.Context) (*sql.Conn, error) {
	if sc.rc != nil {
		return sc.rc, nil
	}
	c, err := sc.r.Conn(ctx)
	if err != nil {
		return nil, err
	}
	var id uint64
	var settings []sql.NullString
	if _, err = c.ExecContext(ctx, mysqlReaderSetup); err == nil {
		if sc.sb.mariadb {
			settings = make([]sql.NullString, len(mysqlReaderSettings))
			dest := []any{&id}
			for i := range settings {
				dest = append(dest, &settings[i])
			}
			err = c.QueryRowContext(ctx, mariadbReaderOpen).Scan(dest...)
		} else {
			err = c.QueryRowContext(ctx, "SELECT CONNECTION_ID()").Scan(&id)
		}
	}
	if err != nil {
		_ = c.Raw(func(any) error { return driver.ErrBadConn })
		c.Close()
		return nil, err
	}
	sc.rc, sc.rid, sc.rlimit, sc.rsettings = c, id, -1, settings
	return c, nil
}

// discardReader closes the reader's session for good.
func (sc *mysqlScratch) discardReader() {
	if sc.rc == nil {
		return
	}
	_ = sc.rc.Raw(func(any) error { return driver.ErrBadConn })
	sc.rc.Close()
	sc.rc = nil
}

// mysqlSessionLimit bounds every statement of the sandbox's sessions on
// MariaDB (max_statement_time), and a query without a deadline on MySQL.
const mysqlSessionLimit = 30 * time.Second

// mysqlLimitStep is the step the reader's time limit is rounded down to,
// so that it is set again only when it changes by a step.
const mysqlLimitStep = 100 * time.Millisecond

// Query runs one read-only query on the rows of the last Load, as the
// MySQL engine does (mysql.CheckQuery first; the engine's RunOn reads,
// decodes and caps its rows, KILL QUERY when ctx ends; its Failure
// classifies the errors), on the scratch's reader session: read-only at
// READ UNCOMMITTED (mysqlReaderSetup), so that it reads the rows the
// writer never commits, bounded on the server by max_statement_time (or
// max_execution_time) set to the time left (at most mysqlSessionLimit),
// rounded down to 0.1s, and set again only when that changes (one round
// trip for the query, one for the reset). After the query, mysqlReaderReset frees
// its named locks and reads the session back; a session the query left a
// variable or an insert id in, or whose time limit or settings
// (mysqlReaderSettings) differ from those it opened with, or one that a
// context ended, a cap, a timeout or a failure of the connection
// stopped, is discarded, and the next query opens a new one (the rows
// stay: they are the writer's).
func (sc *mysqlScratch) Query(ctx context.Context, q string) (*result.Set, error) {
	blank, err := mysql.CheckQuery(sc.name, q)
	if err != nil {
		return nil, err
	}
	if blank {
		return &result.Set{}, nil
	}
	return sc.run(ctx, q)
}

// run is Query after the check: it runs q on the reader session and
// resets it (tests call it to run what the check would refuse).
func (sc *mysqlScratch) run(ctx context.Context, q string) (*result.Set, error) {
	eng := sc.sb.eng
	c, err := sc.reader(ctx)
	if err != nil {
		return nil, engine.ConnectFailure(ctx, sc.name, sc.name, err, false)
	}
	limit := eng.StatementTimeout(ctx)
	if limit <= 0 || limit > mysqlSessionLimit {
		limit = mysqlSessionLimit
	}
	if limit > mysqlLimitStep {
		limit = limit.Truncate(mysqlLimitStep)
	}
	if limit != sc.rlimit {
		if _, err := c.ExecContext(ctx, mysql.TimeLimitStatement(sc.sb.mariadb, limit)); err != nil {
			sc.discardReader()
			return nil, eng.Failure(ctx, sc.name, err)
		}
		sc.rlimit = limit
	}
	set, err := eng.RunOn(ctx, c, sc.sb.admin, sc.rid, sc.name, q, limit)
	if err != nil && !serverError(err) || ctx.Err() != nil || !sc.resetReader(ctx, c) {
		sc.discardReader()
	}
	if err != nil {
		return nil, eng.Failure(ctx, sc.name, err)
	}
	return set, nil
}

// serverError reports whether err is the server's refusal of a query
// (which leaves the session as it was), not a cap, a timeout or a failure
// of the connection.
func serverError(err error) bool {
	var me *mysqldrv.MySQLError
	return errors.As(err, &me) && !errors.Is(err, engine.ErrTimeout) && !errors.Is(err, engine.ErrTooLarge)
}

// resetReader runs mysqlReaderReset on c (mariadbReaderReset on
// MariaDB): false when the session must be discarded, because the query
// left a variable or an insert id in it, or changed its time limit or one
// of mysqlReaderSettings, or the reset failed (on MySQL, which has no
// information_schema.USER_VARIABLES, it always does).
func (sc *mysqlScratch) resetReader(ctx context.Context, c *sql.Conn) bool {
	var locks, insertID, vars sql.NullInt64
	if !sc.sb.mariadb {
		err := c.QueryRowContext(ctx, mysqlReaderReset).Scan(&locks, &insertID, &vars)
		return err == nil && insertID.Int64 == 0 && vars.Int64 == 0
	}
	var limit sql.NullFloat64
	settings := make([]sql.NullString, len(mysqlReaderSettings))
	dest := []any{&locks, &insertID, &vars, &limit}
	for i := range settings {
		dest = append(dest, &settings[i])
	}
	if err := c.QueryRowContext(ctx, mariadbReaderReset).Scan(dest...); err != nil {
		return false
	}
	if insertID.Int64 != 0 || vars.Int64 != 0 || math.Abs(limit.Float64-sc.rlimit.Seconds()) > 0.0005 {
		return false
	}
	return slices.Equal(settings, sc.rsettings)
}

// Close drops the scratch database (with a context of its own, so that a
// run stopped by its budget or by the user still drops it), after closing
// its sessions (the writer's transaction rolls back).
func (sc *mysqlScratch) Close() error {
	ctx, cancel := context.WithTimeout(context.Background(), sandbox.CloseTimeout)
	defer cancel()
	sc.discardReader()
	if sc.wc != nil {
		for _, st := range sc.inserts {
			st.Close()
		}
		if sc.open {
			_, _ = sc.wc.ExecContext(ctx, "ROLLBACK")
		}
		sc.wc.Close()
		sc.wc, sc.open, sc.inserts = nil, false, nil
	}
	for _, p := range []*sql.DB{sc.r, sc.w} {
		if p != nil {
			_ = p.Close()
		}
	}
	_ = sc.sb.eng.Release(sc.name)
	_, err := sc.sb.admin.ExecContext(ctx, "DROP DATABASE IF EXISTS "+engine.MySQL.QuoteIdent(sc.name))
	return err
}

// mariadbIdleScratchQuery lists the scratch databases the account sees,
// marked as the sandbox marks them (sandbox.Marker, in the database's
// comment), that no session of the account is connected to (without
// PROCESS, PROCESSLIST shows the account's own sessions, which is every
// run of it).
const mariadbIdleScratchQuery = `SELECT s.SCHEMA_NAME FROM information_schema.SCHEMATA s
WHERE s.SCHEMA_NAME LIKE 'sqljudge\\_equiv\\_%'
  AND s.SCHEMA_COMMENT = CONCAT(?, s.SCHEMA_NAME)
  AND NOT EXISTS (SELECT 1 FROM information_schema.PROCESSLIST p WHERE p.DB = s.SCHEMA_NAME)
ORDER BY s.SCHEMA_NAME`

// sweep drops the stale scratch databases (see sandbox's scratch.go) and
// returns their names. On MySQL, which keeps no comment on a database,
// no scratch database is marked, and none is dropped.
func sweep(ctx context.Context, admin *sql.DB, mariadb bool, age time.Duration) ([]string, error) {
	if !mariadb {
		return nil, nil
	}
	rows, err := admin.QueryContext(ctx, mariadbIdleScratchQuery, sandbox.MarkerPrefix)
	if err != nil {
		return nil, fmt.Errorf("--db: cannot list scratch databases: %w", err)
	}
	var names []string
	for rows.Next() {
		var n string
		if err := rows.Scan(&n); err != nil {
			rows.Close()
			return nil, err
		}
		names = append(names, n)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, err
	}
	var dropped []string
	now := time.Now()
	for _, n := range names {
		if !sandbox.IsStaleName(n, now, age) {
			continue
		}
		if _, err := admin.ExecContext(ctx, "DROP DATABASE IF EXISTS "+engine.MySQL.QuoteIdent(n)); err == nil {
			dropped = append(dropped, n)
		}
	}
	return dropped, nil
}

// ReadDB reads database dbID of the MariaDB or MySQL server through the
// sandbox's engine (catalog.Read with o: base tables by name, column
// types as COLUMN_TYPE spells them, NOT NULL, primary keys, unique
// indexes, foreign keys within the database, CHECK constraints where the
// server keeps them, samples). dbID must be a name (engine.CheckDBID); it
// is the connection's database and never part of a statement. Every
// statement is a SELECT run through the MySQL engine in a read-only
// transaction: nothing is written to dbID.
func (s *Sandbox) ReadDB(ctx context.Context, dbID string, o catalog.Options) (*catalog.Database, error) {
	if err := engine.CheckDBID(dbID); err != nil {
		return nil, err
	}
	return catalog.Read(ctx, s.eng, dbID, o)
}

// QueryDB runs q on database dbID through the read-only engine.
func (s *Sandbox) QueryDB(ctx context.Context, dbID, q string) (*result.Set, error) {
	return s.eng.Query(ctx, dbID, q)
}
