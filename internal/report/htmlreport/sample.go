package htmlreport

import (
	"context"

	"github.com/sqljudge/sqljudge/internal/metric"
	"github.com/sqljudge/sqljudge/internal/result"
	"github.com/sqljudge/sqljudge/internal/run"
)

// Samples gives the records of an older run, written before records kept
// their samples, their result diffs: for every record with a wrong result
// (run.Record.WrongResult) and no Sample, it runs its first gold query
// and its prediction through env (the per-query timeout applies) and sets
// its Sample (result.Diff), for at most max records (counting those that
// have one), the first in order. A query that fails leaves a Sample with
// Err set. ctx stops it early. A run's own records need none of this.
func Samples(ctx context.Context, env *metric.Env, recs []run.Record, max int) {
	n := 0
	for i := range recs {
		r := &recs[i]
		if ctx.Err() != nil || n >= max {
			return
		}
		if r.Sample != nil {
			n++
			continue
		}
		if !r.WrongResult() {
			continue
		}
		n++
		r.Sample = sampleOf(ctx, env, r)
	}
}

// sampleOf runs r's first gold query and its prediction into a Sample.
func sampleOf(ctx context.Context, env *metric.Env, r *run.Record) *result.Sample {
	gold := r.Gold
	if len(r.GoldAlternatives) > 0 {
		gold = r.GoldAlternatives[0]
	}
	g, err := env.Gold(ctx, r.DBID, gold)
	if err != nil {
		return &result.Sample{Err: "gold: " + err.Error()}
	}
	p, err := env.NewExec().Pred(ctx, r.DBID, r.Pred)
	if err != nil {
		return &result.Sample{Err: "prediction: " + err.Error()}
	}
	return result.Diff(g, p)
}
