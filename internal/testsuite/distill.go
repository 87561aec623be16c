package testsuite

import (
	"context"
	"fmt"
	"hash/fnv"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"time"

	"github.com/sqljudge/sqljudge/internal/catalog"
	"github.com/sqljudge/sqljudge/internal/engine/sqlite"
	"github.com/sqljudge/sqljudge/internal/result"
	"github.com/sqljudge/sqljudge/internal/schema"
	"github.com/sqljudge/sqljudge/internal/sqlast"
	"github.com/sqljudge/sqljudge/internal/sqllex"
)

// Options configure suite building.
type Options struct {
	// Seed makes the build reproducible: the same seed, inputs and sqljudge
	// version give byte-identical databases.
	Seed uint64
	// Budget is the number of fuzzed databases sampled per db_id at most
	// (default 400).
	Budget int
	// Batch is the number of databases sampled per greedy round (default 10).
	Batch int
	// Patience is the number of rounds in a row that tell no new neighbour
	// apart after which sampling stops (default 10).
	Patience int
	// MaxDatabases bounds the suite of a db_id, the original included
	// (default 40).
	MaxDatabases int
	// Timeout bounds each query (default 5s).
	Timeout time.Duration
	// MaxRows is the row cap of each query (default 10,000).
	MaxRows int
	// KeepDistinct grades with DISTINCT kept (the ts metric's
	// --keep-distinct); by default DISTINCT is removed from both queries, so
	// neighbours that only add or drop DISTINCT are not generated.
	KeepDistinct bool
	// Workers is the number of db_ids built at once (default: CPUs).
	Workers int
	// Log, if set, receives one line per finished db_id.
	Log io.Writer
	// Schemas, if set (tables.json), add the foreign keys a database's DDL
	// does not declare.
	Schemas schema.Schemas
}

func (o *Options) defaults() {
	if o.Budget <= 0 {
		o.Budget = 400
	}
	if o.Batch <= 0 {
		o.Batch = 10
	}
	if o.Patience <= 0 {
		o.Patience = 10
	}
	if o.MaxDatabases <= 0 {
		o.MaxDatabases = 40
	}
	if o.Timeout <= 0 {
		o.Timeout = 5 * time.Second
	}
	if o.MaxRows <= 0 {
		o.MaxRows = 10_000
	}
}

// Example is a neighbour no sampled database told apart from its gold.
type Example struct {
	Gold      string `json:"gold"`
	Neighbour string `json:"neighbour"`
	Kind      string `json:"kind"`
}

// DBReport tells how the suite of one db_id was built.
type DBReport struct {
	DBID string `json:"db_id"`
	// Databases is the number of databases in the suite, the original
	// included; Files are their names in the suite folder.
	Databases int      `json:"databases"`
	Files     []string `json:"files"`
	// Golds is the number of distinct gold queries.
	Golds int `json:"golds"`
	// Generated neighbours; Runnable ran on the original database.
	Generated int `json:"neighbours_generated"`
	Runnable  int `json:"neighbours_runnable"`
	// Distinguished by some sampled database (the original included);
	// Covered by the suite; NeverDistinguished = Runnable - Distinguished.
	Distinguished      int `json:"neighbours_distinguished"`
	Covered            int `json:"neighbours_covered"`
	NeverDistinguished int `json:"neighbours_never_distinguished"`
	// Examples of neighbours never told apart (at most 5).
	Examples []Example `json:"never_distinguished_examples,omitempty"`
	// ByOriginal is the number of neighbours the original database alone
	// tells apart.
	ByOriginal int `json:"neighbours_by_original"`
	// Sampled fuzzed databases; Discarded because a gold query failed on
	// them.
	Sampled   int `json:"sampled"`
	Discarded int `json:"discarded"`
	// Seconds of wall time.
	Seconds float64 `json:"seconds"`
}

type neighbour struct {
	Neighbour
	gold int    // index of its gold query
	sql  string // as graded: processed like the prediction
}

type gold struct {
	raw     string
	sql     string // processed for execution
	ordered bool
}

// builder builds the suite of one db_id.
type builder struct {
	o     Options
	eng   *sqlite.Engine
	dbID  string
	orig  string
	out   string // suite folder of this db_id
	tmp   string
	info  *catalog.Database
	golds []gold
	neigh []neighbour

	// Distillation state: the neighbours no kept database tells apart
	// yet (indexes into neigh), those some sampled database told apart,
	// and the suite's fuzzed database files so far.
	remaining []int
	everHit   map[int]bool
	kept      []string
}

func (b *builder) query(ctx context.Context, path, q string) (*result.Set, error) {
	ctx, cancel := context.WithTimeout(ctx, b.o.Timeout)
	defer cancel()
	return b.eng.QueryFile(ctx, path, q)
}

