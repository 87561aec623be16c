package generate

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/sqljudge/sqljudge/internal/catalog"
	"github.com/sqljudge/sqljudge/internal/engine"
)

// schemaDDL returns the CREATE TABLE statements of database db, one per
// table, read through the engine (catalog.Read): on SQLite the statements
// as stored (sqlite_master, in creation order, sqlite_sequence left out);
// on PostgreSQL, MySQL/MariaDB and DuckDB rebuilt from the catalog as
// information_schema.columns shows it (each column with its data_type,
// MySQL's COLUMN_TYPE, in declared order; tables by schema and name, as
// the server orders names; a table outside PostgreSQL's public or DuckDB's
// main schema named schema.table, every table on MySQL
// database.table), as Defog SQL-Eval's prompts show a database as CREATE
// TABLE statements. Errors: the engine's, or a database without tables.
func schemaDDL(ctx context.Context, eng engine.Engine, db string) ([]string, error) {
	cat, err := catalog.Read(ctx, eng, db, catalog.Options{AllSchemas: true})
	if errors.Is(err, catalog.ErrNoTables) {
		return nil, fmt.Errorf("database %s has no tables", db)
	}
	if err != nil {
		return nil, fmt.Errorf("database %s: reading its tables: %w", db, err)
	}
	var out []string
	if eng.Dialect() == engine.SQLite {
		for _, o := range cat.Objects {
			if o.Type == "table" && o.Name != "sqlite_sequence" {
				out = append(out, strings.TrimSpace(o.SQL)+";")
			}
		}
		return nonEmptyDDL(db, out)
	}
	for _, t := range byName(cat) {
		name := t.Name
		if s := schemaOf(cat, t); s != defogDefaultSchema[cat.Dialect] {
			name = s + "." + t.Name
		}
		cols := make([]string, len(t.Columns))
		for i, c := range t.Columns {
			cols[i] = c.Name + " " + c.TypeName
		}
		out = append(out, "CREATE TABLE "+name+" (\n  "+strings.Join(cols, ",\n  ")+"\n);")
	}
	return nonEmptyDDL(db, out)
}

// defogDefaultSchema is the schema whose tables schemaDDL names without
// it: PostgreSQL's public and DuckDB's main; MySQL has none, so a table is
// named database.table there, as information_schema's table_schema says.
var defogDefaultSchema = map[engine.Dialect]string{engine.Postgres: "public", engine.DuckDB: "main"}

// schemaOf is the name of t's schema (on MySQL, its database).
func schemaOf(cat *catalog.Database, t *catalog.Table) string {
	if t.Schema == "" {
		return cat.DefaultSchema
	}
	return t.Schema
}

// byName returns cat's tables ordered by schema and name as the server's
// information_schema orders them: the readers of MySQL/MariaDB (by name,
// in its collation) and DuckDB already list them so; PostgreSQL's lists
// them by creation, and its names sort bytewise (the C collation).
func byName(cat *catalog.Database) []*catalog.Table {
	tables := slices.Clone(cat.Tables)
	if cat.Dialect == engine.Postgres {
		slices.SortStableFunc(tables, func(a, b *catalog.Table) int {
			if c := strings.Compare(schemaOf(cat, a), schemaOf(cat, b)); c != 0 {
				return c
			}
			return strings.Compare(a.Name, b.Name)
		})
	}
	return tables
}

func nonEmptyDDL(db string, ddl []string) ([]string, error) {
	if len(ddl) == 0 {
		return nil, fmt.Errorf("database %s has no tables", db)
	}
	return ddl, nil
}
