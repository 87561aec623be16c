package fuzz

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"regexp"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/sqljudge/sqljudge/internal/catalog"
	"github.com/sqljudge/sqljudge/internal/engine"
	"github.com/sqljudge/sqljudge/internal/equiv"
	"github.com/sqljudge/sqljudge/internal/prove/check"
	"github.com/sqljudge/sqljudge/internal/prove/explain"
	"github.com/sqljudge/sqljudge/internal/result"
	"github.com/sqljudge/sqljudge/internal/sandbox"
)

// Config is what a run of the fuzzer does.
type Config struct {
	// Dialect is the engine: engine.SQLite (in-memory databases, no
	// server) or engine.Postgres (Sandbox must then be a PostgreSQL
	// sandbox).
	Dialect engine.Dialect
	// Sandbox hosts the scratch databases on a server dialect; unused on
	// SQLite.
	Sandbox sandbox.Sandbox
	// Seed and Pairs: pairs 0 … Pairs-1 of the seed are generated, each
	// from a random stream of its own (seed, index), so that one pair can
	// be drawn again alone (Only).
	Seed  uint64
	Pairs int
	// Only, when non-negative, runs pair Only of the seed and no other.
	Only int
	// Databases is the number of databases each proved pair is run on
	// (the first few directed at the pair's literals).
	Databases int
	// Workers run pairs side by side (1 if 0).
	Workers int
	// Solver discharges the prover's obligations (check.Z3, or a check.Z3Pool).
	Solver check.Solver
	// Focus, when set, names the only rewrites drawn (by their names in
	// the rewrites table, "case_wrap"), each pair's first query then
	// small (one or two tables, a short WHERE): a campaign aimed at one
	// encoding, whose pairs the prover decides more often than mixed
	// ones. Nil draws every rewrite by its weight.
	Focus []string
	// DeriveBoth: after each pair's rewrites, one table both queries
	// read at the same place becomes the same FROM subquery in both
	// (a grouped, DISTINCT or UNION ALL one: the rewrite derive_both),
	// so that the kernel compares FROM subqueries as tables. Off: the
	// pairs are those of the other settings.
	DeriveBoth bool
}

// Report is the outcome of a run.
type Report struct {
	Pairs int
	// SchemaRefused: pairs whose DDL sqljudge's parser refuses (a unique
	// index over an expression it does not read): no proof, as it should.
	SchemaRefused int
	// Proved: pairs with a certificate; Identical and NormalForm by method.
	Proved, Identical, NormalForm int
	// StoppedBy counts the pairs not proved by what stopped the prover.
	StoppedBy map[string]int
	// ByRule counts the proofs by each kernel rule their steps use (a
	// proof counts once per rule), so that a new rule's proofs show.
	ByRule map[string]int
	// ByRewrite counts the proofs by each rewrite (with its detail,
	// "case_wrap:not_cond") that made their pair (once per pair), so
	// that a new encoding's proofs, and a trap proved where it happens
	// to keep the result, show.
	ByRewrite map[string]int
	// Databases run on the engine (each with both queries), Skipped: those
	// on which a query failed (outside the claim).
	Databases, Skipped int
	// Outside counts proved pairs separated only on databases that break a
	// fact their proof lists (a column's family): not counterexamples.
	Outside int
	// DDLRefused: proved pairs whose DDL the engine refused (a bug of the
	// generator; none expected).
	DDLRefused int
	// Counterexamples are the proved pairs the engine separates, by pair.
	Counterexamples []*Counterexample
	// Certificates are the proved pairs (EquivCheck runs `sqljudge
	// equiv` and `equiv check` on them); Rejected counts those whose
	// certificate check.Check rejected when re-checked.
	Certificates []Proof
	Rejected     int
	Elapsed      time.Duration
}

// Proof is a proved pair and its schema, as `sqljudge equiv` reads one:
// its certificate's method, whether the engine refuted it, and
// CheckError, when check.Check (the kernel `equiv check` runs) rejected
// the certificate re-checked on the DDL with the solver.
type Proof struct {
	Pair       int
	Schema     string
	Q1, Q2     string
	Rule       equiv.Rule
	Method     string
	Refuted    bool
	CheckError string
	// Rules are the kernel rules the certificate's steps use, each once.
	Rules []string
	// Rewrites made the pair's second query from its first (pairSpec).
	Rewrites []string
}

