package prove

import (
	"github.com/sqljudge/sqljudge/internal/catalog"
	"github.com/sqljudge/sqljudge/internal/engine"
	"github.com/sqljudge/sqljudge/internal/prove/check"
)

// SchemaOf adapts db to the prover's schema model on dialect d (nil
// for an engine the prover does not model: MySQL, whose collations make
// = on strings case-insensitive, and DuckDB). A column's family follows
// what equiv's sandbox creates and its search draws: on SQLite the affinity
// of the type the sandbox declares (catalog.DeclType, then
// catalog.SQLiteAffinity) together with the column's catalog family
// (Integer: INTEGER affinity and whole numbers; Real or Decimal: REAL or
// NUMERIC affinity respectively, and numbers; Text: TEXT or BLOB affinity
// and strings); on PostgreSQL integers and strings; every other column is
// Other. NOT NULL is the engine's: declared NOT NULL, or in the PRIMARY
// KEY on PostgreSQL, but on SQLite only the INTEGER PRIMARY KEY
// (rowidAlias), since SQLite lets any other key column hold NULL
// (catalog.Column.KeyNotNull: a proof then covers the item's own
// database, not only equiv's sandbox's, which declares every key column NOT
// NULL); the keys are the PRIMARY KEY and the UNIQUE sets (no two rows
// equal on them without NULLs).
func SchemaOf(db *catalog.Database, d engine.Dialect) check.Schema {
	var cd check.Dialect
	switch d {
	case engine.SQLite:
		cd = check.SQLite
	case engine.Postgres:
		cd = check.Postgres
	default:
		return nil
	}
	out := &check.MapSchema{D: cd}
	for _, t := range db.Tables {
		ct := &check.Table{Name: t.Name}
		for _, c := range t.Columns {
			notNull := c.NotNull
			if d == engine.SQLite && c.KeyNotNull && !rowidAlias(t) {
				notNull = false // SQLite lets this key column hold NULL
			}
			ct.Columns = append(ct.Columns, check.Column{Name: c.Name, Family: family(c, d), NotNull: notNull})
		}
		if len(t.PK) > 0 {
			ct.Keys = append(ct.Keys, check.Key{Cols: t.PK, Primary: true})
		}
		for _, u := range t.Uniques {
			ct.Keys = append(ct.Keys, check.Key{Cols: u})
		}
		for _, fk := range t.FKs {
			ct.FKs = append(ct.FKs, check.ForeignKey{Cols: fk.Cols, RefTable: fk.RefTable, RefCols: fk.RefCols})
		}
		out.Tables = append(out.Tables, ct)
	}
	return out
}

// rowidAlias reports whether t's primary key is SQLite's INTEGER PRIMARY
// KEY, an alias of the rowid, the one key SQLite keeps from holding NULL
// without a NOT NULL (https://sqlite.org/lang_createtable.html#rowid).
func rowidAlias(t *catalog.Table) bool {
	return len(t.PK) == 1 && t.Columns[t.PK[0]].UpperType() == "INTEGER"
}

// family returns the prover's family of column c on dialect d.
func family(c catalog.Column, d engine.Dialect) check.Family {
	if d == engine.Postgres {
		switch c.Family {
		case catalog.Integer:
			return check.Int
		case catalog.Text:
			return check.Text
		}
		return check.Other
	}
	aff := catalog.SQLiteAffinity(catalog.DeclType(engine.SQLite, c))
	switch {
	case c.Family == catalog.Integer && aff == catalog.AffinityInteger:
		return check.Int
	case c.Family == catalog.Real && aff == catalog.AffinityReal, c.Family == catalog.Decimal && aff == catalog.AffinityNumeric:
		return check.Real
	case c.Family == catalog.Text && (aff == catalog.AffinityText || aff == catalog.AffinityBlob):
		return check.Text
	}
	return check.Other
}
