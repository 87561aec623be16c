package run_test

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/sqljudge/sqljudge/internal/bench"
	"github.com/sqljudge/sqljudge/internal/engine"
	"github.com/sqljudge/sqljudge/internal/engine/sqlite"
	"github.com/sqljudge/sqljudge/internal/metric"
	"github.com/sqljudge/sqljudge/internal/outdir"
	"github.com/sqljudge/sqljudge/internal/result"
	"github.com/sqljudge/sqljudge/internal/run"
	"github.com/sqljudge/sqljudge/internal/shareddata"
)

// spiderItems loads Spider dev with one system's predictions, cut to n
// items (all when n <= 0).
func spiderItems(t testing.TB, system string, n int) ([]bench.Item, string) {
	t.Helper()
	spider := shareddata.SubsetPath(t, "spider")
	items, err := bench.Load(bench.Options{
		Gold: filepath.Join(spider, "dev_gold.sql"),
		Pred: filepath.Join(spider, "predictions", system+".sql"),
	})
	if err != nil {
		t.Fatal(err)
	}
	if n > 0 && n < len(items) {
		items = items[:n]
	}
	return items, filepath.Join(spider, "database")
}

func newRunner(t testing.TB, db, out string, o run.Options) *run.Runner {
	t.Helper()
	eng := sqlite.New(db, sqlite.Options{})
	t.Cleanup(func() { eng.Close() })
	ms, err := metric.New([]string{"ex", "ex_bird"}, metric.Options{})
	if err != nil {
		t.Fatal(err)
	}
	o.OutDir = out
	return &run.Runner{Env: &metric.Env{Engine: eng, Timeout: 30 * time.Second}, Metrics: ms, Opts: o}
}

