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

// typeArgs returns the "(…)" of a declared type, or "".
func typeArgs(t string) string {
	if i := strings.IndexByte(t, '('); i >= 0 {
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
			parts = append(parts, "CHECK "+c)
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

// literal writes v as a SQL literal of dialect d.
func literal(d engine.Dialect, v result.Value) string {
	switch v.K {
	case result.Null:
		return "NULL"
	case result.Int:
		return strconv.FormatInt(v.I, 10)
	case result.Bool:
		if d == engine.SQLite {
			return strconv.FormatInt(v.I, 10)
		}
		if v.I != 0 {
			return "TRUE"
		}
		return "FALSE"
	case result.Float:
		if math.IsInf(v.F, 0) || math.IsNaN(v.F) {
			return "NULL"
		}
		s := strconv.FormatFloat(v.F, 'f', -1, 64)
		if !strings.Contains(s, ".") {
			s += ".0"
		}
		return s
	}
	s := strings.ReplaceAll(v.S, "'", "''")
	if d == engine.MySQL {
		s = strings.ReplaceAll(s, `\`, `\\`)
	}
	return "'" + s + "'"
}

// insertStatements returns one INSERT per row of db, tables in order.
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
// ended by ";\n".
func (s *Schema) Script(d engine.Dialect, db Data) string {
	var b strings.Builder
	for _, st := range append(s.CreateStatements(d), s.insertStatements(d, db)...) {
		b.WriteString(st)
		b.WriteString(";\n")
	}
	return b.String()
}
