package catalog

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/sqljudge/sqljudge/internal/engine"
	"github.com/sqljudge/sqljudge/internal/result"
)

// readSQLite reads a SQLite database: sqlite_master for the statements
// (Database.Objects) and the tables (those whose name is not SQLite's
// own, sqlite_%), then per table PRAGMA table_info (columns, declared
// types, NOT NULL, the primary key in key order), PRAGMA foreign_key_list
// (a foreign key per id, its columns in seq order; one naming no column
// references the primary key; one whose table or columns do not exist is
// left out) and PRAGMA index_list with index_info (sqliteUniques), the
// CHECKs of each CREATE TABLE (Options.Checks: parsed as ParseDDL parses
// them; a statement the DDL parser cannot read keeps none) and the
// samples (SELECT DISTINCT … LIMIT n).
func readSQLite(ctx context.Context, q func(string) (*result.Set, error), o Options) (*Database, error) {
	master, err := q("SELECT type, name, sql, tbl_name FROM sqlite_master WHERE sql IS NOT NULL ORDER BY rowid")
	if err != nil {
		return nil, err
	}
	db := &Database{}
	var creates []string
	for _, r := range master.Rows {
		obj := Object{Type: r[0].S, Name: r[1].S, SQL: r[2].S}
		db.Objects = append(db.Objects, obj)
		if obj.Type == "table" && !SQLiteInternal(obj.Name) {
			t := &Table{Name: obj.Name}
			if w := strings.Fields(strings.ToUpper(obj.SQL)); len(w) > 1 && w[1] == "VIRTUAL" {
				// A module's table (FTS, R*Tree): columns and a rowid
				// alias (FTS4's docid) of the module's own.
				t.unmodelled("virtual table", false)
			}
			db.Tables = append(db.Tables, t)
			creates = append(creates, obj.SQL)
		}
	}
	fks := make([][]sqliteFK, len(db.Tables))
	for i, t := range db.Tables {
		if fks[i], err = sqliteTable(q, t, creates[i]); err != nil {
			return nil, fmt.Errorf("table %s: %w", t.Name, err)
		}
	}
	for i, t := range db.Tables {
		t.FKs = resolveSQLiteFKs(db, t, fks[i])
	}
	for _, r := range master.Rows {
		if t := db.Table(r[3].S); r[0].S == "trigger" && t != nil {
			t.unmodelled("trigger "+r[1].S, true)
		}
	}
	if o.Checks {
		if err := sqliteChecks(db); err != nil {
			return nil, err
		}
	}
	return db, readSamples(db, o.Samples, func(t *Table, c *Column) (*result.Set, error) {
		return q(fmt.Sprintf("SELECT DISTINCT %s FROM %s LIMIT %d", quoteSQLite(c.Name), quoteSQLite(t.Name), o.Samples))
	})
}

// SQLiteInternal reports whether a table name is one of SQLite's own
// (sqlite_sequence, sqlite_stat1, …): as name LIKE 'sqlite_%' matches,
// "sqlite" in any case followed by at least one character.
func SQLiteInternal(name string) bool {
	return len(name) > len("sqlite") && strings.EqualFold(name[:len("sqlite")], "sqlite")
}

func quoteSQLite(s string) string { return engine.SQLite.QuoteIdent(s) }

// sqliteFK is one foreign key of PRAGMA foreign_key_list by names: to is
// nil for a reference that names no column.
type sqliteFK struct {
	table    string
	from, to []string
	implicit bool
}

// sqliteTable reads t's columns, primary key and UNIQUE sets (create is
// its CREATE statement, read for what the PRAGMAs do not say: its
// columns' collations and PKDesc), and returns its foreign keys by name,
// resolved once every table is read.
func sqliteTable(q func(string) (*result.Set, error), t *Table, create string) ([]sqliteFK, error) {
	cols, err := q(fmt.Sprintf("PRAGMA table_info(%s)", quoteSQLite(t.Name)))
	if err != nil {
		return nil, err
	}
	pk := map[int]int{}
	// table_info: cid, name, type, notnull, dflt_value, pk (its position in the key).
	for ci, r := range cols.Rows {
		c := NewColumn(r[1].S, r[2].S, r[3].I != 0 || r[5].I > 0)
		c.KeyNotNull = r[3].I == 0 && r[5].I > 0
		t.Columns = append(t.Columns, c)
		if r[5].I > 0 {
			pk[int(r[5].I)-1] = ci
		}
	}
	for k := 0; k < len(pk); k++ {
		t.PK = append(t.PK, pk[k])
	}
	sqliteDeclared(t, create)
	if err := sqliteUniques(q, t); err != nil {
		return nil, err
	}
	list, err := q(fmt.Sprintf("PRAGMA foreign_key_list(%s)", quoteSQLite(t.Name)))
	if err != nil {
		return nil, err
	}
	// foreign_key_list: id, seq, table, from, to, on_update, on_delete, match.
	var out []sqliteFK
	for i, r := range list.Rows {
		if i == 0 || r[0].I != list.Rows[i-1][0].I {
			out = append(out, sqliteFK{table: r[2].S, implicit: r[4].IsNull()})
		}
		fk := &out[len(out)-1]
		fk.from = append(fk.from, r[3].S)
		fk.to = append(fk.to, r[4].S)
	}
	return out, nil
}

