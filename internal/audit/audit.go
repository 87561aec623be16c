// Package audit checks a benchmark's gold queries for what makes them unfit
// to grade against, on the benchmark's own databases: a gold that fails,
// returns nothing, times out or nearly does; a result the engine is free to
// choose (a LIMIT cutting through ties, tied rows compared in order, a
// float sum that depends on summation order, random or clock functions);
// and sorting that engines disagree on (NULLs, numbers stored as text).
// Each finding carries its evidence, found by running the gold and
// auxiliary queries spliced from it (read-only, through the same engine).
// `sqljudge audit` writes the findings; `eval --audit` marks the graded
// records with them (run.Record.GoldHazards).
package audit

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"sync"
	"time"

	"github.com/sqljudge/sqljudge/internal/bench"
	"github.com/sqljudge/sqljudge/internal/catalog"
	"github.com/sqljudge/sqljudge/internal/engine"
	"github.com/sqljudge/sqljudge/internal/prove"
	"github.com/sqljudge/sqljudge/internal/prove/check"
	"github.com/sqljudge/sqljudge/internal/result"
	"github.com/sqljudge/sqljudge/internal/sqllex"
)

// Defaults of Config.
const (
	// DefaultSlowRatio is the share of the time limit past which a gold
	// query is near_timeout.
	DefaultSlowRatio = 0.5
	// DefaultMaxEvidence is the most rows a finding lists.
	DefaultMaxEvidence = 5
	// TieWindow is how many rows past a LIMIT the tie checks read: ties
	// are counted up to it (a finding says when the window ended while
	// rows still tied).
	TieWindow = 1000
	// maxSelects bounds the SELECTs (subqueries included) of one query
	// that are checked, and so the auxiliary queries it costs.
	maxSelects = 16
)

// Config says how gold queries are checked.
type Config struct {
	// Engine runs the queries (read-only; its row and byte caps bound
	// every result).
	Engine engine.Engine
	// Timeout is the time limit of each query, the gold's and each
	// auxiliary one's.
	Timeout time.Duration
	// SlowRatio is the share of Timeout past which a gold is near_timeout
	// (0 means DefaultSlowRatio).
	SlowRatio float64
	// MaxEvidence is the most rows a finding lists (0 means
	// DefaultMaxEvidence).
	MaxEvidence int
	// Ordered reports whether the benchmark's rule compares a gold's rows
	// in order (Spider's: when the gold says ORDER BY, see SpiderOrdered);
	// nil compares them as a bag, and order_ties is never reported.
	Ordered func(gold string) bool
	// Expand expands Defog SQL-Eval's {a,b} column choices into one gold
	// query each (sqllex.ExpandColumnChoices), as the sqleval metric does.
	Expand bool

	// schemas caches each database's schema as the prover reads it
	// (db_id -> check.Schema, nil when unread), for bare_column.
	schemas sync.Map
}

// proveSchema returns database db's schema as the prover's kernel reads
// it (prove.SchemaOf over catalog.Read), read once per database; nil when
// it cannot be read or the kernel does not model the engine.
func (c *Config) proveSchema(ctx context.Context, db string) check.Schema {
	if s, ok := c.schemas.Load(db); ok {
		s, _ := s.(check.Schema)
		return s
	}
	var s check.Schema
	if cat, err := catalog.Read(ctx, c.Engine, db, catalog.Options{}); err == nil {
		s = prove.SchemaOf(cat, c.Engine.Dialect())
	}
	if ctx.Err() == nil {
		c.schemas.Store(db, s)
	}
	return s
}

// SpiderOrdered is Spider's rule (exec_eval.eval_exec_match): rows are
// compared in order when the gold contains "order by" anywhere.
func SpiderOrdered(gold string) bool { return sqllex.ContainsOrderBy(gold) }

// ItemReport is what Item found about one item.
type ItemReport struct {
	// Index is the item's index (bench.Item.Index).
	Index int
	// Findings are in query order, then Kinds order.
	Findings []Finding
	// Unchecked are the checks that could not run, one per check and
	// gold query.
	Unchecked []Unchecked
	// Queries is the number of gold queries audited.
	Queries int
}

// Unchecked is a check that did not run on a gold query, and why (a
// reason from a small fixed set, so that the summary can count them).
type Unchecked struct {
	Check  string `json:"check"`
	Reason string `json:"reason"`
}

// The reasons a check does not run.
const (
	ReasonUnparsed    = "not read by sqljudge's SQL parser (SQLite's grammar): only the run and clock/random checks ran"
	ReasonAuxFailed   = "its auxiliary query failed (a correlated subquery, an engine that rejects the rewrite)"
	ReasonAuxTimeout  = "its auxiliary query timed out"
	ReasonAuxTooLarge = "its auxiliary query is past the row or byte cap"
	ReasonKeys        = "an ORDER BY key it cannot read (a compound's key by expression, a position after *, a DISTINCT key not selected)"
	ReasonLimit       = "a LIMIT or OFFSET that is not a literal integer"
	ReasonGroupKeys   = "a * among the columns of an aggregate SELECT, or a GROUP BY position it cannot read"
	ReasonNoNulls     = "the engine has no NULLS FIRST/LAST"
	ReasonTooMany     = "more SELECTs than the audit checks in one query"
	ReasonInternal    = "internal error of sqljudge's audit (a bug: please report it)"
)

// GoldQueries returns the gold queries of it that are audited: each
// alternative, and with expand each {a,b} column choice of it.
func GoldQueries(it *bench.Item, expand bool) []string {
	if !expand {
		return it.Gold
	}
	var out []string
	for _, g := range it.Gold {
		out = append(out, sqllex.ExpandColumnChoices(g)...)
	}
	return out
}

