package equiv

import (
	"context"
	"fmt"
	"strings"

	"github.com/sqljudge/sqljudge/internal/engine"
	"github.com/sqljudge/sqljudge/internal/result"
)

// A dbReader is a Sandbox that can read an existing database of its
// server, named by a db_id, to seed a pair's search: its schema and a
// sample of its values, by table and column index. It only reads.
type dbReader interface {
	ReadDB(ctx context.Context, dbID string) (*Schema, [][][]result.Value, error)
	// QueryDB runs one read-only query on database dbID.
	QueryDB(ctx context.Context, dbID, q string) (*result.Set, error)
}

var _ dbReader = (*PostgresSandbox)(nil)

// pgSampleValues bounds the values read per column, as inspectSQLite
// keeps 12.
const pgSampleValues = 12

// The catalog queries of ReadDB: the ordinary and partitioned tables of
// the first schema of the search path (current_schema(), public by
// default) in creation order, their columns with their declared types,
// their PRIMARY KEY, UNIQUE, FOREIGN KEY and CHECK constraints (one row a
// column, in key order), and their unique indexes on plain columns that
// back no constraint (the CREATE UNIQUE INDEX of a dump).
const (
	pgColumnsQuery = `SELECT c.relname, a.attname, format_type(a.atttypid, a.atttypmod), a.attnotnull
FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace JOIN pg_attribute a ON a.attrelid = c.oid
WHERE n.nspname = current_schema() AND c.relkind IN ('r', 'p') AND NOT c.relispartition AND a.attnum > 0 AND NOT a.attisdropped
ORDER BY c.oid, a.attnum`
	pgConstraintsQuery = `SELECT cl.relname, k.conname, k.contype::text, a.attname, fc.relname, fa.attname, pg_get_constraintdef(k.oid)
FROM pg_constraint k JOIN pg_class cl ON cl.oid = k.conrelid JOIN pg_namespace n ON n.oid = cl.relnamespace
LEFT JOIN LATERAL unnest(k.conkey) WITH ORDINALITY AS u(num, i) ON true
LEFT JOIN pg_attribute a ON a.attrelid = k.conrelid AND a.attnum = u.num
LEFT JOIN pg_class fc ON fc.oid = k.confrelid
LEFT JOIN pg_attribute fa ON fa.attrelid = k.confrelid AND fa.attnum = k.confkey[u.i]
WHERE n.nspname = current_schema() AND k.contype IN ('p', 'u', 'f', 'c')
ORDER BY cl.oid, k.contype, k.conname, u.i`
	pgUniqueIndexQuery = `SELECT cl.relname, ic.relname, a.attname
FROM pg_index x JOIN pg_class cl ON cl.oid = x.indrelid JOIN pg_class ic ON ic.oid = x.indexrelid
JOIN pg_namespace n ON n.oid = cl.relnamespace
CROSS JOIN LATERAL unnest(x.indkey::int2[]) WITH ORDINALITY AS u(num, i)
LEFT JOIN pg_attribute a ON a.attrelid = x.indrelid AND a.attnum = u.num
WHERE n.nspname = current_schema() AND x.indisunique AND NOT x.indisprimary AND x.indexprs IS NULL AND x.indpred IS NULL
  AND u.i <= x.indnkeyatts AND NOT EXISTS (SELECT 1 FROM pg_constraint k WHERE k.conindid = x.indexrelid)
ORDER BY cl.oid, ic.relname, u.i`
)

// ReadDB reads database dbID of the server: its schema from the catalog
// (tables of current_schema(), column types as format_type spells them,
// NOT NULL, keys, UNIQUE constraints and indexes, foreign keys within the
// schema, CHECK constraints as pg_get_constraintdef prints them) and up to
// pgSampleValues distinct values a column (serverSamples). Every statement is a SELECT run through the PostgreSQL engine,
// in a read-only transaction under the sandbox's role: nothing is written
// to dbID.
func (s *PostgresSandbox) ReadDB(ctx context.Context, dbID string) (*Schema, [][][]result.Value, error) {
	q := func(sql string) (*result.Set, error) { return s.eng.Query(ctx, dbID, sql) }
	cols, err := q(pgColumnsQuery)
	if err != nil {
		return nil, nil, err
	}
	sch := schemaOfColumns(cols, func(v result.Value) bool { return v.K == result.Bool && v.I != 0 })
	if len(sch.Tables) == 0 {
		return nil, nil, fmt.Errorf("database %s has no tables in its current schema", dbID)
	}
	return completeServerSchema(engine.Postgres, q, sch, s.readConstraints)
}

// QueryDB runs q on database dbID through the read-only engine.
func (s *PostgresSandbox) QueryDB(ctx context.Context, dbID, q string) (*result.Set, error) {
	return s.eng.Query(ctx, dbID, q)
}

// schemaOfColumns builds the tables of a server's catalog rows (table,
// column, type, nullability; a table's columns in order, tables as they
// come); notNull reads the dialect's nullability cell.
func schemaOfColumns(cols *result.Set, notNull func(result.Value) bool) *Schema {
	sch := &Schema{}
	for _, r := range cols.Rows {
		t := sch.Table(r[0].S)
		if t == nil || t.Name != r[0].S {
			t = &Table{Name: r[0].S}
			sch.Tables = append(sch.Tables, t)
		}
		typ := strings.ToUpper(r[2].S)
		c := Column{Name: r[1].S, Type: typ, Kind: kindOf(typ), NotNull: notNull(r[3])}
		if c.Kind == KText {
			c.Len = lenOf(typ)
		}
		t.Columns = append(t.Columns, c)
	}
	return sch
}

