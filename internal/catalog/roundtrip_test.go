package catalog_test

import (
	"context"
	"database/sql"
	"fmt"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"

	duckdbdrv "github.com/duckdb/duckdb-go/v2"

	"github.com/sqljudge/sqljudge/internal/catalog"
	"github.com/sqljudge/sqljudge/internal/engine"
	"github.com/sqljudge/sqljudge/internal/engine/duckdb"
	"github.com/sqljudge/sqljudge/internal/engine/mysql"
	"github.com/sqljudge/sqljudge/internal/engine/postgres"
	"github.com/sqljudge/sqljudge/internal/engine/sqlite"
	"github.com/sqljudge/sqljudge/internal/testserver"
)

// roundTripDDL is a schema with every constraint the catalog models, in
// the spelling ParseDDL reads.
const roundTripDDL = `CREATE TABLE dept (code VARCHAR(10) PRIMARY KEY, name VARCHAR(40) NOT NULL UNIQUE, budget DECIMAL(10,2) CHECK (budget >= 0));
CREATE TABLE room (building VARCHAR(10) NOT NULL, number INT NOT NULL, seats SMALLINT, PRIMARY KEY (building, number));
CREATE TABLE emp (id INTEGER PRIMARY KEY, first VARCHAR(20) NOT NULL, last VARCHAR(20) NOT NULL, dept VARCHAR(10) REFERENCES dept (code),
  building VARCHAR(10), number INT, hired DATE, pay DOUBLE PRECISION, FOREIGN KEY (building, number) REFERENCES room (building, number),
  UNIQUE (first, last), CHECK (pay > 0))`

// loaders create a database of each engine from statements and return the
// engine and the database's name.
var loaders = map[engine.Dialect]func(t *testing.T, stmts []string) (engine.Engine, string){
	engine.SQLite: func(t *testing.T, stmts []string) (engine.Engine, string) {
		path := filepath.Join(t.TempDir(), "rt.sqlite")
		execAll(t, openDB(t, "sqlite3", path), stmts)
		return sqlite.New("", sqlite.Options{}), path
	},
	engine.Postgres: func(t *testing.T, stmts []string) (engine.Engine, string) {
		server := testserver.Postgres(t)
		name := strings.TrimSuffix(testserver.Name("sjt_catalog_"), "_")
		conn := testserver.CreatePostgresDB(t, server, name)
		for _, s := range stmts {
			if _, err := conn.Exec(context.Background(), s); err != nil {
				t.Fatalf("%s: %v", s, err)
			}
		}
		eng, err := postgres.New(server, postgres.Options{AllowSuperuser: true})
		if err != nil {
			t.Fatal(err)
		}
		return eng, name
	},
	engine.MySQL: func(t *testing.T, stmts []string) (engine.Engine, string) {
		server := testserver.MySQL(t)
		name := strings.TrimSuffix(testserver.Name("sjt_catalog_"), "_")
		execAll(t, testserver.CreateMySQLDB(t, server, name), stmts)
		eng, err := mysql.New(server, mysql.Options{})
		if err != nil {
			t.Fatal(err)
		}
		return eng, name
	},
	engine.DuckDB: func(t *testing.T, stmts []string) (engine.Engine, string) {
		dir := t.TempDir()
		c, err := duckdbdrv.NewConnector(filepath.Join(dir, "rt.duckdb"), nil)
		if err != nil {
			t.Fatal(err)
		}
		w := sql.OpenDB(c)
		execAll(t, w, stmts)
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		return duckdb.New(dir, duckdb.Options{}), "rt"
	},
}

