package equiv

import (
	"context"
	"path/filepath"
	"strings"

	"github.com/sqljudge/sqljudge/internal/engine"
	"github.com/sqljudge/sqljudge/internal/engine/open"
	"github.com/sqljudge/sqljudge/internal/result"
	"github.com/sqljudge/sqljudge/internal/usage"
)

// newServerSandbox returns the sandbox of a --db DSN of dialect d: scratch
// databases on a PostgreSQL or a MariaDB/MySQL server, or scratch DuckDB
// files (duckdb:[DIR], when the binary links DuckDB).
func newServerSandbox(ctx context.Context, d engine.Dialect, o CommandOptions) (Sandbox, error) {
	switch d {
	case engine.Postgres:
		return NewPostgresSandbox(ctx, o.DB, o.AllowSuperuser)
	case engine.MySQL:
		return NewMySQLSandbox(ctx, o.DB, o.AllowSuperuser)
	case engine.DuckDB:
		if newDuckDBSandbox == nil {
			return nil, usage.Errorf("--db %s: this sqljudge was built without DuckDB (build it with -tags duckdb)", o.DB)
		}
		_, dir, _ := strings.Cut(o.DB, ":")
		return newDuckDBSandbox(dir)
	}
	return nil, usage.Errorf("--db: equiv runs on SQLite (a folder, or none), PostgreSQL (postgres://…), MariaDB/MySQL (mysql://…) or DuckDB (duckdb:), not %s", d)
}

// newDuckDBSandbox makes the sandbox of --db duckdb:[DIR]: scratch DuckDB
// files in a new folder under DIR (the system's temporary folder when
// empty). It is nil unless package equiv/duckdbsandbox is linked (the CLI
// links it when built with -tags duckdb, as it does the DuckDB engine).
var newDuckDBSandbox func(dir string) (Sandbox, error)

// RegisterDuckDB sets the constructor of --db duckdb: sandboxes; package
// equiv/duckdbsandbox calls it from its init.
func RegisterDuckDB(f func(dir string) (Sandbox, error)) { newDuckDBSandbox = f }

// ResultOf converts a result set into a witness's Result (its columns and
// at most 100 rows, cells as JSON values), as Decide records q1's and
// q2's results: a test re-running a witness compares with it.
func ResultOf(s *result.Set) Result { return resultJSON(s) }

// dbSetting is --db as OUT/fingerprint.json records it: a DSN with its
// password replaced (open.Redact, as eval records it), a folder cleaned.
func dbSetting(db string) string {
	if _, ok := dsnDialect(db); ok {
		return open.Redact(db)
	}
	return filepath.Clean(db)
}
