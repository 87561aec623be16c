// Package metric holds sqljudge's grading rules as Metrics: each one grades
// an item into a Verdict, thin over the comparison semantics of package
// result (and, for later metrics, sqlast, testsuite and judge).
//
// Metrics are registered by name; `sqljudge eval --metrics ex,ex_bird`
// picks them. A failing query is a verdict (pred_error, gold_error, timeout,
// too_large), never an error of the run.
package metric

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/sqljudge/sqljudge/internal/bench"
	"github.com/sqljudge/sqljudge/internal/engine"
	"github.com/sqljudge/sqljudge/internal/judge"
	"github.com/sqljudge/sqljudge/internal/result"
	"github.com/sqljudge/sqljudge/internal/sqllex"
	"github.com/sqljudge/sqljudge/internal/status"
	"github.com/sqljudge/sqljudge/internal/turn"
)

// Verdict is one metric's judgement of one item.
//
// In results.jsonl it is the object {"correct": bool, "status": "...",
// "detail": "...", ...details}: Detail is present where Status is not ok
// (and where a correct=false has a reason worth telling), Details carries
// what is particular to a metric (SQLEvalDetails' "exact", TSDetails'
// "witness"), its keys written after the common ones in sorted order.
// Details is nil where a metric records nothing more.
type Verdict struct {
	Correct bool
	Status  status.Status
	Detail  string
	Details Details
}

// MarshalJSON writes correct, status, detail, then the keys of Details in
// sorted order (the order encoding/json gives a map, which records were
// written in before details were typed).
func (v Verdict) MarshalJSON() ([]byte, error) {
	var b strings.Builder
	b.WriteString(`{"correct":`)
	if v.Correct {
		b.WriteString("true")
	} else {
		b.WriteString("false")
	}
	st, _ := json.Marshal(string(v.Status))
	b.WriteString(`,"status":`)
	b.Write(st)
	if v.Detail != "" {
		d, _ := json.Marshal(v.Detail)
		b.WriteString(`,"detail":`)
		b.Write(d)
	}
	if v.Details != nil {
		m, err := detailFields(v.Details)
		if err != nil {
			return nil, err
		}
		for _, k := range slices.Sorted(maps.Keys(m)) {
			if k == "correct" || k == "status" || k == "detail" {
				continue
			}
			kb, _ := json.Marshal(k)
			b.WriteByte(',')
			b.Write(kb)
			b.WriteByte(':')
			b.Write(m[k])
		}
	}
	b.WriteByte('}')
	return []byte(b.String()), nil
}

// UnmarshalJSON reads the object MarshalJSON writes. Not knowing which
// metric wrote it, it reads the details as RawFields; DecodeVerdict reads
// them into the metric's own type.
func (v *Verdict) UnmarshalJSON(data []byte) error {
	var m map[string]json.RawMessage
	if err := json.Unmarshal(data, &m); err != nil {
		return err
	}
	*v = Verdict{}
	if c, ok := m["correct"]; ok {
		if err := json.Unmarshal(c, &v.Correct); err != nil {
			return fmt.Errorf("verdict correct: %w", err)
		}
	}
	if s, ok := m["status"]; ok {
		var st string
		if err := json.Unmarshal(s, &st); err != nil {
			return fmt.Errorf("verdict status: %w", err)
		}
		v.Status = status.Status(st)
	}
	if d, ok := m["detail"]; ok {
		_ = json.Unmarshal(d, &v.Detail)
	}
	var fm RawFields
	for k, raw := range m {
		if k == "correct" || k == "status" || k == "detail" {
			continue
		}
		if fm == nil {
			fm = RawFields{}
		}
		fm[k] = raw
	}
	if fm != nil {
		v.Details = fm
	}
	return nil
}

// Metric grades items. Implementations are safe for concurrent use.
type Metric interface {
	// Name is the metric's name in --metrics and in records.
	Name() string
	// Grade judges one item. ctx ends the whole run (not one query: query
	// timeouts come from Env).
	Grade(ctx context.Context, x *Exec, it *bench.Item) Verdict
}

