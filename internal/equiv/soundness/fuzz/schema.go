package fuzz

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"

	"github.com/sqljudge/sqljudge/internal/engine"
)

// schema is a random schema: its tables, written as DDL of one dialect.
type schema struct {
	d      engine.Dialect
	tables []*table
}

// table is a table of a schema: columns, keys, foreign keys and unique
// indexes (full, partial or over an expression).
type table struct {
	d    engine.Dialect
	name string
	cols []*column
	// pk are the primary key's columns; pkForm how it is declared.
	pk     []int
	pkForm pkForm
	// uniques are UNIQUE constraints (a one-column one written on the
	// column).
	uniques [][]int
	fks     []foreignKey
	indexes []uniqueIndex
}

// pkForm is how a primary key is declared.
type pkForm uint8

const (
	pkTable       pkForm = iota // PRIMARY KEY (a, b) after the columns
	pkColumn                    // a T PRIMARY KEY on the column
	pkIntegerDesc               // a INTEGER PRIMARY KEY DESC: not SQLite's rowid alias
)

// column is a column of a table.
type column struct {
	name    string
	typ     string // declared type; "" for none (SQLite)
	notNull bool
	collate string // "", "NOCASE" or "RTRIM" (SQLite)
}

// foreignKey: cols reference refCols of ref (a key of ref).
type foreignKey struct {
	cols    []int
	ref     *table
	refCols []int
}

// uniqueIndex is CREATE UNIQUE INDEX name ON t(cols | expr) [WHERE where].
type uniqueIndex struct {
	name  string
	cols  []int
	expr  string // an expression instead of columns: "lower(b)"
	where string // a partial index's condition
}

// affinity is SQLite's type affinity (datatype3.html, section 3.1),
// computed here from the declared type by its rules, independently of
// sqljudge's own reading.
type affinity uint8

const (
	affText affinity = iota
	affNumeric
	affInteger
	affReal
	affBlob // BLOB or no declared type
)

func (a affinity) String() string {
	return [...]string{"TEXT", "NUMERIC", "INTEGER", "REAL", "BLOB"}[a]
}

// affinityOf applies SQLite's rules in order: INT, then CHAR/CLOB/TEXT,
// then BLOB or none, then REAL/FLOA/DOUB, else NUMERIC. On PostgreSQL
// the same names give the classes of values the fuzzer draws.
func affinityOf(typ string) affinity {
	t := strings.ToUpper(typ)
	switch {
	case strings.Contains(t, "INT"):
		return affInteger
	case strings.Contains(t, "CHAR") || strings.Contains(t, "CLOB") || strings.Contains(t, "TEXT"):
		return affText
	case t == "" || strings.Contains(t, "BLOB"):
		return affBlob
	case strings.Contains(t, "REAL") || strings.Contains(t, "FLOA") || strings.Contains(t, "DOUB"):
		return affReal
	}
	return affNumeric
}

func (c *column) affinity() affinity { return affinityOf(c.typ) }

// numericish reports whether c's values are numbers (INTEGER, REAL or
// NUMERIC affinity).
func (c *column) numericish() bool {
	a := c.affinity()
	return a == affInteger || a == affReal || a == affNumeric
}

// rowidAlias reports whether column i is SQLite's INTEGER PRIMARY KEY
// (an alias of the rowid: never NULL, whole numbers only).
func (t *table) rowidAlias(i int) bool {
	return len(t.pk) == 1 && t.pk[0] == i && t.pkForm == pkColumn && strings.EqualFold(t.cols[i].typ, "INTEGER")
}

// col returns the index of the column named name, or -1.
func (t *table) col(name string) int {
	for i, c := range t.cols {
		if strings.EqualFold(c.name, name) {
			return i
		}
	}
	return -1
}

// keys lists the full keys of t: the primary key and the UNIQUE sets (not
// the unique indexes, partial or over expressions).
func (t *table) keys() [][]int {
	var out [][]int
	if len(t.pk) > 0 {
		out = append(out, t.pk)
	}
	return append(out, t.uniques...)
}

// ddl returns the schema's statements in the dialect: CREATE TABLE for
// each table (referenced tables first), then its unique indexes.
func (s *schema) ddl() []string {
	var out []string
	for _, t := range s.tables {
		out = append(out, s.createTable(t))
		for _, ix := range t.indexes {
			out = append(out, s.createIndex(t, ix))
		}
	}
	return out
}

// script is the DDL as one text, one statement a line.
func (s *schema) script() string { return strings.Join(s.ddl(), ";\n") + ";" }

