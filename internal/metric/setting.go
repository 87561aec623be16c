package metric

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Setting is one option of a metric, declared once beside the metric that
// reads it (RegisterSetting in the metric's init): the flag eval, generate
// and serve register for it (internal/cli registerSettings), its default
// (DefaultOptions), its help, and how a run records it (eval's fingerprint
// reads Fingerprint and Record). A command never declares a metric's
// setting again.
type Setting struct {
	// Flag is the flag's name without dashes ("equiv-seed").
	Flag string
	// Metrics are the metrics that read the setting ("equiv", "verdict").
	Metrics []string
	// Help is the flag's help text.
	Help string
	// GenerateHelp, when not "", is the help of generate's flag, where
	// the setting means more than the metric's (--llm-parse-retries:
	// also the generation steps').
	GenerateHelp string
	// Field returns a pointer to the setting in o: a *bool, *int, *int64,
	// *string or *time.Duration.
	Field func(o *Options) any
	// Default is the flag's default, of the type Field points to.
	Default any
	// Fingerprint is the setting's key in a run's fingerprint
	// (outdir.Fingerprint.Settings), "" when it cannot change a verdict.
	Fingerprint string
	// Record says when the fingerprint holds the key.
	Record Record
	// RunInfo is the setting's key in summary.json's run block
	// (report.RunInfo: a field of that JSON name), "" for none; eval
	// fills it from the setting as RunInfoRecord says (Always or
	// WhenUsed), with RunInfoValue's value when not nil, else the
	// setting's own. sqljudge report checks a run block against the
	// fingerprint by the settings whose RunInfo key is their Fingerprint
	// key and recorded Always in both.
	RunInfo       string
	RunInfoRecord Record
	RunInfoValue  func(o *Options) any
	// Serve is whether `sqljudge serve` offers the flag. A setting serve
	// does not offer keeps its zero value there (zero means zero, see
	// Options): ves-repeats 0 makes serve refuse ves and rves (a server
	// does not time queries 100 times within a request), and em-fixed,
	// sqleval-fixed and plug-value stay off.
	Serve bool
	// RequiresMetric refuses a run that sets the setting (to another
	// value than Default, and not the zero value a library caller leaves
	// unset) without one of its Metrics: "--FLAG sets how
	// METRIC grades: add METRIC to --metrics" (CheckSettings; "equiv or
	// verdict" for a setting of both).
	RequiresMetric bool
	// Check refuses a value of the setting: it returns the error a
	// command reports ("--ves-repeats must be at least 1"), nil for a
	// good value; nil for a setting of any value. CheckWhen says in
	// which runs: Always (whatever their metrics) or WhenUsed (only in
	// runs of one of Metrics, as the LLM judges' --samples).
	Check     func(o *Options) error
	CheckWhen Record
}

// Record says when a setting enters a run's fingerprint.
type Record int

const (
	// Always records the setting in every run, whatever its metrics.
	Always Record = iota
	// WhenUsed records it only in runs of one of its Metrics, so that the
	// fingerprints of runs without them keep their keys.
	WhenUsed
	// WhenChanged records it only in runs of one of its Metrics where it
	// is not its Default, so that the fingerprints of runs before it
	// existed keep their keys.
	WhenChanged
)

var (
	settings      []Setting
	fingerprinted = map[string][]FingerprintFunc{}
)

// FingerprintFunc returns settings of a metric that no flag sets (a
// library default, a tool found or not on this machine) but that change
// its verdicts, as fingerprint keys and values.
type FingerprintFunc func() map[string]string

// RegisterSetting declares a metric's setting (see Setting). It panics on
// a duplicate flag, a Default whose type is not the one Field points
// to or RequiresMetric without Metrics (programming errors caught at
// init).
func RegisterSetting(s Setting) {
	regMu.Lock()
	defer regMu.Unlock()
	for _, t := range settings {
		if t.Flag == s.Flag {
			panic("metric: duplicate setting --" + s.Flag)
		}
	}
	var o Options
	if err := setField(s.Field(&o), s.Default); err != nil {
		panic(fmt.Sprintf("metric: setting --%s: %v", s.Flag, err))
	}
	if s.RequiresMetric && len(s.Metrics) == 0 {
		panic("metric: setting --" + s.Flag + " requires a metric but names none")
	}
	settings = append(settings, s)
	slices.SortFunc(settings, func(a, b Setting) int { return strings.Compare(a.Flag, b.Flag) })
}

// RegisterFingerprint declares fingerprint entries of a metric that no
// setting carries (see FingerprintFunc); runs of metric name record them.
func RegisterFingerprint(name string, f FingerprintFunc) {
	regMu.Lock()
	defer regMu.Unlock()
	fingerprinted[name] = append(fingerprinted[name], f)
}

// Settings returns every declared setting, in the order of their flags.
func Settings() []Setting {
	regMu.RLock()
	defer regMu.RUnlock()
	return slices.Clone(settings)
}

// DefaultOptions returns Options holding every declared setting's
// Default; the fields no setting declares (the run's time limit, caps,
// suite, schemas, judge) are zero.
func DefaultOptions() Options {
	var o Options
	for _, s := range Settings() {
		_ = setField(s.Field(&o), s.Default) // checked by RegisterSetting
	}
	return o
}

