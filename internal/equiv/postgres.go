package equiv

import (
	"context"
	"errors"
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
)

// PostgresSandbox makes scratch databases on a PostgreSQL server: each
// Open runs CREATE DATABASE under a new name (scratchName: the time of the
// run, a random part and a counter), takes CONNECT away from PUBLIC,
// creates the tables, and the scratch's Close drops it (DROP DATABASE …
// WITH (FORCE)). It never opens or changes another database.
//
// Every statement it sends is its own rendering (see Sandbox), one per
// message of the extended protocol, on sessions whose settings are pinned
// at connection (pgSandboxParams: standard_conforming_strings on,
// search_path public, statement_timeout, lock_timeout, UTC); values are
// parameters. Queries run through sqljudge's PostgreSQL engine (read-only
// transactions, statement timeouts) on sessions pinned the same way.
//
// NewPostgresSandbox refuses (engine.ErrPrivileged, unless
// allowSuperuser) a role that is a superuser, has CREATEROLE or
// REPLICATION, is a member of pg_execute_server_program,
// pg_read_server_files, pg_write_server_files or pg_signal_backend, or
// may run pg_terminate_backend or pg_cancel_backend in a new database (a
// pair's query could end the other sessions of the role); and refuses
// (a usage error) a role that cannot create, fill and drop a scratch
// database: it tries one before the first pair.
type PostgresSandbox struct {
	cfg    *pgx.ConnConfig
	eng    *postgres.Engine
	prefix string
	n      atomic.Int64
	// Swept names the stale scratch databases NewPostgresSandbox dropped.
	Swept []string
}

var _ Sandbox = (*PostgresSandbox)(nil)

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

// NewPostgresSandbox connects to the server of dsn, vets its role (see
// PostgresSandbox), drops the stale scratch databases of earlier runs of
// the role (SweepPostgres) and returns the sandbox.
func NewPostgresSandbox(ctx context.Context, dsn string, allowSuperuser bool) (*PostgresSandbox, error) {
	cfg, err := pgx.ParseConfig(dsn)
	if err != nil {
		return nil, fmt.Errorf("--db: %w", err)
	}
	pinPostgres(cfg, pgSandboxParams)
	eng, err := postgres.New(dsn, postgres.Options{MaxConns: 2, MaxRows: 10_000, AllowSuperuser: allowSuperuser, SessionParams: pgReaderParams})
	if err != nil {
		return nil, err
	}
	s := &PostgresSandbox{cfg: cfg, eng: eng, prefix: scratchPrefix()}
	if err := s.vet(ctx, allowSuperuser); err != nil {
		eng.Close()
		return nil, err
	}
	if s.Swept, err = sweepPostgres(ctx, cfg, staleAfter); err != nil {
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
func (s *PostgresSandbox) Dialect() engine.Dialect { return engine.Postgres }

// Close closes the engine.
func (s *PostgresSandbox) Close() error { return s.eng.Close() }

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
			return fmt.Errorf("%s: %w", abbreviateSQL(stmts[i]), r.Err)
		}
	}
	return nil
}