func (s *schema) createTable(t *table) string {
	var parts []string
	for i, c := range t.cols {
		p := ident(c.name)
		if c.typ != "" {
			p += " " + c.typ
		}
		if len(t.pk) == 1 && t.pk[0] == i && t.pkForm != pkTable {
			p += " PRIMARY KEY"
			if t.pkForm == pkIntegerDesc {
				p += " DESC"
			}
		}
		if c.notNull {
			p += " NOT NULL"
		}
		if c.collate != "" {
			p += " COLLATE " + c.collate
		}
		for _, u := range t.uniques {
			if len(u) == 1 && u[0] == i {
				p += " UNIQUE"
			}
		}
		parts = append(parts, p)
	}
	names := func(cols []int, of *table) string {
		var ns []string
		for _, i := range cols {
			ns = append(ns, ident(of.cols[i].name))
		}
		return strings.Join(ns, ", ")
	}
	if len(t.pk) > 0 && (t.pkForm == pkTable || len(t.pk) > 1) {
		parts = append(parts, "PRIMARY KEY ("+names(t.pk, t)+")")
	}
	for _, u := range t.uniques {
		if len(u) > 1 {
			parts = append(parts, "UNIQUE ("+names(u, t)+")")
		}
	}
	for _, fk := range t.fks {
		parts = append(parts, fmt.Sprintf("FOREIGN KEY (%s) REFERENCES %s (%s)", names(fk.cols, t), ident(fk.ref.name), names(fk.refCols, fk.ref)))
	}
	return "CREATE TABLE " + ident(t.name) + " (" + strings.Join(parts, ", ") + ")"
}

func (s *schema) createIndex(t *table, ix uniqueIndex) string {
	on := ix.expr
	if on == "" {
		var ns []string
		for _, i := range ix.cols {
			ns = append(ns, ident(t.cols[i].name))
		}
		on = strings.Join(ns, ", ")
	}
	st := "CREATE UNIQUE INDEX " + ident(ix.name) + " ON " + ident(t.name) + " (" + on + ")"
	if ix.where != "" {
		st += " WHERE " + ix.where
	}
	return st
}

// ident quotes a name unless it is a plain lower-case identifier that
// is no keyword the fuzzer uses as a name.
func ident(name string) string {
	plain := name != ""
	for i, r := range name {
		if !(r >= 'a' && r <= 'z' || r == '_' || i > 0 && r >= '0' && r <= '9') {
			plain = false
		}
	}
	if plain && !reserved[name] {
		return name
	}
	return `"` + strings.ReplaceAll(name, `"`, `""`) + `"`
}

// reserved are the names the fuzzer may pick that SQL reads as keywords.
var reserved = map[string]bool{"order": true, "group": true, "select": true, "from": true, "where": true, "values": true}

// The pools the generator draws names and types from. Column names
// repeat across tables (ambiguity, correlation, aliases that shadow a
// column); a few need quotes.
var (
	tableNames  = []string{"t", "s", "u", "w"}
	columnNames = []string{"a", "b", "c", "x", "y", "id", "k", "name", "v", "Val", "x y"}
	sqliteTypes = []weighted[string]{
		{"INTEGER", 4}, {"INT", 3}, {"BIGINT", 1}, {"REAL", 3}, {"DOUBLE", 1}, {"NUMERIC", 2}, {"DECIMAL(10,2)", 2},
		{"TEXT", 4}, {"VARCHAR(10)", 2}, {"CHAR(3)", 1}, {"BLOB", 1}, {"", 3}, {"BOOLEAN", 1}, {"DATE", 1},
	}
	postgresTypes = []weighted[string]{
		{"integer", 4}, {"int", 2}, {"bigint", 1}, {"numeric", 2}, {"numeric(10,2)", 2}, {"real", 1}, {"double precision", 1},
		{"text", 4}, {"varchar(10)", 2}, {"char(3)", 5},
	}
)

// weighted is a choice and its weight.
type weighted[T any] struct {
	v T
	w int
}

// pick draws one of the choices by weight.
func pick[T any](r *rand.Rand, ws []weighted[T]) T {
	total := 0
	for _, w := range ws {
		total += w.w
	}
	n := r.IntN(total)
	for _, w := range ws {
		if n < w.w {
			return w.v
		}
		n -= w.w
	}
	return ws[len(ws)-1].v
}

func chance(r *rand.Rand, p float64) bool { return r.Float64() < p }

func oneOf[T any](r *rand.Rand, xs ...T) T { return xs[r.IntN(len(xs))] }

// genSchema draws a schema of 1 to 3 tables on dialect d.
func genSchema(r *rand.Rand, d engine.Dialect) *schema {
	s := &schema{d: d}
	n := pick(r, []weighted[int]{{1, 2}, {2, 5}, {3, 3}})
	for i := range n {
		s.tables = append(s.tables, genTable(r, d, tableNames[i], s.tables))
	}
	return s
}

