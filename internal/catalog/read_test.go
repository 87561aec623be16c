package catalog_test

import (
	"context"
	"database/sql"
	"errors"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	_ "github.com/mattn/go-sqlite3" // to write the test database

	"github.com/sqljudge/sqljudge/internal/catalog"
	"github.com/sqljudge/sqljudge/internal/engine"
	"github.com/sqljudge/sqljudge/internal/engine/sqlite"
	"github.com/sqljudge/sqljudge/internal/shareddata"
)

// sqliteSchema exercises every part of the SQLite reader: a key that is
// not an INTEGER PRIMARY KEY (SQLite indexes it), a composite key and a
// composite foreign key, a reference naming no column, a reference to a
// missing table, UNIQUE constraints and indexes (one partial), CHECKs, a
// view, a trigger and AUTOINCREMENT's sqlite_sequence.
const sqliteSchema = `CREATE TABLE dept (code TEXT PRIMARY KEY, name VARCHAR(20) NOT NULL UNIQUE, budget INT CHECK (budget >= 0));
CREATE TABLE room (building TEXT, number INT, seats INT, PRIMARY KEY (number, building));
CREATE TABLE emp (id INTEGER PRIMARY KEY AUTOINCREMENT, first TEXT NOT NULL, last TEXT NOT NULL, dept TEXT REFERENCES dept,
  building TEXT, number INT, boss INT REFERENCES nosuch (id), hired DATETIME, pay DECIMAL(8,2),
  FOREIGN KEY (building, number) REFERENCES room (building, number), UNIQUE (first, last), CHECK (pay > 0));
CREATE UNIQUE INDEX emp_hired ON emp (hired) WHERE hired IS NOT NULL;
CREATE UNIQUE INDEX room_seats ON room (seats, building);
CREATE VIEW names AS SELECT first FROM emp;
CREATE TRIGGER t AFTER INSERT ON emp BEGIN SELECT 1; END;
INSERT INTO dept VALUES ('S', 'Sales', 10), ('R', 'Research', NULL), ('S2', 'Support', 5);
INSERT INTO emp (first, last, dept, pay) VALUES ('Ann', 'Lee', 'S', 10), ('Bo', 'Lee', 'R', 20);`

// writeDB writes a SQLite file holding script and returns its path.
func writeDB(t *testing.T, script string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "db.sqlite")
	db, err := sql.Open("sqlite3", path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Exec(script); err != nil {
		t.Fatal(err)
	}
	return path
}

func readSQLite(t *testing.T, path string, o catalog.Options) *catalog.Database {
	t.Helper()
	eng := sqlite.New("", sqlite.Options{})
	defer eng.Close()
	db, err := catalog.Read(context.Background(), eng, path, o)
	if err != nil {
		t.Fatal(err)
	}
	return db
}

