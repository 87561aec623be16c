package check

import (
	"fmt"
	"slices"
	"strings"
)

// Family is the value domain of a column as the kernel models it: the
// storage classes its values have and how the engine compares them.
// Int, Real, Numeric and Text are modelled; every comparison involving
// Other is an uninterpreted predicate of its arguments (sound, and never
// used to prove more than "the same expression on the same values, of
// columns of the same affinity and collation, gives the same answer").
// A family is a fact about the values a database holds (SQLite stores
// what it is given in a column of any affinity when it cannot convert
// it), listed in every certificate that relies on it.
type Family uint8

// The families.
const (
	// Other: a column whose values the kernel does not model (a date,
	// a boolean, a column without a declared type or of BLOB affinity on
	// SQLite, which keeps whatever storage class it is given, a text
	// column with a collation other than BINARY, PostgreSQL's CHAR(n),
	// numeric and floating types, ...).
	Other Family = iota
	// Int: whole numbers, stored as integers (SQLite: INTEGER affinity;
	// PostgreSQL: an integer type), compared as integers.
	Int
	// Real: numbers stored as floating point values (SQLite: REAL
	// affinity, which stores 5 as 5.0), compared as numbers.
	Real
	// Text: strings compared byte by byte (SQLite: TEXT affinity and the
	// BINARY collation; PostgreSQL: text or varchar under a
	// deterministic collation).
	Text
	// Numeric: numbers in a column of SQLite's NUMERIC affinity, which
	// stores one that is a whole number as an integer (5) and any other
	// as a floating point value (5.5): its value decides its storage
	// class. Compared as numbers.
	Numeric
)

// String names the family as certificates spell it.
func (f Family) String() string {
	switch f {
	case Int:
		return "int"
	case Real:
		return "real"
	case Text:
		return "text"
	case Numeric:
		return "numeric"
	}
	return "other"
}

// numeric reports whether the family's values are numbers.
func (f Family) numeric() bool { return f == Int || f == Real || f == Numeric }

// Affinity is SQLite's type affinity (https://sqlite.org/datatype3.html,
// sections 3 and 4.2): a column's comes from its declared type; an
// expression has one only when it is a column, a CAST, or a scalar
// subquery of one (a literal, +x, a function's or an aggregate's result
// have none). It decides the conversions before a comparison.
type Affinity uint8

// The affinities, in SQLite's order (sqlite3CompareAffinity compares
// them: NONE < BLOB < TEXT < NUMERIC < INTEGER < REAL).
const (
	AffinityNone Affinity = iota
	AffinityBlob
	AffinityText
	AffinityNumeric
	AffinityInteger
	AffinityReal
)

// String names the affinity as SQLite's documentation does.
func (a Affinity) String() string {
	return [...]string{"none", "blob", "text", "numeric", "integer", "real"}[a]
}

// numeric reports whether a is NUMERIC, INTEGER or REAL.
func (a Affinity) numeric() bool { return a >= AffinityNumeric }

// AffinityOf returns the affinity SQLite gives a declared type, by the
// rules of datatype3.html section 3.1 in order: INT gives INTEGER; CHAR,
// CLOB or TEXT give TEXT; BLOB or no type give BLOB; REAL, FLOA or DOUB
// give REAL; anything else NUMERIC.
func AffinityOf(decl string) Affinity {
	t := strings.ToUpper(decl)
	switch {
	case strings.Contains(t, "INT"):
		return AffinityInteger
	case strings.Contains(t, "CHAR") || strings.Contains(t, "CLOB") || strings.Contains(t, "TEXT"):
		return AffinityText
	case strings.TrimSpace(t) == "" || strings.Contains(t, "BLOB"):
		return AffinityBlob
	case strings.Contains(t, "REAL") || strings.Contains(t, "FLOA") || strings.Contains(t, "DOUB"):
		return AffinityReal
	}
	return AffinityNumeric
}

// Dialect is the engine whose semantics a proof is about.
type Dialect string

// The dialects the kernel models.
const (
	SQLite   Dialect = "sqlite"
	Postgres Dialect = "postgres"
)

