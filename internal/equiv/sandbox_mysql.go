package equiv

import (
	"context"
	"crypto/rand"
	"database/sql"
	"database/sql/driver"
	"encoding/hex"
	"fmt"
	"strings"
	"sync/atomic"
	"time"

	mysqldrv "github.com/go-sql-driver/mysql"

	"github.com/sqljudge/sqljudge/internal/engine"
	"github.com/sqljudge/sqljudge/internal/engine/mysql"
	"github.com/sqljudge/sqljudge/internal/result"
)

// MySQLSandbox makes scratch databases on a MariaDB or MySQL server: each
// Open runs CREATE DATABASE under a new name (sqljudge_equiv_<random>_<n>,
// utf8mb4 with the server's default collation), and the scratch's Close
// drops it. It never opens or changes another database. Tables are
// created, filled and emptied on a connection of the scratch's own, one
// statement per call (multi-statements stay off); queries run through
// sqljudge's MySQL engine (package mysql: read-only transactions, a fresh
// session per query, max_statement_time).
//
// The account needs CREATE, DROP, SELECT, INSERT, DELETE and REFERENCES
// on the scratch databases and nothing else, e.g.
//
//	GRANT CREATE, DROP, SELECT, INSERT, DELETE, REFERENCES
//	  ON `sqljudge\_equiv\_%`.* TO 'equiv'@'localhost';
//
// An account that may administer the server (global ALL PRIVILEGES,
// SUPER, FILE, PROCESS, SHUTDOWN, RELOAD, CREATE USER, GRANT OPTION or an
// ADMIN privilege, as SHOW GRANTS lists them) is refused with
// engine.ErrPrivileged unless allowSuperuser: a query could read server
// files (LOAD_FILE) or see other sessions' statements. This mirrors the
// superuser check of the PostgreSQL engine (postgres.Engine.Check).
type MySQLSandbox struct {
	cfg    *mysqldrv.Config // the DSN's, without a database
	admin  *sql.DB          // CREATE and DROP DATABASE
	eng    *mysql.Engine
	prefix string
	n      atomic.Int64
}

var _ Sandbox = (*MySQLSandbox)(nil)

// NewMySQLSandbox parses dsn (mysql.ParseDSN: mysql://user:pass@host:port/
// or go-sql-driver's form), connects to the server, vets the account
// (unless allowSuperuser) and returns the sandbox.
func NewMySQLSandbox(ctx context.Context, dsn string, allowSuperuser bool) (*MySQLSandbox, error) {
	cfg, err := mysql.ParseDSN(dsn)
	if err != nil {
		return nil, fmt.Errorf("--db: %w", err)
	}
	cfg.DBName = ""
	cfg.MultiStatements = false
	cfg.AllowAllFiles = false
	if cfg.Params == nil {
		cfg.Params = map[string]string{}
	}
	cfg.Params["time_zone"] = "'+00:00'"
	conn, err := mysqldrv.NewConnector(cfg)
	if err != nil {
		return nil, fmt.Errorf("--db: %w", err)
	}
	admin := sql.OpenDB(conn)
	admin.SetMaxOpenConns(2)
	if err := admin.PingContext(ctx); err != nil {
		admin.Close()
		return nil, fmt.Errorf("--db: cannot connect: %w", err)
	}
	if !allowSuperuser {
		if err := vetMySQLAccount(ctx, admin); err != nil {
			admin.Close()
			return nil, err
		}
	}
	eng, err := mysql.New(dsn, mysql.Options{MaxConns: 2, MaxRows: 10_000})
	if err != nil {
		admin.Close()
		return nil, err
	}
	var b [4]byte
	_, _ = rand.Read(b[:])
	return &MySQLSandbox{cfg: cfg, admin: admin, eng: eng, prefix: "sqljudge_equiv_" + hex.EncodeToString(b[:])}, nil
}

// adminPrivileges are the global privileges that let a query reach past
// its database (files, other sessions, the server's settings and users).
var adminPrivileges = []string{"ALL", "ALL PRIVILEGES", "SUPER", "FILE", "PROCESS", "SHUTDOWN", "RELOAD", "CREATE USER", "GRANT OPTION"}

// vetMySQLAccount refuses an account with a global administrative
// privilege in its SHOW GRANTS (which on MariaDB includes the privileges
// of the role in use).
func vetMySQLAccount(ctx context.Context, db *sql.DB) error {
	rows, err := db.QueryContext(ctx, "SHOW GRANTS")
	if err != nil {
		return fmt.Errorf("--db: cannot read the account's privileges: %w", err)
	}
	defer rows.Close()
	var user string
	_ = db.QueryRowContext(ctx, "SELECT CURRENT_USER()").Scan(&user)
	for rows.Next() {
		var g string
		if err := rows.Scan(&g); err != nil {
			return err
		}
		if p := adminPrivilege(g); p != "" {
			return fmt.Errorf("%w: account %s holds %s on *.*, so a query could read server files or see other sessions; grant an account CREATE, DROP, SELECT, INSERT, DELETE and REFERENCES on `sqljudge\\_equiv\\_%%`.* only (docs/equiv.md, \"Engines\"), or pass --allow-superuser", engine.ErrPrivileged, user, p)
		}
	}
	return rows.Err()
}

