package catalog_test

import (
	"database/sql"
	"fmt"
	"slices"
	"sort"
	"strings"
	"testing"

	_ "github.com/mattn/go-sqlite3" // SQLite itself, the oracle

	"github.com/sqljudge/sqljudge/internal/catalog"
)

// sqliteSchema is a schema as SQLite's PRAGMAs report it, and as the
// same facts read from a catalog.Database: one line a fact, sorted, so
// that two schemas compare as text.
type sqliteFacts []string

// sqliteExec runs ddl on a fresh in-memory SQLite and returns its facts,
// or SQLite's error.
func sqliteExec(t *testing.T, ddl string) (sqliteFacts, error) {
	t.Helper()
	db, err := sql.Open("sqlite3", ":memory:")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	db.SetMaxOpenConns(1)
	if _, err := db.Exec(ddl); err != nil {
		return nil, err
	}
	return pragmaFacts(t, db), nil
}

// pragmaFacts reads the facts of every table of db (main and temp, not
// SQLite's own): columns from PRAGMA table_xinfo (name, declared type,
// notnull, position in the primary key; a hidden column as generated),
// foreign keys from PRAGMA foreign_key_list whose table and columns exist
// (as ParseDDL keeps them), and the UNIQUE sets: the primary key and every
// unique index over plain columns that are not generated (index_list,
// index_info; a partial index counts, as ParseDDL reads it).
func pragmaFacts(t *testing.T, db *sql.DB) sqliteFacts {
	t.Helper()
	names := queryStrings(t, db, "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite%' UNION ALL SELECT name FROM sqlite_temp_master WHERE type = 'table'")
	tables := map[string]map[string]bool{} // lower name -> lower column names
	pks := map[string][]string{}
	generated := map[string]bool{}
	var facts sqliteFacts
	for _, tn := range names {
		cols := map[string]bool{}
		pk := map[int64]string{}
		rows := queryRows(t, db, "PRAGMA table_xinfo("+sqlQuote(tn)+")")
		for _, r := range rows {
			name, typ := r[1].(string), fmt.Sprint(r[2])
			if r[6].(int64) == 2 || r[6].(int64) == 3 {
				facts = append(facts, fmt.Sprintf("%s generated %s", tn, name))
				generated[strings.ToLower(tn)+"."+strings.ToLower(name)] = true
				continue
			}
			cols[strings.ToLower(name)] = true
			facts = append(facts, fmt.Sprintf("%s column %s %s notnull=%d", tn, name, normType(typ), r[3].(int64)))
			if k := r[5].(int64); k > 0 {
				pk[k] = name
			}
		}
		tables[strings.ToLower(tn)] = cols
		var key []string
		for k := int64(1); k <= int64(len(pk)); k++ {
			key = append(key, pk[k])
		}
		pks[strings.ToLower(tn)] = key
		if len(key) > 0 {
			facts = append(facts, fmt.Sprintf("%s primary key (%s)", tn, strings.Join(key, ", ")))
		}
	}
	for _, tn := range names {
		sets := map[string]bool{}
		if k := pks[strings.ToLower(tn)]; len(k) > 0 {
			sets[uniqueSet(k)] = true
		}
		for _, r := range queryRows(t, db, "PRAGMA index_list("+sqlQuote(tn)+")") {
			if r[2].(int64) == 0 {
				continue
			}
			var cols []string
			for _, c := range queryRows(t, db, "PRAGMA index_info("+sqlQuote(r[1].(string))+")") {
				if c[1].(int64) < 0 || generated[strings.ToLower(tn)+"."+strings.ToLower(fmt.Sprint(c[2]))] {
					cols = nil // an expression, or a generated column: left out with it
					break
				}
				cols = append(cols, c[2].(string))
			}
			if cols != nil {
				sets[uniqueSet(cols)] = true
			}
		}
		for s := range sets {
			facts = append(facts, fmt.Sprintf("%s unique %s", tn, s))
		}
		facts = append(facts, pragmaFKs(t, db, tn, tables, pks)...)
	}
	sort.Strings(facts)
	return facts
}

// pragmaFKs reads table tn's foreign keys, those whose table and columns
// exist, in names.
func pragmaFKs(t *testing.T, db *sql.DB, tn string, tables map[string]map[string]bool, pks map[string][]string) []string {
	type fk struct {
		table    string
		from, to []string
		implicit bool
	}
	var list []*fk
	var last int64 = -1
	for _, r := range queryRows(t, db, "PRAGMA foreign_key_list("+sqlQuote(tn)+")") {
		if r[0].(int64) != last {
			list = append(list, &fk{table: r[2].(string), implicit: r[4] == nil})
			last = r[0].(int64)
		}
		f := list[len(list)-1]
		f.from = append(f.from, r[3].(string))
		if r[4] != nil {
			f.to = append(f.to, r[4].(string))
		}
	}
	var out []string
	for _, f := range list {
		cols, ok := tables[strings.ToLower(f.table)]
		if !ok {
			continue
		}
		to := f.to
		if f.implicit {
			to = pks[strings.ToLower(f.table)]
		}
		good := len(to) == len(f.from)
		for _, c := range to {
			good = good && cols[strings.ToLower(c)]
		}
		if good {
			out = append(out, fmt.Sprintf("%s foreign key (%s) %s (%s)", tn, lowerJoin(f.from), strings.ToLower(f.table), lowerJoin(to)))
		}
	}
	return out
}

