package prove

import (
	"strings"

	"github.com/sqljudge/sqljudge/internal/catalog"
	"github.com/sqljudge/sqljudge/internal/engine"
	"github.com/sqljudge/sqljudge/internal/prove/check"
)

// SchemaOf adapts db to the prover's schema model on dialect d (nil
// for an engine the prover does not model: MySQL, whose collations make
// = on strings case-insensitive, and DuckDB). Each column is
// built by column. NOT NULL is the engine's: declared NOT NULL, or in the
// PRIMARY KEY on PostgreSQL, but on SQLite only the INTEGER PRIMARY KEY
// (catalog.Table.RowidAlias), since SQLite lets any other key column hold NULL
// (catalog.Column.KeyNotNull: a proof then covers the item's own
// database, not only equiv's sandbox's, which declares every key column NOT
// NULL); the keys are the PRIMARY KEY and the UNIQUE sets (no two rows
// equal on them without NULLs; the catalog leaves out partial unique
// indexes, those over expressions and those under another collation than
// the column's), none for a SQLite table whose CREATE statement the
// catalog could not read (catalog.Table.Undeclared).
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
		ct := &check.Table{Name: engineName(d, t.Name, t.Unquoted)}
		for _, c := range t.Columns {
			ct.Columns = append(ct.Columns, column(t, c, d))
		}
		if d == engine.SQLite && t.Undeclared {
			out.Tables = append(out.Tables, ct)
			continue
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

// column is column c of table t in the prover's model on dialect d:
// its name as the engine stores it (engineName), NOT NULL (see
// SchemaOf), its collation as declared (unknown, "?", on a SQLite
// table whose CREATE statement the catalog could not read), on SQLite the
// affinity of its declared type, and its family (family).
func column(t *catalog.Table, c catalog.Column, d engine.Dialect) check.Column {
	notNull := c.NotNull
	if d == engine.SQLite && c.KeyNotNull && !t.RowidAlias() {
		notNull = false // SQLite lets this key column hold NULL
	}
	out := check.Column{Name: engineName(d, c.Name, c.Unquoted), NotNull: notNull, Collation: strings.ToLower(c.Collation), Family: family(c, d)}
	if d == engine.Postgres && c.Family == catalog.Boolean {
		// boolean as PostgreSQL's format_type and ParseDDL spell it,
		// never BIT, a bit string there.
		switch c.UpperType() {
		case "BOOLEAN", "BOOL":
			out.Bool = true
		}
	}
	if d == engine.Postgres {
		out.Class = typeClass(c)
	}
	if d == engine.SQLite {
		out.Affinity = check.AffinityOf(c.Type)
		switch c.Family {
		case catalog.Date:
			out.Temporal = check.TemporalDate
		case catalog.Timestamp:
			out.Temporal = check.TemporalTimestamp
		}
		if t.Undeclared {
			out.Collation = "?"
		}
	}
	return out
}

// typeClass is column c's type class on PostgreSQL (check.TypeClass):
// the catalog's family, boolean only as BOOLEAN or BOOL (BIT is a bit
// string there), text only as CHAR, VARCHAR, TEXT (or a type PostgreSQL
// does not have, which equiv's sandbox declares TEXT); opaque for a blob,
// a bit string or a type the catalog does not name (its Text family holds
// any type no rule names: UUID, JSON, an enum), whose operators and
// literals PostgreSQL types by rules the kernel does not model (a UUID
// literal in upper case equals the lower-case value it prints; JSON has
// no =).
func typeClass(c catalog.Column) check.TypeClass {
	switch c.Family {
	case catalog.Integer:
		return check.ClassInteger
	case catalog.Real, catalog.Decimal:
		return check.ClassDecimal
	case catalog.Date, catalog.Timestamp, catalog.Time:
		return check.ClassTemporal
	case catalog.Boolean:
		switch c.UpperType() {
		case "BOOLEAN", "BOOL":
			return check.ClassBool
		}
	case catalog.Text:
		// A column without a type, a CLOB or a STRING comes from another
		// dialect's DDL: PostgreSQL has none of them, and equiv's
		// sandbox declares them TEXT (catalog.DeclType).
		t := c.UpperType()
		if bpchar(c) || t == "" || strings.Contains(t, "CHAR") || strings.Contains(t, "TEXT") || strings.Contains(t, "CLOB") || strings.Contains(t, "STRING") {
			return check.ClassText
		}
	}
	return check.ClassOpaque
}

// engineName is a table's or column's name as engine d stores it: on
// PostgreSQL a name DDL wrote without quotes is folded to lower case (as
// equiv's sandbox's DDL, catalog.Ident, has it), so that the kernel compares
// the query's names with the names PostgreSQL compares them with.
func engineName(d engine.Dialect, name string, unquoted bool) string {
	if d == engine.Postgres && unquoted {
		return strings.ToLower(name)
	}
	return name
}

// family returns the prover's family of column c on dialect d. On
// SQLite the affinity of its declared type must be the one equiv's sandbox
// declares it with too (catalog.DeclType), and then: Int for an Integer
// column of INTEGER affinity, Real for a Real one of REAL affinity,
// Numeric for a Real or Decimal one of NUMERIC affinity, Text for a Text
// one of TEXT affinity; a column without a type (BLOB affinity, which
// keeps whatever storage class it is given) or any other is Other. On
// PostgreSQL, Int for an integer type, Text for VARCHAR or TEXT (a string
// type typeClass reads as text) other than CHAR(n) (bpchar, whose = ignores trailing blanks while its values are
// padded); Other else. The kernel further reads a column under a
// collation of its own as Other (check.Column).
func family(c catalog.Column, d engine.Dialect) check.Family {
	if d == engine.Postgres {
		switch {
		case c.Family == catalog.Integer:
			return check.Int
		case c.Family == catalog.Text && !bpchar(c) && typeClass(c) == check.ClassText:
			return check.Text
		}
		return check.Other
	}
	aff := check.AffinityOf(c.Type)
	if check.AffinityOf(catalog.DeclType(engine.SQLite, c)) != aff {
		return check.Other
	}
	switch {
	case c.Family == catalog.Integer && aff == check.AffinityInteger:
		return check.Int
	case c.Family == catalog.Real && aff == check.AffinityReal:
		return check.Real
	case (c.Family == catalog.Real || c.Family == catalog.Decimal) && aff == check.AffinityNumeric:
		return check.Numeric
	case c.Family == catalog.Text && aff == check.AffinityText:
		return check.Text
	}
	return check.Other
}

// bpchar reports whether a PostgreSQL column is CHAR(n) (character,
// bpchar), not VARCHAR or TEXT.
func bpchar(c catalog.Column) bool {
	t := c.UpperType()
	switch {
	case strings.Contains(t, "VAR"):
		return false
	case strings.HasPrefix(t, "CHAR"), strings.HasPrefix(t, "BPCHAR"), strings.HasPrefix(t, "NCHAR"), strings.HasPrefix(t, "NATIONAL CHAR"):
		return true
	}
	return false
}