// Lengthy is implemented by a metric whose grading of one item takes
// seconds by design, whatever its queries: a search over many databases
// (equiv, verdict), a call to an LLM (the judges). serve keeps a worker
// free of such items for the other metrics (serve.Config.LengthyWorkers).
type Lengthy interface {
	// Lengthy reports whether an item may hold a worker that long.
	Lengthy() bool
}

// Close closes every metric of ms that holds resources of its own, those
// implementing io.Closer (ts closes the engine it opened over the suite
// databases), and joins their errors. Whoever built the metrics (New)
// closes them once grading is over, as the --db engine is closed by whoever
// opened it; a metric is not used after Close.
func Close(ms []Metric) error {
	var errs []error
	for _, m := range ms {
		if c, ok := m.(io.Closer); ok {
			if err := c.Close(); err != nil {
				errs = append(errs, fmt.Errorf("metric %s: %w", m.Name(), err))
			}
		}
	}
	return errors.Join(errs...)
}

// Options hold the options of every metric New can build, one field per
// metric (ves and rves share VES; xscore, rose and flex share Judge). New
// hands each metric its own field and nothing else: ex reads EX, ts reads
// TS and EX (its ex step), flex reads Judge and EX, em reads EM, sqleval
// reads SQLEval; ex_bird, soft_f1 and spider2 have no options.
//
// Every setting means what it says: a zero is zero, never a stand-in for
// a default. The defaults are the flags': each metric declares its
// settings with their defaults (Setting, DefaultOptions: --max-plug is
// DefaultMaxPlug, --ves-repeats DefaultVESRepeats), the judges' come with
// the LLM flags (--samples judge.DefaultSamples), and a setting a metric
// cannot run with
// (ts with PlugValue and MaxPlug 0, ves with 0 repeats, a judge with no
// client or 0 samples) is an error from New naming the flag.
type Options struct {
	// EX configures ex and the ex step of ts and flex.
	EX EXOptions
	// EM configures em.
	EM EMOptions
	// TS configures ts.
	TS TSOptions
	// SQLEval configures sqleval.
	SQLEval SQLEvalOptions
	// VES configures ves and rves.
	VES VESOptions
	// Judge is the judge of the LLM metrics (xscore, rose, flex), its
	// Client and settings; see package judge. A nil Client is an error
	// from New for those metrics only.
	Judge judge.Judge
	// Equiv configures equiv (registered by package equiv, which this
	// package cannot import: equiv builds on testsuite, which uses ex).
	Equiv EquivOptions
}

// EquivOptions are equiv's options: the counterexample search between
// gold and prediction (package equiv). Seed makes it reproducible; Budget
// bounds one item's search and MaxDatabases the databases it tries
// (--equiv-seed, --equiv-budget, --equiv-max-databases, declared by package
// equiv as Settings); Suite is the test-suite folder whose databases are
// tried first (eval's --suite, "" for none).
type EquivOptions struct {
	Seed         int64
	Budget       time.Duration
	MaxDatabases int
	Suite        string
	// Assume is the search's assumption mode (equiv.Assume: "declared",
	// the default when "", or "observed": also what the item's database
	// satisfies; --equiv-assume).
	Assume string
}

// Checker is implemented by metrics that need something per database
// (a test suite): Check fails when database db lacks it. eval calls it
// for every db_id before grading, so a missing input is an error up front.
type Checker interface {
	Check(ctx context.Context, db string) error
}

// ItemChecker is implemented by metrics that need something of every item
// (the LLM judges need its question): CheckItem fails when item it lacks
// it. eval calls it for every item before grading, so a gold file that
// cannot serve the metric is a usage error up front, not one failed
// verdict per item.
type ItemChecker interface {
	CheckItem(it *bench.Item) error
}

// Constructor builds a metric from options, or fails on a missing input
// (a metric that needs tables.json without it).
type Constructor func(Options) (Metric, error)

