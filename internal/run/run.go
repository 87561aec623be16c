// Package run is sqljudge's runner: it grades items with metrics on a
// bounded worker pool and streams one record per item to OUT/results.jsonl
// in input order as items complete, so a crash keeps every finished item and
// --resume picks up where a run stopped.
package run

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"sync/atomic"
	"time"
	"unicode/utf8"

	"golang.org/x/sync/errgroup"

	"github.com/sqljudge/sqljudge/internal/bench"
	"github.com/sqljudge/sqljudge/internal/metric"
	"github.com/sqljudge/sqljudge/internal/result"
	"github.com/sqljudge/sqljudge/internal/sqllex"
	"github.com/sqljudge/sqljudge/internal/status"
)

// Options configure a Runner.
type Options struct {
	// OutDir is the output folder; it is created if missing.
	OutDir string
	// Workers is the number of items graded at once; 0 means the number of
	// CPUs.
	Workers int
	// Resume keeps the records already in OutDir/results.jsonl and grades
	// only the items (or metrics) they lack, and the verdicts
	// metric.Regrade asks to grade again (internal_error, judge_error).
	Resume bool
	// Overwrite replaces an existing results.jsonl; without it (and without
	// Resume) an existing file is an error, so no finished run is lost.
	Overwrite bool
	// Difficulty labels an item for the per-difficulty report (BIRD's
	// difficulty, Spider's hardness); nil uses the item's own Difficulty.
	Difficulty func(*bench.Item) string
	// Progress, if set, is told about each finished item.
	Progress Progress
	// Fingerprint, if set, names the inputs and settings the verdicts
	// depend on. A run writes it to OutDir/fingerprint.json; a resumed run
	// whose fingerprint differs from the one stored is refused with
	// ErrSettingsChanged before anything is graded, so no results.jsonl
	// mixes verdicts graded under different settings.
	Fingerprint *Fingerprint
	// Samples is the most records of the run that keep a Sample of their
	// wrong result (Record.Sample), the first in input order; records kept
	// by --resume count first. 0 keeps none.
	Samples int
	// Derived names files in OutDir computed from results.jsonl (the
	// summary, the HTML page). Run removes them once it holds the folder
	// and has accepted its records, before it grades, so that a run cut
	// short (killed after --overwrite replaced the records) leaves none
	// that speaks of other records; the caller writes them anew at the end.
	Derived []string
	// Watch, if set, is told of each record once it is written, in input
	// order; an error from it stops the run (Run returns that error, and
	// the records written so far stay), as a check on the first verdicts
	// (eval's gold-error check) needs.
	Watch func(Record) error
	// GoldHazards, if set, is asked for each graded item's gold hazards
	// (eval --audit), stored in its record beside the verdicts.
	GoldHazards func(ctx context.Context, it *bench.Item) []GoldHazard
}

// Progress is told how far a run has got.
type Progress interface {
	// Start is called once with the number of items to grade.
	Start(total int)
	// Done is called once per graded item.
	Done()
	// Finish is called at the end.
	Finish()
}

// Runner grades items with metrics.
type Runner struct {
	Env     *metric.Env
	Metrics []metric.Metric
	Opts    Options
}

// Stats tells what a run did.
type Stats struct {
	// Items is the number of items of the benchmark; Graded were graded by
	// this run, Resumed were kept from an earlier one.
	Items, Graded, Resumed int
	// Wall is the run's wall time.
	Wall time.Duration
}

// ErrOutputExists is returned when results.jsonl exists and neither Resume
// nor Overwrite is set.
var ErrOutputExists = errors.New("output already exists")

// window bounds how many graded items may wait for a slower earlier one
// before being written, per worker.
const window = 64

type job struct {
	idx     int
	metrics []metric.Metric
	prev    map[string]metric.Verdict
	// sample is the kept record's sample, if any.
	sample *result.Sample
}

type done struct {
	idx int
	rec Record
}

