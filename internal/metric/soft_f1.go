package metric

import (
	"context"

	"github.com/sqljudge/sqljudge/internal/bench"
	"github.com/sqljudge/sqljudge/internal/result"
	"github.com/sqljudge/sqljudge/internal/status"
)

func init() {
	Register("soft_f1", "BIRD mini-dev Soft-F1 (evaluation_f1.py calculate_f1_score): score in [0, 1], correct iff 1", func(o Options) (Metric, error) {
		return &SoftF1{}, nil
	})
	// BIRD mini-dev reports Soft-F1 as the mean score (evaluation_f1.py
	// prints the mean of calculate_f1_score per level), not the share of
	// items scoring 1.
	RegisterFigure("soft_f1", Figure{Name: "Soft-F1", Scale: 1, Bootstrap: true})
}

// SoftF1 is BIRD mini-dev's Soft-F1 (bird-bench/mini_dev,
// evaluation/evaluation_f1.py: execute_model, calculate_f1_score): both
// queries run unchanged on the item's database and the predicted rows are
// scored against the gold rows by result.SoftF1.
//
// The verdict carries ScoreDetails "score" (a number in [0, 1]); correct is score == 1.
// As in execute_model, a prediction (or gold) that fails, times out or
// returns too many rows scores 0 with the failure's status, and so does a
// text cell that is not valid UTF-8 (the official sqlite3 connection
// decodes strictly). With several gold alternatives the best score counts.
// The summary's headline for soft_f1 is the mean of "score", the official
// Soft-F1 (see Figure); its accuracy, the share of items scoring exactly 1,
// is secondary.
type SoftF1 struct{}

// Name returns "soft_f1".
func (m *SoftF1) Name() string { return "soft_f1" }

// Grade runs both queries and scores the predicted rows.
func (m *SoftF1) Grade(ctx context.Context, x *Exec, it *bench.Item) Verdict {
	best := Verdict{Details: ScoreDetails{}}
	bestScore := -1.0
	for _, gold := range it.Gold {
		gs, ps, v, bad := runStrict(ctx, x, it.DBID, gold, it.Pred)
		if bad {
			if bestScore < 0 {
				v.Details = ScoreDetails{}
				best = v
			}
			continue
		}
		s := result.SoftF1(gs, ps)
		if s > bestScore {
			bestScore = s
			best = Verdict{Correct: s == 1, Status: status.OK, Details: ScoreDetails{Score: s}}
		}
	}
	return best
}

// runStrict runs the gold and then the predicted query as BIRD's scripts
// do (Python's sqlite3 with strict UTF-8 decoding: a text cell that is
// not UTF-8 is an error). bad is true, with the failure's verdict, when
// either fails.
func runStrict(ctx context.Context, x *Exec, db, gold, pred string) (gs, ps *result.Set, v Verdict, bad bool) {
	gs, gerr := strict(x.Gold(ctx, db, gold))
	var perr error
	if gerr == nil {
		ps, perr = strict(x.Pred(ctx, db, pred))
	}
	v, bad = failed(gerr, perr)
	return gs, ps, v, bad
}

// strict is a query's outcome as Python's sqlite3 with strict UTF-8
// decoding gives it: errUTF8 when a text cell of s is not UTF-8.
func strict(s *result.Set, err error) (*result.Set, error) {
	if err == nil && s.InvalidUTF8 {
		err = errUTF8
	}
	return s, err
}
