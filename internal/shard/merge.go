package shard

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/sqljudge/sqljudge/internal/outdir"
	"github.com/sqljudge/sqljudge/internal/report"
	"github.com/sqljudge/sqljudge/internal/report/htmlreport"
	"github.com/sqljudge/sqljudge/internal/run"
)

// ErrMerge is wrapped by every error about the shard folders given to
// Merge (a missing or unfinished shard, an item in two shards, shards of
// different runs): the user's input, not a failure of the tool.
var ErrMerge = errors.New("cannot merge")

// MergeOptions configure Merge.
type MergeOptions struct {
	// Out is the folder to write results.jsonl and summary.json into; it
	// is created if missing.
	Out string
	// Overwrite replaces an existing Out/results.jsonl; without it an
	// existing file is an error.
	Overwrite bool
}

// Merge joins the output folders of a sharded run (each written by
// `sqljudge eval --shard i/n`, in any order) into opts.Out:
// results.jsonl with every record in index order, byte for byte as a
// single run writes it, and summary.json computed from those records by
// report.Summarize (with em's partial table when the shards had it), so
// its counts and accuracies equal a single run's. wall_seconds is the
// longest shard's; run.graded and run.resumed are sums; run.merged_from
// lists the folders.
//
// Merge also writes opts.Out/fingerprint.json, the shards' common
// fingerprint, so that eval --resume on opts.Out works. It holds opts.Out's
// lock (outdir.Lock) while it writes: a folder another run writes to is
// outdir.ErrLocked.
//
// Each folder must hold a finished run: a summary.json naming its
// metrics, a results.jsonl with records and a fingerprint.json. It is an
// error (wrapping ErrMerge) when opts.Out is one of the folders, when the
// shards' fingerprints differ (other gold, predictions or tables, other
// grading options: the error lists the differences as eval --resume
// does), when shards disagree on n or on the metrics, when a shard number
// or an item index appears twice, or when a shard of 0..n-1 or an item of
// the benchmark is missing.
func Merge(dirs []string, opts MergeOptions) (*report.Summary, error) {
	if len(dirs) == 0 {
		return nil, fmt.Errorf("%w: no shard folder given", ErrMerge)
	}
	if err := checkOut(dirs, opts.Out); err != nil {
		return nil, err
	}
	m := &merger{seenShard: map[int]string{}, seenIndex: map[int]string{}, n: -1, total: -1}
	for _, d := range dirs {
		if err := m.add(d, dirs[0]); err != nil {
			return nil, err
		}
	}
	if err := m.complete(); err != nil {
		return nil, err
	}
	unlock, err := outdir.Lock(opts.Out)
	if err != nil {
		return nil, err
	}
	defer unlock()
	if err := writeRecords(opts, m.all); err != nil {
		return nil, err
	}
	if err := outdir.WriteFingerprint(opts.Out, m.fp); err != nil {
		return nil, err
	}
	sum, err := m.summary(dirs)
	if err != nil {
		return nil, err
	}
	if err := sum.Write(filepath.Join(opts.Out, report.SummaryFile)); err != nil {
		return nil, err
	}
	return sum, nil
}

// merger gathers the shard folders' records and summaries for Merge.
type merger struct {
	all       []run.Record        // every shard's latest records
	sums      []*report.Summary   // the shards' summaries, in folder order
	seenShard map[int]string      // shard i -> its folder
	seenIndex map[int]string      // item index -> its folder
	n         int                 // the shards' n, -1 before one names it
	total     int                 // the benchmark's item count, -1 when no summary gives it
	fp        *outdir.Fingerprint // the first folder's fingerprint, the shards' common one
}