// Run grades items and writes OutDir/results.jsonl. It returns when every
// item is written, ctx is cancelled, or a write fails; records written
// before an error stay in the file.
func (r *Runner) Run(ctx context.Context, items []bench.Item) (Stats, error) {
	start := time.Now()
	st := Stats{Items: len(items)}
	if err := os.MkdirAll(r.Opts.OutDir, 0o755); err != nil {
		return st, fmt.Errorf("cannot create output folder: %w", err)
	}
	path := filepath.Join(r.Opts.OutDir, ResultsFile)
	unlock, err := LockOutput(r.Opts.OutDir)
	if err != nil {
		return st, err
	}
	defer unlock()
	if err := r.checkFingerprint(); err != nil {
		return st, err
	}
	prev, inOrder, err := r.previous(path, items)
	if err != nil {
		return st, err
	}
	if err := r.writeFingerprint(); err != nil {
		return st, err
	}
	for _, name := range r.Opts.Derived {
		if err := os.Remove(filepath.Join(r.Opts.OutDir, name)); err != nil && !errors.Is(err, os.ErrNotExist) {
			return st, fmt.Errorf("cannot remove the earlier run's %s: %w", name, err)
		}
	}
	var jobs []job
	for i := range items {
		p, ok := prev[i]
		var missing []metric.Metric
		for _, m := range r.Metrics {
			if v, have := p.Verdicts[m.Name()]; !ok || !have || metric.Regrade(v) {
				missing = append(missing, m)
			}
		}
		if len(missing) == 0 {
			st.Resumed++
			continue
		}
		jobs = append(jobs, job{idx: i, metrics: missing, prev: p.Verdicts, sample: p.Sample})
	}
	// Records already on disk stay; new ones are appended. If the kept
	// records are not a prefix of the items, or some are updated, the file
	// is rewritten in input order at the end.
	rewrite := !inOrder
	for _, j := range jobs {
		if j.prev != nil {
			rewrite = true
			break
		}
	}
	if !rewrite && len(jobs) > 0 && len(prev) > 0 && jobs[0].idx < len(prev) {
		rewrite = true
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o644)
	if err != nil {
		return st, fmt.Errorf("cannot open %s: %w", path, err)
	}
	w := bufio.NewWriterSize(f, 1<<16)
	writeErr := r.grade(ctx, items, jobs, w, keptSamples(prev))
	if err := w.Flush(); err != nil && writeErr == nil {
		writeErr = err
	}
	if err := f.Close(); err != nil && writeErr == nil {
		writeErr = err
	}
	st.Graded = len(jobs)
	if writeErr == nil && ctx.Err() == nil && rewrite {
		writeErr = rewriteInOrder(path)
	}
	st.Wall = time.Since(start)
	if writeErr != nil {
		return st, writeErr
	}
	return st, ctx.Err()
}

// previous reads the records of an earlier run when resuming, truncates a
// line cut short, and checks that the records belong to these items. The
// records are returned by the position of their item in items (the last
// record of an item wins, as in Latest).
func (r *Runner) previous(path string, items []bench.Item) (map[int]Record, bool, error) {
	_, statErr := os.Stat(path)
	exists := statErr == nil
	switch {
	case !exists:
		return nil, true, nil
	case !r.Opts.Resume && !r.Opts.Overwrite:
		return nil, false, fmt.Errorf("%w: %s holds an earlier run; use --resume to continue it or --overwrite to replace it", ErrOutputExists, path)
	case !r.Opts.Resume:
		return nil, true, os.Remove(path)
	}
	recs, valid, err := ReadRecords(path)
	if err != nil {
		return nil, false, fmt.Errorf("cannot resume: %w", err)
	}
	if err := os.Truncate(path, valid); err != nil {
		return nil, false, fmt.Errorf("cannot resume: %w", err)
	}
	// Items are found by their Index, which is their position unless the
	// run grades a shard (eval --shard): records keep global indexes.
	pos := make(map[int]int, len(items))
	for k := range items {
		pos[items[k].Index] = k
	}
	inOrder := true
	byPos := make(map[int]Record, len(recs))
	for k, rec := range recs {
		p, ok := pos[rec.Index]
		if !ok {
			return nil, false, fmt.Errorf("cannot resume: %s: record %d has index %d, which is not an item of this run (%d items); this output folder belongs to another benchmark or shard", path, k+1, rec.Index, len(items))
		}
		it := &items[p]
		if rec.ID != it.ID || rec.DBID != it.DBID {
			return nil, false, fmt.Errorf("cannot resume: %s: record %d is item %d id %q on %s, but the benchmark's item %d is id %q on %s; this output folder belongs to another run",
				path, k+1, rec.Index, rec.ID, rec.DBID, rec.Index, it.ID, it.DBID)
		}
		if rec.Pred != jsonRoundTrip(it.Pred) {
			return nil, false, fmt.Errorf("cannot resume: %s: record %d (item %d) was graded for another prediction; use a new --out or --overwrite", path, k+1, rec.Index)
		}
		if p != k {
			inOrder = false
		}
		byPos[p] = rec
	}
	return byPos, inOrder, nil
}