// rulesOf lists the rules of cert's steps, each once, in order.
func rulesOf(cert *check.Certificate) []string {
	var out []string
	seen := map[string]bool{}
	for _, st := range append(append([]check.Step{}, cert.Q1Steps...), cert.Q2Steps...) {
		if !seen[st.Rule] {
			seen[st.Rule] = true
			out = append(out, st.Rule)
		}
	}
	return out
}

// Counterexample is a proved pair the engine separates: the schema, the
// pair, the database (as SQL that rebuilds it) and both results.
type Counterexample struct {
	Seed     uint64
	Pair     int
	Dialect  engine.Dialect
	Schema   string
	Q1, Q2   string
	Rule     equiv.Rule
	Method   string
	Steps    []string
	Rewrites []string
	// Database is the database (INSERTs) q1 ran on; Database2 the one q2
	// ran on when it differs: the same rows inserted in another order,
	// when the difference is a choice among rows the proof claims are
	// equal (ties, a group's value).
	Database, Database2 string
	// R1, R2 print the two results; a query that failed prints as such.
	R1, R2 string
	// Failed is the engine's error when one query failed and the other
	// ran ("q1 fails: integer overflow"): the proof claims they fail on
	// the same databases.
	Failed string
	// Cause is the fuzzer's guess at the root cause (R1…R17), or
	// at a later one, named in words.
	Cause string
}

// String prints the counterexample as a failing test shows it.
func (c *Counterexample) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "COUNTEREXAMPLE (seed %d, pair %d, %s, suspected %s)\n", c.Seed, c.Pair, c.Dialect, c.Cause)
	fmt.Fprintf(&b, "-- schema\n%s\n", c.Schema)
	fmt.Fprintf(&b, "-- q1\n%s;\n-- q2\n%s;\n", c.Q1, c.Q2)
	fmt.Fprintf(&b, "-- rule %s; proof %s by %s; rewrites %s\n", c.Rule, c.Method, strings.Join(c.Steps, ", "), strings.Join(c.Rewrites, ", "))
	if c.Database2 == "" {
		fmt.Fprintf(&b, "-- database\n%s", c.Database)
	} else {
		fmt.Fprintf(&b, "-- database of q1\n%s-- database of q2 (the same rows in another order)\n%s", c.Database, c.Database2)
	}
	fmt.Fprintf(&b, "-- q1 returns %s\n-- q2 returns %s\n", c.R1, c.R2)
	if c.Failed != "" {
		fmt.Fprintf(&b, "-- %s\n", c.Failed)
	}
	return b.String()
}

// Run generates and decides cfg.Pairs pairs: each is proved by the
// prover as `sqljudge equiv` proves it (equiv.ProveQueries on the DDL as
// catalog.ParseDDL reads it), and each proved pair is run on the engine
// over cfg.Databases databases; a database on which the results differ
// under the pair's rule (and which breaks none of the facts the proof
// lists) is a counterexample, shrunk. The report is the same for the
// same config on any machine: the work is bounded by counts, never by
// time (Elapsed aside).
func Run(ctx context.Context, cfg Config) (*Report, error) {
	if cfg.Workers <= 0 {
		cfg.Workers = 1
	}
	if cfg.Databases <= 0 {
		cfg.Databases = 24
	}
	for _, name := range cfg.Focus {
		if !slices.ContainsFunc(rewrites, func(rw rewrite) bool { return rw.name == name }) {
			return nil, fmt.Errorf("fuzz: no rewrite named %q to focus on", name)
		}
	}
	start := time.Now()
	idx := make([]int, 0, cfg.Pairs)
	if cfg.Only >= 0 {
		idx = append(idx, cfg.Only)
	} else {
		for i := range cfg.Pairs {
			idx = append(idx, i)
		}
	}
	outs := make([]pairOutcome, len(idx))
	jobs := make(chan int)
	var wg sync.WaitGroup
	for range cfg.Workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			w := &worker{cfg: cfg}
			defer w.close()
			for j := range jobs {
				outs[j] = w.runPair(ctx, idx[j])
			}
		}()
	}
	for j := range idx {
		jobs <- j
	}
	close(jobs)
	wg.Wait()
	rep := &Report{StoppedBy: map[string]int{}, ByRule: map[string]int{}, ByRewrite: map[string]int{}}
	for _, o := range outs {
		if o.err != nil {
			return nil, o.err
		}
		rep.add(o)
	}
	rep.Elapsed = time.Since(start)
	return rep, ctx.Err()
}

