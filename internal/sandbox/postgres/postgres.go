// Package postgres is equiv's PostgreSQL sandbox: scratch databases on a
// PostgreSQL server, each created, filled and dropped by the sandbox and
// queried through sqljudge's PostgreSQL engine (engine/postgres).
package postgres

import (
	"context"
	"fmt"
	"strings"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgconn/ctxwatch"

	"github.com/sqljudge/sqljudge/internal/catalog"
	"github.com/sqljudge/sqljudge/internal/engine"
	"github.com/sqljudge/sqljudge/internal/engine/postgres"
	"github.com/sqljudge/sqljudge/internal/result"
	"github.com/sqljudge/sqljudge/internal/sandbox"
)

// Sandbox makes scratch databases on a PostgreSQL server: each
// Open runs CREATE DATABASE under a new name (sandbox.ScratchPrefix: the time of the
// run, a random part and a counter), takes CONNECT away from PUBLIC,
// creates the tables, and the scratch's Close drops it (DROP DATABASE …
// WITH (FORCE)). It never opens or changes another database.
//
// Every statement it sends is its own rendering (see sandbox.Sandbox), one per
// message of the extended protocol, on sessions whose settings are pinned
// at connection (pgSandboxParams: standard_conforming_strings on,
// search_path public, statement_timeout, lock_timeout, UTC); values are
// parameters. Queries run through sqljudge's PostgreSQL engine (read-only
// transactions, statement timeouts) on sessions pinned the same way.
//
// New refuses (engine.ErrPrivileged, unless
// allowSuperuser) a role that is a superuser, has CREATEROLE or
// REPLICATION, is a member of pg_execute_server_program,
// pg_read_server_files, pg_write_server_files or pg_signal_backend, or
// may run pg_terminate_backend or pg_cancel_backend in a new database (a
// pair's query could end the other sessions of the role); and refuses
// (a usage error) a role that cannot create, fill and drop a scratch
// database: it tries one before the first pair.
type Sandbox struct {
	cfg    *pgx.ConnConfig
	eng    *postgres.Engine
	prefix string
	n      atomic.Int64
	swept  []string
}

var (
	_ sandbox.Sandbox  = (*Sandbox)(nil)
	_ sandbox.DBReader = (*Sandbox)(nil)
	_ sandbox.Sweeper  = (*Sandbox)(nil)
)

// pgSandboxParams are the settings of every session of the sandbox, sent
// as startup parameters so that no statement runs before them: how string
// literals read, where names resolve, and how long one statement may
// hold the writer.
var pgSandboxParams = map[string]string{
	"standard_conforming_strings":         "on",
	"search_path":                         "public",
	"statement_timeout":                   "30000",
	"lock_timeout":                        "10000",
	"idle_in_transaction_session_timeout": "60000",
	"default_transaction_read_only":       "off",
	"TimeZone":                            "UTC",
	"DateStyle":                           "ISO, MDY",
	"client_encoding":                     "UTF8",
	"application_name":                    "sqljudge-equiv",
}

// pgReaderParams are the settings the engine's read-only sessions get on
// top of its own.
var pgReaderParams = map[string]string{
	"standard_conforming_strings": "on",
	"search_path":                 "public",
}

// New connects to the server of dsn, vets its role (see Sandbox), drops
// the stale scratch databases of earlier runs of the role (sweep) and
// returns the sandbox.
func New(ctx context.Context, dsn string, allowSuperuser bool) (*Sandbox, error) {
	cfg, err := pgx.ParseConfig(dsn)
	if err != nil {
		return nil, fmt.Errorf("--db: %w", err)
	}
	pinPostgres(cfg, pgSandboxParams)
	eng, err := postgres.New(dsn, postgres.Options{MaxConns: 2, MaxRows: 10_000, AllowSuperuser: allowSuperuser, SessionParams: pgReaderParams})
	if err != nil {
		return nil, err
	}
	s := &Sandbox{cfg: cfg, eng: eng, prefix: sandbox.ScratchPrefix()}
	if err := s.vet(ctx, allowSuperuser); err != nil {
		eng.Close()
		return nil, err
	}
	if s.swept, err = sweep(ctx, cfg, sandbox.StaleAfter); err != nil {
		eng.Close()
		return nil, err
	}
	return s, nil
}

