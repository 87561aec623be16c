package catalog

import (
	"context"
	"fmt"

	"github.com/sqljudge/sqljudge/internal/engine"
	"github.com/sqljudge/sqljudge/internal/result"
)

// The queries of readDuckDB: the base tables' columns of the database's
// schemas (the default one, current_schema(), or all but the system ones)
// with their data_type, by schema, table and position; then their
// PRIMARY KEY, UNIQUE, FOREIGN KEY and CHECK constraints from
// duckdb_constraints(), one row a column in key order.
const (
	duckColumnsQuery = `SELECT CASE WHEN c.table_schema = current_schema() THEN '' ELSE c.table_schema END, c.table_name, c.column_name, c.data_type, c.is_nullable, current_schema()
FROM information_schema.columns c JOIN information_schema.tables t ON t.table_catalog = c.table_catalog AND t.table_schema = c.table_schema AND t.table_name = c.table_name
WHERE t.table_type = 'BASE TABLE' AND c.table_catalog = current_database() AND %s
ORDER BY c.table_schema, c.table_name, c.ordinal_position`
	duckConstraintsQuery = `SELECT CASE WHEN schema_name = current_schema() THEN '' ELSE schema_name END, table_name, constraint_index, constraint_type,
  unnest(constraint_column_names), unnest(referenced_column_names), referenced_table, expression
FROM duckdb_constraints()
WHERE database_name = current_database() AND constraint_type IN ('PRIMARY KEY', 'UNIQUE', 'FOREIGN KEY', 'CHECK')
ORDER BY schema_name, table_name, constraint_index`
)

// readDuckDB reads a DuckDB database from information_schema and
// duckdb_constraints(): tables by schema and name, column types as
// data_type spells them, NOT NULL, keys, UNIQUE constraints, foreign keys
// (DuckDB keeps them within a schema), CHECK constraints
// (Options.Checks) and the samples (serverSamples). Every statement is a
// SELECT.
func readDuckDB(ctx context.Context, q func(string) (*result.Set, error), o Options) (*Database, error) {
	filter := "c.table_schema = current_schema()"
	if o.AllSchemas {
		filter = "c.table_schema NOT IN ('information_schema', 'pg_catalog')"
	}
	db, err := readColumns(q, fmt.Sprintf(duckColumnsQuery, filter), isNO, 0, 5)
	if err != nil {
		return nil, err
	}
	cons, err := q(duckConstraintsQuery)
	if err != nil {
		return nil, err
	}
	g := newConstraintGroups()
	for _, r := range cons.Rows {
		typ := map[string]string{"PRIMARY KEY": "p", "UNIQUE": "u", "FOREIGN KEY": "f", "CHECK": "c"}[r[3].S]
		c := g.group(r[0].S, r[1].S, fmt.Sprint(r[2].I), typ)
		if typ == "c" {
			c.def = "CHECK " + r[7].S
			continue
		}
		c.cols = append(c.cols, r[4].S)
		c.refSchema, c.refTable = r[0].S, r[6].S
		c.refCols = append(c.refCols, r[5].S)
	}
	if err := g.addTo(db, o.Checks); err != nil {
		return nil, err
	}
	return db, serverSamples(engine.DuckDB, q, db, o.Samples)
}
