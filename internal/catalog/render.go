package catalog

import (
	"fmt"
	"math"
	"regexp"
	"strconv"
	"strings"

	"github.com/sqljudge/sqljudge/internal/engine"
	"github.com/sqljudge/sqljudge/internal/result"
)

// simpleType is a declared type SQLite reads as it is written.
var simpleType = regexp.MustCompile(`^[A-Z_][A-Z0-9_]*( [A-Z_][A-Z0-9_]*)*(\(\d+(, \d+)?\))?$`)

// precisionRe is a TIMESTAMP's or TIME's precision, "(3)", wherever it
// stands ("TIMESTAMP(3) WITHOUT TIME ZONE").
var precisionRe = regexp.MustCompile(`\(\d\)`)

// typeArgsRe is what a declared type's arguments may be: one or two
// integers (ParseDDL reads nothing else; a server's catalog is held to it
// too, since a type is printed again into the sandbox's DDL).
var typeArgsRe = regexp.MustCompile(`^\(\d{1,9}(, ?\d{1,9})?\)$`)

// TypeArgs returns the "(…)" of a declared type, or "" when it has none
// or when they are not one or two integers.
func TypeArgs(t string) string {
	if i := strings.IndexByte(t, '('); i >= 0 && typeArgsRe.MatchString(t[i:]) {
		return t[i:]
	}
	return ""
}

// DeclType returns the type column c is declared with on dialect d: its
// own type, upper-cased, on SQLite when SQLite reads it (SERIAL becomes
// INTEGER; a column declared without a type stays without one, of BLOB
// affinity, which keeps every value as it is given), else the dialect's
// type of its family, keeping lengths and precisions (on PostgreSQL a
// TIMESTAMP(p) or TIME(p) without time zone keeps its p).
func DeclType(d engine.Dialect, c Column) string {
	t := c.UpperType()
	if d == engine.SQLite {
		if t == "" {
			return ""
		}
		if strings.Contains(t, "SERIAL") {
			return "INTEGER"
		}
		if simpleType.MatchString(t) && !strings.Contains(t, " WITH") {
			return t
		}
	}
	big := strings.Contains(t, "BIG") || t == "INT8"
	small := strings.Contains(t, "SMALL") || strings.Contains(t, "TINY") || t == "INT2" || t == "INT1"
	args := TypeArgs(t)
	switch c.Family {
	case Integer:
		switch {
		case big:
			return "BIGINT"
		case small:
			return "SMALLINT"
		}
		return "INTEGER"
	case Real:
		if d == engine.Postgres && (t == "REAL" || t == "FLOAT4") {
			return "REAL"
		}
		if d == engine.Postgres || d == engine.SQLite {
			return "DOUBLE PRECISION"
		}
		return "DOUBLE"
	case Decimal:
		if args == "" && d == engine.MySQL {
			args = "(20, 6)"
		}
		return "DECIMAL" + args
	case Date:
		return "DATE"
	case Timestamp:
		if d == engine.MySQL {
			return "DATETIME"
		}
		if d == engine.Postgres && !strings.Contains(t, " WITH TIME") && strings.HasPrefix(t, "TIMESTAMP(") {
			return "TIMESTAMP" + precisionRe.FindString(t) // its fractional seconds' precision
		}
		return "TIMESTAMP"
	case Time:
		if d == engine.Postgres && !strings.Contains(t, " WITH TIME") && strings.HasPrefix(t, "TIME(") {
			return "TIME" + precisionRe.FindString(t)
		}
		return "TIME"
	case Boolean:
		return "BOOLEAN"
	case Blob:
		if d == engine.Postgres {
			return "BYTEA"
		}
		return "BLOB"
	}
	switch {
	case c.Len > 0 && strings.HasPrefix(t, "CHAR") && !strings.Contains(t, "VAR"):
		return fmt.Sprintf("CHAR(%d)", c.Len)
	case c.Len > 0:
		return fmt.Sprintf("VARCHAR(%d)", c.Len)
	case d == engine.MySQL:
		return "VARCHAR(255)"
	}
	return "TEXT"
}

