// Package postgres is equiv's PostgreSQL sandbox: scratch databases on a
// PostgreSQL server, each created, filled and dropped by the sandbox and
// queried as sqljudge's PostgreSQL engine (engine/postgres) queries: its
// statement check, its decoding, its caps and its errors.
package postgres

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
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
// marks it (sandbox.Marker), creates the tables, and the scratch's Close
// drops it (DROP DATABASE … WITH (FORCE)). It never opens or changes
// another database.
//
// Every statement it sends is its own rendering (see sandbox.Sandbox), one per
// message of the extended protocol, on sessions whose settings are pinned
// at connection (pgSandboxParams: standard_conforming_strings on,
// search_path public, statement_timeout, lock_timeout, UTC); values are
// parameters. The rows of a database tried never commit: Load begins a
// transaction and inserts them, one multi-row INSERT a table (one round
// trip), each Query runs in a
// read-only savepoint of it (one round trip, checked, decoded and capped
// as sqljudge's PostgreSQL engine does: see pgScratch.Query), and the
// next Load rolls it back. Each scratch database has one session of its
// own, closed by the scratch's Close.
//
// New refuses (engine.ErrPrivileged, unless allowSuperuser) a role that
// may administer the server (postgres.VetRole: a superuser, CREATEROLE,
// REPLICATION, or a member at any depth of a role that is or has one, or
// of one of postgres.AdminRoles), whose sessions report their queries to
// its other sessions (track_activities on: a pair's query could read what
// this run's other workers run), or that may run pg_terminate_backend or
// pg_cancel_backend in a new database (a pair's query could end the other
// sessions of the role); and refuses (a usage error, sandbox.ErrSetup) a
// role whose privileges it cannot read, or that cannot create, fill and
// drop a scratch database: it tries one before the first pair. A pair's
// queries are never prepared under a name, so neither finds the other's
// text in pg_prepared_statements.
type Sandbox struct {
	cfg    *pgx.ConnConfig
	eng    *postgres.Engine
	prefix string
	n      atomic.Int64
	swept  []string

	mu        sync.Mutex
	undropped []string     // scratch databases whose Close could not drop them
	failDrops atomic.Int64 // tests: the next drops that fail
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
	// The rows of a database tried are never committed, so autovacuum
	// never analyzes the tables: the planner guesses 10 pages a table,
	// and a join of a few rows can cost past jit_above_cost, to spend
	// 20-90ms compiling a query that runs in microseconds.
	"jit": "off",
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
	pinPostgres(cfg, postgres.DecodeParams()) // queries read through the engine's ReadResult
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

// Close drops the scratch databases whose own Close could not (each
// tried again as that Close does), so that a run that ends normally
// leaves none, and closes the engine. Its error names those it could
// still not drop.
func (s *Sandbox) Close() error {
	ctx, cancel := context.WithTimeout(context.Background(), sandbox.CloseTimeout)
	defer cancel()
	s.mu.Lock()
	left := s.undropped
	s.undropped = nil
	s.mu.Unlock()
	var errs []error
	for _, n := range left {
		if err := s.drop(ctx, n); err != nil {
			errs = append(errs, fmt.Errorf("scratch database %s: %w", n, err))
		}
	}
	return errors.Join(append(errs, s.eng.Close())...)
}

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
// trip, one implicit transaction. A statement whose text prepared names
// runs as that prepared statement of pc.
func execPG(ctx context.Context, pc *pgconn.PgConn, stmts []string, params [][][]byte, prepared map[string]string) error {
	if len(stmts) == 0 {
		return nil
	}
	b := &pgconn.Batch{}
	for i, st := range stmts {
		var p [][]byte
		if params != nil {
			p = params[i]
		}
		if name, ok := prepared[st]; ok {
			b.ExecPrepared(name, p, nil, nil)
		} else {
			b.ExecParams(st, p, nil, nil, nil)
		}
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
		if err := execPG(ctx, c.PgConn(), []string{st}, nil, nil); err != nil {
			return err
		}
	}
	return nil
}

// Open creates a scratch database, lets no other role connect to it,
// marks it (sandbox.Marker, its COMMENT ON DATABASE) and runs ddl in it.
func (s *Sandbox) Open(ctx context.Context, ddl []string) (sandbox.Scratch, error) {
	name := fmt.Sprintf("%s_%d", s.prefix, s.n.Add(1))
	q := engine.Postgres.QuoteIdent(name)
	if err := s.admin(ctx, "CREATE DATABASE "+q); err != nil {
		return nil, &sandbox.SetupError{Err: err}
	}
	sc := &pgScratch{sb: s, name: name}
	// The marker by which a sweep knows the database is a scratch one
	// (the name holds no quote).
	mark := "COMMENT ON DATABASE " + q + " IS '" + sandbox.Marker(name) + "'"
	if err := s.admin(ctx, "REVOKE ALL ON DATABASE "+q+" FROM PUBLIC", mark); err != nil {
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
		if err := execPG(ctx, c.PgConn(), []string{st}, nil, nil); err != nil {
			sc.Close()
			return nil, err
		}
	}
	return sc, nil
}

type pgScratch struct {
	sb   *Sandbox
	name string
	conn *pgx.Conn // nil once discarded: the next call connects again
	// open: conn is inside the transaction of the last Load or Exec,
	// which holds the rows (nothing of them is ever committed).
	open bool
	// rows and execs are what the last Load inserted and the Execs
	// after it ran: a session discarded meanwhile (a query cancelled)
	// took them with its transaction, and the next Query or Exec puts
	// them back on the new session first.
	rows  []sandbox.TableRows
	execs [][]string
	// inserts names the INSERTs of Load prepared on conn, by text (one
	// per table and number of rows): prepared after a Load that ran them,
	// run prepared from then on.
	inserts map[string]string
}

// pgMaxInserts bounds the INSERTs prepared on a scratch's session (as
// mysqlMaxPrepared does on MySQL).
const pgMaxInserts = 64

// session returns the scratch's session, connecting again when the last
// one was discarded (a query cancelled, a cap reached, the server gone);
// with restore, the new session gets the rows of the last Load and the
// Execs after it again.
func (sc *pgScratch) session(ctx context.Context, restore bool) (*pgconn.PgConn, error) {
	if sc.conn != nil && sc.conn.IsClosed() {
		sc.discard()
	}
	if sc.conn != nil {
		return sc.conn.PgConn(), nil
	}
	c, err := connectPostgres(ctx, sc.sb.cfg, sc.name)
	if err != nil {
		return nil, err
	}
	sc.conn = c
	if restore && (sc.rows != nil || sc.execs != nil) {
		if err := sc.load(ctx, c.PgConn(), sc.rows); err != nil {
			return nil, err
		}
		for _, stmts := range sc.execs {
			if err := sc.exec(ctx, c.PgConn(), stmts); err != nil {
				return nil, err
			}
		}
	}
	return c.PgConn(), nil
}

// discard closes the session (its transaction, and with it the rows,
// dies with it).
func (sc *pgScratch) discard() {
	if sc.conn != nil {
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		_ = sc.conn.Close(ctx)
		cancel()
	}
	sc.conn, sc.open, sc.inserts = nil, false, nil
}

// rollback ends the open transaction (to "": all of it) after a failed
// Load or Exec, or discards the session when it cannot.
func (sc *pgScratch) rollback(ctx context.Context, to string) {
	st := "ROLLBACK"
	if to != "" {
		st = "ROLLBACK TO SAVEPOINT " + to
	}
	rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
	defer cancel()
	if sc.conn == nil || sc.conn.IsClosed() {
		sc.discard()
		return
	}
	stmts := []string{st}
	if to != "" {
		stmts = append(stmts, "RELEASE SAVEPOINT "+to) // ROLLBACK TO keeps it
	}
	if err := execPG(rctx, sc.conn.PgConn(), stmts, nil, nil); err != nil || ctx.Err() != nil {
		sc.discard()
		return
	}
	if to == "" {
		sc.open = false
	}
}

// Load rolls back the transaction of the last Load or Exec (nothing is
// committed, so the tables are empty again: no DELETE, no new table
// files, no commit to flush) and, in one pipeline (one round trip),
// begins a transaction and inserts the rows, one multi-row INSERT per
// table (split past pgMaxParams parameters: pgInserts), values as
// parameters in text format, the server reading each as the column's
// type; each INSERT is prepared after the Load that first ran it
// (prepareInserts, one more round trip that once). The transaction
// stays open: the queries read the rows inside it, each under a
// savepoint (Query), and the next Load or Close ends it. A failed Load
// rolls back.
func (sc *pgScratch) Load(ctx context.Context, tables []sandbox.TableRows) error {
	sc.rows, sc.execs = nil, nil
	pc, err := sc.session(ctx, false)
	if err != nil {
		return err
	}
	if err := sc.load(ctx, pc, tables); err != nil {
		return err
	}
	sc.rows = make([]sandbox.TableRows, len(tables))
	for i, t := range tables {
		sc.rows[i] = sandbox.TableRows{Name: t.Name, Cols: t.Cols, Rows: make([][]result.Value, len(t.Rows))}
		for j, r := range t.Rows {
			sc.rows[i].Rows[j] = slices.Clone(r)
		}
	}
	return nil
}

// load is Load on session pc.
func (sc *pgScratch) load(ctx context.Context, pc *pgconn.PgConn, tables []sandbox.TableRows) error {
	var stmts []string
	var params [][][]byte
	if sc.open {
		stmts = append(stmts, "ROLLBACK")
		params = append(params, nil)
	}
	stmts = append(stmts, "BEGIN READ WRITE")
	params = append(params, nil)
	first := len(stmts)
	for _, t := range tables {
		stmts, params = pgInserts(stmts, params, t)
	}
	err := execPG(ctx, pc, stmts, params, sc.inserts)
	sc.open = true
	if err == nil {
		err = sc.prepareInserts(ctx, pc, stmts[first:])
	}
	if err != nil {
		sc.rollback(ctx, "")
	}
	return err
}

// prepareInserts prepares on pc, in one pipeline (one round trip), the
// INSERTs among inserts not prepared yet, while sc.inserts holds fewer
// than pgMaxInserts: after a Load that ran them, so that a Parse never
// shares a pipeline segment with the statements it would skip. A Parse
// runs nothing; one that fails (it should not: the same text just ran)
// aborts the transaction, and the session is discarded (the Load fails).
func (sc *pgScratch) prepareInserts(ctx context.Context, pc *pgconn.PgConn, inserts []string) error {
	var qs []string
	for _, q := range inserts {
		if _, ok := sc.inserts[q]; !ok && !slices.Contains(qs, q) && len(sc.inserts)+len(qs) < pgMaxInserts {
			qs = append(qs, q)
		}
	}
	if len(qs) == 0 {
		return nil
	}
	names := make([]string, len(qs))
	for i := range qs {
		names[i] = fmt.Sprintf("sqljudge_i%d", len(sc.inserts)+i+1)
	}
	if err := pgPrepare(ctx, pc, names, qs); err != nil {
		// The pipeline may be anywhere: the session is not used again.
		sc.discard()
		return err
	}
	if sc.inserts == nil {
		sc.inserts = map[string]string{}
	}
	for i, q := range qs {
		sc.inserts[q] = names[i]
	}
	return nil
}

// pgPrepare prepares qs on pc under names, in one pipeline (one round
// trip); its error names the statement refused.
func pgPrepare(ctx context.Context, pc *pgconn.PgConn, names, qs []string) error {
	p := pc.StartPipeline(ctx)
	for i, q := range qs {
		p.SendPrepare(names[i], q, nil)
	}
	p.SendPipelineSync()
	if err := p.Flush(); err != nil {
		return err
	}
	for _, q := range qs {
		r, err := p.GetResults()
		if err != nil {
			return fmt.Errorf("%s: %w", sandbox.Abbreviate(q), err)
		}
		if _, ok := r.(*pgconn.StatementDescription); !ok {
			return fmt.Errorf("postgres: pipeline: %T where a statement description was expected", r)
		}
	}
	if err := pgSync(p); err != nil {
		return err
	}
	return p.Close()
}

// pgMaxParams is the most parameters one statement of the extended
// protocol may have (a Bind message counts them in 16 bits).
const pgMaxParams = 65535

// pgInserts appends to stmts and params the INSERTs of t's rows: one
// multi-row INSERT (sandbox.InsertRowsSQL), or as few as keep each within
// pgMaxParams parameters, each with its rows' values as text-format
// parameters (pgParams), row after row. A table without rows gets none.
func pgInserts(stmts []string, params [][][]byte, t sandbox.TableRows) ([]string, [][][]byte) {
	per := len(t.Rows)
	if t.Cols > 0 {
		per = max(1, pgMaxParams/t.Cols)
	}
	for rows := t.Rows; len(rows) > 0; {
		n := min(per, len(rows))
		p := make([][]byte, 0, n*t.Cols)
		for _, row := range rows[:n] {
			p = pgParams(p, row)
		}
		stmts = append(stmts, sandbox.InsertRowsSQL(engine.Postgres, t.Name, t.Cols, n))
		params = append(params, p)
		rows = rows[n:]
	}
	return stmts, params
}

// pgParams appends a row's values to out as text-format parameters (nil
// for NULL), spelled as literal spells them.
func pgParams(out [][]byte, row []result.Value) [][]byte {
	for _, v := range row {
		var b []byte
		if s, _, ok := catalog.ValueText(engine.Postgres, v); ok {
			b = []byte(s)
		}
		out = append(out, b)
	}
	return out
}

// Exec runs the statements in one pipeline, each one message of the
// extended protocol, inside the open transaction (after the rows of the
// last Load) or a new one, under a savepoint: a failure undoes them all
// and keeps the loaded rows. Like Load's rows they last until the next
// Load.
func (sc *pgScratch) Exec(ctx context.Context, stmts []string) error {
	pc, err := sc.session(ctx, true)
	if err != nil {
		return err
	}
	if err := sc.exec(ctx, pc, stmts); err != nil {
		return err
	}
	sc.execs = append(sc.execs, slices.Clone(stmts))
	return nil
}

// exec is Exec on session pc.
func (sc *pgScratch) exec(ctx context.Context, pc *pgconn.PgConn, stmts []string) error {
	var all []string
	if !sc.open {
		all = append(all, "BEGIN READ WRITE")
	}
	all = append(all, "SAVEPOINT sqljudge_exec")
	all = append(all, stmts...)
	all = append(all, "RELEASE SAVEPOINT sqljudge_exec")
	err := execPG(ctx, pc, all, nil, nil)
	sc.open = true
	if err != nil {
		sc.rollback(ctx, "sqljudge_exec")
	}
	return err
}

// Query runs one read-only query on the rows of the last Load, as the
// PostgreSQL engine would (engine.CheckStatement with
// engine.QueryKeywords first; one statement of the extended protocol;
// results decoded by the engine's ReadResult, its caps and errors), on
// the scratch's own session, in one pipeline (one round trip):
//
//	SAVEPOINT sqljudge_q; SET LOCAL transaction_read_only = on;
//	SET LOCAL statement_timeout = <the time left>; q; Sync;
//	ROLLBACK TO SAVEPOINT sqljudge_q; Sync; RELEASE SAVEPOINT sqljudge_q; Sync;
//	SELECT pg_advisory_unlock_all(); Sync
//
// q runs only when the three before it succeeded (the server skips the
// rest of a segment after an error). Inside a savepoint the transaction
// cannot be made read-write again (the server refuses it in a
// subtransaction, and after the first snapshot), and the rollback to the
// savepoint undoes whatever q changed, settings (set_config) included;
// the advisory locks q took at session level are released. A context
// that ends sends the server a cancel request, and the session is then
// discarded (as the engine discards its connection), as it is past a cap.
func (sc *pgScratch) Query(ctx context.Context, q string) (*result.Set, error) {
	blank, err := engine.CheckStatement(sc.name, q, engine.QueryKeywords)
	if err != nil {
		return nil, err
	}
	if blank {
		return &result.Set{}, nil
	}
	pc, err := sc.session(ctx, true)
	if err != nil {
		return nil, engine.ConnectFailure(ctx, sc.name, sc.name, err, false)
	}
	set, discard, err := sc.query(ctx, pc, q)
	if discard || ctx.Err() != nil {
		sc.discard()
	}
	if err != nil {
		return nil, sc.sb.eng.Failure(ctx, sc.name, err)
	}
	return set, nil
}

// pgExplain prefixes the query Explain plans.
const pgExplain = "EXPLAIN (VERBOSE, COSTS OFF, FORMAT JSON) "

// Explain returns PostgreSQL's plan of q (sandbox.Explainer): q passes
// Query's statement check, then EXPLAIN (VERBOSE, COSTS OFF, FORMAT
// JSON) q runs in Query's pipeline (a read-only savepoint rolled back,
// the statement timeout), so q is planned, never run; the plan's JSON is
// capped by the engine's caps on a value (a longer one is the engine's
// error).
func (sc *pgScratch) Explain(ctx context.Context, q string) ([]byte, error) {
	blank, err := engine.CheckStatement(sc.name, q, engine.QueryKeywords)
	if err != nil {
		return nil, err
	}
	if blank {
		return nil, fmt.Errorf("no query to plan")
	}
	pc, err := sc.session(ctx, true)
	if err != nil {
		return nil, engine.ConnectFailure(ctx, sc.name, sc.name, err, false)
	}
	set, discard, err := sc.query(ctx, pc, pgExplain+q)
	if discard || ctx.Err() != nil {
		sc.discard()
	}
	if err != nil {
		return nil, sc.sb.eng.Failure(ctx, sc.name, err)
	}
	if len(set.Rows) != 1 || len(set.Rows[0]) != 1 {
		return nil, fmt.Errorf("postgres: EXPLAIN returned %d rows, not one plan", len(set.Rows))
	}
	return []byte(set.Rows[0][0].S), nil
}

var _ sandbox.Explainer = (*pgScratch)(nil)

// pgQuerySteps are the statements Query sends around the query.
var pgQuerySteps = struct{ savepoint, readOnly, rollbackTo, release, unlock string }{
	"SAVEPOINT sqljudge_q",
	"SET LOCAL transaction_read_only = on",
	"ROLLBACK TO SAVEPOINT sqljudge_q",
	// ROLLBACK TO keeps the savepoint: without RELEASE each query would
	// nest one subtransaction deeper, and every visibility check of the
	// transaction walks them all (a pair with 48 neighbour queries on
	// each of 600 databases slowed 8-fold).
	"RELEASE SAVEPOINT sqljudge_q",
	"SELECT pg_advisory_unlock_all()",
}

// query runs q's pipeline (see Query) on pc; discard is true when the
// session must not be used again.
func (sc *pgScratch) query(ctx context.Context, pc *pgconn.PgConn, q string) (set *result.Set, discard bool, err error) {
	qctx, cancel := context.WithCancel(ctx)
	defer cancel()
	wasOpen := sc.open
	sc.open = true
	p := pc.StartPipeline(qctx)
	if !wasOpen {
		p.SendQueryParams("BEGIN READ WRITE", nil, nil, nil, nil)
		p.SendPipelineSync()
	}
	p.SendQueryParams(pgQuerySteps.savepoint, nil, nil, nil, nil)
	p.SendQueryParams(pgQuerySteps.readOnly, nil, nil, nil, nil)
	p.SendQueryParams(fmt.Sprintf("SET LOCAL statement_timeout = %d", sc.sb.eng.StatementTimeout(ctx).Milliseconds()), nil, nil, nil, nil)
	// The query is never prepared under a name: pg_prepared_statements
	// would show its text to the pair's other query (which could read
	// it, or run it through query_to_xml, and be "equivalent" without
	// reading a table). It is parsed and planned on each run.
	p.SendQueryParams(q, nil, nil, nil, nil) // no result formats: all text
	p.SendPipelineSync()
	p.SendQueryParams(pgQuerySteps.rollbackTo, nil, nil, nil, nil)
	p.SendPipelineSync()
	p.SendQueryParams(pgQuerySteps.release, nil, nil, nil, nil)
	p.SendPipelineSync()
	p.SendQueryParams(pgQuerySteps.unlock, nil, nil, nil, nil)
	p.SendPipelineSync()
	if err := p.Flush(); err != nil {
		return nil, true, err
	}
	// From here on a failure other than q's own leaves the pipeline in
	// an unknown state: the session is discarded (Query), not read on.
	if !wasOpen {
		if err := pgStep(p); err != nil {
			return nil, true, err
		}
		if err := pgSync(p); err != nil {
			return nil, true, err
		}
	}
	for range 3 { // SAVEPOINT, read only, statement_timeout
		if err := pgStep(p); err != nil {
			return nil, true, err
		}
	}
	var qErr error
	r, err := p.GetResults()
	switch rr := r.(type) {
	case nil:
		if err == nil {
			return nil, true, errors.New("postgres: pipeline: no result for the query")
		}
		var pe *pgconn.PgError
		if !errors.As(err, &pe) {
			return nil, true, err
		}
		qErr = err // refused at Parse, Bind or Describe
	case *pgconn.ResultReader:
		set, discard, qErr = sc.sb.eng.ReadResult(sc.name, rr, cancel)
		if discard {
			return nil, true, qErr
		}
	default:
		return nil, true, fmt.Errorf("postgres: pipeline: unexpected %T for the query", r)
	}
	if err := pgSync(p); err != nil {
		return nil, true, err
	}
	for range 3 { // ROLLBACK TO SAVEPOINT, RELEASE SAVEPOINT, pg_advisory_unlock_all()
		if err := pgStep(p); err != nil {
			return nil, true, err
		}
		if err := pgSync(p); err != nil {
			return nil, true, err
		}
	}
	if err := p.Close(); err != nil {
		return nil, true, err
	}
	if qErr != nil {
		return nil, false, qErr
	}
	return set, false, nil
}

// pgStep reads the result of one statement of a pipeline, which must
// succeed.
func pgStep(p *pgconn.Pipeline) error {
	r, err := p.GetResults()
	if err != nil {
		return err
	}
	rr, ok := r.(*pgconn.ResultReader)
	if !ok {
		return fmt.Errorf("postgres: pipeline: %T where a statement's result was expected", r)
	}
	_, err = rr.Close()
	return err
}

// pgSync reads a pipeline's sync point.
func pgSync(p *pgconn.Pipeline) error {
	r, err := p.GetResults()
	if err != nil {
		return err
	}
	if _, ok := r.(*pgconn.PipelineSync); !ok {
		return fmt.Errorf("postgres: pipeline: %T where a sync point was expected", r)
	}
	return nil
}

// Close drops the scratch database (with a context of its own, so that a
// run stopped by its budget or by the user still drops it), trying again
// a few times (a DROP … WITH (FORCE) can fail on a loaded server); one it
// could not drop is dropped again by the sandbox's Close.
func (sc *pgScratch) Close() error {
	ctx, cancel := context.WithTimeout(context.Background(), sandbox.CloseTimeout)
	defer cancel()
	if sc.conn != nil {
		_ = sc.conn.Close(ctx)
		sc.conn, sc.open = nil, false
	}
	_ = sc.sb.eng.Release(sc.name)
	err := sc.sb.drop(ctx, sc.name)
	if err != nil {
		sc.sb.mu.Lock()
		sc.sb.undropped = append(sc.sb.undropped, sc.name)
		sc.sb.mu.Unlock()
	}
	return err
}

// pgDropTries bounds the attempts of drop.
const pgDropTries = 4

// drop drops scratch database name, trying up to pgDropTries times, a
// little longer apart each time, while ctx lasts.
func (s *Sandbox) drop(ctx context.Context, name string) error {
	var err error
	for i := range pgDropTries {
		if i > 0 {
			select {
			case <-ctx.Done():
				return err
			case <-time.After(time.Duration(i) * 250 * time.Millisecond):
			}
		}
		if s.failDrops.Load() > 0 {
			s.failDrops.Add(-1)
			err = errors.New("drop refused (test)")
			continue
		}
		if err = s.admin(ctx, "DROP DATABASE IF EXISTS "+engine.Postgres.QuoteIdent(name)+" WITH (FORCE)"); err == nil {
			return nil
		}
	}
	return err
}

// pgNewDatabaseQuery reads what the role may do in a new database: the
// functions that signal other backends of the role it may run, and
// whether its sessions report their queries (track_activities), which
// pg_stat_activity shows to its other sessions.
const pgNewDatabaseQuery = `SELECT coalesce((SELECT string_agg(DISTINCT p.proname, ', ') FROM pg_proc p
	WHERE p.pronamespace = 'pg_catalog'::regnamespace AND p.proname IN ('pg_terminate_backend', 'pg_cancel_backend')
	  AND has_function_privilege(p.oid, 'EXECUTE')), ''),
	current_setting('track_activities')::bool`

// vet judges the role (see Sandbox: postgres.VetRole, CREATEDB) and tries
// a scratch database. A role whose privileges cannot be read is refused
// as a setup error (sandbox.ErrSetup).
func (s *Sandbox) vet(ctx context.Context, allowSuperuser bool) error {
	c, err := connectPostgres(ctx, s.cfg, "")
	if err != nil {
		return fmt.Errorf("--db: cannot connect: %w", err)
	}
	defer c.Close(context.WithoutCancel(ctx))
	var user string
	var super, createDB bool
	if err := c.QueryRow(ctx, "SELECT rolname, rolsuper, rolcreatedb FROM pg_roles WHERE rolname = current_user", pgx.QueryExecModeExec).Scan(&user, &super, &createDB); err != nil {
		return fmt.Errorf("%w: cannot read the role's privileges, so they cannot be checked: %v", sandbox.ErrSetup, err)
	}
	if !allowSuperuser {
		pe, err := postgres.VetRole(ctx, c)
		if err != nil {
			return fmt.Errorf("%w: cannot read the privileges of role %q, so they cannot be checked: %v", sandbox.ErrSetup, user, err)
		}
		if pe != nil {
			return fmt.Errorf("%w: %s; %s, or pass --allow-superuser", engine.ErrPrivileged, pe.Risk("a pair's query"), pgGrantAdvice)
		}
	}
	if !super && !createDB {
		return fmt.Errorf("%w: role %q may not create databases, and equiv decides each pair in a scratch database of its own: %s", sandbox.ErrSetup, user, pgGrantAdvice)
	}
	return s.probe(ctx, user, allowSuperuser)
}

// pgGrantAdvice says how to make a role fit for equiv.
const pgGrantAdvice = "use a role made for equiv (as a superuser: CREATE ROLE equiv LOGIN CREATEDB; ALTER ROLE equiv SET track_activities = off; and in template1: REVOKE EXECUTE ON FUNCTION pg_terminate_backend(integer, bigint), pg_cancel_backend(integer) FROM PUBLIC; docs/equiv.md, \"The account\")"

// probe creates, fills and drops a scratch database (sandbox.Probe), and
// refuses a role that may signal its other sessions from it, or whose
// sessions there report their queries to the role's other sessions
// (track_activities on: a pair's query could read, in pg_stat_activity,
// the queries this run's other workers and other runs are running, and
// its result would depend on them).
func (s *Sandbox) probe(ctx context.Context, user string, allowSuperuser bool) error {
	var signals string
	var tracks bool
	var readErr error
	err := sandbox.Probe(ctx, s, func(sc sandbox.Scratch) error {
		signals, tracks, readErr = pgNewDatabase(ctx, sc.(*pgScratch).conn)
		return nil
	})
	if err != nil {
		return fmt.Errorf("%w: role %q %v", sandbox.ErrSetup, user, err)
	}
	if readErr != nil {
		return fmt.Errorf("%w: cannot read the role's function privileges and settings, so they cannot be checked: %v", sandbox.ErrSetup, readErr)
	}
	switch {
	case allowSuperuser:
	case signals != "":
		return fmt.Errorf("%w: role %q may run %s in a new database, so a pair's query could end the other sessions of the role (this run's other workers, other runs); %s, or pass --allow-superuser", engine.ErrPrivileged, user, signals, pgGrantAdvice)
	case tracks:
		return fmt.Errorf("%w: role %q reports its queries (track_activities is on), so a pair's query could read in pg_stat_activity the queries the role's other sessions run (this run's other workers, other runs); %s, or pass --allow-superuser", engine.ErrPrivileged, user, pgGrantAdvice)
	}
	return nil
}

// pgNewDatabase reads pgNewDatabaseQuery on c: the functions that signal
// other backends the session's role may run in its database ("" for
// none), and whether the session reports its queries.
func pgNewDatabase(ctx context.Context, c *pgx.Conn) (signals string, tracks bool, err error) {
	err = c.QueryRow(ctx, pgNewDatabaseQuery, pgx.QueryExecModeExec).Scan(&signals, &tracks)
	return signals, tracks, err
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

// pgIdleScratchQuery lists the scratch databases of the current role,
// marked as the sandbox marks them (sandbox.Marker, its COMMENT ON
// DATABASE: $1 is sandbox.MarkerPrefix), with no session connected.
const pgIdleScratchQuery = `SELECT d.datname FROM pg_database d
WHERE d.datname LIKE 'sqljudge\_equiv\_%' AND d.datdba = (SELECT oid FROM pg_roles WHERE rolname = current_user)
  AND shobj_description(d.oid, 'pg_database') = $1 || d.datname
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
	rows, err := c.Query(ctx, pgIdleScratchQuery, pgx.QueryExecModeExec, sandbox.MarkerPrefix)
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
		if err := execPG(ctx, c.PgConn(), []string{"DROP DATABASE IF EXISTS " + engine.Postgres.QuoteIdent(n)}, nil, nil); err == nil {
			dropped = append(dropped, n)
		}
	}
	return dropped, nil
}

// QueryDB runs q on database dbID through the read-only engine.
func (s *Sandbox) QueryDB(ctx context.Context, dbID, q string) (*result.Set, error) {
	return s.eng.Query(ctx, dbID, q)
}
