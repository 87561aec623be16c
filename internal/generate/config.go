package generate

import (
	"fmt"
	"slices"
	"sort"
)

// GeneratorConfig is one candidate generator of generate_candidate: a
// template sampled Samples times at Temperature (the official
// GenerateCandidate.GeneratorConfig).
type GeneratorConfig struct {
	Template    string  `json:"template"`
	Temperature float64 `json:"temperature"`
	Samples     int     `json:"samples"`
}

// Config is a CHESS configuration: which agents run and with which
// parameters, as the official run/configs/*.yaml give them.
type Config struct {
	// Name is the configuration's name ("CHESS_IR_CG_UT").
	Name string `json:"name"`
	// Engine is the official engine_name of every step but select_tables
	// and select_columns, which use SelectorEngine ("" means Engine). The
	// names matter only to SentTemperatures (each engine name has its own
	// shared parameters officially); every step sends --llm-model.
	Engine         string `json:"engine,omitempty"`
	SelectorEngine string `json:"selector_engine,omitempty"`
	// Temperatures says which temperatures the fields below hold:
	// TemperaturesSent (what the official code sends, SentTemperatures)
	// or TemperaturesYAML (the configuration file's values, as written).
	Temperatures string `json:"temperatures,omitempty"`
	// KeywordsTemperature is extract_keywords' temperature; ContextTopK
	// retrieve_context's top_k.
	KeywordsTemperature float64 `json:"keywords_temperature"`
	ContextTopK         int     `json:"context_top_k"`
	// SchemaSelector runs filter_column, select_tables and select_columns
	// at their temperatures.
	SchemaSelector           bool    `json:"schema_selector"`
	FilterColumnTemperature  float64 `json:"filter_column_temperature"`
	SelectTablesTemperature  float64 `json:"select_tables_temperature"`
	SelectColumnsTemperature float64 `json:"select_columns_temperature"`
	// Generators are generate_candidate's generators, in order.
	Generators []GeneratorConfig `json:"generators"`
	// ReviseTemperature is revise's temperature (template revise_one).
	ReviseTemperature float64 `json:"revise_temperature"`
	// UnitTester runs generate_unit_test (UnitTestCount tests asked for,
	// UnitTestSamples calls at UnitTestTemperature) and evaluate (at
	// EvaluateTemperature).
	UnitTester          bool    `json:"unit_tester"`
	UnitTestCount       int     `json:"unit_test_count"`
	UnitTestSamples     int     `json:"unit_test_samples"`
	UnitTestTemperature float64 `json:"unit_test_temperature"`
	EvaluateTemperature float64 `json:"evaluate_temperature"`
}

// Configs are the official configurations by name: run/configs/
// CHESS_IR_CG_UT.yaml and CHESS_IR_SS_CG.yaml of ShayanTalaei/CHESS. The
// official files name a model per step (gpt-4o-mini, gpt-4o for
// select_tables and select_columns); here every step uses --llm-model.
var Configs = map[string]Config{
	"CHESS_IR_CG_UT": {
		Name: "CHESS_IR_CG_UT", Engine: "gpt-4o-mini", Temperatures: TemperaturesYAML,
		KeywordsTemperature: 0.2, ContextTopK: 5,
		Generators: []GeneratorConfig{
			{Template: "generate_candidate_one", Temperature: 0.5, Samples: 10},
			{Template: "generate_candidate_two", Temperature: 0.5, Samples: 10},
		},
		ReviseTemperature: 0.0,
		UnitTester:        true, UnitTestCount: 20, UnitTestSamples: 1, UnitTestTemperature: 0.8,
		EvaluateTemperature: 0.0,
	},
	"CHESS_IR_SS_CG": {
		Name: "CHESS_IR_SS_CG", Engine: "gpt-4o-mini", SelectorEngine: "gpt-4o", Temperatures: TemperaturesYAML,
		KeywordsTemperature: 0.2, ContextTopK: 5,
		SchemaSelector: true, FilterColumnTemperature: 0.0, SelectTablesTemperature: 0.0, SelectColumnsTemperature: 0.0,
		Generators: []GeneratorConfig{
			{Template: "generate_candidate_one", Temperature: 0.01, Samples: 1},
		},
		ReviseTemperature: 0.0,
	},
}

// DefaultConfig is the configuration used when none is named.
const DefaultConfig = "CHESS_IR_CG_UT"

// LookupConfig returns the named configuration or an error listing the
// known names.
func LookupConfig(name string) (Config, error) {
	if name == "" {
		name = DefaultConfig
	}
	c, ok := Configs[name]
	if !ok {
		names := make([]string, 0, len(Configs))
		for n := range Configs {
			names = append(names, n)
		}
		sort.Strings(names)
		return Config{}, fmt.Errorf("unknown CHESS configuration %q (known: %v)", name, names)
	}
	return c, nil
}

// Values of Config.Temperatures.
const (
	TemperaturesSent = "sent"
	TemperaturesYAML = "yaml"
)

// SentTemperatures returns c with each step's temperature replaced by the
// one the official code sends. Officially every tool call runs
// get_llm_chain(engine_name, temperature) (src/llm/models.py), which
// writes the temperature into ENGINE_CONFIGS[engine_name]["params"], a
// dict shared by every later call of that engine name, but only when it
// is not 0 ("if temperature:"), so a step configured at 0 goes out at the
// temperature of the last step of its engine that set one (every engine
// starts at 0, engine_configs.py). The steps are walked in the order the
// official agents run them: extract_keywords, filter_column,
// select_tables, select_columns, generate_candidate (each generator),
// revise, generate_unit_test, evaluate. In CHESS_IR_CG_UT revise goes out
// at 0.5 and evaluate at 0.8; in CHESS_IR_SS_CG filter_column at 0.2 and
// revise at 0.01 (select_tables and select_columns, on gpt-4o, stay at 0).
// The state starts at 0 for every question: extract_keywords, the first
// call, sets it in both official configurations anyway.
func (c Config) SentTemperatures() Config {
	if c.Temperatures == TemperaturesSent {
		return c
	}
	state := map[string]float64{}
	send := func(engine string, t *float64) {
		if *t != 0 {
			state[engine] = *t
		}
		*t = state[engine]
	}
	sel := c.SelectorEngine
	if sel == "" {
		sel = c.Engine
	}
	send(c.Engine, &c.KeywordsTemperature)
	if c.SchemaSelector {
		send(c.Engine, &c.FilterColumnTemperature)
		send(sel, &c.SelectTablesTemperature)
		send(sel, &c.SelectColumnsTemperature)
	}
	c.Generators = slices.Clone(c.Generators)
	for i := range c.Generators {
		send(c.Engine, &c.Generators[i].Temperature)
	}
	send(c.Engine, &c.ReviseTemperature)
	if c.UnitTester {
		send(c.Engine, &c.UnitTestTemperature)
		send(c.Engine, &c.EvaluateTemperature)
	}
	c.Temperatures = TemperaturesSent
	return c
}