// CreateStatements returns the CREATE TABLE statements of db on dialect
// d, in table order, with every PRIMARY KEY, UNIQUE, NOT NULL and CHECK
// and, on SQLite, a column's collation when it is one of SQLite's own;
// a FOREIGN KEY is declared when it references a key of a table created
// before it (the engines refuse a reference to a non-key, and a cycle of
// references cannot be created table by table). Names are quoted (Ident),
// a table outside the default schema qualified by its schema.
func (db *Database) CreateStatements(d engine.Dialect) []string {
	return db.CreateStatementsWith(d, DeclType)
}

// CreateStatementsWith is CreateStatements with each column declared as
// typ returns: a caller that maps types by a policy of its own (dbload
// translating a PostgreSQL dump) writes its tables with this one
// renderer.
func (db *Database) CreateStatementsWith(d engine.Dialect, typ func(engine.Dialect, Column) string) []string {
	out := make([]string, 0, len(db.Tables))
	for ti, t := range db.Tables {
		var parts []string
		for i, c := range t.Columns {
			p := Ident(d, c.Name, c.Unquoted)
			if ty := typ(d, c); ty != "" {
				p += " " + ty
			}
			if coll := sqliteCollation(c.Collation); d == engine.SQLite && coll != "" {
				p += " COLLATE " + coll
			}
			if c.NotNull {
				p += " NOT NULL"
			}
			if descKey(d, t, i) {
				p += " PRIMARY KEY DESC"
			}
			parts = append(parts, p)
		}
		if len(t.PK) > 0 && !descKey(d, t, t.PK[0]) {
			parts = append(parts, "PRIMARY KEY ("+colNames(d, t, t.PK)+")")
		}
		for _, u := range t.Uniques {
			parts = append(parts, "UNIQUE ("+colNames(d, t, u)+")")
		}
		for _, fk := range t.FKs {
			p := db.RefTable(fk)
			if p == nil || !p.IsKey(fk.RefCols) || db.Index(p) > ti {
				continue // a cycle's back edge: not declared
			}
			ref := fmt.Sprintf("FOREIGN KEY (%s) REFERENCES %s (%s)", colNames(d, t, fk.Cols), TableIdent(d, p), colNames(d, p, fk.RefCols))
			if fk.MatchFull && d == engine.Postgres && len(fk.Cols) > 1 {
				ref += " MATCH FULL"
			}
			parts = append(parts, ref)
		}
		for _, c := range t.Checks {
			parts = append(parts, "CHECK "+c.SQL(d, t))
		}
		out = append(out, fmt.Sprintf("CREATE TABLE %s (%s)", TableIdent(d, t), strings.Join(parts, ", ")))
	}
	return out
}

// descKey reports whether column i of t is declared, on SQLite, as the
// column constraint PRIMARY KEY DESC (Table.PKDesc): an INTEGER column so
// declared is no alias of the rowid (it keeps NULL and any value), which
// the table constraint PRIMARY KEY (i) would make it.
func descKey(d engine.Dialect, t *Table, i int) bool {
	return d == engine.SQLite && t.PKDesc && len(t.PK) == 1 && t.PK[0] == i
}

// sqliteCollation returns the SQLite collation a column's declared
// collation names, when it is one of SQLite's own (BINARY, NOCASE,
// RTRIM), else "" (a collation SQLite does not have is not declared).
func sqliteCollation(name string) string {
	switch n := strings.ToUpper(name); n {
	case "BINARY", "NOCASE", "RTRIM":
		return n
	}
	return ""
}

// TableIdent is t's name quoted for dialect d (Ident), qualified by its
// schema when it is not in the default one.
func TableIdent(d engine.Dialect, t *Table) string {
	if t.Schema != "" {
		return d.QuoteIdent(t.Schema) + "." + Ident(d, t.Name, t.Unquoted)
	}
	return Ident(d, t.Name, t.Unquoted)
}

func colNames(d engine.Dialect, t *Table, cols []int) string {
	names := make([]string, len(cols))
	for i, k := range cols {
		names[i] = Ident(d, t.Columns[k].Name, t.Columns[k].Unquoted)
	}
	return strings.Join(names, ", ")
}

