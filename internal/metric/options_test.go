package metric_test

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/sqljudge/sqljudge/internal/bench"
	"github.com/sqljudge/sqljudge/internal/engine/sqlite"
	"github.com/sqljudge/sqljudge/internal/metric"
	"github.com/sqljudge/sqljudge/internal/shareddata"
	"github.com/sqljudge/sqljudge/internal/status"
)

// TestOptionsZeroMeansZero is issue 12.9: no zero in a metric's options
// stands for a default. A setting a metric cannot run with is an error
// from New naming the flag, not a silent default (ves used to time 100
// runs for Repeats 0).
func TestOptionsZeroMeansZero(t *testing.T) {
	suite := t.TempDir()
	for _, c := range []struct {
		name string
		o    metric.Options
		want string
	}{
		{"ves", metric.Options{}, "--ves-repeats 0"},
		{"rves", metric.Options{VES: metric.VESOptions{Repeats: -3}}, "--ves-repeats -3"},
		{"ts", metric.Options{TS: metric.TSOptions{Dir: suite, PlugValue: true}}, "--max-plug 0"},
		{"ts", metric.Options{}, "needs --suite DIR"},
		{"em", metric.Options{}, "tables.json"},
	} {
		if _, err := metric.New([]string{c.name}, c.o); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s with %+v: %v, want an error saying %q", c.name, c.o, err, c.want)
		}
	}
	// Without PlugValue, MaxPlug is not read: ts builds with it 0.
	ms, err := metric.New([]string{"ts", "ves"}, metric.Options{TS: metric.TSOptions{Dir: suite}, VES: metric.VESOptions{Repeats: 1}})
	if err != nil {
		t.Fatal(err)
	}
	metric.Close(ms)

	spider := shareddata.SubsetPath(t, "spider")
	eng := sqlite.New(filepath.Join(spider, "database"), sqlite.Options{})
	defer eng.Close()
	env := &metric.Env{Engine: eng, Timeout: 30 * time.Second}
	it := &bench.Item{DBID: "concert_singer", Gold: []string{"SELECT count(*) FROM singer"}, Pred: "SELECT count(*) FROM singer"}
	e := metric.MeasureEfficiency(context.Background(), env.NewExec(), it, 0)
	if e.Verdict.Status != status.InternalError || e.Equal {
		t.Errorf("MeasureEfficiency with 0 repeats: %+v, want internal_error", e)
	}
	if e = metric.MeasureEfficiency(context.Background(), env.NewExec(), it, 1); e.Verdict.Status != status.OK || !e.Equal || e.Kept != 1 {
		t.Errorf("MeasureEfficiency with 1 repeat: %+v, want one kept ratio", e)
	}
}

// TestEachMetricReadsItsOwnOptions checks that New hands each metric its
// own options: EX.KeepDistinct reaches ex and the ex step of ts (the
// official --keep_distinct), and no other field of Options changes them.
func TestEachMetricReadsItsOwnOptions(t *testing.T) {
	suite := concertSingerSuite(t, "concert_singer.sqlite")
	eng := sqlite.New(filepath.Join(shareddata.SubsetPath(t, "spider"), "database"), sqlite.Options{})
	defer eng.Close()
	env := &metric.Env{Engine: eng, Timeout: 30 * time.Second}
	// singer has repeated countries: DISTINCT matters once it is kept.
	it := &bench.Item{DBID: "concert_singer", Gold: []string{"SELECT DISTINCT country FROM singer"}, Pred: "SELECT country FROM singer"}
	grade := func(o metric.Options) map[string]bool {
		o.TS = metric.TSOptions{Dir: suite, Timeout: 30 * time.Second}
		ms, err := metric.New([]string{"ex", "ts"}, o)
		if err != nil {
			t.Fatal(err)
		}
		defer metric.Close(ms)
		got := map[string]bool{}
		for _, m := range ms {
			v := m.Grade(context.Background(), env.NewExec(), it)
			if v.Status != status.OK {
				t.Fatalf("%s: %+v", m.Name(), v)
			}
			got[m.Name()] = v.Correct
		}
		return got
	}
	if got := grade(metric.Options{}); !got["ex"] || !got["ts"] {
		t.Errorf("DISTINCT removed (the official default): %v, want both correct", got)
	}
	other := metric.Options{EM: metric.EMOptions{Fixed: true}, SQLEval: metric.SQLEvalOptions{Fixed: true}, VES: metric.VESOptions{Repeats: 7}}
	if got := grade(other); !got["ex"] || !got["ts"] {
		t.Errorf("other metrics' options changed ex or ts: %v", got)
	}
	if got := grade(metric.Options{EX: metric.EXOptions{KeepDistinct: true}}); got["ex"] || got["ts"] {
		t.Errorf("EX.KeepDistinct: %v, want both wrong", got)
	}
}
