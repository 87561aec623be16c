package llm

import (
	"context"
	"encoding/json"
	"fmt"
	"math"

	"github.com/openai/openai-go/v3"
)

// EmbedBatch is the most texts one /embeddings request carries; Embed
// splits longer lists (OpenAI accepts at most 2048 inputs per request).
const EmbedBatch = 256

// embedKey is what the cache key of one /embeddings request hashes.
type embedKey struct {
	Endpoint string   `json:"endpoint"`
	Model    string   `json:"model"`
	Input    []string `json:"input"`
}

// embeddingResponse is the part of an /embeddings response sqljudge reads.
type embeddingResponse struct {
	Data []struct {
		Index     int       `json:"index"`
		Embedding []float64 `json:"embedding"`
	} `json:"data"`
	Usage struct {
		PromptTokens int64 `json:"prompt_tokens"`
	} `json:"usage"`
}

// Embed returns one embedding per text, in order, from the OpenAI
// Embeddings endpoint (POST BaseURL + "/embeddings", model
// Config.EmbedModel, encoding_format "float") through the same SDK client
// as Chat: the same retries and timeout, the same limits on requests in
// flight and per second, the same reply store and the same usage totals
// (Usage.EmbedCalls and EmbedTokens, also counted in Calls, CacheHits and
// PromptTokens).
//
// Duplicate texts are sent once. The distinct texts go in batches of at
// most EmbedBatch, each one request and one store entry keyed by (model,
// batch). An empty text is not sent (OpenAI rejects it): its embedding is
// the zero vector of the others' length. Vectors are returned as the
// server sent them (OpenAI's are of unit length; callers that need
// cosine similarity should normalise). Errors wrap ErrConfig (no
// EmbedModel), ErrRequest (the server failed after retries, or answered
// with a count of vectors other than the count of inputs, or vectors of
// unequal lengths) or ctx's error.
func (c *Client) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	if c.cfg.EmbedModel == "" {
		return nil, fmt.Errorf("%w: no embedding model: give --embed-model or set %s", ErrConfig, EnvEmbedModel)
	}
	pos := map[string]int{}
	var uniq []string
	for _, t := range texts {
		if t == "" {
			continue
		}
		if _, ok := pos[t]; !ok {
			pos[t] = len(uniq)
			uniq = append(uniq, t)
		}
	}
	vecs := make([][]float32, 0, len(uniq))
	for lo := 0; lo < len(uniq); lo += EmbedBatch {
		hi := min(lo+EmbedBatch, len(uniq))
		got, err := c.embedBatch(ctx, uniq[lo:hi])
		if err != nil {
			return nil, err
		}
		vecs = append(vecs, got...)
	}
	dim := 0
	for _, v := range vecs {
		if dim == 0 {
			dim = len(v)
		} else if len(v) != dim {
			return nil, fmt.Errorf("%w: embeddings of unequal lengths (%d and %d)", ErrRequest, dim, len(v))
		}
	}
	out := make([][]float32, len(texts))
	for i, t := range texts {
		if t == "" {
			out[i] = make([]float32, dim)
			continue
		}
		out[i] = append([]float32(nil), vecs[pos[t]]...)
	}
	return out, nil
}

// embedBatch embeds one batch of distinct non-empty texts, from the store
// when it was embedded before.
func (c *Client) embedBatch(ctx context.Context, batch []string) ([][]float32, error) {
	kr := embedKey{Endpoint: "embeddings", Model: c.cfg.EmbedModel, Input: batch}
	key := hashJSON(kr)
	v, err, _ := c.group.Do(key, func() (any, error) {
		if raw, ok := c.lookupRaw(key); ok {
			if vecs, _, err := parseEmbeddings(raw, len(batch)); err == nil {
				c.hits.Add(1)
				return vecs, nil
			}
			// a damaged entry is fetched again
		}
		raw, err := c.postEmbeddings(ctx, batch)
		if err != nil {
			return nil, err
		}
		vecs, tokens, err := parseEmbeddings(raw, len(batch))
		if err != nil {
			return nil, err
		}
		c.ptok.Add(tokens)
		c.etok.Add(tokens)
		if err := c.keep(key, kr, &Reply{Key: key, Raw: raw}); err != nil {
			return nil, err
		}
		return vecs, nil
	})
	if err != nil {
		return nil, err
	}
	c.calls.Add(1)
	c.ecalls.Add(1)
	return v.([][]float32), nil
}

// lookupRaw returns the raw response stored under key (on disk or in
// memory).
func (c *Client) lookupRaw(key string) (json.RawMessage, bool) {
	if c.store != nil {
		return c.store.Get(key)
	}
	c.memMu.Lock()
	defer c.memMu.Unlock()
	if rep, ok := c.mem[key]; ok {
		return rep.Raw, true
	}
	return nil, false
}

// postEmbeddings sends one /embeddings request and returns the raw body.
// It counts toward the circuit breaker (Config.MaxFailures) as a chat
// request does, and fails at once once the breaker has tripped.
func (c *Client) postEmbeddings(ctx context.Context, batch []string) (json.RawMessage, error) {
	if err := c.Err(); err != nil {
		return nil, err
	}
	if err := c.sem.Acquire(ctx, 1); err != nil {
		return nil, err
	}
	defer c.sem.Release(1)
	p := openai.EmbeddingNewParams{
		Model:          openai.EmbeddingModel(c.cfg.EmbedModel),
		Input:          openai.EmbeddingNewParamsInputUnion{OfArrayOfStrings: batch},
		EncodingFormat: openai.EmbeddingNewParamsEncodingFormatFloat,
	}
	res, err := c.sdk.Embeddings.New(ctx, p)
	c.account(ctx, err)
	if err != nil {
		return nil, c.requestError(ctx, err, "embeddings")
	}
	return json.RawMessage(res.RawJSON()), nil
}

// parseEmbeddings reads n vectors (placed by their index) and the prompt
// tokens of a raw /embeddings response.
func parseEmbeddings(raw []byte, n int) ([][]float32, int64, error) {
	var er embeddingResponse
	if err := json.Unmarshal(raw, &er); err != nil {
		return nil, 0, fmt.Errorf("%w: the response is not an embeddings list: %v", ErrRequest, err)
	}
	if len(er.Data) != n {
		return nil, 0, fmt.Errorf("%w: %d embeddings for %d inputs", ErrRequest, len(er.Data), n)
	}
	out := make([][]float32, n)
	for _, d := range er.Data {
		if d.Index < 0 || d.Index >= n || out[d.Index] != nil {
			return nil, 0, fmt.Errorf("%w: embedding index %d is out of range or repeated", ErrRequest, d.Index)
		}
		v := make([]float32, len(d.Embedding))
		for i, x := range d.Embedding {
			if math.IsNaN(x) || math.IsInf(x, 0) {
				return nil, 0, fmt.Errorf("%w: embedding %d holds %v", ErrRequest, d.Index, x)
			}
			v[i] = float32(x)
		}
		out[d.Index] = v
	}
	return out, er.Usage.PromptTokens, nil
}