// admin runs statements on the DSN's own database, on a session of its
// own.
func (s *PostgresSandbox) admin(ctx context.Context, stmts ...string) error {
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
func (s *PostgresSandbox) Open(ctx context.Context, ddl []string) (Scratch, error) {
	name := fmt.Sprintf("%s_%d", s.prefix, s.n.Add(1))
	q := engine.Postgres.QuoteIdent(name)
	if err := s.admin(ctx, "CREATE DATABASE "+q); err != nil {
		return nil, &SetupError{err}
	}
	sc := &pgScratch{sb: s, name: name}
	if err := s.admin(ctx, "REVOKE ALL ON DATABASE "+q+" FROM PUBLIC"); err != nil {
		sc.Close()
		return nil, &SetupError{err}
	}
	c, err := connectPostgres(ctx, s.cfg, name)
	if err != nil {
		sc.Close()
		return nil, &SetupError{err}
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
	sb   *PostgresSandbox
	name string
	conn *pgx.Conn
}

// Load empties the tables (DELETE, referencing tables first: TRUNCATE
// makes new files for every table, far slower on a few rows) and inserts
// the rows with parameters in text format, the server reading each as the
// column's type, all in one pipeline: one implicit transaction.
func (sc *pgScratch) Load(ctx context.Context, tables []TableRows) error {
	var stmts []string
	var params [][][]byte
	for i := len(tables) - 1; i >= 0; i-- {
		stmts = append(stmts, "DELETE FROM "+tables[i].Name)
		params = append(params, nil)
	}
	for _, t := range tables {
		q := insertSQL(engine.Postgres, t.Name, t.Cols)
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
	ctx, cancel := context.WithTimeout(context.Background(), closeTimeout)
	defer cancel()
	if sc.conn != nil {
		_ = sc.conn.Close(ctx)
	}
	_ = sc.sb.eng.Release(sc.name)
	return sc.sb.admin(ctx, "DROP DATABASE IF EXISTS "+engine.Postgres.QuoteIdent(sc.name)+" WITH (FORCE)")
}

// closeTimeout bounds the drop of a scratch database.
const closeTimeout = 10 * time.Second

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

// vet judges the role (see PostgresSandbox) and tries a scratch database.
func (s *PostgresSandbox) vet(ctx context.Context, allowSuperuser bool) error {
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
		return fmt.Errorf("%w: role %q may not create databases, and equiv decides each pair in a scratch database of its own: %s", ErrSetup, user, pgGrantAdvice)
	}
	return s.probe(ctx, user, allowSuperuser)
}

// pgGrantAdvice says how to make a role fit for equiv.
const pgGrantAdvice = "use a role made for equiv (CREATE ROLE equiv LOGIN CREATEDB; and, as a superuser, in template1: REVOKE EXECUTE ON FUNCTION pg_terminate_backend(integer, bigint), pg_cancel_backend(integer) FROM PUBLIC; docs/equiv.md, \"Engines\")"

// ErrSetup is the error of a server or an account that cannot host
// equiv's scratch databases (a missing privilege): a usage error, checked
// before the first pair.
var ErrSetup = errors.New("the database account cannot run equiv")

// probe creates, fills and drops a scratch database, and refuses a role
// that may signal its other sessions from it.
func (s *PostgresSandbox) probe(ctx context.Context, user string, allowSuperuser bool) error {
	sch, err := catalog.ParseDDL("CREATE TABLE probe (a INTEGER PRIMARY KEY, b TEXT)")
	if err != nil {
		return err
	}
	sc, err := s.Open(ctx, sch.CreateStatements(engine.Postgres))
	if err != nil {
		return fmt.Errorf("%w: role %q cannot create and use a scratch database: %v", ErrSetup, user, err)
	}
	defer sc.Close()
	pg := sc.(*pgScratch)
	rows := []TableRows{{Name: `"probe"`, Cols: 2, Rows: [][]result.Value{{result.IntValue(1), result.TextValue("x")}}}}
	if err := pg.Load(ctx, rows); err != nil {
		return fmt.Errorf("%w: role %q cannot write to its scratch database: %v", ErrSetup, user, err)
	}
	signals, err := pgSignals(ctx, pg.conn)
	if err != nil {
		return fmt.Errorf("--db: cannot read the role's function privileges: %w", err)
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

var _ dbReader = (*PostgresSandbox)(nil)

// ReadDB reads database dbID of the server for a pair's search
// (ReadServerDB): its schema from the catalog (tables of
// current_schema(), column types as format_type spells them, NOT NULL,
// keys, UNIQUE constraints and indexes, foreign keys within the schema,
// CHECK constraints as pg_get_constraintdef prints them) and a sample of
// each column. Every statement is a SELECT run through the PostgreSQL
// engine, in a read-only transaction under the sandbox's role: nothing is
// written to dbID.
func (s *PostgresSandbox) ReadDB(ctx context.Context, dbID string) (*catalog.Database, error) {
	return ReadServerDB(ctx, s.eng, dbID)
}

// QueryDB runs q on database dbID through the read-only engine.
func (s *PostgresSandbox) QueryDB(ctx context.Context, dbID, q string) (*result.Set, error) {
	return s.eng.Query(ctx, dbID, q)
}