// adminPrivilege returns the first administrative privilege a SHOW GRANTS
// line gives on *.*, or "".
func adminPrivilege(grant string) string {
	g := strings.ToUpper(grant)
	if strings.HasSuffix(strings.TrimSpace(g), "WITH GRANT OPTION") && strings.Contains(g, " ON *.* ") {
		return "GRANT OPTION"
	}
	privs, ok := strings.CutPrefix(g, "GRANT ")
	if !ok {
		return ""
	}
	privs, _, ok = strings.Cut(privs, " ON *.* ")
	if !ok {
		return ""
	}
	for _, p := range strings.Split(privs, ",") {
		p = strings.TrimSpace(p)
		for _, a := range adminPrivileges {
			if p == a {
				return p
			}
		}
		if strings.Contains(p, "ADMIN") {
			return p
		}
	}
	return ""
}

// Dialect returns engine.MySQL.
func (s *MySQLSandbox) Dialect() engine.Dialect { return engine.MySQL }

// Close closes the engine and the administrative connections.
func (s *MySQLSandbox) Close() error {
	err := s.eng.Close()
	if aerr := s.admin.Close(); err == nil {
		err = aerr
	}
	return err
}

// Open creates a scratch database and runs ddl in it, statement by
// statement.
func (s *MySQLSandbox) Open(ctx context.Context, ddl []string) (Scratch, error) {
	name := fmt.Sprintf("%s_%d", s.prefix, s.n.Add(1))
	if _, err := s.admin.ExecContext(ctx, "CREATE DATABASE "+engine.MySQL.QuoteIdent(name)+" CHARACTER SET utf8mb4"); err != nil {
		return nil, fmt.Errorf("cannot create a scratch database: %w", err)
	}
	sc := &mysqlScratch{sb: s, name: name}
	cfg := s.cfg.Clone()
	cfg.DBName = name
	conn, err := mysqldrv.NewConnector(cfg)
	if err != nil {
		sc.Close()
		return nil, err
	}
	sc.w = sql.OpenDB(conn)
	sc.w.SetMaxOpenConns(1)
	for _, st := range ddl {
		if _, err := sc.w.ExecContext(ctx, st); err != nil {
			sc.Close()
			return nil, fmt.Errorf("%s: %w", abbreviateSQL(st), err)
		}
	}
	return sc, nil
}

type mysqlScratch struct {
	sb   *MySQLSandbox
	name string
	w    *sql.DB // one connection: the writer
}

// Load empties the tables (foreign key checks off while it does, so that
// a table referencing itself empties too) and runs the inserts, in one
// transaction; a failed Load rolls back.
func (sc *mysqlScratch) Load(ctx context.Context, tables []string, inserts []string) error {
	c, err := sc.w.Conn(ctx)
	if err != nil {
		return err
	}
	defer c.Close()
	stmts := []string{"START TRANSACTION", "SET SESSION foreign_key_checks = 0"}
	for i := len(tables) - 1; i >= 0; i-- {
		stmts = append(stmts, "DELETE FROM "+tables[i])
	}
	stmts = append(stmts, "SET SESSION foreign_key_checks = 1")
	stmts = append(append(stmts, inserts...), "COMMIT")
	for _, st := range stmts {
		if _, err := c.ExecContext(ctx, st); err != nil {
			rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
			_, rerr := c.ExecContext(rctx, "ROLLBACK")
			if _, ferr := c.ExecContext(rctx, "SET SESSION foreign_key_checks = 1"); rerr == nil {
				rerr = ferr
			}
			cancel()
			if rerr != nil {
				_ = c.Raw(func(any) error { return driver.ErrBadConn })
			}
			return fmt.Errorf("%s: %w", abbreviateSQL(st), err)
		}
	}
	return nil
}

// Query runs q through the MySQL engine, in a read-only transaction.
func (sc *mysqlScratch) Query(ctx context.Context, q string) (*result.Set, error) {
	return sc.sb.eng.Query(ctx, sc.name, q)
}

// Close drops the scratch database (with a context of its own, so that a
// run stopped by its budget or by the user still drops it).
func (sc *mysqlScratch) Close() error {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if sc.w != nil {
		_ = sc.w.Close()
	}
	_ = sc.sb.eng.Release(sc.name)
	_, err := sc.sb.admin.ExecContext(ctx, "DROP DATABASE IF EXISTS "+engine.MySQL.QuoteIdent(sc.name))
	return err
}
