package index

import (
	"bytes"
	"compress/gzip"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/sqljudge/sqljudge/internal/outdir"
)

// cacheVersion changes whenever the cache's layout or the way an index is
// built changes, so that old caches are rebuilt.
const cacheVersion = 2

// cacheParams are the options that change what is built.
type cacheParams struct {
	SignatureSize      int     `json:"signature_size"`
	NGram              int     `json:"n_gram"`
	Threshold          float64 `json:"threshold"`
	Seed               int64   `json:"seed"`
	TextAffinity       bool    `json:"text_affinity"`
	NoValueDescription bool    `json:"no_value_description"`
}

// cacheData is the content of a cache file: gzip-compressed JSON, written
// with no time or name in the gzip header, so that the same database and
// options give the same bytes.
type cacheData struct {
	Version int `json:"version"`
	// DBID is the database's id; DBSHA256 the hex SHA-256 of its file.
	DBID     string `json:"db_id"`
	DBSHA256 string `json:"db_sha256"`
	// DescSHA256 hashes the description files' names and bytes ("" when
	// there are none).
	DescSHA256 string      `json:"descriptions_sha256"`
	Params     cacheParams `json:"params"`
	// Schema is every table with every column (get_db_schema).
	Schema []schemaTable `json:"schema"`
	// Tables holds the indexed values.
	Tables []valueTable `json:"tables"`
	// Descriptions and Docs are the column descriptions and the texts
	// embedded from them.
	Descriptions []Description `json:"descriptions,omitempty"`
	Docs         []descDoc     `json:"docs,omitempty"`
	// EmbedModel and DocVectors are the description embeddings (unit
	// length, one per doc) and their model, when computed at build time.
	EmbedModel string      `json:"embed_model,omitempty"`
	DocVectors [][]float32 `json:"doc_vectors,omitempty"`
}

func (ix *Index) params() cacheParams {
	return cacheParams{
		SignatureSize: SignatureSize, NGram: NGram, Threshold: LSHThreshold, Seed: ix.opts.Seed,
		TextAffinity: ix.opts.TextAffinity, NoValueDescription: ix.opts.NoValueDescription,
	}
}

// descriptionsSHA256 hashes the names and bytes of the description files.
func descriptionsSHA256(dbDir string) (string, error) {
	files, err := filepath.Glob(filepath.Join(dbDir, "database_description", "*.csv"))
	if err != nil || len(files) == 0 {
		return "", err
	}
	h := sha256.New()
	for _, f := range files { // Glob sorts
		b, err := os.ReadFile(f)
		if err != nil {
			return "", err
		}
		fmt.Fprintf(h, "%s\x00%d\x00", filepath.Base(f), len(b))
		h.Write(b)
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// load reads the cache when it is current, else builds the index and
// writes the cache.
func (ix *Index) load(ctx context.Context) error {
	sum, err := outdir.FileHash(ix.dbPath)
	sum = strings.TrimPrefix(sum, "sha256:")
	if err != nil {
		return fmt.Errorf("%w: database %s: %v", ErrIndex, ix.dbPath, err)
	}
	dsum, err := descriptionsSHA256(filepath.Dir(ix.dbPath))
	if err != nil {
		return fmt.Errorf("%w: description files of %s: %v", ErrIndex, ix.dbPath, err)
	}
	if !ix.opts.Rebuild {
		if d, err := readCache(ix.file); err == nil && d.Version == cacheVersion && d.DBID == ix.dbID &&
			d.DBSHA256 == sum && d.DescSHA256 == dsum && d.Params == ix.params() {
			ix.data = *d
			if d.EmbedModel != "" && d.EmbedModel == ix.opts.EmbedModel && len(d.DocVectors) == len(d.Docs) {
				ix.descVecs = d.DocVectors
			}
			return nil
		}
	}
	schema, tables, err := readSchema(ctx, ix.dbPath, ix.opts.TextAffinity)
	if err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		return fmt.Errorf("%w: %s: %v", ErrIndex, ix.dbPath, err)
	}
	descs, err := LoadDescriptions(filepath.Dir(ix.dbPath), !ix.opts.NoValueDescription)
	if err != nil {
		return fmt.Errorf("%w: %v", ErrIndex, err)
	}
	ix.data = cacheData{
		Version: cacheVersion, DBID: ix.dbID, DBSHA256: sum, DescSHA256: dsum, Params: ix.params(),
		Schema: schema, Tables: tables, Descriptions: descs, Docs: descriptionDocs(descs),
	}
	ix.built = true
	return ix.writeCache()
}

func readCache(path string) (*cacheData, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		return nil, err
	}
	var d cacheData
	if err := json.NewDecoder(zr).Decode(&d); err != nil {
		return nil, err
	}
	return &d, nil
}

// writeCache writes ix.data atomically (outdir.WriteShared: a temporary
// file renamed into place; indexes are shared by runs without a lock).
func (ix *Index) writeCache() error {
	var buf bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&buf, gzip.BestSpeed)
	if err := json.NewEncoder(zw).Encode(&ix.data); err != nil {
		return fmt.Errorf("%w: encode cache: %v", ErrIndex, err)
	}
	if err := zw.Close(); err != nil {
		return err
	}
	err := outdir.WriteShared(ix.file, ".tmp-index-*", func(w io.Writer) error {
		_, err := w.Write(buf.Bytes())
		return err
	})
	if err != nil {
		return fmt.Errorf("%w: write cache: %v", ErrIndex, err)
	}
	return nil
}
