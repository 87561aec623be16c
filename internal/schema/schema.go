// Package schema reads database schemas in Spider's tables.json format
// (Yu et al., 2018; also used by BIRD as dev_tables.json).
package schema

import (
	"encoding/json"
	"fmt"
	"os"
	"sort"

	"github.com/sqljudge/sqljudge/internal/strictjson"
)

// Column is one column of a Spider schema entry. Column 0 of every
// database is the special "*" with Table -1.
type Column struct {
	// Table is the index of the column's table in Database.Tables, -1 for
	// "*".
	Table int
	// Name is the normalised (lower-case, spaced) name; Original is the
	// name in the database.
	Name, Original string
	// Type is Spider's coarse type: text, number, time, boolean, others.
	Type string
}

// Database is one entry of tables.json.
type Database struct {
	DBID string
	// Tables and TablesOriginal are the normalised and original table
	// names, by table index.
	Tables, TablesOriginal []string
	// Columns are all columns, by column index (0 is "*").
	Columns []Column
	// PrimaryKeys are column indexes (a composite key appears as a nested
	// list in some releases; it is flattened here).
	PrimaryKeys []int
	// ForeignKeys are [child column, parent column] index pairs.
	ForeignKeys [][2]int
}

// Schemas maps db_id to its schema.
type Schemas map[string]*Database

type rawDatabase struct {
	DBID                string            `json:"db_id"`
	TableNames          []string          `json:"table_names"`
	TableNamesOriginal  []string          `json:"table_names_original"`
	ColumnNames         [][2]any          `json:"column_names"`
	ColumnNamesOriginal [][2]any          `json:"column_names_original"`
	ColumnTypes         []string          `json:"column_types"`
	PrimaryKeys         []json.RawMessage `json:"primary_keys"`
	ForeignKeys         [][2]int          `json:"foreign_keys"`
	// Query is set in a questions file (Spider's dev.json), never in a
	// tables file: it tells the one from the other in Load's error.
	Query *string `json:"query"`
}

// Load reads a tables.json file. Errors name the file and the entry; an
// entry without table_names_original and column_names_original (every
// Spider schema has at least the column "*") is an error, so that a
// questions file given as --tables is refused, not read as databases
// without tables.
func Load(path string) (Schemas, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("cannot read tables: %w", err)
	}
	data = strictjson.TrimBOM(data)
	var raws []rawDatabase
	if err := strictjson.Unmarshal(data, &raws); err != nil {
		return nil, fmt.Errorf("%s:%d: expected a JSON array of Spider schema entries: %w", path, strictjson.Line(data, err), err)
	}
	out := make(Schemas, len(raws))
	for i, r := range raws {
		if r.DBID == "" {
			return nil, fmt.Errorf("%s: entry %d has no db_id", path, i)
		}
		if len(r.ColumnNames) != len(r.ColumnNamesOriginal) || len(r.ColumnNames) != len(r.ColumnTypes) {
			return nil, fmt.Errorf("%s: %s: column_names, column_names_original and column_types differ in length", path, r.DBID)
		}
		if r.TableNamesOriginal == nil || len(r.ColumnNamesOriginal) == 0 {
			hint := ""
			if r.Query != nil {
				hint = " (it holds a \"query\": this is a questions file such as dev.json, not tables.json)"
			}
			return nil, fmt.Errorf("%s: entry %d (%s) has no table_names_original or column_names_original: not a Spider tables.json entry%s", path, i, r.DBID, hint)
		}
		d := &Database{DBID: r.DBID, Tables: r.TableNames, TablesOriginal: r.TableNamesOriginal, ForeignKeys: r.ForeignKeys}
		for j := range r.ColumnNames {
			t, ok1 := r.ColumnNames[j][0].(float64)
			n, ok2 := r.ColumnNames[j][1].(string)
			o, ok3 := r.ColumnNamesOriginal[j][1].(string)
			if !ok1 || !ok2 || !ok3 {
				return nil, fmt.Errorf("%s: %s: column %d is not [table_index, name]", path, r.DBID, j)
			}
			d.Columns = append(d.Columns, Column{Table: int(t), Name: n, Original: o, Type: r.ColumnTypes[j]})
		}
		for _, pk := range r.PrimaryKeys {
			var k int
			if json.Unmarshal(pk, &k) == nil {
				d.PrimaryKeys = append(d.PrimaryKeys, k)
				continue
			}
			var ks []int
			if err := json.Unmarshal(pk, &ks); err != nil {
				return nil, fmt.Errorf("%s: %s: primary key %s is not a column index", path, r.DBID, pk)
			}
			d.PrimaryKeys = append(d.PrimaryKeys, ks...)
		}
		out[r.DBID] = d
	}
	return out, nil
}

// IDs returns the db_ids in sorted order.
func (s Schemas) IDs() []string {
	ids := make([]string, 0, len(s))
	for id := range s {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	return ids
}
