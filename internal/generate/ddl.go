package generate

import (
	"context"
	"fmt"
	"strings"

	"github.com/sqljudge/sqljudge/internal/engine"
	"github.com/sqljudge/sqljudge/internal/result"
)

// schemaDDL returns the CREATE TABLE statements of database db, one per
// table, read through the engine: on SQLite the statements as stored
// (sqlite_master, in creation order); on PostgreSQL, MySQL/MariaDB and
// DuckDB rebuilt from information_schema.columns (each column with its
// declared type, in ordinal order; tables by schema and name; a table
// outside the default schema named schema.table), as Defog SQL-Eval's
// prompts show a database as CREATE TABLE statements. Errors: the engine's,
// or a database without tables.
func schemaDDL(ctx context.Context, eng engine.Engine, db string) ([]string, error) {
	if eng.Dialect() == engine.SQLite {
		s, err := eng.Query(ctx, db, "SELECT sql FROM sqlite_master WHERE type='table' AND name <> 'sqlite_sequence' AND sql IS NOT NULL ORDER BY rowid")
		if err != nil {
			return nil, fmt.Errorf("database %s: reading its tables: %w", db, err)
		}
		var out []string
		for _, r := range s.Rows {
			out = append(out, strings.TrimSpace(result.PyStr(r[0]))+";")
		}
		return nonEmptyDDL(db, out)
	}
	q, defaultSchema := infoSchemaQuery(eng.Dialect())
	s, err := eng.Query(ctx, db, q)
	if err != nil {
		return nil, fmt.Errorf("database %s: reading its columns from information_schema: %w", db, err)
	}
	var out []string
	var cur string
	var cols []string
	flush := func() {
		if cur != "" {
			out = append(out, "CREATE TABLE "+cur+" (\n  "+strings.Join(cols, ",\n  ")+"\n);")
		}
	}
	for _, r := range s.Rows {
		schema, table, col, typ := result.PyStr(r[0]), result.PyStr(r[1]), result.PyStr(r[2]), result.PyStr(r[3])
		name := table
		if schema != defaultSchema {
			name = schema + "." + table
		}
		if name != cur {
			flush()
			cur, cols = name, nil
		}
		cols = append(cols, col+" "+typ)
	}
	flush()
	return nonEmptyDDL(db, out)
}

// infoSchemaQuery is the information_schema query of a server dialect:
// (schema, table, column, type) of every base table's columns outside the
// system schemas, and the dialect's default schema.
func infoSchemaQuery(d engine.Dialect) (string, string) {
	const cols = "SELECT c.table_schema, c.table_name, c.column_name, %s FROM information_schema.columns c " +
		"JOIN information_schema.tables t ON t.table_schema = c.table_schema AND t.table_name = c.table_name " +
		"WHERE t.table_type = 'BASE TABLE' AND %s ORDER BY c.table_schema, c.table_name, c.ordinal_position"
	switch d {
	case engine.MySQL:
		return fmt.Sprintf(cols, "c.column_type", "c.table_schema = DATABASE()"), ""
	case engine.DuckDB:
		return fmt.Sprintf(cols, "c.data_type", "c.table_schema NOT IN ('information_schema', 'pg_catalog')"), "main"
	}
	return fmt.Sprintf(cols, "c.data_type", "c.table_schema NOT IN ('information_schema', 'pg_catalog')"), "public"
}

func nonEmptyDDL(db string, ddl []string) ([]string, error) {
	if len(ddl) == 0 {
		return nil, fmt.Errorf("database %s has no tables", db)
	}
	return ddl, nil
}