// Column is a column of a Table.
type Column struct {
	// Name as the engine stores it (SQLite compares names
	// case-insensitively; PostgreSQL exactly, after folding an unquoted
	// name to lower case).
	Name string
	// Family of its values.
	Family Family
	// NotNull: the column never holds NULL in a database satisfying the
	// schema.
	NotNull bool
	// Affinity is SQLite's affinity of its declared type (AffinityOf);
	// AffinityNone leaves it to the family (Int: INTEGER, Real: REAL,
	// Numeric: NUMERIC, Text: TEXT, Other: BLOB). Not read on PostgreSQL.
	Affinity Affinity
	// Collation is the collation its declaration names, in lower case
	// ("nocase", "rtrim", "c"); "" for none (SQLite: BINARY; PostgreSQL:
	// the database's default, taken as deterministic).
	Collation string
	// Bool: on PostgreSQL, the column's type is boolean (the only
	// column PostgreSQL takes as a condition by itself: WHERE c).
	Bool bool
	// Class is the column's type on PostgreSQL as TypeRisk compares it
	// (ClassNone on SQLite and for a type it does not class).
	Class TypeClass
	// Type is the column's base type on PostgreSQL ("integer",
	// "timestamp", "double precision", "character varying", …, without
	// modifiers; "?" and the declared type in lower case for a type the
	// prover does not name), "" on SQLite. A FROM subquery's UNION ALL
	// converts every branch's values to the type PostgreSQL resolves for
	// the column (a DATE to the midnight of a TIMESTAMP, a REAL to a
	// DOUBLE PRECISION), so a condition TRUE of a branch's value may be
	// FALSE of what the subquery shows: opaqueTable reads a column as a
	// schema column only where every branch gives one Type.
	Type string
	// Temporal is the shape of the texts the search writes in a date or
	// timestamp column (TemporalNone for any other). Only ConditionCover
	// reads it; the prover does not.
	Temporal Temporal
}

// Temporal is the shape of a date column's texts as the search writes
// them on SQLite: TemporalDate 'YYYY-MM-DD', TemporalTimestamp
// 'YYYY-MM-DD HH:MM:SS'.
type Temporal uint8

// The shapes of Column.Temporal.
const (
	TemporalNone Temporal = iota
	TemporalDate
	TemporalTimestamp
)

// family is the column's family as the kernel reads it on dialect d: its
// Family when its affinity and collation are those the family says
// (Int: INTEGER affinity, Real: REAL, Numeric: NUMERIC, Text: TEXT, each
// with the BINARY collation on SQLite; on PostgreSQL Int and Text without
// a collation of their own), else Other.
func (c Column) family(d Dialect) Family {
	if !c.binary(d) {
		return Other
	}
	if d != SQLite {
		if c.Family == Int || c.Family == Text {
			return c.Family
		}
		return Other
	}
	if c.Family != Other && familyAffinity[c.Family] == c.affinity() {
		return c.Family
	}
	return Other
}

// familyAffinity is the affinity of each family's columns on SQLite.
var familyAffinity = map[Family]Affinity{Int: AffinityInteger, Real: AffinityReal, Numeric: AffinityNumeric, Text: AffinityText, Other: AffinityBlob}

// affinity is the column's affinity on SQLite: Affinity, or its family's
// when none is given.
func (c Column) affinity() Affinity {
	if c.Affinity != AffinityNone {
		return c.Affinity
	}
	return familyAffinity[c.Family]
}

// tieSafe reports whether two values of the column that the engine takes
// for equal (in GROUP BY, DISTINCT, a set operation, ORDER BY ties or a
// UNIQUE constraint) are the same value: on SQLite, a column of any
// affinity but BLOB (which keeps both 5 and 5.0) under the BINARY
// collation; on PostgreSQL, a column of family Int or Text.
func (c Column) tieSafe(d Dialect) bool {
	if d == SQLite {
		return c.affinity() != AffinityBlob && c.binary(d)
	}
	return c.family(d) != Other
}

// binary reports whether the column compares under the engine's default
// collation: none declared, or BINARY on SQLite.
func (c Column) binary(d Dialect) bool {
	return c.Collation == "" || d == SQLite && equalFold(c.Collation, "binary")
}