func readFile(t *testing.T, p string) []byte {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestRecordsInInputOrderAndDeterministic(t *testing.T) {
	items, db := spiderItems(t, "din_sql", 300)
	a, b := t.TempDir(), t.TempDir()
	st, err := newRunner(t, db, a, run.Options{Workers: 4}).Run(context.Background(), items)
	if err != nil {
		t.Fatal(err)
	}
	if st.Graded != len(items) || st.Resumed != 0 {
		t.Errorf("stats %+v", st)
	}
	if _, err := newRunner(t, db, b, run.Options{Workers: 1}).Run(context.Background(), items); err != nil {
		t.Fatal(err)
	}
	fa, fb := readFile(t, filepath.Join(a, run.ResultsFile)), readFile(t, filepath.Join(b, run.ResultsFile))
	if !bytes.Equal(fa, fb) {
		t.Fatal("4 workers and 1 worker wrote different results.jsonl")
	}
	recs, _, err := run.ReadRecords(filepath.Join(a, run.ResultsFile))
	if err != nil {
		t.Fatal(err)
	}
	ex := &metric.EX{}
	env := &metric.Env{Engine: sqlite.New(db, sqlite.Options{}), Timeout: 30 * time.Second}
	for i, r := range recs {
		if r.Index != i || r.ID != items[i].ID || r.DBID != items[i].DBID || r.Pred != items[i].Pred {
			t.Fatalf("record %d is %+v", i, r)
		}
		if len(r.Verdicts) != 2 {
			t.Fatalf("record %d verdicts %v", i, r.Verdicts)
		}
		if want := ex.Grade(context.Background(), env.NewExec(), &items[i]); r.Verdicts["ex"].Correct != want.Correct || r.Verdicts["ex"].Status != want.Status {
			t.Fatalf("record %d ex %+v, direct %+v", i, r.Verdicts["ex"], want)
		}
	}
}

func TestResumeAfterACrashMidRecord(t *testing.T) {
	items, db := spiderItems(t, "c3", 120)
	full := t.TempDir()
	if _, err := newRunner(t, db, full, run.Options{Workers: 2}).Run(context.Background(), items); err != nil {
		t.Fatal(err)
	}
	want := readFile(t, filepath.Join(full, run.ResultsFile))
	// A crash after 50 records, halfway through writing the 51st.
	lines := bytes.SplitAfter(want, []byte("\n"))
	crashed := append(bytes.Join(lines[:50], nil), lines[50][:len(lines[50])/2]...)
	out := t.TempDir()
	if err := os.WriteFile(filepath.Join(out, run.ResultsFile), crashed, 0o644); err != nil {
		t.Fatal(err)
	}
	st, err := newRunner(t, db, out, run.Options{Workers: 3, Resume: true}).Run(context.Background(), items)
	if err != nil {
		t.Fatal(err)
	}
	if st.Resumed != 50 || st.Graded != 70 {
		t.Errorf("stats %+v, want 50 resumed, 70 graded", st)
	}
	if got := readFile(t, filepath.Join(out, run.ResultsFile)); !bytes.Equal(got, want) {
		t.Fatal("resumed results.jsonl differs from an uninterrupted run's")
	}
	// Resuming a finished run grades nothing.
	st, err = newRunner(t, db, out, run.Options{Resume: true}).Run(context.Background(), items)
	if err != nil || st.Graded != 0 || st.Resumed != 120 {
		t.Fatalf("resume of a finished run: %+v %v", st, err)
	}
}

// cancelAfter cancels a run after n items are written.
type cancelAfter struct {
	n      int64
	done   atomic.Int64
	cancel context.CancelFunc
}

func (c *cancelAfter) Start(int) {}
func (c *cancelAfter) Finish()   {}
func (c *cancelAfter) Done() {
	if c.done.Add(1) == c.n {
		c.cancel()
	}
}

func TestInterruptedRunKeepsFinishedItemsAndResumes(t *testing.T) {
	items, db := spiderItems(t, "dail_sql_gpt35", 200)
	full := t.TempDir()
	if _, err := newRunner(t, db, full, run.Options{Workers: 2}).Run(context.Background(), items); err != nil {
		t.Fatal(err)
	}
	want := readFile(t, filepath.Join(full, run.ResultsFile))

	out := t.TempDir()
	ctx, cancel := context.WithCancel(context.Background())
	p := &cancelAfter{n: 40, cancel: cancel}
	_, err := newRunner(t, db, out, run.Options{Workers: 2, Progress: p}).Run(ctx, items)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("interrupted run: err = %v, want context.Canceled", err)
	}
	part := readFile(t, filepath.Join(out, run.ResultsFile))
	if n := bytes.Count(part, []byte("\n")); n < 40 || n >= len(items) || !bytes.HasPrefix(want, part) {
		t.Fatalf("interrupted run kept %d records; want a prefix of the full run of at least 40", n)
	}
	if _, err := newRunner(t, db, out, run.Options{Workers: 2, Resume: true}).Run(context.Background(), items); err != nil {
		t.Fatal(err)
	}
	if got := readFile(t, filepath.Join(out, run.ResultsFile)); !bytes.Equal(got, want) {
		t.Fatal("interrupted then resumed results.jsonl differs from an uninterrupted run's")
	}
}

func TestExistingOutputIsNotOverwrittenByAccident(t *testing.T) {
	items, db := spiderItems(t, "resdsql", 10)
	out := t.TempDir()
	if _, err := newRunner(t, db, out, run.Options{}).Run(context.Background(), items); err != nil {
		t.Fatal(err)
	}
	before := readFile(t, filepath.Join(out, run.ResultsFile))
	_, err := newRunner(t, db, out, run.Options{}).Run(context.Background(), items)
	if !errors.Is(err, outdir.ErrOutputExists) {
		t.Fatalf("second run without --resume or --overwrite: %v", err)
	}
	if !bytes.Equal(before, readFile(t, filepath.Join(out, run.ResultsFile))) {
		t.Fatal("refused run changed results.jsonl")
	}
	if _, err := newRunner(t, db, out, run.Options{Overwrite: true}).Run(context.Background(), items[:5]); err != nil {
		t.Fatal(err)
	}
	if n := bytes.Count(readFile(t, filepath.Join(out, run.ResultsFile)), []byte("\n")); n != 5 {
		t.Fatalf("overwrite left %d records, want 5", n)
	}
	// Resuming with another benchmark's items is refused.
	other, _ := spiderItems(t, "c3", 10)
	_, err = newRunner(t, db, out, run.Options{Resume: true}).Run(context.Background(), other)
	if err == nil || !strings.Contains(err.Error(), "another prediction") {
		t.Fatalf("resume with other predictions: %v", err)
	}
}

