package equiv

import (
	"math/rand/v2"

	"github.com/sqljudge/sqljudge/internal/catalog"
	"github.com/sqljudge/sqljudge/internal/result"
	"github.com/sqljudge/sqljudge/internal/testsuite"
)

// generator draws databases of a schema from its value pools.
type generator struct {
	s     *schema
	pools [][][]result.Value
	rng   *rand.Rand
	info  *catalog.Database
	fuzz  *testsuite.Fuzzer
}

func newGenerator(s *schema, pools [][][]result.Value, rng *rand.Rand) *generator {
	info := s.fuzzerSchema(pools)
	return &generator{s: s, pools: pools, rng: rng, info: info, fuzz: testsuite.NewFuzzer(info, nil)}
}

// shape is the per-database choices: the NULL rate, the duplicate-row
// rate, the rate of values already placed (usedRates) and, per column,
// the few values the database draws from (few values make joins meet,
// groups gather and duplicates appear).
type shape struct {
	nullRate float64
	dupRate  float64
	usedRate float64
	vals     [][][]result.Value
}

func (g *generator) newShape() shape {
	sh := shape{nullRate: []float64{0, 0.15, 0.4}[g.rng.IntN(3)], dupRate: []float64{0, 0.3}[g.rng.IntN(2)]}
	sh.usedRate = usedRates[g.rng.IntN(len(usedRates))]
	sh.vals = make([][][]result.Value, len(g.pools))
	for ti, cols := range g.pools {
		sh.vals[ti] = make([][]result.Value, len(cols))
		for ci, pool := range cols {
			n := []int{1, 2, 3, len(pool)}[g.rng.IntN(4)]
			sh.vals[ti][ci] = g.pick(pool, n)
		}
	}
	return sh
}

// pick returns n values of pool drawn without repeats (all when n covers it).
func (g *generator) pick(pool []result.Value, n int) []result.Value {
	if n >= len(pool) {
		return pool
	}
	idx := g.rng.Perm(len(pool))[:n]
	out := make([]result.Value, n)
	for i, j := range idx {
		out[i] = pool[j]
	}
	return out
}

// small draws a database whose tables have 0 to maxRows rows, repaired to
// satisfy every constraint.
func (g *generator) small(maxRows int) Data {
	sh := g.newShape()
	db := make(Data, len(g.s.Tables))
	p := newPlaced(g.s)
	for ti := range g.s.Tables {
		n := max(g.rng.IntN(maxRows+1), g.s.minRows[ti])
		for range n {
			if len(db[ti]) > 0 && g.rng.Float64() < sh.dupRate {
				db[ti] = append(db[ti], db[ti][g.rng.IntN(len(db[ti]))])
				continue
			}
			db[ti] = append(db[ti], g.row(sh, ti, db, p))
			p.add(ti, db[ti][len(db[ti])-1])
		}
	}
	return g.s.repair(db)
}

// row draws one row of table ti: foreign keys from a parent row already
// drawn (or NULL where allowed), other columns, at the shape's rate, from
// the values placed so far in p (placed.draw), else from the shape's
// values, or NULL at its rate where the column allows it.
func (g *generator) row(sh shape, ti int, db Data, p *placed) []result.Value {
	t := g.s.Tables[ti]
	row := make([]result.Value, len(t.Columns))
	for ci, c := range t.Columns {
		if !c.NotNull && g.rng.Float64() < sh.nullRate {
			continue
		}
		if sh.usedRate > 0 && g.rng.Float64() < sh.usedRate {
			if v, ok := p.draw(g.rng, ti, ci); ok {
				row[ci] = v
				continue
			}
		}
		vals := sh.vals[ti][ci]
		if len(vals) > 0 {
			row[ci] = vals[g.rng.IntN(len(vals))]
		}
	}
	for _, fk := range t.FKs {
		pi := g.s.refIndex(fk)
		parents := db[pi]
		if len(parents) == 0 || g.rng.Float64() < sh.nullRate/2 {
			continue // keep the drawn values: NULL or an orphan, repaired away
		}
		p := parents[g.rng.IntN(len(parents))]
		for k, c := range fk.Cols {
			row[c] = p[fk.RefCols[k]]
		}
	}
	return row
}

// mutate returns a copy of db with one to three changes: a row added,
// removed, duplicated, or one value replaced (by a pool value or NULL);
// repaired.
func (g *generator) mutate(db Data) Data {
	db = db.clone()
	sh := g.newShape()
	p := newPlaced(g.s)
	p.addAll(db)
	for range 1 + g.rng.IntN(3) {
		ti := g.rng.IntN(len(db))
		rows := db[ti]
		switch op := g.rng.IntN(4); {
		case op == 0 || len(rows) == 0:
			db[ti] = append(rows, g.row(sh, ti, db, p))
		case op == 1:
			i := g.rng.IntN(len(rows))
			db[ti] = append(rows[:i:i], rows[i+1:]...)
		case op == 2:
			db[ti] = append(rows, rows[g.rng.IntN(len(rows))])
		default:
			g.setValue(db, ti, g.rng.IntN(len(rows)))
		}
	}
	return g.s.repair(db)
}

// setValue replaces one value of row i of table ti.
func (g *generator) setValue(db Data, ti, i int) {
	t := g.s.Tables[ti]
	ci := g.rng.IntN(len(t.Columns))
	row := append([]result.Value(nil), db[ti][i]...)
	pool := g.pools[ti][ci]
	switch {
	case !t.Columns[ci].NotNull && g.rng.IntN(4) == 0:
		row[ci] = result.NullValue()
	case len(pool) > 0:
		row[ci] = pool[g.rng.IntN(len(pool))]
	}
	db[ti][i] = row
}

// random draws a database from the test-suite fuzzer (testsuite.Fuzzer:
// table sizes up to 80 rows, values from the pools and fresh random ones
// of each column's type), coerced, with values already placed reused at a
// rate drawn from usedRates (reuse), and repaired.
func (g *generator) random() Data {
	db := g.s.fromData(g.info, g.fuzz.Sample(g.rng))
	g.reuse(db, usedRates[g.rng.IntN(len(usedRates))])
	return g.s.repair(db)
}
