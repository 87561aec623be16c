// Package llm is sqljudge's client for any OpenAI-compatible Chat
// Completions endpoint (OpenAI, vLLM, Ollama, llama.cpp server), built on
// github.com/openai/openai-go/v3.
//
// What it adds to the SDK, for judges that must be reproducible and cheap
// to re-run:
//
//   - configuration from flags or the environment (OPENAI_BASE_URL,
//     OPENAI_API_KEY, SQLJUDGE_MODEL);
//   - temperature and seed always sent (the seed of sample s is Seed+s, so
//     that k samples are k draws where the server honours seeds);
//   - JSON-schema output (response_format json_schema) where the server
//     accepts it: in SchemaAuto mode a 400/422 answer to a request with a
//     schema turns schemas off for the rest of the run and the request is
//     sent again without one; replies are always parsed tolerantly
//     (ExtractObject), so a server that ignores the schema still works;
//   - retries with exponential backoff and jitter on 408, 409, 429 and
//     5xx and on connection errors, honouring Retry-After and
//     Retry-After-Ms (the SDK's retry loop: internal/requestconfig
//     retryDelay); a request that runs past Timeout fails at once;
//   - Check, a look at the endpoint (GET /models) before a run, and a
//     circuit breaker (MaxFailures) that stops calling after consecutive
//     requests got no reply, so a dead endpoint costs seconds, not hours;
//   - a limit on requests in flight (Concurrency) and an optional rate limit
//     (RequestsPerSecond, golang.org/x/time/rate);
//   - an on-disk store keyed by (base URL, model, messages, parameters,
//     schema and schema mode, sample index, parse attempt) that keeps every
//     raw reply and serves a re-run without a request;
//   - token usage summed per run, with an optional price per million tokens.
package llm

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	"github.com/openai/openai-go/v3/shared"
	"golang.org/x/sync/semaphore"
	"golang.org/x/sync/singleflight"
	"golang.org/x/time/rate"
)

// Environment variables read by Config.FromEnv.
const (
	EnvBaseURL = "OPENAI_BASE_URL"
	EnvAPIKey  = "OPENAI_API_KEY"
	EnvModel   = "SQLJUDGE_MODEL"
	// EnvEmbedModel names the embedding model (Config.EmbedModel).
	EnvEmbedModel = "SQLJUDGE_EMBED_MODEL"
)

// Defaults of the settings whose zero means zero: sqljudge's --llm-retries
// and --llm-max-failures default to them.
const (
	// DefaultMaxRetries is Config.MaxRetries' default: 4 retries after
	// the first attempt.
	DefaultMaxRetries = 4
	// DefaultMaxFailures is Config.MaxFailures' default: the circuit
	// breaker stops the client after 5 consecutive requests with no reply.
	DefaultMaxFailures = 5
)

// SchemaMode says whether requests carry a JSON schema (response_format
// json_schema).
type SchemaMode string

// Schema modes.
const (
	// SchemaAuto sends the schema until the server rejects one (HTTP 400 or
	// 422), then stops sending schemas for the rest of the run.
	SchemaAuto SchemaMode = "auto"
	// SchemaOn always sends the schema; a rejection is an error.
	SchemaOn SchemaMode = "on"
	// SchemaOff never sends one: the reply is parsed tolerantly.
	SchemaOff SchemaMode = "off"
)