func TestResumeAddsAMetric(t *testing.T) {
	items, db := spiderItems(t, "resdsql", 30)
	out := t.TempDir()
	r := newRunner(t, db, out, run.Options{})
	r.Metrics = r.Metrics[:1] // ex only
	if _, err := r.Run(context.Background(), items); err != nil {
		t.Fatal(err)
	}
	st, err := newRunner(t, db, out, run.Options{Resume: true}).Run(context.Background(), items)
	if err != nil || st.Graded != 30 {
		t.Fatalf("%+v %v", st, err)
	}
	recs, _, err := run.ReadRecords(filepath.Join(out, run.ResultsFile))
	if err != nil {
		t.Fatal(err)
	}
	if len(recs) != 30 {
		t.Fatalf("%d records after adding a metric, want one per item", len(recs))
	}
	for i, r := range recs {
		if r.Index != i || len(r.Verdicts) != 2 {
			t.Fatalf("record %d: %+v", i, r)
		}
	}
}

// panicky wraps a metric and panics on one item.
type panicky struct {
	metric.Metric
	on int
}

func (p panicky) Name() string { return "ex" }
func (p panicky) Grade(ctx context.Context, x *metric.Exec, it *bench.Item) metric.Verdict {
	if it.Index == p.on {
		var m map[string]int
		m["boom"]++ // a nil map write: a runtime panic, as a metric bug would raise
	}
	return p.Metric.Grade(ctx, x, it)
}

// TestPanickingMetricDoesNotHangTheRun is issue 12.1: with 4 workers, a
// metric that panics on item 2 of 400 hung the run (the writer waited for
// item 2, the feeder for a slot, the workers for the feed). The panic is
// now item 2's verdict, internal_error with the stack, and the run goes on.
func TestPanickingMetricDoesNotHangTheRun(t *testing.T) {
	items, db := spiderItems(t, "resdsql", 0)
	out := t.TempDir()
	r := newRunner(t, db, out, run.Options{Workers: 4})
	r.Metrics = []metric.Metric{panicky{Metric: &metric.EX{}, on: 2}, r.Metrics[1]}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	st, err := r.Run(ctx, items)
	if err != nil {
		t.Fatalf("run: %v", err)
	}
	if st.Graded != len(items) {
		t.Fatalf("graded %d items, want %d", st.Graded, len(items))
	}
	recs, _, err := run.ReadRecords(filepath.Join(out, run.ResultsFile))
	if err != nil {
		t.Fatal(err)
	}
	if len(recs) != len(items) {
		t.Fatalf("%d records, want %d", len(recs), len(items))
	}
	for i, rec := range recs {
		v := rec.Verdicts["ex"]
		if i == 2 {
			if v.Status != "internal_error" || v.Correct || !strings.Contains(v.Detail, "assignment to entry in nil map") || !strings.Contains(v.Detail, "run_test.go") {
				t.Fatalf("item 2: ex verdict %+v; want internal_error with the panic and its stack", v)
			}
			if rec.Verdicts["ex_bird"].Status != "ok" {
				t.Fatalf("item 2: ex_bird verdict %+v; the other metric must still grade", rec.Verdicts["ex_bird"])
			}
			continue
		}
		if v.Status == "internal_error" {
			t.Fatalf("item %d: internal_error %s", i, v.Detail)
		}
	}
}