// pinPostgres sets params as cfg's startup parameters and makes a
// cancelled context send the server a cancel request (not only close the
// socket, which would leave the statement running).
func pinPostgres(cfg *pgx.ConnConfig, params map[string]string) {
	if cfg.RuntimeParams == nil {
		cfg.RuntimeParams = map[string]string{}
	}
	for k, v := range params {
		cfg.RuntimeParams[k] = v
	}
	cfg.BuildContextWatcherHandler = func(pc *pgconn.PgConn) ctxwatch.Handler {
		return &pgconn.CancelRequestContextWatcherHandler{Conn: pc, CancelRequestDelay: 0, DeadlineDelay: time.Second}
	}
}

// Dialect returns engine.Postgres.
func (s *Sandbox) Dialect() engine.Dialect { return engine.Postgres }

// Close closes the engine.
func (s *Sandbox) Close() error { return s.eng.Close() }

// Swept names the stale scratch databases New dropped.
func (s *Sandbox) Swept() []string { return s.swept }

// Prefix is the name prefix of this sandbox's scratch databases
// (prefix_<n>).
func (s *Sandbox) Prefix() string { return s.prefix }

// connect opens a session on database db ("" for the DSN's own) with the
// sandbox's settings.
func connectPostgres(ctx context.Context, cfg *pgx.ConnConfig, db string) (*pgx.Conn, error) {
	c := cfg.Copy()
	if db != "" {
		c.Database = db
	}
	return pgx.ConnectConfig(ctx, c)
}

// execPG runs statements on pc, each one message of the extended protocol
// (which refuses a second statement), all in one pipeline: one round
// trip, one implicit transaction.
func execPG(ctx context.Context, pc *pgconn.PgConn, stmts []string, params [][][]byte) error {
	if len(stmts) == 0 {
		return nil
	}
	b := &pgconn.Batch{}
	for i, st := range stmts {
		var p [][]byte
		if params != nil {
			p = params[i]
		}
		b.ExecParams(st, p, nil, nil, nil)
	}
	res, err := pc.ExecBatch(ctx, b).ReadAll()
	if err != nil {
		return err
	}
	for i, r := range res {
		if r.Err != nil {
			return fmt.Errorf("%s: %w", sandbox.Abbreviate(stmts[i]), r.Err)
		}
	}
	return nil
}

// admin runs statements on the DSN's own database, on a session of its
// own.
func (s *Sandbox) admin(ctx context.Context, stmts ...string) error {
	c, err := connectPostgres(ctx, s.cfg, "")
	if err != nil {
		return err
	}
	defer c.Close(context.WithoutCancel(ctx))
	for _, st := range stmts {
		if err := execPG(ctx, c.PgConn(), []string{st}, nil); err != nil {
			return err
		}
	}
	return nil
}

// Open creates a scratch database, lets no other role connect to it, and
// runs ddl in it.
func (s *Sandbox) Open(ctx context.Context, ddl []string) (sandbox.Scratch, error) {
	name := fmt.Sprintf("%s_%d", s.prefix, s.n.Add(1))
	q := engine.Postgres.QuoteIdent(name)
	if err := s.admin(ctx, "CREATE DATABASE "+q); err != nil {
		return nil, &sandbox.SetupError{Err: err}
	}
	sc := &pgScratch{sb: s, name: name}
	if err := s.admin(ctx, "REVOKE ALL ON DATABASE "+q+" FROM PUBLIC"); err != nil {
		sc.Close()
		return nil, &sandbox.SetupError{Err: err}
	}
	c, err := connectPostgres(ctx, s.cfg, name)
	if err != nil {
		sc.Close()
		return nil, &sandbox.SetupError{Err: err}
	}
	sc.conn = c
	for _, st := range ddl {
		if err := execPG(ctx, c.PgConn(), []string{st}, nil); err != nil {
			sc.Close()
			return nil, err
		}
	}
	return sc, nil
}

type pgScratch struct {
	sb   *Sandbox
	name string
	conn *pgx.Conn
}

// Load empties the tables (DELETE, referencing tables first: TRUNCATE
// makes new files for every table, far slower on a few rows) and inserts
// the rows with parameters in text format, the server reading each as the
// column's type, all in one pipeline: one implicit transaction.
func (sc *pgScratch) Load(ctx context.Context, tables []sandbox.TableRows) error {
	var stmts []string
	var params [][][]byte
	for i := len(tables) - 1; i >= 0; i-- {
		stmts = append(stmts, "DELETE FROM "+tables[i].Name)
		params = append(params, nil)
	}
	for _, t := range tables {
		q := sandbox.InsertSQL(engine.Postgres, t.Name, t.Cols)
		for _, row := range t.Rows {
			stmts = append(stmts, q)
			params = append(params, pgParams(row))
		}
	}
	return execPG(ctx, sc.conn.PgConn(), stmts, params)
}

