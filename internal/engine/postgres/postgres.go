// Package postgres is sqljudge's PostgreSQL engine, on github.com/jackc/pgx/v5.
//
// A db_id names a database on the server (Defog SQL-Eval keeps one database
// per db_name), reached with the credentials, host and options of the DSN
// given to New. The DSN's role must not be able to administer the server
// (a superuser, CREATEROLE or REPLICATION, or a member at any depth of a
// role that is one or has one, or of one of AdminRoles: VetRole): such a
// DSN is refused with engine.ErrPrivileged unless Options.AllowSuperuser,
// so that calls like pg_read_file or pg_terminate_backend in a prediction
// fail as pred_error. Every query:
//
//   - must be one statement starting with SELECT, WITH, VALUES, TABLE or SHOW
//     (anything else is engine.ErrRejected before it is sent), and is sent
//     with the extended protocol, which refuses a second statement too;
//   - runs inside BEGIN TRANSACTION READ ONLY on a session whose
//     default_transaction_read_only is on, and the transaction is always
//     rolled back, so neither a write nor a SET survives it; then DISCARD
//     ALL returns the session to its state at connection, so nothing the
//     query left in it (a session-level advisory lock, a cursor WITH HOLD)
//     outlives it or reaches the next query on that connection;
//   - carries SET LOCAL statement_timeout equal to the time left before the
//     context's deadline (or Options.StatementTimeout when the context has
//     none), so the server stops it by itself, and when the context ends
//     pgx sends the server a cancel request (not only a closed socket, which
//     leaves the query running); the connection is then discarded;
//   - reads at most Options.MaxRows rows and Options.MaxBytes bytes
//     (engine.CellBytes; the query is cancelled on the server beyond).
//
// Values are read in PostgreSQL's text format and decoded in one place,
// decode.go, into the typed value model (see there for every type).
// Sessions use TimeZone UTC, DateStyle ISO and IntervalStyle iso_8601 so
// that the text is unambiguous.
package postgres

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgconn/ctxwatch"
	"github.com/jackc/pgx/v5/pgxpool"

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
	// StatementTimeout bounds a query on the server when its context has no
	// deadline; 0 means no bound. With a deadline, the time left is used.
	StatementTimeout time.Duration
	// DBPrefix is put before every db_id to name its database on the
	// server: with "t_", db_id "academic" is the database "t_academic".
	// Tests use it to keep their databases apart; "" by default.
	DBPrefix string
	// AllowSuperuser lets the engine run predictions under a role that may
	// administer the server (see engine.ErrPrivileged). Without it such a
	// DSN fails Check and Query: under a superuser a prediction can call
	// pg_read_file, pg_terminate_backend, pg_reload_conf, lo_import or
	// pg_ls_dir, and SET ROLE to a lesser role would not hold (the session
	// user may set the role back from inside a query).
	AllowSuperuser bool
	// SessionParams are startup parameters every session gets besides the
	// engine's own (which win on a clash: default_transaction_read_only
	// stays on), e.g. package equiv's search_path and
	// standard_conforming_strings for its scratch databases.
	SessionParams map[string]string
}

// Engine is the PostgreSQL engine. It is safe for concurrent use.
type Engine struct {
	base  *pgxpool.Config
	opts  Options
	lim   engine.Limits
	pools *engine.Pools[*pgxpool.Pool]

	mu     sync.Mutex
	vetted error // the role check's verdict, once made
	vetOK  bool
}

var _ engine.Engine = (*Engine)(nil)

// sessionParams are set on every connection (as startup parameters, so no
// query can be run before them).
var sessionParams = map[string]string{
	"default_transaction_read_only":       "on",
	"idle_in_transaction_session_timeout": "60000",
	"application_name":                    "sqljudge",
}

// decodeParams are the settings decode.go reads values under; every
// session gets them too (see DecodeParams).
var decodeParams = map[string]string{
	"TimeZone":           "UTC",
	"DateStyle":          "ISO, MDY",
	"IntervalStyle":      "iso_8601",
	"extra_float_digits": "1",
	"bytea_output":       "hex",
	"client_encoding":    "UTF8",
}

