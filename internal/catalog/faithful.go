package catalog

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/sqljudge/sqljudge/internal/engine"
)

// Unfaithful returns "" when DeclType(d, c) declares column c, read from
// a database of engine src (Database.Dialect; "" for DDL), as that
// database or DDL has it on engine d: a table created from
// CreateStatements(d) then holds the values c holds and compares, orders
// and converts them as c does. Otherwise it says what differs ("its type
// CITEXT is declared TEXT"), for a consumer that must refuse rather than
// speak of another column (equiv's search: a witness on a TEXT column is
// no witness for a citext one, whose = ignores case). The rules:
//
//   - SQLite: the same affinity (https://sqlite.org/datatype3.html,
//     section 3.1), the only thing SQLite reads of a declared type.
//   - PostgreSQL: the same type by its exact name (format_type's, or the
//     DDL's), modifiers included (integer[], citext, point, interval, an
//     enum, timestamp(3), timestamp with time zone, float(24), bpchar and
//     a CHAR without length differ), a domain (format_type's name naming
//     another type than data_type, TypeName) never, and no collation of
//     the column's own (the sandbox declares none).
//   - MariaDB/MySQL: the same COLUMN_TYPE (or the DDL's) but for an
//     integer's display width (int(11) is INT) and the TEXT types, which
//     DeclType declares VARCHAR(255) (a key may not be a TEXT; the two
//     compare alike under one collation, and a longer value is refused
//     when inserted, never cut); tinyint, mediumint, unsigned, float,
//     double(m,d), a DECIMAL without precision (MySQL's is (10,0), the
//     sandbox's (20,6)), timestamp, year, enum, set, bit and json differ;
//     no collation other than the default of utf8mb4, which the
//     sandbox's databases are created with (Collation,
//     readMySQLCollations).
//   - DDL names a type in any engine's spelling: one that is not a type of
//     d (DATETIME or NUMBER on PostgreSQL, TINYINT there, INT(11)) is
//     translated by family as documented and never refused; one that is
//     (pgNative, myNative) must be declared as d reads it. Its COLLATE is
//     declared on SQLite only: elsewhere any is refused.
//   - a column read from one engine and declared on another: never.
//
// DuckDB columns are not checked ("" for DDL, refused when read).
func Unfaithful(src, d engine.Dialect, c Column) string {
	decl := DeclType(d, c)
	if src != "" && src != d {
		return fmt.Sprintf("read from %s, declared %s on %s", src, decl, d)
	}
	switch d {
	case engine.SQLite:
		if SQLiteAffinity(c.Type) != SQLiteAffinity(decl) {
			return fmt.Sprintf("its type %s is declared %s, of another affinity", c.Type, decl)
		}
		return ""
	case engine.Postgres:
		own := pgCanonical(c.Type)
		switch {
		case (src != "" || pgNative(own)) && own != pgCanonical(decl):
			return fmt.Sprintf("its type %s is declared %s", c.Type, decl)
		case src != "" && c.TypeName != "" && pgCanonical(pgBase(own)) != pgCanonical(c.TypeName):
			return fmt.Sprintf("its type %s is a domain over %s", c.Type, c.TypeName)
		case c.Collation != "" && (src == "" || c.Collation != "default"):
			return fmt.Sprintf("its collation %s is not declared", c.Collation)
		}
		return ""
	case engine.MySQL:
		own := myCanonical(c.Type)
		switch {
		case (src != "" || myNative(own)) && own != myCanonical(decl) && !(myText(own) && decl == "VARCHAR(255)"):
			return fmt.Sprintf("its type %s is declared %s", c.Type, decl)
		case c.Charset != "" && !strings.EqualFold(c.Charset, "utf8mb4"):
			return fmt.Sprintf("its character set %s is not utf8mb4, the sandbox's", c.Charset)
		case c.Collation != "" && src == "":
			return fmt.Sprintf("its collation %s is not declared", c.Collation)
		case c.Collation != "":
			return fmt.Sprintf("its collation %s is not utf8mb4's default, which the sandbox declares", c.Collation)
		}
		return ""
	}
	if src == "" {
		return ""
	}
	return fmt.Sprintf("columns of %s are not checked", d)
}

// pgNativeTypes are the base names (pgCanonical, without modifiers or
// array brackets) of PostgreSQL's built-in types
// (https://www.postgresql.org/docs/current/datatype.html, table 8.1) and
// citext.
var pgNativeTypes = map[string]bool{}

func init() {
	for _, t := range strings.Split("bigint|bit|bit varying|varbit|boolean|box|bytea|character|character varying|cidr|circle|date|double precision|inet|integer|interval|json|jsonb|line|lseg|macaddr|macaddr8|money|numeric|path|pg_lsn|point|polygon|real|smallint|text|time without time zone|time with time zone|timestamp without time zone|timestamp with time zone|tsquery|tsvector|uuid|xml|int4range|int8range|numrange|tsrange|tstzrange|daterange|citext|bpchar|name|oid", "|") {
		pgNativeTypes[t] = true
	}
}

// pgNative reports whether canonical name t (pgCanonical) is a
// PostgreSQL type: its base is one (an integer with a display width,
// MySQL's INT(11), is not), or it is an array.
func pgNative(t string) bool {
	if strings.HasSuffix(t, "[]") {
		return true
	}
	base := pgBase(t)
	switch base {
	case "smallint", "integer", "bigint":
		return base == t
	}
	return pgNativeTypes[base]
}