var (
	regMu    sync.RWMutex
	registry = map[string]Constructor{}
	docs     = map[string]string{}
	figures  = map[string]Figure{}
)

// Figure says how a metric's official headline number is computed from
// its verdicts' numeric "score" field where that number is not accuracy:
// Scale x the mean score over the items (BIRD's compute_ves: 100 x the
// mean of sqrt(ratio) or sqrt(reward); mini-dev's Soft-F1: the mean
// calculate_f1_score), with a bootstrap 95% interval over the items when
// Bootstrap is set. For such a metric the share of items whose verdict is
// correct (accuracy) is a secondary, all-or-nothing figure.
type Figure struct {
	// Name is how reports label the figure ("Soft-F1", "VES x100").
	Name      string
	Scale     float64
	Bootstrap bool
}

// RegisterFigure declares the headline figure of a registered metric.
func RegisterFigure(name string, f Figure) {
	regMu.Lock()
	defer regMu.Unlock()
	figures[name] = f
}

// FigureOf returns the headline figure of metric name, if it has one.
func FigureOf(name string) (Figure, bool) {
	regMu.RLock()
	defer regMu.RUnlock()
	f, ok := figures[name]
	return f, ok
}

// Register adds a metric by name with a one-line description; it panics on
// a duplicate name (a programming error caught at init).
func Register(name, doc string, c Constructor) {
	regMu.Lock()
	defer regMu.Unlock()
	if _, dup := registry[name]; dup {
		panic("metric: duplicate registration of " + name)
	}
	registry[name] = c
	docs[name] = doc
}

// Names returns the registered metric names in sorted order.
func Names() []string {
	regMu.RLock()
	defer regMu.RUnlock()
	return slices.Sorted(maps.Keys(registry))
}

// Doc returns a metric's one-line description.
func Doc(name string) string {
	regMu.RLock()
	defer regMu.RUnlock()
	return docs[name]
}

// New builds the named metrics in the given order.
func New(names []string, o Options) ([]Metric, error) {
	regMu.RLock()
	defer regMu.RUnlock()
	var out []Metric
	seen := map[string]bool{}
	for _, n := range names {
		n = strings.TrimSpace(n)
		if n == "" || seen[n] {
			continue
		}
		seen[n] = true
		c, ok := registry[n]
		if !ok {
			known := slices.Sorted(maps.Keys(registry))
			return nil, fmt.Errorf("unknown metric %q (known: %s)", n, strings.Join(known, ", "))
		}
		m, err := c(o)
		if err != nil {
			return nil, fmt.Errorf("metric %s: %w", n, err)
		}
		out = append(out, m)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("no metric selected")
	}
	return out, nil
}

// Env is what every metric runs queries through: the engine, the per-query
// timeout and the cache of gold results shared by all items of a run.
type Env struct {
	// Engine runs the queries.
	Engine engine.Engine
	// Timeout bounds every query; 0 means none.
	Timeout time.Duration
	// Golds, if set, holds gold results across items instead of a Cache
	// of policy RunGolds, which keeps every gold result and error of the
	// run (eval's); serve sets one bounded in bytes that keeps no timeout.
	Golds *Cache
	// SharePreds lets items share predicted results on a SQLite engine
	// (whose databases are opened immutable): a Cache of policy
	// RecentPreds keeps the PredCacheSize most recent results by
	// (database, SQL), and a prediction that repeats one is not run again. Queries whose result may change from
	// one run to the next (random(), the date and time functions; see
	// shareable) always run. With it, too, a prediction that is its gold
	// written differently takes the gold's result without running (see
	// SamePred).
	SharePreds bool

	caches      sync.Once
	gold, preds *Cache
}

// cache returns the Env's gold and predictions caches, made on first use.
func (e *Env) cache() (gold, preds *Cache) {
	e.caches.Do(func() {
		e.gold, e.preds = e.Golds, NewCache(RecentPreds)
		if e.gold == nil {
			e.gold = NewCache(RunGolds)
		}
	})
	return e.gold, e.preds
}