func openDB(t *testing.T, driver, dsn string) *sql.DB {
	t.Helper()
	db, err := sql.Open(driver, dsn)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

func execAll(t *testing.T, db *sql.DB, stmts []string) {
	t.Helper()
	for _, s := range stmts {
		if _, err := db.Exec(s); err != nil {
			t.Fatalf("%s: %v", s, err)
		}
	}
}

// shape prints what a catalog says of its tables, names folded to lower
// case and tables, UNIQUE sets and foreign keys sorted (engines list them
// in their own orders), a UNIQUE set equal to the key left out (SQLite
// indexes a key that is not an INTEGER PRIMARY KEY), and without lengths
// when lengths is false (DuckDB keeps no VARCHAR length).
func shape(db *catalog.Database, lengths bool) string {
	var lines []string
	for _, t := range db.Tables {
		var b strings.Builder
		fmt.Fprintf(&b, "%s:", strings.ToLower(t.Name))
		for _, c := range t.Columns {
			if !lengths {
				c.Len = 0
			}
			fmt.Fprintf(&b, " %s %s/%d/%v", strings.ToLower(c.Name), c.Family, c.Len, c.NotNull)
		}
		fmt.Fprintf(&b, "; pk %v", t.PK)
		var uniques []string
		for _, u := range t.Uniques {
			if !slices.Equal(u, t.PK) {
				uniques = append(uniques, fmt.Sprint(u))
			}
		}
		sort.Strings(uniques)
		fmt.Fprintf(&b, "; unique %v; checks %d", uniques, len(t.Checks))
		var fks []string
		for _, fk := range t.FKs {
			fks = append(fks, fmt.Sprintf("fk %v -> %s %v", fk.Cols, strings.ToLower(fk.RefTable), fk.RefCols))
		}
		sort.Strings(fks)
		fmt.Fprintf(&b, "; %s", strings.Join(fks, "; "))
		lines = append(lines, b.String())
	}
	sort.Strings(lines)
	return strings.Join(lines, "\n")
}

// TestReadRoundTrip renders roundTripDDL for each engine
// (CreateStatements), creates it there and reads it back (Read): every
// engine's reader gives the model that was rendered, keys, UNIQUE sets,
// foreign keys (a composite one included) and CHECKs. MySQL stores a
// BOOLEAN as TINYINT(1), so the schema has none; DuckDB keeps no VARCHAR
// length.
func TestReadRoundTrip(t *testing.T) {
	want, err := catalog.ParseDDL(roundTripDDL)
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range engine.Dialects {
		t.Run(d.String(), func(t *testing.T) {
			eng, db := loaders[d](t, want.CreateStatements(d))
			defer eng.Close()
			got, err := catalog.Read(context.Background(), eng, db, catalog.Options{Checks: true, Samples: 3})
			if err != nil {
				t.Fatal(err)
			}
			if got.Dialect != d {
				t.Errorf("dialect %s", got.Dialect)
			}
			if g, w := shape(got, d != engine.DuckDB), shape(want, d != engine.DuckDB); g != w {
				t.Errorf("read back:\n%s\nwant:\n%s", g, w)
			}
		})
	}
}

// TestReadPostgresSchemas: by default only the default schema's tables
// are read; with AllSchemas the others too, named by their schema, their
// foreign keys into the default schema kept, and CreateStatements
// qualifies them. Each column's TypeName is what
// information_schema.columns.data_type says.
func TestReadPostgresSchemas(t *testing.T) {
	eng, db := loaders[engine.Postgres](t, []string{
		"CREATE TABLE item (id INT PRIMARY KEY, label VARCHAR(20) NOT NULL, price NUMERIC(10,2), tags TEXT[])",
		"CREATE SCHEMA shop",
		"CREATE TABLE shop.sale (id INT PRIMARY KEY, item INT REFERENCES public.item (id), at TIMESTAMP(0))",
	})
	defer eng.Close()
	ctx := context.Background()
	def, err := catalog.Read(ctx, eng, db, catalog.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(def.Tables) != 1 || def.Tables[0].Name != "item" || def.DefaultSchema != "public" {
		t.Fatalf("default schema: %+v (%q)", def.Tables, def.DefaultSchema)
	}
	item := def.Tables[0]
	var types []string
	for _, c := range item.Columns {
		types = append(types, c.Type+"|"+c.TypeName)
	}
	if want := []string{"integer|integer", "character varying(20)|character varying", "numeric(10,2)|numeric", "text[]|ARRAY"}; !slices.Equal(types, want) {
		t.Errorf("types %q, want %q", types, want)
	}
	all, err := catalog.Read(ctx, eng, db, catalog.Options{AllSchemas: true})
	if err != nil {
		t.Fatal(err)
	}
	sale := all.Table("sale")
	if len(all.Tables) != 2 || sale == nil || sale.Schema != "shop" || len(sale.FKs) != 1 || all.RefTable(sale.FKs[0]) != all.Table("item") {
		t.Fatalf("all schemas: %+v", all.Tables)
	}
	if ddl := all.CreateStatements(engine.Postgres); !strings.HasPrefix(ddl[1], `CREATE TABLE "shop"."sale"`) || !strings.Contains(ddl[1], `REFERENCES "item" ("id")`) {
		t.Errorf("DDL %q", ddl)
	}
}