// add reads folder d's summary.json and results.jsonl, checking that it
// graded the same metrics as folder first, that its shard i/n fits the
// others, and that it holds no item another folder holds.
func (m *merger) add(d, first string) error {
	sum, err := report.ReadSummary(filepath.Join(d, report.SummaryFile))
	if err == nil && (sum.Schema == "" || len(sum.Metrics) == 0) {
		err = fmt.Errorf("%s names no metric", report.SummaryFile)
	}
	if err != nil {
		return fmt.Errorf("%w: %s: no finished run (%v); run or --resume its eval first", ErrMerge, d, err)
	}
	if err := m.addFingerprint(d, first); err != nil {
		return err
	}
	if len(m.sums) > 0 && !slices.Equal(sum.Metrics, m.sums[0].Metrics) {
		return fmt.Errorf("%w: %s graded metrics %v, but %s graded %v", ErrMerge, d, sum.Metrics, first, m.sums[0].Metrics)
	}
	if sum.Run != nil && sum.Run.Shard != "" {
		if err := m.addShard(d, sum.Run.Shard); err != nil {
			return err
		}
	}
	if sum.Run != nil && sum.Run.ItemsTotal > 0 {
		m.total = sum.Run.ItemsTotal
	}
	if err := m.addRecords(d, sum.Items); err != nil {
		return err
	}
	m.sums = append(m.sums, sum)
	return nil
}

// addFingerprint reads folder d's fingerprint.json and checks that it
// equals the first folder's on every input and setting (a shard index,
// were one recorded there, aside): the shards were graded from the same
// gold, predictions and tables under the same options. An error lists
// what differs, as eval --resume does (outdir.Fingerprint.Diff).
func (m *merger) addFingerprint(d, first string) error {
	fp, err := outdir.ReadFingerprint(d)
	if errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("%w: %s has no %s (written by an older sqljudge), so its inputs and settings are unknown; grade it again with eval --overwrite", ErrMerge, d, outdir.FingerprintFile)
	}
	if err != nil {
		return fmt.Errorf("%w: %v", ErrMerge, err)
	}
	delete(fp.Settings, "shard")
	if m.fp == nil {
		m.fp = fp
		return nil
	}
	if diff := fp.Diff(m.fp); len(diff) > 0 {
		return fmt.Errorf("%w: %s was graded from other inputs or under other settings than %s:\n  %s\nshards must differ only in --shard; grade them again alike",
			ErrMerge, d, first, strings.Join(diff, "\n  "))
	}
	return nil
}

// checkOut refuses an output folder that is one of the shard folders
// (compared as absolute paths with symbolic links resolved).
func checkOut(dirs []string, out string) error {
	o := resolve(out)
	for _, d := range dirs {
		if resolve(d) == o {
			return fmt.Errorf("%w: --out %s is the shard folder %s; merge into a new folder", ErrMerge, out, d)
		}
	}
	return nil
}

// resolve is path made absolute and clean, with symbolic links resolved
// when it exists.
func resolve(path string) string {
	if p, err := filepath.EvalSymlinks(path); err == nil {
		path = p
	}
	if p, err := filepath.Abs(path); err == nil {
		return p
	}
	return filepath.Clean(path)
}

// addShard records that folder d is shard spec ("i/n"): an error when spec
// does not parse, when its n differs from the other folders', or when
// another folder is the same shard.
func (m *merger) addShard(d, spec string) error {
	sp, err := Parse(spec)
	if err != nil {
		return fmt.Errorf("%w: %s: %v", ErrMerge, filepath.Join(d, report.SummaryFile), err)
	}
	if m.n >= 0 && sp.N != m.n {
		return fmt.Errorf("%w: %s is shard %s, but other folders are shards of %d", ErrMerge, d, sp, m.n)
	}
	m.n = sp.N
	if prev, dup := m.seenShard[sp.I]; dup {
		return fmt.Errorf("%w: %s and %s are both shard %s", ErrMerge, prev, d, sp)
	}
	m.seenShard[sp.I] = d
	return nil
}

