package cli

import (
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/spf13/pflag"

	"github.com/sqljudge/sqljudge/internal/engine/open"
	"github.com/sqljudge/sqljudge/internal/metric"
	sbopen "github.com/sqljudge/sqljudge/internal/sandbox/open"
	"github.com/sqljudge/sqljudge/internal/shareddata"
)

// TestSettingsAreFlags is issue 30 item 4: every setting a metric declares
// (metric.Settings) is a flag of eval and generate, and of serve when it
// says so, with the declared default and help; serve has none of the
// others (it grades with their zero value). A metric's flag is declared
// once: no command may spell it differently.
func TestSettingsAreFlags(t *testing.T) {
	root := newRoot(strings.NewReader(""), io.Discard, io.Discard)
	flags := map[string]*pflag.FlagSet{}
	for _, c := range root.Commands() {
		flags[c.Name()] = c.Flags()
	}
	ss := metric.Settings()
	if len(ss) < 10 {
		t.Fatalf("%d settings declared; want at least ex's, em's, sqleval's, ts's, ves's and equiv's", len(ss))
	}
	for _, s := range ss {
		d := metric.DefaultOptions()
		want := metric.Format(s.Field(&d))
		for _, cmd := range []string{"eval", "generate", "serve"} {
			help := s.Help
			if cmd == "generate" && s.GenerateHelp != "" {
				help = s.GenerateHelp
			}
			f := flags[cmd].Lookup(s.Flag)
			if cmd == "serve" && !s.Serve {
				if f != nil {
					t.Errorf("serve --%s: a flag, but the setting says serve does not offer it", s.Flag)
				}
				continue
			}
			switch {
			case f == nil:
				t.Errorf("%s: no --%s", cmd, s.Flag)
			case f.DefValue != want:
				t.Errorf("%s --%s: default %q, want %q", cmd, s.Flag, f.DefValue, want)
			case f.Usage != help:
				t.Errorf("%s --%s: help %q, want the declared %q", cmd, s.Flag, f.Usage, help)
			}
		}
	}
}

// TestResumeUnderChangedSettingExit2: changing any setting a metric
// declares with a fingerprint key, on --resume, is refused with exit 2
// naming the key, whether the key is always recorded (--ves-repeats,
// without ves) or only in runs of its metric (--equiv-budget, with equiv).
func TestResumeUnderChangedSettingExit2(t *testing.T) {
	dir := t.TempDir()
	gold, pred, db := spiderSubset(t, dir, 2)
	tables := filepath.Join(shareddata.SubsetPath(t, "spider"), "tables.json")
	out := filepath.Join(dir, "out")
	base := []string{"eval", "--gold", gold, "--pred", pred, "--db", db, "--tables", tables, "--out", out,
		"--metrics", "ex,em,sqleval,equiv", "--equiv-max-databases", "5", "--progress", "never", "--html=false"}
	if code, _, stderr := runMain(t, base...); code != ExitOK {
		t.Fatalf("first run: exit %d: %s", code, stderr)
	}
	n := 0
	for _, s := range metric.Settings() {
		if s.Fingerprint == "" {
			continue
		}
		n++
		o := metric.DefaultOptions()
		if s.Flag == "equiv-max-databases" {
			o.Equiv.MaxDatabases = 5 // the first run's
		}
		var v string
		switch p := s.Field(&o).(type) {
		case *bool:
			v = fmt.Sprint(!*p)
		case *int:
			v = fmt.Sprint(*p + 1)
		case *int64:
			v = fmt.Sprint(*p + 1)
		case *time.Duration:
			v = (*p + time.Second).String()
		case *string:
			v = "observed" // equiv-assume, the one string setting
		}
		args := append(append([]string{}, base...), "--resume", "--"+s.Flag+"="+v)
		if code, _, stderr := runMain(t, args...); code != ExitUsage || !strings.Contains(stderr, s.Fingerprint) {
			t.Errorf("resume with --%s=%s: exit %d, stderr %q; want exit 2 naming %s", s.Flag, v, code, stderr, s.Fingerprint)
		}
	}
	if n < 10 {
		t.Errorf("%d fingerprinted settings; want at least 10", n)
	}
}

