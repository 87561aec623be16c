package index

import (
	"context"
	"testing"
)

// devDBs returns the db_ids of Spider dev's questions, each once, in
// first-seen order.
func devDBs(t testing.TB) []string {
	var dbs []string
	seen := map[string]bool{}
	for _, it := range readDev(t) {
		if !seen[it.DBID] {
			seen[it.DBID] = true
			dbs = append(dbs, it.DBID)
		}
	}
	return dbs
}

// BenchmarkBuildSpiderDev builds the index of the 20 Spider dev databases
// from scratch (values read, cache written, LSH built), as `sqljudge index
// --db spider/database` does for them.
func BenchmarkBuildSpiderDev(b *testing.B) {
	dbs := devDBs(b)
	values := 0
	for b.Loop() {
		dir := b.TempDir()
		values = 0
		for _, db := range dbs {
			ix, err := Open(context.Background(), dir, spiderDB(b, db), Options{Rebuild: true})
			if err != nil {
				b.Fatal(err)
			}
			values += ix.Stats().Values
		}
	}
	b.ReportMetric(float64(len(dbs)), "databases")
	b.ReportMetric(float64(values), "values")
}

// BenchmarkOpenCachedSpiderDev opens the 20 Spider dev indexes from their
// cache (database hashed, values read, LSH rebuilt in memory).
func BenchmarkOpenCachedSpiderDev(b *testing.B) {
	dbs := devDBs(b)
	dir := b.TempDir()
	for _, db := range dbs {
		if _, err := Open(context.Background(), dir, spiderDB(b, db), Options{}); err != nil {
			b.Fatal(err)
		}
	}
	for b.Loop() {
		for _, db := range dbs {
			if _, err := Open(context.Background(), dir, spiderDB(b, db), Options{}); err != nil {
				b.Fatal(err)
			}
		}
	}
}

// BenchmarkRetrieveEntities times one retrieve_entity call (one misspelled
// keyword of the recall test, embeddings computed locally) on the Spider
// dev indexes.
func BenchmarkRetrieveEntities(b *testing.B) {
	idx := openDevIndexes(b, Options{TextAffinity: true})
	cases := recallCases(b, idx)
	emb := &localEmbedder{}
	i := 0
	for b.Loop() {
		c := cases[i%len(cases)]
		if _, err := idx[c.db].RetrieveEntities(context.Background(), []string{c.typed, "name of " + c.typed}, emb); err != nil {
			b.Fatal(err)
		}
		i++
	}
}