// parsedFacts are the same facts of a ParseDDL model.
func parsedFacts(db *catalog.Database) sqliteFacts {
	var facts sqliteFacts
	for _, t := range db.Tables {
		for _, g := range t.Generated {
			facts = append(facts, fmt.Sprintf("%s generated %s", t.Name, g))
		}
		sets := map[string]bool{}
		for _, c := range t.Columns {
			nn := 0
			if c.NotNull && !c.KeyNotNull {
				nn = 1
			}
			facts = append(facts, fmt.Sprintf("%s column %s %s notnull=%d", t.Name, c.Name, normType(c.Type), nn))
		}
		if len(t.PK) > 0 {
			facts = append(facts, fmt.Sprintf("%s primary key (%s)", t.Name, strings.Join(colNames(t, t.PK), ", ")))
			sets[uniqueSet(colNames(t, t.PK))] = true
		}
		for _, u := range t.Uniques {
			sets[uniqueSet(colNames(t, u))] = true
		}
		for s := range sets {
			facts = append(facts, fmt.Sprintf("%s unique %s", t.Name, s))
		}
		for _, fk := range t.FKs {
			ref := db.RefTable(fk)
			facts = append(facts, fmt.Sprintf("%s foreign key (%s) %s (%s)", t.Name, lowerJoin(colNames(t, fk.Cols)), strings.ToLower(ref.Name), lowerJoin(colNames(ref, fk.RefCols))))
		}
	}
	sort.Strings(facts)
	return facts
}

func colNames(t *catalog.Table, idx []int) []string {
	out := make([]string, len(idx))
	for i, k := range idx {
		out[i] = t.Columns[k].Name
	}
	return out
}

// uniqueSet spells a set of columns, lower-cased and sorted.
func uniqueSet(cols []string) string {
	l := strings.Split(lowerJoin(cols), ", ")
	slices.Sort(l)
	return "{" + strings.Join(l, ", ") + "}"
}

func lowerJoin(cols []string) string { return strings.ToLower(strings.Join(cols, ", ")) }

// normType spells a declared type for comparison: upper case, no blank
// before or inside parentheses, one between words.
func normType(s string) string {
	s = strings.ToUpper(strings.Join(strings.Fields(s), " "))
	for _, r := range []string{" (", "( ", " )", " ,", ", ", "+ ", "- "} {
		s = strings.ReplaceAll(s, r, strings.TrimSpace(r))
	}
	return s
}

func queryRows(t *testing.T, db *sql.DB, q string) [][]any {
	t.Helper()
	rows, err := db.Query(q)
	if err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	defer rows.Close()
	cols, _ := rows.Columns()
	var out [][]any
	for rows.Next() {
		v := make([]any, len(cols))
		ptr := make([]any, len(cols))
		for i := range v {
			ptr[i] = &v[i]
		}
		if err := rows.Scan(ptr...); err != nil {
			t.Fatal(err)
		}
		for i, x := range v {
			if b, ok := x.([]byte); ok {
				v[i] = string(b)
			}
		}
		out = append(out, v)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

func queryStrings(t *testing.T, db *sql.DB, q string) []string {
	var out []string
	for _, r := range queryRows(t, db, q) {
		out = append(out, r[0].(string))
	}
	return out
}

// compareWithSQLite runs ddl on SQLite and through ParseDDL: SQLite's
// refusal must be ParseDDL's (its message quoted), SQLite's schema must be
// ParseDDL's.
func compareWithSQLite(t *testing.T, ddl string) {
	t.Helper()
	want, sqlErr := sqliteExec(t, ddl)
	got, err := catalog.ParseDDL(ddl)
	switch {
	case sqlErr != nil && err == nil:
		t.Errorf("%s\n  SQLite refuses it (%v); ParseDDL accepts it", ddl, sqlErr)
	case sqlErr != nil && !strings.Contains(err.Error(), sqlErr.Error()):
		t.Errorf("%s\n  SQLite: %v\n  ParseDDL: %v", ddl, sqlErr, err)
	case sqlErr == nil && err != nil:
		t.Errorf("%s\n  SQLite accepts it; ParseDDL: %v", ddl, err)
	case sqlErr == nil:
		if g := parsedFacts(got); !slices.Equal(g, want) {
			t.Errorf("%s\n  SQLite:   %s\n  ParseDDL: %s", ddl, strings.Join(want, "; "), strings.Join(g, "; "))
		}
	}
}

// sqlQuote quotes a name for SQLite, whatever its bytes.
func sqlQuote(n string) string { return `"` + strings.ReplaceAll(n, `"`, `""`) + `"` }
