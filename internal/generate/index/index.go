package index

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
)

// The official CHESS parameters (run/run_preprocess.sh, db_values/search.py,
// retrieve_entity.py, run/configs/CHESS_IR_CG_UT.yaml).
const (
	// SignatureSize is the number of minimum hashes of a MinHash signature.
	SignatureSize = 100
	// NGram is the length in characters of the shingles hashed.
	NGram = 3
	// LSHThreshold is the Jaccard threshold the LSH banding is tuned for.
	LSHThreshold = 0.01
	// LSHTopN is the number of LSH candidates kept per searched string,
	// the most similar first.
	LSHTopN = 10
	// EditDistanceThreshold is the least difflib SequenceMatcher ratio
	// between a searched string and a value, both lower-cased.
	EditDistanceThreshold = 0.3
	// EmbeddingSimilarityThreshold is the least cosine similarity between
	// the embeddings of a searched string and a value.
	EmbeddingSimilarityThreshold = 0.6
	// ColumnMatchThreshold is the least difflib ratio between a keyword and
	// a column name (both lower-cased, spaces and underscores removed,
	// trailing s stripped) for the column to be a similar column.
	ColumnMatchThreshold = 0.9
	// DefaultTopK is retrieve_context's top_k in both official
	// configurations.
	DefaultTopK = 5
)

// Embedder embeds texts: one vector per text, in order, all of one length.
// *llm.Client implements it (POST /v1/embeddings). Vectors need not be of
// unit length: the index normalises them before taking dot products.
type Embedder interface {
	Embed(ctx context.Context, texts []string) ([][]float32, error)
}

// Options configures Open. The zero value follows CHESS.
type Options struct {
	// Embedder, if set, embeds the column descriptions at build time and
	// they are cached with the index; if nil they are embedded by the
	// first RetrieveContext, with its Embedder, and kept in memory.
	Embedder Embedder
	// EmbedModel names the Embedder's model. Description embeddings are
	// cached with the model that made them and used only by an Open with
	// the same EmbedModel; with "" they are not cached.
	EmbedModel string
	// TextAffinity indexes every column of SQLite TEXT affinity (declared
	// type containing CHAR, CLOB or TEXT, any case, and not INT) instead of
	// CHESS's rule, columns whose declared type contains "TEXT"
	// (case-sensitive; _get_unique_values). An extension, off by default:
	// on Spider it adds the CHAR, VARCHAR and lower-case text columns.
	TextAffinity bool
	// NoValueDescription leaves the value_description column of the
	// description files out (CHESS's use_value_description=False).
	NoValueDescription bool
	// Seed seeds the MinHash hash functions; 0 means 1 (datasketch's
	// default seed).
	Seed int64
	// Rebuild builds the index even when the cache is current.
	Rebuild bool

	// FoldCase hashes the 3-grams of values and search strings
	// lower-cased, so that "france" is found for "France". CHESS hashes
	// them as written (its later filters lower-case both). An extension,
	// off by default; it needs no rebuild of the cache.
	FoldCase bool
	// ShortScan also compares a search string of at most ShortScanMax code
	// points with every indexed value whose length differs from it by at
	// most one, by difflib ratio, adding the LSHTopN best to the LSH's
	// candidates. A value of L characters has L-2 3-grams and one edit
	// destroys up to three of them, so LSH over 3-grams cannot find a
	// value of 5 characters or fewer through an edit ("cat" from "cst",
	// "USA" from "UA", "Asia" from "Asgia"). An extension, off by default;
	// the recall test measures both settings.
	ShortScan bool
}

// ShortScanMax is the longest search string (in code points) Options.ShortScan
// compares with the short values.
const ShortScanMax = 6

// ErrIndex is wrapped by every error of Open about the database, the
// description files or the cache.
var ErrIndex = errors.New("index")

// Index is the value index and the column descriptions of one database.
// It is safe for concurrent use once opened.
type Index struct {
	dbID   string
	dbPath string
	file   string
	built  bool
	opts   Options

	data cacheData
	lsh  *bands
	sigs [][]uint32 // by entry id
	refs []entryRef // by entry id
	// short are the entry ids of values of at most ShortScanMax+1 code
	// points (with Options.ShortScan).
	short []int
	hash  hasher
	embMu sync.Mutex
	// descVecs are the unit-length embeddings of data.Docs (nil until
	// computed).
	descVecs [][]float32
}

