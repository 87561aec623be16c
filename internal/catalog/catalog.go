// Package catalog is sqljudge's one model of a database's schema: its
// tables, their columns with one family of types (Family), keys, UNIQUE
// sets, foreign keys, CHECK constraints, NOT NULLs and a sample of each
// column's values. Every package that needs a schema reads it here:
//
//   - Read reads a database through its engine (engine.Engine), with one
//     small reader per dialect (sqlite.go: sqlite_master and PRAGMAs;
//     postgres.go: pg_catalog; mysql.go: information_schema; duckdb.go:
//     information_schema and duckdb_constraints()), as sqlc builds its
//     internal/sql/catalog with a small constructor per engine;
//   - ParseDDL reads CREATE TABLE text of a pair (SQLite, PostgreSQL or
//     MySQL spelling) into the same model;
//   - CreateStatements renders a model as DDL for each dialect, and
//     Literal and ValueText spell values; CHECKs are parsed (ParseCheck)
//     and printed again for a dialect, never copied as written.
//
// The test-suite fuzzer, equiv's search, the LLM judges, generate, its
// value index and the sandboxes work on it. Spider's tables.json
// (package schema) stays a model of its own: it is the benchmark's file
// as published, with the column numbering exact set match needs.
package catalog

import (
	"fmt"
	"slices"
	"strings"

	"github.com/sqljudge/sqljudge/internal/engine"
	"github.com/sqljudge/sqljudge/internal/result"
)

// Database is the schema of one database: its tables in the order its
// engine's catalog lists them (SQLite: creation order; PostgreSQL: by
// oid; MySQL/MariaDB: by name; DuckDB: by schema and name; ParseDDL:
// referenced tables first, see OrderByReferences).
type Database struct {
	// Dialect is the engine the schema was read from; "" for ParseDDL.
	Dialect engine.Dialect
	// DefaultSchema names the schema whose tables have Table.Schema ""
	// (PostgreSQL and DuckDB: current_schema(); MySQL: DATABASE(), the
	// database itself; "" on SQLite and for ParseDDL).
	DefaultSchema string
	// Locale is, for a database read from a PostgreSQL server, its
	// encoding, LC_COLLATE, LC_CTYPE, locale provider, ICU locale and
	// its own settings as PGLocaleQuery reads them ("UTF8 C.UTF-8
	// C.UTF-8 c "); "" elsewhere.
	Locale string
	// Tables are the base tables.
	Tables []*Table
	// Objects are the CREATE statements as SQLite stores them
	// (sqlite_master: tables, indexes, views and triggers with a
	// statement, SQLite's own sqlite_sequence and sqlite_stat tables
	// included, in creation order); nil on the other engines, whose
	// statements are rendered from the model (CreateStatements).
	Objects []Object
}

// Object is one row of SQLite's sqlite_master that has a statement.
type Object struct {
	// Type is "table", "index", "view" or "trigger".
	Type string
	// Name is the object's name.
	Name string
	// SQL is its CREATE statement as SQLite stores it.
	SQL string
}

// Table is a table of a Database: its columns and constraints, columns by
// index.
type Table struct {
	// Schema is the table's schema when it is not the database's
	// default one (PostgreSQL, DuckDB), else "".
	Schema string
	// Name is the table's name as the database spells it (unquoted).
	Name string
	// Unquoted is true when DDL wrote the name without quotes (so
	// PostgreSQL folds it to lower case); the readers set it false.
	Unquoted bool
	// Columns are the columns in declared order.
	Columns []Column
	// PK is the primary key, column indexes in key order; nil if none.
	PK []int
	// Uniques are the UNIQUE constraints and unique indexes over plain
	// columns (see each reader for which it reads).
	Uniques [][]int
	// FKs are the foreign keys whose referenced table and columns exist
	// in the Database.
	FKs []ForeignKey
	// PKDesc is true when the primary key is declared as a column
	// constraint PRIMARY KEY DESC: SQLite makes such an INTEGER column
	// no alias of the rowid, so it may hold NULL
	// (https://sqlite.org/lang_createtable.html#rowid).
	PKDesc bool
	// Undeclared is true when SQLite's reader could not read the table's
	// CREATE statement with ParseDDL's grammar: its columns' collations
	// and PKDesc are then unknown.
	Undeclared bool
	// Checks are the CHECK constraints, parsed (ParseCheck) and printed
	// again for each dialect (Check.SQL); a reader fills them only when
	// asked (Options.Checks).
	Checks []Check
	// Unmodelled says what a reader found in the table that the model
	// leaves out and whose absence a consumer cannot take as a weaker
	// schema ("trigger t_ins", "partial unique index u", "inherits or is
	// inherited", "generated column g"): a database built from the model
	// may hold rows the table refuses, or read rows the table does not
	// (equiv refuses a pair that reads the table). "" for none; the first
	// found.
	Unmodelled string
	// UnmodelledRows is true when what Unmodelled names (and all else the
	// reader found) only restricts the rows the table may hold: a
	// trigger, a unique index or an exclusion constraint the model does
	// not read as a key. A proof over every database of the model holds
	// on the table's; a database the search builds may not be one.
	UnmodelledRows bool
	// Generated names the columns SQLite computes (GENERATED ALWAYS AS),
	// which ParseDDL leaves out of Columns as PRAGMA table_info does; a
	// consumer that must know every column (equiv: SELECT *) refuses a
	// table that has one.
	Generated []string
}