// Item audits every gold query of it. It returns ctx's error when ctx
// ends (the report is then incomplete).
func (c *Config) Item(ctx context.Context, it *bench.Item) (ItemReport, error) {
	qs := GoldQueries(it, c.Expand)
	rep := ItemReport{Index: it.Index, Queries: len(qs)}
	for qi, q := range qs {
		a := &auditor{c: c, ctx: ctx, db: it.DBID, sql: q}
		a.run()
		if err := ctx.Err(); err != nil {
			return rep, err
		}
		slices.SortStableFunc(a.findings, func(x, y Finding) int {
			return slices.Index(Kinds, x.Kind) - slices.Index(Kinds, y.Kind)
		})
		for _, f := range a.findings {
			f.Index, f.ID, f.DBID, f.Gold = it.Index, it.ID, it.DBID, q
			if len(qs) > 1 {
				f.Query = &qi
			}
			rep.Findings = append(rep.Findings, f)
		}
		rep.Unchecked = append(rep.Unchecked, a.unchecked...)
	}
	return rep, nil
}

// auditor checks one gold query.
type auditor struct {
	c         *Config
	ctx       context.Context
	db, sql   string
	findings  []Finding
	unchecked []Unchecked
}

// run runs every check on the query. A panic (a bug of sqljudge) ends
// the query's checks with an Unchecked of ReasonInternal instead of the
// run.
func (a *auditor) run() {
	defer func() {
		if r := recover(); r != nil {
			a.skip("audit", fmt.Sprintf("%s: %v", ReasonInternal, r))
		}
	}()
	a.findings = append(a.findings, volatileFindings(a.sql)...)
	gold, ok := a.runGold()
	if !ok {
		return
	}
	p, ok := parse(a.sql, a.c.Engine.Dialect())
	if !ok {
		a.skip("order, aggregates", ReasonUnparsed)
		return
	}
	a.orderChecks(p, gold)
	a.aggregateChecks(p)
	a.groupedChecks(p)
}

// skip records that check did not run, and why.
func (a *auditor) skip(check, reason string) {
	a.unchecked = append(a.unchecked, Unchecked{Check: check, Reason: reason})
}

// query runs sql on the item's database within the time limit.
func (a *auditor) query(sql string) (*result.Set, error) {
	ctx, cancel := context.WithTimeout(a.ctx, a.c.Timeout)
	defer cancel()
	return a.c.Engine.Query(ctx, a.db, sql)
}

// aux runs an auxiliary query of check; a failure is recorded as an
// Unchecked and returns nil.
func (a *auditor) aux(check, sql string) *result.Set {
	res, err := a.query(sql)
	if err != nil {
		a.failed(check, err)
		return nil
	}
	return res
}

// failed records that check did not run because its auxiliary query
// failed with err.
func (a *auditor) failed(check string, err error) {
	switch {
	case errors.Is(err, engine.ErrTimeout):
		a.skip(check, ReasonAuxTimeout)
	case errors.Is(err, engine.ErrTooLarge):
		a.skip(check, ReasonAuxTooLarge)
	default:
		a.skip(check, ReasonAuxFailed)
	}
}

// runGold runs the gold query and records fails, timeout, too_large,
// near_timeout and empty; ok is false when there is no result to check
// further.
func (a *auditor) runGold() (*result.Set, bool) {
	start := time.Now()
	res, err := a.query(a.sql)
	took := time.Since(start)
	limit := a.c.Timeout.Seconds()
	switch {
	case a.ctx.Err() != nil:
		return nil, false
	case errors.Is(err, engine.ErrTimeout):
		a.add(Finding{Kind: Timeout, TimeoutSeconds: limit, Detail: fmt.Sprintf("the gold ran past the time limit of %s", a.c.Timeout)})
		return nil, false
	case errors.Is(err, engine.ErrTooLarge):
		a.add(Finding{Kind: TooLarge, Error: err.Error(), Detail: "the gold result is too large: " + err.Error()})
		return nil, false
	case err != nil:
		a.add(Finding{Kind: Fails, Error: err.Error(), Detail: "the gold fails: " + err.Error()})
		return nil, false
	}
	if ratio := a.c.slowRatio(); took.Seconds() >= ratio*limit {
		start = time.Now()
		if _, err := a.query(a.sql); err == nil {
			took = min(took, time.Since(start))
		}
		if s := took.Seconds(); s >= ratio*limit {
			a.add(Finding{Kind: NearTimeout, Seconds: math.Round(s*1e6) / 1e6, TimeoutSeconds: limit,
				Detail: fmt.Sprintf("the gold runs in %.3gs, %.2g%% of the time limit %s (the faster of two runs): on a slower or busier machine it times out", s, 100*s/limit, a.c.Timeout)})
		}
	}
	if res.Len() == 0 {
		a.add(Finding{Kind: Empty, Columns: res.Columns, Detail: "the gold returns no row: every prediction that returns none is graded correct"})
	}
	return res, true
}

// add records a finding.
func (a *auditor) add(f Finding) { a.findings = append(a.findings, f) }

func (c *Config) slowRatio() float64 {
	if c.SlowRatio > 0 {
		return c.SlowRatio
	}
	return DefaultSlowRatio
}

func (c *Config) maxEvidence() int {
	if c.MaxEvidence > 0 {
		return c.MaxEvidence
	}
	return DefaultMaxEvidence
}
