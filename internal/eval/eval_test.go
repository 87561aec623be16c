package eval

import (
	"bufio"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/sqljudge/sqljudge/internal/engine"
	"github.com/sqljudge/sqljudge/internal/metric"
	"github.com/sqljudge/sqljudge/internal/run"
	"github.com/sqljudge/sqljudge/internal/shareddata"
	"github.com/sqljudge/sqljudge/internal/testserver"
	"github.com/sqljudge/sqljudge/internal/usage"
)

// firstLines writes the first n lines of a shared data file to dir/name.
func firstLines(t *testing.T, src, dir, name string, n int) string {
	t.Helper()
	f, err := os.Open(src)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var b strings.Builder
	sc := bufio.NewScanner(f)
	for i := 0; i < n && sc.Scan(); i++ {
		b.WriteString(sc.Text() + "\n")
	}
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func spiderOptions(t *testing.T, n int) Options {
	spider := shareddata.SubsetPath(t, "spider")
	dir := t.TempDir()
	return Options{
		Gold:    firstLines(t, filepath.Join(spider, "dev_gold.sql"), dir, "gold.sql", n),
		Pred:    firstLines(t, filepath.Join(spider, "predictions", "din_sql.sql"), dir, "pred.sql", n),
		DB:      filepath.Join(spider, "database"),
		Tables:  filepath.Join(spider, "tables.json"),
		Out:     filepath.Join(dir, "out"),
		Metrics: []string{"ex"}, Timeout: 30 * time.Second, Workers: 2,
		MaxRows: engine.DefaultMaxRows, MaxBytes: 256 << 20, Settings: metric.Options{VES: metric.VESOptions{Repeats: 1}, TS: metric.TSOptions{MaxPlug: 1}},
		Version: "test",
	}
}

// TestRunSpiderMatchesOracle grades DIN-SQL's first 60 Spider dev
// predictions with ex: every verdict and hardness label is the official
// evaluator's, and the run block says what ran.
func TestRunSpiderMatchesOracle(t *testing.T) {
	const n = 60
	o := spiderOptions(t, n)
	sum, err := Run(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	oracle := shareddata.SubsetOracle(t, "din_sql")[:n]
	correct, byLevel := 0, map[string]int{}
	for _, r := range oracle {
		correct += r.Exec
		byLevel[r.Hardness]++
	}
	if ex := sum.Overall["ex"]; ex.Count != n || ex.Correct != correct {
		t.Errorf("ex %d of %d correct, official %d of %d", ex.Correct, ex.Count, correct, n)
	}
	for lv, c := range byLevel {
		if got := sum.ByDifficulty[lv]["ex"].Count; got != c {
			t.Errorf("hardness %s: %d items, official %d", lv, got, c)
		}
	}
	ri := sum.Run
	if ri.Difficulty != "spider_hardness" || ri.Engine != "sqlite" || ri.Graded != n || ri.Version != "test" || ri.SQLEvalMode != "" {
		t.Errorf("run block %+v", ri)
	}
	recs, _, err := run.ReadRecords(filepath.Join(o.Out, run.ResultsFile))
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range recs {
		if want := oracle[r.Index].Exec == 1; r.Verdicts["ex"].Correct != want {
			t.Errorf("item %d: ex %v, official %v", r.Index, r.Verdicts["ex"].Correct, want)
		}
	}
	if _, err := os.Stat(filepath.Join(o.Out, "summary.json")); err != nil {
		t.Error(err)
	}
	// A second run into the same folder without Resume or Overwrite is
	// the caller's input.
	var ie InputError
	if _, err := Run(context.Background(), o); !errors.As(err, &ie) {
		t.Errorf("second run: %v, want an InputError", err)
	}
}

// TestRunInputErrors: bad options and a db_id without a database are
// InputErrors naming what to fix, found before anything is written.
func TestRunInputErrors(t *testing.T) {
	base := spiderOptions(t, 3)
	badDB := filepath.Join(t.TempDir(), "bad.sql")
	if err := os.WriteFile(badDB, []byte("SELECT 1\tno_such_db\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		edit func(*Options)
		want string
	}{
		{func(o *Options) { o.Gold = "" }, "--gold is required"},
		{func(o *Options) { o.Workers = 0 }, "--workers must be at least 1"},
		{func(o *Options) { o.Partial = true }, "add em to --metrics"},
		{func(o *Options) { o.Resume, o.Overwrite = true, true }, "exclude each other"},
		{func(o *Options) { o.Gold, o.Pred, o.Tables = badDB, badDB, "" }, `db_id "no_such_db"`},
		{func(o *Options) { o.Shard = "5/2" }, "shard"},
	} {
		o := base
		c.edit(&o)
		_, err := Run(context.Background(), o)
		var ie InputError
		if !errors.As(err, &ie) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("error %v, want an InputError with %q", err, c.want)
		}
	}
	if _, err := os.Stat(base.Out); !os.IsNotExist(err) {
		t.Errorf("out folder after input errors: %v", err)
	}
}

// TestEquivRefusesServerEngines: equiv and verdict search on SQLite files;
// with --db a PostgreSQL DSN the run is refused at once (a usage error,
// exit 2) naming the way to decide such pairs, instead of grading every
// item as an internal error and printing a table of them.
func TestEquivRefusesServerEngines(t *testing.T) {
	dsn := testserver.Postgres(t)
	for _, m := range []string{"equiv", "verdict"} {
		o := spiderOptions(t, 3)
		o.DB, o.AllowSuperuser, o.Metrics = dsn, true, []string{"ex", m}
		o.Settings.Equiv = metric.EquivOptions{Seed: 1, Budget: time.Second, MaxDatabases: 10}
		_, err := Run(context.Background(), o)
		var ue usage.Error
		if !errors.As(err, &ue) || !strings.Contains(err.Error(), "not on postgres") || !strings.Contains(err.Error(), "sqljudge equiv --db DSN") {
			t.Fatalf("%s on PostgreSQL: %v", m, err)
		}
		if _, statErr := os.Stat(filepath.Join(o.Out, run.ResultsFile)); statErr == nil {
			t.Fatalf("%s on PostgreSQL wrote records", m)
		}
	}
}