// distinguishes reports whether the neighbour's result on a database tells
// it apart from its gold's result there (an error or timeout does).
func (b *builder) distinguishes(ctx context.Context, path string, n *neighbour, goldRes []*result.Set) (bool, error) {
	res, err := b.query(ctx, path, n.sql)
	if err != nil {
		if ctx.Err() != nil {
			return false, ctx.Err()
		}
		return true, nil
	}
	return !result.SpiderEqual(goldRes[n.gold], res, b.golds[n.gold].ordered), nil
}

// goldResults runs every gold query on a database; ok is false if one
// fails there.
func (b *builder) goldResults(ctx context.Context, path string) ([]*result.Set, bool, error) {
	out := make([]*result.Set, len(b.golds))
	for i, g := range b.golds {
		res, err := b.query(ctx, path, g.sql)
		if err != nil {
			if ctx.Err() != nil {
				return nil, false, ctx.Err()
			}
			return nil, false, nil
		}
		out[i] = res
	}
	return out, true, nil
}

func (b *builder) seedFor(k int) *rand.Rand {
	h := fnv.New64a()
	fmt.Fprintf(h, "%s\x00%d", b.dbID, k)
	return rand.New(rand.NewPCG(b.o.Seed, h.Sum64()))
}

// build runs the whole distillation for the db_id: the gold queries that
// run on the original database, their runnable neighbours, greedy rounds
// over batches of fuzzed databases, then the report.
func (b *builder) build(ctx context.Context, rawGolds []string) (*DBReport, error) {
	start := time.Now()
	rep := &DBReport{DBID: b.dbID}
	origRes, err := b.prepareGolds(ctx, rawGolds)
	if err != nil {
		return nil, err
	}
	rep.Golds = len(b.golds)
	if err := b.runNeighbours(ctx, origRes, rep); err != nil {
		return nil, err
	}
	if err := b.distil(ctx, rawGolds, rep); err != nil {
		return nil, err
	}
	b.finish(rep)
	rep.Seconds = time.Since(start).Seconds()
	return rep, nil
}

// prepareGolds inspects the original database, keeps each distinct gold
// query once (processed as ex grades it), drops those that fail on the
// original database, and returns the results of the rest there.
func (b *builder) prepareGolds(ctx context.Context, rawGolds []string) ([]*result.Set, error) {
	var err error
	if b.info, err = inspect(ctx, b.eng, b.orig); err != nil {
		return nil, err
	}
	addForeignKeys(b.info, b.o.Schemas[b.dbID])
	seen := map[string]bool{}
	for _, g := range rawGolds {
		if seen[g] {
			continue
		}
		seen[g] = true
		_, gp, ordered := sqllex.PrepareEX(g, g, b.o.KeepDistinct)
		b.golds = append(b.golds, gold{raw: g, sql: gp, ordered: ordered})
	}
	origRes, ok, err := b.goldResults(ctx, b.orig)
	if err != nil || ok {
		return origRes, err
	}
	// Keep only the gold queries that run on the original database, with
	// their results there.
	var keep []gold
	for _, g := range b.golds {
		if res, err := b.query(ctx, b.orig, g.sql); err == nil {
			keep = append(keep, g)
			origRes = append(origRes, res)
		}
	}
	b.golds = keep
	return origRes, ctx.Err()
}

// runNeighbours generates every gold query's neighbours and keeps those
// that run on the original database (b.neigh); those it does not tell
// apart from their gold are left for the fuzzed databases (b.remaining),
// the others are covered by it.
func (b *builder) runNeighbours(ctx context.Context, origRes []*result.Set, rep *DBReport) error {
	for gi, g := range b.golds {
		for _, n := range Neighbours(g.raw, b.info) {
			if !b.o.KeepDistinct && (n.Kind == "distinct" || n.Kind == string(sqlast.DropDistinct)) {
				continue
			}
			p, _, _ := sqllex.PrepareEX(n.SQL, g.raw, b.o.KeepDistinct)
			if p == g.sql {
				continue
			}
			rep.Generated++
			res, err := b.query(ctx, b.orig, p)
			if err != nil {
				if ctx.Err() != nil {
					return ctx.Err()
				}
				continue
			}
			b.neigh = append(b.neigh, neighbour{Neighbour: n, gold: gi, sql: p})
			if result.SpiderEqual(origRes[gi], res, g.ordered) {
				b.remaining = append(b.remaining, len(b.neigh)-1)
			} else {
				rep.ByOriginal++
			}
		}
	}
	rep.Runnable = len(b.neigh)
	return nil
}

// candidate is a sampled database and the remaining neighbours it tells
// apart.
type candidate struct {
	path string
	hits []int
}

