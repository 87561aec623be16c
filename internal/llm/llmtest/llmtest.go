// Package llmtest is a scripted OpenAI-compatible Chat Completions server
// for tests and benchmarks: a net/http/httptest server on loopback whose
// answer to each request is computed by a Go function from the request's
// content. It counts requests and the tokens of every prompt and reply, so
// a test can assert how many calls a judge made and a benchmark can report
// calls and tokens per item. It never reaches the network.
package llmtest

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"
)

// Message is one chat message of a request.
type Message struct {
	Role    string `json:"role"`
	Content string `json:"content"`
}

// Request is a decoded /chat/completions request.
type Request struct {
	Model          string          `json:"model"`
	Messages       []Message       `json:"messages"`
	Temperature    *float64        `json:"temperature"`
	Seed           *int64          `json:"seed"`
	MaxTokens      *int            `json:"max_tokens"`
	ResponseFormat json.RawMessage `json:"response_format"`
	// N is the 1-based number of this request among those the server got
	// with the same messages (a retry of a request has N = 2, ...).
	N int `json:"-"`
	// Auth is the Authorization header.
	Auth string `json:"-"`
	// Header holds the request's HTTP headers (X-Sqljudge-Step, ...).
	Header http.Header `json:"-"`
}

// System returns the system message, or "".
func (r *Request) System() string {
	for _, m := range r.Messages {
		if m.Role == "system" {
			return m.Content
		}
	}
	return ""
}

// User returns the last user message, or "".
func (r *Request) User() string {
	for i := len(r.Messages) - 1; i >= 0; i-- {
		if r.Messages[i].Role == "user" {
			return r.Messages[i].Content
		}
	}
	return ""
}

// Reply is the scripted answer to a request.
type Reply struct {
	// Status is the HTTP status; 0 means 200.
	Status int
	// Header is added to the response (Retry-After, ...).
	Header map[string]string
	// Content is the assistant message of a 200 reply.
	Content string
	// Body, if set, is sent as the whole response body instead.
	Body string
	// Delay holds the reply back (until the client gives up, if longer).
	Delay time.Duration
}

// Script computes the reply to a request.
type Script func(r *Request) Reply

// Server is a running scripted server. Use URL + "/v1" as the base URL.
type Server struct {
	*httptest.Server
	script Script

	// ModelsStatus, if set, is the status of GET /models (a refused key:
	// 401); otherwise that route lists the one model "scripted". Set it
	// before the first request.
	ModelsStatus int

	mu       sync.Mutex
	log      []Request
	embedLog []EmbedRequest
	embed    EmbedScript
	seen     map[string]int
	prompt   int64
	complete int64
}

// New starts a server running script; it is closed when the test ends.
func New(tb testing.TB, script Script) *Server {
	s := &Server{script: script, seen: map[string]int{}}
	s.Server = httptest.NewServer(http.HandlerFunc(s.serve))
	tb.Cleanup(s.Close)
	return s
}

// BaseURL returns the API root to give the client.
func (s *Server) BaseURL() string { return s.URL + "/v1" }

func (s *Server) serve(w http.ResponseWriter, hr *http.Request) {
	switch {
	case hr.Method == http.MethodPost && strings.HasSuffix(hr.URL.Path, "/embeddings"):
		s.serveEmbeddings(w, hr)
	case hr.Method == http.MethodGet && strings.HasSuffix(hr.URL.Path, "/models"):
		s.serveModels(w)
	case hr.Method == http.MethodPost && strings.HasSuffix(hr.URL.Path, "/chat/completions"):
		s.serveChat(w, hr)
	default:
		http.Error(w, `{"error":{"message":"not found"}}`, http.StatusNotFound)
	}
}

// serveModels answers GET /models: the one model "scripted", or the
// ModelsStatus error.
func (s *Server) serveModels(w http.ResponseWriter) {
	w.Header().Set("Content-Type", "application/json")
	if s.ModelsStatus != 0 && s.ModelsStatus != http.StatusOK {
		w.WriteHeader(s.ModelsStatus)
		fmt.Fprintf(w, `{"error":{"message":"scripted status %d"}}`, s.ModelsStatus)
		return
	}
	io.WriteString(w, `{"object":"list","data":[{"id":"scripted","object":"model","created":0,"owned_by":"llmtest"}]}`)
}

