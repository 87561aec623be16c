package eval

import (
	"fmt"
	"io"
	"path/filepath"

	"github.com/sqljudge/sqljudge/internal/outdir"
	"github.com/sqljudge/sqljudge/internal/report"
	"github.com/sqljudge/sqljudge/internal/report/htmlreport"
	"github.com/sqljudge/sqljudge/internal/run"
)

// MaxSamples bounds how many records of a run keep a sample of their wrong
// result (run.Options.Samples) for the HTML page's diffs, and how many
// items report --db reads results for.
const MaxSamples = 2000

// WriteHTML writes the HTML report of r to path atomically (a temporary
// file renamed over it); a failure leaves no partial page.
func WriteHTML(path string, r *htmlreport.Run, opts htmlreport.Options) error {
	err := outdir.WriteFile(path, func(w io.Writer) error {
		return htmlreport.Write(w, r, opts)
	})
	if err != nil {
		return fmt.Errorf("cannot write the HTML report: %w", err)
	}
	return nil
}

// writeRunHTML writes OUT/report.html after a run from its records alone:
// the result diffs are the samples the runner kept while grading
// (run.Record.Sample), so no query runs again.
func writeRunHTML(out string, sum *report.Summary, recs []run.Record) error {
	r := &htmlreport.Run{Dir: out, Summary: sum, Records: run.LatestInOrder(recs)}
	return WriteHTML(filepath.Join(out, htmlreport.File), r, htmlreport.Options{})
}
