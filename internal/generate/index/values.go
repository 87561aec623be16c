package index

import (
	"context"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/sqljudge/sqljudge/internal/catalog"
	"github.com/sqljudge/sqljudge/internal/engine"
	"github.com/sqljudge/sqljudge/internal/engine/sqlite"
	"github.com/sqljudge/sqljudge/internal/result"
)

// schemaTable is one table of the database with all its columns, in
// PRAGMA table_info order (CHESS's get_db_schema).
type schemaTable struct {
	Name    string   `json:"name"`
	Columns []string `json:"columns"`
}

// valueTable holds the indexed columns of one table.
type valueTable struct {
	Name    string        `json:"name"`
	Columns []valueColumn `json:"columns"`
}

// valueColumn holds the distinct values of one column, sorted.
type valueColumn struct {
	Name   string   `json:"name"`
	Values []string `json:"values"`
}

// quoteIdent quotes a SQLite identifier.
func quoteIdent(s string) string { return engine.SQLite.QuoteIdent(s) }

// skippedName is CHESS's rule for columns never indexed: key-, link- and
// date-like names.
func skippedName(column string) bool {
	l := strings.ToLower(column)
	for _, k := range []string{"_id", " id", "url", "email", "web", "time", "phone", "date", "address"} {
		if strings.Contains(l, k) {
			return true
		}
	}
	return strings.HasSuffix(column, "Id")
}

// textType tells whether a declared type is text: it contains "TEXT"
// (CHESS's rule, case-sensitive) or, with affinity, has SQLite's TEXT
// affinity (contains CHAR, CLOB or TEXT in any case; SQLite's rule 2 of
// section 3.1 of its datatype documentation, after rule 1, INT, which
// wins).
func textType(decl string, affinity bool) bool {
	if !affinity {
		return strings.Contains(decl, "TEXT")
	}
	u := strings.ToUpper(decl)
	if strings.Contains(u, "INT") {
		return false
	}
	return strings.Contains(u, "CHAR") || strings.Contains(u, "CLOB") || strings.Contains(u, "TEXT")
}

// readSchema reads the tables and columns of the SQLite database at
// dbPath (catalog.Read, through a read-only engine of its own with no row
// cap: a kept column may have more distinct values than a query's default
// cap) and the distinct values of the columns CHESS indexes.
func readSchema(ctx context.Context, dbPath string, affinity bool) ([]schemaTable, []valueTable, error) {
	eng := sqlite.New("", sqlite.Options{MaxConns: 1, MaxRows: math.MaxInt32})
	defer eng.Close()
	cat, err := catalog.Read(ctx, eng, dbPath, catalog.Options{})
	if err != nil {
		return nil, nil, fmt.Errorf("not a readable SQLite database: %v", err)
	}
	q := func(sql string) (*result.Set, error) { return eng.Query(ctx, dbPath, sql) }
	pkNames := map[string]bool{}
	for _, t := range cat.Tables {
		for _, k := range t.PK {
			pkNames[strings.ToLower(t.Columns[k].Name)] = true
		}
	}
	var schema []schemaTable
	var values []valueTable
	unquote := strings.NewReplacer(`"`, "", "`", "")
	for _, t := range cat.Tables {
		st := schemaTable{Name: unquote.Replace(t.Name)}
		vt := valueTable{Name: t.Name}
		for _, c := range t.Columns {
			st.Columns = append(st.Columns, unquote.Replace(c.Name))
			if !textType(c.Type, affinity) || pkNames[strings.ToLower(c.Name)] || skippedName(c.Name) {
				continue
			}
			vals, err := columnValues(q, t.Name, c.Name)
			if err != nil {
				return nil, nil, fmt.Errorf("table %s, column %s: %v", t.Name, c.Name, err)
			}
			if vals != nil {
				vt.Columns = append(vt.Columns, valueColumn{Name: c.Name, Values: vals})
			}
		}
		schema = append(schema, st)
		values = append(values, vt)
	}
	return schema, values, nil
}

// columnValues returns the sorted distinct non-NULL values of a column when
// CHESS's size rule keeps it, else nil.
func columnValues(q func(string) (*result.Set, error), table, column string) ([]string, error) {
	t, c := quoteIdent(table), quoteIdent(column)
	st, err := q(fmt.Sprintf("SELECT SUM(LENGTH(v)), COUNT(v) FROM (SELECT DISTINCT %s AS v FROM %s WHERE %s IS NOT NULL)", c, t, c))
	if err != nil {
		return nil, err
	}
	sum, count := st.Rows[0][0], st.Rows[0][1].I
	if sum.IsNull() || count == 0 {
		return nil, nil
	}
	avg := float64(sum.I) / float64(count)
	keep := (strings.Contains(strings.ToLower(column), "name") && sum.I < 5_000_000) ||
		(sum.I < 2_000_000 && avg < 25) || count < 100
	if !keep {
		return nil, nil
	}
	set, err := q(fmt.Sprintf("SELECT DISTINCT CAST(%s AS TEXT) FROM %s WHERE %s IS NOT NULL", c, t, c))
	if err != nil {
		return nil, err
	}
	vals := make([]string, 0, len(set.Rows))
	for _, r := range set.Rows {
		vals = append(vals, r[0].S)
	}
	slices.Sort(vals)
	return slices.Compact(vals), nil
}
