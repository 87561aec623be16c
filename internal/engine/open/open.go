// Package open selects and builds an engine from a DSN, the way
// `sqljudge eval --db` names the benchmark's databases:
//
//	postgres://user:pass@host:5432/?sslmode=disable   PostgreSQL; a db_id is a database on the server
//	postgresql://...                                  (the same)
//	mysql://user:pass@host:3306/                      MySQL or MariaDB; a db_id is a database
//	mysql:user:pass@tcp(host:3306)/                   (go-sql-driver's own DSN form)
//	duckdb:PATH                                       DuckDB files: PATH/<db_id>.duckdb, or one file
//	sqlite:PATH                                       SQLite files: PATH/<db_id>/<db_id>.sqlite, ...
//	PATH                                              an existing folder or file: SQLite, or DuckDB
//	                                                  for a file ending in .duckdb
//
// DuckDB is built in only with -tags duckdb (it adds 60 MB to the binary);
// without it a duckdb DSN is an error that says so.
package open

import (
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"strings"

	"github.com/sqljudge/sqljudge/internal/engine"
	"github.com/sqljudge/sqljudge/internal/engine/mysql"
	"github.com/sqljudge/sqljudge/internal/engine/postgres"
	"github.com/sqljudge/sqljudge/internal/engine/sqlite"
)

// Options configure the engine Open builds; each engine reads what applies
// to it.
type Options struct {
	// MaxRows is the row cap of a query result; 0 means
	// engine.DefaultMaxRows.
	MaxRows int
	// MaxBytes is the byte cap of a query result (engine.CellBytes); 0
	// means engine.DefaultMaxBytes. Every engine applies it; SQLite also
	// bounds single values with it (see package sqlite).
	MaxBytes int64
	// MaxConns is the number of connections kept per database; 0 means
	// the engine's default.
	MaxConns int
	// AllowSuperuser lets PostgreSQL run predictions under a role that may
	// administer the server (postgres.Options.AllowSuperuser).
	AllowSuperuser bool
}

// DBHelp is the help of every --db flag Open reads (eval, serve, audit,
// report, generate), the one place the commands name its schemes: an
// engine added to Open is added here.
const DBHelp = "databases: a SQLite folder DB/<db_id>/<db_id>.sqlite (or one .sqlite file),\npostgres://user:pass@host:port/, mysql://user:pass@host:port/ (a db_id is a database\non the server), or duckdb:PATH (binaries built with -tags duckdb)"

// ErrDSN is wrapped by every error of Open about the DSN itself (unknown
// scheme, missing path, engine not built in): the user's input.
var ErrDSN = errors.New("bad --db")

// Open returns the engine dsn names (see the package comment). Server
// engines do not connect here: a wrong address or password shows at the
// first Check or Query.
func Open(dsn string, o Options) (engine.Engine, error) {
	scheme, rest, hasScheme := strings.Cut(dsn, ":")
	if !hasScheme || len(scheme) < 2 { // "C:\..." is a path
		scheme, rest = "", dsn
	}
	so := sqlite.Options{MaxRows: o.MaxRows, MaxBytes: o.MaxBytes, MaxConns: o.MaxConns}
	if d, ok := engine.ParseDialect(scheme); ok {
		switch d {
		case engine.Postgres:
			return postgres.New(dsn, postgres.Options{MaxRows: o.MaxRows, MaxBytes: o.MaxBytes, MaxConns: o.MaxConns, AllowSuperuser: o.AllowSuperuser})
		case engine.MySQL:
			if !strings.HasPrefix(rest, "//") {
				dsn = rest // go-sql-driver's own form after "mysql:"
			}
			return mysql.New(dsn, mysql.Options{MaxRows: o.MaxRows, MaxBytes: o.MaxBytes, MaxConns: o.MaxConns})
		case engine.DuckDB:
			return openDuckDB(rest, o)
		case engine.SQLite:
			if err := mustExist(rest); err != nil {
				return nil, err
			}
			return sqlite.New(rest, so), nil
		}
	}
	switch strings.ToLower(scheme) {
	case "", "file":
		if err := mustExist(rest); err != nil {
			return nil, err
		}
		if strings.HasSuffix(rest, ".duckdb") {
			return openDuckDB(rest, o)
		}
		return sqlite.New(rest, so), nil
	}
	if _, err := os.Stat(dsn); err == nil { // a relative path with a colon in it
		return sqlite.New(dsn, so), nil
	}
	return nil, fmt.Errorf("%w: unknown scheme %q in %q (want postgres://, mysql://, duckdb:, sqlite: or a folder)", ErrDSN, scheme, Redact(dsn))
}

// openDuckDB opens the DuckDB engine over path, when the binary has it
// (OptionalEngine).
func openDuckDB(path string, o Options) (engine.Engine, error) {
	opt, _, err := OptionalEngine(engine.DuckDB)
	if err != nil {
		return nil, fmt.Errorf("%w: %s: %v", ErrDSN, path, err)
	}
	if err := mustExist(path); err != nil {
		return nil, err
	}
	return opt.Engine(path, o)
}

func mustExist(path string) error {
	if path == "" {
		return fmt.Errorf("%w: no path", ErrDSN)
	}
	if _, err := os.Stat(path); errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("%w: %s does not exist: want the folder of the benchmark's SQLite databases (Spider's and BIRD's database/: db_id/db_id.sqlite), one .sqlite file, or a postgres://, mysql:// or duckdb: DSN", ErrDSN, path)
	} else if err != nil {
		return fmt.Errorf("%w: %v", ErrDSN, err)
	}
	return nil
}

// Redact returns dsn with any password replaced by "xxxxx", for logs and
// run summaries.
func Redact(dsn string) string {
	if u, err := url.Parse(dsn); err == nil && u.User != nil {
		if _, has := u.User.Password(); has {
			u.User = url.UserPassword(u.User.Username(), "xxxxx")
			return u.String()
		}
		return dsn
	}
	// go-sql-driver form user:pass@tcp(...)/ and libpq key=value form
	if at := strings.LastIndex(dsn, "@"); at > 0 && !strings.Contains(dsn[:at], " ") {
		head := dsn[:at]
		prefix := ""
		if p, rest, ok := strings.Cut(head, ":"); ok && strings.EqualFold(p, "mysql") {
			prefix, head = p+":", rest
		}
		if user, _, ok := strings.Cut(head, ":"); ok {
			return prefix + user + ":xxxxx" + dsn[at:]
		}
		return dsn
	}
	fields := strings.Fields(dsn)
	for i, f := range fields {
		if strings.HasPrefix(strings.ToLower(f), "password=") {
			fields[i] = "password=xxxxx"
		}
	}
	return strings.Join(fields, " ")
}