// TestResumeRefusesOtherSettings is issue 10.4: --resume after a grading
// flag or an input changed kept the verdicts graded under the old
// settings. The fingerprint in OUT/fingerprint.json now refuses it, naming
// what differs.
func TestResumeRefusesOtherSettings(t *testing.T) {
	items, db := spiderItems(t, "resdsql", 10)
	out := t.TempDir()
	fp := outdir.Fingerprint{Version: "v1", Inputs: map[string]string{"gold": "sha256:aa"}, Settings: map[string]string{"keep_distinct": "false", "max_rows": "100000"}}
	if _, err := newRunner(t, db, out, run.Options{Fingerprint: &fp}).Run(context.Background(), items); err != nil {
		t.Fatal(err)
	}
	before := readFile(t, filepath.Join(out, run.ResultsFile))
	changed := outdir.Fingerprint{Version: "v1", Inputs: map[string]string{"gold": "sha256:bb"}, Settings: map[string]string{"keep_distinct": "true", "max_rows": "100000"}}
	_, err := newRunner(t, db, out, run.Options{Resume: true, Fingerprint: &changed}).Run(context.Background(), items)
	if !errors.Is(err, outdir.ErrSettingsChanged) {
		t.Fatalf("resume under other settings: err = %v, want ErrSettingsChanged", err)
	}
	for _, want := range []string{"gold: sha256:aa -> sha256:bb", "keep_distinct: false -> true", "--overwrite"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q lacks %q", err, want)
		}
	}
	if !bytes.Equal(before, readFile(t, filepath.Join(out, run.ResultsFile))) {
		t.Fatal("a refused resume changed results.jsonl")
	}
	// The same settings resume; --overwrite starts again under new ones.
	same := fp
	if _, err := newRunner(t, db, out, run.Options{Resume: true, Fingerprint: &same}).Run(context.Background(), items); err != nil {
		t.Fatalf("resume under the same settings: %v", err)
	}
	if _, err := newRunner(t, db, out, run.Options{Overwrite: true, Fingerprint: &changed}).Run(context.Background(), items); err != nil {
		t.Fatalf("overwrite: %v", err)
	}
	if _, err := newRunner(t, db, out, run.Options{Resume: true, Fingerprint: &changed}).Run(context.Background(), items); err != nil {
		t.Fatalf("resume after overwrite: %v", err)
	}
}

// TestResumeWithInvalidUTF8Prediction: a prediction holding invalid UTF-8
// is written to results.jsonl with U+FFFD (encoding/json); resuming
// compared it with the raw prediction and refused the run as "graded for
// another prediction".
func TestResumeWithInvalidUTF8Prediction(t *testing.T) {
	items, db := spiderItems(t, "resdsql", 6)
	items[2].Pred = "SELECT name FROM singer WHERE name = 'caf\xe9'"
	out := t.TempDir()
	if _, err := newRunner(t, db, out, run.Options{}).Run(context.Background(), items[:4]); err != nil {
		t.Fatal(err)
	}
	st, err := newRunner(t, db, out, run.Options{Resume: true}).Run(context.Background(), items)
	if err != nil || st.Resumed != 4 || st.Graded != 2 {
		t.Fatalf("resume: %+v %v; want 4 resumed, 2 graded", st, err)
	}
}

// blockStart holds a run in Progress.Start until released.
type blockStart struct {
	started chan struct{}
	release chan struct{}
}

func (b *blockStart) Start(int) { close(b.started); <-b.release }
func (b *blockStart) Done()     {}
func (b *blockStart) Finish()   {}

// TestOneRunPerOutputFolder is issue 10.5: two runs on the same --out both
// wrote (1,864 records for 1,034 items). The second is now refused with
// ErrLocked naming the folder, and the first finishes alone.
func TestOneRunPerOutputFolder(t *testing.T) {
	items, db := spiderItems(t, "resdsql", 20)
	out := t.TempDir()
	b := &blockStart{started: make(chan struct{}), release: make(chan struct{})}
	first := make(chan error, 1)
	go func() {
		_, err := newRunner(t, db, out, run.Options{Progress: b}).Run(context.Background(), items)
		first <- err
	}()
	<-b.started
	_, err := newRunner(t, db, out, run.Options{Resume: true}).Run(context.Background(), items)
	close(b.release)
	if !errors.Is(err, outdir.ErrLocked) || !strings.Contains(err.Error(), out) {
		t.Fatalf("second run on the same folder: err = %v, want ErrLocked naming %s", err, out)
	}
	if err := <-first; err != nil {
		t.Fatalf("first run: %v", err)
	}
	recs, _, err := run.ReadRecords(filepath.Join(out, run.ResultsFile))
	if err != nil || len(recs) != 20 {
		t.Fatalf("%d records, %v; want 20", len(recs), err)
	}
	// Once the first run is over, the folder is free.
	if _, err := newRunner(t, db, out, run.Options{Resume: true}).Run(context.Background(), items); err != nil {
		t.Fatalf("run after the first ended: %v", err)
	}
}