// Ident quotes a table or column name for dialect d as the DDL meant it:
// a name written without quotes is folded to lower case on PostgreSQL (as
// PostgreSQL folds it, so that the queries' unquoted names find it), and
// kept as written elsewhere; quoting keeps keywords usable as names.
func Ident(d engine.Dialect, name string, unquoted bool) string {
	if unquoted && d == engine.Postgres {
		name = strings.ToLower(name)
	}
	return d.QuoteIdent(name)
}

// ValueText is v as the text a SQL literal or a text-format parameter of
// dialect d spells it (a number, TRUE/FALSE or a string's characters),
// and whether it is quoted as a string in a literal; ok is false for
// NULL (and a float that is not finite, written as NULL).
func ValueText(d engine.Dialect, v result.Value) (text string, quoted, ok bool) {
	switch v.K {
	case result.Null:
		return "", false, false
	case result.Int:
		return strconv.FormatInt(v.I, 10), false, true
	case result.Bool:
		if d == engine.SQLite {
			return strconv.FormatInt(v.I, 10), false, true
		}
		if v.I != 0 {
			return "TRUE", false, true
		}
		return "FALSE", false, true
	case result.Float:
		if math.IsInf(v.F, 0) || math.IsNaN(v.F) {
			return "", false, false
		}
		s := strconv.FormatFloat(v.F, 'f', -1, 64)
		if !strings.Contains(s, ".") {
			s += ".0"
		}
		return s, false, true
	}
	return v.S, true, true
}

// Literal writes v as a SQL literal of dialect d. A string is quoted with
// its quotes doubled; on PostgreSQL a string holding a backslash is an
// E'…' string with the backslash doubled, and on MySQL the backslash is
// doubled, so that the literal reads the same whatever the session's
// standard_conforming_strings (or sql_mode's NO_BACKSLASH_ESCAPES: only
// the value would change, never where the literal ends).
func Literal(d engine.Dialect, v result.Value) string {
	s, quoted, ok := ValueText(d, v)
	switch {
	case !ok:
		return "NULL"
	case !quoted:
		return s
	}
	s = strings.ReplaceAll(s, "'", "''")
	switch {
	case d == engine.MySQL:
		s = strings.ReplaceAll(s, `\`, `\\`)
	case d == engine.Postgres && strings.Contains(s, `\`):
		return "E'" + strings.ReplaceAll(s, `\`, `\\`) + "'"
	}
	return "'" + s + "'"
}

// InsertStatements returns one INSERT per row of rows (by table index of
// db, each row one value per column), tables in order, values as
// literals (Literal).
func (db *Database) InsertStatements(d engine.Dialect, rows [][][]result.Value) []string {
	var out []string
	for ti, t := range db.Tables {
		for _, row := range rows[ti] {
			vals := make([]string, len(row))
			for i, v := range row {
				vals[i] = Literal(d, v)
			}
			out = append(out, fmt.Sprintf("INSERT INTO %s VALUES (%s)", TableIdent(d, t), strings.Join(vals, ", ")))
		}
	}
	return out
}

// Script returns db with rows (see InsertStatements) as SQL the engine of
// dialect d runs as it is: the CREATE TABLE statements, then one INSERT
// per row, each statement ended by ";\n" (ScriptStatements, joined).
func (db *Database) Script(d engine.Dialect, rows [][][]result.Value) string {
	var b strings.Builder
	for _, st := range db.ScriptStatements(d, rows) {
		b.WriteString(st)
		b.WriteString(";\n")
	}
	return b.String()
}

// ScriptStatements are the statements of Script, one a string.
func (db *Database) ScriptStatements(d engine.Dialect, rows [][][]result.Value) []string {
	return append(db.CreateStatements(d), db.InsertStatements(d, rows)...)
}

// abbreviateSQL cuts s to 60 bytes for a message.
func abbreviateSQL(s string) string {
	if len(s) > 60 {
		return s[:60] + "…"
	}
	return s
}