// New returns an engine for the server of dsn, a libpq connection string
// (postgres://user:pass@host:port/db?sslmode=disable, or key=value
// form). The database named in dsn is not used: each query names its own.
// New does not connect; Check and Query do. It fails only on a malformed
// dsn.
func New(dsn string, opts Options) (*Engine, error) {
	cfg, err := pgxpool.ParseConfig(dsn)
	if err != nil {
		return nil, fmt.Errorf("postgres: bad DSN: %w", err)
	}
	if opts.MaxConns <= 0 {
		opts.MaxConns = 4
	}
	cc := cfg.ConnConfig
	if cc.RuntimeParams == nil {
		cc.RuntimeParams = map[string]string{}
	}
	for k, v := range opts.SessionParams {
		cc.RuntimeParams[k] = v
	}
	for k, v := range decodeParams {
		cc.RuntimeParams[k] = v
	}
	for k, v := range sessionParams {
		cc.RuntimeParams[k] = v
	}
	// On a cancelled context, ask the server to cancel the running query at
	// once; give it a second before the socket is cut.
	cc.BuildContextWatcherHandler = func(pc *pgconn.PgConn) ctxwatch.Handler {
		return &pgconn.CancelRequestContextWatcherHandler{Conn: pc, CancelRequestDelay: 0, DeadlineDelay: time.Second}
	}
	cfg.MaxConns = int32(opts.MaxConns)
	cfg.MinConns = 0
	cfg.MaxConnIdleTime = time.Minute
	lim := engine.Limits{MaxRows: opts.MaxRows, MaxBytes: opts.MaxBytes}.WithDefaults()
	closePool := func(p *pgxpool.Pool) error { p.Close(); return nil }
	return &Engine{base: cfg, opts: opts, lim: lim, pools: engine.NewPools(closePool, errors.New("postgres: engine is closed"))}, nil
}

// Dialect returns engine.Postgres.
func (e *Engine) Dialect() engine.Dialect { return engine.Postgres }

// Database returns the server's name of the database of db_id db.
func (e *Engine) Database(db string) string { return e.opts.DBPrefix + db }

func (e *Engine) pool(db string) (*pgxpool.Pool, error) {
	return e.pools.Get(db, func() (*pgxpool.Pool, error) {
		cfg := e.base.Copy()
		cfg.ConnConfig.Database = e.Database(db)
		return pgxpool.NewWithConfig(context.Background(), cfg)
	})
}

// Check connects to database db: nil when it exists and accepts the
// DSN's credentials, an error wrapping engine.ErrNoDatabase when the server
// has no such database.
func (e *Engine) Check(ctx context.Context, db string) error {
	c, err := e.acquire(ctx, db)
	if err != nil {
		return err
	}
	c.Release()
	return nil
}

func (e *Engine) acquire(ctx context.Context, db string) (*pgxpool.Conn, error) {
	p, err := e.pool(db)
	if err != nil {
		return nil, &engine.QueryError{DB: db, Err: err}
	}
	c, err := p.Acquire(ctx)
	if err != nil {
		var pe *pgconn.PgError
		noDB := errors.As(err, &pe) && pe.Code == "3D000" // invalid_catalog_name
		return nil, engine.ConnectFailure(ctx, db, e.Database(db), err, noDB)
	}
	if err := e.vet(ctx, c); err != nil {
		c.Release()
		return nil, &engine.QueryError{DB: db, Err: err}
	}
	return c, nil
}

// AdminRoles are the predefined roles whose members (at any depth, and
// whether or not they inherit: a member may SET ROLE to it, from inside a
// query too, with set_config('role', …)) may reach beyond the databases
// they are given: read or write the server's files, run programs on it,
// read every setting, other sessions' queries and statistics, or signal
// other backends (cancel a superuser's query).
var AdminRoles = []string{
	"pg_execute_server_program", "pg_monitor", "pg_read_all_settings", "pg_read_all_stats",
	"pg_read_server_files", "pg_signal_backend", "pg_stat_scan_tables", "pg_write_server_files",
}

// privilegeQuery reads what VetRole judges of role $2 (NULL: the current
// role): its name,
// whether it is a superuser, has CREATEROLE or REPLICATION, and the roles
// it is a MEMBER of (pg_has_role's MEMBER: at any depth, through roles
// that do not inherit too) that are among $1 (AdminRoles) or are
// superusers or have CREATEROLE or REPLICATION, each with why.
const privilegeQuery = `SELECT r.rolname, r.rolsuper, r.rolcreaterole, r.rolreplication,
	coalesce((SELECT string_agg(p.rolname || CASE WHEN p.rolsuper THEN ' (a superuser)'
			WHEN p.rolcreaterole THEN ' (with CREATEROLE)' WHEN p.rolreplication THEN ' (with REPLICATION)' ELSE '' END,
			', ' ORDER BY p.rolname)
		FROM pg_roles p
		WHERE p.oid <> r.oid AND pg_has_role(r.oid, p.oid, 'MEMBER')
		  AND (p.rolname = ANY($1) OR p.rolsuper OR p.rolcreaterole OR p.rolreplication)), '')
FROM pg_roles r WHERE r.rolname = coalesce($2, current_user)`

// RowQuerier is what VetRole reads through: a pgx connection or a pooled
// one.
type RowQuerier interface {
	QueryRow(ctx context.Context, sql string, args ...any) pgx.Row
}