// pairOutcome is what one pair gave.
type pairOutcome struct {
	schemaRefused bool
	stoppedBy     string
	proof         *Proof
	ddlRefused    bool
	databases     int
	skipped       int
	outside       bool
	cx            *Counterexample
	err           error
}

func (r *Report) add(o pairOutcome) {
	r.Pairs++
	r.Databases += o.databases
	r.Skipped += o.skipped
	switch {
	case o.schemaRefused:
		r.SchemaRefused++
	case o.proof == nil:
		r.StoppedBy[o.stoppedBy]++
	default:
		r.Proved++
		if o.proof.Method == check.MethodIdentical {
			r.Identical++
		} else {
			r.NormalForm++
		}
		r.Certificates = append(r.Certificates, *o.proof)
		for _, rule := range o.proof.Rules {
			r.ByRule[rule]++
		}
		seen := map[string]bool{}
		for _, rw := range o.proof.Rewrites {
			if !seen[rw] {
				seen[rw] = true
				r.ByRewrite[rw]++
			}
		}
		if o.proof.CheckError != "" {
			r.Rejected++
		}
	}
	if o.ddlRefused {
		r.DDLRefused++
	}
	if o.outside {
		r.Outside++
	}
	if o.cx != nil {
		r.Counterexamples = append(r.Counterexamples, o.cx)
	}
}

// Summary prints the report's counts: pairs, proofs by method, what
// stopped the others, databases, counterexamples by suspected cause, and
// the rate.
func (r *Report) Summary() string {
	var b strings.Builder
	secs := r.Elapsed.Seconds()
	fmt.Fprintf(&b, "%d pairs in %.1fs (%.1f pairs/s): %d proved (%d identical, %d normal_form), %d certificates re-checked by check.Check (%d rejected), %d schemas refused by the parser\n",
		r.Pairs, secs, float64(r.Pairs)/max(secs, 1e-9), r.Proved, r.Identical, r.NormalForm, r.Proved, r.Rejected, r.SchemaRefused)
	fmt.Fprintf(&b, "%d databases run on the engine (%d skipped: a query failed); %d proved pairs separated only outside their facts; %d DDL refused by the engine\n",
		r.Databases, r.Skipped, r.Outside, r.DDLRefused)
	var stops []string
	for k, v := range r.StoppedBy {
		stops = append(stops, fmt.Sprintf("%s %d", k, v))
	}
	sort.Slice(stops, func(i, j int) bool { return stops[i] < stops[j] })
	fmt.Fprintf(&b, "not proved, by stopped_by: %s\n", strings.Join(stops, ", "))
	fmt.Fprintf(&b, "proofs by the rules of their steps: %s\n", countList(r.ByRule))
	fmt.Fprintf(&b, "proofs by the rewrites of their pairs: %s\n", countList(r.ByRewrite))
	causes := map[string]int{}
	for _, c := range r.Counterexamples {
		causes[c.Cause]++
	}
	var cs []string
	for k, v := range causes {
		cs = append(cs, fmt.Sprintf("%s %d", k, v))
	}
	sort.Strings(cs)
	fmt.Fprintf(&b, "%d counterexamples, by suspected cause: %s\n", len(r.Counterexamples), strings.Join(cs, ", "))
	return b.String()
}

// countList prints counts by name, sorted by name: "a 3, b 1".
func countList(m map[string]int) string {
	var out []string
	for k, v := range m {
		out = append(out, fmt.Sprintf("%s %d", k, v))
	}
	sort.Strings(out)
	return strings.Join(out, ", ")
}

// worker runs pairs one after another; on a server it keeps one scratch
// database for all of them.
type worker struct {
	cfg     Config
	scratch sandbox.Scratch
}

