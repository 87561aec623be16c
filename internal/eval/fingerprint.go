package eval

import (
	"strconv"

	"github.com/sqljudge/sqljudge/internal/engine/open"
	"github.com/sqljudge/sqljudge/internal/llm"
	"github.com/sqljudge/sqljudge/internal/metric"
	"github.com/sqljudge/sqljudge/internal/outdir"
	"github.com/sqljudge/sqljudge/internal/usage"
)

// fingerprint names what the verdicts of this run depend on (see
// outdir.Fingerprint): the inputs' hashes and every option that can change a
// verdict: the run's own, and the metrics' as each declares them
// (metric.Setting's Fingerprint and Record, metric.RegisterFingerprint).
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
	// Every setting a metric declares, as it says (metric.Fingerprint),
	// then the run's own.
	fp.Settings = metric.Fingerprint(&o.Settings, o.Metrics)
	for k, v := range map[string]string{
		"format":          o.Format,
		"db":              open.Redact(o.DB),
		"max_rows":        strconv.Itoa(o.MaxRows),
		"max_bytes":       strconv.FormatInt(o.MaxBytes, 10),
		"timeout":         o.Timeout.String(),
		"suite":           o.Suite,
		"llm_base_url":    llmCfg.BaseURL,
		"llm_model":       llmCfg.Model,
		"llm_temperature": strconv.FormatFloat(o.Judge.Temperature, 'g', -1, 64),
		"llm_seed":        strconv.FormatInt(o.Judge.Seed, 10),
		"llm_max_tokens":  strconv.Itoa(o.Judge.MaxTokens),
		"llm_json_schema": o.Judge.Schema,
	} {
		fp.Settings[k] = v
	}
	if o.Audit {
		// Only with --audit, so that the fingerprints of runs without it
		// keep their keys: resuming a run with --audit added or dropped is
		// refused, and no results.jsonl mixes audited and unaudited records.
		fp.Settings["audit"] = "true"
	}
	return fp, nil
}
