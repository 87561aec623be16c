package equiv

import (
	"context"
	"errors"
	"fmt"

	"github.com/sqljudge/sqljudge/internal/engine"
	"github.com/sqljudge/sqljudge/internal/engine/sqlite"
)

// addSQLiteConstraints adds to s, the schema testsuite.Inspect read from
// the SQLite database at path, the constraints it leaves out: the CHECK
// constraints (column and table ones) of every CREATE TABLE of
// sqlite_master (ddl), parsed as ParseDDL parses them (ParseCheck) and
// printed again for the engine to enforce, and the UNIQUE constraints and
// unique indexes over several columns (PRAGMA index_list, then
// index_info; a partial index or one over an expression is left out, as it
// binds only some rows or no column). A CREATE TABLE the DDL parser cannot
// read keeps no CHECK (the search then may draw rows the original would
// refuse, as before); a CHECK that ParseCheck refuses is the error (a
// *CheckError), as is a failing PRAGMA.
func addSQLiteConstraints(ctx context.Context, eng *sqlite.Engine, path string, s *Schema, ddl []string) error {
	for _, stmt := range ddl {
		for _, toks := range splitStatements(stmt) {
			p := &ddlParser{toks: toks, src: stmt}
			parsed, _, err := p.statement()
			var ce *CheckError
			if errors.As(err, &ce) {
				return err
			}
			if err != nil || parsed == nil {
				continue
			}
			t := s.Table(parsed.Name)
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
	for _, t := range s.Tables {
		if err := addUniqueIndexes(ctx, eng, path, t); err != nil {
			return err
		}
	}
	return nil
}

// addUniqueIndexes adds the unique indexes of t over two or more plain
// columns (those of one column testsuite.Inspect reads) that are not its
// primary key.
func addUniqueIndexes(ctx context.Context, eng *sqlite.Engine, path string, t *Table) error {
	q := engine.SQLite.QuoteIdent
	list, err := eng.QueryFile(ctx, path, fmt.Sprintf("PRAGMA index_list(%s)", q(t.Name)))
	if err != nil {
		return fmt.Errorf("table %s: %w", t.Name, err)
	}
	// index_list: seq, name, unique, origin (c, u, pk), partial.
	for _, r := range list.Rows {
		if len(r) < 5 || r[2].I != 1 || r[3].S == "pk" || r[4].I != 0 {
			continue
		}
		info, err := eng.QueryFile(ctx, path, fmt.Sprintf("PRAGMA index_info(%s)", q(r[1].S)))
		if err != nil {
			return fmt.Errorf("index %s: %w", r[1].S, err)
		}
		// index_info: seqno, cid (-1 the rowid, -2 an expression), name.
		var cols []int
		for _, c := range info.Rows {
			k := t.col(c[2].S)
			if c[1].I < 0 || k < 0 {
				cols = nil
				break
			}
			cols = append(cols, k)
		}
		if len(cols) > 1 && !t.isKey(cols) {
			t.Uniques = append(t.Uniques, cols)
		}
	}
	return nil
}
