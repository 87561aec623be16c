package generate_test

import (
	"context"
	"fmt"
	"slices"
	"testing"

	"github.com/sqljudge/sqljudge/internal/generate"
	"github.com/sqljudge/sqljudge/internal/llm/llmtest"
)

// TestTemperaturesSent checks the temperature of every request, as the
// scripted server received it and as the ledger records it, for both
// official configurations: by default what the official get_llm_chain
// sends (a step configured at 0 keeps the temperature the previous step
// of its engine name wrote into the shared ENGINE_CONFIGS parameters:
// src/llm/models.py, src/llm/engine_configs.py, run/configs/*.yaml), and
// with YAMLTemperatures the configuration files' values.
func TestTemperaturesSent(t *testing.T) {
	items, dbDir := spiderQuestions(t, 400)
	items = items[:2]
	for _, tc := range []struct {
		config string
		yaml   bool
		want   map[string]float64
	}{
		{"CHESS_IR_CG_UT", false, map[string]float64{"extract_keywords": 0.2, "generate_candidate": 0.5, "revise": 0.5, "generate_unit_test": 0.8, "evaluate": 0.8}},
		{"CHESS_IR_CG_UT", true, map[string]float64{"extract_keywords": 0.2, "generate_candidate": 0.5, "revise": 0, "generate_unit_test": 0.8, "evaluate": 0}},
		{"CHESS_IR_SS_CG", false, map[string]float64{"extract_keywords": 0.2, "filter_column": 0.2, "select_tables": 0, "select_columns": 0, "generate_candidate": 0.01}},
		{"CHESS_IR_SS_CG", true, map[string]float64{"extract_keywords": 0.2, "filter_column": 0, "select_tables": 0, "select_columns": 0, "generate_candidate": 0.01}},
	} {
		t.Run(fmt.Sprintf("%s/yaml=%v", tc.config, tc.yaml), func(t *testing.T) {
			srv := llmtest.New(t, chessScript(t, goldByID(items)))
			o := options(t, srv, items, dbDir, generate.MethodChess, tc.config)
			o.YAMLTemperatures = tc.yaml
			sum, err := generate.Run(context.Background(), o)
			if err != nil {
				t.Fatal(err)
			}
			if got := slices.Contains(sum.Departures, "--yaml-temperatures"); got != tc.yaml {
				t.Errorf("summary departures %v", sum.Departures)
			}
			sent := map[string]float64{}
			for _, r := range srv.Log() {
				step := r.Header.Get(generate.HeaderStep)
				if r.Temperature == nil {
					t.Fatalf("%s: no temperature sent", step)
				}
				if w, ok := tc.want[step]; !ok || *r.Temperature != w {
					t.Errorf("%s sent at %v, want %v", step, *r.Temperature, w)
				}
				sent[step] = *r.Temperature
			}
			for step := range tc.want {
				if _, ok := sent[step]; !ok {
					t.Errorf("no %s request", step)
				}
			}
			for _, rec := range readLedger(t, o.Out) {
				for _, s := range rec.Steps {
					for _, c := range s.Calls {
						if c.Temperature != tc.want[s.Name] {
							t.Errorf("ledger: %s call at %v, want %v", s.Name, c.Temperature, tc.want[s.Name])
						}
					}
				}
			}
			t.Logf("sent per step: %v", sent)
		})
	}
}

// TestSentTemperaturesTable checks Config.SentTemperatures on every
// temperature of both official configurations, revise of CHESS_IR_SS_CG
// included (0.01, left by generate_candidate), which the scripted run does
// not reach; and that it leaves the shared Configs untouched.
func TestSentTemperaturesTable(t *testing.T) {
	ut := generate.Configs["CHESS_IR_CG_UT"].SentTemperatures()
	ss := generate.Configs["CHESS_IR_SS_CG"].SentTemperatures()
	for _, c := range []struct {
		name      string
		got, want float64
	}{
		{"CG_UT keywords", ut.KeywordsTemperature, 0.2},
		{"CG_UT candidate one", ut.Generators[0].Temperature, 0.5},
		{"CG_UT candidate two", ut.Generators[1].Temperature, 0.5},
		{"CG_UT revise", ut.ReviseTemperature, 0.5},
		{"CG_UT unit test", ut.UnitTestTemperature, 0.8},
		{"CG_UT evaluate", ut.EvaluateTemperature, 0.8},
		{"SS_CG keywords", ss.KeywordsTemperature, 0.2},
		{"SS_CG filter_column", ss.FilterColumnTemperature, 0.2},
		{"SS_CG select_tables", ss.SelectTablesTemperature, 0},
		{"SS_CG select_columns", ss.SelectColumnsTemperature, 0},
		{"SS_CG candidate", ss.Generators[0].Temperature, 0.01},
		{"SS_CG revise", ss.ReviseTemperature, 0.01},
		{"YAML CG_UT revise", generate.Configs["CHESS_IR_CG_UT"].ReviseTemperature, 0},
	} {
		if c.got != c.want {
			t.Errorf("%s: %v, want %v", c.name, c.got, c.want)
		}
	}
	if ut.Temperatures != generate.TemperaturesSent || generate.Configs["CHESS_IR_CG_UT"].Temperatures != generate.TemperaturesYAML {
		t.Errorf("Temperatures: %q, shared %q", ut.Temperatures, generate.Configs["CHESS_IR_CG_UT"].Temperatures)
	}
}