type goldKey struct{ db, sql string }

// onceMap computes a value (or its error) once per key, on the first call
// for that key, and keeps it for the later ones: gold results for the run,
// predicted results for the item, a database's schema, a gold CSV.
type onceMap[K comparable, V any] struct {
	m sync.Map // K -> *onceEntry[V]
}

type onceEntry[V any] struct {
	once sync.Once
	v    V
	err  error
}

// get returns the value of k, computed by f on the first call for k.
func (c *onceMap[K, V]) get(k K, f func() (V, error)) (V, error) {
	e, ok := c.m.Load(k)
	if !ok {
		e, _ = c.m.LoadOrStore(k, &onceEntry[V]{})
	}
	ent := e.(*onceEntry[V])
	ent.once.Do(func() { ent.v, ent.err = f() })
	return ent.v, ent.err
}

// withTimeout returns ctx bounded by the per-query timeout, if there is
// one, and the function that releases it. Under serve's scheduler the
// timeout counts the time the item holds a worker (turn.WithTimeout), so
// a query paused for other requests does not time out for it.
func (e *Env) withTimeout(ctx context.Context) (context.Context, context.CancelFunc) {
	if e.Timeout > 0 {
		return turn.WithTimeout(ctx, e.Timeout)
	}
	return ctx, func() {}
}

// query runs sql with the per-query timeout.
func (e *Env) query(ctx context.Context, db, sql string) (*result.Set, error) {
	ctx, cancel := e.withTimeout(ctx)
	defer cancel()
	return e.Engine.Query(ctx, db, sql)
}

// Pred runs a predicted query with the per-query timeout, or returns the
// result of the same query on the same database that a recent item ran
// (see SharePreds).
func (e *Env) Pred(ctx context.Context, db, sql string) (*result.Set, error) {
	if !e.SharePreds || e.Engine.Dialect() != engine.SQLite || !shareable(sql) {
		return e.query(ctx, db, sql)
	}
	_, preds := e.cache()
	return preds.Get(ctx, db, sql, func(ctx context.Context) (*result.Set, error) { return e.query(ctx, db, sql) })
}

// Gold runs a gold query once per (database, SQL) and returns the cached
// result (or error) afterwards, as the Env's gold cache keeps it (Golds,
// else every one of the run).
func (e *Env) Gold(ctx context.Context, db, sql string) (*result.Set, error) {
	gold, _ := e.cache()
	return gold.Get(ctx, db, sql, func(ctx context.Context) (*result.Set, error) { return e.query(ctx, db, sql) })
}

// Exec runs the queries of one item: gold through the run's cache,
// predictions memoised for the item, so that metrics sharing a query run it
// once.
type Exec struct {
	env  *Env
	memo onceMap[goldKey, *result.Set]
	// seen holds the first gold and predicted results read on the item's
	// database, for Sample; skipped is the first prediction not run
	// (SkipPred) when it came before any predicted result.
	seenMu           sync.Mutex
	seenGold, seenPd *result.Set
	skipped          *goldKey
	// share holds the values computed once per item for several metrics
	// (ves and rves share one timing).
	share onceMap[string, any]
}

// once returns f's value, computed on the first call with key for this
// item.
func (x *Exec) once(key string, f func() any) any {
	v, _ := x.share.get(key, func() (any, error) { return f(), nil })
	return v
}

// NewExec returns an executor for one item.
func (e *Env) NewExec() *Exec { return &Exec{env: e} }

// Env returns the run environment.
func (x *Exec) Env() *Env { return x.env }

// Gold runs a gold query (cached for the run).
func (x *Exec) Gold(ctx context.Context, db, sql string) (*result.Set, error) {
	s, err := x.env.Gold(ctx, db, sql)
	x.see(&x.seenGold, s, err)
	return s, err
}