// addRecords adds the latest record of each item in folder d's
// results.jsonl: an error when they are not the items its summary counts,
// or when another folder already holds one of them.
func (m *merger) addRecords(d string, items int) error {
	path := filepath.Join(d, run.ResultsFile)
	recs, _, err := run.ReadRecords(path)
	if err != nil {
		return fmt.Errorf("%w: %v", ErrMerge, err)
	}
	latest := run.LatestInOrder(recs)
	if len(latest) == 0 {
		return fmt.Errorf("%w: %s holds no record, so %s is not a shard's output; run or --resume its eval first", ErrMerge, path, d)
	}
	if len(latest) != items {
		return fmt.Errorf("%w: %s has %d items but its summary.json counts %d; the folder was changed after its run", ErrMerge, path, len(latest), items)
	}
	for _, r := range latest {
		if prev, dup := m.seenIndex[r.Index]; dup {
			return fmt.Errorf("%w: item %d is in both %s and %s", ErrMerge, r.Index, prev, d)
		}
		m.seenIndex[r.Index] = d
		m.all = append(m.all, r)
	}
	return nil
}

// complete sorts the records by item index and checks that no shard of
// 0..n-1 is missing and, when the benchmark's item count is known, that
// every item 0..total-1 is there.
func (m *merger) complete() error {
	for i := 0; i < m.n; i++ {
		if _, ok := m.seenShard[i]; !ok {
			return fmt.Errorf("%w: shard %d/%d is missing", ErrMerge, i, m.n)
		}
	}
	slices.SortFunc(m.all, func(a, b run.Record) int { return a.Index - b.Index })
	if m.total >= 0 {
		if len(m.all) != m.total {
			return fmt.Errorf("%w: the shards hold %d of the benchmark's %d items", ErrMerge, len(m.all), m.total)
		}
		for k, r := range m.all {
			if r.Index != k {
				return fmt.Errorf("%w: item %d is in no shard", ErrMerge, k)
			}
		}
	}
	return nil
}

// summary summarizes the merged records as one run over dirs: the longest
// shard's wall time, the partial-matching table when the shards have one,
// and the gold hazards' counts when they ran with --audit.
func (m *merger) summary(dirs []string) (*report.Summary, error) {
	sum := report.Summarize(m.all, m.sums[0].Metrics)
	sum.Run = mergedRun(m.sums, dirs)
	for _, s := range m.sums {
		sum.WallSeconds = max(sum.WallSeconds, s.WallSeconds)
	}
	if sum.Run != nil && sum.Run.Audit {
		sum.GoldHazards = report.CountHazards(m.all)
	}
	if m.sums[0].Partial != nil {
		p, err := report.Partial(m.all, "em")
		if err != nil {
			return nil, fmt.Errorf("%w: %v", ErrMerge, err)
		}
		sum.Partial = p
	}
	return sum, nil
}

// mergedRun is the first shard's run block without its shard, with the
// counters summed over the shards and the folders listed.
func mergedRun(sums []*report.Summary, dirs []string) *report.RunInfo {
	out := report.RunInfo{}
	if sums[0].Run != nil {
		out = *sums[0].Run
	}
	out.Shard = ""
	out.Graded, out.Resumed = 0, 0
	for _, s := range sums {
		if s.Run != nil {
			out.Graded += s.Run.Graded
			out.Resumed += s.Run.Resumed
		}
	}
	out.MergedFrom = dirs
	return &out
}

// writeRecords writes records to opts.Out/results.jsonl as the runner
// does (run.WriteRecords), refusing an earlier run's file without
// opts.Overwrite, and removes an earlier run's summary.json and
// report.html.
func writeRecords(opts MergeOptions, recs []run.Record) error {
	path := filepath.Join(opts.Out, run.ResultsFile)
	if _, err := os.Stat(path); err == nil && !opts.Overwrite {
		return fmt.Errorf("%w: %s holds an earlier run; use --overwrite to replace it", outdir.ErrOutputExists, path)
	}
	// The replaced run's summary and page speak of other records; the
	// page is written again only with --html.
	for _, name := range []string{report.SummaryFile, htmlreport.File} {
		if err := os.Remove(filepath.Join(opts.Out, name)); err != nil && !errors.Is(err, os.ErrNotExist) {
			return fmt.Errorf("cannot remove the earlier run's %s: %w", name, err)
		}
	}
	return run.WriteRecords(path, recs)
}