// Config configures a Client. BaseURL and Model (or EmbedModel) are
// required. MaxRetries and MaxFailures mean what they say (0 retries none,
// 0 never breaks; DefaultMaxRetries and DefaultMaxFailures are the
// command-line defaults); a zero Timeout, MaxRetryDelay, Concurrency or
// Schema takes the default documented on the field.
type Config struct {
	// BaseURL is the API root, e.g. "https://api.openai.com/v1" or
	// "http://localhost:8000/v1"; requests go to BaseURL + "/chat/completions".
	BaseURL string
	// APIKey is sent as a bearer token; "" sends none (local servers).
	APIKey string
	// Model is the model name sent with every request.
	Model string
	// Temperature is sent with every request (default 0).
	Temperature float64
	// Seed is sent with every request; sample s sends Seed+s.
	Seed int64
	// MaxTokens caps the completion (max_tokens); 0 sends no cap.
	MaxTokens int
	// Timeout bounds one HTTP attempt; 0 means 120 s.
	Timeout time.Duration
	// MaxRetries is the number of retries after the first attempt on a
	// retryable status or a connection error; 0 retries none
	// (DefaultMaxRetries is the flags' default). Negative is an error.
	MaxRetries int
	// MaxRetryDelay caps a Retry-After the client waits for (longer asks
	// fail the request); 0 means 60 s.
	MaxRetryDelay time.Duration
	// Concurrency is the number of requests in flight at once; 0 means 4.
	Concurrency int
	// RequestsPerSecond limits the request rate; 0 means no limit.
	RequestsPerSecond float64
	// Schema is the JSON-schema mode; "" means SchemaAuto.
	Schema SchemaMode
	// CacheDir is the folder of the reply store (see Store); "" keeps
	// replies in memory only, for the life of the Client.
	CacheDir string
	// PricePromptPerM and PriceCompletionPerM are prices per million
	// prompt and completion tokens, in any currency; 0 reports no cost.
	PricePromptPerM, PriceCompletionPerM float64
	// MaxFailures is the circuit breaker: after this many consecutive
	// requests that got no HTTP response at all (connection refused or
	// reset, DNS failure, no reply within Timeout), each after its own
	// retries, the client stops calling: every later request fails at once
	// with ErrUnreachable and Broken is closed. A reply of any HTTP status
	// resets the count. 0 never breaks (DefaultMaxFailures is the flags'
	// default). Negative is an error.
	MaxFailures int
	// HTTPClient is the HTTP client; nil uses http.DefaultClient.
	HTTPClient *http.Client
	// EmbedModel is the model of Embed requests (POST BaseURL +
	// "/embeddings"); "" makes Embed fail with ErrConfig.
	EmbedModel string
}

// FromEnv fills BaseURL, APIKey and Model from OPENAI_BASE_URL,
// OPENAI_API_KEY and SQLJUDGE_MODEL where they are empty, and returns the
// result.
func (c Config) FromEnv() Config {
	if c.BaseURL == "" {
		c.BaseURL = os.Getenv(EnvBaseURL)
	}
	if c.APIKey == "" {
		c.APIKey = os.Getenv(EnvAPIKey)
	}
	if c.Model == "" {
		c.Model = os.Getenv(EnvModel)
	}
	if c.EmbedModel == "" {
		c.EmbedModel = os.Getenv(EnvEmbedModel)
	}
	return c
}

// ErrConfig is wrapped by every error about a Config.
var ErrConfig = errors.New("llm configuration")

// ErrRequest is wrapped by the error of a request that got no usable reply
// (after retries): an HTTP error status, a timeout, a reply without choices.
var ErrRequest = errors.New("llm request failed")

// ErrUnreachable is wrapped by the error of Check when the endpoint cannot
// be reached, and by every request once the circuit breaker tripped
// (Config.MaxFailures). It wraps ErrRequest.
var ErrUnreachable = fmt.Errorf("%w: the endpoint is unreachable", ErrRequest)

// Message is one chat message.
type Message struct {
	// Role is "system", "user" or "assistant".
	Role string `json:"role"`
	// Content is the text of the message.
	Content string `json:"content"`
}

// Schema is a JSON schema for structured output.
type Schema struct {
	// Name names the schema (a-z, A-Z, 0-9, _ and -, at most 64).
	Name string `json:"name"`
	// Schema is the JSON Schema object. Its "properties" should be an
	// Ordered object: a map would send them in sorted order, and models
	// generate the keys in the order they are sent.
	Schema map[string]any `json:"schema"`
}

// Ordered is a JSON object whose members are written in the order given,
// where a Go map would be written with its keys sorted. Structured output
// is generated in the order of the schema's properties, so a schema that
// asks for reasoning before a verdict must keep that order on the wire
// (OpenAI, "Structured Outputs": "outputs will be produced in the same
// order as the ordering of keys in the schema").
type Ordered []Member

// Member is one key and value of an Ordered object.
type Member struct {
	Key   string
	Value any
}

