package catalog

import (
	"context"
	"fmt"

	"github.com/sqljudge/sqljudge/internal/engine"
	"github.com/sqljudge/sqljudge/internal/result"
)

// Querier is what Read reads through: an engine.Engine, or anything that
// runs one read-only query on a named database and says its dialect.
type Querier interface {
	Dialect() engine.Dialect
	Query(ctx context.Context, db, sql string) (*result.Set, error)
}

// Options say what Read reads beyond the tables, columns, keys and
// foreign keys.
type Options struct {
	// Samples is the number of distinct values read per column
	// (Column.Values); 0 reads none.
	Samples int
	// Checks parses the CHECK constraints (ParseCheck) into
	// Table.Checks; a CHECK the grammar refuses is then Read's error (a
	// *CheckError). Without it no CHECK is read.
	Checks bool
	// AllSchemas reads the tables of every schema but the system ones
	// (PostgreSQL, DuckDB); by default only those of the default schema
	// (current_schema(), main). MySQL and SQLite have one.
	AllSchemas bool
}

// reader reads a database of one dialect into a Database.
type reader func(ctx context.Context, q func(string) (*result.Set, error), o Options) (*Database, error)

// readers are the catalog readers, one per dialect: the small constructor
// per engine (an engine added to engine.Dialects gets one here).
var readers = map[engine.Dialect]reader{
	engine.SQLite:   readSQLite,
	engine.Postgres: readPostgres,
	engine.MySQL:    readMySQL,
	engine.DuckDB:   readDuckDB,
}

// Read reads the schema of database db through eng, with the reader of
// eng's dialect: every statement is a query of eng's, so it runs under
// the engine's read-only rules and limits, and nothing is written. Its
// error is the engine's (a failing first query, as is: a missing
// database), one naming the table or column whose query failed, a
// database without tables (on the server engines), a *CheckError
// (Options.Checks), or a dialect without a reader; the caller adds which
// database it read.
func Read(ctx context.Context, eng Querier, db string, o Options) (*Database, error) {
	r, ok := readers[eng.Dialect()]
	if !ok {
		return nil, fmt.Errorf("no catalog reader for the %s engine", eng.Dialect())
	}
	out, err := r(ctx, func(sql string) (*result.Set, error) { return eng.Query(ctx, db, sql) }, o)
	if err != nil {
		return nil, err
	}
	out.Dialect = eng.Dialect()
	return out, nil
}
