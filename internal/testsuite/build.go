package testsuite

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"sync"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/sqljudge/sqljudge/internal/engine/sqlite"
)

// ReportFile is the name of the build report in a suite folder.
const ReportFile = "suite.json"

// Report is suite.json: how a suite was built.
type Report struct {
	Schema string `json:"schema"`
	Seed   uint64 `json:"seed"`
	// Settings of the build.
	Budget       int     `json:"budget"`
	Batch        int     `json:"batch"`
	Patience     int     `json:"patience"`
	MaxDatabases int     `json:"max_databases"`
	KeepDistinct bool    `json:"keep_distinct"`
	TimeoutSec   float64 `json:"timeout_seconds"`
	// DBs holds one report per db_id, sorted by db_id.
	DBs []*DBReport `json:"databases"`
	// Totals over every db_id.
	Total DBReport `json:"total"`
	// Coverage is Covered / Distinguished over every db_id.
	Coverage float64 `json:"coverage"`
	// MeanDatabases is the mean suite size per db_id.
	MeanDatabases float64 `json:"mean_databases"`
	// Seconds is the wall time of the build.
	Seconds float64 `json:"seconds"`
}

// Build builds a test suite for every db_id of golds (db_id -> gold
// queries) from the original databases of the SQLite engine root dbDir, and
// writes it to outDir in the official layout: outDir/<db_id>/<db_id>.sqlite
// (the original) and outDir/<db_id>/<db_id>_<k>.sqlite (the kept fuzzed
// databases), plus outDir/suite.json. db_ids are built in parallel.
func Build(ctx context.Context, dbDir string, golds map[string][]string, outDir string, o Options) (*Report, error) {
	o.defaults()
	start := time.Now()
	workers := o.Workers
	if workers <= 0 {
		workers = runtime.NumCPU()
	}
	src := sqlite.New(dbDir, sqlite.Options{})
	defer src.Close()
	ids := make([]string, 0, len(golds))
	for id := range golds {
		ids = append(ids, id)
	}
	// Largest first, so the longest builds start early.
	sort.Slice(ids, func(a, b int) bool {
		if len(golds[ids[a]]) != len(golds[ids[b]]) {
			return len(golds[ids[a]]) > len(golds[ids[b]])
		}
		return ids[a] < ids[b]
	})
	var mu sync.Mutex
	reps := map[string]*DBReport{}
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(workers)
	for _, id := range ids {
		g.Go(func() error {
			rep, err := buildOne(gctx, src, id, golds[id], outDir, o)
			if err != nil {
				return err
			}
			mu.Lock()
			defer mu.Unlock()
			reps[id] = rep
			if o.Log != nil {
				fmt.Fprintf(o.Log, "%-32s %2d databases  %5d/%5d neighbours told apart  %5.1fs\n", id, rep.Databases, rep.Covered, rep.Runnable, rep.Seconds)
			}
			return nil
		})
	}
	if err := g.Wait(); err != nil {
		return nil, err
	}
	sort.Strings(ids)
	r := newReport(o, ids, reps)
	r.Seconds = time.Since(start).Seconds()
	b, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return nil, err
	}
	if err := os.WriteFile(filepath.Join(outDir, ReportFile), append(b, '\n'), 0o644); err != nil {
		return nil, err
	}
	return r, nil
}

// buildOne builds the suite of db_id id in outDir/id: the original
// database copied as id.sqlite, then the distilled fuzzed databases,
// sampled in a scratch folder removed at the end.
func buildOne(ctx context.Context, src *sqlite.Engine, id string, golds []string, outDir string, o Options) (*DBReport, error) {
	orig, err := src.Path(id)
	if err != nil {
		return nil, err
	}
	dir := filepath.Join(outDir, id)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	if err := copyFile(orig, filepath.Join(dir, id+".sqlite")); err != nil {
		return nil, err
	}
	tmp, err := os.MkdirTemp(outDir, ".build-"+id+"-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(tmp)
	eng := sqlite.New("", sqlite.Options{MaxRows: o.MaxRows, MaxConns: 1})
	defer eng.Close()
	b := &builder{o: o, eng: eng, dbID: id, orig: orig, out: dir, tmp: tmp}
	rep, err := b.build(ctx, golds)
	if err != nil {
		return nil, fmt.Errorf("suite of %s: %w", id, err)
	}
	return rep, nil
}

// newReport gathers the reports of the db_ids ids (sorted) into the
// suite's report, with their totals, coverage and mean databases.
func newReport(o Options, ids []string, reps map[string]*DBReport) *Report {
	r := &Report{Schema: "sqljudge.suite/v1", Seed: o.Seed, Budget: o.Budget, Batch: o.Batch, Patience: o.Patience,
		MaxDatabases: o.MaxDatabases, KeepDistinct: o.KeepDistinct, TimeoutSec: o.Timeout.Seconds()}
	for _, id := range ids {
		d := reps[id]
		r.DBs = append(r.DBs, d)
		t := &r.Total
		t.Databases += d.Databases
		t.Golds += d.Golds
		t.Generated += d.Generated
		t.Runnable += d.Runnable
		t.Distinguished += d.Distinguished
		t.Covered += d.Covered
		t.NeverDistinguished += d.NeverDistinguished
		t.ByOriginal += d.ByOriginal
		t.Sampled += d.Sampled
		t.Discarded += d.Discarded
	}
	r.Total.DBID = "total"
	if r.Total.Distinguished > 0 {
		r.Coverage = float64(r.Total.Covered) / float64(r.Total.Distinguished)
	}
	if len(ids) > 0 {
		r.MeanDatabases = float64(r.Total.Databases) / float64(len(ids))
	}
	return r
}

func copyFile(src, dst string) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.Create(dst)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}
