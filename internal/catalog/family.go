package catalog

import "strings"

// Family is the family of a column's declared type: the one type system
// of sqljudge's schemas. It decides the values equiv and the test-suite
// fuzzer draw for a column, how they coerce a value to it, and the type
// DeclType declares the column with on each engine.
type Family uint8

// The families, by the type names SQLite, PostgreSQL, MySQL/MariaDB and
// DuckDB share (FamilyOf).
const (
	Text      Family = iota // CHAR, VARCHAR, TEXT, CLOB, STRING, UUID, ENUM, and any type no rule names
	Integer                 // INT, INTEGER, BIGINT, SMALLINT, SERIAL, ...
	Real                    // REAL, FLOAT, DOUBLE
	Decimal                 // DECIMAL, NUMERIC, NUMBER, MONEY
	Date                    // DATE
	Timestamp               // TIMESTAMP, DATETIME
	Time                    // TIME
	Boolean                 // BOOL, BOOLEAN, BIT
	Blob                    // BLOB, BYTEA, BINARY
)

// String returns the family's name in lower case ("text", "integer", ...).
func (f Family) String() string {
	names := [...]string{"text", "integer", "real", "decimal", "date", "timestamp", "time", "boolean", "blob"}
	if int(f) < len(names) {
		return names[f]
	}
	return "unknown"
}

// Temporal reports whether f is Date, Timestamp or Time.
func (f Family) Temporal() bool { return f == Date || f == Timestamp || f == Time }

// FamilyOf returns the family of a declared type, by substrings of its
// upper-cased name tried in this order: BOOL (or the whole name BIT);
// TIMESTAMP or DATETIME; DATE; a name starting with TIME; INT or SERIAL;
// CHAR, TEXT, CLOB, STRING, UUID or ENUM; BLOB, BYTEA or BINARY; REAL,
// FLOA or DOUB; DEC, NUMERIC, NUMBER or MONEY; anything else (the empty
// type included) is Text.
func FamilyOf(decl string) Family {
	t := strings.ToUpper(strings.TrimSpace(decl))
	switch {
	case strings.Contains(t, "BOOL") || t == "BIT":
		return Boolean
	case strings.Contains(t, "TIMESTAMP") || strings.Contains(t, "DATETIME"):
		return Timestamp
	case strings.Contains(t, "DATE"):
		return Date
	case strings.HasPrefix(t, "TIME"):
		return Time
	case strings.Contains(t, "INT") || strings.Contains(t, "SERIAL"):
		return Integer
	case strings.Contains(t, "CHAR") || strings.Contains(t, "TEXT") || strings.Contains(t, "CLOB") || strings.Contains(t, "STRING") || strings.Contains(t, "UUID") || strings.Contains(t, "ENUM"):
		return Text
	case strings.Contains(t, "BLOB") || strings.Contains(t, "BYTEA") || strings.Contains(t, "BINARY"):
		return Blob
	case strings.Contains(t, "REAL") || strings.Contains(t, "FLOA") || strings.Contains(t, "DOUB"):
		return Real
	case strings.Contains(t, "DEC") || strings.Contains(t, "NUMERIC") || strings.Contains(t, "NUMBER") || strings.Contains(t, "MONEY"):
		return Decimal
	}
	return Text
}

// Affinity is SQLite's type affinity of a declared type
// (https://sqlite.org/datatype3.html, section 3.1): how SQLite stores a
// value written into a column of that type. It is not a second family of
// types but SQLite's storage rule, which the test-suite fuzzer follows
// because it writes SQLite files.
type Affinity uint8

// SQLite's five affinities.
const (
	AffinityText Affinity = iota
	AffinityNumeric
	AffinityInteger
	AffinityReal
	AffinityBlob
)

// SQLiteAffinity returns the affinity SQLite gives a declared type, by
// the rules of section 3.1 in order: INT gives INTEGER; CHAR, CLOB or
// TEXT give TEXT; BLOB or no type give BLOB; REAL, FLOA or DOUB give
// REAL; anything else NUMERIC.
func SQLiteAffinity(decl string) Affinity {
	t := strings.ToUpper(decl)
	switch {
	case strings.Contains(t, "INT"):
		return AffinityInteger
	case strings.Contains(t, "CHAR") || strings.Contains(t, "CLOB") || strings.Contains(t, "TEXT"):
		return AffinityText
	case t == "" || strings.Contains(t, "BLOB"):
		return AffinityBlob
	case strings.Contains(t, "REAL") || strings.Contains(t, "FLOA") || strings.Contains(t, "DOUB"):
		return AffinityReal
	}
	return AffinityNumeric
}

// LenOf returns the n of a "…(n)" or "…(n, m)" type, or 0 (see
// TypeArgs).
func LenOf(typ string) int {
	a := TypeArgs(typ)
	n := 0
	for _, r := range strings.TrimPrefix(a, "(") {
		if r < '0' || r > '9' {
			break
		}
		n = n*10 + int(r-'0')
	}
	return n
}