// TestDBHelpDeclaredOnce: every command whose --db open.Open reads shows
// open.DBHelp, the one list of its schemes (an engine added is added
// there), and equiv's --db the sandboxes' sbopen.DBHelp.
func TestDBHelpDeclaredOnce(t *testing.T) {
	root := newRoot(strings.NewReader(""), io.Discard, io.Discard)
	for _, c := range root.Commands() {
		f := c.Flags().Lookup("db")
		switch c.Name() {
		case "eval", "serve", "audit", "generate", "report":
			if f == nil || !strings.HasPrefix(f.Usage, open.DBHelp) {
				t.Errorf("%s --db: %v, want open.DBHelp", c.Name(), f)
			}
		case "equiv":
			if f == nil || f.Usage != sbopen.DBHelp {
				t.Errorf("equiv --db: %v, want sandbox/open.DBHelp", f)
			}
		}
	}
}

// TestDeclaredSettingRulesRefused: every rule a setting declares
// (metric.Setting's RequiresMetric and Check) refuses a bad value in eval
// and in generate alike, with the declared message and exit 2, before
// either reads a file; a Check declared WhenUsed only in runs of its
// metrics. A new rule needs no new case here, only a bad
// value among bad's.
func TestDeclaredSettingRulesRefused(t *testing.T) {
	dir := t.TempDir()
	paths := []string{"--gold", filepath.Join(dir, "gold.sql"), "--db", filepath.Join(dir, "db"), "--out", filepath.Join(dir, "out")}
	// Values that break a range rule, tried in turn on a setting's field.
	bad := map[string][]string{
		"int":      {"0", "-1"},
		"int64":    {"0", "-1"},
		"duration": {"0s", "-1s"},
		"string":   {""},
	}
	rules := 0
	for _, s := range metric.Settings() {
		if !s.RequiresMetric && s.Check == nil {
			continue
		}
		rules++
		var value, want string
		if s.RequiresMetric {
			// Set to what is not its default, without its metric (the
			// runs below grade ex alone).
			switch d := s.Default.(type) {
			case bool:
				value = fmt.Sprint(!d)
			case int:
				value = fmt.Sprint(d + 1)
			case int64:
				value = fmt.Sprint(d + 1)
			case time.Duration:
				value = (d + time.Second).String()
			case string:
				value = d + "x"
			default:
				t.Fatalf("--%s: RequiresMetric on a %T; the test knows bools, numbers, durations and strings", s.Flag, d)
			}
			names := strings.Join(s.Metrics, " or ")
			want = fmt.Sprintf("--%s sets how %s grades: add %s to --metrics", s.Flag, names, names)
		} else {
			fl := pflag.NewFlagSet("probe", pflag.ContinueOnError)
			o := metric.DefaultOptions()
			registerSettings(fl, &o, false)
			for _, v := range bad[fl.Lookup(s.Flag).Value.Type()] {
				o = metric.DefaultOptions()
				if err := fl.Set(s.Flag, v); err != nil {
					t.Fatal(err)
				}
				if err := s.Check(&o); err != nil {
					value, want = v, err.Error()
					break
				}
			}
			if value == "" {
				t.Errorf("--%s: no bad value among %v refused by its Check; add one", s.Flag, bad)
				continue
			}
			if d := metric.DefaultOptions(); s.Check(&d) != nil {
				t.Errorf("--%s: its default is refused by its Check: %v", s.Flag, s.Check(&d))
			}
		}
		// A rule checked only in runs of the setting's metrics is
		// checked in a run of its first; the others in a run of ex.
		metrics := "ex"
		if s.Check != nil && s.CheckWhen == metric.WhenUsed {
			metrics = s.Metrics[0]
		}
		for _, cmd := range []string{"eval", "generate"} {
			args := append([]string{cmd}, paths...)
			args = append(args, "--metrics", metrics, "--"+s.Flag+"="+value)
			code, _, stderr := runMain(t, args...)
			if code != ExitUsage || !strings.Contains(stderr, want) {
				t.Errorf("%s --%s=%s: exit %d, want %d with %q:\n%s", cmd, s.Flag, value, code, ExitUsage, want, stderr)
			}
			if metrics == "ex" {
				continue
			}
			// Not refused in a run without its metrics (it fails later,
			// on the missing gold file).
			args = append([]string{cmd}, paths...)
			args = append(args, "--metrics", "ex", "--"+s.Flag+"="+value)
			if _, _, stderr := runMain(t, args...); strings.Contains(stderr, want) {
				t.Errorf("%s --%s=%s --metrics ex: refused, but the rule holds only for %v:\n%s", cmd, s.Flag, value, s.Metrics, stderr)
			}
		}
	}
	// em-fixed, sqleval-fixed, max-plug, ves-repeats, samples,
	// llm-parse-retries, xscore-min at least.
	if rules < 7 {
		t.Errorf("%d settings declare a rule, want at least 7", rules)
	}
}
