package eval

import (
	"context"
	"fmt"
	"io"
	"path/filepath"

	"github.com/sqljudge/sqljudge/internal/metric"
	"github.com/sqljudge/sqljudge/internal/report"
	"github.com/sqljudge/sqljudge/internal/report/htmlreport"
	"github.com/sqljudge/sqljudge/internal/run"
)

// MaxSamples bounds how many items' results the HTML page re-reads for
// its diffs.
const MaxSamples = 2000

// WriteHTML writes the HTML report of r to path atomically (a temporary
// file renamed over it); a failure leaves no partial page.
func WriteHTML(path string, r *htmlreport.Run, opts htmlreport.Options) error {
	err := run.WriteFileAtomic(path, func(w io.Writer) error {
		return htmlreport.Write(w, r, opts)
	})
	if err != nil {
		return fmt.Errorf("cannot write the HTML report: %w", err)
	}
	return nil
}

// writeRunHTML writes OUT/report.html after a run, with result diffs read
// through the run's environment (gold results from its cache).
func writeRunHTML(ctx context.Context, out string, sum *report.Summary, recs []run.Record, env *metric.Env) error {
	r := &htmlreport.Run{Dir: out, Summary: sum, Records: run.LatestInOrder(recs)}
	r.Samples = htmlreport.Samples(ctx, env, r.Records, MaxSamples)
	return WriteHTML(filepath.Join(out, htmlreport.File), r, htmlreport.Options{})
}
