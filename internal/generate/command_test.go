package generate_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/sqljudge/sqljudge/internal/eval"
	"github.com/sqljudge/sqljudge/internal/generate"
	"github.com/sqljudge/sqljudge/internal/metric"
	"github.com/sqljudge/sqljudge/internal/outdir"
	"github.com/sqljudge/sqljudge/internal/shareddata"
)

// TestRunCommandInputErrors: bad options, an unknown configuration, bad
// judge settings and an output folder in use are errors of the caller's
// input (generate.InputError, or eval.InputError for the judges), each
// naming what to fix, found before any LLM request.
func TestRunCommandInputErrors(t *testing.T) {
	spider := shareddata.SubsetPath(t, "spider")
	gold, dbDir := filepath.Join(spider, "dev.json"), filepath.Join(spider, "database")
	inUse := t.TempDir()
	if err := os.WriteFile(filepath.Join(inUse, generate.LedgerFile), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	// A folder another run holds (outdir.Lock): before, two generate
	// runs on one --out appended to one ledger.
	locked := t.TempDir()
	unlock, err := outdir.Lock(locked)
	if err != nil {
		t.Fatal(err)
	}
	defer unlock()
	base := func() generate.CommandOptions {
		return generate.CommandOptions{
			Gold: gold, DB: dbDir, Out: filepath.Join(t.TempDir(), "out"), Limit: 3,
			Method: generate.MethodDirect, Config: generate.DefaultConfig,
			Timeout: time.Second, Workers: 1, MaxRows: 100,
			LLM: eval.Judge{BaseURL: "http://127.0.0.1:1/v1", Model: "scripted-1"},
		}
	}
	cases := []struct {
		name string
		edit func(*generate.CommandOptions)
		want string
		eval bool
	}{
		{"no gold", func(o *generate.CommandOptions) { o.Gold = "" }, "--gold is required", false},
		{"method", func(o *generate.CommandOptions) { o.Method = "beam" }, `--method "beam": want chess or direct`, false},
		{"workers", func(o *generate.CommandOptions) { o.Workers = 0 }, "--workers and --max-rows must be positive", false},
		{"resume and overwrite", func(o *generate.CommandOptions) { o.Resume, o.Overwrite = true, true }, "exclude each other", false},
		{"config", func(o *generate.CommandOptions) { o.Method, o.Config = generate.MethodChess, "CHESS_NOPE" }, "CHESS_NOPE", false},
		{"no db", func(o *generate.CommandOptions) { o.DB = "" }, "--db is required", false},
		{"bad judge", func(o *generate.CommandOptions) {
			s := metric.DefaultOptions()
			s.Judge.Samples = 0
			o.Metrics, o.Settings = []string{"xscore"}, &s
		}, "--samples must be at least 1", true},
		{"ledger exists", func(o *generate.CommandOptions) { o.Out = inUse }, "give --resume to continue it", false},
		{"out in use", func(o *generate.CommandOptions) { o.Out = locked }, "another sqljudge run is writing to " + locked, false},
	}
	for _, c := range cases {
		o := base()
		c.edit(&o)
		sum, err := generate.RunCommand(context.Background(), o)
		var ge generate.InputError
		var ee eval.InputError
		switch {
		case sum != nil || err == nil:
			t.Errorf("%s: summary %v, error %v; want an input error", c.name, sum, err)
		case c.eval && !errors.As(err, &ee):
			t.Errorf("%s: error %v (%T), want an eval.InputError", c.name, err, err)
		case !c.eval && !errors.As(err, &ge):
			t.Errorf("%s: error %v (%T), want a generate.InputError", c.name, err, err)
		case !strings.Contains(err.Error(), c.want):
			t.Errorf("%s: error %q, want it to say %q", c.name, err, c.want)
		}
	}
	if _, err := os.Stat(filepath.Join(inUse, generate.PredictionsFile)); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a refused run wrote %s (stat: %v)", generate.PredictionsFile, err)
	}
}