func (w *worker) close() {
	if w.scratch != nil {
		w.scratch.Close()
	}
}

// session opens pair schema s's session.
func (w *worker) session(ctx context.Context, s *schema) (session, error) {
	if w.cfg.Dialect == engine.SQLite {
		return openSQLite(ctx, s)
	}
	if w.scratch == nil {
		sc, err := w.cfg.Sandbox.Open(ctx, nil)
		if err != nil {
			return nil, err
		}
		w.scratch = sc
	}
	return openServer(w.scratch, s), nil
}

// plans returns, on a server, the plans of queries over pair schema s
// (its tables created in the worker's scratch database, in a transaction
// the next database's load rolls back) against which ProveQueriesWith
// reads a PostgreSQL proof's renamings; nil on SQLite. A DDL the server
// refuses gives plans that fail (no proof), as in Decide.
func (w *worker) plans(ctx context.Context, s *schema) (explain.PlanFunc, error) {
	if w.cfg.Dialect == engine.SQLite {
		return nil, nil
	}
	if _, err := w.session(ctx, s); err != nil {
		return nil, err
	}
	x, ok := w.scratch.(sandbox.Explainer)
	if !ok {
		return nil, fmt.Errorf("the %s sandbox cannot plan queries", w.cfg.Dialect)
	}
	var ddlErr error
	if err := w.scratch.Load(ctx, nil); err != nil {
		return nil, err
	}
	if err := w.scratch.Exec(ctx, s.ddl()); err != nil {
		if ctx.Err() != nil || isSetup(err) {
			return nil, err
		}
		ddlErr = err
	}
	return func(ctx context.Context, q string) ([]byte, error) {
		if ddlErr != nil {
			return nil, fmt.Errorf("the server refuses the schema: %w", ddlErr)
		}
		return x.Explain(ctx, q)
	}, nil
}

// runPair draws pair i of the seed, proves it and, when proved, runs it.
func (w *worker) runPair(ctx context.Context, i int) pairOutcome {
	cfg := w.cfg
	r := rand.New(rand.NewPCG(cfg.Seed, uint64(i)))
	s := genSchema(r, cfg.Dialect)
	g := &gen{r: r, s: s, d: cfg.Dialect, focusRewrites: cfg.Focus, deriveBoth: cfg.DeriveBoth}
	p := g.pair()
	db, err := catalog.ParseDDL(s.script())
	if err != nil {
		return pairOutcome{schemaRefused: true}
	}
	plans, err := w.plans(ctx, s)
	if err != nil {
		return pairOutcome{err: err}
	}
	cert, note := equiv.ProveQueriesWith(ctx, p.sql1, p.sql2, db, cfg.Dialect, p.rule, cfg.Solver, plans)
	if cert == nil {
		return pairOutcome{stoppedBy: note.StoppedBy}
	}
	in := check.Input{Q1: p.sql1, Q2: p.sql2, Schema: equiv.ProverSchema(db, cfg.Dialect), Rule: string(p.rule), Solver: cfg.Solver}
	checkErr := check.Check(ctx, in, cert)
	out := w.separate(ctx, i, s, p, cert)
	out.proof = &Proof{Pair: i, Schema: s.script(), Q1: p.sql1, Q2: p.sql2, Rule: p.rule, Method: cert.Method, Refuted: out.cx != nil, Rules: rulesOf(cert), Rewrites: p.rewrites}
	if checkErr != nil {
		out.proof.CheckError = checkErr.Error()
	}
	return out
}

