package eval

import (
	"context"
	"path/filepath"

	"github.com/sqljudge/sqljudge/internal/bench"
	"github.com/sqljudge/sqljudge/internal/report"
	"github.com/sqljudge/sqljudge/internal/run"
)

// Grade is eval's grading step, shared by Run and generate's grading: it
// runs r over items (r.Opts.OutDir/results.jsonl, see run.Runner), reads
// back every record of the folder (kept ones included, in file order) and
// summarizes them: report.Summarize over r's metrics, in r.Metrics' order,
// with WallSeconds the run's wall time. The summary is not written: the
// caller adds what it knows (Run its run block) and writes it. Errors are
// r.Run's (the records written before stay) or results.jsonl's when it
// cannot be read back.
func Grade(ctx context.Context, r *run.Runner, items []bench.Item) (*report.Summary, []run.Record, run.Stats, error) {
	stats, err := r.Run(ctx, items)
	if err != nil {
		return nil, nil, stats, err
	}
	recs, _, err := run.ReadRecords(filepath.Join(r.Opts.OutDir, run.ResultsFile))
	if err != nil {
		return nil, nil, stats, err
	}
	names := make([]string, len(r.Metrics))
	for i, m := range r.Metrics {
		names[i] = m.Name()
	}
	sum := report.Summarize(recs, names)
	sum.WallSeconds = stats.Wall.Seconds()
	return sum, recs, stats, nil
}