// Pred runs a predicted query (memoised for the item; shared with
// recent items when the Env says so, see Env.SharePreds).
func (x *Exec) Pred(ctx context.Context, db, sql string) (*result.Set, error) {
	s, err := x.memo.get(goldKey{db, sql}, func() (*result.Set, error) { return x.env.Pred(ctx, db, sql) })
	x.see(&x.seenPd, s, err)
	return s, err
}

// SkipPred notes that a metric graded the predicted query sql on db
// without running it (SamePred: it is the gold query written
// differently, so its result is the gold's). If it is the item's first
// predicted result, Sample runs it when it needs it.
func (x *Exec) SkipPred(db, sql string) {
	x.seenMu.Lock()
	if x.seenPd == nil && x.skipped == nil {
		x.skipped = &goldKey{db, sql}
	}
	x.seenMu.Unlock()
}

// see keeps s in *slot when it is the first result read without error (a
// prediction skipped before comes first: see SkipPred).
func (x *Exec) see(slot **result.Set, s *result.Set, err error) {
	if err != nil || s == nil {
		return
	}
	x.seenMu.Lock()
	if *slot == nil && (slot != &x.seenPd || x.skipped == nil) {
		*slot = s
	}
	x.seenMu.Unlock()
}

// Sample is the diff (result.Diff) of the first gold and the first
// predicted result the item's metrics read, or nil when they did not read
// both. The runner keeps it in the record of an item with a wrong result,
// so that a report shows the rows without running the queries again. When
// the first prediction was skipped (SkipPred), Sample runs it under ctx
// (nil if it fails).
func (x *Exec) Sample(ctx context.Context) *result.Sample {
	x.seenMu.Lock()
	g, p, skipped := x.seenGold, x.seenPd, x.skipped
	x.seenMu.Unlock()
	if g == nil {
		return nil
	}
	if p == nil && skipped != nil {
		p, _ = x.Pred(ctx, skipped.db, skipped.sql)
	}
	if p == nil {
		return nil
	}
	return result.Diff(g, p)
}

// SamePred reports whether the predicted query p may be graded by the
// result of the gold query g on the same database without running it:
// the Env shares results (SharePreds), on SQLite, p is g written
// differently (sqllex.SameQuery) and g's result does not change from one
// run to the next (see shareable). Its result would be g's, row for row.
func (e *Env) SamePred(p, g string) bool {
	return e.SharePreds && e.Engine.Dialect() == engine.SQLite && shareable(g) && sqllex.SameQuery(p, g)
}

// SpiderEqual compares a gold and a predicted result with
// result.SpiderEqualContext, its search bounded by the per-query timeout
// and ctx. A search cut by the timeout is an error wrapping
// engine.ErrTimeout (its verdict is timeout: the comparison, like a query,
// ran too long); one cut by ctx returns ctx's error.
func (e *Env) SpiderEqual(ctx context.Context, gold, pred *result.Set, orderMatters bool) (bool, error) {
	if result.Identical(gold, pred) {
		return true, nil // no search, nothing to bound
	}
	cctx, cancel := e.withTimeout(ctx)
	defer cancel()
	eq, err := result.SpiderEqualContext(cctx, gold, pred, orderMatters)
	if err != nil {
		if ctx.Err() != nil {
			return false, ctx.Err()
		}
		return false, fmt.Errorf("comparing the results: the search for a column permutation ran past the %v timeout (%w)", e.Timeout, engine.ErrTimeout)
	}
	return eq, nil
}

// failure returns the verdict of a query or comparison that failed with
// err: its status engine.Classify(err, other) (timeout, too_large, else
// other), its detail err.
func failure(err error, other status.Status) Verdict {
	return Verdict{Status: engine.Classify(err, other), Detail: err.Error()}
}

// failed returns the verdict of an item whose query failed: gold failures
// first (a gold that cannot run says nothing about the prediction).
func failed(goldErr, predErr error) (Verdict, bool) {
	if goldErr != nil {
		return Verdict{Status: status.GoldError, Detail: "gold: " + goldErr.Error()}, true
	}
	if predErr != nil {
		return failure(predErr, status.PredError), true
	}
	return Verdict{}, false
}