// Open returns the index of the SQLite database at dbPath, cached in dir
// (created if needed) as dir/<db_id>.index.json.gz, where db_id is the
// file's name without its extension. The cache is used when it was built
// from a database of the same SHA-256, the same description files and the
// same options; otherwise (or with Options.Rebuild) the index is built
// from the database and written there. The database file is hashed on
// every Open (about 1 s per GB); the LSH is rebuilt in memory from the
// cached values (signatures are a function of the values and Seed).
//
// Descriptions are read from database_description/*.csv in dbPath's
// folder, as BIRD ships them (see LoadDescriptions); without that folder
// the index has no descriptions. Errors wrap ErrIndex, the Embedder's error
// or ctx's error.
func Open(ctx context.Context, dir string, dbPath string, opts Options) (*Index, error) {
	if opts.Seed == 0 {
		opts.Seed = 1
	}
	st, err := os.Stat(dbPath)
	if err != nil {
		return nil, fmt.Errorf("%w: database %s: %v", ErrIndex, dbPath, err)
	}
	if st.IsDir() {
		return nil, fmt.Errorf("%w: database %s is a folder, not a SQLite file", ErrIndex, dbPath)
	}
	if dir == "" {
		return nil, fmt.Errorf("%w: no cache folder", ErrIndex)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("%w: cache folder: %v", ErrIndex, err)
	}
	base := filepath.Base(dbPath)
	dbID := strings.TrimSuffix(base, filepath.Ext(base))
	ix := &Index{
		dbID: dbID, dbPath: dbPath, opts: opts,
		file: filepath.Join(dir, dbID+".index.json.gz"),
		hash: newHasher(opts.Seed, SignatureSize),
	}
	if err := ix.load(ctx); err != nil {
		return nil, err
	}
	ix.buildLSH()
	if opts.Embedder != nil && len(ix.data.Docs) > 0 {
		if _, err := ix.descriptionVectors(ctx, opts.Embedder, true); err != nil {
			return nil, err
		}
	}
	return ix, nil
}

// DBID returns the database's id (its file name without extension).
func (ix *Index) DBID() string { return ix.dbID }

// File returns the path of the cache file.
func (ix *Index) File() string { return ix.file }

// Built tells whether Open built the index from the database (true) or
// read it from the cache (false).
func (ix *Index) Built() bool { return ix.built }

// Stats counts what the index holds.
type Stats struct {
	// Tables and Columns count the tables and the columns whose values are
	// indexed; Values counts the indexed values (one per distinct value of
	// each column).
	Tables, Columns, Values int
	// Descriptions counts the description documents (non-empty
	// column_name, column_description and value_description texts).
	Descriptions int
	// DescriptionsEmbedded tells whether their embeddings are at hand.
	DescriptionsEmbedded bool
}

// Stats returns the counts of the index.
func (ix *Index) Stats() Stats {
	s := Stats{Descriptions: len(ix.data.Docs)}
	for _, t := range ix.data.Tables {
		if len(t.Columns) > 0 {
			s.Tables++
		}
		for _, c := range t.Columns {
			s.Columns++
			s.Values += len(c.Values)
		}
	}
	ix.embMu.Lock()
	s.DescriptionsEmbedded = ix.descVecs != nil
	ix.embMu.Unlock()
	return s
}

// FindDatabases returns the SQLite files of a benchmark folder, sorted by
// db_id: dir/<db_id>/<db_id>.sqlite (Spider's and BIRD's layout) and
// dir/<db_id>.sqlite, the first when both exist (the SQLite engine's
// order); dir may also be one .sqlite file. A folder holding none is an
// error wrapping ErrIndex.
func FindDatabases(dir string) ([]string, error) {
	st, err := os.Stat(dir)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrIndex, err)
	}
	if !st.IsDir() {
		return []string{dir}, nil
	}
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrIndex, err)
	}
	byID := map[string]string{}
	for _, e := range ents {
		name := e.Name()
		if e.IsDir() {
			p := filepath.Join(dir, name, name+".sqlite")
			if fi, err := os.Stat(p); err == nil && !fi.IsDir() {
				byID[name] = p
			}
		}
	}
	for _, e := range ents {
		name := e.Name()
		if id, ok := strings.CutSuffix(name, ".sqlite"); ok && !e.IsDir() && byID[id] == "" {
			byID[id] = filepath.Join(dir, name)
		}
	}
	if len(byID) == 0 {
		return nil, fmt.Errorf("%w: no SQLite database in %s (want DIR/<db_id>/<db_id>.sqlite or DIR/<db_id>.sqlite)", ErrIndex, dir)
	}
	ids := make([]string, 0, len(byID))
	for id := range byID {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	out := make([]string, len(ids))
	for i, id := range ids {
		out[i] = byID[id]
	}
	return out, nil
}

// Descriptions returns the column descriptions read from the database's
// description files (see LoadDescriptions), in file and row order; nil for
// a database without them. The slice is shared: do not modify it.
func (ix *Index) Descriptions() []Description { return ix.data.Descriptions }
