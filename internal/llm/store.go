package llm

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/sqljudge/sqljudge/internal/outdir"
)

// Store keeps every raw reply on disk, one file per request:
// DIR/<key[:2]>/<key>.json holding
//
//	{"key": "<64 hex>", "request": {base_url, model, messages, temperature,
//	 seed, max_tokens, schema, schema_mode, sample, attempt},
//	 "reply": "<the server's response body>"}
//
// The reply is kept as a string holding the body byte for byte.
//
// A record names a reply by its key; Path finds the file. Files are
// written atomically (a temporary file renamed into place), so a crash
// never leaves half an entry (outdir.WriteShared: the store has no lock,
// runs may share it), and an entry is never rewritten.
type Store struct {
	dir string
}

// storeEntry is one file of the store.
type storeEntry struct {
	Key     string          `json:"key"`
	Request json.RawMessage `json:"request"`
	Reply   string          `json:"reply"`
}

// OpenStore opens (creating if needed) the store in dir.
func OpenStore(dir string) (*Store, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("cannot create the reply store: %w", err)
	}
	return &Store{dir: dir}, nil
}

// Dir returns the store's folder.
func (s *Store) Dir() string { return s.dir }

// Path returns the file of key.
func (s *Store) Path(key string) string {
	if len(key) < 2 {
		return filepath.Join(s.dir, key+".json")
	}
	return filepath.Join(s.dir, key[:2], key+".json")
}

// Get returns the raw reply stored under key.
func (s *Store) Get(key string) (json.RawMessage, bool) {
	b, err := os.ReadFile(s.Path(key))
	if err != nil {
		return nil, false
	}
	var e storeEntry
	if json.Unmarshal(b, &e) != nil || e.Key != key || len(e.Reply) == 0 {
		return nil, false
	}
	return json.RawMessage(e.Reply), true
}

// Put stores the raw reply to request under key.
func (s *Store) Put(key string, request any, reply json.RawMessage) error {
	rq, err := json.Marshal(request)
	if err != nil {
		return err
	}
	if !json.Valid(reply) {
		return fmt.Errorf("%w: the reply is not JSON", ErrRequest)
	}
	b, err := json.MarshalIndent(storeEntry{Key: key, Request: rq, Reply: string(reply)}, "", " ")
	if err != nil {
		return err
	}
	p := s.Path(key)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return fmt.Errorf("cannot write the reply store: %w", err)
	}
	err = outdir.WriteShared(p, ".tmp-*", func(w io.Writer) error {
		_, err := w.Write(append(b, '\n'))
		return err
	})
	if err != nil {
		return fmt.Errorf("cannot write the reply store: %w", err)
	}
	return nil
}

// hashJSON returns the hex SHA-256 of v's JSON encoding (Go's encoder
// writes struct fields in declaration order and map keys sorted, so equal
// values hash equal).
func hashJSON(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		panic("llm: unencodable cache key: " + err.Error())
	}
	h := sha256.Sum256(b)
	return hex.EncodeToString(h[:])
}
