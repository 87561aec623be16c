package equiv

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/sqljudge/sqljudge/internal/engine"
	"github.com/sqljudge/sqljudge/internal/result"
	"github.com/sqljudge/sqljudge/internal/sandbox"
	"github.com/sqljudge/sqljudge/internal/status"
)

// conclude shrinks the database found (under ctx, the budget),
// re-verifies it from its SQL alone and sets the verdict: Inequivalent
// with the witness, or Unknown when the difference does not reproduce
// (which would be a bug of the search, or under Options.Grading a
// prediction that reads something besides the rows). The re-verification
// runs under parent with time of its own (verifyTimeout), whatever the
// search and the shrinking left of the budget: a witness found is never
// lost to the clock.
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
	vr, err := s.verify(verifyCtx, script)
	var setup *sandbox.SetupError
	switch {
	case errors.As(err, &setup) && verifyCtx.Err() == nil:
		return err // the sandbox's failure, not the pair's
	case err != nil:
		s.notVerified(verifyCtx, -1, err)
	case vr.err[0] != nil:
		s.notVerified(verifyCtx, 0, vr.err[0])
	case vr.changed[0]:
		s.unknown("q1 is not deterministic: two runs on the same database differ")
	case vr.err[1] != nil && s.o.Grading && verifyCtx.Err() == nil && engine.Classify(vr.err[1], status.PredError) == status.PredError:
		s.witness(verifyCtx, db, script, vr, &Failure{Kind: FailsError, Error: vr.err[1].Error()})
	case vr.err[1] != nil:
		s.notVerified(verifyCtx, 1, vr.err[1])
	case vr.changed[1] && s.o.Grading:
		s.witness(verifyCtx, db, script, vr, &Failure{Kind: FailsNondeterministic, Error: "two runs on the witness return different results"})
	case vr.changed[1]:
		s.unknown("q2 is not deterministic: two runs on the same database differ")
	case s.cmp.equal(verifyCtx, vr.r[0], vr.r[1]):
		s.notReproduced(verifyCtx, db, vr)
	default:
		s.witness(verifyCtx, db, script, vr, nil)
	}
	return nil
}

// rerun is what the re-verification of a witness saw: each query's first
// result, its error (of the first or the second run), and whether its
// second run returned other rows than its first.
type rerun struct {
	r       [2]*result.Set
	err     [2]error
	changed [2]bool
}

// verify builds a fresh scratch database from script alone and runs each
// query on it twice; the error is only for a database that could not be
// built.
func (s *searcher) verify(ctx context.Context, script string) (rerun, error) {
	var vr rerun
	sc, err := s.o.Sandbox.Open(ctx, nil)
	if err != nil {
		return vr, err
	}
	defer sc.Close()
	if err := sc.Exec(ctx, sandbox.SplitScript(script)); err != nil {
		return vr, fmt.Errorf("the witness SQL does not run: %w", err)
	}
	run := func(q string) (*result.Set, error) {
		qctx, cancel := context.WithTimeout(ctx, s.o.QueryTimeout)
		defer cancel()
		return sc.Query(qctx, q)
	}
	for i, q := range []string{s.p.Q1, s.p.Q2} {
		if vr.r[i], vr.err[i] = run(q); vr.err[i] != nil {
			continue
		}
		// A second run must give the same rows: a query whose result
		// changes from run to run (random(), the clock) proves nothing.
		again, err := run(q)
		if err != nil {
			vr.err[i] = err
			continue
		}
		vr.changed[i] = !s.cmp.equal(ctx, vr.r[i], again) && !sameBag(vr.r[i], again)
	}
	return vr, nil
}

// witness sets the verdict Inequivalent with the witness db (its script
// and the re-verification's results), what it rests on (explain) for two
// results that differ, and how q2 fails there when it does.
func (s *searcher) witness(ctx context.Context, db Data, script string, vr rerun, f *Failure) {
	s.out.Verdict = Inequivalent
	w := &Witness{SQL: script, Rows: db.Rows(), Q1: resultJSON(vr.r[0]), Q2: resultJSON(&result.Set{}), Q2Fails: f, Phase: s.foundBy}
	if vr.r[1] != nil {
		w.Q2 = resultJSON(vr.r[1])
	}
	if f == nil {
		w.RestsOn, w.RestsChecks = s.explain(ctx, db, vr.r)
	}
	s.out.Witness = w
}

// notVerified ends a witness that could not be re-verified: query i (0:
// q1, 1: q2, -1: the database itself) failed with err on it. Under
// Options.Grading the failure is q2's unless it is q1's (Limited): its
// timeout or result cap, the end of the re-verification's time, a
// database that could not be built from the witness (whose values come
// from the two queries' literals).
func (s *searcher) notVerified(ctx context.Context, i int, err error) {
	if i >= 0 {
		err = fmt.Errorf("q%d fails on the witness: %w", i+1, err)
	}
	lim := &s.out.Search.Limited.Q2
	if i == 0 {
		lim = &s.out.Search.Limited.Q1
	}
	switch st := engine.Classify(err, status.InternalError); {
	case ctx.Err() != nil:
		if s.o.Grading {
			lim.Timeout++
		}
		s.unknown("the re-verification of the witness ran out of its time (%s): %v", s.o.verifyTimeout(), err)
	case st != status.InternalError:
		// A query too slow (or a result too large) on the fresh
		// database: the engine's limit, not a witness that failed.
		s.out.Search.BudgetExhausted = s.out.Search.BudgetExhausted || st == status.Timeout
		if s.o.Grading && st == status.Timeout {
			lim.Timeout++
		} else if s.o.Grading {
			lim.TooLarge++
		}
		s.unknown("the re-verification of the witness stopped at a query's limit (%s, query timeout %s): %v", st, s.o.QueryTimeout, err)
	default:
		if s.o.Grading {
			lim.Unstable++
		}
		s.unknown("internal error: the witness does not reproduce: %v", err)
	}
}

// notReproduced ends a witness on whose fresh copy the two queries agree.
// Under Options.Grading the query whose result there is not its result on
// the search's database with the same rows (run again) is why: q2 unless
// q1's changed (Limits.Unstable).
func (s *searcher) notReproduced(ctx context.Context, db Data, vr rerun) {
	if s.o.Grading {
		sr, _ := s.runBoth(ctx, db)
		if sameResult(sr[0], vr.r[0]) {
			s.out.Search.Limited.Q2.Unstable++
		} else {
			s.out.Search.Limited.Q1.Unstable++
		}
	}
	s.unknown("internal error: the witness does not reproduce: the queries return equal results on the witness")
}

// sameResult reports whether two results are the same as a witness
// records them (columns, rows in order); false when either is missing.
func sameResult(a, b *result.Set) bool {
	if a == nil || b == nil {
		return false
	}
	x, _ := json.Marshal(resultJSON(a))
	y, _ := json.Marshal(resultJSON(b))
	return string(x) == string(y)
}
