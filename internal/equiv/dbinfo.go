package equiv

import (
	"context"
	"strings"

	"github.com/sqljudge/sqljudge/internal/engine/sqlite"
	"github.com/sqljudge/sqljudge/internal/result"
	"github.com/sqljudge/sqljudge/internal/testsuite"
)

// dbInfo returns s as the test-suite machinery's schema (for
// testsuite.Neighbours and testsuite.Fuzzer): one-column UNIQUE sets and
// one-column foreign keys are carried over, each column's values are its
// search pool.
func (s *Schema) dbInfo(pools [][][]result.Value) *testsuite.DBInfo {
	info := &testsuite.DBInfo{}
	for ti, t := range s.Tables {
		tt := &testsuite.Table{Name: t.Name}
		for ci, c := range t.Columns {
			col := testsuite.Column{Name: c.Name, Decl: c.Type, Affinity: testsuite.AffinityOf(c.Type), NotNull: c.NotNull}
			for k, pk := range t.PK {
				if pk == ci {
					col.PK = k + 1
				}
			}
			for _, u := range t.Uniques {
				col.Unique = col.Unique || len(u) == 1 && u[0] == ci
			}
			if pools != nil {
				col.Values = pools[ti][ci]
			}
			tt.Columns = append(tt.Columns, col)
		}
		for _, fk := range t.FKs {
			if len(fk.Cols) == 1 {
				p := s.Table(fk.RefTable)
				tt.FKs = append(tt.FKs, testsuite.ForeignKey{Column: t.Columns[fk.Cols[0]].Name, RefTable: p.Name, RefColumn: p.Columns[fk.RefCols[0]].Name})
			}
		}
		info.Tables = append(info.Tables, tt)
	}
	return info
}

// fromData converts a fuzzed database of the test-suite machinery into
// rows by table index, each value coerced to its column's kind (NULL where
// it has none).
func (s *Schema) fromData(info *testsuite.DBInfo, d testsuite.Data) Data {
	out := make(Data, len(s.Tables))
	for ti, t := range s.Tables {
		for _, r := range d[info.Tables[ti]] {
			row := make([]result.Value, len(r))
			for ci, v := range r {
				if cv, ok := coerce(v, t.Columns[ci]); ok {
					row[ci] = cv
				}
			}
			out[ti] = append(out[ti], row)
		}
	}
	return out
}

// inspectSQLite reads the schema and a value sample of the SQLite database
// at path (package testsuite's Inspect, then addSQLiteConstraints for the
// CHECKs and multi-column UNIQUEs Inspect leaves out): the schema, and the
// sample by table and column index.
func inspectSQLite(ctx context.Context, path string) (*Schema, [][][]result.Value, error) {
	eng := sqlite.New("", sqlite.Options{})
	defer eng.Close()
	info, err := testsuite.Inspect(ctx, eng, path)
	if err != nil {
		return nil, nil, err
	}
	s := &Schema{}
	var samples [][][]result.Value
	for _, tt := range info.Tables {
		t := &Table{Name: tt.Name}
		var vals [][]result.Value
		pk := map[int]int{}
		for ci, c := range tt.Columns {
			typ := strings.ToUpper(strings.TrimSpace(c.Decl))
			col := Column{Name: c.Name, Type: typ, Kind: kindOf(typ), NotNull: c.NotNull || c.PK > 0, KeyNotNull: !c.NotNull && c.PK > 0}
			if col.Kind == KText {
				col.Len = lenOf(typ)
			}
			t.Columns = append(t.Columns, col)
			if c.PK > 0 {
				pk[c.PK-1] = ci
			}
			if c.Unique {
				t.Uniques = append(t.Uniques, []int{ci})
			}
			vals = append(vals, firstValues(c.Values, 12))
		}
		for k := 0; k < len(pk); k++ {
			t.PK = append(t.PK, pk[k])
		}
		s.Tables = append(s.Tables, t)
		samples = append(samples, vals)
	}
	for ti, tt := range info.Tables {
		for _, fk := range tt.FKs {
			t, p := s.Tables[ti], s.Table(fk.RefTable)
			if p == nil || t.col(fk.Column) < 0 || p.col(fk.RefColumn) < 0 {
				continue
			}
			t.FKs = append(t.FKs, ForeignKey{Cols: []int{t.col(fk.Column)}, RefTable: p.Name, RefCols: []int{p.col(fk.RefColumn)}})
		}
	}
	if err := addSQLiteConstraints(ctx, eng, path, s, info.DDL); err != nil {
		return nil, nil, err
	}
	return s, samples, nil
}

// lenOf returns the n of a "…(n)" type, or 0.
func lenOf(typ string) int {
	a := typeArgs(typ)
	n := 0
	for _, r := range strings.TrimPrefix(a, "(") {
		if r < '0' || r > '9' {
			break
		}
		n = n*10 + int(r-'0')
	}
	return n
}

func firstValues(vs []result.Value, n int) []result.Value {
	if len(vs) > n {
		return vs[:n]
	}
	return vs
}
