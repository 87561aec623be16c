package catalog

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/sqljudge/sqljudge/internal/engine"
	"github.com/sqljudge/sqljudge/internal/result"
)

// ErrNoTables is the error of a server database without a table to read
// (in its default schema, unless Options.AllSchemas).
var ErrNoTables = errors.New("no tables")

// pgSchemaFilter selects the schemas read: the default one, or every one
// but PostgreSQL's own (Options.AllSchemas). %s is the namespace's alias.
func pgSchemaFilter(all bool, n string) string {
	if all {
		return n + `.nspname <> 'information_schema' AND ` + n + `.nspname NOT LIKE 'pg\_%'`
	}
	return n + ".nspname = current_schema()"
}

// pgSchemaName is a namespace's name as Table.Schema holds it: "" for the
// default schema.
func pgSchemaName(n string) string {
	return "CASE WHEN " + n + ".nspname = current_schema() THEN '' ELSE " + n + ".nspname::text END"
}

// The catalog queries of readPostgres: the ordinary and partitioned
// tables of the schemas read (pgSchemaFilter) in creation order, their
// columns with their declared types (format_type) and the type's name
// as information_schema.columns.data_type computes it, their PRIMARY KEY,
// UNIQUE, FOREIGN KEY and CHECK constraints (one row a column, in key
// order), and their unique indexes on plain columns that back no
// constraint (the CREATE UNIQUE INDEX of a dump).
const (
	pgColumnsQuery = `SELECT %s, c.relname, a.attname, format_type(a.atttypid, a.atttypmod), a.attnotnull,
  CASE WHEN t.typtype = 'd' THEN
    CASE WHEN bt.typelem <> 0 AND bt.typlen = -1 THEN 'ARRAY' WHEN nbt.nspname = 'pg_catalog' THEN format_type(t.typbasetype, NULL) ELSE 'USER-DEFINED' END
  ELSE
    CASE WHEN t.typelem <> 0 AND t.typlen = -1 THEN 'ARRAY' WHEN nt.nspname = 'pg_catalog' THEN format_type(a.atttypid, NULL) ELSE 'USER-DEFINED' END
  END, current_schema()::text
FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace JOIN pg_attribute a ON a.attrelid = c.oid
JOIN pg_type t ON t.oid = a.atttypid JOIN pg_namespace nt ON nt.oid = t.typnamespace
LEFT JOIN pg_type bt ON t.typtype = 'd' AND bt.oid = t.typbasetype LEFT JOIN pg_namespace nbt ON nbt.oid = bt.typnamespace
WHERE %s AND c.relkind IN ('r', 'p') AND NOT c.relispartition AND a.attnum > 0 AND NOT a.attisdropped
ORDER BY c.oid, a.attnum`
	pgConstraintsQuery = `SELECT %s, cl.relname, k.conname, k.contype::text, a.attname, fc.relname, fa.attname, pg_get_constraintdef(k.oid), coalesce(%s, '')
FROM pg_constraint k JOIN pg_class cl ON cl.oid = k.conrelid JOIN pg_namespace n ON n.oid = cl.relnamespace
LEFT JOIN LATERAL unnest(k.conkey) WITH ORDINALITY AS u(num, i) ON true
LEFT JOIN pg_attribute a ON a.attrelid = k.conrelid AND a.attnum = u.num
LEFT JOIN pg_class fc ON fc.oid = k.confrelid LEFT JOIN pg_namespace fn ON fn.oid = fc.relnamespace
LEFT JOIN pg_attribute fa ON fa.attrelid = k.confrelid AND fa.attnum = k.confkey[u.i]
WHERE %s AND k.contype IN ('p', 'u', 'f', 'c')
  AND (k.contype <> 'f' OR k.convalidated AND NOT EXISTS (SELECT 1 FROM pg_trigger tg WHERE tg.tgconstraint = k.oid AND tg.tgenabled = 'D'))
ORDER BY cl.oid, k.contype, k.conname, u.i`
	pgUniqueIndexQuery = `SELECT %s, cl.relname, ic.relname, a.attname
FROM pg_index x JOIN pg_class cl ON cl.oid = x.indrelid JOIN pg_class ic ON ic.oid = x.indexrelid
JOIN pg_namespace n ON n.oid = cl.relnamespace
CROSS JOIN LATERAL unnest(x.indkey::int2[]) WITH ORDINALITY AS u(num, i)
LEFT JOIN pg_attribute a ON a.attrelid = x.indrelid AND a.attnum = u.num
WHERE %s AND x.indisunique AND x.indisvalid AND NOT x.indisprimary AND x.indexprs IS NULL AND x.indpred IS NULL
  AND x.indcollation[u.i - 1] = a.attcollation AND u.i <= x.indnkeyatts AND NOT EXISTS (SELECT 1 FROM pg_constraint k WHERE k.conindid = x.indexrelid)
ORDER BY cl.oid, ic.relname, u.i`
	// pgUnmodelledQuery lists the tables read with what the model leaves
	// out of them (Table.Unmodelled): partitions, inheritance either way,
	// a unique index that is partial, on an expression, not valid, under
	// another collation than its column's or NULLS NOT DISTINCT (read
	// through to_jsonb: PostgreSQL 15's column), an exclusion constraint, a
	// generated column, a trigger of the user's, a name that a table of
	// pg_catalog takes first on the search path.
	pgUnmodelledQuery = `SELECT s, relname, why FROM (SELECT %s AS s, c.relname, CASE
  WHEN c.relkind = 'p' THEN 'partitioned'
  WHEN EXISTS (SELECT 1 FROM pg_inherits i WHERE i.inhparent = c.oid OR i.inhrelid = c.oid) THEN 'inherits or is inherited'
  WHEN EXISTS (SELECT 1 FROM pg_index x WHERE x.indrelid = c.oid AND x.indisunique AND (x.indexprs IS NOT NULL OR x.indpred IS NOT NULL OR NOT x.indisvalid OR coalesce(to_jsonb(x) ->> 'indnullsnotdistinct', 'false') = 'true')) THEN 'a unique index that is partial, on an expression, not valid or NULLS NOT DISTINCT'
  WHEN EXISTS (SELECT 1 FROM pg_index x CROSS JOIN LATERAL generate_series(0, x.indnkeyatts - 1) AS g(j) JOIN pg_attribute a ON a.attrelid = x.indrelid AND a.attnum = x.indkey[g.j] WHERE x.indrelid = c.oid AND x.indisunique AND x.indcollation[g.j] <> a.attcollation) THEN 'a unique index under another collation than its column''s'
  WHEN EXISTS (SELECT 1 FROM pg_constraint k WHERE k.conrelid = c.oid AND k.contype = 'x') THEN 'an exclusion constraint'
  WHEN EXISTS (SELECT 1 FROM pg_attribute a WHERE a.attrelid = c.oid AND a.attnum > 0 AND NOT a.attisdropped AND a.attgenerated <> '') THEN 'a generated column'
  WHEN EXISTS (SELECT 1 FROM pg_trigger tg WHERE tg.tgrelid = c.oid AND NOT tg.tgisinternal) THEN 'a trigger'
  WHEN EXISTS (SELECT 1 FROM pg_class pc WHERE pc.relnamespace = 'pg_catalog'::regnamespace AND pc.relname = c.relname) THEN 'a name that pg_catalog''s table of that name takes first'
  END AS why
FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
WHERE %s AND c.relkind IN ('r', 'p') AND NOT c.relispartition) AS u WHERE why IS NOT NULL`
	// pgCollationsQuery lists the columns whose collation is not their
	// type's default (a COLLATE in their declaration).
	pgCollationsQuery = `SELECT %s, c.relname, a.attname, co.collname::text
FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace JOIN pg_attribute a ON a.attrelid = c.oid
JOIN pg_type t ON t.oid = a.atttypid JOIN pg_collation co ON co.oid = a.attcollation
WHERE %s AND c.relkind IN ('r', 'p') AND a.attnum > 0 AND NOT a.attisdropped AND a.attcollation <> t.typcollation`
)