// distil runs greedy rounds: each samples a batch of fuzzed databases
// (sampleBatch) and keeps the best of them (keepBest), until the budget
// or MaxDatabases is reached, Patience rounds in a row add nothing, or no
// neighbour remains.
func (b *builder) distil(ctx context.Context, rawGolds []string, rep *DBReport) error {
	fz := NewFuzzer(b.info, assignLiterals(b.info, rawGolds))
	b.everHit = map[int]bool{}
	idle := 0
	for k := 1; rep.Sampled < b.o.Budget && len(b.kept)+1 < b.o.MaxDatabases && idle < b.o.Patience && len(b.remaining) > 0; {
		batch, err := b.sampleBatch(ctx, fz, &k, rep)
		if err != nil {
			return err
		}
		added, err := b.keepBest(batch)
		if err != nil {
			return err
		}
		if added {
			idle = 0
		} else {
			idle++
		}
	}
	return nil
}

// sampleBatch samples up to Batch fuzzed databases (the k-th with seed
// seedFor(k)), writes each, and returns those on which every gold query
// runs and some remaining neighbour is told apart; the others are dropped
// (counted as discarded when a gold query fails).
func (b *builder) sampleBatch(ctx context.Context, fz *Fuzzer, k *int, rep *DBReport) ([]candidate, error) {
	var batch []candidate
	for range b.o.Batch {
		if rep.Sampled >= b.o.Budget {
			break
		}
		path := filepath.Join(b.tmp, fmt.Sprintf("%s_s%d.sqlite", b.dbID, *k))
		data := fz.Sample(b.seedFor(*k))
		*k++
		rep.Sampled++
		if err := Write(path, b.info, data); err != nil {
			return nil, err
		}
		gres, ok, err := b.goldResults(ctx, path)
		if err != nil {
			return nil, err
		}
		if !ok {
			rep.Discarded++
			b.drop(path)
			continue
		}
		var hits []int
		for _, ni := range b.remaining {
			d, err := b.distinguishes(ctx, path, &b.neigh[ni], gres)
			if err != nil {
				return nil, err
			}
			if d {
				hits = append(hits, ni)
			}
		}
		if len(hits) == 0 {
			b.drop(path)
			continue
		}
		for _, h := range hits {
			b.everHit[h] = true
		}
		batch = append(batch, candidate{path, hits})
	}
	return batch, nil
}

// keepBest moves into the suite, greedily, the candidate that tells apart
// the most remaining neighbours, until none tells apart a new one or the
// suite is full, and drops the rest. added reports whether one was kept.
func (b *builder) keepBest(batch []candidate) (added bool, err error) {
	defer func() {
		for _, c := range batch {
			b.drop(c.path)
		}
	}()
	for len(batch) > 0 && len(b.kept)+1 < b.o.MaxDatabases {
		best := bestCandidate(batch, b.remaining)
		if best < 0 {
			break
		}
		c := batch[best]
		batch = slices.Delete(batch, best, best+1)
		name := fmt.Sprintf("%s_%d.sqlite", b.dbID, len(b.kept)+1)
		b.eng.Release(c.path)
		if err := os.Rename(c.path, filepath.Join(b.out, name)); err != nil {
			return added, err
		}
		b.kept = append(b.kept, name)
		hit := map[int]bool{}
		for _, h := range c.hits {
			hit[h] = true
		}
		b.remaining = slices.DeleteFunc(b.remaining, func(ni int) bool { return hit[ni] })
		added = true
	}
	return added, nil
}

// bestCandidate returns the index of the first candidate that tells apart
// the most of the remaining neighbours, or -1 when none tells apart any.
func bestCandidate(batch []candidate, remaining []int) int {
	left := map[int]bool{}
	for _, ni := range remaining {
		left[ni] = true
	}
	best, bestN := -1, 0
	for i, c := range batch {
		n := 0
		for _, h := range c.hits {
			if left[h] {
				n++
			}
		}
		if n > bestN {
			best, bestN = i, n
		}
	}
	return best
}

// finish fills the report's coverage: neighbours still remaining were told
// apart by no kept database, though some sampled database may have told
// them apart (when the suite hit MaxDatabases); the others never were, and
// the first five are kept as examples.
func (b *builder) finish(rep *DBReport) {
	rep.Covered = rep.Runnable - len(b.remaining)
	never := 0
	for _, ni := range b.remaining {
		if b.everHit[ni] {
			continue
		}
		never++
		if len(rep.Examples) == 5 {
			continue
		}
		n := b.neigh[ni]
		rep.Examples = append(rep.Examples, Example{Gold: b.golds[n.gold].raw, Neighbour: n.SQL, Kind: n.Kind})
	}
	rep.NeverDistinguished = never
	rep.Distinguished = rep.Runnable - never
	rep.Files = append([]string{b.dbID + ".sqlite"}, b.kept...)
	rep.Databases = len(rep.Files)
}

// drop forgets a sampled database: its connections and its file.
func (b *builder) drop(path string) {
	b.eng.Release(path)
	_ = os.Remove(path)
}
