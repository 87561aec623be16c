package cli

import (
	"time"

	"github.com/spf13/pflag"

	"github.com/sqljudge/sqljudge/internal/eval"
	"github.com/sqljudge/sqljudge/internal/llm"
)

// llmFlags are eval's flags for the LLM judges' endpoint (xscore, rose,
// flex); the judges' own settings (--samples, --llm-parse-retries,
// --xscore-min) are metric settings (registerSettings).
type llmFlags struct {
	baseURL, model, cache, schema string
	temperature                   float64
	seed                          int64
	maxTokens, concurrency        int
	retries                       int
	rps                           float64
	timeout                       time.Duration
	pricePrompt, priceCompletion  float64
	check                         bool
	maxFailures                   int
}

func (f *llmFlags) register(fl *pflag.FlagSet) {
	fl.StringVar(&f.baseURL, "llm-base-url", "", "OpenAI-compatible API root for the LLM judges, e.g. http://localhost:8000/v1 (default $"+llm.EnvBaseURL+"; the key is read from $"+llm.EnvAPIKey+")")
	fl.StringVar(&f.model, "llm-model", "", "model of the LLM judges (default $"+llm.EnvModel+")")
	fl.StringVar(&f.cache, "llm-cache", "", "folder of the LLM reply store, shared by re-runs (default OUT/llm-cache)")
	fl.StringVar(&f.schema, "llm-json-schema", "auto", "send JSON schemas: auto (until the server rejects one), on, off")
	fl.Float64Var(&f.temperature, "llm-temperature", 0, "sampling temperature sent with every request")
	fl.Int64Var(&f.seed, "llm-seed", 0, "seed sent with every request (sample s sends seed+s)")
	fl.IntVar(&f.maxTokens, "llm-max-tokens", 0, "max_tokens of each reply (0: not sent)")
	fl.IntVar(&f.concurrency, "llm-concurrency", 4, "LLM requests in flight at once")
	fl.IntVar(&f.retries, "llm-retries", llm.DefaultMaxRetries, "retries of a request on 408/409/429/5xx or a connection error")
	fl.Float64Var(&f.rps, "llm-rps", 0, "LLM requests per second at most (0: no limit)")
	fl.DurationVar(&f.timeout, "llm-timeout", 120*time.Second, "time limit of one LLM request")
	fl.Float64Var(&f.pricePrompt, "llm-price-prompt", 0, "price per million prompt tokens, for the cost in the summary")
	fl.Float64Var(&f.priceCompletion, "llm-price-completion", 0, "price per million completion tokens")
	fl.BoolVar(&f.check, "llm-check", true, "check the endpoint (GET /models) before grading; a dead one stops the run at once (turn off to re-run offline from --llm-cache)")
	fl.IntVar(&f.maxFailures, "llm-max-failures", llm.DefaultMaxFailures, "stop the run after this many consecutive LLM requests got no reply (circuit breaker; 0: never)")
}

// judge returns the flags as eval's judge settings.
func (f *llmFlags) judge() eval.Judge {
	return eval.Judge{
		BaseURL: f.baseURL, Model: f.model, Cache: f.cache, Schema: f.schema,
		Temperature: f.temperature, Seed: f.seed,
		MaxTokens: f.maxTokens, Concurrency: f.concurrency, Retries: f.retries, MaxFailures: f.maxFailures,
		RPS: f.rps, Timeout: f.timeout, PricePrompt: f.pricePrompt, PriceCompletion: f.priceCompletion,
		Check: f.check,
	}
}
