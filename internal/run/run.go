// Package run is sqljudge's runner: it grades items with metrics on a
// bounded worker pool and streams one record per item to OUT/results.jsonl
// in input order as items complete, so a crash keeps every finished item and
// --resume picks up where a run stopped.
package run

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strings"
	"sync/atomic"
	"time"
	"unicode/utf8"

	"golang.org/x/sync/errgroup"

	"github.com/sqljudge/sqljudge/internal/bench"
	"github.com/sqljudge/sqljudge/internal/metric"
	"github.com/sqljudge/sqljudge/internal/outdir"
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
	Fingerprint *outdir.Fingerprint
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
	path := filepath.Join(r.Opts.OutDir, ResultsFile)
	unlock, err := outdir.Lock(r.Opts.OutDir)
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
	jn, err := outdir.OpenJournal(path, outdir.JSON[Record])
	if err != nil {
		return st, err
	}
	writeErr := r.grade(ctx, items, jobs, jn, keptSamples(prev))
	if err := jn.Close(); err != nil && writeErr == nil {
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
// line cut short (outdir.ResumeJournal), and checks that the records belong to these items. The
// records are returned by the position of their item in items (the last
// record of an item wins, as in Latest).
func (r *Runner) previous(path string, items []bench.Item) (map[int]Record, bool, error) {
	_, statErr := os.Stat(path)
	exists := statErr == nil
	switch {
	case !exists:
		return nil, true, nil
	case !r.Opts.Resume && !r.Opts.Overwrite:
		return nil, false, fmt.Errorf("%w: %s holds an earlier run; use --resume to continue it or --overwrite to replace it", outdir.ErrOutputExists, path)
	case !r.Opts.Resume:
		return nil, true, os.Remove(path)
	}
	var recs []Record
	if err := outdir.ResumeJournal(path, recordReader(path, &recs)); err != nil {
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
func (r *Runner) grade(ctx context.Context, items []bench.Item, jobs []job, jn *outdir.Journal[Record], samples int) error {
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
	g.Go(func() error { return r.writeInOrder(gctx, results, slots, jn, samples) })
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

// writeInOrder puts the records received on results into the journal jn,
// which writes them in job order, holding back those that come early; per
// record written it frees a slot, ticks the progress bar and tells Watch.
// It returns when results is closed or ctx ends, or with the first write
// or Watch error. samples counts the records that keep their Sample, up to
// Options.Samples (later ones are written without).
func (r *Runner) writeInOrder(ctx context.Context, results <-chan done, slots <-chan struct{}, jn *outdir.Journal[Record], samples int) error {
	jn.Before = func(rec *Record) {
		if rec.Sample == nil {
			return
		}
		if samples >= r.Opts.Samples {
			rec.Sample = nil
		} else {
			samples++
		}
	}
	jn.After = func(rec Record) error {
		<-slots
		if r.Opts.Progress != nil {
			r.Opts.Progress.Done()
		}
		if r.Opts.Watch == nil {
			return nil
		}
		return r.Opts.Watch(rec)
	}
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
		if err := jn.Put(d.idx, d.rec); err != nil {
			return err
		}
	}
}

// EmptyPredictionDetail is the detail of a verdict on an empty prediction
// (blank, or only comments and semicolons) that has no detail of its own:
// such a prediction runs as the official evaluators run it, a query
// returning no rows, so its verdict alone does not tell it apart.
const EmptyPredictionDetail = "empty prediction: no statement, graded as a query returning no rows"

// emptyDetail is the detail of a verdict on an empty prediction:
// EmptyPredictionDetail, with the metric's own detail after it when it has
// one (em's: the official parser's error on no token).
func emptyDetail(own string) string {
	if own == "" {
		return EmptyPredictionDetail
	}
	return "empty prediction: no statement (" + own + ")"
}

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
		if blank {
			v.Detail = emptyDetail(v.Detail)
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
// (outdir.WriteJSONL).
func WriteRecords(path string, recs []Record) error {
	return outdir.WriteJSONL(path, recs, outdir.JSON[Record])
}

// checkFingerprint refuses a resumed run whose fingerprint differs from
// the stored one. An output folder with records but no fingerprint (written
// before fingerprints existed) is refused too: its settings are unknown.
func (r *Runner) checkFingerprint() error {
	fp := r.Opts.Fingerprint
	if fp == nil || !r.Opts.Resume {
		return nil
	}
	dir := r.Opts.OutDir
	old, err := outdir.ReadFingerprint(dir)
	if errors.Is(err, os.ErrNotExist) {
		if _, err := os.Stat(filepath.Join(dir, ResultsFile)); err != nil {
			return nil // nothing to resume: a fresh run
		}
		return fmt.Errorf("%w: %s has no %s (written by an older sqljudge), so its settings are unknown; use --overwrite to grade again, or a new --out",
			outdir.ErrSettingsChanged, dir, outdir.FingerprintFile)
	}
	if err != nil {
		return fmt.Errorf("cannot resume: %w", err)
	}
	if d := fp.Diff(old); len(d) > 0 {
		return fmt.Errorf("%w since the run in %s:\n  %s\nuse --overwrite to grade every item again under the new settings, or a new --out",
			outdir.ErrSettingsChanged, dir, strings.Join(d, "\n  "))
	}
	return nil
}

// writeFingerprint writes OUT/fingerprint.json atomically.
func (r *Runner) writeFingerprint() error {
	if r.Opts.Fingerprint == nil {
		return nil
	}
	return outdir.WriteFingerprint(r.Opts.OutDir, r.Opts.Fingerprint)
}