func genTable(r *rand.Rand, d engine.Dialect, name string, before []*table) *table {
	t := &table{name: name, d: d}
	ncols := 2 + r.IntN(3)
	names := slices.Clone(columnNames)
	r.Shuffle(len(names), func(i, j int) { names[i], names[j] = names[j], names[i] })
	for i := range ncols {
		c := &column{name: names[i], notNull: chance(r, 0.35)}
		if d == engine.Postgres {
			c.typ = pick(r, postgresTypes)
		} else {
			c.typ = pick(r, sqliteTypes)
			switch x := r.Float64(); {
			case x < 0.15:
				c.collate = "NOCASE"
			case x < 0.22:
				c.collate = "RTRIM"
			}
		}
		t.cols = append(t.cols, c)
	}
	if d == engine.SQLite && chance(r, 0.35) {
		// Two columns whose values compare equal across storage classes:
		// REAL stores 5 as 5.0, NUMERIC as 5; TEXT stores 5 as '5', a
		// column without a type keeps 5; a collation ties 'a' and 'A'.
		i, j := r.IntN(len(t.cols)), r.IntN(len(t.cols))
		if i != j {
			pair := oneOf(r, [2]string{"REAL", "NUMERIC"}, [2]string{"DOUBLE", "DECIMAL(10,2)"}, [2]string{"TEXT", ""}, [2]string{"VARCHAR(10)", ""}, [2]string{"TEXT", "TEXT"})
			t.cols[i].typ, t.cols[j].typ = pair[0], pair[1]
		}
	}
	genKeys(r, d, t)
	genForeignKey(r, t, before)
	genIndex(r, d, t)
	return t
}

// genKeys draws the primary key and UNIQUE sets.
func genKeys(r *rand.Rand, d engine.Dialect, t *table) {
	switch x := r.Float64(); {
	case x < 0.2 && d == engine.SQLite:
		t.cols[0].typ, t.pk, t.pkForm = "INTEGER", []int{0}, pkColumn // the rowid alias
	case x < 0.3 && d == engine.SQLite:
		t.cols[0].typ, t.pk, t.pkForm = "INTEGER", []int{0}, pkIntegerDesc
	case x < 0.5:
		t.pk, t.pkForm = []int{r.IntN(len(t.cols))}, pkColumn
	case x < 0.7:
		i := r.IntN(len(t.cols) - 1)
		t.pk, t.pkForm = []int{i, i + 1}, pkTable
	}
	if chance(r, 0.35) {
		i := r.IntN(len(t.cols))
		u := []int{i}
		if chance(r, 0.4) && i+1 < len(t.cols) {
			u = append(u, i+1)
		}
		if !slices.Equal(u, t.pk) {
			t.uniques = append(t.uniques, u)
		}
	}
}

// genForeignKey draws a foreign key to a key of an earlier table (which
// SQLite and PostgreSQL both require to be a PRIMARY KEY or UNIQUE).
func genForeignKey(r *rand.Rand, t *table, before []*table) {
	if len(before) == 0 || !chance(r, 0.55) {
		return
	}
	p := before[r.IntN(len(before))]
	keys := p.keys()
	if len(keys) == 0 {
		return
	}
	k := keys[r.IntN(len(keys))]
	if len(k) > len(t.cols) {
		return
	}
	start := r.IntN(len(t.cols) - len(k) + 1)
	fk := foreignKey{ref: p, refCols: k}
	for j := range k {
		c := start + j
		fk.cols = append(fk.cols, c)
		keep := t.rowidAlias(c) || t.pkForm == pkIntegerDesc && t.pk[0] == c
		if !keep && (chance(r, 0.7) || t.d == engine.Postgres) {
			t.cols[c].typ = p.cols[k[j]].typ // the same type as the key it references
		}
	}
	t.fks = append(t.fks, fk)
}

// genIndex draws a unique index: full, partial (WHERE) or over an
// expression.
func genIndex(r *rand.Rand, d engine.Dialect, t *table) {
	if !chance(r, 0.25) {
		return
	}
	i := r.IntN(len(t.cols))
	other := (i + 1) % len(t.cols)
	ix := uniqueIndex{name: t.name + "_ux", cols: []int{i}}
	switch x := r.Float64(); {
	case x < 0.45:
		// A partial key: a NOT NULL column most of the time, which a
		// kernel taking the index for a key would call a row's key.
		t.cols[i].notNull = t.cols[i].notNull || chance(r, 0.6)
		ix.where = ident(t.cols[other].name) + " IS NOT NULL"
		if d == engine.SQLite || t.cols[other].numericish() {
			ix.where = oneOf(r, ident(t.cols[other].name)+" > 0", ix.where)
		}
	case x < 0.6:
		ix.cols = nil
		if d == engine.SQLite {
			ix.expr = oneOf(r, "lower("+ident(t.cols[i].name)+")", ident(t.cols[i].name)+" COLLATE NOCASE", "abs("+ident(t.cols[i].name)+")")
		} else {
			ix.expr = "lower(" + ident(t.cols[i].name) + "::text)"
		}
	}
	t.indexes = append(t.indexes, ix)
}