// separate runs pair p (number i of the seed) over cfg.Databases
// databases of schema s and returns the first difference, shrunk. cert
// is the pair's proof: the facts a database must keep, and whether the
// pair claims a result the rows determine (then the same rows in
// another order must give it too); nil runs the pair as if it had a
// proof of the normal_form method and no fact.
func (w *worker) separate(ctx context.Context, i int, s *schema, p *pairSpec, cert *check.Certificate) pairOutcome {
	cfg := w.cfg
	var out pairOutcome
	sess, err := w.session(ctx, s)
	if err != nil {
		if ctx.Err() != nil {
			out.err = ctx.Err()
		}
		out.ddlRefused = true
		return out
	}
	defer sess.close()
	if cert == nil {
		cert = &check.Certificate{Method: check.MethodNormalForm}
	}
	t := &trial{ctx: ctx, sess: sess, s: s, p: p, cert: cert, cmp: newComparer(string(p.rule), p.sql1, p.sql2), q1: p.sql1, q2: p.sql2}
	if cert.Ties {
		// The proof claims the same results up to ties: each query is run
		// with its tied rows sorted by its outputs (q2's through the column
		// map), which gives one result the rows determine.
		if a, b, ok := equiv.Tiebroken(p.sql1, p.sql2, cert); ok {
			t.q1, t.q2 = a, b
		}
	}
	t.physical = cert.Method == check.MethodNormalForm && !orderSensitive(p.sql1) && !orderSensitive(p.sql2)
	dg := newDataGen(s, p.q1, p.q2)
	dr := rand.New(rand.NewPCG(cfg.Seed^0x9e3779b97f4a7c15, uint64(i)))
	for n := range cfg.Databases {
		d, err := t.try(dg.database(dr, n))
		out.databases++
		var de *ddlError
		switch {
		case errors.As(err, &de):
			out.ddlRefused = true
			return out
		case err != nil:
			out.err = err
			return out
		case d == nil:
			continue
		case d.skipped:
			out.skipped++
			continue
		case !d.inModel:
			out.outside = true
			continue
		}
		out.outside = false
		out.cx = t.counterexample(cfg, i, s, t.shrink(d))
		return out
	}
	return out
}

// orderSensitive reports whether a query's result may depend on the
// order rows are stored in even where its proof claims none: it reads
// the rowid, or sums numbers (floating-point addition depends on the
// order).
var orderSensitive = regexp.MustCompile(`(?i)rowid|\boid\b|\bsum\s*\(|\bavg\s*\(|\btotal\s*\(`).MatchString

// trial runs one proved pair on databases.
type trial struct {
	ctx      context.Context
	sess     session
	s        *schema
	p        *pairSpec
	cert     *check.Certificate
	cmp      comparer
	physical bool
	// q1, q2 are the queries run: the pair's, tiebroken under a proof up
	// to ties (Certificate.Ties).
	q1, q2 string
}

// diff is a database (two: the same rows in another order, for q1 and
// q2) on which the pair's results differ, or one skipped. failed is the
// engine's error when one query fails on db1 and the other runs (r1 or
// r2 then nil).
type diff struct {
	skipped  bool
	db1, db2 *database
	r1, r2   *result.Set
	failed   string
	inModel  bool
}

// run loads db and runs both queries. Both results are nil when a query
// hit a limit of the harness or both failed (the database is skipped);
// one is nil, and failed says which query failed and how, when the
// engine failed one query and ran the other: a proof claims the two fail
// on the same databases.
func (t *trial) run(db *database) (kept *database, r1, r2 *result.Set, failed string, err error) {
	kept, err = t.sess.load(t.ctx, db)
	if err != nil {
		return nil, nil, nil, "", err
	}
	qctx, cancel := context.WithTimeout(t.ctx, 5*time.Second)
	defer cancel()
	r1, err1 := t.sess.query(qctx, t.q1)
	r2, err2 := t.sess.query(qctx, t.q2)
	switch {
	case err1 == nil && err2 == nil:
		return kept, r1, r2, "", nil
	case err1 != nil && err2 == nil && engineFailure(qctx, err1):
		return kept, nil, r2, "q1 fails: " + err1.Error(), nil
	case err2 != nil && err1 == nil && engineFailure(qctx, err2):
		return kept, r1, nil, "q2 fails: " + err2.Error(), nil
	}
	return kept, nil, nil, "", nil
}