// TestReadSQLite reads every constraint of sqliteSchema: keys in key
// order, one-column UNIQUE sets first (a key's own index included) and
// then the others (not the partial index), a composite foreign key as one,
// a reference naming no column as the key it means, no reference to a
// missing table, the CHECKs only when asked, the statements as stored and
// the samples as SELECT DISTINCT returns them.
func TestReadSQLite(t *testing.T) {
	path := writeDB(t, sqliteSchema)
	db := readSQLite(t, path, catalog.Options{Samples: 2, Checks: true})
	var names []string
	for _, tb := range db.Tables {
		names = append(names, tb.Name)
	}
	if !slices.Equal(names, []string{"dept", "room", "emp"}) || db.Dialect != engine.SQLite {
		t.Fatalf("tables %v (%s)", names, db.Dialect)
	}
	var objects []string
	for _, o := range db.Objects {
		objects = append(objects, o.Type+" "+o.Name)
	}
	if want := []string{"table dept", "table room", "table emp", "table sqlite_sequence", "index emp_hired", "index room_seats", "view names", "trigger t"}; !slices.Equal(objects, want) {
		t.Errorf("objects %v, want %v", objects, want)
	}
	dept, room, emp := db.Table("dept"), db.Table("room"), db.Table("emp")
	if !slices.Equal(dept.PK, []int{0}) || !dept.Columns[0].NotNull || !slices.Equal(room.PK, []int{1, 0}) {
		t.Errorf("keys: dept %v, room %v", dept.PK, room.PK)
	}
	if !slices.EqualFunc(dept.Uniques, [][]int{{0}, {1}}, slices.Equal) || !slices.EqualFunc(room.Uniques, [][]int{{2, 0}}, slices.Equal) || !slices.EqualFunc(emp.Uniques, [][]int{{1, 2}}, slices.Equal) {
		t.Errorf("uniques: dept %v, room %v, emp %v", dept.Uniques, room.Uniques, emp.Uniques)
	}
	want := []catalog.ForeignKey{
		{Cols: []int{4, 5}, RefTable: "room", RefCols: []int{0, 1}},
		{Cols: []int{3}, RefTable: "dept", RefCols: []int{0}, Implicit: true},
	}
	if len(emp.FKs) != len(want) {
		t.Fatalf("emp foreign keys %+v, want %+v", emp.FKs, want)
	}
	for i, fk := range emp.FKs {
		if !slices.Equal(fk.Cols, want[i].Cols) || fk.RefTable != want[i].RefTable || !slices.Equal(fk.RefCols, want[i].RefCols) || fk.Implicit != want[i].Implicit {
			t.Errorf("emp foreign key %d: %+v, want %+v", i, fk, want[i])
		}
	}
	if len(dept.Checks) != 1 || dept.Checks[0].String() != "(budget >= 0)" || len(emp.Checks) != 1 {
		t.Errorf("checks: dept %v, emp %v", dept.Checks, emp.Checks)
	}
	if c := emp.Columns[emp.Col("pay")]; c.Family != catalog.Decimal || c.Type != "DECIMAL(8,2)" || emp.Columns[emp.Col("hired")].Family != catalog.Timestamp || dept.Columns[1].Len != 20 {
		t.Errorf("types: %+v", emp.Columns)
	}
	if v := dept.Columns[1].Values; len(v) != 2 || v[0].S != "Research" || v[1].S != "Sales" { // in the order of the UNIQUE index
		t.Errorf("samples of dept.name: %v", v)
	}
	if plain := readSQLite(t, path, catalog.Options{}); len(plain.Table("dept").Checks) != 0 || plain.Table("dept").Columns[1].Values != nil {
		t.Errorf("CHECKs or samples read unasked: %+v", plain.Table("dept"))
	}
}

// TestReadSQLiteRefusedCheck: a CHECK outside the grammar is Read's error
// when CHECKs are asked for, and is ignored otherwise.
func TestReadSQLiteRefusedCheck(t *testing.T) {
	path := writeDB(t, "CREATE TABLE t (a TEXT CHECK (a GLOB 'x*'))")
	eng := sqlite.New("", sqlite.Options{})
	defer eng.Close()
	_, err := catalog.Read(context.Background(), eng, path, catalog.Options{Checks: true})
	var ce *catalog.CheckError
	if err == nil || !strings.Contains(err.Error(), "table t") || !errorsAs(err, &ce) {
		t.Fatalf("Read with a refused CHECK: %v", err)
	}
	if _, err := catalog.Read(context.Background(), eng, path, catalog.Options{}); err != nil {
		t.Fatalf("Read without CHECKs: %v", err)
	}
}

// TestReadSQLiteSpider reads the subset's Spider databases: every foreign
// key of PRAGMA foreign_key_list is kept, and their DDL renders and
// parses again on every dialect.
func TestReadSQLiteSpider(t *testing.T) {
	for _, id := range []string{"concert_singer", "pets_1", "car_1"} {
		db := readSQLite(t, shareddata.SubsetPath(t, "spider", "database", id, id+".sqlite"), catalog.Options{})
		if err := db.Validate(); err != nil {
			t.Errorf("%s: %v", id, err)
		}
		fks := 0
		for _, tb := range db.Tables {
			fks += len(tb.FKs)
		}
		if want := map[string]int{"concert_singer": 3, "pets_1": 2, "car_1": 5}[id]; fks != want {
			t.Errorf("%s: %d foreign keys, want %d", id, fks, want)
		}
		for _, d := range engine.Dialects {
			if _, err := catalog.ParseDDL(strings.Join(db.CreateStatements(d), ";\n")); err != nil {
				t.Errorf("%s on %s: %v", id, d, err)
			}
		}
	}
}