// myNativeTypes are the first words of MariaDB's and MySQL's data types
// (https://mariadb.com/kb/en/data-types/), as myCanonical spells them.
var myNativeTypes = map[string]bool{}

func init() {
	for _, t := range strings.Fields("tinyint smallint mediumint int bigint int1 int2 int3 int4 int8 middleint integer decimal dec numeric fixed float double real bit date datetime timestamp time year char varchar binary varbinary blob tinytext text mediumtext longtext enum set json geometry point linestring polygon inet4 inet6 uuid serial") {
		myNativeTypes[t] = true
	}
}

// myNative reports whether canonical name t (myCanonical) is a MariaDB
// or MySQL type: its first word is one, and any other is UNSIGNED, SIGNED
// ZEROFILL or BINARY (TIMESTAMP WITHOUT TIME ZONE is PostgreSQL's spelling,
// which MariaDB refuses).
func myNative(t string) bool {
	w := strings.Fields(typeMods.ReplaceAllString(t, " "))
	if len(w) == 0 || !myNativeTypes[w[0]] {
		return false
	}
	for _, x := range w[1:] {
		switch x {
		case "unsigned", "signed", "zerofill", "binary":
		default:
			return false
		}
	}
	return true
}

// typeMods matches a type's modifiers, "(20)", "(10, 2)", wherever they
// stand ("timestamp(3) without time zone").
var typeMods = regexp.MustCompile(`\(\s*[^)]*\)`)

// pgAliases are PostgreSQL's other names of its built-in types
// (https://www.postgresql.org/docs/current/datatype.html, table 8.1).
var pgAliases = map[string]string{
	"int2": "smallint", "int": "integer", "int4": "integer", "int8": "bigint",
	"decimal": "numeric", "float4": "real", "float8": "double precision", "float": "double precision",
	"varchar": "character varying", "char": "character", "bool": "boolean",
	"serial": "integer", "serial4": "integer", "bigserial": "bigint", "serial8": "bigint", "smallserial": "smallint", "serial2": "smallint",
	"timestamp": "timestamp without time zone", "timestamptz": "timestamp with time zone",
	"time": "time without time zone", "timetz": "time with time zone",
}

// pgCanonical returns type name t lower-cased, its spaces collapsed, an
// alias replaced by the type's name and the modifiers (without spaces)
// moved to the end: "VARCHAR(20)" and "character varying(20)" are both
// "character varying(20)"; a VARCHAR without length is TEXT, which it
// behaves as. An array keeps its "[]".
func pgCanonical(t string) string {
	t = strings.ToLower(strings.TrimSpace(t))
	mods := strings.ReplaceAll(typeMods.FindString(t), " ", "")
	base := strings.Join(strings.Fields(typeMods.ReplaceAllString(t, " ")), " ")
	arr := ""
	for strings.HasSuffix(base, "[]") {
		base, arr = strings.TrimSpace(strings.TrimSuffix(base, "[]")), arr+"[]"
	}
	if a, ok := pgAliases[base]; ok {
		base = a
	}
	if base == "character varying" && mods == "" {
		base = "text"
	}
	return base + mods + arr
}

// pgBase is a canonical name without its modifiers.
func pgBase(t string) string { return typeMods.ReplaceAllString(t, "") }

// myCanonical returns a MariaDB/MySQL type name lower-cased, its spaces
// collapsed, a synonym read as its type (INTEGER as INT, NUMERIC, DEC and
// FIXED as DECIMAL, REAL and DOUBLE PRECISION as DOUBLE, CHARACTER
// [VARYING] as [VAR]CHAR), BOOLEAN as TINYINT, an integer's display
// width and a modifier's spaces dropped: "int(11)" and "INTEGER" are both
// "int", "DECIMAL(10, 2)" is "decimal(10,2)"; any BLOB is "blob".
func myCanonical(t string) string {
	t = strings.Join(strings.Fields(strings.ToLower(t)), " ")
	mods := strings.ReplaceAll(typeMods.FindString(t), " ", "")
	rest := strings.Fields(typeMods.ReplaceAllString(t, " "))
	if len(rest) == 0 {
		return t
	}
	if len(rest) > 1 && (rest[0] == "double" && rest[1] == "precision" || rest[0] == "character" && rest[1] == "varying") {
		rest = append(rest[:1], rest[2:]...)
		if rest[0] == "character" {
			rest[0] = "varchar"
		}
	}
	switch rest[0] {
	case "integer", "int4":
		rest[0] = "int"
	case "int1":
		rest[0] = "tinyint"
	case "int2":
		rest[0] = "smallint"
	case "int3", "middleint":
		rest[0] = "mediumint"
	case "int8":
		rest[0] = "bigint"
	case "numeric", "dec", "fixed":
		rest[0] = "decimal"
	case "real":
		rest[0] = "double" // but under REAL_AS_FLOAT, which the sandbox's sql_mode leaves out
	case "character":
		rest[0] = "char"
	case "bool", "boolean":
		rest[0], mods = "tinyint", ""
	case "tinyblob", "mediumblob", "longblob":
		rest[0] = "blob"
	}
	switch rest[0] {
	case "tinyint", "smallint", "mediumint", "int", "bigint":
		mods = "" // a display width, not a range
	}
	return rest[0] + mods + strings.Join(append([]string{""}, rest[1:]...), " ")
}

// myText reports whether canonical MariaDB/MySQL type t is one of the
// TEXT types.
func myText(t string) bool {
	switch t {
	case "tinytext", "text", "mediumtext", "longtext":
		return true
	}
	return false
}