// Column is a column of a Table.
type Column struct {
	// Name is the column's name as declared (unquoted).
	Name string
	// Type is the declared type as its source spells it: SQLite's
	// declared type, PostgreSQL's format_type ("character varying(20)"),
	// MySQL's COLUMN_TYPE, DuckDB's data_type, or ParseDDL's upper-case
	// spelling without modifiers ("VARCHAR(20)", "DECIMAL(10, 2)").
	Type string
	// TypeName is the type without its modifiers as the SQL standard's
	// information_schema.columns.data_type names it on PostgreSQL
	// ("character varying", "ARRAY", "USER-DEFINED"); Type elsewhere.
	TypeName string
	// Family is the family of Type (FamilyOf).
	Family Family
	// Len is the length of a CHAR(n) or VARCHAR(n) of the Text family,
	// else 0.
	Len int
	// NotNull is true when the column may not hold NULL: NOT NULL, or
	// part of the primary key (as the SQL standard has it; SQLite does
	// not enforce it on a key that is not an INTEGER PRIMARY KEY).
	NotNull bool
	// KeyNotNull is true when NotNull comes from the primary key alone,
	// with no NOT NULL declared (ParseDDL, and SQLite's reader: PRAGMA
	// table_info's notnull is 0 on a key column): SQLite enforces it
	// only on an INTEGER PRIMARY KEY
	// (https://sqlite.org/lang_createtable.html, "PRIMARY KEY"), so
	// equiv's prover drops it from its SQLite model. The server readers
	// leave it false: their engines keep NULL out of every key column.
	KeyNotNull bool
	// Unquoted is true when DDL wrote the name without quotes.
	Unquoted bool
	// Collation is the collation the column's declaration names
	// (COLLATE NOCASE: "NOCASE", as written without quotes), "" for none
	// (the engine's default: BINARY on SQLite). ParseDDL reads it,
	// SQLite's reader from the table's CREATE statement, PostgreSQL's a
	// collation other than the type's default (pg_collation's name), and
	// MariaDB/MySQL's one other than utf8mb4's default (COLLATION_NAME).
	Collation string
	// Charset is the CHARACTER SET (or CHARSET) a column's DDL names, a
	// MySQL attribute ParseDDL reads ("binary", "latin1"); "" for none.
	Charset string
	// Values are distinct values of the column in the database, at most
	// Options.Samples: on SQLite as SELECT DISTINCT … LIMIT n returns them
	// (in scan order, or in the order of an index on the column), on the
	// servers in the order of their first row in a scan.
	Values []result.Value
}

// ForeignKey is a reference from columns of a table to columns of
// another (or the same) table, by column index.
type ForeignKey struct {
	// Cols are the referencing columns.
	Cols []int
	// RefSchema and RefTable name the referenced table (RefSchema ""
	// for the default schema).
	RefSchema, RefTable string
	// RefCols are the referenced columns, in the order of Cols.
	RefCols []int
	// Implicit is true when the REFERENCES clause named no column:
	// RefCols is then the referenced table's primary key.
	Implicit bool
	// MatchFull is true for a foreign key declared MATCH FULL (a row
	// whose columns are all NULL or none NULL), which PostgreSQL enforces
	// on a key of two or more columns (CreateStatements declares it
	// there); SQLite and MySQL parse it and ignore it.
	MatchFull bool
	// Spelled holds the names as the declaration writes them, when the
	// reader knows it (SQLite, whose names match case-insensitively and
	// whose declarations may spell them otherwise than the tables do);
	// nil otherwise.
	Spelled *Spelling
}

// Spelling is a foreign key's names as its declaration writes them: the
// referencing columns, the referenced table, and the referenced columns
// (none for a reference that names no column).
type Spelling struct {
	Cols     []string
	RefTable string
	RefCols  []string
}

// NewColumn returns a column of declared type typ: its Family, and its
// Len for a CHAR(n) or VARCHAR(n); TypeName is typ.
func NewColumn(name, typ string, notNull bool) Column {
	c := Column{Name: name, Type: typ, TypeName: typ, NotNull: notNull}
	c.Family = FamilyOf(typ)
	if c.Family == Text {
		c.Len = LenOf(c.UpperType())
	}
	return c
}

// UpperType is Type upper-cased and trimmed, the spelling families,
// lengths and the DDL renderer read.
func (c *Column) UpperType() string { return strings.ToUpper(strings.TrimSpace(c.Type)) }

// Table returns the table of the default schema named name
// (case-insensitive), else the first table of any schema so named, or
// nil.
func (db *Database) Table(name string) *Table {
	var other *Table
	for _, t := range db.Tables {
		if strings.EqualFold(t.Name, name) {
			if t.Schema == "" {
				return t
			}
			if other == nil {
				other = t
			}
		}
	}
	return other
}

