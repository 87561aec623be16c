package equiv

import (
	"context"

	"github.com/sqljudge/sqljudge/internal/catalog"
	"github.com/sqljudge/sqljudge/internal/result"
)

// differs loads db and reports whether the queries differ on it (as try
// does, without counting it as a searched database); while shrinking a
// database on which the prediction fails (s.failure), whether it fails
// there too.
func (s *searcher) differs(ctx context.Context, db Data) ([2]*result.Set, bool) {
	s.out.Search.ShrinkSteps++
	if !s.schema.admits(db) {
		return [2]*result.Set{}, false
	}
	r, ok := s.runBoth(ctx, db)
	if s.failure != nil {
		return r, !ok && s.predFails(ctx)
	}
	if !ok || s.cmp.equal(ctx, r[0], r[1]) || emptyArity(r) && !s.onlyEmptyArity || !s.strictProof() && !s.robust(ctx, db, r) {
		return r, false
	}
	return r, true
}

// emptyArity reports whether r are two results of different numbers of
// columns and no row: a difference a witness with rows shows better.
func emptyArity(r [2]*result.Set) bool {
	return len(r[0].Columns) != len(r[1].Columns) && len(r[0].Rows) == 0 && len(r[1].Rows) == 0
}

// unit is one row of a database: table index and row index.
type unit struct{ t, i int }

// subset returns the rows of db that units name, repaired.
func (s *searcher) subset(db Data, units []unit) Data {
	out := make(Data, len(db))
	for _, u := range units {
		out[u.t] = append(out[u.t], db[u.t][u.i])
	}
	return s.schema.repair(out)
}

// shrinkRows is delta debugging over rows (Zeller and Hildebrandt, TSE
// 2002, ddmin): it removes chunks of rows, halving the chunk size when no
// chunk can go, while the queries still differ on what is left (rows a
// removal orphans go with it). It returns a 1-minimal database: no single
// row can be removed.
func (s *searcher) shrinkRows(ctx context.Context, db Data) Data {
	var units []unit
	for t, rows := range db {
		for i := range rows {
			units = append(units, unit{t, i})
		}
	}
	n := 2
	for len(units) > 0 && s.canShrink(ctx) {
		if len(units) == 1 {
			n = 1
		}
		reduced := false
		for k := 0; k < n && s.canShrink(ctx); k++ {
			lo, hi := k*len(units)/n, (k+1)*len(units)/n
			rest := append(append([]unit(nil), units[:lo]...), units[hi:]...)
			cand := s.subset(db, rest)
			if _, ok := s.differs(ctx, cand); ok {
				db, units = cand, nil
				for t, rows := range cand {
					for i := range rows {
						units = append(units, unit{t, i})
					}
				}
				n = max(n-1, 2)
				reduced = true
				break
			}
		}
		if !reduced {
			if n >= len(units) {
				break
			}
			n = min(2*n, len(units))
		}
	}
	return db
}

// simplest returns the simple values a cell may take, simplest first:
// NULL where allowed, then the zero of its kind (0, ”, the first base
// value).
func simplest(c catalog.Column) []result.Value {
	var out []result.Value
	if !c.NotNull {
		out = append(out, result.NullValue())
	}
	return append(out, baseValues(c.Family)[0])
}

// simplifyValues replaces each value by a simpler one (simplest) where
// the queries still differ and no row is lost to a constraint.
func (s *searcher) simplifyValues(ctx context.Context, db Data) Data {
	for ti, t := range s.schema.Tables {
		for ri := range db[ti] {
			for ci, c := range t.Columns {
				for _, v := range simplest(c) {
					if !s.canShrink(ctx) {
						return db
					}
					cur := db[ti][ri][ci]
					if cur.K == v.K && result.RowKey([]result.Value{cur}) == result.RowKey([]result.Value{v}) {
						break
					}
					cand := db.clone()
					cand[ti][ri][ci] = v
					if fixed := s.schema.repair(cand); fixed.Rows() != cand.Rows() {
						continue
					}
					if _, ok := s.differs(ctx, cand); ok {
						db = cand
						break
					}
				}
			}
		}
	}
	return db
}

// canShrink reports whether shrinking may try another database: steps
// are left (Options.MaxShrinkSteps) and the budget has not ended.
func (s *searcher) canShrink(ctx context.Context) bool {
	return s.out.Search.ShrinkSteps < s.o.MaxShrinkSteps && ctx.Err() == nil
}
