package equiv

import (
	"strings"

	"github.com/sqljudge/sqljudge/internal/catalog"
	"github.com/sqljudge/sqljudge/internal/engine"
	"github.com/sqljudge/sqljudge/internal/result"
)

// Data is the rows of a database, by table index of its schema; each row
// has one value per column.
type Data [][][]result.Value

// Rows returns the number of rows over all tables.
func (db Data) Rows() int {
	n := 0
	for _, t := range db {
		n += len(t)
	}
	return n
}

// clone returns a deep copy of the row lists (values are immutable).
func (db Data) clone() Data {
	out := make(Data, len(db))
	for i, t := range db {
		out[i] = make([][]result.Value, len(t))
		for j, r := range t {
			out[i][j] = append([]result.Value(nil), r...)
		}
	}
	return out
}

// keyOf returns the comparison key of a row's values at cols of table t,
// and false when one is NULL (a NULL never collides in a UNIQUE set).
// Text is compared without trailing blanks where the engine pads (padded):
// 'a' and 'a ' are one key on MySQL and in a PostgreSQL CHAR(n), two on
// SQLite.
func (s *schema) keyOf(t *catalog.Table, row []result.Value, cols []int) (string, bool) {
	var b []byte
	for _, c := range cols {
		if row[c].IsNull() {
			return "", false
		}
		v := row[c]
		if v.K == result.Text && s.padded(t.Columns[c]) {
			v = result.TextValue(strings.TrimRight(v.S, " "))
		}
		b = result.AppendKey(b, v)
	}
	return string(b), true
}

// padded reports whether the engine the search runs on compares column
// c's text without trailing blanks: every text on MySQL (PAD SPACE
// collations), a CHAR(n) on PostgreSQL, none on SQLite and DuckDB.
func (s *schema) padded(c catalog.Column) bool {
	switch s.dialect {
	case engine.MySQL:
		return true
	case engine.Postgres:
		return strings.HasPrefix(c.Type, "CHAR") && !strings.Contains(c.Type, "VARYING") || strings.HasPrefix(c.Type, "BPCHAR")
	}
	return false
}

// repair drops the rows of db that break a constraint of s, until none
// does: a NULL in a NOT NULL column, a repeated primary key or UNIQUE
// set, a foreign key whose values no parent row holds. Earlier rows are
// kept before later ones; dropping a parent row drops the rows that
// referenced it. Text keys are compared as the engine compares them
// (keyOf: without trailing blanks only where it pads). The result
// satisfies every constraint of s.
func (s *schema) repair(db Data) Data {
	db = db.clone()
	for changed := true; changed; {
		changed = false
		for ti, t := range s.Tables {
			kept := s.keepValid(t, db[ti], db)
			if len(kept) != len(db[ti]) {
				changed = true
			}
			db[ti] = kept
		}
	}
	return db
}

// keepValid returns the rows of table t that keep its constraints, given
// the rows of every table in db.
func (s *schema) keepValid(t *catalog.Table, rows [][]result.Value, db Data) [][]result.Value {
	keys := t.Keys()
	seen := make([]map[string]bool, len(keys))
	for i := range seen {
		seen[i] = map[string]bool{}
	}
	parents := make([]map[string]bool, len(t.FKs))
	for i, fk := range t.FKs {
		parents[i] = map[string]bool{}
		pi := s.refIndex(fk)
		for _, r := range db[pi] {
			if k, ok := s.keyOf(s.Tables[pi], r, fk.RefCols); ok {
				parents[i][k] = true
			}
		}
	}
	var out [][]result.Value
rows:
	for _, r := range rows {
		for i, c := range t.Columns {
			if c.NotNull && r[i].IsNull() {
				continue rows
			}
		}
		for i, fk := range t.FKs {
			if k, ok := s.keyOf(t, r, fk.Cols); ok && !parents[i][k] {
				continue rows
			}
		}
		var ks []string
		for i, cols := range keys {
			k, ok := s.keyOf(t, r, cols)
			if ok && seen[i][k] {
				continue rows
			}
			ks = append(ks, k)
		}
		for i, k := range ks {
			if k != "" {
				seen[i][k] = true
			}
		}
		out = append(out, r)
	}
	return out
}
