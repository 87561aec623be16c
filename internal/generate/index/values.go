package index

import (
	"context"
	"database/sql"
	"fmt"
	"net/url"
	"path/filepath"
	"slices"
	"strings"

	_ "github.com/mattn/go-sqlite3" // the sqlite3 driver
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

// openRO opens a SQLite file read-only.
func openRO(path string) (*sql.DB, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, err
	}
	u := url.URL{Scheme: "file", OmitHost: true, Path: abs, RawQuery: "mode=ro&_query_only=1"}
	db, err := sql.Open("sqlite3", u.String())
	if err != nil {
		return nil, err
	}
	db.SetMaxOpenConns(1)
	return db, nil
}

// quoteIdent quotes a SQLite identifier.
func quoteIdent(s string) string { return `"` + strings.ReplaceAll(s, `"`, `""`) + `"` }

type pragmaColumn struct {
	name, typ string
	pk        int
}

func tableColumns(ctx context.Context, db *sql.DB, table string) ([]pragmaColumn, error) {
	rows, err := db.QueryContext(ctx, "SELECT name, type, pk FROM pragma_table_info(?)", table)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var cols []pragmaColumn
	for rows.Next() {
		var c pragmaColumn
		if err := rows.Scan(&c.name, &c.typ, &c.pk); err != nil {
			return nil, err
		}
		cols = append(cols, c)
	}
	return cols, rows.Err()
}

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

// readSchema reads the tables and columns of the database and the distinct
// values of the columns CHESS indexes (_get_unique_values).
func readSchema(ctx context.Context, dbPath string, affinity bool) ([]schemaTable, []valueTable, error) {
	db, err := openRO(dbPath)
	if err != nil {
		return nil, nil, err
	}
	defer db.Close()
	rows, err := db.QueryContext(ctx, "SELECT name FROM sqlite_master WHERE type='table'")
	if err != nil {
		return nil, nil, fmt.Errorf("not a readable SQLite database: %v", err)
	}
	var names []string
	for rows.Next() {
		var n string
		if err := rows.Scan(&n); err != nil {
			rows.Close()
			return nil, nil, err
		}
		names = append(names, n)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, nil, err
	}
	cols := make([][]pragmaColumn, len(names))
	pkNames := map[string]bool{}
	for i, t := range names {
		if cols[i], err = tableColumns(ctx, db, t); err != nil {
			return nil, nil, fmt.Errorf("table %s: %v", t, err)
		}
		for _, c := range cols[i] {
			if c.pk > 0 {
				pkNames[strings.ToLower(c.name)] = true
			}
		}
	}
	var schema []schemaTable
	var values []valueTable
	for i, t := range names {
		if t == "sqlite_sequence" {
			continue
		}
		st := schemaTable{Name: strings.NewReplacer(`"`, "", "`", "").Replace(t)}
		vt := valueTable{Name: t}
		for _, c := range cols[i] {
			st.Columns = append(st.Columns, strings.NewReplacer(`"`, "", "`", "").Replace(c.name))
			if !textType(c.typ, affinity) || pkNames[strings.ToLower(c.name)] || skippedName(c.name) {
				continue
			}
			vals, err := columnValues(ctx, db, t, c.name)
			if err != nil {
				return nil, nil, fmt.Errorf("table %s, column %s: %v", t, c.name, err)
			}
			if vals != nil {
				vt.Columns = append(vt.Columns, valueColumn{Name: c.name, Values: vals})
			}
		}
		schema = append(schema, st)
		values = append(values, vt)
	}
	return schema, values, nil
}

// columnValues returns the sorted distinct non-NULL values of a column when
// CHESS's size rule keeps it, else nil.
func columnValues(ctx context.Context, db *sql.DB, table, column string) ([]string, error) {
	t, c := quoteIdent(table), quoteIdent(column)
	var sum sql.NullInt64
	var count int64
	q := fmt.Sprintf("SELECT SUM(LENGTH(v)), COUNT(v) FROM (SELECT DISTINCT %s AS v FROM %s WHERE %s IS NOT NULL)", c, t, c)
	if err := db.QueryRowContext(ctx, q).Scan(&sum, &count); err != nil {
		return nil, err
	}
	if !sum.Valid || count == 0 {
		return nil, nil
	}
	avg := float64(sum.Int64) / float64(count)
	keep := (strings.Contains(strings.ToLower(column), "name") && sum.Int64 < 5_000_000) ||
		(sum.Int64 < 2_000_000 && avg < 25) || count < 100
	if !keep {
		return nil, nil
	}
	rows, err := db.QueryContext(ctx, fmt.Sprintf("SELECT DISTINCT CAST(%s AS TEXT) FROM %s WHERE %s IS NOT NULL", c, t, c))
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	vals := []string{}
	for rows.Next() {
		var v sql.NullString
		if err := rows.Scan(&v); err != nil {
			return nil, err
		}
		vals = append(vals, v.String)
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	slices.Sort(vals)
	return slices.Compact(vals), nil
}