// serveChat answers POST /chat/completions: it logs the request, computes
// the scripted reply, holds it back its Delay (unless the client gives
// up), and sends its status and body, or a completion with its Content.
func (s *Server) serveChat(w http.ResponseWriter, hr *http.Request) {
	body, err := io.ReadAll(hr.Body)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	var r Request
	if err := json.Unmarshal(body, &r); err != nil {
		http.Error(w, `{"error":{"message":"bad json"}}`, http.StatusBadRequest)
		return
	}
	s.record(&r, hr.Header)

	rep := s.script(&r)
	if rep.Delay > 0 {
		select {
		case <-time.After(rep.Delay):
		case <-hr.Context().Done():
			return
		}
	}
	if writeScripted(w, rep) {
		return
	}
	s.writeCompletion(w, &r, rep.Content)
}

// writeScripted sets rep's headers and the JSON content type, then sends
// rep as is when it says what to send: a status other than 0 or 200 (with
// its Body, or a generic error body), or a Body. It reports whether it
// sent the reply; if not, the caller writes the default answer.
func writeScripted(w http.ResponseWriter, rep Reply) bool {
	for k, v := range rep.Header {
		w.Header().Set(k, v)
	}
	w.Header().Set("Content-Type", "application/json")
	if rep.Status != 0 && rep.Status != http.StatusOK {
		w.WriteHeader(rep.Status)
		msg := rep.Body
		if msg == "" {
			msg = fmt.Sprintf(`{"error":{"message":"scripted status %d","type":"server_error"}}`, rep.Status)
		}
		io.WriteString(w, msg)
		return true
	}
	if rep.Body != "" {
		io.WriteString(w, rep.Body)
		return true
	}
	return false
}

// record fills r's Auth, Header and N (how many times its messages have
// been sent, this one included) and appends it to the log.
func (s *Server) record(r *Request, h http.Header) {
	r.Auth = h.Get("Authorization")
	r.Header = h.Clone()
	mk, _ := json.Marshal(r.Messages)
	s.mu.Lock()
	s.seen[string(mk)]++
	r.N = s.seen[string(mk)]
	s.log = append(s.log, *r)
	s.mu.Unlock()
}

// writeCompletion sends a chat.completion with the assistant message
// content, its usage counted by CountTokens and added to the server's
// totals.
func (s *Server) writeCompletion(w io.Writer, r *Request, content string) {
	var pt int64
	for _, m := range r.Messages {
		pt += int64(CountTokens(m.Content))
	}
	ct := int64(CountTokens(content))
	s.mu.Lock()
	s.prompt += pt
	s.complete += ct
	s.mu.Unlock()
	out := map[string]any{
		"id": "chatcmpl-scripted", "object": "chat.completion", "created": 0, "model": r.Model,
		"choices": []any{map[string]any{
			"index": 0, "finish_reason": "stop",
			"message": map[string]any{"role": "assistant", "content": content},
		}},
		"usage": map[string]any{"prompt_tokens": pt, "completion_tokens": ct, "total_tokens": pt + ct},
	}
	json.NewEncoder(w).Encode(out)
}

// Requests returns the number of chat completion requests received.
func (s *Server) Requests() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.log)
}

// Log returns a copy of the requests received, in arrival order.
func (s *Server) Log() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Request(nil), s.log...)
}

// Tokens returns the prompt and completion tokens of the 200 replies sent,
// counted with CountTokens.
func (s *Server) Tokens() (prompt, completion int64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.prompt, s.complete
}

var tokenRE = regexp.MustCompile(`[A-Za-z]+|[0-9]+|[^\sA-Za-z0-9]`)

// CountTokens approximates a BPE tokenizer's count: every run of letters,
// every run of digits and every other non-space character is one token.
// It is not a real tokenizer and was not calibrated against one (none can
// be downloaded here): BPE splits long or rare words into several tokens
// and merges a leading space into a word, so read its counts as the order
// of magnitude of a prompt's size.
func CountTokens(s string) int {
	return len(tokenRE.FindAllStringIndex(s, -1))
}
