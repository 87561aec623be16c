//go:build duckdb

package open

import (
	"github.com/sqljudge/sqljudge/internal/engine"
	"github.com/sqljudge/sqljudge/internal/engine/duckdb"
	"github.com/sqljudge/sqljudge/internal/sandbox"
	duckdbsb "github.com/sqljudge/sqljudge/internal/sandbox/duckdb"
)

// DuckDB, built in with -tags duckdb: its engine and equiv's sandbox (the
// engine's package links go-duckdb, which registers the database/sql
// driver "duckdb" that dbload writes files through).
func init() {
	RegisterOptional(Optional{
		Dialect: engine.DuckDB,
		Engine: func(path string, o Options) (engine.Engine, error) {
			return duckdb.New(path, duckdb.Options{MaxRows: o.MaxRows, MaxBytes: o.MaxBytes, MaxConns: o.MaxConns}), nil
		},
		Sandbox: func(dir string) (sandbox.Sandbox, error) { return duckdbsb.New(dir) },
	})
}