// VetRole judges the role of the session c: a *PrivilegeError when it may
// administer the server (a superuser, CREATEROLE or REPLICATION, or a
// MEMBER, at any depth, of a role that is one or has one, or of one of
// AdminRoles), nil when it may not, or the error of reading it.
func VetRole(ctx context.Context, c RowQuerier) (*PrivilegeError, error) {
	return vetRole(ctx, c, nil)
}

// VetNamedRole is VetRole for the existing role named role, read on c
// (db load vets the reader role it is told to make).
func VetNamedRole(ctx context.Context, c RowQuerier, role string) (*PrivilegeError, error) {
	return vetRole(ctx, c, &role)
}

// vetRole runs privilegeQuery for role (nil: the current role).
func vetRole(ctx context.Context, c RowQuerier, role *string) (*PrivilegeError, error) {
	var pe PrivilegeError
	if err := c.QueryRow(ctx, privilegeQuery, AdminRoles, role).Scan(&pe.Role, &pe.Superuser, &pe.CreateRole, &pe.Replication, &pe.Members); err != nil {
		return nil, err
	}
	if pe.Superuser || pe.CreateRole || pe.Replication || pe.Members != "" {
		return &pe, nil
	}
	return nil, nil
}

// vet refuses, once per engine, a role that may administer the server
// (VetRole), unless Options.AllowSuperuser.
func (e *Engine) vet(ctx context.Context, c *pgxpool.Conn) error {
	if e.opts.AllowSuperuser {
		return nil
	}
	e.mu.Lock()
	done, verdict := e.vetOK, e.vetted
	e.mu.Unlock()
	if done {
		return verdict
	}
	pe, err := VetRole(ctx, c)
	if err != nil {
		return fmt.Errorf("postgres: cannot read the role's privileges: %w", err)
	}
	if pe != nil {
		verdict = pe
	}
	e.mu.Lock()
	e.vetOK, e.vetted = true, verdict
	e.mu.Unlock()
	return verdict
}

// PrivilegeError is the refusal of a role that may administer the
// server: Role is its name, Superuser, CreateRole and Replication its
// attributes, Members the roles it is a member of (at any depth) that
// administer (AdminRoles, and superusers and roles with CREATEROLE or
// REPLICATION, marked so), "" for none. errors.Is(err,
// engine.ErrPrivileged) holds. Its message advises eval's remedy, a role
// that may only read; a caller needing other rights (equiv creates
// databases) words its own from Risk.
type PrivilegeError struct {
	Role        string
	Superuser   bool
	CreateRole  bool
	Replication bool
	Members     string
}

// Risk says what the role allows, for a statement written by who ("a
// prediction", "a query"): `role "x" is a superuser, so a prediction
// could call pg_read_file, …`.
func (e *PrivilegeError) Risk(who string) string {
	if e.Superuser {
		return fmt.Sprintf("role %q is a superuser, so %s could call pg_read_file, pg_terminate_backend or pg_reload_conf", e.Role, who)
	}
	var why []string
	if e.CreateRole {
		why = append(why, "has CREATEROLE (it may grant itself pg_execute_server_program)")
	}
	if e.Replication {
		why = append(why, "has REPLICATION (it may create replication slots)")
	}
	if e.Members != "" {
		why = append(why, "is a member of "+e.Members+" (a member may take a role's rights with set_config('role', …) inside a query, whether or not it inherits them)")
	}
	return fmt.Sprintf("role %q %s, so %s could read server files or settings, read or end other sessions' queries, or act as a superuser", e.Role, strings.Join(why, " and "), who)
}

// Error returns eval's refusal.
func (e *PrivilegeError) Error() string {
	return fmt.Sprintf("%v: %s; connect as a role that may only read the benchmark's tables (README, \"A read-only role\"), or pass --allow-superuser", engine.ErrPrivileged, e.Risk("a prediction"))
}

// Unwrap returns engine.ErrPrivileged.
func (e *PrivilegeError) Unwrap() error { return engine.ErrPrivileged }

// Query runs one read-only query on database db. See the package comment
// and engine.Engine.
func (e *Engine) Query(ctx context.Context, db, q string) (*result.Set, error) {
	blank, err := engine.CheckStatement(db, q, engine.QueryKeywords)
	if err != nil {
		return nil, err
	}
	if blank {
		return &result.Set{}, nil
	}
	c, err := e.acquire(ctx, db)
	if err != nil {
		return nil, err
	}
	set, discard, err := e.run(ctx, c.Conn().PgConn(), db, q)
	if discard || ctx.Err() != nil {
		// A cancel request may still be on its way to this backend, or the
		// transaction may not have ended: never hand the connection out again.
		closeCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), time.Second)
		_ = c.Conn().Close(closeCtx)
		cancel()
	}
	c.Release()
	if err != nil {
		return nil, engine.QueryFailure(ctx, db, err, serverTimeout)
	}
	return set, nil
}