// setField stores v in the field p points to; an error when v is not of
// p's element type.
func setField(p, v any) error {
	ok := false
	switch p := p.(type) {
	case *bool:
		var x bool
		x, ok = v.(bool)
		*p = x
	case *int:
		var x int
		x, ok = v.(int)
		*p = x
	case *int64:
		var x int64
		x, ok = v.(int64)
		*p = x
	case *string:
		var x string
		x, ok = v.(string)
		*p = x
	case *time.Duration:
		var x time.Duration
		x, ok = v.(time.Duration)
		*p = x
	default:
		return fmt.Errorf("field of unsupported type %T", p)
	}
	if !ok {
		return fmt.Errorf("default %v (%T) is not of the field's type %T", v, v, p)
	}
	return nil
}

// Format writes the value p points to (a Field) as a fingerprint holds it:
// strconv's form of a bool or number, time.Duration.String, a string as
// it is.
func Format(p any) string {
	switch p := p.(type) {
	case *bool:
		return strconv.FormatBool(*p)
	case *int:
		return strconv.Itoa(*p)
	case *int64:
		return strconv.FormatInt(*p, 10)
	case *string:
		return *p
	case *time.Duration:
		return p.String()
	}
	panic(fmt.Sprintf("metric: Format of %T", p))
}

// RunInfoOf returns the run-block entries (Setting.RunInfo) of o's
// settings for a run of metrics, by JSON key: each as its RunInfoRecord
// says, of RunInfoValue's value or the setting's own (a bool, int, int64,
// string or time.Duration).
func RunInfoOf(o *Options, metrics []string) map[string]any {
	metrics = slices.Clone(metrics)
	for i, m := range metrics {
		metrics[i] = strings.TrimSpace(m) // as eval reads --metrics
	}
	out := map[string]any{}
	for _, s := range Settings() {
		if s.RunInfo == "" || (s.RunInfoRecord != Always && !usedBy(metrics, s.Metrics)) {
			continue
		}
		if s.RunInfoValue != nil {
			out[s.RunInfo] = s.RunInfoValue(o)
			continue
		}
		out[s.RunInfo] = reflectValue(s.Field(o))
	}
	return out
}

// reflectValue returns the value a Field points to.
func reflectValue(p any) any {
	switch p := p.(type) {
	case *bool:
		return *p
	case *int:
		return *p
	case *int64:
		return *p
	case *string:
		return *p
	case *time.Duration:
		return *p
	}
	panic(fmt.Sprintf("metric: value of %T", p))
}

// usedBy reports whether metrics (the --metrics list) names one of names.
func usedBy(metrics, names []string) bool {
	for _, n := range names {
		if slices.Contains(metrics, n) {
			return true
		}
	}
	return false
}

// Fingerprint returns the fingerprint entries of o's settings for a run
// of metrics: each setting with a Fingerprint key as its Record says, and
// the entries of RegisterFingerprint for the metrics asked for.
func Fingerprint(o *Options, metrics []string) map[string]string {
	used := func(names []string) bool { return usedBy(metrics, names) }
	out := map[string]string{}
	for _, s := range Settings() {
		if s.Fingerprint == "" || (s.Record != Always && !used(s.Metrics)) {
			continue
		}
		v := Format(s.Field(o))
		if s.Record == WhenChanged {
			var d Options
			_ = setField(s.Field(&d), s.Default)
			if v == Format(s.Field(&d)) || v == "" {
				continue
			}
		}
		out[s.Fingerprint] = v
	}
	regMu.RLock()
	defer regMu.RUnlock()
	for name, fs := range fingerprinted {
		if used([]string{name}) {
			for _, f := range fs {
				for k, v := range f() {
					out[k] = v
				}
			}
		}
	}
	return out
}

// CheckSettings refuses o's settings for a run of metrics (the --metrics
// list) as the settings declare: first every setting whose RequiresMetric
// is not met, then every Check (as its CheckWhen says), each in the order
// of their flags. eval and
// generate call it after their own checks; its error is the caller's
// input (they return it as a usage error).
func CheckSettings(o *Options, metrics []string) error {
	metrics = slices.Clone(metrics)
	for i, m := range metrics {
		metrics[i] = strings.TrimSpace(m) // as eval reads --metrics
	}
	all := Settings()
	for _, s := range all {
		if !s.RequiresMetric || usedBy(metrics, s.Metrics) {
			continue
		}
		var d, zero Options
		_ = setField(s.Field(&d), s.Default) // checked by RegisterSetting
		// A zero is a library caller's field left unset (eval.Options
		// built by hand); the CLI's flags hold the defaults.
		if v := Format(s.Field(o)); v != Format(s.Field(&d)) && v != Format(s.Field(&zero)) {
			names := strings.Join(s.Metrics, " or ")
			return fmt.Errorf("--%s sets how %s grades: add %s to --metrics", s.Flag, names, names)
		}
	}
	for _, s := range all {
		if s.Check != nil && (s.CheckWhen == Always || usedBy(metrics, s.Metrics)) {
			if err := s.Check(o); err != nil {
				return err
			}
		}
	}
	return nil
}