// completeServerSchema adds a server database's constraints to sch
// (constraints, the dialect's catalog reader), orders and validates its
// tables and reads each column's first values (serverSamples).
func completeServerSchema(d engine.Dialect, q func(string) (*result.Set, error), sch *Schema, constraints func(func(string) (*result.Set, error), *Schema) error) (*Schema, [][][]result.Value, error) {
	if err := constraints(q, sch); err != nil {
		return nil, nil, err
	}
	sch.orderTables()
	if err := sch.validate(); err != nil {
		return nil, nil, err
	}
	samples, err := serverSamples(d, q, sch)
	return sch, samples, err
}

// readConstraints adds the keys, foreign keys, CHECKs and unique indexes
// of the catalog to sch.
func (s *PostgresSandbox) readConstraints(q func(string) (*result.Set, error), sch *Schema) error {
	cons, err := q(pgConstraintsQuery)
	if err != nil {
		return err
	}
	type key struct{ table, name string }
	groups := map[key]*pgConstraint{}
	var order []*pgConstraint
	for _, r := range cons.Rows {
		k := key{r[0].S, r[1].S}
		g := groups[k]
		if g == nil {
			g = &pgConstraint{table: r[0].S, typ: r[2].S, def: r[6].S}
			groups[k] = g
			order = append(order, g)
		}
		g.cols = append(g.cols, r[3].S)
		g.refTable = r[4].S
		g.refCols = append(g.refCols, r[5].S)
	}
	idx, err := q(pgUniqueIndexQuery)
	if err != nil {
		return err
	}
	for _, r := range idx.Rows {
		k := key{r[0].S, "\x00index " + r[1].S}
		g := groups[k]
		if g == nil {
			g = &pgConstraint{table: r[0].S, typ: "u"}
			groups[k] = g
			order = append(order, g)
		}
		g.cols = append(g.cols, r[2].S)
	}
	for _, g := range order {
		if err := g.addTo(sch); err != nil {
			return err
		}
	}
	return nil
}

// pgConstraint is one constraint (or unique index) of the catalog: its
// type (p, u, f, c), its columns in key order, what a foreign key
// references, and a CHECK's definition.
type pgConstraint struct {
	table, typ, def string
	cols            []string
	refTable        string
	refCols         []string
}

// addTo adds the constraint to its table of sch; one that names a column
// or table outside sch (another schema's) is left out. A CHECK that
// ParseCheck refuses is the error.
func (g *pgConstraint) addTo(sch *Schema) error {
	t := sch.Table(g.table)
	if t == nil {
		return nil
	}
	if g.typ == "c" {
		if def, ok := strings.CutPrefix(g.def, "CHECK "); ok {
			return t.addChecks([]string{strings.TrimSuffix(def, " NOT VALID")})
		}
		return nil
	}
	cols, ok := colIndexes(t, g.cols)
	if !ok {
		return nil
	}
	switch g.typ {
	case "p":
		t.PK = cols
		for _, k := range cols {
			t.Columns[k].NotNull = true
		}
	case "u":
		if !t.isKey(cols) {
			t.Uniques = append(t.Uniques, cols)
		}
	case "f":
		p := sch.Table(g.refTable)
		if p == nil {
			return nil
		}
		ref, ok := colIndexes(p, g.refCols)
		if !ok {
			return nil
		}
		t.FKs = append(t.FKs, ForeignKey{Cols: cols, RefTable: p.Name, RefCols: ref})
	}
	return nil
}

// colIndexes returns the indexes of the named columns of t; false when a
// name is not a column of t.
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

// serverSamples reads up to pgSampleValues distinct values of every
// column of a database on a server of dialect d, in the order of their
// first row in a scan (insertion order, for a table loaded and not changed
// since), as inspectSQLite's sample is; distinct as the column's type (or,
// on MySQL, collation) compares them. A column GROUP BY refuses (a type
// without equality, such as json) gives its first values, repeats included.
func serverSamples(d engine.Dialect, q func(string) (*result.Set, error), sch *Schema) ([][][]result.Value, error) {
	out := make([][][]result.Value, len(sch.Tables))
	for ti, t := range sch.Tables {
		out[ti] = make([][]result.Value, len(t.Columns))
		for ci, c := range t.Columns {
			col, tab := d.QuoteIdent(c.Name), d.QuoteIdent(t.Name)
			set, err := q(fmt.Sprintf("SELECT v FROM (SELECT %s AS v, row_number() OVER () AS n FROM %s) AS s GROUP BY v ORDER BY min(n) LIMIT %d", col, tab, pgSampleValues))
			if err != nil {
				set, err = q(fmt.Sprintf("SELECT %s FROM %s LIMIT %d", col, tab, pgSampleValues))
			}
			if err != nil {
				return nil, fmt.Errorf("%s.%s: %w", t.Name, c.Name, err)
			}
			for _, r := range set.Rows {
				out[ti][ci] = append(out[ti][ci], r[0])
			}
		}
	}
	return out, nil
}

// readServerDB reads the pair's DBID through the sandbox, when it can
// read databases of its server.
func (s *searcher) readServerDB(ctx context.Context) ([][][]result.Value, error) {
	r, ok := s.o.Sandbox.(dbReader)
	if !ok {
		return nil, fmt.Errorf("db_id %q: the %s engine cannot read an existing database (db_id pairs run on SQLite, PostgreSQL or MariaDB/MySQL)", s.p.DBID, s.o.Sandbox.Dialect())
	}
	sch, samples, err := r.ReadDB(ctx, s.p.DBID)
	if err != nil {
		return nil, fmt.Errorf("db_id %q: %w", s.p.DBID, err)
	}
	s.schema = sch
	return samples, nil
}
