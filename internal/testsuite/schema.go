package testsuite

import (
	"context"
	"fmt"
	"slices"

	"github.com/sqljudge/sqljudge/internal/catalog"
	"github.com/sqljudge/sqljudge/internal/engine/sqlite"
	"github.com/sqljudge/sqljudge/internal/schema"
)

// maxSample bounds the distinct values read per column.
const maxSample = 200

// inspect reads the schema and a sample of the values (maxSample a
// column) of the SQLite database at path through the read-only engine
// (catalog.Read), its tables ordered so that a referenced table comes
// before the tables that reference it.
func inspect(ctx context.Context, eng *sqlite.Engine, path string) (*catalog.Database, error) {
	db, err := catalog.Read(ctx, eng, path, catalog.Options{Samples: maxSample})
	if err != nil {
		return nil, fmt.Errorf("inspect %s: %w", path, err)
	}
	db.OrderByReferences()
	return db, nil
}

// addForeignKeys adds to db the foreign keys of a Spider schema entry
// (tables.json) that the database's DDL does not declare, one column
// each, and reorders the tables by them. Spider's tables.json lists
// foreign keys some databases leave undeclared; a column that already
// belongs to a foreign key keeps it.
func addForeignKeys(db *catalog.Database, s *schema.Database) {
	if s == nil {
		return
	}
	for _, fk := range s.ForeignKeys {
		if fk[0] <= 0 || fk[0] >= len(s.Columns) || fk[1] <= 0 || fk[1] >= len(s.Columns) {
			continue
		}
		cc, pc := s.Columns[fk[0]], s.Columns[fk[1]]
		if cc.Table < 0 || cc.Table >= len(s.TablesOriginal) || pc.Table < 0 || pc.Table >= len(s.TablesOriginal) {
			continue
		}
		child, parent := db.Table(s.TablesOriginal[cc.Table]), db.Table(s.TablesOriginal[pc.Table])
		if child == nil || parent == nil || child == parent {
			continue
		}
		c, p := child.Col(cc.Original), parent.Col(pc.Original)
		if c < 0 || p < 0 || slices.ContainsFunc(child.FKs, func(f catalog.ForeignKey) bool { return slices.Contains(f.Cols, c) }) {
			continue
		}
		child.FKs = append(child.FKs, catalog.ForeignKey{Cols: []int{c}, RefSchema: parent.Schema, RefTable: parent.Name, RefCols: []int{p}})
	}
	db.OrderByReferences()
}

// affinity is how the fuzzer treats a column's values: booleans and
// dates by their family (catalog.Family), every other column by SQLite's
// affinity of its declared type (catalog.SQLiteAffinity), since the
// fuzzer writes SQLite files.
type affinity uint8

const (
	affText affinity = iota
	affInteger
	affReal
	affNumeric
	affBlob
	affDate
	affBool
)

// affinityOf returns c's affinity for the fuzzer.
func affinityOf(c *catalog.Column) affinity {
	switch {
	case c.Family == catalog.Boolean:
		return affBool
	case c.Family.Temporal():
		return affDate
	}
	switch catalog.SQLiteAffinity(c.Type) {
	case catalog.AffinityInteger:
		return affInteger
	case catalog.AffinityText:
		return affText
	case catalog.AffinityBlob:
		return affBlob
	case catalog.AffinityReal:
		return affReal
	}
	return affNumeric
}