// pgParams are a row's values as text-format parameters (nil for NULL),
// spelled as literal spells them.
func pgParams(row []result.Value) [][]byte {
	out := make([][]byte, len(row))
	for i, v := range row {
		if s, _, ok := catalog.ValueText(engine.Postgres, v); ok {
			out[i] = []byte(s)
		}
	}
	return out
}

// Exec runs the statements in one pipeline (one implicit transaction),
// each one message of the extended protocol.
func (sc *pgScratch) Exec(ctx context.Context, stmts []string) error {
	return execPG(ctx, sc.conn.PgConn(), stmts, nil)
}

// Query runs q through the PostgreSQL engine, in a read-only transaction.
func (sc *pgScratch) Query(ctx context.Context, q string) (*result.Set, error) {
	return sc.sb.eng.Query(ctx, sc.name, q)
}

// Close drops the scratch database (with a context of its own, so that a
// run stopped by its budget or by the user still drops it).
func (sc *pgScratch) Close() error {
	ctx, cancel := context.WithTimeout(context.Background(), sandbox.CloseTimeout)
	defer cancel()
	if sc.conn != nil {
		_ = sc.conn.Close(ctx)
	}
	_ = sc.sb.eng.Release(sc.name)
	return sc.sb.admin(ctx, "DROP DATABASE IF EXISTS "+engine.Postgres.QuoteIdent(sc.name)+" WITH (FORCE)")
}

// pgRoleQuery reads what vet judges of the current role: its name, its
// attributes, and the predefined roles it is a member of among those
// that reach the server's files, programs or other sessions.
const pgRoleQuery = `SELECT r.rolname, r.rolsuper, r.rolcreaterole, r.rolreplication, r.rolcreatedb,
	coalesce((SELECT string_agg(p.rolname, ', ' ORDER BY p.rolname) FROM pg_roles p
		WHERE p.rolname IN ('pg_read_server_files', 'pg_write_server_files', 'pg_execute_server_program', 'pg_signal_backend')
		AND pg_has_role(r.oid, p.oid, 'USAGE')), '')
FROM pg_roles r WHERE r.rolname = current_user`

// pgSignalQuery tells whether the session's role may run a function that
// signals other backends of the role.
const pgSignalQuery = `SELECT coalesce(string_agg(DISTINCT p.proname, ', '), '') FROM pg_proc p
WHERE p.pronamespace = 'pg_catalog'::regnamespace AND p.proname IN ('pg_terminate_backend', 'pg_cancel_backend')
  AND has_function_privilege(p.oid, 'EXECUTE')`

// vet judges the role (see Sandbox) and tries a scratch database.
func (s *Sandbox) vet(ctx context.Context, allowSuperuser bool) error {
	c, err := connectPostgres(ctx, s.cfg, "")
	if err != nil {
		return fmt.Errorf("--db: cannot connect: %w", err)
	}
	defer c.Close(context.WithoutCancel(ctx))
	var user, members string
	var super, createRole, replication, createDB bool
	if err := c.QueryRow(ctx, pgRoleQuery, pgx.QueryExecModeExec).Scan(&user, &super, &createRole, &replication, &createDB, &members); err != nil {
		return fmt.Errorf("--db: cannot read the role's privileges: %w", err)
	}
	if !allowSuperuser {
		var why []string
		if super {
			why = append(why, "is a superuser")
		}
		if createRole {
			why = append(why, "has CREATEROLE (it may grant itself pg_execute_server_program)")
		}
		if replication {
			why = append(why, "has REPLICATION")
		}
		if members != "" {
			why = append(why, "is a member of "+members)
		}
		if len(why) > 0 {
			return fmt.Errorf("%w: role %q %s, so a pair's query could reach the server's files, programs or other sessions; %s, or pass --allow-superuser", engine.ErrPrivileged, user, strings.Join(why, " and "), pgGrantAdvice)
		}
	}
	if !super && !createDB {
		return fmt.Errorf("%w: role %q may not create databases, and equiv decides each pair in a scratch database of its own: %s", sandbox.ErrSetup, user, pgGrantAdvice)
	}
	return s.probe(ctx, user, allowSuperuser)
}

