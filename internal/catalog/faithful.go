package catalog

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/sqljudge/sqljudge/internal/engine"
)

// Unfaithful returns "" when DeclType(d, c) declares column c, read from
// a database of engine src (Database.Dialect), as that database has it:
// a table created from CreateStatements(d) then holds the values the
// source's column holds and compares, orders and converts them as it
// does. Otherwise it says what differs ("its type citext is declared
// TEXT"), for a consumer that must refuse rather than speak of another
// column (equiv's search: a witness on a TEXT column is no witness for a
// citext one, whose = ignores case). The rules:
//
//   - DDL (src ""): "", the translation by family is documented
//     (DeclType; a DDL's types are spelled for any engine).
//   - SQLite: the same affinity (https://sqlite.org/datatype3.html,
//     section 3.1), the only thing SQLite reads of a declared type.
//   - PostgreSQL: the same type by its exact name as format_type spells
//     it, modifiers included (integer[], citext, point, interval, an enum,
//     timestamp(3), timestamp with time zone, bpchar differ), a domain
//     (format_type's name naming another type than data_type, TypeName)
//     never, and no collation of the column's own.
//   - MariaDB/MySQL: the same COLUMN_TYPE but for an integer's display
//     width (int(11) is INT) and the TEXT types, which DeclType declares
//     VARCHAR(255) (a key may not be a TEXT; the two compare alike under
//     one collation, and a longer value is refused when inserted, never
//     cut); tinyint, mediumint, unsigned, float, double(m,d), timestamp,
//     year, enum, set, bit and json differ; no collation other than the
//     default of utf8mb4, which the sandbox's databases are created with
//     (Collation, readMySQLCollations).
//   - a column read from one engine and declared on another: never.
func Unfaithful(src, d engine.Dialect, c Column) string {
	if src == "" {
		return ""
	}
	decl := DeclType(d, c)
	if src != d {
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
		case own != pgCanonical(decl):
			return fmt.Sprintf("its type %s is declared %s", c.Type, decl)
		case c.TypeName != "" && pgCanonical(pgBase(own)) != pgCanonical(c.TypeName):
			return fmt.Sprintf("its type %s is a domain over %s", c.Type, c.TypeName)
		case c.Collation != "" && c.Collation != "default":
			return fmt.Sprintf("its collation %s is not declared", c.Collation)
		}
		return ""
	case engine.MySQL:
		own := myCanonical(c.Type)
		switch {
		case own != myCanonical(decl) && !(myText(own) && decl == "VARCHAR(255)"):
			return fmt.Sprintf("its type %s is declared %s", c.Type, decl)
		case c.Collation != "":
			return fmt.Sprintf("its collation %s is not utf8mb4's default, which the sandbox declares", c.Collation)
		}
		return ""
	}
	return fmt.Sprintf("columns of %s are not checked", d)
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
// collapsed, INTEGER read as INT, BOOLEAN as TINYINT, an integer's display
// width and a modifier's spaces dropped: "int(11)" and "INTEGER" are both
// "int", "DECIMAL(10, 2)" is "decimal(10,2)"; any BLOB is "blob".
func myCanonical(t string) string {
	t = strings.Join(strings.Fields(strings.ToLower(t)), " ")
	mods := strings.ReplaceAll(typeMods.FindString(t), " ", "")
	rest := strings.Fields(typeMods.ReplaceAllString(t, " "))
	if len(rest) == 0 {
		return t
	}
	switch rest[0] {
	case "integer":
		rest[0] = "int"
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
