// Package open selects and builds a sandbox from `sqljudge equiv --db`, as
// engine/open builds an engine from `sqljudge eval --db`:
//
//	""                                 scratch SQLite files in the system's temporary folder
//	postgres://user@host:5432/db?...   scratch databases on a PostgreSQL server
//	mysql://user:pass@host:3306/       scratch databases on a MariaDB or MySQL server
//	duckdb:[DIR]                       scratch DuckDB files under DIR (the system's temporary folder when empty)
//
// DuckDB's sandbox is built in only with -tags duckdb (engine/open's
// duckdb.go registers it with the engine, see open.Optional); without it
// a duckdb DSN is a usage error that says so.
package open

import (
	"context"
	"errors"
	"strings"

	"github.com/sqljudge/sqljudge/internal/engine"
	engopen "github.com/sqljudge/sqljudge/internal/engine/open"
	"github.com/sqljudge/sqljudge/internal/sandbox"
	"github.com/sqljudge/sqljudge/internal/sandbox/mysql"
	"github.com/sqljudge/sqljudge/internal/sandbox/postgres"
	"github.com/sqljudge/sqljudge/internal/sandbox/sqlite"
	"github.com/sqljudge/sqljudge/internal/usage"
)

// DBHelp is the help of `sqljudge equiv --db`, which Open reads: the one
// place a command names the sandboxes' schemes.
const DBHelp = "folder of SQLite databases (db_id pairs), or a postgres:// or mysql:// DSN, or duckdb:[DIR], to run on"

// Options configure Open.
type Options struct {
	// AllowSuperuser lets a server sandbox run under an account that
	// may administer the server (see sandbox/postgres and sandbox/mysql).
	AllowSuperuser bool
}

// Open returns the sandbox dsn names (see the package comment). A server
// sandbox connects, vets its account and tries a scratch database here:
// its errors are those of sandbox/postgres.New and sandbox/mysql.New. A
// DSN of another scheme, or DuckDB without the build tag, is a usage
// error.
func Open(ctx context.Context, dsn string, o Options) (sandbox.Sandbox, error) {
	if dsn == "" {
		return sqlite.New("")
	}
	d, _ := Dialect(dsn)
	switch d {
	case engine.Postgres:
		return postgres.New(ctx, dsn, o.AllowSuperuser)
	case engine.MySQL:
		return mysql.New(ctx, dsn, o.AllowSuperuser)
	}
	if opt, ok, err := engopen.OptionalEngine(d); ok {
		var nb engopen.NotBuiltInError
		if errors.As(err, &nb) {
			return nil, usage.Errorf("--db %s: this sqljudge was built without %s (build it with -tags %s)", dsn, nb.Name, nb.Tag)
		}
		_, dir, _ := strings.Cut(dsn, ":")
		return opt.Sandbox(dir)
	}
	return nil, usage.Errorf("--db: equiv runs on SQLite (a folder, or none), PostgreSQL (postgres://…), MariaDB/MySQL (mysql://…) or DuckDB (duckdb:), not %s", d)
}

// Dialect returns the dialect of a DSN with a scheme (postgres://…,
// mysql://…, duckdb:…, sqlite:…); false for a path or "".
func Dialect(dsn string) (engine.Dialect, bool) {
	for i := 0; i < len(dsn); i++ {
		if dsn[i] == ':' {
			if i < 2 {
				return "", false
			}
			return engine.ParseDialect(dsn[:i])
		}
	}
	return "", false
}