func errorsAs(err error, target any) bool { return errors.As(err, target) }

// TestKeyNotNull: a primary key column not declared NOT NULL is NotNull
// and KeyNotNull (SQLite keeps NULL out of it only as an INTEGER PRIMARY
// KEY), one declared NOT NULL, before or after the key, is NotNull alone;
// ParseDDL and the SQLite reader agree on each.
func TestKeyNotNull(t *testing.T) {
	const ddl = `CREATE TABLE a (id TEXT PRIMARY KEY, x INT);
CREATE TABLE b (id TEXT NOT NULL PRIMARY KEY, x INT);
CREATE TABLE c (id TEXT PRIMARY KEY NOT NULL, x INT);
CREATE TABLE d (id INTEGER PRIMARY KEY, x INT NOT NULL);
CREATE TABLE e (id INT, k TEXT NOT NULL, x INT, PRIMARY KEY (id, k));`
	type nn struct{ notNull, keyNotNull bool }
	want := map[string][]nn{
		"a": {{true, true}, {false, false}},
		"b": {{true, false}, {false, false}},
		"c": {{true, false}, {false, false}},
		"d": {{true, true}, {true, false}},
		"e": {{true, true}, {true, false}, {false, false}},
	}
	parsed, err := catalog.ParseDDL(ddl)
	if err != nil {
		t.Fatal(err)
	}
	read := readSQLite(t, writeDB(t, ddl), catalog.Options{})
	for _, db := range []*catalog.Database{parsed, read} {
		for name, w := range want {
			for i, c := range db.Table(name).Columns {
				if got := (nn{c.NotNull, c.KeyNotNull}); got != w[i] {
					t.Errorf("%s.%s (dialect %q): NotNull, KeyNotNull %v, want %v", name, c.Name, db.Dialect, got, w[i])
				}
			}
		}
	}
}

// keysDDL declares what makes a column's comparison or a key differ from
// the plain case (issue 37, R13, R14, R17): a column collation in every
// spelling, PRIMARY KEY DESC on an INTEGER column (no rowid alias), a
// partial unique index, one over an expression, one under the column's
// own collation and one under another, and a primary key under another
// collation than its NOCASE column's own (no key) beside a UNIQUE under
// NOCASE of a BINARY column (a key).
const keysDDL = `CREATE TABLE k (id INTEGER PRIMARY KEY DESC, name TEXT COLLATE NOCASE NOT NULL, code TEXT COLLATE "rtrim", tag TEXT, v);
CREATE TABLE j (id INTEGER, x INT, PRIMARY KEY (id DESC));
CREATE TABLE m (a TEXT COLLATE NOCASE, b TEXT, PRIMARY KEY (a COLLATE BINARY), UNIQUE (b COLLATE NOCASE));
CREATE UNIQUE INDEX k_tag ON k (tag) WHERE tag IS NOT NULL;
CREATE UNIQUE INDEX k_lower ON k (lower(tag));
CREATE UNIQUE INDEX k_name ON k (name COLLATE NOCASE, v);
CREATE UNIQUE INDEX k_code ON k (code COLLATE BINARY);`