// sqliteDeclared reads from t's CREATE statement (ParseDDL's grammar)
// its columns' collations and whether its primary key is declared
// PRIMARY KEY DESC, and drops the primary key PRAGMA table_info names
// when the statement declares it under a collation other than a
// column's own (PRIMARY KEY (a COLLATE BINARY) of a NOCASE column: no
// key by the column's comparison, keyByCollation); a statement the
// grammar does not read marks t Undeclared.
func sqliteDeclared(t *Table, create string) {
	stmts := splitStatements(create)
	if len(stmts) != 1 {
		t.Undeclared = true
		return
	}
	p := &ddlParser{toks: stmts[0].toks, src: create, terminated: stmts[0].terminated, skipChecks: true}
	parsed, _, err := p.statement()
	if err != nil || parsed == nil || len(parsed.Columns) != len(t.Columns) {
		t.Undeclared = true
		return
	}
	for i := range t.Columns {
		if !strings.EqualFold(parsed.Columns[i].Name, t.Columns[i].Name) {
			t.Undeclared = true
			return
		}
		t.Columns[i].Collation = parsed.Columns[i].Collation
	}
	t.PKDesc = parsed.PKDesc
	if len(parsed.Generated) > 0 {
		t.Generated = parsed.Generated
		t.unmodelled("generated column "+parsed.Generated[0], false)
	}
	if p.hasPK && len(parsed.PK) == 0 {
		t.PK = nil
	}
}

// sqliteUniques reads t's UNIQUE sets from PRAGMA index_list (seq, name,
// unique, origin c/u/pk, partial) and index_xinfo (seqno, cid: -1 the
// rowid, -2 an expression; name, desc, coll, key): first every column
// that a unique index of its own covers, in column order (a PRIMARY
// KEY's own index included, as SQLite makes one for a key that is not an
// INTEGER PRIMARY KEY), then the unique indexes over two or more plain
// columns that are not the primary key, in index_list order. Partial
// indexes bind only some rows and are left out, and so is an index
// whose collation on a column is not the column's own while that one is
// not BINARY (a key under BINARY does not keep 'A' and 'a' apart in a
// NOCASE column, whose own comparison ties them); a table Undeclared,
// whose columns' collations are unknown, gets none.
func sqliteUniques(q func(string) (*result.Set, error), t *Table) error {
	list, err := q(fmt.Sprintf("PRAGMA index_list(%s)", quoteSQLite(t.Name)))
	if err != nil {
		return err
	}
	single := make([]bool, len(t.Columns))
	var multi [][]int
	for _, r := range list.Rows {
		if len(r) < 5 || r[2].I == 0 {
			continue
		}
		if r[4].I != 0 {
			t.unmodelled("partial unique index "+r[1].S, true)
			continue
		}
		info, err := q(fmt.Sprintf("PRAGMA index_xinfo(%s)", quoteSQLite(r[1].S)))
		if err != nil {
			return fmt.Errorf("index %s: %w", r[1].S, err)
		}
		var cols []int
		for _, c := range info.Rows {
			if len(c) < 6 || c[5].I == 0 {
				continue // the rowid an index stores after its key
			}
			k := t.Col(c[2].S)
			switch {
			case c[1].I == -2:
				t.unmodelled("unique index "+r[1].S+" on an expression", true)
			case k >= 0 && !t.Undeclared && !sameCollation(t.Columns[k].Collation, c[4].S):
				// Under another collation the index refuses rows the
				// column's own comparison tells apart ('a', 'A' under a
				// NOCASE index on a BINARY column), or keeps rows it ties.
				t.unmodelled("unique index "+r[1].S+" under collation "+c[4].S, true)
			}
			if c[1].I < 0 || k < 0 || !keyCollation(t, k, c[4].S) {
				cols = nil
				break
			}
			cols = append(cols, k)
		}
		switch {
		case len(cols) == 1:
			single[cols[0]] = true
		case len(cols) > 1 && r[3].S != "pk":
			multi = append(multi, cols)
		}
	}
	for ci, u := range single {
		if u {
			t.Uniques = append(t.Uniques, []int{ci})
		}
	}
	for _, cols := range multi {
		if !t.IsKey(cols) {
			t.Uniques = append(t.Uniques, cols)
		}
	}
	return nil
}