// Key is a set of columns (by index) no two rows of a table share: a
// PRIMARY KEY or a UNIQUE constraint. Rows with a NULL in a UNIQUE set
// may repeat it, so a fact built on a key also needs its columns NOT NULL.
type Key struct {
	Cols    []int
	Primary bool
	// Groups: the key of a FROM subquery read as a table by
	// distinct_intro (its GROUP BY outputs, its DISTINCT outputs, or none
	// for one row): no two rows share its values under the columns' own
	// comparison, NULL included, so it needs no NOT NULL, and it is no
	// fact of the schema (the rule re-reads it from the subquery).
	Groups bool
}

// ForeignKey is a reference from columns of a table to columns of
// RefTable (by index): every row whose Cols are all non-NULL matches a row
// of RefTable on RefCols.
type ForeignKey struct {
	Cols     []int
	RefTable string
	RefCols  []int
}

// Table is a table of a Schema.
type Table struct {
	Name    string
	Columns []Column
	Keys    []Key
	FKs     []ForeignKey
}

// Col returns the index of the column named name (ASCII
// case-insensitive), or -1.
func (t *Table) Col(name string) int {
	for i, c := range t.Columns {
		if equalFold(c.Name, name) {
			return i
		}
	}
	return -1
}

// Schema is the database schema a proof is about, as the prover and the
// kernel see it: the tables of a name and the dialect. Package equiv
// adapts its own schema model to it.
type Schema interface {
	// Dialect is the engine whose semantics the queries follow.
	Dialect() Dialect
	// Table returns the table named name (ASCII case-insensitive), or nil.
	Table(name string) *Table
}

// MapSchema is a Schema held in memory.
type MapSchema struct {
	D      Dialect
	Tables []*Table
}

// Dialect returns s.D.
func (s *MapSchema) Dialect() Dialect { return s.D }

// Table returns the table named name, or nil.
func (s *MapSchema) Table(name string) *Table {
	for _, t := range s.Tables {
		if equalFold(t.Name, name) {
			return t
		}
	}
	return nil
}

// equalFold compares two names as SQLite does: ASCII letters without
// case, every other character as it is.
func equalFold(a, b string) bool { return lowerASCII(a) == lowerASCII(b) }

// lowerASCII lower-cases the ASCII letters of s only.
func lowerASCII(s string) string {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c >= 'A' && c <= 'Z' {
			b := []byte(s)
			for j := i; j < len(b); j++ {
				if b[j] >= 'A' && b[j] <= 'Z' {
					b[j] += 'a' - 'A'
				}
			}
			return string(b)
		}
	}
	return s
}

// Fact kinds of a certificate: what a step or an obligation relies on,
// each re-read from the schema by Check.
const (
	FactNotNull    = "not_null"    // {table, column}: the column is NOT NULL
	FactKey        = "key"         // {table, columns}: a PRIMARY KEY or UNIQUE set
	FactForeignKey = "foreign_key" // {table, columns, ref_table, ref_columns}
	FactFamily     = "family"      // {table, column, family}: the column's value family (Family), which on SQLite includes its affinity and the BINARY collation
	// FactSumInRange {table, column}: the magnitudes of the column's
	// values (integers) sum below 2^63, so that SQLite's AVG and TOTAL add
	// them as integers, exactly, in any order. A fact about the rows,
	// which no declaration states: the schema holds it of every column of
	// family Int; a database's rows may break it (sum(abs(x)) overflows).
	FactSumInRange = "sum_in_range"
)

// Fact is a schema fact a proof relies on.
type Fact struct {
	Fact       string   `json:"fact"`
	Table      string   `json:"table"`
	Column     string   `json:"column,omitempty"`
	Columns    []string `json:"columns,omitempty"`
	RefTable   string   `json:"ref_table,omitempty"`
	RefColumns []string `json:"ref_columns,omitempty"`
	Family     string   `json:"family,omitempty"`
}

