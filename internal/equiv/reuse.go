package equiv

import (
	"math/rand/v2"

	"github.com/sqljudge/sqljudge/internal/catalog"
	"github.com/sqljudge/sqljudge/internal/result"
)

// The generator draws each cell from its column's pool independently, so
// on a few rows two cells rarely hold the same value unless the pool is
// tiny; yet the differences between near-equal queries often need exactly
// that: two employees of two departments with the same salary (a
// correlated subquery against its decorrelated join, Calcite pair 195), a
// value of one column equal to one of another (a join on the wrong
// column). So a cell may instead take a value already placed in the
// database: of its own column, or of any column of its kind.

// usedRates are the chances, one chosen per database, that a cell takes a
// value already placed; 0 keeps some databases of independent draws.
var usedRates = []float64{0, 0.25, 0.5}

// placed holds the values placed so far in a database being drawn, by
// table and column and by kind, to draw a used value from.
type placed struct {
	s      *schema
	byCol  [][][]result.Value
	byKind map[catalog.Family][]result.Value
}

func newPlaced(s *schema) *placed {
	p := &placed{s: s, byCol: make([][][]result.Value, len(s.Tables)), byKind: map[catalog.Family][]result.Value{}}
	for ti, t := range s.Tables {
		p.byCol[ti] = make([][]result.Value, len(t.Columns))
	}
	return p
}

// add records the non-NULL values of a row of table ti.
func (p *placed) add(ti int, row []result.Value) {
	for ci, v := range row {
		if v.IsNull() {
			continue
		}
		p.byCol[ti][ci] = append(p.byCol[ti][ci], v)
		k := p.s.Tables[ti].Columns[ci].Family
		p.byKind[k] = append(p.byKind[k], v)
	}
}

// addAll records every row of db.
func (p *placed) addAll(db Data) {
	for ti, rows := range db {
		for _, r := range rows {
			p.add(ti, r)
		}
	}
}

// draw returns a value already placed for column ci of table ti: one of
// that column's half of the time (when it has one), else one of any
// column of its kind, coerced to the column; false when there is none.
func (p *placed) draw(rng *rand.Rand, ti, ci int) (result.Value, bool) {
	c := p.s.Tables[ti].Columns[ci]
	vals := p.byCol[ti][ci]
	if len(vals) == 0 || rng.IntN(2) == 0 {
		vals = p.byKind[c.Family]
	}
	if len(vals) == 0 {
		return result.Value{}, false
	}
	return coerce(vals[rng.IntN(len(vals))], c)
}

// reuse replaces, at the given rate, each cell of db that is no foreign
// key by a value placed in an earlier cell (placed.draw); random's pass
// over a fuzzed database, whose repair follows.
func (g *generator) reuse(db Data, rate float64) {
	if rate == 0 {
		return
	}
	p := newPlaced(g.s)
	for ti, t := range g.s.Tables {
		fk := fkColumns(t)
		for _, row := range db[ti] {
			for ci := range row {
				if !fk[ci] && g.rng.Float64() < rate {
					if v, ok := p.draw(g.rng, ti, ci); ok {
						row[ci] = v
					}
				}
			}
			p.add(ti, row)
		}
	}
}

// fkColumns reports, by column index, the columns of a foreign key of t.
func fkColumns(t *catalog.Table) []bool {
	out := make([]bool, len(t.Columns))
	for _, fk := range t.FKs {
		for _, c := range fk.Cols {
			out[c] = true
		}
	}
	return out
}
