package equiv

import (
	"context"
	"errors"
	"fmt"

	"github.com/sqljudge/sqljudge/internal/catalog"
	"github.com/sqljudge/sqljudge/internal/engine"
	"github.com/sqljudge/sqljudge/internal/result"
	"github.com/sqljudge/sqljudge/internal/sandbox"
	"github.com/sqljudge/sqljudge/internal/status"
)

// differs loads db and reports whether the queries differ on it (as try
// does, without counting it as a searched database).
func (s *searcher) differs(ctx context.Context, db Data) ([2]*result.Set, bool) {
	s.out.Search.ShrinkSteps++
	if !s.schema.admits(db) {
		return [2]*result.Set{}, false
	}
	r, ok := s.runBoth(ctx, db)
	if !ok || s.cmp.equal(ctx, r[0], r[1]) || emptyArity(r) && !s.onlyEmptyArity || !s.robust(ctx, db, r) {
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

// conclude shrinks the database found (under ctx, the budget),
// re-verifies it from its SQL alone and sets the verdict: Inequivalent
// with the witness, or Unknown when the difference does not reproduce
// (which would be a bug of the search). The re-verification runs under
// parent with time of its own (verifyTimeout), whatever the search and
// the shrinking left of the budget: a witness found is never lost to the
// clock.
func (s *searcher) conclude(ctx, parent context.Context) error {
	db := s.found
	for round := 0; round < 3; round++ {
		before := s.schema.Script(engine.SQLite, db)
		db = s.simplifyValues(ctx, s.shrinkRows(ctx, db))
		if s.schema.Script(engine.SQLite, db) == before {
			break
		}
	}
	if ctx.Err() != nil {
		s.out.Search.BudgetExhausted = true
	}
	script := s.schema.Script(s.o.Sandbox.Dialect(), db)
	verifyCtx, cancel := context.WithTimeout(parent, s.o.verifyTimeout())
	defer cancel()
	r, err := s.verify(verifyCtx, script)
	var nd errNondeterministic
	var setup *sandbox.SetupError
	if errors.As(err, &setup) && verifyCtx.Err() == nil {
		return err // the sandbox's failure, not the pair's
	}
	if errors.As(err, &nd) {
		s.unknown("q%d is not deterministic: two runs on the same database differ", nd.q)
		return nil
	}
	if err != nil {
		if verifyCtx.Err() != nil {
			s.unknown("the re-verification of the witness ran out of its time (%s): %v", s.o.verifyTimeout(), err)
			return nil
		}
		if st := engine.Classify(err, status.InternalError); st != status.InternalError {
			// A query too slow (or a result too large) on the fresh
			// database: the engine's limit, not a witness that failed.
			s.out.Search.BudgetExhausted = s.out.Search.BudgetExhausted || st == status.Timeout
			s.unknown("the re-verification of the witness stopped at a query's limit (%s, query timeout %s): %v", st, s.o.QueryTimeout, err)
			return nil
		}
		s.unknown("internal error: the witness does not reproduce: %v", err)
		return nil
	}
	s.out.Verdict = Inequivalent
	s.out.Witness = &Witness{SQL: script, Rows: db.Rows(), Q1: resultJSON(r[0]), Q2: resultJSON(r[1])}
	s.out.Witness.RestsOn, s.out.Witness.RestsChecks = s.explain(verifyCtx, db, r)
	return nil
}

// errNondeterministic is the error of verify when query q gives two
// different results on the witness.
type errNondeterministic struct{ q int }

func (e errNondeterministic) Error() string { return fmt.Sprintf("q%d is not deterministic", e.q) }

// verify builds a fresh scratch database from script alone, runs both
// queries on it and returns their results; an error when a query fails or
// the results do not differ.
func (s *searcher) verify(ctx context.Context, script string) ([2]*result.Set, error) {
	var r [2]*result.Set
	sc, err := s.o.Sandbox.Open(ctx, nil)
	if err != nil {
		return r, err
	}
	defer sc.Close()
	if err := sc.Exec(ctx, sandbox.SplitScript(script)); err != nil {
		return r, fmt.Errorf("the witness SQL does not run: %w", err)
	}
	run := func(i int, q string) (*result.Set, error) {
		qctx, cancel := context.WithTimeout(ctx, s.o.QueryTimeout)
		defer cancel()
		set, err := sc.Query(qctx, q)
		if err != nil {
			return nil, fmt.Errorf("q%d fails on the witness: %w", i+1, err)
		}
		return set, nil
	}
	for i, q := range []string{s.p.Q1, s.p.Q2} {
		if r[i], err = run(i, q); err != nil {
			return r, err
		}
		// A second run must give the same rows: a query whose result
		// changes from run to run (random(), the clock) proves nothing.
		again, err := run(i, q)
		if err != nil {
			return r, err
		}
		if !s.cmp.equal(ctx, r[i], again) && !sameBag(r[i], again) {
			return r, errNondeterministic{i + 1}
		}
	}
	if s.cmp.equal(ctx, r[0], r[1]) {
		return r, fmt.Errorf("the queries return equal results on the witness")
	}
	return r, nil
}
