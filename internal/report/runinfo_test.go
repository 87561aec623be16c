package report

import (
	"testing"

	"github.com/sqljudge/sqljudge/internal/metric"
)

// TestSettingsRunInfoKeys: every run-block key a metric's setting declares
// (metric.Setting.RunInfo) is a field of RunInfo of the setting's type,
// which SetSettings fills and Setting reads back; a key RunInfo lacks is
// an error, not a silent drop.
func TestSettingsRunInfoKeys(t *testing.T) {
	o := metric.DefaultOptions()
	o.EX.KeepDistinct, o.SQLEval.Fixed, o.VES.Repeats = true, true, 7
	var all []string
	for _, s := range metric.Settings() {
		all = append(all, s.Metrics...)
	}
	m := metric.RunInfoOf(&o, all)
	for _, key := range []string{"keep_distinct", "em_fixed", "plug_value", "ves_repeats", "sqleval_mode"} {
		if _, ok := m[key]; !ok {
			t.Errorf("no setting declares run-block key %s", key)
		}
	}
	var ri RunInfo
	if err := ri.SetSettings(m); err != nil {
		t.Fatal(err)
	}
	for key, want := range m {
		if got, ok := ri.Setting(key); !ok || got != want {
			t.Errorf("run block %s = %v, want %v", key, got, want)
		}
	}
	if !ri.KeepDistinct || ri.SQLEvalMode != "fixed" || ri.VESRepeats != 7 {
		t.Errorf("run block %+v", ri)
	}
	if err := ri.SetSettings(map[string]any{"no_such_key": true}); err == nil {
		t.Error("an unknown key was accepted")
	}
	if err := ri.SetSettings(map[string]any{"ves_repeats": "7"}); err == nil {
		t.Error("a value of the wrong type was accepted")
	}
	// Without ves or sqleval, their keys stay out of the block.
	if m := metric.RunInfoOf(&o, []string{"ex"}); len(m) != 3 {
		t.Errorf("run block of ex: %v, want keep_distinct, em_fixed and plug_value only", m)
	}
}