// String prints the fact as messages name it, e.g. not_null(singer.id).
func (f Fact) String() string {
	switch f.Fact {
	case FactNotNull:
		return fmt.Sprintf("not_null(%s.%s)", f.Table, f.Column)
	case FactKey:
		return fmt.Sprintf("key(%s(%s))", f.Table, strings.Join(f.Columns, ", "))
	case FactForeignKey:
		return fmt.Sprintf("foreign_key(%s(%s) -> %s(%s))", f.Table, strings.Join(f.Columns, ", "), f.RefTable, strings.Join(f.RefColumns, ", "))
	case FactFamily:
		return fmt.Sprintf("family(%s.%s = %s)", f.Table, f.Column, f.Family)
	case FactSumInRange:
		return fmt.Sprintf("sum_in_range(%s.%s)", f.Table, f.Column)
	}
	return fmt.Sprintf("%s(%s)", f.Fact, f.Table)
}

// key is the fact's identity (names compared without ASCII case).
func (f Fact) key() string { return lowerASCII(f.String()) }

// Holds reports whether the fact is true of s, with the reason when not.
func (f Fact) Holds(s Schema) error {
	t := s.Table(f.Table)
	if t == nil {
		return fmt.Errorf("%s: no table %s in the schema", f, f.Table)
	}
	cols := func(names []string) ([]int, error) {
		var out []int
		for _, n := range names {
			i := t.Col(n)
			if i < 0 {
				return nil, fmt.Errorf("%s: no column %s in %s", f, n, t.Name)
			}
			out = append(out, i)
		}
		return out, nil
	}
	switch f.Fact {
	case FactNotNull, FactFamily, FactSumInRange:
		i := t.Col(f.Column)
		switch {
		case i < 0:
			return fmt.Errorf("%s: no column %s in %s", f, f.Column, t.Name)
		case f.Fact == FactSumInRange && t.Columns[i].family(s.Dialect()) != Int:
			return fmt.Errorf("%s does not hold: the column is %s, not int", f, t.Columns[i].family(s.Dialect()))
		case f.Fact == FactNotNull && !t.Columns[i].NotNull:
			return fmt.Errorf("%s does not hold: %s.%s may be NULL", f, t.Name, t.Columns[i].Name)
		case f.Fact == FactFamily && t.Columns[i].family(s.Dialect()).String() != f.Family:
			return fmt.Errorf("%s does not hold: the column is %s", f, t.Columns[i].family(s.Dialect()))
		}
		return nil
	case FactKey:
		want, err := cols(f.Columns)
		if err != nil {
			return err
		}
		for _, k := range t.Keys {
			if sameSet(k.Cols, want) {
				return nil
			}
		}
		return fmt.Errorf("%s does not hold: no PRIMARY KEY or UNIQUE on exactly these columns", f)
	case FactForeignKey:
		from, err := cols(f.Columns)
		if err != nil {
			return err
		}
		ref := s.Table(f.RefTable)
		if ref == nil {
			return fmt.Errorf("%s: no table %s", f, f.RefTable)
		}
		for _, fk := range t.FKs {
			if !equalFold(fk.RefTable, ref.Name) || !slices.Equal(fk.Cols, from) || len(fk.RefCols) != len(f.RefColumns) {
				continue
			}
			ok := true
			for i, c := range fk.RefCols {
				ok = ok && equalFold(ref.Columns[c].Name, f.RefColumns[i])
			}
			if ok {
				return nil
			}
		}
		return fmt.Errorf("%s does not hold: no such foreign key", f)
	}
	return fmt.Errorf("unknown fact kind %q", f.Fact)
}

func sameSet(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	for _, x := range a {
		if !slices.Contains(b, x) {
			return false
		}
	}
	return true
}

// factSet collects facts without repeats, in the order first added.
type factSet struct {
	list []Fact
	seen map[string]bool
}

func (s *factSet) add(f Fact) {
	if s.seen == nil {
		s.seen = map[string]bool{}
	}
	if k := f.key(); !s.seen[k] {
		s.seen[k] = true
		s.list = append(s.list, f)
	}
}

func (s *factSet) addAll(fs []Fact) {
	for _, f := range fs {
		s.add(f)
	}
}

// sameFacts reports whether two fact lists hold the same facts.
func sameFacts(a, b []Fact) bool {
	var x, y factSet
	x.addAll(a)
	y.addAll(b)
	if len(x.list) != len(y.list) {
		return false
	}
	for k := range x.seen {
		if !y.seen[k] {
			return false
		}
	}
	return true
}
