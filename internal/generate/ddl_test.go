package generate

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sqljudge/sqljudge/internal/dbload"
	"github.com/sqljudge/sqljudge/internal/engine"
	"github.com/sqljudge/sqljudge/internal/engine/duckdb"
	"github.com/sqljudge/sqljudge/internal/engine/mysql"
	"github.com/sqljudge/sqljudge/internal/engine/open"
	"github.com/sqljudge/sqljudge/internal/engine/postgres"
	"github.com/sqljudge/sqljudge/internal/result"
	"github.com/sqljudge/sqljudge/internal/shareddata"
	"github.com/sqljudge/sqljudge/internal/testserver"
)

// informationSchemaDDL is the direct prompt's schema as information_schema
// gives it: every base table's columns outside the system schemas with
// their data_type (MySQL: column_type), by schema, table and position, a
// table outside the default schema qualified. schemaDDL must give the same
// text from the catalog.
func informationSchemaDDL(t *testing.T, eng engine.Engine, db string) string {
	t.Helper()
	typ, where, def := "c.data_type", "c.table_schema NOT IN ('information_schema', 'pg_catalog')", "public"
	switch eng.Dialect() {
	case engine.MySQL:
		typ, where, def = "c.column_type", "c.table_schema = DATABASE()", "" // every table is named database.table
	case engine.DuckDB:
		def = "main"
	}
	q := fmt.Sprintf("SELECT c.table_schema, c.table_name, c.column_name, %s FROM information_schema.columns c "+
		"JOIN information_schema.tables t ON t.table_schema = c.table_schema AND t.table_name = c.table_name "+
		"WHERE t.table_type = 'BASE TABLE' AND %s ORDER BY c.table_schema, c.table_name, c.ordinal_position", typ, where)
	s, err := eng.Query(context.Background(), db, q)
	if err != nil {
		t.Fatal(err)
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
		schema, table := result.PyStr(r[0]), result.PyStr(r[1])
		name := table
		if schema != def {
			name = schema + "." + table
		}
		if name != cur {
			flush()
			cur, cols = name, nil
		}
		cols = append(cols, result.PyStr(r[2])+" "+result.PyStr(r[3]))
	}
	flush()
	return strings.Join(out, "\n\n")
}

// TestSchemaDDLIsInformationSchema loads Defog's restaurants and ewallet
// (whose tables live in a schema of their own) into PostgreSQL, MariaDB
// and DuckDB with dbload, and requires of schemaDDL, which reads the
// catalog, the very text information_schema gives (the direct prompt's
// schema, byte for byte).
func TestSchemaDDLIsInformationSchema(t *testing.T) {
	defog := shareddata.Path(t, "defog")
	var dumps []*dbload.Dump
	for _, name := range []string{"restaurants", "ewallet"} {
		d, err := dbload.ReadDump(filepath.Join(defog, "defog_data", name, name+".sql"))
		if err != nil {
			t.Fatal(err)
		}
		dumps = append(dumps, d)
	}
	targets := map[engine.Dialect]func(t *testing.T) (engine.Engine, string){
		engine.Postgres: func(t *testing.T) (engine.Engine, string) {
			server := testserver.Postgres(t)
			prefix := testserver.Name("sjt_ddl_")
			for _, d := range dumps {
				t.Cleanup(func() { testserver.DropPostgresDB(t, server, prefix+d.Name) })
			}
			load(t, server, dumps, prefix)
			eng, err := postgres.New(server, postgres.Options{DBPrefix: prefix, AllowSuperuser: true})
			if err != nil {
				t.Fatal(err)
			}
			return eng, prefix
		},
		engine.MySQL: func(t *testing.T) (engine.Engine, string) {
			server := testserver.MySQL(t)
			prefix := testserver.Name("sjt_ddl_")
			for _, d := range dumps {
				testserver.CreateMySQLDB(t, server, prefix+d.Name)
			}
			load(t, server, dumps, prefix)
			eng, err := mysql.New(server, mysql.Options{})
			if err != nil {
				t.Fatal(err)
			}
			return eng, prefix
		},
		engine.DuckDB: func(t *testing.T) (engine.Engine, string) {
			registerDuckDB()
			dir := t.TempDir()
			load(t, "duckdb:"+dir, dumps, "")
			return duckdb.New(dir, duckdb.Options{}), ""
		},
	}
	for _, d := range []engine.Dialect{engine.Postgres, engine.MySQL, engine.DuckDB} {
		t.Run(d.String(), func(t *testing.T) {
			eng, prefix := targets[d](t)
			defer eng.Close()
			for _, dump := range dumps {
				db := dump.Name
				if d == engine.MySQL {
					db = prefix + dump.Name
				}
				got, err := schemaDDL(context.Background(), eng, db)
				if err != nil {
					t.Fatal(err)
				}
				if want := informationSchemaDDL(t, eng, db); strings.Join(got, "\n\n") != want {
					t.Errorf("%s:\n got %s\nwant %s", dump.Name, strings.Join(got, "\n\n"), want)
				}
			}
		})
	}
}

func load(t *testing.T, dsn string, dumps []*dbload.Dump, prefix string) {
	t.Helper()
	if _, err := dbload.Load(context.Background(), dsn, dumps, dbload.Options{Prefix: prefix, Replace: true}); err != nil {
		t.Fatal(err)
	}
}

// registerDuckDB makes DuckDB an engine of this test binary, which links
// it without the duckdb build tag: dbload asks open.OptionalEngine before
// it writes a DuckDB file, as every layer does (engine/open's duckdb.go
// registers it in a binary built with the tag).
func registerDuckDB() {
	if _, _, err := open.OptionalEngine(engine.DuckDB); err != nil {
		open.RegisterOptional(open.Optional{Dialect: engine.DuckDB, Engine: func(path string, o open.Options) (engine.Engine, error) {
			return duckdb.New(path, duckdb.Options{MaxRows: o.MaxRows, MaxBytes: o.MaxBytes, MaxConns: o.MaxConns}), nil
		}})
	}
}
