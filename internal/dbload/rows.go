package dbload

import (
	"fmt"
	"slices"
	"time"
)

// tableData is a table of a dump with the rows its INSERT and COPY
// statements store, each value as PostgreSQL stores it in its column.
type tableData struct {
	Table *Table
	Rows  [][]value
}

// evaluated is a dump evaluated for a translating target.
type evaluated struct {
	Schemas []string     // CREATE SCHEMA names, in order
	Tables  []*tableData // in CREATE TABLE order
	Skipped []Stmt       // statements that create no table or data
}

// evaluate runs the dump's CREATE TABLE, INSERT and COPY statements in Go
// with PostgreSQL's semantics, the clock fixed at now (UTC, truncated to
// microseconds).
func (d *Dump) evaluate(now time.Time) (*evaluated, error) {
	env := &evalEnv{now: now.UTC().Truncate(time.Microsecond), file: d.Path}
	ev := &evaluated{}
	byName := map[string]*tableData{}
	serial := map[string]int64{} // "table.column" -> last value
	for i := range d.Stmts {
		s := &d.Stmts[i]
		switch s.Kind {
		case CreateSchema:
			ev.Schemas = append(ev.Schemas, s.Schema)
		case CreateTable:
			key := qualified(s.Table.Schema, s.Table.Name)
			if s.Table.Schema == "public" {
				key = s.Table.Name
			}
			if _, dup := byName[key]; dup {
				return nil, &Error{File: d.Path, Line: s.Line, Msg: fmt.Sprintf("table %s is created twice", key)}
			}
			for _, c := range s.Table.Columns {
				if _, ok := family(c.Type); !ok {
					return nil, &Error{File: d.Path, Line: s.Line, Msg: fmt.Sprintf("table %s, column %s: type %s cannot be translated", s.Table.Name, c.Name, c.Type)}
				}
			}
			td := &tableData{Table: s.Table}
			byName[key] = td
			ev.Tables = append(ev.Tables, td)
		case Insert, Copy:
			key := qualified(s.Insert.Schema, s.Insert.Table)
			if s.Insert.Schema == "public" {
				key = s.Insert.Table
			}
			td, ok := byName[key]
			if !ok {
				return nil, &Error{File: d.Path, Line: s.Line, Msg: fmt.Sprintf("INSERT into %s, which the dump does not create", key)}
			}
			if err := env.insertRows(td, s, serial); err != nil {
				return nil, err
			}
		default:
			ev.Skipped = append(ev.Skipped, *s)
		}
	}
	return ev, nil
}

// insertRows evaluates the rows of one INSERT or COPY into td.
func (env *evalEnv) insertRows(td *tableData, s *Stmt, serial map[string]int64) error {
	t := td.Table
	idx := make([]int, 0, len(t.Columns))
	if s.Insert.Columns == nil {
		for i := range t.Columns {
			idx = append(idx, i)
		}
	} else {
		for _, name := range s.Insert.Columns {
			j := slices.IndexFunc(t.Columns, func(c Column) bool { return c.Name == name })
			if j < 0 {
				return &Error{File: env.file, Line: s.Line, Msg: fmt.Sprintf("table %s has no column %q", t.Name, name)}
			}
			idx = append(idx, j)
		}
	}
	for _, r := range s.Insert.Rows {
		n := len(r.Exprs) + len(r.Text)
		if n > len(idx) {
			return &Error{File: env.file, Line: r.Line, Msg: fmt.Sprintf("%d values for %d columns of %s", n, len(idx), t.Name)}
		}
		if s.Kind == Copy && n != len(idx) {
			return &Error{File: env.file, Line: r.Line, Msg: fmt.Sprintf("COPY row has %d fields, want %d", n, len(idx))}
		}
		row := make([]value, len(t.Columns))
		given := make([]bool, len(t.Columns))
		for k := 0; k < n; k++ {
			c := &t.Columns[idx[k]]
			var v value
			var err error
			if s.Kind == Copy {
				if r.Text[k] == nil {
					v = value{t: vNull}
				} else {
					v, err = inputValue(env, *r.Text[k], c.Type, c.Mods)
				}
			} else {
				if len(r.Exprs[k]) == 1 && r.Exprs[k][0].Kind == tWord && r.Exprs[k][0].Val == "default" {
					continue // DEFAULT keyword: filled below
				}
				if v, err = env.evalExpr(r.Exprs[k]); err == nil {
					v, err = env.assign(v, c)
				}
			}
			if err != nil {
				return wrapAt(env.file, r.Line, fmt.Sprintf("%s.%s", t.Name, c.Name), err)
			}
			row[idx[k]], given[idx[k]] = v, true
		}
		for j := range t.Columns {
			c := &t.Columns[j]
			if !given[j] {
				v, err := env.defaultValue(t, c, serial)
				if err != nil {
					return wrapAt(env.file, r.Line, fmt.Sprintf("%s.%s (default)", t.Name, c.Name), err)
				}
				row[j] = v
			}
			if c.NotNull && row[j].t == vNull {
				return &Error{File: env.file, Line: r.Line, Msg: fmt.Sprintf("%s.%s: NULL in a NOT NULL column", t.Name, c.Name)}
			}
		}
		td.Rows = append(td.Rows, row)
	}
	return nil
}

func wrapAt(file string, line int, where string, err error) error {
	if e, ok := err.(*Error); ok {
		return &Error{File: e.File, Line: e.Line, Msg: where + ": " + e.Msg}
	}
	return &Error{File: file, Line: line, Msg: where + ": " + err.Error()}
}

// defaultValue is the value of a column an INSERT leaves out: the next
// value of a SERIAL column, its DEFAULT, or NULL.
func (env *evalEnv) defaultValue(t *Table, c *Column, serial map[string]int64) (value, error) {
	if c.Serial {
		k := t.Name + "." + c.Name
		serial[k]++
		return value{t: vInt, i: serial[k]}, nil
	}
	if c.Default == nil {
		return value{t: vNull}, nil
	}
	v, err := env.evalExpr(c.Default)
	if err != nil {
		return value{}, err
	}
	return env.assign(v, c)
}
