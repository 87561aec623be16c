// Package testserver gives tests the database servers that .ci/run starts
// (PostgreSQL and MariaDB on loopback ports): their DSNs, read from the
// environment, and scratch databases that a test creates and drops.
//
// A test that needs a server calls Postgres(t) or MySQL(t). When the
// variable is missing the test FAILS in CI ($CI set and not "false", or
// SQLJUDGE_REQUIRE_DATA=1: a CI run must test every engine) and is skipped
// otherwise with a message naming the variable (`go test -v` shows it), so
// `go test ./...` on a machine without servers still runs everything else.
package testserver

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"net/url"
	"os"
	"regexp"
	"strings"
	"testing"
	"time"

	mysqldrv "github.com/go-sql-driver/mysql"
	"github.com/jackc/pgx/v5"

	mysqleng "github.com/sqljudge/sqljudge/internal/engine/mysql"
)

// Environment variables holding the servers' DSNs.
const (
	// PostgresEnv holds a PostgreSQL DSN (postgres://user@host:port/db)
	// of a role that may create databases.
	PostgresEnv = "SQLJUDGE_TEST_POSTGRES"
	// MySQLEnv holds a MySQL/MariaDB DSN (mysql://user:pass@host:port/)
	// of a user that may create databases.
	MySQLEnv = "SQLJUDGE_TEST_MYSQL"
)

// dsn returns $name, failing the test under CI and skipping it elsewhere
// when it is unset; server names the server ("PostgreSQL").
func dsn(tb testing.TB, name, server string) string {
	tb.Helper()
	v := os.Getenv(name)
	if v != "" {
		return v
	}
	if Required() {
		tb.Fatalf("$%s is not set: CI must start a %s server (.ci/run does) and export its DSN", name, server)
	}
	tb.Skipf("skipped: $%s is not set, so there is no %s server to test against (.ci/run starts one; see docs/development.md)", name, server)
	return ""
}

// Required reports whether a missing server fails the test: in CI ($CI set
// and not "false") or with SQLJUDGE_REQUIRE_DATA=1.
func Required() bool {
	ci := os.Getenv("CI")
	return (ci != "" && ci != "false") || os.Getenv("SQLJUDGE_REQUIRE_DATA") == "1"
}

// Postgres returns the PostgreSQL server's DSN.
func Postgres(tb testing.TB) string { tb.Helper(); return dsn(tb, PostgresEnv, "PostgreSQL") }

// MySQL returns the MySQL/MariaDB server's DSN (URL form).
func MySQL(tb testing.TB) string { tb.Helper(); return dsn(tb, MySQLEnv, "MariaDB") }

// Name returns a database name unique to this test run: prefix, then
// eight random hex digits, then "_" (a db_id is appended to it).
func Name(prefix string) string {
	var b [4]byte
	_, _ = rand.Read(b[:])
	return prefix + hex.EncodeToString(b[:]) + "_"
}

var safeName = regexp.MustCompile(`^[a-z0-9_]+$`)

func checkName(tb testing.TB, name string) {
	tb.Helper()
	if !safeName.MatchString(name) {
		tb.Fatalf("testserver: database name %q must be lower-case letters, digits and _", name)
	}
}

