//go:build duckdb

package open

import (
	"github.com/sqljudge/sqljudge/internal/sandbox"
	"github.com/sqljudge/sqljudge/internal/sandbox/duckdb"
)

func init() {
	duckdbSandbox = func(dir string) (sandbox.Sandbox, error) { return duckdb.New(dir) }
}