// pgGrantAdvice says how to make a role fit for equiv.
const pgGrantAdvice = "use a role made for equiv (CREATE ROLE equiv LOGIN CREATEDB; and, as a superuser, in template1: REVOKE EXECUTE ON FUNCTION pg_terminate_backend(integer, bigint), pg_cancel_backend(integer) FROM PUBLIC; docs/equiv.md, \"Engines\")"

// probe creates, fills and drops a scratch database (sandbox.Probe), and
// refuses a role that may signal its other sessions from it.
func (s *Sandbox) probe(ctx context.Context, user string, allowSuperuser bool) error {
	var signals string
	var sigErr error
	err := sandbox.Probe(ctx, s, func(sc sandbox.Scratch) error {
		signals, sigErr = pgSignals(ctx, sc.(*pgScratch).conn)
		return nil
	})
	if err != nil {
		return fmt.Errorf("%w: role %q %v", sandbox.ErrSetup, user, err)
	}
	if sigErr != nil {
		return fmt.Errorf("--db: cannot read the role's function privileges: %w", sigErr)
	}
	if signals != "" && !allowSuperuser {
		return fmt.Errorf("%w: role %q may run %s in a new database, so a pair's query could end the other sessions of the role (this run's other workers, other runs); %s, or pass --allow-superuser", engine.ErrPrivileged, user, signals, pgGrantAdvice)
	}
	return nil
}

// pgSignals names the functions that signal other backends which the
// session's role may run in the session's database ("" for none).
func pgSignals(ctx context.Context, c *pgx.Conn) (string, error) {
	var signals string
	err := c.QueryRow(ctx, pgSignalQuery, pgx.QueryExecModeExec).Scan(&signals)
	return signals, err
}

// ReadDB reads database dbID of the server through the sandbox's engine
// (catalog.Read with o: by default the tables of current_schema(), column
// types as format_type spells them, NOT NULL, keys, UNIQUE constraints and
// indexes, foreign keys, CHECK constraints as pg_get_constraintdef prints
// them, samples). Every statement is a SELECT run through the PostgreSQL
// engine, in a read-only transaction under the sandbox's role: nothing is
// written to dbID.
func (s *Sandbox) ReadDB(ctx context.Context, dbID string, o catalog.Options) (*catalog.Database, error) {
	return catalog.Read(ctx, s.eng, dbID, o)
}

// pgIdleScratchQuery lists the scratch databases of the current role with
// no session connected.
const pgIdleScratchQuery = `SELECT d.datname FROM pg_database d
WHERE d.datname LIKE 'sqljudge\_equiv\_%' AND d.datdba = (SELECT oid FROM pg_roles WHERE rolname = current_user)
  AND NOT EXISTS (SELECT 1 FROM pg_stat_activity a WHERE a.datname = d.datname)
ORDER BY d.datname`

// sweep drops the stale scratch databases of the role of cfg (see
// sandbox's scratch.go) and returns their names. A database that cannot be dropped
// (a session connected meanwhile) is left alone.
func sweep(ctx context.Context, cfg *pgx.ConnConfig, age time.Duration) ([]string, error) {
	c, err := connectPostgres(ctx, cfg, "")
	if err != nil {
		return nil, fmt.Errorf("--db: cannot connect: %w", err)
	}
	defer c.Close(context.WithoutCancel(ctx))
	rows, err := c.Query(ctx, pgIdleScratchQuery, pgx.QueryExecModeExec)
	if err != nil {
		return nil, fmt.Errorf("--db: cannot list scratch databases: %w", err)
	}
	names, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		return nil, fmt.Errorf("--db: cannot list scratch databases: %w", err)
	}
	var dropped []string
	now := time.Now()
	for _, n := range names {
		if !sandbox.IsStaleName(n, now, age) {
			continue
		}
		if err := execPG(ctx, c.PgConn(), []string{"DROP DATABASE IF EXISTS " + engine.Postgres.QuoteIdent(n)}, nil); err == nil {
			dropped = append(dropped, n)
		}
	}
	return dropped, nil
}

// QueryDB runs q on database dbID through the read-only engine.
func (s *Sandbox) QueryDB(ctx context.Context, dbID, q string) (*result.Set, error) {
	return s.eng.Query(ctx, dbID, q)
}