// readPostgres reads a PostgreSQL database from its catalog: the tables
// of the default schema (or of all, Options.AllSchemas) in creation
// order, column types as format_type spells them, NOT NULL, a collation
// other than the type's default, keys, UNIQUE
// constraints and indexes, foreign keys between the tables read, CHECK
// constraints as pg_get_constraintdef prints them (Options.Checks) and
// the samples (serverSamples). Every statement is a SELECT.
func readPostgres(ctx context.Context, q func(string) (*result.Set, error), o Options) (*Database, error) {
	filter := pgSchemaFilter(o.AllSchemas, "n")
	db, err := readColumns(q, fmt.Sprintf(pgColumnsQuery, pgSchemaName("n"), filter), func(v result.Value) bool { return v.K == result.Bool && v.I != 0 }, 5, 6)
	if err != nil {
		return nil, err
	}
	if err := readPGConstraints(q, db, filter, o.Checks); err != nil {
		return nil, err
	}
	if err := readPGCollations(q, db, filter); err != nil {
		return nil, err
	}
	if err := readPGUnmodelled(q, db, filter); err != nil {
		return nil, err
	}
	loc, err := q(PGLocaleQuery)
	if err != nil {
		return nil, err
	}
	if len(loc.Rows) == 1 && len(loc.Rows[0]) == 1 {
		db.Locale = loc.Rows[0][0].S
	}
	return db, serverSamples(engine.Postgres, q, db, o.Samples)
}

