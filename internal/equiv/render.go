package equiv

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

// typeArgsRe is what a declared type's arguments may be: one or two
// integers (ParseDDL reads nothing else; a server's catalog is held to it
// too, since a type is printed again into the sandbox's DDL).
var typeArgsRe = regexp.MustCompile(`^\(\d{1,9}(, ?\d{1,9})?\)$`)

// typeArgs returns the "(…)" of a declared type, or "" when it has none
// or when they are not one or two integers.
func typeArgs(t string) string {
	if i := strings.IndexByte(t, '('); i >= 0 && typeArgsRe.MatchString(t[i:]) {
		return t[i:]
	}
	return ""
}

// declType returns the type column c is declared with on dialect d: its
// own type on SQLite when SQLite reads it (SERIAL becomes INTEGER), else
// the dialect's type of its kind, keeping lengths and precisions.
func declType(d engine.Dialect, c Column) string {
	t := c.Type
	if d == engine.SQLite {
		if strings.Contains(t, "SERIAL") {
			return "INTEGER"
		}
		if simpleType.MatchString(t) && !strings.Contains(t, " WITH") {
			return t
		}
	}
	big := strings.Contains(t, "BIG")
	small := strings.Contains(t, "SMALL") || strings.Contains(t, "TINY")
	args := typeArgs(t)
	switch c.Kind {
	case KInt:
		switch {
		case big:
			return "BIGINT"
		case small:
			return "SMALLINT"
		}
		return "INTEGER"
	case KReal:
		if d == engine.Postgres && (t == "REAL" || t == "FLOAT4") {
			return "REAL"
		}
		if d == engine.Postgres || d == engine.SQLite {
			return "DOUBLE PRECISION"
		}
		return "DOUBLE"
	case KDecimal:
		if args == "" && d == engine.MySQL {
			args = "(20, 6)"
		}
		return "DECIMAL" + args
	case KDate:
		return "DATE"
	case KTimestamp:
		if d == engine.MySQL {
			return "DATETIME"
		}
		return "TIMESTAMP"
	case KTime:
		return "TIME"
	case KBool:
		return "BOOLEAN"
	case KBlob:
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

// CreateStatements returns the CREATE TABLE statements of s on dialect d,
// in table order, with every PRIMARY KEY, UNIQUE and NOT NULL; a FOREIGN
// KEY is declared when it references a key of a table created before it
// (the engines refuse a reference to a non-key, and a cycle of references
// cannot be created table by table); the search keeps the others alone.
func (s *Schema) CreateStatements(d engine.Dialect) []string {
	out := make([]string, 0, len(s.Tables))
	for ti, t := range s.Tables {
		var parts []string
		for _, c := range t.Columns {
			p := ident(d, c.Name, c.Unquoted) + " " + declType(d, c)
			if c.NotNull {
				p += " NOT NULL"
			}
			parts = append(parts, p)
		}
		if len(t.PK) > 0 {
			parts = append(parts, "PRIMARY KEY ("+colNames(d, t, t.PK)+")")
		}
		for _, u := range t.Uniques {
			parts = append(parts, "UNIQUE ("+colNames(d, t, u)+")")
		}
		for _, fk := range t.FKs {
			p := s.Table(fk.RefTable)
			if p == nil || !p.isKey(fk.RefCols) || s.index(p.Name) > ti {
				continue // a cycle's back edge: the search keeps it alone
			}
			parts = append(parts, fmt.Sprintf("FOREIGN KEY (%s) REFERENCES %s (%s)", colNames(d, t, fk.Cols), ident(d, p.Name, p.Unquoted), colNames(d, p, fk.RefCols)))
		}
		for _, c := range t.Checks {
			parts = append(parts, "CHECK "+c.SQL(d, t))
		}
		out = append(out, fmt.Sprintf("CREATE TABLE %s (%s)", ident(d, t.Name, t.Unquoted), strings.Join(parts, ", ")))
	}
	return out
}

func colNames(d engine.Dialect, t *Table, cols []int) string {
	names := make([]string, len(cols))
	for i, k := range cols {
		names[i] = ident(d, t.Columns[k].Name, t.Columns[k].Unquoted)
	}
	return strings.Join(names, ", ")
}

// ident quotes a table or column name for dialect d as the DDL meant it:
// a name written without quotes is folded to lower case on PostgreSQL (as
// PostgreSQL folds it, so that the queries' unquoted names find it), and
// kept as written elsewhere; quoting keeps keywords usable as names.
func ident(d engine.Dialect, name string, unquoted bool) string {
	if unquoted && d == engine.Postgres {
		name = strings.ToLower(name)
	}
	return d.QuoteIdent(name)
}

// valueText is v as the text a SQL literal or a text-format parameter of
// dialect d spells it (a number, TRUE/FALSE or a string's characters),
// and whether it is quoted as a string in a literal; ok is false for
// NULL (and a float that is not finite, written as NULL).
func valueText(d engine.Dialect, v result.Value) (text string, quoted, ok bool) {
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

// literal writes v as a SQL literal of dialect d. A string is quoted with
// its quotes doubled; on PostgreSQL a string holding a backslash is an
// E'…' string with the backslash doubled, and on MySQL the backslash is
// doubled, so that the literal reads the same whatever the session's
// standard_conforming_strings (or sql_mode's NO_BACKSLASH_ESCAPES: only
// the value would change, never where the literal ends).
func literal(d engine.Dialect, v result.Value) string {
	s, quoted, ok := valueText(d, v)
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

// argOf is v as a parameter of dialect d's database/sql driver: nil for
// NULL (and a float that is not finite), an int64, a float64, a bool (an
// int64 on SQLite, as literal writes it) or a string.
func argOf(d engine.Dialect, v result.Value) any {
	switch v.K {
	case result.Null:
		return nil
	case result.Int:
		return v.I
	case result.Bool:
		if d == engine.SQLite {
			return v.I
		}
		return v.I != 0
	case result.Float:
		if math.IsInf(v.F, 0) || math.IsNaN(v.F) {
			return nil
		}
		return v.F
	}
	return v.S
}

// insertSQL is the INSERT of one row of a table of n columns with
// parameters: $1, $2… on PostgreSQL, ? elsewhere.
func insertSQL(d engine.Dialect, table string, n int) string {
	var b strings.Builder
	b.WriteString("INSERT INTO " + table + " VALUES (")
	for i := range n {
		if i > 0 {
			b.WriteString(", ")
		}
		if d == engine.Postgres {
			b.WriteString("$" + strconv.Itoa(i+1))
		} else {
			b.WriteByte('?')
		}
	}
	b.WriteByte(')')
	return b.String()
}

// tableRows are db's rows by table, in table order, for Scratch.Load.
func (s *Schema) tableRows(d engine.Dialect, db Data) []TableRows {
	out := make([]TableRows, len(s.Tables))
	for ti, t := range s.Tables {
		out[ti] = TableRows{Name: ident(d, t.Name, t.Unquoted), Cols: len(t.Columns), Rows: db[ti]}
	}
	return out
}

// insertStatements returns one INSERT per row of db, tables in order,
// values as literals: the witness's script.
func (s *Schema) insertStatements(d engine.Dialect, db Data) []string {
	var out []string
	for ti, t := range s.Tables {
		for _, row := range db[ti] {
			vals := make([]string, len(row))
			for i, v := range row {
				vals[i] = literal(d, v)
			}
			out = append(out, fmt.Sprintf("INSERT INTO %s VALUES (%s)", ident(d, t.Name, t.Unquoted), strings.Join(vals, ", ")))
		}
	}
	return out
}

// Script returns the database db as SQL the engine of dialect d runs as it
// is: the CREATE TABLE statements, then one INSERT per row, each statement
// ended by ";\n" (ScriptStatements, joined).
func (s *Schema) Script(d engine.Dialect, db Data) string {
	var b strings.Builder
	for _, st := range s.ScriptStatements(d, db) {
		b.WriteString(st)
		b.WriteString(";\n")
	}
	return b.String()
}

// ScriptStatements are the statements of Script, one a string.
func (s *Schema) ScriptStatements(d engine.Dialect, db Data) []string {
	return append(s.CreateStatements(d), s.insertStatements(d, db)...)
}