// MarshalJSON writes the members in order. A duplicate key is an error.
func (o Ordered) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	seen := make(map[string]bool, len(o))
	for i, m := range o {
		if seen[m.Key] {
			return nil, fmt.Errorf("llm: duplicate key %q in an ordered object", m.Key)
		}
		seen[m.Key] = true
		if i > 0 {
			b.WriteByte(',')
		}
		k, err := json.Marshal(m.Key)
		if err != nil {
			return nil, err
		}
		v, err := json.Marshal(m.Value)
		if err != nil {
			return nil, fmt.Errorf("llm: ordered object member %q: %w", m.Key, err)
		}
		b.Write(k)
		b.WriteByte(':')
		b.Write(v)
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

// Keys returns the keys in order.
func (o Ordered) Keys() []string {
	k := make([]string, len(o))
	for i, m := range o {
		k[i] = m.Key
	}
	return k
}

// Request is one chat completion to make.
type Request struct {
	// Messages are the conversation, system message first.
	Messages []Message
	// Schema, if set, asks for JSON output of that shape.
	Schema *Schema
	// Sample is the 0-based index of this draw among k samples of the same
	// prompt: it is part of the cache key and adds to the seed.
	Sample int
	// Attempt is the 0-based parse attempt: a caller that could not parse a
	// reply asks again with Attempt+1, which is a new cache entry (the
	// unparseable reply stays in the store).
	Attempt int
	// Header holds extra HTTP headers sent with this request (for example
	// X-Sqljudge-Step and X-Sqljudge-Item, by which gateways and logs
	// attribute cost). Headers are not part of the cache key: a stored
	// reply serves a request whatever its headers.
	Header map[string]string
}

// Reply is the answer to a Request.
type Reply struct {
	// Key is the request's cache key (64 hex digits); the raw reply is in
	// the store under it (Store.Path).
	Key string
	// Content is the text of the first choice.
	Content string
	// Raw is the server's whole JSON response, as received.
	Raw json.RawMessage
	// PromptTokens and CompletionTokens are the usage the server reported.
	PromptTokens, CompletionTokens int64
	// Cached is true when the reply came from the store without a request.
	Cached bool
}

// Usage is what a Client spent: the totals of a run.
type Usage struct {
	// Calls is the number of requests answered (from the server or the
	// store); CacheHits of them came from the store.
	Calls, CacheHits int64
	// HTTPRequests counts HTTP attempts, retries included.
	HTTPRequests int64
	// PromptTokens and CompletionTokens sum the usage of replies received
	// from the server in this run (cache hits cost nothing).
	PromptTokens, CompletionTokens int64
	// Cost is PromptTokens and CompletionTokens priced per million tokens.
	Cost float64
	// SchemaFallback is true when the server rejected JSON schemas and the
	// run went on without them.
	SchemaFallback bool
	// EmbedCalls is the number of Embed requests answered (from the server
	// or the store; each batch of at most EmbedBatch texts is one), and
	// EmbedTokens the prompt tokens the server reported for them. Both are
	// also counted in Calls, CacheHits and PromptTokens.
	EmbedCalls, EmbedTokens int64
}

// Client calls a Chat Completions endpoint. It is safe for concurrent use.
type Client struct {
	cfg     Config
	sdk     openai.Client
	sem     *semaphore.Weighted
	limiter *rate.Limiter
	store   *Store
	group   singleflight.Group

	noSchema atomic.Bool
	calls    atomic.Int64
	hits     atomic.Int64
	attempts atomic.Int64
	ptok     atomic.Int64
	ctok     atomic.Int64
	ecalls   atomic.Int64
	etok     atomic.Int64

	memMu sync.Mutex
	mem   map[string]*Reply

	fails     atomic.Int64 // consecutive requests without an HTTP response
	breakOnce sync.Once
	broken    chan struct{}
	breakErr  atomic.Pointer[error]
	onBreak   atomic.Pointer[func(error)]
}

// New returns a client for cfg. It fails with ErrConfig when BaseURL or
// Model is missing or a number is out of range, or when CacheDir cannot be
// created.
func New(cfg Config) (*Client, error) {
	if err := cfg.check(); err != nil {
		return nil, err
	}
	cfg = cfg.withDefaults()
	hc := cfg.HTTPClient
	if hc == nil {
		hc = http.DefaultClient
	}
	c := &Client{cfg: cfg, sem: semaphore.NewWeighted(int64(cfg.Concurrency)), mem: map[string]*Reply{}, broken: make(chan struct{})}
	if cfg.RequestsPerSecond > 0 {
		c.limiter = rate.NewLimiter(rate.Limit(cfg.RequestsPerSecond), 1)
	}
	if cfg.CacheDir != "" {
		st, err := OpenStore(cfg.CacheDir)
		if err != nil {
			return nil, fmt.Errorf("%w: %v", ErrConfig, err)
		}
		c.store = st
	}
	opts := []option.RequestOption{
		option.WithBaseURL(cfg.BaseURL),
		option.WithHTTPClient(hc),
		option.WithMaxRetries(cfg.MaxRetries),
		option.WithMaxRetryDelay(cfg.MaxRetryDelay),
		option.WithRequestTimeout(cfg.Timeout),
		option.WithMiddleware(c.middleware),
	}
	if cfg.APIKey != "" {
		opts = append(opts, option.WithAPIKey(cfg.APIKey))
	} else {
		// A local server needs no key; the SDK would otherwise send the
		// environment's.
		opts = append(opts, option.WithAPIKey(""), option.WithHeaderDel("Authorization"))
	}
	c.sdk = openai.NewClient(opts...)
	return c, nil
}

// check returns an ErrConfig error naming the first setting of c New
// refuses: no base URL, no model, a temperature outside [0, 2], a negative
// count, rate, timeout or price, an unknown schema mode.
func (c Config) check() error {
	switch {
	case c.BaseURL == "":
		return fmt.Errorf("%w: no base URL: give --llm-base-url or set %s", ErrConfig, EnvBaseURL)
	case c.Model == "" && c.EmbedModel == "":
		return fmt.Errorf("%w: no model: give --llm-model or set %s", ErrConfig, EnvModel)
	case c.Temperature < 0 || c.Temperature > 2:
		return fmt.Errorf("%w: temperature %g is outside [0, 2]", ErrConfig, c.Temperature)
	case c.Concurrency < 0 || c.RequestsPerSecond < 0 || c.MaxTokens < 0 || c.Timeout < 0:
		return fmt.Errorf("%w: concurrency, rate, max tokens and timeout must not be negative", ErrConfig)
	case c.MaxRetries < 0:
		return fmt.Errorf("%w: %d retries: 0 or more are needed (0 retries none)", ErrConfig, c.MaxRetries)
	case c.MaxFailures < 0:
		return fmt.Errorf("%w: %d failures before the circuit breaker stops: 0 or more are needed (0 never stops)", ErrConfig, c.MaxFailures)
	case c.PricePromptPerM < 0 || c.PriceCompletionPerM < 0:
		return fmt.Errorf("%w: prices must not be negative", ErrConfig)
	}
	switch c.Schema {
	case "", SchemaAuto, SchemaOn, SchemaOff:
		return nil
	default:
		return fmt.Errorf("%w: schema mode %q (want auto, on or off)", ErrConfig, c.Schema)
	}
}

// withDefaults is c with New's defaults for the settings left zero: schema
// mode auto, a 120 s timeout, a 60 s retry delay cap, 4 requests at once.
// MaxRetries and MaxFailures have no default: their zero means zero.
func (c Config) withDefaults() Config {
	if c.Schema == "" {
		c.Schema = SchemaAuto
	}
	if c.Timeout == 0 {
		c.Timeout = 120 * time.Second
	}
	if c.MaxRetryDelay == 0 {
		c.MaxRetryDelay = 60 * time.Second
	}
	if c.Concurrency == 0 {
		c.Concurrency = 4
	}
	return c
}

// middleware runs before each HTTP attempt of the SDK (retries included):
// it counts the attempt, adds the context's headers a request does not set
// itself, and waits for the rate limiter.
func (c *Client) middleware(r *http.Request, next option.MiddlewareNext) (*http.Response, error) {
	c.attempts.Add(1)
	for k, v := range headersFrom(r.Context()) {
		if r.Header.Get(k) == "" { // Request.Header wins
			r.Header.Set(k, v)
		}
	}
	if c.limiter != nil {
		if err := c.limiter.Wait(r.Context()); err != nil {
			return nil, err
		}
	}
	return next(r)
}

// Config returns the client's configuration with defaults applied.
func (c *Client) Config() Config { return c.cfg }

// Store returns the reply store, or nil when CacheDir is "".
func (c *Client) Store() *Store { return c.store }

// Usage returns the totals so far.
func (c *Client) Usage() Usage {
	u := Usage{
		Calls: c.calls.Load(), CacheHits: c.hits.Load(), HTTPRequests: c.attempts.Load(),
		PromptTokens: c.ptok.Load(), CompletionTokens: c.ctok.Load(), SchemaFallback: c.noSchema.Load(),
		EmbedCalls: c.ecalls.Load(), EmbedTokens: c.etok.Load(),
	}
	u.Cost = float64(u.PromptTokens)/1e6*c.cfg.PricePromptPerM + float64(u.CompletionTokens)/1e6*c.cfg.PriceCompletionPerM
	return u
}

// keyRequest is what the cache key hashes: everything that can change the
// reply. That is the endpoint (the base URL, without a trailing slash: the
// same prompt to another server is another request), the model, every
// message and parameter sent, the schema and whether it is sent at all
// (the schema mode), the sample index and the parse attempt.
type keyRequest struct {
	BaseURL     string    `json:"base_url"`
	Model       string    `json:"model"`
	Messages    []Message `json:"messages"`
	Temperature float64   `json:"temperature"`
	Seed        int64     `json:"seed"`
	MaxTokens   int       `json:"max_tokens,omitempty"`
	Schema      *Schema   `json:"schema,omitempty"`
	SchemaMode  string    `json:"schema_mode"`
	Sample      int       `json:"sample"`
	Attempt     int       `json:"attempt"`
}

// Key returns the cache key of a request under this client's model and
// parameters: the hex SHA-256 of its canonical JSON.
func (c *Client) Key(r Request) string {
	return hashJSON(c.keyOf(r))
}

func (c *Client) keyOf(r Request) keyRequest {
	schema := r.Schema
	if c.cfg.Schema == SchemaOff {
		schema = nil // never sent
	}
	return keyRequest{
		BaseURL: strings.TrimRight(c.cfg.BaseURL, "/"), SchemaMode: string(c.cfg.Schema),
		Model: c.cfg.Model, Messages: r.Messages, Temperature: c.cfg.Temperature,
		Seed: c.cfg.Seed, MaxTokens: c.cfg.MaxTokens, Schema: schema,
		Sample: r.Sample, Attempt: r.Attempt,
	}
}

// Chat returns the reply to r: from the store when this request was
// answered before, else from the server (then stored). Identical requests
// in flight at once share one call. Errors wrap ErrRequest (the server
// failed or timed out after retries) or ctx's error.
func (c *Client) Chat(ctx context.Context, r Request) (*Reply, error) {
	if c.cfg.Model == "" {
		return nil, fmt.Errorf("%w: no chat model: give --llm-model or set %s", ErrConfig, EnvModel)
	}
	kr := c.keyOf(r)
	key := hashJSON(kr)
	v, err, _ := c.group.Do(key, func() (any, error) {
		if rep := c.lookup(key); rep != nil {
			return rep, nil
		}
		rep, err := c.send(ctx, r)
		if err != nil {
			return nil, err
		}
		rep.Key = key
		c.ptok.Add(rep.PromptTokens)
		c.ctok.Add(rep.CompletionTokens)
		if err := c.keep(key, kr, rep); err != nil {
			return nil, err
		}
		return rep, nil
	})
	if err != nil {
		return nil, err
	}
	c.calls.Add(1)
	rep := *v.(*Reply)
	return &rep, nil
}

// keep stores rep, the reply to request kr, under key: in the store, or in
// memory when the client has none.
func (c *Client) keep(key string, kr any, rep *Reply) error {
	if c.store != nil {
		return c.store.Put(key, kr, rep.Raw)
	}
	c.memMu.Lock()
	c.mem[key] = rep
	c.memMu.Unlock()
	return nil
}

// lookup returns a stored reply, marked Cached, or nil.
func (c *Client) lookup(key string) *Reply {
	if c.store != nil {
		raw, ok := c.store.Get(key)
		if !ok {
			return nil
		}
		rep, err := parseReply(raw)
		if err != nil {
			return nil // a damaged entry is fetched again
		}
		rep.Key, rep.Cached = key, true
		c.hits.Add(1)
		return rep
	}
	c.memMu.Lock()
	defer c.memMu.Unlock()
	if rep, ok := c.mem[key]; ok {
		cp := *rep
		cp.Cached = true
		c.hits.Add(1)
		return &cp
	}
	return nil
}

// Check asks the endpoint for its models (GET BaseURL/models, one
// attempt, at most 10 s or Timeout if shorter) to find out, before a run
// spends a request per item, whether anyone answers there. Any HTTP reply
// but 401 and 403 counts as alive (a server without a /models route
// answers 404, and is up). It fails with an error wrapping ErrUnreachable
// and naming the URL when no HTTP reply comes, or naming the status when
// the server refuses the key.
func (c *Client) Check(ctx context.Context) error {
	url := strings.TrimRight(c.cfg.BaseURL, "/")
	_, err := c.sdk.Models.List(ctx, option.WithMaxRetries(0), option.WithRequestTimeout(min(c.cfg.Timeout, 10*time.Second)))
	if err == nil {
		return nil
	}
	if ctx.Err() != nil {
		return ctx.Err()
	}
	var ae *openai.Error
	if errors.As(err, &ae) {
		if ae.StatusCode == http.StatusUnauthorized || ae.StatusCode == http.StatusForbidden {
			return fmt.Errorf("%w: %s refuses the API key (HTTP %d): check %s", ErrRequest, url, ae.StatusCode, EnvAPIKey)
		}
		return nil
	}
	return fmt.Errorf("%w: %s: %v", ErrUnreachable, url, err)
}

// Broken returns a channel closed when the circuit breaker trips
// (Config.MaxFailures); Err then says why.
func (c *Client) Broken() <-chan struct{} { return c.broken }

// OnBreak registers f, called once with the breaker's error when the
// circuit breaker trips, synchronously, before any request fails with
// ErrUnreachable: a run can cancel its context there, so that no item is
// graded against the dead endpoint afterwards. A later call replaces f.
func (c *Client) OnBreak(f func(error)) { c.onBreak.Store(&f) }

// Err returns nil, or the error (wrapping ErrUnreachable) of the tripped
// circuit breaker.
func (c *Client) Err() error {
	if e := c.breakErr.Load(); e != nil {
		return *e
	}
	return nil
}

// account updates the circuit breaker with a request's outcome: an error
// that is not an HTTP reply (nor the caller's cancellation) counts as a
// connection failure, anything else resets the count.
func (c *Client) account(ctx context.Context, err error) {
	var ae *openai.Error
	if err == nil || errors.As(err, &ae) || ctx.Err() != nil && !errors.Is(ctx.Err(), context.DeadlineExceeded) {
		c.fails.Store(0)
		return
	}
	n := c.fails.Add(1)
	if c.cfg.MaxFailures > 0 && n >= int64(c.cfg.MaxFailures) {
		c.breakOnce.Do(func() {
			e := fmt.Errorf("%w: %s: %d consecutive requests got no reply (circuit breaker); last: %v",
				ErrUnreachable, strings.TrimRight(c.cfg.BaseURL, "/"), n, err)
			if f := c.onBreak.Load(); f != nil {
				(*f)(e)
			}
			c.breakErr.Store(&e)
			close(c.broken)
		})
	}
}

// send makes the request, with the schema where allowed.
func (c *Client) send(ctx context.Context, r Request) (*Reply, error) {
	if err := c.Err(); err != nil {
		return nil, err
	}
	if err := c.sem.Acquire(ctx, 1); err != nil {
		return nil, err
	}
	defer c.sem.Release(1)
	if err := c.Err(); err != nil {
		return nil, err
	}
	withSchema := r.Schema != nil && c.cfg.Schema != SchemaOff && !c.noSchema.Load()
	rep, err := c.post(ctx, r, withSchema)
	if err != nil && withSchema && c.cfg.Schema == SchemaAuto && schemaRejected(err) {
		c.noSchema.Store(true)
		rep, err = c.post(ctx, r, false)
	}
	return rep, err
}

func (c *Client) post(ctx context.Context, r Request, withSchema bool) (*Reply, error) {
	p := openai.ChatCompletionNewParams{
		Model:       shared.ChatModel(c.cfg.Model),
		Temperature: openai.Float(c.cfg.Temperature),
		Seed:        openai.Int(c.cfg.Seed + int64(r.Sample)),
	}
	if c.cfg.MaxTokens > 0 {
		p.MaxTokens = openai.Int(int64(c.cfg.MaxTokens))
	}
	for _, m := range r.Messages {
		switch m.Role {
		case "system":
			p.Messages = append(p.Messages, openai.SystemMessage(m.Content))
		case "assistant":
			p.Messages = append(p.Messages, openai.AssistantMessage(m.Content))
		default:
			p.Messages = append(p.Messages, openai.UserMessage(m.Content))
		}
	}
	if withSchema {
		p.ResponseFormat = openai.ChatCompletionNewParamsResponseFormatUnion{
			OfJSONSchema: &shared.ResponseFormatJSONSchemaParam{
				JSONSchema: shared.ResponseFormatJSONSchemaJSONSchemaParam{
					Name: r.Schema.Name, Schema: r.Schema.Schema, Strict: openai.Bool(true),
				},
			},
		}
	}
	var raw []byte
	var httpRes *http.Response
	reqOpts := []option.RequestOption{option.WithResponseInto(&httpRes)}
	for k, v := range r.Header {
		reqOpts = append(reqOpts, option.WithHeader(k, v))
	}
	comp, err := c.sdk.Chat.Completions.New(ctx, p, reqOpts...)
	c.account(ctx, err)
	if err != nil {
		return nil, c.requestError(ctx, err, "reply")
	}
	raw = []byte(comp.RawJSON())
	rep, err := parseReply(raw)
	if err != nil {
		return nil, err
	}
	return rep, nil
}

// requestError is the error of a failed SDK call: ctx's error when the
// caller cancelled, else one wrapping ErrRequest ("no <what> within" the
// timeout when the call ran out of time).
func (c *Client) requestError(ctx context.Context, err error, what string) error {
	if ctx.Err() != nil && !errors.Is(ctx.Err(), context.DeadlineExceeded) {
		return ctx.Err()
	}
	if errors.Is(err, context.DeadlineExceeded) {
		return fmt.Errorf("%w: no %s within %s", ErrRequest, what, c.cfg.Timeout)
	}
	return fmt.Errorf("%w: %w", ErrRequest, err)
}

// schemaRejected tells whether err is a server's refusal of the request as
// malformed (400 or 422), taken to mean it does not support json_schema.
func schemaRejected(err error) bool {
	var ae *openai.Error
	if errors.As(err, &ae) {
		return ae.StatusCode == http.StatusBadRequest || ae.StatusCode == http.StatusUnprocessableEntity
	}
	return false
}

// completion is the part of a Chat Completions response sqljudge reads.
type completion struct {
	Choices []struct {
		Message struct {
			Content *string `json:"content"`
			Refusal string  `json:"refusal"`
		} `json:"message"`
	} `json:"choices"`
	Usage struct {
		PromptTokens     int64 `json:"prompt_tokens"`
		CompletionTokens int64 `json:"completion_tokens"`
	} `json:"usage"`
}

// parseReply reads the content and usage of a raw response.
func parseReply(raw []byte) (*Reply, error) {
	var cp completion
	if err := json.Unmarshal(raw, &cp); err != nil {
		return nil, fmt.Errorf("%w: the response is not a chat completion: %v", ErrRequest, err)
	}
	if len(cp.Choices) == 0 {
		return nil, fmt.Errorf("%w: the response has no choices", ErrRequest)
	}
	msg := cp.Choices[0].Message
	content := ""
	if msg.Content != nil {
		content = *msg.Content
	}
	if content == "" && msg.Refusal != "" {
		content = msg.Refusal
	}
	return &Reply{
		Content: content, Raw: append(json.RawMessage(nil), raw...),
		PromptTokens: cp.Usage.PromptTokens, CompletionTokens: cp.Usage.CompletionTokens,
	}, nil
}