// jsonRoundTrip returns s as results.jsonl gives it back: encoding/json
// writes each invalid UTF-8 byte as U+FFFD.
func jsonRoundTrip(s string) string {
	if utf8.ValidString(s) {
		return s
	}
	b, _ := json.Marshal(s)
	var out string
	_ = json.Unmarshal(b, &out)
	return out
}

// grade runs the jobs on the worker pool and writes records in input order.
//
// The feeder, the workers and the writer are one errgroup under one
// context: whichever fails (a write error) or ends (ctx cancelled) stops
// the others, and no goroutine waits on a channel without also watching
// that context, so the run cannot hang. A metric that panics does not fail
// the run: its verdict for that item is internal_error (see gradeOne).
func (r *Runner) grade(ctx context.Context, items []bench.Item, jobs []job, w *bufio.Writer, samples int) error {
	workers := r.Opts.Workers
	if workers <= 0 {
		workers = runtime.NumCPU()
	}
	if r.Opts.Progress != nil {
		r.Opts.Progress.Start(len(jobs))
		defer r.Opts.Progress.Finish()
	}
	results := make(chan done, workers)
	slots := make(chan struct{}, workers*window)
	g, gctx := errgroup.WithContext(ctx)
	feed := make(chan int)
	g.Go(func() error { return feedJobs(gctx, len(jobs), slots, feed) })
	var live atomic.Int32
	live.Store(int32(workers))
	for range workers {
		g.Go(func() error {
			defer func() {
				if live.Add(-1) == 0 {
					close(results)
				}
			}()
			return r.work(gctx, items, jobs, feed, results)
		})
	}
	g.Go(func() error { return r.writeInOrder(gctx, results, slots, w, samples) })
	return g.Wait()
}

// feedJobs sends the job indexes 0..n-1 on feed, each once it holds a slot
// (so at most cap(slots) graded items wait to be written), and closes feed
// when done or when ctx ends. It never fails.
func feedJobs(ctx context.Context, n int, slots chan<- struct{}, feed chan<- int) error {
	defer close(feed)
	for k := range n {
		select {
		case slots <- struct{}{}:
		case <-ctx.Done():
			return nil
		}
		select {
		case feed <- k:
		case <-ctx.Done():
			return nil
		}
	}
	return nil
}

// work is one worker: it grades the jobs it receives from feed and sends
// each record on results, until feed is closed or ctx ends. It never fails.
func (r *Runner) work(ctx context.Context, items []bench.Item, jobs []job, feed <-chan int, results chan<- done) error {
	for k := range feed {
		rec := r.gradeOne(ctx, &items[jobs[k].idx], jobs[k])
		if ctx.Err() != nil {
			// Graded while the run was being stopped: its
			// queries may have been cut short, so it is not
			// written (a resumed run grades it again).
			return nil
		}
		select {
		case results <- done{idx: k, rec: rec}:
		case <-ctx.Done():
			return nil
		}
	}
	return nil
}

