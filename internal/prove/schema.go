package prove

import (
	"regexp"
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
			ct.Columns = append(ct.Columns, column(t, c, d, db.Dialect == engine.Postgres))
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
// affinity of its declared type, and its family (family). server tells a
// column read from a PostgreSQL server (its type as format_type spells
// it) from one of DDL, which equiv's sandbox declares as
// catalog.DeclType has it (pgType).
func column(t *catalog.Table, c catalog.Column, d engine.Dialect, server bool) check.Column {
	notNull := c.NotNull
	if d == engine.SQLite && c.KeyNotNull && !t.RowidAlias() {
		notNull = false // SQLite lets this key column hold NULL
	}
	pt := ""
	if d == engine.Postgres {
		pt = pgType(c, server)
	}
	out := check.Column{Name: engineName(d, c.Name, c.Unquoted), NotNull: notNull, Collation: strings.ToLower(c.Collation), Family: family(c, d, pt)}
	if d == engine.Postgres {
		// boolean by its exact name (a BIT read from a server is a bit
		// string; one of DDL the sandbox declares BOOLEAN).
		out.Bool = pt == "boolean"
		out.Class = typeClass(pt)
		out.Type = pt
		if pt == "" {
			out.Type = "?" + strings.ToLower(strings.TrimSpace(c.Type))
		}
		switch out.Collation {
		case "", "default", "c", "posix":
		default:
			// A collation of the database's own may be nondeterministic,
			// under which LIKE fails on every row ("nondeterministic
			// collations are not supported for LIKE") and = ignores case.
			out.Class = check.ClassOpaque
		}
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

// typeClass is the type class on PostgreSQL (check.TypeClass) of a
// column of base type t (pgType): integer for SMALLINT, INTEGER and
// BIGINT; numeric for NUMERIC; floating point for REAL and DOUBLE
// PRECISION; text for TEXT, VARCHAR and CHAR(n); boolean; date/time
// for DATE and TIMESTAMP (with or without time zone); opaque for any
// other (TIME, INTERVAL, UUID, JSON, an enum, an array, a range, citext,
// "char", money, a bit string…), whose operators and literals PostgreSQL
// types by rules the kernel does not model (a TIME against a DATE does
// not compare; a UUID literal in upper case equals the lower-case value
// it prints; citext compares without regard to case; JSON has no =).
func typeClass(t string) check.TypeClass {
	switch t {
	case "smallint", "integer", "bigint":
		return check.ClassInteger
	case "numeric":
		return check.ClassDecimal
	case "real", "double precision":
		return check.ClassFloat
	case "text", "character varying", "character":
		return check.ClassText
	case "boolean":
		return check.ClassBool
	case "date", "timestamp", "timestamptz":
		return check.ClassTemporal
	}
	return check.ClassOpaque
}

// pgTypeArgs matches a type's modifiers, "(20)", "(10, 2)", "(0)".
var pgTypeArgs = regexp.MustCompile(`\s*\([^)]*\)`)

// pgType returns the base type of PostgreSQL column c by its exact name,
// one of smallint, integer, bigint, numeric, real, double precision,
// text, character varying, character, boolean, date, timestamp,
// timestamptz and time; "" for any other type (an array, a type of
// USER-DEFINED data_type such as an enum or citext, "char", money,
// interval, a range…). A column read from a server (server) has the type
// format_type gives, which must name the type its data_type (TypeName)
// names: a domain of any name is "" (format_type prints a domain called
// serial as serial, of data_type text). One of DDL is declared by equiv's sandbox as
// catalog.DeclType has it (a DDL's CITEXT or UUID is TEXT there) and
// may be created as written elsewhere (the soundness fuzzer, a test):
// its type is the one both name, "" when they differ, and the sandbox's
// for a column declared without a type (which PostgreSQL has not). The
// names are matched whole: the catalog's families read substrings ("INT"
// in int4range and INTEGER[], "TEXT" in citext), which the kernel must
// not.
func pgType(c catalog.Column, server bool) string {
	if server {
		// A domain has its own name and its base type's data_type
		// (`CREATE DOMAIN serial AS text` prints as serial): the two must
		// name one type.
		t := pgTypeName(c.Type)
		if c.TypeName != "" && pgTypeName(c.TypeName) != t {
			return ""
		}
		return t
	}
	decl := pgTypeName(catalog.DeclType(engine.Postgres, c))
	if strings.TrimSpace(c.Type) == "" {
		return decl
	}
	if raw := pgTypeName(c.Type); raw != decl {
		return ""
	}
	return decl
}

// pgTypeName is pgType's reading of one type name.
func pgTypeName(t string) string {
	t = strings.ToLower(strings.TrimSpace(t))
	if strings.HasSuffix(t, "]") {
		return ""
	}
	t = strings.Join(strings.Fields(pgTypeArgs.ReplaceAllString(t, "")), " ")
	switch t {
	case "smallint", "int2", "smallserial", "serial2":
		return "smallint"
	case "integer", "int", "int4", "serial", "serial4":
		return "integer"
	case "bigint", "int8", "bigserial", "serial8":
		return "bigint"
	case "numeric", "decimal":
		return "numeric"
	case "real", "float4":
		return "real"
	case "double precision", "float8", "float":
		return "double precision"
	case "text":
		return "text"
	case "character varying", "varchar":
		return "character varying"
	case "character", "char", "bpchar":
		return "character"
	case "boolean", "bool":
		return "boolean"
	case "date":
		return "date"
	case "timestamp", "timestamp without time zone":
		return "timestamp"
	case "timestamptz", "timestamp with time zone":
		return "timestamptz"
	case "time", "time without time zone":
		return "time"
	}
	return ""
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
// PostgreSQL (pt: the column's pgType), Int for SMALLINT, INTEGER or
// BIGINT, Text for VARCHAR or TEXT (not CHAR(n), bpchar, whose = ignores
// trailing blanks while its values are padded); Other else. The kernel
// further reads a column under a collation of its own as Other
// (check.Column).
func family(c catalog.Column, d engine.Dialect, pt string) check.Family {
	if d == engine.Postgres {
		switch pt {
		case "smallint", "integer", "bigint":
			return check.Int
		case "text", "character varying":
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