// serverTimeout returns the message of a query the server stopped at its
// statement_timeout (query_canceled), else "".
func serverTimeout(err error) string {
	var pe *pgconn.PgError
	if errors.As(err, &pe) && pe.Code == "57014" {
		return pe.Message
	}
	return ""
}

// run executes q in a read-only transaction on pc. discard is true when the
// connection must not be reused.
func (e *Engine) run(ctx context.Context, pc *pgconn.PgConn, db, q string) (set *result.Set, discard bool, err error) {
	begin := fmt.Sprintf("BEGIN TRANSACTION READ ONLY; SET LOCAL statement_timeout = %d", engine.StatementTimeout(ctx, e.opts.StatementTimeout).Milliseconds())
	if _, err := pc.Exec(ctx, begin).ReadAll(); err != nil {
		return nil, true, err
	}
	defer func() {
		rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
		defer cancel()
		if _, rerr := pc.Exec(rctx, "ROLLBACK").ReadAll(); rerr != nil {
			discard = true
			return
		}
		// The rollback undoes the transaction, not the session: a
		// session-level advisory lock (pg_advisory_lock) stays held, a
		// cursor WITH HOLD stays open. DISCARD ALL returns the session to
		// its state at connection (startup parameters included), so the
		// next query starts clean and no lock outlives its query.
		if _, rerr := pc.Exec(rctx, "DISCARD ALL").ReadAll(); rerr != nil {
			discard = true
		}
	}()

	qctx, cancel := context.WithCancel(ctx)
	defer cancel()
	rr := pc.ExecParams(qctx, q, nil, nil, nil, nil) // no result formats: all text
	return e.ReadResult(db, rr, cancel)
}

// ReadResult reads the rows of rr, a query's result in text format on a
// session with the engine's DecodeParams, into a result.Set as Query
// does: each column decoded by its type (decode.go), the engine's row
// and byte caps applied. Past a cap it calls cancel (which must cancel
// the context rr's connection watches, so that the server stops
// producing rows) and returns the cap's error with discard true: the
// connection must then not be used again. A statement without a result
// gives a set with no columns and no rows. Package sandbox/postgres reads
// its scratch queries through it.
func (e *Engine) ReadResult(db string, rr *pgconn.ResultReader, cancel context.CancelFunc) (set *result.Set, discard bool, err error) {
	fields := rr.FieldDescriptions()
	names := make([]string, len(fields))
	desc := make([]string, len(fields))
	decs := make([]engine.RawDecoder, len(fields))
	for i, f := range fields {
		names[i] = f.Name
		desc[i] = fmt.Sprintf("%q (type oid %d)", f.Name, f.DataTypeOID)
		decs[i] = decoderFor(f.DataTypeOID)
	}
	col := engine.NewCollector(db, names, e.lim)
	var rowErr error
	for rr.NextRow() {
		if rowErr = engine.AddRaw(col, rr.Values(), decs, desc); rowErr != nil {
			cancel() // the server stops producing rows
			break
		}
	}
	_, err = rr.Close()
	if rowErr != nil {
		return nil, true, rowErr
	}
	if err != nil {
		return nil, false, err
	}
	set = col.Set
	if len(fields) == 0 {
		// A statement without a result (SHOW returns one; a utility command
		// that slipped through returns none): no columns, no rows.
		set.Rows = nil
	}
	return set, false, nil
}

// Failure is the error Query returns for err, the failure of a query on
// database db run under ctx: engine.QueryFailure, which tells a timeout
// (the context's or the server's statement_timeout), a cap and the
// query's own error apart.
func (e *Engine) Failure(ctx context.Context, db string, err error) error {
	return engine.QueryFailure(ctx, db, err, serverTimeout)
}

// StatementTimeout is the statement_timeout a query run under ctx gets:
// the time left before ctx's deadline, else Options.StatementTimeout.
func (e *Engine) StatementTimeout(ctx context.Context) time.Duration {
	return engine.StatementTimeout(ctx, e.opts.StatementTimeout)
}

// DecodeParams are the session settings the decoding of results relies
// on (time zone, date, interval, float and bytea output), as startup
// parameters: a session that reads results through ReadResult must have
// them. A fresh map each call.
func DecodeParams() map[string]string {
	out := make(map[string]string, len(decodeParams))
	for k, v := range decodeParams {
		out[k] = v
	}
	return out
}

// Release closes the connections to database db, if any; a later query
// opens them again. Package equiv calls it before it drops a scratch
// database.
func (e *Engine) Release(db string) error { return e.pools.Release(db) }

// Close closes every connection pool.
func (e *Engine) Close() error { return e.pools.Close() }