// try runs the pair on db and on the same rows inserted in reverse
// order (another database, which an order-sensitive query reads
// differently: a sum of floats, ties under a LIMIT): nil when the
// results agree on both; a skipped diff when a query failed on db; else
// the difference on one of them or, for a pair whose proof claims a
// result the rows determine (t.physical), q1's result on db against
// q2's on the reversed rows.
func (t *trial) try(db *database) (*diff, error) {
	kept, r1, r2, failed, err := t.run(db)
	if err != nil {
		return nil, t.sessionError(err)
	}
	if failed != "" {
		return &diff{db1: kept, db2: kept, r1: r1, r2: r2, failed: failed, inModel: t.inModel()}, nil
	}
	if r1 == nil {
		return &diff{skipped: true}, nil
	}
	if !t.cmp.equal(t.ctx, r1, r2) {
		return &diff{db1: kept, db2: kept, r1: r1, r2: r2, inModel: t.inModel()}, nil
	}
	st, err := t.sess.stored(t.ctx, kept)
	if err != nil {
		return nil, t.sessionError(err)
	}
	keptRev, r1b, r2b, failed, err := t.run(reversed(st))
	if err != nil {
		return nil, t.sessionError(err)
	}
	if failed != "" && keptRev.size() == kept.size() {
		return &diff{db1: keptRev, db2: keptRev, r1: r1b, r2: r2b, failed: failed, inModel: t.inModel()}, nil
	}
	if r1b == nil || r2b == nil || keptRev.size() != kept.size() {
		return nil, nil
	}
	switch {
	case !t.cmp.equal(t.ctx, r1b, r2b):
		return &diff{db1: keptRev, db2: keptRev, r1: r1b, r2: r2b, inModel: t.inModel()}, nil
	case t.physical && !t.cmp.equal(t.ctx, r1, r2b):
		return &diff{db1: st, db2: keptRev, r1: r1, r2: r2b, inModel: t.inModel()}, nil
	}
	return nil, nil
}

// sessionError is err unless the session failed on a row the engine
// refused alone (then nil: the database is skipped).
func (t *trial) sessionError(err error) error {
	if t.ctx.Err() != nil {
		return t.ctx.Err()
	}
	return fmt.Errorf("fuzz: the scratch database failed: %w", err)
}

// reversed returns db with every table's rows in reverse order.
func reversed(db *database) *database {
	out := &database{s: db.s, rows: make([][][]value, len(db.rows))}
	for i, rs := range db.rows {
		out.rows[i] = slices.Clone(rs)
		slices.Reverse(out.rows[i])
	}
	return out
}

// inModel reports whether the database loaded last keeps every family
// and sum_in_range fact the proof lists: an int column holds only
// integers, a real or numeric one integers and reals, a text one only
// text; a column's magnitudes sum below 2^63 (a database outside them is
// outside what the proof claims, as docs/equiv.md defines "every
// database").
func (t *trial) inModel() bool {
	for _, f := range proofFacts(t.cert) {
		if f.Fact == check.FactSumInRange {
			if tb, ci := t.column(f.Table, f.Column); tb != nil {
				if ok, err := t.sess.sumInRange(t.ctx, tb, ci); err != nil || !ok {
					return false
				}
			}
			continue
		}
		if f.Fact != check.FactFamily {
			continue
		}
		allowed := map[string][]string{"int": {"integer"}, "real": {"integer", "real"}, "numeric": {"integer", "real"}, "text": {"text"}}[f.Family]
		if allowed == nil {
			continue
		}
		tb, ci := t.column(f.Table, f.Column)
		if tb == nil {
			continue
		}
		classes, err := t.sess.storage(t.ctx, tb, ci)
		if err != nil {
			return false
		}
		for _, c := range classes {
			if !slices.Contains(allowed, c) {
				return false
			}
		}
	}
	return true
}

// column finds a table column of the pair's schema by name.
func (t *trial) column(table, col string) (*table, int) {
	for _, tb := range t.s.tables {
		if strings.EqualFold(tb.name, table) {
			if i := tb.col(col); i >= 0 {
				return tb, i
			}
		}
	}
	return nil, -1
}

// proofFacts lists every fact a certificate relies on: its steps', its
// comparison's and its obligations'.
func proofFacts(c *check.Certificate) []check.Fact {
	var out []check.Fact
	for _, st := range append(slices.Clone(c.Q1Steps), c.Q2Steps...) {
		out = append(out, st.Facts...)
	}
	out = append(out, c.Facts...)
	for _, o := range c.Obligations {
		out = append(out, o.Facts...)
	}
	return out
}