// RefTable returns the table a foreign key references, or nil.
func (db *Database) RefTable(fk ForeignKey) *Table {
	for _, t := range db.Tables {
		if t.Schema == fk.RefSchema && strings.EqualFold(t.Name, fk.RefTable) {
			return t
		}
	}
	return nil
}

// Index returns the position of table t in db.Tables, or -1.
func (db *Database) Index(t *Table) int { return slices.Index(db.Tables, t) }

// Col returns the index of the column named name (case-insensitive), or
// -1.
func (t *Table) Col(name string) int {
	for i, c := range t.Columns {
		if strings.EqualFold(c.Name, name) {
			return i
		}
	}
	return -1
}

// Column returns the column named name (case-insensitive), or nil.
func (t *Table) Column(name string) *Column {
	if i := t.Col(name); i >= 0 {
		return &t.Columns[i]
	}
	return nil
}

// RowidAlias reports whether t's primary key is SQLite's INTEGER PRIMARY
// KEY, an alias of the rowid, the one key SQLite keeps from holding NULL
// without a NOT NULL (https://sqlite.org/lang_createtable.html#rowid): a
// single column declared exactly INTEGER, not as a column constraint
// PRIMARY KEY DESC, on a table whose CREATE statement the catalog read.
func (t *Table) RowidAlias() bool {
	return len(t.PK) == 1 && t.Columns[t.PK[0]].UpperType() == "INTEGER" && !t.PKDesc && !t.Undeclared
}

// InPK reports whether column ci is part of the primary key.
func (t *Table) InPK(ci int) bool { return slices.Contains(t.PK, ci) }

// Unique reports whether column ci alone is a UNIQUE set of t.
func (t *Table) Unique(ci int) bool {
	for _, u := range t.Uniques {
		if len(u) == 1 && u[0] == ci {
			return true
		}
	}
	return false
}

// Keys returns the PK and the UNIQUE sets: the column sets whose values
// no two rows may share (rows with a NULL in a UNIQUE set excepted).
func (t *Table) Keys() [][]int {
	var out [][]int
	if len(t.PK) > 0 {
		out = append(out, t.PK)
	}
	return append(out, t.Uniques...)
}

// IsKey reports whether cols are the PK or a UNIQUE set of t.
func (t *Table) IsKey(cols []int) bool {
	for _, k := range t.Keys() {
		if sameSet(k, cols) {
			return true
		}
	}
	return false
}

func sameSet(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	for _, x := range a {
		if !slices.Contains(b, x) {
			return false
		}
	}
	return true
}

// OrderByReferences sorts the tables so that a referenced table comes
// before the tables that reference it, keeping the current order
// otherwise (a cycle is broken where the order meets it).
func (db *Database) OrderByReferences() {
	var out []*Table
	state := map[*Table]int{} // 0 new, 1 visiting, 2 done
	var visit func(t *Table)
	visit = func(t *Table) {
		if state[t] != 0 {
			return
		}
		state[t] = 1
		for _, fk := range t.FKs {
			if p := db.RefTable(fk); p != nil && p != t {
				visit(p)
			}
		}
		state[t] = 2
		out = append(out, t)
	}
	for _, t := range db.Tables {
		visit(t)
	}
	db.Tables = out
}

// Validate checks that there is a table, every table has columns, no
// table or column is declared twice, and every foreign key refers to an
// existing table with as many columns as it has.
func (db *Database) Validate() error {
	if len(db.Tables) == 0 {
		return fmt.Errorf("no CREATE TABLE statement")
	}
	seen := map[string]bool{}
	for _, t := range db.Tables {
		k := strings.ToLower(t.Schema + "." + t.Name)
		if seen[k] {
			return fmt.Errorf("table %s is declared twice", t.Name)
		}
		seen[k] = true
		if len(t.Columns) == 0 {
			return fmt.Errorf("table %s has no columns", t.Name)
		}
		cols := map[string]bool{}
		for _, c := range t.Columns {
			if cols[strings.ToLower(c.Name)] {
				return fmt.Errorf("table %s: column %s is declared twice", t.Name, c.Name)
			}
			cols[strings.ToLower(c.Name)] = true
		}
		for _, fk := range t.FKs {
			if db.RefTable(fk) == nil {
				return fmt.Errorf("table %s: foreign key references unknown table %s", t.Name, fk.RefTable)
			}
			if len(fk.RefCols) != len(fk.Cols) {
				return fmt.Errorf("table %s: foreign key to %s has %d columns for %d", t.Name, fk.RefTable, len(fk.RefCols), len(fk.Cols))
			}
		}
	}
	return nil
}

// DefaultSchemaTables returns a copy of db holding only the tables of the
// default schema, and of their foreign keys those into it.
func (db *Database) DefaultSchemaTables() *Database {
	out := *db
	out.Tables = nil
	for _, t := range db.Tables {
		if t.Schema != "" {
			continue
		}
		c := *t
		c.FKs = nil
		for _, fk := range t.FKs {
			if fk.RefSchema == "" {
				c.FKs = append(c.FKs, fk)
			}
		}
		out.Tables = append(out.Tables, &c)
	}
	return &out
}
