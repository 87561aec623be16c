package judge

import (
	"bytes"
	"context"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/sqljudge/sqljudge/internal/catalog"
	"github.com/sqljudge/sqljudge/internal/engine"
	"github.com/sqljudge/sqljudge/internal/result"
)

// DBInfo is the database as ROSE's prompts show it (CedricPei/ROSE
// evaluators/utils.py get_db_info): not the whole DDL, but for the tables
// a query mentions one line each, "table (column TYPE[ PRIMARY KEY][
// foreign key(other.column)], ...)", then BIRD's column descriptions of
// those tables when the database has them. LoadDBInfo reads it once per
// database; For renders it for the queries of one prompt.
type DBInfo struct {
	// DB is the db_id, shown on the first line.
	DB     string
	tables []dbTable // in name order
}

type dbTable struct {
	name string
	cols []string
	// desc is the table's description block, "" when the database has
	// no description of the table.
	desc string
}

// LoadDBInfo reads database db's tables, columns, primary and foreign keys
// through the engine (catalog.Read: on SQLite sqlite_master,
// pragma_table_info and pragma_foreign_key_list, as get_db_info does with
// PRAGMA; on the other engines their catalogs, every schema's tables),
// and, when the database's folder holds BIRD's
// database_description/<table>.csv files, their column descriptions. Its
// error is the engine's (naming db), or a description file that cannot be
// read (naming it).
func LoadDBInfo(ctx context.Context, eng engine.Engine, db string) (*DBInfo, error) {
	cat, err := catalog.Read(ctx, eng, db, catalog.Options{AllSchemas: true})
	if err != nil && !errors.Is(err, catalog.ErrNoTables) {
		return nil, fmt.Errorf("cannot read the tables of %s: %w", db, err)
	}
	descs, err := birdDescriptions(eng, db)
	if err != nil {
		return nil, err
	}
	info := &DBInfo{DB: db}
	if cat == nil {
		return info, nil
	}
	tables := slices.Clone(cat.Tables)
	slices.SortStableFunc(tables, func(a, b *catalog.Table) int { return strings.Compare(a.Name, b.Name) })
	for _, tb := range tables {
		name := tb.Name
		fk := roseForeignKeys(cat, tb)
		t := dbTable{name: name}
		for ci, c := range tb.Columns {
			def := c.Name + " " + c.Type
			if tb.InPK(ci) {
				def += " PRIMARY KEY"
			}
			if ref, ok := fk[c.Name]; ok {
				def += " foreign key(" + ref + ")"
			}
			t.cols = append(t.cols, def)
		}
		if d, ok := descs[strings.ToLower(name)]; ok {
			var b strings.Builder
			b.WriteString("-- Table: " + name + "\n")
			for _, c := range d {
				switch {
				case c.desc != "" && c.values != "":
					b.WriteString("  " + c.name + ": " + c.desc + "; value_description: " + c.values + "\n")
				case c.desc != "":
					b.WriteString("  " + c.name + ": " + c.desc + "\n")
				case c.values != "":
					b.WriteString("  " + c.name + ": " + c.values + "\n")
				}
			}
			t.desc = b.String()
		}
		info.tables = append(info.tables, t)
	}
	return info, nil
}

// For renders the database information of a prompt about sqls: the tables
// whose name occurs in one of them (case-insensitive substring, as ROSE
// matches), in name order (ROSE's set has no fixed order), as
//
//	Database: <db_id>
//	Schema:
//	<table> (<col> <TYPE>[ PRIMARY KEY][ foreign key(<t>.<c>)], ...)
//	(a blank line between tables)
//
//	Descriptions:
//	-- Table: <table>
//	  <col>: <description>[; value_description: <values>]
//
// with "Schema:" absent when no table is mentioned and "Descriptions:"
// absent when none has a description. A nil DBInfo renders "".
func (d *DBInfo) For(sqls ...string) string {
	if d == nil {
		return ""
	}
	upper := make([]string, len(sqls))
	for i, q := range sqls {
		upper[i] = strings.ToUpper(q)
	}
	var lines, descs []string
	for _, t := range d.tables {
		up := strings.ToUpper(t.name)
		if !slices.ContainsFunc(upper, func(q string) bool { return strings.Contains(q, up) }) {
			continue
		}
		lines = append(lines, t.name+" ("+strings.Join(t.cols, ", ")+")\n")
		if t.desc != "" {
			descs = append(descs, t.desc)
		}
	}
	s := "Database: " + d.DB + "\n"
	if len(lines) > 0 {
		s += "Schema:\n" + strings.Join(lines, "\n") + "\n\n"
	}
	if len(descs) > 0 {
		s += "Descriptions:\n" + strings.Join(descs, "\n")
	}
	return s
}

// roseForeignKeys is get_db_info's dict of t's foreign keys: the
// referencing column's name as declared to "table.column" as declared, a
// later key of the same column winning; a reference to the implicit
// primary key has no column, which Python prints as None. A foreign key
// whose declaration's spelling the reader does not know (the server
// engines) is named as the tables name it.
func roseForeignKeys(cat *catalog.Database, t *catalog.Table) map[string]string {
	out := map[string]string{}
	for _, fk := range t.FKs {
		sp := fk.Spelled
		if sp == nil {
			p := cat.RefTable(fk)
			sp = &catalog.Spelling{RefTable: fk.RefTable}
			for k, c := range fk.Cols {
				sp.Cols = append(sp.Cols, t.Columns[c].Name)
				sp.RefCols = append(sp.RefCols, p.Columns[fk.RefCols[k]].Name)
			}
		}
		for k, col := range sp.Cols {
			to := "None"
			if k < len(sp.RefCols) {
				to = sp.RefCols[k]
			}
			out[col] = sp.RefTable + "." + to
		}
	}
	return out
}

