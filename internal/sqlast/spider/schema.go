package spider

import (
	"fmt"
	"slices"
	"strings"

	"github.com/sqljudge/sqljudge/internal/schema"
)

// Schema is what the official parser and evaluator know of one database:
// process_sql.Schema (table names to column names, lower case, and the id
// map "table.column" to "__table.column__", "table" to "__table__", "*" to
// "__all__") and the foreign-key map of
// evaluation.build_foreign_key_map. Build one with NewSchema; it is
// read-only afterwards and safe for concurrent use.
//
// The official evaluator reads tables and columns from the SQLite file
// (process_sql.get_schema); NewSchema reads them from tables.json's
// original names, which agree with the Spider databases (tables.json also
// lists sqlite_sequence for world_1, soccer_1 and store_1, a table no
// Spider query names).
type Schema struct {
	// DBID is the database's db_id.
	DBID string
	// tables lists the lower-case table names in tables.json order.
	tables []string
	// columns maps a lower-case table name to its lower-case column names.
	columns map[string][]string
	// idMap is process_sql.Schema.idMap.
	idMap map[string]string
	// fk is build_foreign_key_map: column id to the column id of the
	// smallest column index in its foreign-key group.
	fk map[string]string
}

// NewSchema builds the official schema and foreign-key map of one
// tables.json entry. It fails on a column whose table index is out of
// range or a foreign key naming a column that does not exist.
func NewSchema(db *schema.Database) (*Schema, error) {
	if db == nil {
		return nil, fmt.Errorf("spider schema: no database")
	}
	s := &Schema{DBID: db.DBID, columns: map[string][]string{}, idMap: map[string]string{"*": "__all__"}, fk: map[string]string{}}
	for _, t := range db.TablesOriginal {
		lt := pyLower(t)
		if _, dup := s.columns[lt]; !dup {
			s.tables = append(s.tables, lt)
		}
		s.columns[lt] = s.columns[lt][:0:0]
	}
	cols := make([]string, len(db.Columns)) // column id by column index, as build_foreign_key_map builds it
	for i, c := range db.Columns {
		if c.Table < 0 {
			cols[i] = "__all__"
			continue
		}
		if c.Table >= len(db.TablesOriginal) {
			return nil, fmt.Errorf("spider schema %s: column %d (%s) names table %d of %d", db.DBID, i, c.Original, c.Table, len(db.TablesOriginal))
		}
		t, col := pyLower(db.TablesOriginal[c.Table]), pyLower(c.Original)
		s.columns[t] = append(s.columns[t], col)
		s.idMap[t+"."+col] = "__" + t + "." + col + "__"
		cols[i] = "__" + t + "." + col + "__"
	}
	for _, t := range s.tables {
		s.idMap[t] = "__" + t + "__"
	}
	// build_foreign_key_map: each pair joins the first group that holds
	// either column (groups are never merged), then every column of a group
	// maps to the group's smallest column index; later groups win.
	var groups [][]int
	for _, fk := range db.ForeignKeys {
		for _, k := range fk {
			if k < 0 || k >= len(cols) {
				return nil, fmt.Errorf("spider schema %s: foreign key %v names column %d of %d", db.DBID, fk, k, len(cols))
			}
		}
		g := -1
		for i, grp := range groups {
			if slices.Contains(grp, fk[0]) || slices.Contains(grp, fk[1]) {
				g = i
				break
			}
		}
		if g < 0 {
			groups = append(groups, nil)
			g = len(groups) - 1
		}
		for _, k := range fk {
			if !slices.Contains(groups[g], k) {
				groups[g] = append(groups[g], k)
			}
		}
	}
	for _, grp := range groups {
		m := slices.Min(grp)
		for _, k := range grp {
			s.fk[cols[k]] = cols[m]
		}
	}
	return s, nil
}

// Schemas builds the official schema of every database in ss, keyed by
// db_id.
func Schemas(ss schema.Schemas) (map[string]*Schema, error) {
	out := make(map[string]*Schema, len(ss))
	for _, id := range ss.IDs() {
		s, err := NewSchema(ss[id])
		if err != nil {
			return nil, err
		}
		out[id] = s
	}
	return out, nil
}

// Tables returns the lower-case table names in tables.json order.
func (s *Schema) Tables() []string { return slices.Clone(s.tables) }

// Columns returns the lower-case column names of a lower-case table name,
// nil if there is no such table.
func (s *Schema) Columns(table string) []string { return slices.Clone(s.columns[table]) }

// ColumnID returns the official id of table.column ("__t.c__"), both lower
// case, and whether it exists.
func (s *Schema) ColumnID(table, column string) (string, bool) {
	id, ok := s.idMap[table+"."+column]
	return id, ok
}

// TableID returns the official id of a lower-case table name ("__t__").
func (s *Schema) TableID(table string) (string, bool) {
	if _, ok := s.columns[table]; !ok {
		return "", false
	}
	return s.idMap[table], true
}

// ForeignKey returns the column id a column id is canonicalised to by
// rebuild_col_unit_col (the smallest column of its foreign-key group), and
// whether it has one.
func (s *Schema) ForeignKey(col string) (string, bool) {
	k, ok := s.fk[col]
	return k, ok
}

// validColUnits is evaluation.build_valid_col_units: the ids of all
// columns of the tables (not subqueries) in FROM, as a set. The official
// code takes every id-map value with a "." whose part before the first "."
// is a FROM table's id less its trailing "__".
func (s *Schema) validColUnits(units []TableUnit) map[string]bool {
	var prefixes []string
	for _, u := range units {
		if u.SQL == nil && len(u.Table) >= 2 {
			prefixes = append(prefixes, u.Table[:len(u.Table)-2])
		}
	}
	valid := map[string]bool{}
	if len(prefixes) == 0 {
		return valid
	}
	for _, v := range s.idMap {
		if i := strings.IndexByte(v, '.'); i >= 0 && slices.Contains(prefixes, v[:i]) {
			valid[v] = true
		}
	}
	return valid
}
