package generate

import (
	"context"
	"fmt"
	"sync"

	"github.com/sqljudge/sqljudge/internal/generate/index"
)

// IndexRetriever returns an Options.Retriever over package index: the
// value and description index of each database, built on first use (or
// read from its cache in dir) from the SQLite file dbPath gives for its
// db_id (the SQLite engine's Path). retrieve_entity embeds with entityEmb
// (officially text-embedding-3-small, retrieve_entity.py) and
// retrieve_context with contextEmb (officially text-embedding-3-large,
// db_catalog/preprocess.py), through any OpenAI-compatible /embeddings
// endpoint; opts.EmbedModel should name contextEmb's model, under which the
// description embeddings are cached. entityEmb may be nil: the entity
// retrieval then stops short of its embedding filter with an error noted
// in the ledger when values pass the edit-distance filter.
func IndexRetriever(dir string, dbPath func(dbID string) (string, error), opts index.Options, entityEmb, contextEmb index.Embedder) func(ctx context.Context, dbID string) (Retriever, error) {
	var open sync.Map // db_id -> *indexOnce
	return func(ctx context.Context, dbID string) (Retriever, error) {
		v, _ := open.LoadOrStore(dbID, &indexOnce{})
		o := v.(*indexOnce)
		o.once.Do(func() {
			path, err := dbPath(dbID)
			if err != nil {
				o.err = fmt.Errorf("index of %s: %w", dbID, err)
				return
			}
			ix, err := index.Open(ctx, dir, path, opts)
			if err != nil {
				o.err = fmt.Errorf("index of %s: %w", dbID, err)
				return
			}
			o.r = &indexRetriever{ix: ix, entity: entityEmb, context: contextEmb}
		})
		return o.r, o.err
	}
}

type indexOnce struct {
	once sync.Once
	r    Retriever
	err  error
}

// indexRetriever adapts *index.Index to Retriever, with the embedders of
// entity and context retrieval.
type indexRetriever struct {
	ix              *index.Index
	entity, context index.Embedder
}

// RetrieveEntities implements Retriever over the database's value index.
func (r *indexRetriever) RetrieveEntities(ctx context.Context, keywords []string) (Entities, error) {
	e, err := r.ix.RetrieveEntities(ctx, keywords, r.entity)
	if err != nil {
		return Entities{}, err
	}
	return Entities{SimilarColumns: e.SimilarColumns, SimilarValues: e.SimilarValues}, nil
}

// RetrieveContext implements Retriever over the database's description
// index.
func (r *indexRetriever) RetrieveContext(ctx context.Context, keywords []string, question, hint string, topK int) (map[string]map[string]Description, error) {
	c, err := r.ix.RetrieveContext(ctx, keywords, question, hint, r.context, topK)
	if err != nil {
		return nil, err
	}
	out := make(map[string]map[string]Description, len(c))
	for t, cols := range c {
		out[t] = make(map[string]Description, len(cols))
		for col, d := range cols {
			out[t][col] = Description{ColumnName: d.ColumnName, ColumnDescription: d.ColumnDescription, ValueDescription: d.ValueDescription}
		}
	}
	return out, nil
}

// AllDescriptions returns every column description of the database (table
// -> column -> description, names as the description files write them),
// which the official filter_column shows in the column profiles
// (DatabaseManager.get_column_profiles loads the description files whole).
func (r *indexRetriever) AllDescriptions() map[string]map[string]Description {
	out := map[string]map[string]Description{}
	for _, d := range r.ix.Descriptions() {
		if out[d.Table] == nil {
			out[d.Table] = map[string]Description{}
		}
		cd := d.ColumnDescription
		out[d.Table][d.OriginalColumnName] = Description{
			ColumnName: cd.ColumnName, ColumnDescription: cd.ColumnDescription, ValueDescription: cd.ValueDescription,
		}
	}
	return out
}
