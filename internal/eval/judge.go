package eval

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/sqljudge/sqljudge/internal/llm"
	"github.com/sqljudge/sqljudge/internal/report"
	"github.com/sqljudge/sqljudge/internal/usage"
)

// Judge holds the settings of the LLM judges' endpoint (xscore, rose,
// flex), as eval's --llm-* flags give them; the judges' own (--samples,
// --llm-parse-retries, --xscore-min) are metric settings, in
// Options.Settings.Judge. BaseURL and Model fall back to the
// environment (llm.Config.FromEnv).
type Judge struct {
	BaseURL, Model string
	// Cache is the reply store's folder; empty means OUT/llm-cache.
	Cache string
	// Schema is the JSON-schema mode: "auto", "on" or "off" (llm.SchemaMode).
	Schema      string
	Temperature float64
	Seed        int64
	// MaxTokens is max_tokens of each reply (0: not sent).
	MaxTokens, Concurrency int
	// Retries of a request (0: none); MaxFailures consecutive failed
	// requests before the circuit breaker stops the run (0: never).
	Retries, MaxFailures int
	// RPS is requests per second at most (0: no limit).
	RPS float64
	// Timeout is the time limit of one request.
	Timeout time.Duration
	// PricePrompt and PriceCompletion are prices per million tokens.
	PricePrompt, PriceCompletion float64
	// Check asks the endpoint (GET /models) before grading.
	Check bool
}

// judgeMetrics are the metrics that need an LLM client.
var judgeMetrics = map[string]bool{"xscore": true, "rose": true, "flex": true}

// NewJudgeClient returns the LLM client when one of metrics is an LLM
// judge, else nil (a run of ex alone never needs an endpoint, whatever the
// environment holds). out is the run's output folder (for the default
// cache). Bad settings, a missing base URL or model are InputErrors.
func NewJudgeClient(j Judge, out string, metrics []string) (*llm.Client, error) {
	if !slices.ContainsFunc(metrics, func(m string) bool { return judgeMetrics[strings.TrimSpace(m)] }) {
		return nil, nil
	}
	switch {
	case j.MaxFailures < 0:
		return nil, usage.Errorf("--llm-max-failures must not be negative")
	case j.Retries < 0:
		return nil, usage.Errorf("--llm-retries must not be negative")
	}
	c, err := llm.New(j.LLMConfig(out))
	if err != nil {
		return nil, InputError{Err: err}
	}
	return c, nil
}

// LLMConfig is the llm.Config of j: BaseURL and Model fall back to the
// environment, and the reply store is OUT/llm-cache (out) unless Cache
// names one. It does not check the settings (NewJudgeClient and llm.New do).
func (j Judge) LLMConfig(out string) llm.Config {
	cfg := llm.Config{BaseURL: j.BaseURL, Model: j.Model}.FromEnv()
	cache := j.Cache
	if cache == "" {
		cache = filepath.Join(out, "llm-cache")
	}
	cfg.Temperature, cfg.Seed, cfg.MaxTokens = j.Temperature, j.Seed, j.MaxTokens
	cfg.Timeout, cfg.MaxRetries, cfg.Concurrency, cfg.RequestsPerSecond = j.Timeout, j.Retries, j.Concurrency, j.RPS
	cfg.Schema, cfg.CacheDir = llm.SchemaMode(j.Schema), cache
	cfg.PricePromptPerM, cfg.PriceCompletionPerM = j.PricePrompt, j.PriceCompletion
	cfg.MaxFailures = j.MaxFailures
	return cfg
}

// usageSummary is the LLM part of summary.json's run block.
func usageSummary(c *llm.Client, samples int) *report.LLMRun {
	u, cfg := c.Usage(), c.Config()
	return &report.LLMRun{
		BaseURL: strings.TrimRight(cfg.BaseURL, "/"), Model: cfg.Model,
		Temperature: cfg.Temperature, Seed: cfg.Seed, MaxTokens: cfg.MaxTokens,
		Schema: string(cfg.Schema), TimeoutSeconds: cfg.Timeout.Seconds(),
		MaxRetries: cfg.MaxRetries, Concurrency: cfg.Concurrency, CacheDir: cfg.CacheDir,
		MaxFailures: cfg.MaxFailures, Samples: samples,
		Calls: u.Calls, CacheHits: u.CacheHits, HTTPRequests: u.HTTPRequests,
		PromptTokens: u.PromptTokens, CompletionTokens: u.CompletionTokens,
		Cost: u.Cost, SchemaFallback: u.SchemaFallback,
	}
}

// watchEndpoint checks the endpoint before grading (when check) and
// returns a context that ends when the client's circuit breaker trips
// (before any request fails for it), so that the runner stops instead of
// recording one judge_error per item. The check's failure is an error of
// the run (not an InputError) naming the URL.
func watchEndpoint(ctx context.Context, c *llm.Client, check bool) (context.Context, func(), error) {
	if check {
		if err := c.Check(ctx); err != nil {
			return ctx, func() {}, fmt.Errorf("%w (nothing graded; --llm-check=false skips this check, e.g. to re-run from --llm-cache)", err)
		}
	}
	ctx, cancel := context.WithCancelCause(ctx)
	c.OnBreak(cancel)
	return ctx, func() { cancel(nil) }, nil
}