// PGLocaleQuery reads the current PostgreSQL database's encoding,
// LC_COLLATE, LC_CTYPE, locale provider and ICU locale as one string
// (Database.Locale): what its columns of the default collation compare,
// order and fold case by; and the settings ALTER DATABASE … SET and ALTER
// ROLE … IN DATABASE … SET gave it (search_path, transform_null_equals,
// session_replication_role, DateStyle…), under which its queries run
// otherwise than in a database without them. The provider and ICU locale are read through
// to_jsonb, as their columns are named otherwise from version to version
// (datlocprovider since 15, daticulocale in 15 and 16, datlocale since 17)
// and are absent before 15.
const PGLocaleQuery = `SELECT pg_encoding_to_char(d.encoding) || ' ' || d.datcollate || ' ' || d.datctype || ' ' || coalesce(to_jsonb(d) ->> 'datlocprovider', '') || ' ' || coalesce(to_jsonb(d) ->> 'daticulocale', to_jsonb(d) ->> 'datlocale', '') || coalesce(' settings ' || (SELECT string_agg(array_to_string(s.setconfig, ','), ';' ORDER BY s.setrole) FROM pg_db_role_setting s WHERE s.setdatabase = d.oid), '') FROM pg_database d WHERE d.datname = current_database()`

// readPGUnmodelled sets the Unmodelled of every table pgUnmodelledQuery
// lists.
func readPGUnmodelled(q func(string) (*result.Set, error), db *Database, filter string) error {
	rows, err := q(fmt.Sprintf(pgUnmodelledQuery, pgSchemaName("n"), filter))
	if err != nil {
		return err
	}
	for _, r := range rows.Rows {
		for _, t := range db.Tables {
			if t.Schema == r[0].S && t.Name == r[1].S {
				t.unmodelled(r[2].S, strings.HasPrefix(r[2].S, "a unique index") || r[2].S == "an exclusion constraint" || r[2].S == "a trigger")
			}
		}
	}
	return nil
}

// readPGCollations sets the Collation of every column declared with a
// collation other than its type's default.
func readPGCollations(q func(string) (*result.Set, error), db *Database, filter string) error {
	rows, err := q(fmt.Sprintf(pgCollationsQuery, pgSchemaName("n"), filter))
	if err != nil {
		return err
	}
	for _, r := range rows.Rows {
		for _, t := range db.Tables {
			if t.Schema != r[0].S || t.Name != r[1].S {
				continue
			}
			if k := t.Col(r[2].S); k >= 0 {
				t.Columns[k].Collation = r[3].S
			}
		}
	}
	return nil
}

// readColumns runs a server's columns query (rows of schema, table,
// column, type, nullability, …) and returns its tables (tablesOfColumns),
// the default schema's name read from the cell at defaultSchema; no row
// is ErrNoTables.
func readColumns(q func(string) (*result.Set, error), sql string, notNull func(result.Value) bool, typeName, defaultSchema int) (*Database, error) {
	cols, err := q(sql)
	if err != nil {
		return nil, err
	}
	db := tablesOfColumns(cols, notNull, typeName)
	if len(db.Tables) == 0 {
		return nil, ErrNoTables
	}
	db.DefaultSchema = cols.Rows[0][defaultSchema].S
	return db, nil
}

// tablesOfColumns builds the tables of a server's catalog rows (schema,
// table, column, type, nullability; a table's columns in order, tables as
// they come); notNull reads the dialect's nullability cell, and the cell
// at typeName (when > 0) is the column's TypeName.
func tablesOfColumns(cols *result.Set, notNull func(result.Value) bool, typeName int) *Database {
	db := &Database{}
	var t *Table
	for _, r := range cols.Rows {
		if t == nil || t.Schema != r[0].S || t.Name != r[1].S {
			t = &Table{Schema: r[0].S, Name: r[1].S}
			db.Tables = append(db.Tables, t)
		}
		c := NewColumn(r[2].S, r[3].S, notNull(r[4]))
		if typeName > 0 {
			c.TypeName = r[typeName].S
		}
		t.Columns = append(t.Columns, c)
	}
	return db
}

// readPGConstraints adds the keys, foreign keys, CHECKs (when checks)
// and unique indexes of the catalog to db.
func readPGConstraints(q func(string) (*result.Set, error), db *Database, filter string, checks bool) error {
	cons, err := q(fmt.Sprintf(pgConstraintsQuery, pgSchemaName("n"), pgSchemaName("fn"), filter))
	if err != nil {
		return err
	}
	g := newConstraintGroups()
	for _, r := range cons.Rows {
		c := g.group(r[0].S, r[1].S, r[2].S, r[3].S)
		c.def = r[7].S
		c.cols = append(c.cols, r[4].S)
		c.refSchema, c.refTable = r[8].S, r[5].S
		c.refCols = append(c.refCols, r[6].S)
	}
	idx, err := q(fmt.Sprintf(pgUniqueIndexQuery, pgSchemaName("n"), filter))
	if err != nil {
		return err
	}
	for _, r := range idx.Rows {
		c := g.group(r[0].S, r[1].S, "\x00index "+r[2].S, "u")
		c.cols = append(c.cols, r[3].S)
	}
	return g.addTo(db, checks)
}