// unmodelled records what the model leaves out of t (Unmodelled):
// rows tells that it only restricts the rows t may hold
// (UnmodelledRows). The first of the other kind wins over any of rows',
// else the first.
func (t *Table) unmodelled(what string, rows bool) {
	if t.Unmodelled == "" || t.UnmodelledRows && !rows {
		t.Unmodelled, t.UnmodelledRows = what, rows
	}
}

// sameCollation reports whether an index's collation coll (index_xinfo,
// BINARY for none) is a column's own, own ("" for BINARY).
func sameCollation(own, coll string) bool {
	if own == "" {
		own = "BINARY"
	}
	return strings.EqualFold(own, coll)
}

// keyCollation reports whether an index under collation coll is a key of
// column k by the column's own comparison: coll is the column's own, or
// BINARY for a column without one (SQLite reports BINARY for a column
// that names none).
func keyCollation(t *Table, k int, coll string) bool {
	own := t.Columns[k].Collation
	switch {
	case t.Undeclared:
		return false
	case own == "":
		return true
	}
	return strings.EqualFold(coll, own)
}

// resolveSQLiteFKs returns t's foreign keys whose table and columns exist
// (names compared case-insensitively, as SQLite does).
func resolveSQLiteFKs(db *Database, t *Table, fks []sqliteFK) []ForeignKey {
	var out []ForeignKey
	for _, f := range fks {
		p := db.Table(f.table)
		if p == nil {
			continue
		}
		fk := ForeignKey{RefTable: p.Name, Implicit: f.implicit, Spelled: &Spelling{Cols: f.from, RefTable: f.table}}
		if !f.implicit {
			fk.Spelled.RefCols = f.to
		}
		ok := true
		for i, name := range f.from {
			c := t.Col(name)
			ref := -1
			switch {
			case f.implicit && i < len(p.PK) && len(f.from) == len(p.PK):
				ref = p.PK[i]
			case !f.implicit:
				ref = p.Col(f.to[i])
			}
			if c < 0 || ref < 0 {
				ok = false
				break
			}
			fk.Cols, fk.RefCols = append(fk.Cols, c), append(fk.RefCols, ref)
		}
		if ok {
			out = append(out, fk)
		}
	}
	return out
}

// sqliteChecks parses the CHECKs of every CREATE TABLE of db.Objects as
// ParseDDL does and adds them to their tables, columns found by name; a
// statement the DDL parser cannot read keeps none, a CHECK ParseCheck
// refuses (or one naming a column the table lacks) is the error.
func sqliteChecks(db *Database) error {
	for _, obj := range db.Objects {
		if obj.Type != "table" || SQLiteInternal(obj.Name) {
			continue
		}
		for _, st := range splitStatements(obj.SQL) {
			p := &ddlParser{toks: st.toks, src: obj.SQL, terminated: st.terminated}
			parsed, _, err := p.statement()
			var ce *CheckError
			if errors.As(err, &ce) {
				return err
			}
			if err != nil || parsed == nil {
				continue
			}
			t := db.Table(parsed.Name)
			if t == nil {
				continue
			}
			for _, c := range parsed.Checks {
				rc, ok := c.rebind(t)
				if !ok {
					return &CheckError{Table: t.Name, Err: fmt.Errorf("CHECK %s names a column the table does not have", c)}
				}
				t.Checks = append(t.Checks, rc)
			}
		}
	}
	return nil
}

// readSamples fills every column's Values with the rows query returns
// (one value a row), when n > 0; its error names the column.
func readSamples(db *Database, n int, query func(*Table, *Column) (*result.Set, error)) error {
	if n <= 0 {
		return nil
	}
	for _, t := range db.Tables {
		for i := range t.Columns {
			c := &t.Columns[i]
			set, err := query(t, c)
			if err != nil {
				return fmt.Errorf("%s.%s: %w", t.Name, c.Name, err)
			}
			for _, r := range set.Rows {
				c.Values = append(c.Values, r[0])
			}
		}
	}
	return nil
}
