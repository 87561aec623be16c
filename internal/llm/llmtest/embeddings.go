package llmtest

import (
	"encoding/json"
	"hash/fnv"
	"io"
	"math"
	"net/http"
	"strings"
	"unicode/utf8"
)

// EmbedDim is the length of the vectors Embedding returns.
const EmbedDim = 512

// Embedding is the scripted server's embedding of text: a deterministic
// stand-in for a real embedding model, so that strings that share
// characters get similar vectors. The text is lower-cased and padded with
// one space on each side; each of its character 1-, 2- and 3-grams adds 1
// to the coordinate FNV-1a(n-gram) mod EmbedDim; the vector is scaled to
// unit length (the empty text gives the zero vector). The cosine of two
// embeddings is therefore a weighted overlap of their character n-grams:
// "New York" and "new yrok" score about 0.75, unrelated words about 0.1 to
// 0.3. It carries no meaning beyond spelling.
func Embedding(text string) []float32 {
	v := make([]float64, EmbedDim)
	s := []rune(" " + strings.ToLower(text) + " ")
	if text != "" {
		buf := make([]byte, 0, 16)
		h := fnv.New64a()
		for n := 1; n <= 3; n++ {
			for i := 0; i+n <= len(s); i++ {
				buf = buf[:0]
				for _, r := range s[i : i+n] {
					buf = utf8.AppendRune(buf, r)
				}
				h.Reset()
				h.Write(buf)
				v[h.Sum64()%EmbedDim]++
			}
		}
	}
	var norm float64
	for _, x := range v {
		norm += x * x
	}
	out := make([]float32, EmbedDim)
	if norm == 0 {
		return out
	}
	norm = math.Sqrt(norm)
	for i, x := range v {
		out[i] = float32(x / norm)
	}
	return out
}

// EmbedRequest is a decoded /embeddings request.
type EmbedRequest struct {
	// Model is the requested model.
	Model string `json:"model"`
	// EncodingFormat is "float", "base64" or "" (the server always
	// answers with floats).
	EncodingFormat string `json:"encoding_format"`
	// Input is the list of texts (a single string is read as a list of
	// one).
	Input []string `json:"-"`
	// Auth is the Authorization header.
	Auth string `json:"-"`
	// Header is the whole request header.
	Header http.Header `json:"-"`
}

// EmbedScript, if set with SetEmbedScript, decides the answer to an
// /embeddings request: a Reply with a Status other than 0 or 200, or a
// Body, is sent as is; any other Reply (the zero value) gets the
// deterministic Embedding of every input.
type EmbedScript func(r *EmbedRequest) Reply

// SetEmbedScript installs script for the /embeddings requests that follow.
func (s *Server) SetEmbedScript(script EmbedScript) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.embed = script
}

// EmbedLog returns a copy of the /embeddings requests received, in
// arrival order.
func (s *Server) EmbedLog() []EmbedRequest {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]EmbedRequest(nil), s.embedLog...)
}

// serveEmbeddings answers POST .../embeddings as OpenAI's Embeddings API
// does (encoding_format float), with usage.prompt_tokens counted by
// CountTokens over the inputs (added to Tokens' prompt count).
func (s *Server) serveEmbeddings(w http.ResponseWriter, hr *http.Request) {
	body, err := io.ReadAll(hr.Body)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	var r EmbedRequest
	var in struct {
		Input json.RawMessage `json:"input"`
	}
	if json.Unmarshal(body, &r) != nil || json.Unmarshal(body, &in) != nil {
		http.Error(w, `{"error":{"message":"bad json"}}`, http.StatusBadRequest)
		return
	}
	var one string
	if json.Unmarshal(in.Input, &r.Input) != nil {
		if json.Unmarshal(in.Input, &one) != nil {
			http.Error(w, `{"error":{"message":"input must be a string or a list of strings"}}`, http.StatusBadRequest)
			return
		}
		r.Input = []string{one}
	}
	r.Auth = hr.Header.Get("Authorization")
	r.Header = hr.Header.Clone()
	s.mu.Lock()
	s.embedLog = append(s.embedLog, r)
	script := s.embed
	s.mu.Unlock()

	var rep Reply
	if script != nil {
		rep = script(&r)
	}
	if writeScripted(w, rep) {
		return
	}
	for _, t := range r.Input {
		if t == "" {
			w.WriteHeader(http.StatusBadRequest)
			io.WriteString(w, `{"error":{"message":"'$.input' is invalid: empty string","type":"invalid_request_error"}}`)
			return
		}
	}
	var pt int64
	data := make([]any, len(r.Input))
	for i, t := range r.Input {
		pt += int64(CountTokens(t))
		data[i] = map[string]any{"object": "embedding", "index": i, "embedding": Embedding(t)}
	}
	s.mu.Lock()
	s.prompt += pt
	s.mu.Unlock()
	json.NewEncoder(w).Encode(map[string]any{
		"object": "list", "model": r.Model, "data": data,
		"usage": map[string]any{"prompt_tokens": pt, "total_tokens": pt},
	})
}