// writeInOrder writes the records received on results to w in job order,
// holding back those that come early, freeing a slot and ticking the
// progress bar per record written, and flushing w after each batch. It
// returns when results is closed or ctx ends, or with the first write
// error. samples counts the records that keep their Sample, up to
// Options.Samples (later ones are written without).
func (r *Runner) writeInOrder(ctx context.Context, results <-chan done, slots <-chan struct{}, w *bufio.Writer, samples int) error {
	pending := map[int]Record{}
	next := 0
	for {
		var d done
		var ok bool
		select {
		case d, ok = <-results:
		case <-ctx.Done():
			return nil
		}
		if !ok {
			return nil
		}
		pending[d.idx] = d.rec
		for {
			rec, ok := pending[next]
			if !ok {
				break
			}
			delete(pending, next)
			if rec.Sample != nil {
				if samples >= r.Opts.Samples {
					rec.Sample = nil
				} else {
					samples++
				}
			}
			if err := writeRecord(w, rec); err != nil {
				return err
			}
			next++
			<-slots
			if r.Opts.Progress != nil {
				r.Opts.Progress.Done()
			}
			if r.Opts.Watch == nil {
				continue
			}
			if err := r.Opts.Watch(rec); err != nil {
				if ferr := w.Flush(); ferr != nil {
					return fmt.Errorf("cannot write results: %w", ferr)
				}
				return err
			}
		}
		if err := w.Flush(); err != nil {
			return fmt.Errorf("cannot write results: %w", err)
		}
	}
}

// EmptyPredictionDetail is the detail of a verdict on an empty prediction
// (blank, or only comments and semicolons) that has no detail of its own:
// such a prediction runs as the official evaluators run it, a query
// returning no rows, so its verdict alone does not tell it apart.
const EmptyPredictionDetail = "empty prediction: no statement, graded as a query returning no rows"

// gradeOne grades one item with the job's metrics; the verdicts of an
// empty prediction carry EmptyPredictionDetail.
func (r *Runner) gradeOne(ctx context.Context, it *bench.Item, j job) Record {
	diff := it.Difficulty
	if r.Opts.Difficulty != nil {
		diff = r.Opts.Difficulty(it)
	}
	rec := NewRecord(it, diff)
	for k, v := range j.prev {
		rec.Verdicts[k] = v
	}
	x := r.Env.NewExec()
	blank := sqllex.IsBlank(it.Pred)
	for _, m := range j.metrics {
		v := gradeSafe(ctx, m, x, it)
		if blank && v.Detail == "" {
			v.Detail = EmptyPredictionDetail
		}
		rec.Verdicts[m.Name()] = v
	}
	if r.Opts.GoldHazards != nil {
		rec.GoldHazards = r.Opts.GoldHazards(ctx, it)
	}
	if rec.WrongResult() {
		rec.Sample = j.sample
		if s := x.Sample(ctx); s != nil {
			rec.Sample = s
		}
	}
	return rec
}

// keptSamples is the number of kept records (prev) with a Sample.
func keptSamples(prev map[int]Record) int {
	n := 0
	for _, r := range prev {
		if r.Sample != nil {
			n++
		}
	}
	return n
}

// gradeSafe is m.Grade with a panic turned into the item's verdict:
// status internal_error, the panic and its stack in detail (a bug of
// sqljudge, to report; --resume grades the item again).
func gradeSafe(ctx context.Context, m metric.Metric, x *metric.Exec, it *bench.Item) (v metric.Verdict) {
	defer func() {
		if p := recover(); p != nil {
			v = metric.Verdict{Status: status.InternalError,
				Detail: fmt.Sprintf("internal error: metric %s panicked grading item %d (%s): %v\n%s", m.Name(), it.Index, it.GoldPos, p, debug.Stack())}
		}
	}()
	return m.Grade(ctx, x, it)
}

func writeRecord(w io.Writer, rec Record) error {
	b, err := json.Marshal(rec)
	if err != nil {
		return fmt.Errorf("cannot encode record %d: %w", rec.Index, err)
	}
	b = append(b, '\n')
	if _, err := w.Write(b); err != nil {
		return fmt.Errorf("cannot write results: %w", err)
	}
	return nil
}

// rewriteInOrder rewrites results.jsonl with one record per index, the
// latest, in index order, atomically.
func rewriteInOrder(path string) error {
	recs, _, err := ReadRecords(path)
	if err != nil {
		return err
	}
	return WriteRecords(path, LatestInOrder(recs))
}

// WriteRecords writes recs to path as results.jsonl holds them (one JSON
// object and a newline each, in the order given), atomically
// (WriteFileAtomic).
func WriteRecords(path string, recs []Record) error {
	return WriteFileAtomic(path, func(f io.Writer) error {
		w := bufio.NewWriterSize(f, 1<<16)
		for _, r := range recs {
			if err := writeRecord(w, r); err != nil {
				return err
			}
		}
		return w.Flush()
	})
}
