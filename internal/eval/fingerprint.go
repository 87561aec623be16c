package eval

import (
	"slices"
	"strconv"

	"github.com/sqljudge/sqljudge/internal/engine/open"
	"github.com/sqljudge/sqljudge/internal/equiv"
	"github.com/sqljudge/sqljudge/internal/llm"
	"github.com/sqljudge/sqljudge/internal/outdir"
	"github.com/sqljudge/sqljudge/internal/usage"
)

// fingerprint names what the verdicts of this run depend on (see
// outdir.Fingerprint): the inputs' hashes and every option that can change a
// verdict, whichever metrics use it.
func fingerprint(o *Options) (*outdir.Fingerprint, error) {
	fp := &outdir.Fingerprint{Version: o.Version, Inputs: map[string]string{}}
	for role, path := range map[string]string{"gold": o.Gold, "pred": o.Pred, "tables": o.Tables} {
		h, err := outdir.FileHash(path)
		if err != nil {
			return nil, usage.Errorf("--%s %s: %v", role, path, err)
		}
		if h != "" {
			fp.Inputs[role] = h
		}
	}
	llmCfg := llm.Config{BaseURL: o.Judge.BaseURL, Model: o.Judge.Model}.FromEnv()
	fp.Settings = map[string]string{
		"format":            o.Format,
		"db":                open.Redact(o.DB),
		"keep_distinct":     strconv.FormatBool(o.KeepDistinct),
		"em_fixed":          strconv.FormatBool(o.EMFixed),
		"sqleval_fixed":     strconv.FormatBool(o.SQLEvalFixed),
		"ves_repeats":       strconv.Itoa(o.VESRepeats),
		"max_rows":          strconv.Itoa(o.MaxRows),
		"max_bytes":         strconv.FormatInt(o.MaxBytes, 10),
		"timeout":           o.Timeout.String(),
		"suite":             o.Suite,
		"plug_value":        strconv.FormatBool(o.PlugValue),
		"max_plug":          strconv.Itoa(o.MaxPlug),
		"llm_base_url":      llmCfg.BaseURL,
		"llm_model":         llmCfg.Model,
		"llm_temperature":   strconv.FormatFloat(o.Judge.Temperature, 'g', -1, 64),
		"llm_seed":          strconv.FormatInt(o.Judge.Seed, 10),
		"llm_max_tokens":    strconv.Itoa(o.Judge.MaxTokens),
		"llm_json_schema":   o.Judge.Schema,
		"samples":           strconv.Itoa(o.Judge.Samples),
		"llm_parse_retries": strconv.Itoa(o.Judge.ParseRetries),
		"xscore_min":        strconv.Itoa(o.Judge.XScoreMin),
	}
	if o.Audit {
		// Only with --audit, so that the fingerprints of runs without it
		// keep their keys: resuming a run with --audit added or dropped is
		// refused, and no results.jsonl mixes audited and unaudited records.
		fp.Settings["audit"] = "true"
	}
	if slices.Contains(o.Metrics, "equiv") || slices.Contains(o.Metrics, "verdict") {
		// Only with equiv or verdict (whose equiv step reads the same
		// settings), so that the fingerprints of runs without them keep
		// their keys (resuming a run with equiv added is then refused).
		fp.Settings["equiv_seed"] = strconv.FormatInt(o.EquivSeed, 10)
		fp.Settings["equiv_budget"] = o.EquivBudget.String()
		fp.Settings["equiv_max_databases"] = strconv.Itoa(o.EquivMaxDatabases)
		// The shrinking's step cap is equiv's default (no flag): a
		// change of it changes the witnesses.
		fp.Settings["equiv_max_shrink_steps"] = strconv.Itoa(equiv.DefaultMaxShrinkSteps)
		if o.EquivAssume != "" && o.EquivAssume != string(equiv.AssumeDeclared) {
			// Recorded only when not the default, so that the
			// fingerprints of earlier runs keep their keys.
			fp.Settings["equiv_assume"] = o.EquivAssume
		}
	}
	if slices.Contains(o.Metrics, "equiv") || slices.Contains(o.Metrics, "verdict") {
		// Whether Z3 was found decides which items are proved.
		fp.Settings["equiv_prover"] = equiv.ProverSetting()
	}
	return fp, nil
}
