package equiv

import (
	"fmt"
	"strings"

	"github.com/sqljudge/sqljudge/internal/engine"
)

// Kind is the family of a column's declared type, which decides the values
// the search draws for it and the type it is declared with on each engine.
type Kind uint8

// Column kinds.
const (
	KText Kind = iota
	KInt
	KReal
	KDecimal
	KDate
	KTimestamp
	KTime
	KBool
	KBlob
)

// kindOf returns the kind of a declared type (upper case), by the
// families SQLite, PostgreSQL and MySQL share.
func kindOf(t string) Kind {
	switch {
	case strings.Contains(t, "BOOL") || t == "BIT":
		return KBool
	case strings.Contains(t, "TIMESTAMP") || strings.Contains(t, "DATETIME"):
		return KTimestamp
	case strings.Contains(t, "DATE"):
		return KDate
	case strings.HasPrefix(t, "TIME"):
		return KTime
	case strings.Contains(t, "INT") || strings.Contains(t, "SERIAL"):
		return KInt
	case strings.Contains(t, "CHAR") || strings.Contains(t, "TEXT") || strings.Contains(t, "CLOB") || strings.Contains(t, "STRING") || strings.Contains(t, "UUID") || strings.Contains(t, "ENUM"):
		return KText
	case strings.Contains(t, "BLOB") || strings.Contains(t, "BYTEA") || strings.Contains(t, "BINARY"):
		return KBlob
	case strings.Contains(t, "REAL") || strings.Contains(t, "FLOA") || strings.Contains(t, "DOUB"):
		return KReal
	case strings.Contains(t, "DEC") || strings.Contains(t, "NUMERIC") || strings.Contains(t, "NUMBER") || strings.Contains(t, "MONEY"):
		return KDecimal
	case t == "":
		return KText
	}
	return KText
}

// Column is a column of a table of a Schema.
type Column struct {
	// Name is the column's name as declared (unquoted).
	Name string
	// Type is the declared type, upper case, without its modifiers
	// (AUTO_INCREMENT, UNSIGNED), e.g. "VARCHAR(20)".
	Type string
	// Kind is the family of Type.
	Kind Kind
	// Len is the length of a CHAR(n) or VARCHAR(n), else 0.
	Len int
	// NotNull is true when the column may not hold NULL (NOT NULL, or
	// part of the primary key).
	NotNull bool
	// KeyNotNull is true when NotNull comes from the primary key alone,
	// with no NOT NULL declared: SQLite enforces it only on an INTEGER
	// PRIMARY KEY (https://sqlite.org/lang_createtable.html, "PRIMARY
	// KEY"), so the prover's SQLite model drops it there (proveSchema).
	KeyNotNull bool
	// Unquoted is true when the DDL wrote the name without quotes (so
	// PostgreSQL folds it to lower case).
	Unquoted bool
}

// ForeignKey is a reference from columns of a table to columns of
// another (or the same) table, by column index.
type ForeignKey struct {
	Cols     []int
	RefTable string
	RefCols  []int
}

// Table is a table of a Schema: its columns and constraints, columns by
// index.
type Table struct {
	Name string
	// Unquoted is true when the DDL wrote the name without quotes.
	Unquoted bool
	Columns  []Column
	// PK is the primary key (column indexes), nil if none.
	PK []int
	// Uniques are the UNIQUE constraints (and unique indexes).
	Uniques [][]int
	// FKs are the foreign keys.
	FKs []ForeignKey
	// Checks are the CHECK constraints (column and table ones), parsed
	// (ParseCheck) and printed again for each dialect (Check.SQL).
	Checks []Check
	// MinRows is the fewest rows a database of the search may give the
	// table: 1 under AssumeObserved for a table the pair's database fills,
	// else 0.
	MinRows int
}

// Schema is the tables of a pair's database with their constraints, the
// tables ordered so that a referenced table comes before the tables that
// reference it (cycles kept in declared order).
type Schema struct {
	Tables []*Table
	// Dialect is the engine the search runs on, which decides how keys
	// compare text (Schema.padded); SQLite's exact comparison when "".
	Dialect engine.Dialect
}

// Table returns the table named name (case-insensitive), or nil.
func (s *Schema) Table(name string) *Table {
	for _, t := range s.Tables {
		if strings.EqualFold(t.Name, name) {
			return t
		}
	}
	return nil
}

// col returns the index of the column named name (case-insensitive), or
// -1.
func (t *Table) col(name string) int {
	for i, c := range t.Columns {
		if strings.EqualFold(c.Name, name) {
			return i
		}
	}
	return -1
}

// keys returns the PK and the UNIQUE constraints: the column sets whose
// values no two rows may share (rows with a NULL in a UNIQUE set excepted).
func (t *Table) keys() [][]int {
	var out [][]int
	if len(t.PK) > 0 {
		out = append(out, t.PK)
	}
	return append(out, t.Uniques...)
}

// isKey reports whether cols are the PK or a UNIQUE constraint of t.
func (t *Table) isKey(cols []int) bool {
	for _, k := range t.keys() {
		if sameSet(k, cols) {
			return true
		}
	}
	return false
}

func sameSet(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	for _, x := range a {
		found := false
		for _, y := range b {
			found = found || x == y
		}
		if !found {
			return false
		}
	}
	return true
}

// orderTables sorts the tables so that a referenced table comes before its
// referencing tables, keeping the declared order otherwise.
func (s *Schema) orderTables() {
	var out []*Table
	state := map[*Table]int{}
	var visit func(t *Table)
	visit = func(t *Table) {
		if state[t] != 0 {
			return
		}
		state[t] = 1
		for _, fk := range t.FKs {
			if p := s.Table(fk.RefTable); p != nil && p != t {
				visit(p)
			}
		}
		state[t] = 2
		out = append(out, t)
	}
	for _, t := range s.Tables {
		visit(t)
	}
	s.Tables = out
}

// validate checks that every table has columns, no column is declared
// twice, and every foreign key refers to an existing table and as many
// existing columns.
func (s *Schema) validate() error {
	if len(s.Tables) == 0 {
		return fmt.Errorf("no CREATE TABLE statement")
	}
	seen := map[string]bool{}
	for _, t := range s.Tables {
		if seen[strings.ToLower(t.Name)] {
			return fmt.Errorf("table %s is declared twice", t.Name)
		}
		seen[strings.ToLower(t.Name)] = true
		if len(t.Columns) == 0 {
			return fmt.Errorf("table %s has no columns", t.Name)
		}
		cols := map[string]bool{}
		for _, c := range t.Columns {
			if cols[strings.ToLower(c.Name)] {
				return fmt.Errorf("table %s: column %s is declared twice", t.Name, c.Name)
			}
			cols[strings.ToLower(c.Name)] = true
		}
		for _, fk := range t.FKs {
			p := s.Table(fk.RefTable)
			if p == nil {
				return fmt.Errorf("table %s: foreign key references unknown table %s", t.Name, fk.RefTable)
			}
			if len(fk.RefCols) != len(fk.Cols) {
				return fmt.Errorf("table %s: foreign key to %s has %d columns for %d", t.Name, fk.RefTable, len(fk.RefCols), len(fk.Cols))
			}
		}
	}
	return nil
}
