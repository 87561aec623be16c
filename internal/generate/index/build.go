package index

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/sqljudge/sqljudge/internal/llm"
	"github.com/sqljudge/sqljudge/internal/usage"
)

// InputError marks an error of BuildAll that is the caller's input (a
// missing folder, an unknown db_id, bad LLM settings, a database that could
// not be indexed); the CLI maps it to exit code 2.
type InputError = usage.Error

// BuildOptions are the settings of BuildAll, the sqljudge index command.
type BuildOptions struct {
	// DB is the folder of the databases (see FindDatabases); Out the
	// folder of the index cache (Out/<db_id>.index.json.gz).
	DB, Out string
	// DBIDs, if not empty, is a comma-separated list of the only db_ids to
	// index; each must have a database in DB.
	DBIDs string
	// BaseURL and EmbedModel name the embedding endpoint and model (""
	// means $SQLJUDGE_LLM_BASE_URL, $SQLJUDGE_EMBED_MODEL; no model: the
	// descriptions are not embedded now). Cache is the LLM reply store (""
	// means Out/llm-cache).
	BaseURL, EmbedModel, Cache string
	// Timeout bounds one embedding request; Retries are the retries of a
	// failed request (0: none); Concurrency the requests in flight.
	Timeout              time.Duration
	Retries, Concurrency int
	// Rebuild, TextAffinity and NoValueDescription are Options' fields.
	Rebuild, TextAffinity, NoValueDescription bool
}

// BuildRow is one database's line of BuildAll's report.
type BuildRow struct {
	// DBID is the database; Stats what its index holds.
	DBID  string
	Stats Stats
	// Built is true when the index was built now, false when read from the
	// cache; Seconds is the wall time it took.
	Built   bool
	Seconds float64
}

// BuildReport is what BuildAll did.
type BuildReport struct {
	// Databases is the number of databases tried; Rows the indexed ones in
	// db_id order, Total their sums (Tables, Columns, Values,
	// Descriptions); Failed the errors of the others.
	Databases int
	Rows      []BuildRow
	Total     Stats
	Failed    []error
	// Seconds is the wall time of the whole build.
	Seconds float64
	// Embedder is the embedding client, nil without an embedding model
	// (its Usage gives the requests made); EmbedModel its model.
	Embedder   *llm.Client
	EmbedModel string
}

// BuildAll indexes every database of o.DB (or those of o.DBIDs) into o.Out
// as CHESS's preprocess does once per database (ShayanTalaei/CHESS,
// src/preprocess.py), reading a current cache instead of building. Errors:
// InputError for bad options and, with the report, when some databases
// could not be indexed (the others are indexed); ctx's error when it ends,
// with a nil report.
func BuildAll(ctx context.Context, o BuildOptions) (*BuildReport, error) {
	if o.DB == "" {
		return nil, usage.Errorf("--db is required: the folder of the databases")
	}
	if o.Out == "" {
		return nil, usage.Errorf("--out must name a folder")
	}
	dbs, err := FindDatabases(o.DB)
	if err != nil {
		return nil, InputError{Err: err}
	}
	if dbs, err = selectDatabases(dbs, o.DBIDs, o.DB); err != nil {
		return nil, err
	}
	opts := Options{Rebuild: o.Rebuild, TextAffinity: o.TextAffinity, NoValueDescription: o.NoValueDescription}
	rep := &BuildReport{Databases: len(dbs)}
	if rep.Embedder, rep.EmbedModel, err = buildEmbedder(o); err != nil {
		return nil, err
	}
	if rep.Embedder != nil {
		opts.Embedder, opts.EmbedModel = rep.Embedder, rep.EmbedModel
	}
	start := time.Now()
	for _, p := range dbs {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		t0 := time.Now()
		ix, err := Open(ctx, o.Out, p, opts)
		if err != nil {
			if ctx.Err() != nil {
				return nil, ctx.Err()
			}
			rep.Failed = append(rep.Failed, err)
			continue
		}
		st := ix.Stats()
		rep.Total.Tables += st.Tables
		rep.Total.Columns += st.Columns
		rep.Total.Values += st.Values
		rep.Total.Descriptions += st.Descriptions
		rep.Rows = append(rep.Rows, BuildRow{DBID: ix.DBID(), Stats: st, Built: ix.Built(), Seconds: time.Since(t0).Seconds()})
	}
	rep.Seconds = time.Since(start).Seconds()
	if len(rep.Failed) > 0 {
		return rep, InputError{Err: fmt.Errorf("%d of %d databases could not be indexed: %w", len(rep.Failed), len(dbs), errors.Join(rep.Failed...))}
	}
	return rep, nil
}

// selectDatabases keeps the databases of dbs named in ids (comma-separated
// db_ids; "" keeps all); a db_id without a database is an InputError.
func selectDatabases(dbs []string, ids, dir string) ([]string, error) {
	if ids == "" {
		return dbs, nil
	}
	want := map[string]bool{}
	for _, id := range strings.Split(ids, ",") {
		want[strings.TrimSpace(id)] = true
	}
	dbs = slices.DeleteFunc(dbs, func(p string) bool {
		id := strings.TrimSuffix(filepath.Base(p), ".sqlite")
		if want[id] {
			delete(want, id)
			return false
		}
		return true
	})
	if len(want) > 0 {
		missing := make([]string, 0, len(want))
		for id := range want {
			missing = append(missing, id)
		}
		slices.Sort(missing)
		return nil, usage.Errorf("--db-id: no database %s in %s", strings.Join(missing, ", "), dir)
	}
	return dbs, nil
}

// buildEmbedder returns the embedding client of o and its model, or nil
// when no embedding model is set (by o or the environment).
func buildEmbedder(o BuildOptions) (*llm.Client, string, error) {
	cfg := llm.Config{BaseURL: o.BaseURL, EmbedModel: o.EmbedModel}.FromEnv()
	if cfg.EmbedModel == "" {
		return nil, "", nil
	}
	cfg.CacheDir = o.Cache
	if cfg.CacheDir == "" {
		cfg.CacheDir = filepath.Join(o.Out, "llm-cache")
	}
	cfg.Timeout, cfg.Concurrency = o.Timeout, o.Concurrency
	// index has no --llm-max-failures: the circuit breaker keeps its
	// default.
	cfg.MaxRetries, cfg.MaxFailures = o.Retries, llm.DefaultMaxFailures
	client, err := llm.New(cfg)
	if err != nil {
		return nil, "", InputError{Err: err}
	}
	return client, cfg.EmbedModel, nil
}
