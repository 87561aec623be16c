package open

import (
	"fmt"
	"sync"

	"github.com/sqljudge/sqljudge/internal/engine"
	"github.com/sqljudge/sqljudge/internal/sandbox"
)

// Optional is an engine built into the binary only with a build tag (a
// cgo library of tens of MB: DuckDB). Its tagged file (duckdb.go)
// registers everything each layer needs of it once, with RegisterOptional
// (linking the engine's package, which registers its database/sql
// driver), and every layer asks OptionalEngine: Open for the engine,
// sandbox/open for equiv's scratch sandbox, dbload before it fills a
// database file through the driver. Without the tag nothing is registered
// and each says the binary lacks it (NotBuiltInError).
type Optional struct {
	// Dialect is the engine's dialect.
	Dialect engine.Dialect
	// Engine opens the engine over path (a file or folder that exists).
	Engine func(path string, o Options) (engine.Engine, error)
	// Sandbox makes equiv's scratch sandbox under folder dir (the
	// system's temporary folder when "").
	Sandbox func(dir string) (sandbox.Sandbox, error)
}

// NotBuiltInError is the error of OptionalEngine for an optional engine the
// binary was built without; its text names the build tag
// ("this sqljudge was built without DuckDB; rebuild with -tags duckdb").
type NotBuiltInError struct {
	// Name is how messages name the engine ("DuckDB"); Tag the build tag
	// that builds it in ("duckdb").
	Name, Tag string
}

// Error says what the binary lacks and how to build it in.
func (e NotBuiltInError) Error() string {
	return fmt.Sprintf("this sqljudge was built without %s; rebuild with -tags %s", e.Name, e.Tag)
}

// optionalTags names the optional engines by dialect, for NotBuiltInError:
// an engine added behind a build tag is added here and registers itself
// from its tagged file.
var optionalTags = map[engine.Dialect]NotBuiltInError{
	engine.DuckDB: {Name: "DuckDB", Tag: "duckdb"},
}

var (
	optionalMu sync.RWMutex
	optionals  = map[engine.Dialect]Optional{}
)

// RegisterOptional registers an optional engine; its tagged file calls it
// from init. It panics for a dialect not in optionalTags (a programming
// error caught at init).
func RegisterOptional(o Optional) {
	if _, ok := optionalTags[o.Dialect]; !ok {
		panic("open: optional engine " + string(o.Dialect) + " has no build tag in optionalTags")
	}
	optionalMu.Lock()
	defer optionalMu.Unlock()
	optionals[o.Dialect] = o
}

// OptionalEngine returns the optional engine of dialect d: registered when
// the binary was built with its tag, else NotBuiltInError. ok is false when
// d is not an optional engine at all (it is always built in, or unknown).
func OptionalEngine(d engine.Dialect) (o Optional, ok bool, err error) {
	tag, ok := optionalTags[d]
	if !ok {
		return Optional{}, false, nil
	}
	optionalMu.RLock()
	defer optionalMu.RUnlock()
	o, built := optionals[d]
	if !built {
		return Optional{}, true, tag
	}
	return o, true, nil
}