// ConnectPostgres connects to database db ("" for the DSN's own) of the
// server and closes the connection when the test ends.
func ConnectPostgres(tb testing.TB, serverDSN, db string) *pgx.Conn {
	tb.Helper()
	cfg, err := pgx.ParseConfig(serverDSN)
	if err != nil {
		tb.Fatalf("testserver: %s: %v", PostgresEnv, err)
	}
	if db != "" {
		cfg.Database = db
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	c, err := pgx.ConnectConfig(ctx, cfg)
	if err != nil {
		tb.Fatalf("testserver: connect to %s: %v", cfg.Database, err)
	}
	tb.Cleanup(func() { c.Close(context.Background()) })
	return c
}

// CreatePostgresDB creates database name on the server (dropping an old
// one of that name) and drops it when the test ends. It returns a
// connection to it, closed before the drop.
func CreatePostgresDB(tb testing.TB, serverDSN, name string) *pgx.Conn {
	tb.Helper()
	return CreatePostgresDBWith(tb, serverDSN, name, "")
}

// CreatePostgresDBWith is CreatePostgresDB with options appended to its
// CREATE DATABASE ("TEMPLATE template0 LOCALE_PROVIDER icu ICU_LOCALE
// 'en-US'"), a test's own text.
func CreatePostgresDBWith(tb testing.TB, serverDSN, name, options string) *pgx.Conn {
	tb.Helper()
	checkName(tb, name)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	c, err := pgx.Connect(ctx, serverDSN)
	if err != nil {
		tb.Fatalf("testserver: connect to %s: %v", PostgresEnv, err)
	}
	defer c.Close(ctx)
	for _, q := range []string{"DROP DATABASE IF EXISTS " + name + " WITH (FORCE)", strings.TrimSpace("CREATE DATABASE " + name + " " + options)} {
		if _, err := c.Exec(ctx, q); err != nil {
			tb.Fatalf("testserver: %s: %v", q, err)
		}
	}
	tb.Cleanup(func() { DropPostgresDB(tb, serverDSN, name) })
	return ConnectPostgres(tb, serverDSN, name)
}

// DropPostgresDB drops database name, ending its sessions.
func DropPostgresDB(tb testing.TB, serverDSN, name string) {
	tb.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	c, err := pgx.Connect(ctx, serverDSN)
	if err != nil {
		tb.Errorf("testserver: connect to drop %s: %v", name, err)
		return
	}
	defer c.Close(ctx)
	if _, err := c.Exec(ctx, "DROP DATABASE IF EXISTS "+name+" WITH (FORCE)"); err != nil {
		tb.Errorf("testserver: drop %s: %v", name, err)
	}
}

// MySQLConfig parses the server's DSN (see mysql.ParseDSN).
func MySQLConfig(tb testing.TB, dsn string) *mysqldrv.Config {
	tb.Helper()
	cfg, err := mysqleng.ParseDSN(dsn)
	if err != nil {
		tb.Fatalf("testserver: %s: %v", MySQLEnv, err)
	}
	return cfg
}

// OpenMySQL opens a pool on the server, on database db ("" for none).
func OpenMySQL(tb testing.TB, serverDSN, db string) *sql.DB {
	tb.Helper()
	cfg := MySQLConfig(tb, serverDSN).Clone()
	cfg.DBName = db
	conn, err := mysqldrv.NewConnector(cfg)
	if err != nil {
		tb.Fatalf("testserver: %v", err)
	}
	p := sql.OpenDB(conn)
	tb.Cleanup(func() { p.Close() })
	return p
}

// CreateMySQLDB creates database name on the server (dropping an old one)
// and drops it when the test ends. It returns a pool on that database.
func CreateMySQLDB(tb testing.TB, serverDSN, name string) *sql.DB {
	tb.Helper()
	checkName(tb, name)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	admin := OpenMySQL(tb, serverDSN, "")
	for _, q := range []string{"DROP DATABASE IF EXISTS " + name, "CREATE DATABASE " + name + " CHARACTER SET utf8mb4"} {
		if _, err := admin.ExecContext(ctx, q); err != nil {
			tb.Fatalf("testserver: %s: %v", q, err)
		}
	}
	tb.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		a := OpenMySQL(tb, serverDSN, "")
		if _, err := a.ExecContext(ctx, "DROP DATABASE IF EXISTS "+name); err != nil {
			tb.Errorf("testserver: drop %s: %v", name, err)
		}
	})
	return OpenMySQL(tb, serverDSN, name)
}

// PostgresReader creates a login role (named by Name) that may read every
// table of database db and nothing else: no superuser, no membership in
// the pg_read_server_files / pg_signal_backend roles. It returns the
// server DSN with that role as user (the server must trust it, as the CI
// server trusts loopback logins), and drops the role when the test ends.
func PostgresReader(tb testing.TB, serverDSN, db string) string {
	tb.Helper()
	role := Name("sjt_reader_")
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	c := ConnectPostgres(tb, serverDSN, db)
	for _, q := range []string{
		"CREATE ROLE " + role + " LOGIN",
		"GRANT CONNECT ON DATABASE " + db + " TO " + role,
		"GRANT USAGE ON SCHEMA public TO " + role,
		"GRANT SELECT ON ALL TABLES IN SCHEMA public TO " + role,
	} {
		if _, err := c.Exec(ctx, q); err != nil {
			tb.Fatalf("testserver: %s: %v", q, err)
		}
	}
	tb.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		for _, q := range []string{"DROP OWNED BY " + role, "DROP ROLE " + role} {
			if _, err := c.Exec(ctx, q); err != nil {
				tb.Errorf("testserver: %s: %v", q, err)
			}
		}
	})
	u, err := url.Parse(serverDSN)
	if err != nil || u.Scheme != "postgres" && u.Scheme != "postgresql" {
		tb.Fatalf("testserver: %s must be a postgres:// URL to derive a reader's DSN", PostgresEnv)
	}
	u.User = url.User(role)
	return u.String()
}

// MySQLSession opens a session of its own on the server of dsn (closed
// when the test ends) and returns it with its CONNECTION_ID; AliveMySQL
// tells whether it is still that session.
func MySQLSession(tb testing.TB, dsn string) (*sql.Conn, int64) {
	tb.Helper()
	ctx := context.Background()
	c, err := OpenMySQL(tb, dsn, "").Conn(ctx)
	if err != nil {
		tb.Fatalf("testserver: %v", err)
	}
	tb.Cleanup(func() { c.Close() })
	var id int64
	if err := c.QueryRowContext(ctx, "SELECT CONNECTION_ID()").Scan(&id); err != nil {
		tb.Fatalf("testserver: %v", err)
	}
	return c, id
}

// AliveMySQL reports whether session c, of CONNECTION_ID id, still
// answers as itself (it was not killed).
func AliveMySQL(c *sql.Conn, id int64) bool {
	var got int64
	return c.QueryRowContext(context.Background(), "SELECT CONNECTION_ID()").Scan(&got) == nil && got == id
}
