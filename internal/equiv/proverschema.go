package equiv

import (
	"github.com/sqljudge/sqljudge/internal/catalog"
	"github.com/sqljudge/sqljudge/internal/engine"
	"github.com/sqljudge/sqljudge/internal/prove/check"
)

// ProverSchema is the schema a pair's DDL gives the prover and `sqljudge
// equiv check` on dialect d (nil for an engine the prover does not
// model): what check.Check checks a certificate against, for callers
// that hold a certificate outside an equiv run (the soundness fuzzer,
// internal/equiv/soundness/fuzz).
func ProverSchema(db *catalog.Database, d engine.Dialect) check.Schema {
	return proveSchema(db, d)
}
