// Package mysql is equiv's MariaDB/MySQL sandbox: scratch databases on a
// MariaDB or MySQL server, each created, filled and dropped by the sandbox
// and queried through sqljudge's MySQL engine (engine/mysql).
package mysql

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"fmt"
	"strings"
	"sync/atomic"
	"time"

	mysqldrv "github.com/go-sql-driver/mysql"

	"github.com/sqljudge/sqljudge/internal/catalog"
	"github.com/sqljudge/sqljudge/internal/engine"
	"github.com/sqljudge/sqljudge/internal/engine/mysql"
	"github.com/sqljudge/sqljudge/internal/result"
	"github.com/sqljudge/sqljudge/internal/sandbox"
)

// Sandbox makes scratch databases on a MariaDB or MySQL server: each
// Open runs CREATE DATABASE under a new name (sandbox.ScratchPrefix; utf8mb4 with
// the server's default collation), and the scratch's Close drops it. It
// never opens or changes another database. Tables are created, filled and
// emptied on a connection of the scratch's own, one statement per call
// (multi-statements stay off), values as parameters of server-side
// prepared statements; every session pins sql_mode (mysqlSQLMode: no
// ANSI_QUOTES, no NO_BACKSLASH_ESCAPES, no PIPES_AS_CONCAT), time_zone
// and, on MariaDB, max_statement_time; queries run through sqljudge's
// MySQL engine (package mysql: read-only transactions, a fresh session per
// query, max_statement_time) with the same sql_mode.
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
// elsewhere, EXECUTE on a routine, PROXY, WITH GRANT OPTION, or a role
// that has any of these) is refused with engine.ErrPrivileged unless
// allowSuperuser (vetAccount); one that cannot create, fill and drop a
// scratch database is refused with sandbox.ErrSetup before the first pair.
//
// What a pair's query can read (MySQL lets a query name another database):
// every database the account may SELECT, which with the grant above is
// the scratch databases of other runs under the same account (they hold
// the values sampled from db_id databases) and the db_id databases
// themselves. Give runs of different trust an account each.
type Sandbox struct {
	cfg    *mysqldrv.Config // the DSN's, without a database
	admin  *sql.DB          // CREATE and DROP DATABASE
	eng    *mysql.Engine
	prefix string
	n      atomic.Int64
	swept  []string
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
	if strings.Contains(version, "MariaDB") {
		cfg.Params["max_statement_time"] = "30"
	}
	s := &Sandbox{cfg: cfg, admin: admin, prefix: sandbox.ScratchPrefix()}
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
	s.swept, err = sweep(ctx, s.admin, sandbox.StaleAfter)
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
// statement.
func (s *Sandbox) Open(ctx context.Context, ddl []string) (sandbox.Scratch, error) {
	name := fmt.Sprintf("%s_%d", s.prefix, s.n.Add(1))
	if _, err := s.admin.ExecContext(ctx, "CREATE DATABASE "+engine.MySQL.QuoteIdent(name)+" CHARACTER SET utf8mb4"); err != nil {
		return nil, &sandbox.SetupError{Err: err}
	}
	sc := &mysqlScratch{sb: s, name: name}
	cfg := s.cfg.Clone()
	cfg.DBName = name
	w, err := openMySQL(cfg)
	if err != nil {
		sc.Close()
		return nil, &sandbox.SetupError{Err: err}
	}
	sc.w = w
	sc.w.SetMaxOpenConns(1)
	for _, st := range ddl {
		if _, err := sc.w.ExecContext(ctx, st); err != nil {
			sc.Close()
			return nil, fmt.Errorf("%s: %w", sandbox.Abbreviate(st), err)
		}
	}
	return sc, nil
}

type mysqlScratch struct {
	sb   *Sandbox
	name string
	w    *sql.DB // one connection: the writer
}

// Load empties the tables (foreign key checks off while it does, so that
// a table referencing itself empties too) and inserts the rows (one
// prepared INSERT per table), in one transaction; a failed Load rolls
// back.
func (sc *mysqlScratch) Load(ctx context.Context, tables []sandbox.TableRows) error {
	return sc.inTx(ctx, func(c *sql.Conn) error {
		if _, err := c.ExecContext(ctx, "SET SESSION foreign_key_checks = 0"); err != nil {
			return err
		}
		if err := sandbox.DeleteRows(ctx, c, tables); err != nil {
			return err
		}
		if _, err := c.ExecContext(ctx, "SET SESSION foreign_key_checks = 1"); err != nil {
			return err
		}
		return sandbox.InsertRows(ctx, engine.MySQL, c, tables)
	})
}

// Exec runs the statements, one per call, in one transaction.
func (sc *mysqlScratch) Exec(ctx context.Context, stmts []string) error {
	return sc.inTx(ctx, func(c *sql.Conn) error {
		for _, st := range stmts {
			if _, err := c.ExecContext(ctx, st); err != nil {
				return fmt.Errorf("%s: %w", sandbox.Abbreviate(st), err)
			}
		}
		return nil
	})
}

// inTx runs f on the writer's connection inside START TRANSACTION …
// COMMIT; on an error it rolls back and restores foreign_key_checks, or
// discards the connection when it cannot.
func (sc *mysqlScratch) inTx(ctx context.Context, f func(*sql.Conn) error) error {
	c, err := sc.w.Conn(ctx)
	if err != nil {
		return err
	}
	defer c.Close()
	if _, err := c.ExecContext(ctx, "START TRANSACTION"); err != nil {
		return err
	}
	err = f(c)
	if err == nil {
		_, err = c.ExecContext(ctx, "COMMIT")
	}
	if err != nil {
		rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
		_, rerr := c.ExecContext(rctx, "ROLLBACK")
		if _, ferr := c.ExecContext(rctx, "SET SESSION foreign_key_checks = 1"); rerr == nil {
			rerr = ferr
		}
		cancel()
		if rerr != nil {
			_ = c.Raw(func(any) error { return driver.ErrBadConn })
		}
	}
	return err
}

// Query runs q through the MySQL engine, in a read-only transaction.
func (sc *mysqlScratch) Query(ctx context.Context, q string) (*result.Set, error) {
	return sc.sb.eng.Query(ctx, sc.name, q)
}

// Close drops the scratch database (with a context of its own, so that a
// run stopped by its budget or by the user still drops it).
func (sc *mysqlScratch) Close() error {
	ctx, cancel := context.WithTimeout(context.Background(), sandbox.CloseTimeout)
	defer cancel()
	if sc.w != nil {
		_ = sc.w.Close()
	}
	_ = sc.sb.eng.Release(sc.name)
	_, err := sc.sb.admin.ExecContext(ctx, "DROP DATABASE IF EXISTS "+engine.MySQL.QuoteIdent(sc.name))
	return err
}

// mysqlIdleScratchQuery lists the scratch databases the account sees and
// that no session of the account is connected to (without PROCESS,
// PROCESSLIST shows the account's own sessions, which is every run of
// it).
const mysqlIdleScratchQuery = `SELECT s.SCHEMA_NAME FROM information_schema.SCHEMATA s
WHERE s.SCHEMA_NAME LIKE 'sqljudge\\_equiv\\_%'
  AND NOT EXISTS (SELECT 1 FROM information_schema.PROCESSLIST p WHERE p.DB = s.SCHEMA_NAME)
ORDER BY s.SCHEMA_NAME`

// sweep drops the stale scratch databases (see sandbox's scratch.go) and
// returns their names.
func sweep(ctx context.Context, admin *sql.DB, age time.Duration) ([]string, error) {
	rows, err := admin.QueryContext(ctx, mysqlIdleScratchQuery)
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
