package generate

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"golang.org/x/sync/semaphore"

	"github.com/sqljudge/sqljudge/internal/llm"
)

// pool holds one llm.Client per temperature, all on the same endpoint,
// model, seed and reply store: llm.Config fixes the temperature per client,
// and the CHESS steps sample at different ones. One semaphore of
// base.Concurrency (default 4) bounds the requests in flight over all of
// them.
type pool struct {
	base llm.Config
	sem  *semaphore.Weighted

	mu      sync.Mutex
	clients map[float64]*llm.Client
}

func newPool(base llm.Config) (*pool, error) {
	conc := base.Concurrency
	if conc <= 0 {
		conc = 4
	}
	p := &pool{base: base, clients: map[float64]*llm.Client{}, sem: semaphore.NewWeighted(int64(conc))}
	if _, err := p.client(base.Temperature); err != nil {
		return nil, err
	}
	return p, nil
}

func (p *pool) client(temp float64) (*llm.Client, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if c, ok := p.clients[temp]; ok {
		return c, nil
	}
	cfg := p.base
	cfg.Temperature = temp
	c, err := llm.New(cfg)
	if err != nil {
		return nil, err
	}
	p.clients[temp] = c
	return c, nil
}

// usage sums the usage of every client.
func (p *pool) usage() llm.Usage {
	p.mu.Lock()
	defer p.mu.Unlock()
	var u llm.Usage
	for _, c := range p.clients {
		x := c.Usage()
		u.Calls += x.Calls
		u.CacheHits += x.CacheHits
		u.HTTPRequests += x.HTTPRequests
		u.PromptTokens += x.PromptTokens
		u.CompletionTokens += x.CompletionTokens
		u.Cost += x.Cost
	}
	return u
}

// errLLM wraps a request that got no reply after the client's retries: the
// question fails as a whole (and --resume redoes it).
var errLLM = errors.New("LLM request failed")

// request is one prompt to send.
type request struct {
	step, item string
	tmpl       *Template
	vars       map[string]string
	temp       float64
	sample     int
}

// ask renders and sends a request, asking again (Attempt+1, a new cache
// entry) up to attempts times while parse fails, as the official
// call_llm_chain re-invokes the chain on an OutputParserException. It
// returns the calls made and the last reply; the error is parse's last
// error (errParse) or errLLM.
func (p *pool) ask(ctx context.Context, r request, attempts int, parse func(string) error) ([]Call, string, error) {
	prompt, err := r.tmpl.Render(r.vars)
	if err != nil {
		return nil, "", err
	}
	c, err := p.client(r.temp)
	if err != nil {
		return nil, "", err
	}
	if attempts < 1 {
		attempts = 1
	}
	var calls []Call
	var lastErr error
	for a := 0; a < attempts; a++ {
		req := llm.Request{
			Messages: []llm.Message{{Role: "user", Content: prompt}},
			Sample:   r.sample, Attempt: a,
			Header: map[string]string{HeaderStep: r.step, HeaderItem: r.item},
		}
		if err := p.sem.Acquire(ctx, 1); err != nil {
			return calls, "", err
		}
		t0 := time.Now()
		rep, err := c.Chat(ctx, req)
		p.sem.Release(1)
		call := Call{
			Template: r.tmpl.Name + "@" + r.tmpl.Hash, Model: p.base.Model, Temperature: r.temp,
			Sample: r.sample, Attempt: a, PromptHash: promptHash(prompt),
			LatencyMS: float64(time.Since(t0).Microseconds()) / 1000,
		}
		if err != nil {
			calls = append(calls, call)
			return calls, "", fmt.Errorf("%w: step %s: %v", errLLM, r.step, err)
		}
		call.Key, call.Cached = rep.Key, rep.Cached
		call.PromptTokens, call.CompletionTokens = rep.PromptTokens, rep.CompletionTokens
		if parse == nil {
			calls = append(calls, call)
			return calls, rep.Content, nil
		}
		if lastErr = parse(rep.Content); lastErr == nil {
			calls = append(calls, call)
			return calls, rep.Content, nil
		}
		call.ParseError = lastErr.Error()
		call.OfficialFail = errors.Is(lastErr, errOfficialFail)
		calls = append(calls, call)
	}
	return calls, "", lastErr
}