// countingEngine counts the queries run through it.
type countingEngine struct {
	engine.Engine
	n atomic.Int64
}

func (c *countingEngine) Query(ctx context.Context, db, sql string) (*result.Set, error) {
	c.n.Add(1)
	return c.Engine.Query(ctx, db, sql)
}

// TestRecordsKeepSamplesOfWrongResults checks that a wrong result's record
// carries the diff of the rows its metrics read (the HTML page's drill-down)
// with no query run beyond grading, that the diff agrees with running the
// queries, and that Options.Samples bounds the records keeping one, the
// first in input order.
func TestRecordsKeepSamplesOfWrongResults(t *testing.T) {
	items, db := spiderItems(t, "din_sql", 200)
	eng := &countingEngine{Engine: sqlite.New(db, sqlite.Options{})}
	t.Cleanup(func() { eng.Close() })
	ms, err := metric.New([]string{"ex"}, metric.Options{})
	if err != nil {
		t.Fatal(err)
	}
	out := t.TempDir()
	r := &run.Runner{Env: &metric.Env{Engine: eng, Timeout: 30 * time.Second}, Metrics: ms, Opts: run.Options{OutDir: out, Workers: 2, Samples: 1000}}
	if _, err := r.Run(context.Background(), items); err != nil {
		t.Fatal(err)
	}
	recs, _, err := run.ReadRecords(filepath.Join(out, run.ResultsFile))
	if err != nil {
		t.Fatal(err)
	}
	// ex runs each prediction once, but for those that are their gold
	// written differently (Env.SamePred), and each distinct gold query once.
	golds, preds := map[string]bool{}, 0
	for _, it := range items {
		p, g, _ := metric.NewEX(metric.EXOptions{}).Prepare(it.Pred, it.Gold[0])
		golds[it.DBID+"\x00"+g] = true
		if !r.Env.SamePred(p, g) {
			preds++
		}
	}
	if got, want := eng.n.Load(), int64(preds+len(golds)); got != want {
		t.Errorf("%d queries run, want %d (one per prediction not its gold rewritten, %d, and per distinct gold)", got, want, preds)
	}
	var wrong []int
	for _, rec := range recs {
		if rec.WrongResult() != (rec.Sample != nil) {
			t.Errorf("item %d: wrong result %v, sample %v", rec.Index, rec.WrongResult(), rec.Sample != nil)
		}
		if rec.Sample == nil {
			continue
		}
		wrong = append(wrong, rec.Index)
		p, g, _ := metric.NewEX(metric.EXOptions{}).Prepare(rec.Pred, rec.Gold)
		gs, err1 := eng.Engine.Query(context.Background(), rec.DBID, g)
		ps, err2 := eng.Engine.Query(context.Background(), rec.DBID, p)
		if err1 != nil || err2 != nil {
			t.Fatalf("item %d: %v %v", rec.Index, err1, err2)
		}
		if want := result.Diff(gs, ps); !reflect.DeepEqual(rec.Sample, want) {
			t.Errorf("item %d: sample %+v, running the queries gives %+v", rec.Index, rec.Sample, want)
		}
	}
	if len(wrong) < 10 {
		t.Fatalf("only %d wrong results among %d items", len(wrong), len(items))
	}
	out2 := t.TempDir()
	r.Opts = run.Options{OutDir: out2, Workers: 2, Samples: 3}
	if _, err := r.Run(context.Background(), items); err != nil {
		t.Fatal(err)
	}
	recs, _, _ = run.ReadRecords(filepath.Join(out2, run.ResultsFile))
	var kept []int
	for _, rec := range recs {
		if rec.Sample != nil {
			kept = append(kept, rec.Index)
		}
	}
	if !reflect.DeepEqual(kept, wrong[:3]) {
		t.Errorf("Samples 3 kept the samples of items %v, want the first three wrong ones %v", kept, wrong[:3])
	}
}