type colDesc struct{ name, desc, values string }

// birdDescriptions reads BIRD's database_description/<table>.csv files
// beside the database file, when there are any: per lower-cased table
// name, the columns' original_column_name, column_description and
// value_description, each with its runs of white space made one space
// (ROSE's data/description files hold them so). A file that is not UTF-8
// is read as Latin-1, as some of BIRD's are.
func birdDescriptions(eng engine.Engine, db string) (map[string][]colDesc, error) {
	p, ok := eng.(interface{ Path(string) (string, error) })
	if !ok {
		return nil, nil
	}
	file, err := p.Path(db)
	if err != nil {
		return nil, nil
	}
	files, _ := filepath.Glob(filepath.Join(filepath.Dir(file), "database_description", "*.csv"))
	out := map[string][]colDesc{}
	for _, f := range files {
		cols, err := readDescription(f)
		if err != nil {
			return nil, err
		}
		out[strings.ToLower(strings.TrimSuffix(filepath.Base(f), filepath.Ext(f)))] = cols
	}
	return out, nil
}

func readDescription(path string) ([]colDesc, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("cannot read the column descriptions: %w", err)
	}
	b = bytes.TrimPrefix(b, []byte("\xef\xbb\xbf"))
	if !utf8.Valid(b) {
		r := make([]rune, len(b))
		for i, c := range b {
			r[i] = rune(c)
		}
		b = []byte(string(r))
	}
	rd := csv.NewReader(bytes.NewReader(b))
	rd.FieldsPerRecord = -1
	head, err := rd.Read()
	if err != nil {
		return nil, fmt.Errorf("%s: no header: %w", path, err)
	}
	idx := map[string]int{}
	for i, h := range head {
		idx[strings.ToLower(strings.TrimSpace(h))] = i
	}
	col, ok := idx["original_column_name"]
	if !ok {
		return nil, fmt.Errorf("%s:1: expected BIRD's header with original_column_name, got %q", path, strings.Join(head, ","))
	}
	field := func(rec []string, name string) string {
		if i, ok := idx[name]; ok && i < len(rec) {
			return strings.Join(strings.Fields(rec[i]), " ")
		}
		return ""
	}
	var cols []colDesc
	for {
		rec, err := rd.Read()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		if col >= len(rec) || strings.TrimSpace(rec[col]) == "" {
			continue
		}
		cols = append(cols, colDesc{name: strings.TrimSpace(rec[col]), desc: field(rec, "column_description"), values: field(rec, "value_description")})
	}
	return cols, nil
}

// FrameRows is how many rows of a result ROSE shows (pandas head(20)).
const FrameRows = 20

// frameEscapes writes a cell's line breaks and tabs as pandas' to_string
// does, as escapes.
var frameEscapes = strings.NewReplacer("\n", `\n`, "\r", `\r`, "\t", `\t`)

// RenderFrame renders the first n rows of a result the way ROSE's prompts
// show one, pandas' DataFrame.to_string of result.head(20): a header of
// right-aligned column names after the index column, then one line per
// row, the row number left-aligned, each value right-aligned to its
// column's width, columns two spaces apart; strings longer than 50
// characters cut to 47 and "..." (display.max_colwidth); an empty result
// as "Empty DataFrame\nColumns: [a, b]\nIndex: []". Values are written as
// Python's str() writes them and NULL as None; unlike pandas, a numeric
// column holding NULL is not turned into floats, and a wide frame is not
// wrapped at 80 characters. A nil set renders "None".
func RenderFrame(s *result.Set, n int) string {
	if s == nil {
		return "None"
	}
	if s.Len() == 0 {
		return "Empty DataFrame\nColumns: [" + strings.Join(s.Columns, ", ") + "]\nIndex: []"
	}
	rows := s.Rows[:min(n, s.Len())]
	cells := make([][]string, len(rows))
	width := make([]int, len(s.Columns))
	for j, c := range s.Columns {
		width[j] = utf8.RuneCountInString(c)
	}
	iw := len(fmt.Sprint(len(rows) - 1))
	for i, r := range rows {
		cells[i] = make([]string, len(s.Columns))
		for j := range s.Columns {
			v := "None"
			if j < len(r) && r[j].K != result.Null {
				v = result.PyStr(r[j])
			}
			v = frameEscapes.Replace(v)
			if rs := []rune(v); len(rs) > 50 {
				v = string(rs[:47]) + "..."
			}
			cells[i][j] = v
			width[j] = max(width[j], utf8.RuneCountInString(v))
		}
	}
	pad := func(s string, w int, right bool) string {
		gap := strings.Repeat(" ", max(0, w-utf8.RuneCountInString(s)))
		if right {
			return gap + s
		}
		return s + gap
	}
	var b strings.Builder
	b.WriteString(strings.Repeat(" ", iw))
	for j, c := range s.Columns {
		b.WriteString("  " + pad(c, width[j], true))
	}
	for i, r := range cells {
		b.WriteString("\n" + pad(fmt.Sprint(i), iw, false))
		for j, v := range r {
			b.WriteString("  " + pad(v, width[j], true))
		}
	}
	return b.String()
}
