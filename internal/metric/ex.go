package metric

import (
	"context"

	"github.com/sqljudge/sqljudge/internal/bench"
	"github.com/sqljudge/sqljudge/internal/result"
	"github.com/sqljudge/sqljudge/internal/sqllex"
	"github.com/sqljudge/sqljudge/internal/status"
)

func init() {
	Register("ex", "execution accuracy, Spider / test-suite semantics (exec_eval.result_eq)", func(o Options) (Metric, error) {
		return NewEX(o.EX), nil
	})
	RegisterSetting(Setting{
		Flag: "keep-distinct", Metrics: []string{"ex", "ts", "flex", "verdict"}, Default: false, Serve: true,
		Help:        "keep DISTINCT for ex (the official evaluator removes it from both queries)",
		Field:       func(o *Options) any { return &o.EX.KeepDistinct },
		Fingerprint: "keep_distinct", Record: Always, RunInfo: "keep_distinct",
	})
}

// EXOptions are ex's options, and those of the ex step of ts and flex.
type EXOptions struct {
	// KeepDistinct keeps DISTINCT in both queries (the official
	// --keep_distinct, eval's --keep-distinct); by default it is removed
	// from both.
	KeepDistinct bool
}

// NewEX returns ex with options o.
func NewEX(o EXOptions) *EX { return &EX{KeepDistinct: o.KeepDistinct} }

// EX is execution accuracy as Spider's official evaluator computes it
// (taoyds/test-suite-sql-eval: evaluation.py evaluate, exec_eval.py
// eval_exec_match on one database):
//
//  1. the prediction has every "value" replaced by "1" (evaluation.py:
//     `p_str = p_str.replace("value", "1")`, for systems that predict value
//     placeholders; a quirk that also rewrites identifiers containing the
//     lower-case word, reproduced);
//  2. both queries are postprocessed ("> =" to ">=") and, unless
//     KeepDistinct, stripped of every DISTINCT (parse.remove_distinct);
//  3. row order matters iff the processed gold contains "order by";
//  4. both run with YEAR(CURDATE()) replaced by 2020 and are compared with
//     result.SpiderEqualContext, bounded by the per-query timeout (a
//     comparison cut by it is a timeout verdict; the official search has
//     no bound). A prediction that is the gold query written differently
//     (Env.SamePred: keyword and name case, whitespace, comments) is not
//     run: its result is the gold's, so it is correct once the gold runs.
//
// With several gold alternatives the item is correct if any one matches.
type EX struct {
	// KeepDistinct keeps DISTINCT (the official --keep_distinct).
	KeepDistinct bool
}

// Name returns "ex".
func (m *EX) Name() string { return "ex" }

// Prepare returns the predicted and gold queries as eval_exec_match runs
// them, and whether row order matters (sqllex.PrepareEX with
// KeepDistinct).
func (m *EX) Prepare(pred, gold string) (p, g string, orderMatters bool) {
	return sqllex.PrepareEX(pred, gold, m.KeepDistinct)
}

// Grade runs both queries and compares their results.
func (m *EX) Grade(ctx context.Context, x *Exec, it *bench.Item) Verdict {
	var last Verdict
	for _, gold := range it.Gold {
		p, g, ordered := m.Prepare(it.Pred, gold)
		gs, gerr := x.Gold(ctx, it.DBID, g)
		if gerr == nil && x.Env().SamePred(p, g) {
			x.SkipPred(it.DBID, p) // the gold written differently: its result is the gold's
			return Verdict{Correct: true, Status: status.OK}
		}
		var ps *result.Set
		var perr error
		if gerr == nil {
			ps, perr = x.Pred(ctx, it.DBID, p)
		}
		if v, bad := failed(gerr, perr); bad {
			last = v
			continue
		}
		eq, err := x.Env().SpiderEqual(ctx, gs, ps, ordered)
		if err != nil {
			last = failure(err, status.PredError)
			continue
		}
		if eq {
			return Verdict{Correct: true, Status: status.OK}
		}
		last = Verdict{Status: status.OK}
	}
	return last
}
