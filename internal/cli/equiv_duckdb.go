//go:build duckdb

package cli

// A binary built with -tags duckdb links the DuckDB engine (engine/open)
// and equiv's DuckDB sandbox: `sqljudge equiv --db duckdb:`.
import _ "github.com/sqljudge/sqljudge/internal/equiv/duckdbsandbox"
