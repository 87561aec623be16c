package eval

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/sqljudge/sqljudge/internal/report"
	"github.com/sqljudge/sqljudge/internal/report/htmlreport"
	"github.com/sqljudge/sqljudge/internal/run"
)

// cancelAfter is a run.Progress that cancels the run after n items, as a
// kill stops a process part way.
type cancelAfter struct {
	mu     sync.Mutex
	n      int
	cancel context.CancelFunc
}

func (c *cancelAfter) Start(int) {}
func (c *cancelAfter) Finish()   {}
func (c *cancelAfter) Done() {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.n--; c.n == 0 {
		c.cancel()
	}
}

// TestOverwriteCutShortLeavesNoStaleSummary is issue 21.2: an --overwrite
// run stopped after 7 of 20 items leaves no summary.json or report.html
// of the run it replaced; a summary left over anyway (by an older
// sqljudge) is refused by report.CheckFolder for its item count, and one
// of other settings for its settings.
func TestOverwriteCutShortLeavesNoStaleSummary(t *testing.T) {
	o := spiderOptions(t, 20)
	o.HTML = true
	if _, err := Run(context.Background(), o); err != nil {
		t.Fatal(err)
	}
	sumPath, pagePath := filepath.Join(o.Out, report.SummaryFile), filepath.Join(o.Out, htmlreport.File)
	old, err := os.ReadFile(sumPath)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(pagePath); err != nil {
		t.Fatal(err)
	}
	o2 := o
	o2.Overwrite, o2.Timeout, o2.Workers = true, 29*time.Second, 1
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	o2.Progress = &cancelAfter{n: 7, cancel: cancel}
	if _, err := Run(ctx, o2); err == nil || !strings.Contains(err.Error(), "interrupted") {
		t.Fatalf("cut-short run: %v", err)
	}
	for _, p := range []string{sumPath, pagePath} {
		if _, err := os.Stat(p); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("%s of the replaced run survives the cut-short --overwrite (%v)", filepath.Base(p), err)
		}
	}
	check := func() error {
		t.Helper()
		sum, err := report.ReadSummary(sumPath)
		if err != nil {
			t.Fatal(err)
		}
		recs, _, err := run.ReadRecords(filepath.Join(o.Out, run.ResultsFile))
		if err != nil {
			t.Fatal(err)
		}
		return report.CheckFolder(o.Out, sum, recs)
	}
	os.WriteFile(sumPath, old, 0o644) // as an older sqljudge left it
	if err := check(); !errors.Is(err, report.ErrStale) || !strings.Contains(err.Error(), "counts 20 items, results.jsonl holds") {
		t.Errorf("summary of 20 items over fewer records: %v", err)
	}
	o2.Overwrite, o2.Resume, o2.Progress = false, true, nil
	if _, err := Run(context.Background(), o2); err != nil {
		t.Fatal(err)
	}
	if err := check(); err != nil {
		t.Fatalf("a finished run's own summary: %v", err)
	}
	os.WriteFile(sumPath, old, 0o644) // the same verdicts, under --timeout 30s
	if err := check(); !errors.Is(err, report.ErrStale) || !strings.Contains(err.Error(), "timeout: 30s -> 29s") {
		t.Errorf("summary of other settings: %v", err)
	}
}
