package metric

import (
	"context"
	"errors"
	"fmt"
	"math"
	"runtime"
	"time"

	"github.com/sqljudge/sqljudge/internal/bench"
	"github.com/sqljudge/sqljudge/internal/result"
	"github.com/sqljudge/sqljudge/internal/status"
)

func init() {
	Register("ves", "BIRD Valid Efficiency Score (DAMO-ConvAI evaluation_ves.py): sqrt(gold/pred time ratio) when the row sets are equal; summary x100", func(o Options) (Metric, error) {
		if err := o.VES.check(); err != nil {
			return nil, err
		}
		return &VES{Repeats: o.VES.Repeats}, nil
	})
	Register("rves", "BIRD mini-dev Reward-based VES (evaluation_ves.py): sqrt(reward bin of the time ratio) when the row sets are equal; summary x100", func(o Options) (Metric, error) {
		if err := o.VES.check(); err != nil {
			return nil, err
		}
		return &RVES{Repeats: o.VES.Repeats}, nil
	})
	RegisterSetting(Setting{
		Flag: "ves-repeats", Metrics: []string{"ves", "rves"}, Default: DefaultVESRepeats,
		Help:        "ves, rves: timed runs of each predicted and gold query (mini-dev's iterate_num); items then run one at a time",
		Field:       func(o *Options) any { return &o.VES.Repeats },
		Fingerprint: "ves_repeats", Record: Always,
		Check: func(o *Options) error {
			if o.VES.Repeats < 1 {
				return errors.New("--ves-repeats must be at least 1")
			}
			return nil
		},
		// In the run block only when ves or rves timed queries.
		RunInfo: "ves_repeats", RunInfoRecord: WhenUsed,
	})
	RegisterFigure("ves", Figure{Name: "VES x100", Scale: 100, Bootstrap: true})
	RegisterFigure("rves", Figure{Name: "R-VES x100", Scale: 100, Bootstrap: true})
}

// DefaultVESRepeats is mini-dev's iterate_num: how many times each query
// of an item is timed; eval's --ves-repeats defaults to it.
const DefaultVESRepeats = 100

// VESOptions are the options of ves and rves.
type VESOptions struct {
	// Repeats is how many times each predicted and gold query is timed
	// (eval's --ves-repeats), at least 1.
	Repeats int
}

func (o VESOptions) check() error {
	if o.Repeats < 1 {
		return fmt.Errorf("--ves-repeats %d: each query is timed at least once", o.Repeats)
	}
	return nil
}

// Efficiency is one item's timing, shared by ves and rves: whether the
// predicted rows equal the gold rows as sets (BIRD's EX), and the mean
// ratio r of gold to predicted run time after the 3-sigma filter.
type Efficiency struct {
	// Verdict is the failure verdict when a query failed (Status not ok).
	Verdict Verdict
	// Equal is set(pred rows) == set(gold rows).
	Equal bool
	// Ratio is r, 0 unless Equal.
	Ratio float64
	// Kept is how many of the timed ratios passed the 3-sigma filter.
	Kept int
}

// MeasureEfficiency runs and times an item's queries as BIRD's
// iterated_execute_sql does (mini-dev evaluation/evaluation_ves.py l.49-81;
// DAMO-ConvAI bird/llm/src/evaluation_ves.py): both queries run once and
// their row sets are compared; only when they are equal, after one
// untimed warm-up run of each, the predicted and then the gold query are
// timed repeats times in turn on the same engine (one at a time; a
// monotonic clock around execute and fetch), ratio_k = t_gold / t_pred,
// ratios outside mean ± 3 std (numpy's population std) are dropped
// (clean_abnormal) and r is the mean of the rest. When every ratio is the
// same (std 0) the official filter keeps none and its division by zero
// scores the item 0; here all are kept. A failure, timeout or a text cell
// that is not UTF-8 on either side gives a failure Verdict; repeats below
// 1 gives an internal_error Verdict.
func MeasureEfficiency(ctx context.Context, x *Exec, it *bench.Item, repeats int) Efficiency {
	if repeats < 1 {
		return Efficiency{Verdict: Verdict{Status: status.InternalError, Detail: fmt.Sprintf("%d timed runs per query: at least 1 is needed", repeats)}}
	}
	var last Efficiency
	for _, gold := range it.Gold {
		gs, ps, v, bad := runStrict(ctx, x, it.DBID, gold, it.Pred)
		if bad {
			last = Efficiency{Verdict: v}
			continue
		}
		if !result.BirdEqual(gs, ps) {
			last = Efficiency{Verdict: Verdict{Status: status.OK}}
			continue
		}
		return timeRatio(ctx, x.env, it.DBID, gold, it.Pred, repeats)
	}
	return last
}