// TestCollationsAndKeys: ParseDDL and the SQLite reader agree on keysDDL:
// the collations as declared, PKDesc only for the column constraint, no
// key from the partial index, the expression index or the index under a
// collation other than its NOCASE or RTRIM column's own, a key from the
// one under the column's own; m's primary key under BINARY is no key
// (the reader's PRAGMA table_info names it), its UNIQUE under NOCASE is.
func TestCollationsAndKeys(t *testing.T) {
	parsed, err := catalog.ParseDDL(keysDDL)
	if err != nil {
		t.Fatal(err)
	}
	read := readSQLite(t, writeDB(t, keysDDL), catalog.Options{})
	for _, db := range []*catalog.Database{parsed, read} {
		k, j, m := db.Table("k"), db.Table("j"), db.Table("m")
		if len(m.PK) != 0 || !slices.EqualFunc(m.Uniques, [][]int{{1}}, slices.Equal) {
			t.Errorf("dialect %q: m's key %v, uniques %v; want no key, uniques [[1]]", db.Dialect, m.PK, m.Uniques)
		}
		var colls []string
		for _, c := range k.Columns {
			colls = append(colls, strings.ToUpper(c.Collation))
		}
		if want := []string{"", "NOCASE", "RTRIM", "", ""}; !slices.Equal(colls, want) {
			t.Errorf("dialect %q: collations %q, want %q", db.Dialect, colls, want)
		}
		if !k.PKDesc || j.PKDesc || k.Undeclared {
			t.Errorf("dialect %q: k.PKDesc %v, j.PKDesc %v, k.Undeclared %v", db.Dialect, k.PKDesc, j.PKDesc, k.Undeclared)
		}
		var uniques [][]int // the reader lists the key's own index too
		for _, u := range k.Uniques {
			if !slices.Equal(u, k.PK) {
				uniques = append(uniques, u)
			}
		}
		if want := [][]int{{1, 4}}; !slices.EqualFunc(uniques, want, slices.Equal) || !slices.Equal(k.PK, []int{0}) {
			t.Errorf("dialect %q: key %v, uniques of k %v, want %v", db.Dialect, k.PK, uniques, want)
		}
	}
}

// TestRenderSQLiteColumns: the SQLite DDL of a parsed schema declares an
// untyped column without a type (BLOB affinity: it keeps 5 and '5'
// apart, TEXT affinity would not) and keeps SQLite's collations; the
// file it makes reads back the same.
func TestRenderSQLiteColumns(t *testing.T) {
	db, err := catalog.ParseDDL(`CREATE TABLE t (v, name TEXT COLLATE nocase, other TEXT COLLATE "C")`)
	if err != nil {
		t.Fatal(err)
	}
	got := db.CreateStatements(engine.SQLite)[0]
	if want := `CREATE TABLE "t" ("v", "name" TEXT COLLATE NOCASE, "other" TEXT)`; got != want {
		t.Fatalf("got  %s\nwant %s", got, want)
	}
	back := readSQLite(t, writeDB(t, got+"; INSERT INTO t VALUES (5, 'x', 'y')"), catalog.Options{})
	if c := back.Tables[0].Columns; c[0].Type != "" || c[1].Collation != "NOCASE" {
		t.Errorf("read back: %+v", c)
	}
}

// TestReadSQLiteUndeclared: a table whose CREATE statement ParseDDL's
// grammar does not read (a type with brackets, which SQLite reads as a
// name and ParseDDL refuses) is Undeclared: its collations unknown, it
// gets no unique key from its indexes. A generated column is in the
// grammar: g's collation is read, and its key under its own NOCASE kept.
// A CHECK outside ParseCheck's grammar does not make h Undeclared.
func TestReadSQLiteUndeclared(t *testing.T) {
	db := readSQLite(t, writeDB(t, `CREATE TABLE g (a TEXT COLLATE NOCASE UNIQUE, b INT GENERATED ALWAYS AS (length(a)));
CREATE TABLE h (a TEXT UNIQUE CHECK (hex(a) <> 'x'));
CREATE TABLE u (a TEXT COLLATE NOCASE UNIQUE, b INT[]);`), catalog.Options{})
	g, h, u := db.Table("g"), db.Table("h"), db.Table("u")
	if g.Undeclared || g.Columns[0].Collation != "NOCASE" || len(g.Uniques) != 1 {
		t.Errorf("g (a generated column): Undeclared %v, collation %q, uniques %v", g.Undeclared, g.Columns[0].Collation, g.Uniques)
	}
	if h.Undeclared || len(h.Uniques) != 1 {
		t.Errorf("h (a CHECK the reader need not parse): Undeclared %v, uniques %v", h.Undeclared, h.Uniques)
	}
	if !u.Undeclared || len(u.Uniques) != 0 {
		t.Errorf("u: Undeclared %v, uniques %v; want Undeclared without keys", u.Undeclared, u.Uniques)
	}
}