// constraint is one constraint (or unique index) of a server's catalog:
// its type (p, u, f, c), its columns in key order, what a foreign key
// references, and a CHECK's definition.
type constraint struct {
	schema, table, typ, def string
	cols                    []string
	refSchema, refTable     string
	refCols                 []string
}

// constraintGroups gathers the rows of constraints by (schema, table,
// name), in the order they first come.
type constraintGroups struct {
	byKey map[[3]string]*constraint
	order []*constraint
}

func newConstraintGroups() *constraintGroups {
	return &constraintGroups{byKey: map[[3]string]*constraint{}}
}

// group returns the constraint name of table schema.table, made with type
// typ when it is new.
func (g *constraintGroups) group(schema, table, name, typ string) *constraint {
	k := [3]string{schema, table, name}
	c := g.byKey[k]
	if c == nil {
		c = &constraint{schema: schema, table: table, typ: typ}
		g.byKey[k] = c
		g.order = append(g.order, c)
	}
	return c
}

// addTo adds every constraint to its table of db, in order.
func (g *constraintGroups) addTo(db *Database, checks bool) error {
	for _, c := range g.order {
		if err := c.addTo(db, checks); err != nil {
			return err
		}
	}
	return nil
}

// tableIn returns the table of schema named name (case-insensitive), or
// nil.
func (db *Database) tableIn(schema, name string) *Table {
	for _, t := range db.Tables {
		if t.Schema == schema && strings.EqualFold(t.Name, name) {
			return t
		}
	}
	return nil
}

// addTo adds the constraint to its table of db; one that names a column
// or table outside db is left out. A CHECK (read when checks) that
// ParseCheck refuses is the error.
func (c *constraint) addTo(db *Database, checks bool) error {
	t := db.tableIn(c.schema, c.table)
	if t == nil {
		return nil
	}
	if c.typ == "c" {
		if def, ok := strings.CutPrefix(c.def, "CHECK "); ok && checks {
			return t.addChecks([]string{strings.TrimSuffix(def, " NOT VALID")})
		}
		return nil
	}
	cols, ok := colIndexes(t, c.cols)
	if !ok {
		return nil
	}
	switch c.typ {
	case "p":
		t.PK = cols
		for _, k := range cols {
			t.Columns[k].NotNull = true
		}
	case "u":
		if !t.IsKey(cols) {
			t.Uniques = append(t.Uniques, cols)
		}
	case "f":
		p := db.tableIn(c.refSchema, c.refTable)
		if p == nil {
			return nil
		}
		ref, ok := colIndexes(p, c.refCols)
		if !ok {
			return nil
		}
		t.FKs = append(t.FKs, ForeignKey{Cols: cols, RefSchema: p.Schema, RefTable: p.Name, RefCols: ref, MatchFull: strings.Contains(c.def, "MATCH FULL")})
	}
	return nil
}

// colIndexes returns the indexes of the named columns of t (names
// compared exactly, as the server stores them); false when a name is not
// a column of t.
func colIndexes(t *Table, names []string) ([]int, bool) {
	out := make([]int, len(names))
	for i, n := range names {
		k := -1
		for j, c := range t.Columns {
			if c.Name == n {
				k = j
			}
		}
		if k < 0 {
			return nil, false
		}
		out[i] = k
	}
	return out, len(out) > 0
}

// serverSamples reads up to n distinct values of every column of a
// database on a server of dialect d, in the order of their first row in
// a scan (insertion order, for a table loaded and not changed since), as
// the SQLite reader's sample is; distinct as the column's type (or, on
// MySQL, collation) compares them. A column GROUP BY refuses (a type
// without equality, such as json) gives its first values, repeats
// included.
func serverSamples(d engine.Dialect, q func(string) (*result.Set, error), db *Database, n int) error {
	return readSamples(db, n, func(t *Table, c *Column) (*result.Set, error) {
		col, tab := d.QuoteIdent(c.Name), TableIdent(d, t)
		set, err := q(fmt.Sprintf("SELECT v FROM (SELECT %s AS v, row_number() OVER () AS n FROM %s) AS s GROUP BY v ORDER BY min(n) LIMIT %d", col, tab, n))
		if err != nil {
			set, err = q(fmt.Sprintf("SELECT %s FROM %s LIMIT %d", col, tab, n))
		}
		return set, err
	})
}