func timeRatio(ctx context.Context, env *Env, db, gold, pred string, repeats int) Efficiency {
	// A collection now makes one during the timed runs unlikely (their
	// results are small and dropped), and a locked thread keeps the
	// goroutine from migrating between them: both pauses would land on
	// one side of a ratio.
	runtime.GC()
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	for _, q := range []struct {
		sql string
		st  status.Status
	}{{pred, status.PredError}, {gold, status.GoldError}} {
		if _, err := env.timed(ctx, db, q.sql); err != nil {
			return Efficiency{Verdict: failure(err, q.st)}
		}
	}
	ratios := make([]float64, 0, repeats)
	for range repeats {
		tp, err := env.timed(ctx, db, pred)
		if err != nil {
			return Efficiency{Verdict: failure(err, status.PredError)}
		}
		tg, err := env.timed(ctx, db, gold)
		if err != nil {
			return Efficiency{Verdict: failure(err, status.GoldError)}
		}
		ratios = append(ratios, tg.Seconds()/max(tp.Seconds(), 1e-9))
	}
	kept := cleanAbnormal(ratios)
	s := 0.0
	for _, r := range kept {
		s += r
	}
	return Efficiency{Verdict: Verdict{Status: status.OK}, Equal: true, Ratio: s / float64(len(kept)), Kept: len(kept)}
}

// timed runs sql with the per-query timeout and returns its wall time
// (execute and fetch), measured with Go's monotonic clock.
func (e *Env) timed(ctx context.Context, db, sql string) (time.Duration, error) {
	ctx, cancel := e.withTimeout(ctx)
	defer cancel()
	start := time.Now()
	_, err := e.Engine.Query(ctx, db, sql)
	return time.Since(start), err
}

// cleanAbnormal is clean_abnormal: the values strictly within mean ± 3
// population standard deviations, in order; all of them when none is.
func cleanAbnormal(xs []float64) []float64 {
	mean := 0.0
	for _, x := range xs {
		mean += x
	}
	mean /= float64(len(xs))
	v := 0.0
	for _, x := range xs {
		v += (x - mean) * (x - mean)
	}
	std := math.Sqrt(v / float64(len(xs)))
	var out []float64
	for _, x := range xs {
		if x < mean+3*std && x > mean-3*std {
			out = append(out, x)
		}
	}
	if len(out) == 0 {
		return xs
	}
	return out
}

// efficiency returns the item's Efficiency, measured once for ves and
// rves together.
func efficiency(ctx context.Context, x *Exec, it *bench.Item, repeats int) Efficiency {
	return x.once("efficiency", func() any { return MeasureEfficiency(ctx, x, it, repeats) }).(Efficiency)
}

// VES is the original BIRD Valid Efficiency Score
// (AlibabaResearch/DAMO-ConvAI, bird/llm/src/evaluation_ves.py:
// iterated_execute_sql, compute_ves): an item scores sqrt(r), r the mean
// gold/predicted time ratio of MeasureEfficiency, when the predicted rows
// equal the gold rows as sets, else 0 (a failing, timed-out or wrong
// prediction). VES is 100 x the mean score (the summary's figure).
//
// The verdict carries VESDetails "score" and "ratio" (r); correct is the row-set
// equality. The official script times cursor.execute alone; sqljudge
// times execute and fetch, as mini-dev does.
type VES struct {
	// Repeats is the number of timed runs of each query, at least 1
	// (MeasureEfficiency).
	Repeats int
}

// Name returns "ves".
func (m *VES) Name() string { return "ves" }

// Grade times the item's queries (shared with rves) and scores sqrt(r).
func (m *VES) Grade(ctx context.Context, x *Exec, it *bench.Item) Verdict {
	e := efficiency(ctx, x, it, m.Repeats)
	v := e.Verdict
	v.Correct = e.Equal
	v.Details = VESDetails{Score: math.Sqrt(e.Ratio), Ratio: e.Ratio}
	return v
}

// RVES is BIRD mini-dev's Reward-based VES (bird-bench/mini_dev,
// evaluation/evaluation_ves.py: iterated_execute_sql, compute_ves): the
// ratio r of MeasureEfficiency is binned into a reward (RVESReward) and an
// item scores sqrt(reward); 0 when the predicted rows are not the gold
// rows as sets, or a query fails or times out. R-VES is 100 x the mean
// score (the summary's figure).
//
// The verdict carries RVESDetails "score", "reward" and "ratio" (r); correct is the
// row-set equality.
type RVES struct {
	// Repeats is the number of timed runs of each query, at least 1
	// (MeasureEfficiency).
	Repeats int
}

// Name returns "rves".
func (m *RVES) Name() string { return "rves" }

// Grade times the item's queries (shared with ves) and scores
// sqrt(reward).
func (m *RVES) Grade(ctx context.Context, x *Exec, it *bench.Item) Verdict {
	e := efficiency(ctx, x, it, m.Repeats)
	v := e.Verdict
	v.Correct = e.Equal
	rw := RVESReward(e.Ratio)
	v.Details = RVESDetails{Score: math.Sqrt(rw), Reward: rw, Ratio: e.Ratio}
	return v
}

// RVESReward is mini-dev's reward of a time ratio r (iterated_execute_sql):
// 0 for r == 0 (a wrong or failing prediction), 1.25 for r >= 2, 1 for
// 1 <= r < 2, 0.75 for 0.5 <= r < 1, 0.5 for 0.25 <= r < 0.5, else 0.25.
func RVESReward(r float64) float64 {
	switch {
	case r == 0:
		return 0
	case r >= 2:
		return 1.25
	case r >= 1:
		return 1
	case r >= 0.5:
		return 0.75
	case r >= 0.25:
		return 0.5
	}
	return 0.25
}
