package equiv

import (
	"context"
	"errors"
	"fmt"
	"hash/fnv"
	"math/rand/v2"
	"path/filepath"
	"strings"
	"time"

	"github.com/sqljudge/sqljudge/internal/catalog"
	"github.com/sqljudge/sqljudge/internal/engine"
	"github.com/sqljudge/sqljudge/internal/engine/sqlite"
	"github.com/sqljudge/sqljudge/internal/prove/check"
	"github.com/sqljudge/sqljudge/internal/result"
	"github.com/sqljudge/sqljudge/internal/sandbox"
	"github.com/sqljudge/sqljudge/internal/sqllex"
	"github.com/sqljudge/sqljudge/internal/status"
	"github.com/sqljudge/sqljudge/internal/testsuite"
)

// Decide proves that p.Q1 and p.Q2 return the same result on every
// database satisfying p's schema (package prove, unless o.NoProof), and
// searches for a database on which they differ under o.Rule (at most
// TripwireDatabases after a proof), and returns the Outcome: Inequivalent
// with the shrunk and re-verified Witness, EquivalentProved with the
// Proof, EquivalentBounded with what was tried, or Unknown with the reason
// (ReasonDisagree for a pair both proved and refuted) (a schema that does not parse or that the
// engine refuses, a query that fails on every database). The search is
// deterministic for o.Seed and the pair's text; it ends within o.Budget
// (each query within o.QueryTimeout). The error is only for a failure of
// the tool or of ctx (cancelled by the caller), never for the pair.
func Decide(ctx context.Context, p Pair, o Options) (Outcome, error) {
	o.defaults()
	if o.Sandbox == nil {
		return Outcome{}, errors.New("equiv: no sandbox")
	}
	start := time.Now()
	dctx, cancel := context.WithTimeout(ctx, o.Budget)
	defer cancel()
	s := &searcher{o: o, p: p, cmp: newComparer(o.Rule, p.Q1, p.Q2), tieSensitive: tieSensitive(p.Q1) || tieSensitive(p.Q2)}
	s.out.Rule = s.cmp.describe()
	if o.Assume == AssumeObserved {
		s.out.Assume = AssumeObserved
	}
	s.out.Search = Search{Seed: o.Seed, Budget: o.Budget.String(), MaxDatabases: o.MaxDatabases, MaxShrinkSteps: o.MaxShrinkSteps, Phases: []Phase{}}
	err := s.run(dctx, ctx)
	s.reconcile()
	s.out.Search.Elapsed = time.Since(start)
	if ctx.Err() != nil {
		return Outcome{}, ctx.Err()
	}
	if err != nil {
		return Outcome{}, err
	}
	return s.out, nil
}

// searcher is the state of one Decide.
type searcher struct {
	o      Options
	p      Pair
	cmp    comparer
	schema *schema
	sc     sandbox.Scratch
	gen    *generator
	out    Outcome

	// failures of each query: how many databases it failed on, the first
	// message; ran counts the databases it ran on.
	fail [2]int
	msg  [2]string
	ran  [2]int
	// failRows and msgRows count the failures on databases with rows.
	failRows [2]int
	msgRows  [2]string
	// spent is the time each query's runs took, its neighbours' included.
	spent  [2]time.Duration
	neigh  []*neighbour
	corpus []Data
	// productive are the first databases on which a query returned rows
	// and the two agreed (the twin phase doubles them).
	productive []Data
	// emptyResult is q1's result on every table empty (resultKey).
	emptyResult string
	// tieSensitive: a query orders its output or takes a LIMIT (robust).
	tieSensitive bool
	// loadErr is the engine's first refusal of a database.
	loadErr string
	found   Data
	// foundBy is the phase that found s.found; phase the one running;
	// arityPhase the one that found arityEmpty.
	foundBy, phase, arityPhase string
	// arityEmpty is the first database on which the queries returned
	// different numbers of columns and no row.
	arityEmpty Data
	// onlyEmptyArity: no database with rows told the queries apart, so
	// the witness is arityEmpty (shrinking may keep no row).
	onlyEmptyArity bool
	r              [2]*result.Set
	// proof is the prover's certificate, nil when it found none.
	proof *check.Certificate
	// unread: proof's renamings still await the engine's reading
	// (readProof, on PostgreSQL); searchCap is the database cap before a
	// proof lowered it.
	unread    bool
	searchCap int
	// lastErrs are the two queries' errors on the database runBoth ran
	// last (both the engine's refusal when it refused the database).
	lastErrs [2]error
	// failure is, under Options.Grading, how q2 failed on the database
	// found (s.found) where q1 ran; nil when the two results differed.
	failure *Failure
}

// unknown ends the search with an Unknown verdict.
func (s *searcher) unknown(format string, args ...any) {
	s.out.Verdict = Unknown
	s.out.Reason = fmt.Sprintf(format, args...)
}

// run does the whole search under ctx (the budget); the re-verification
// of a witness runs under parent (the caller's context), with time of its
// own. Its error is a tool failure.
func (s *searcher) run(ctx, parent context.Context) error {
	if err := s.loadSchema(ctx); err != nil {
		s.out.Search.BudgetExhausted = ctx.Err() != nil
		s.unknown("schema: %v", err)
		return nil
	}
	s.schema.dialect = s.o.Sandbox.Dialect()
	if why := s.schema.unfaithfulRead(s.schema.dialect, s.p.Q1, s.p.Q2); why != "" {
		s.unknown("the pair's tables cannot be modelled: %s; a witness or a proof on the model would be none for them", why)
		return nil
	}
	if s.schema.dialect == engine.SQLite {
		s.schema.nullableKeys()
	}
	// The prover reads the declared schema, before assumptions add to it:
	// a proof never rests on them.
	s.prove(ctx)
	if err := s.assume(ctx); err != nil {
		s.out.Search.BudgetExhausted = ctx.Err() != nil
		s.unknown("assumptions: %v", err)
		return nil
	}
	d := s.o.Sandbox.Dialect()
	var err error
	s.sc, err = s.o.Sandbox.Open(ctx, s.schema.CreateStatements(d))
	if err != nil {
		s.readProof(ctx, nil)
		var setup *sandbox.SetupError
		if errors.As(err, &setup) && ctx.Err() == nil {
			return err // the sandbox's failure, not the pair's
		}
		if ctx.Err() != nil {
			s.out.Search.BudgetExhausted = true
			s.chargeBudget()
			s.unknown("budget ended while creating the schema")
			return nil
		}
		s.unknown("the %s engine refuses the schema: %v", d, err)
		return nil
	}
	defer s.sc.Close()
	if why := s.localeDiffers(ctx); why != "" {
		s.unknown("the search's databases cannot hold the pair's database: %s; a witness on them would be none for it", why)
		return nil
	}
	s.readProof(ctx, s.sc)
	// Where the solver phase cannot run (an engine the encoding does not
	// model), the bare comparisons' literals get rows of their own too.
	conds := s.schema.solvedValues(proveSchema(s.schema.Database, d) == nil, s.conditionSources()...)
	pools := s.schema.pools([]string{s.p.Q1, s.p.Q2}, conds)
	for _, t := range pools {
		for _, c := range t {
			s.out.Search.Values += len(c)
		}
	}
	s.gen = newGenerator(s.schema, pools, rand.New(rand.NewPCG(uint64(s.o.Seed), seedOf(s.p))))
	// The database cap ends the search and the step cap the shrinking;
	// the budget (ctx) only stops them when they run long.
	if s.phases(ctx, conds) {
		return s.conclude(ctx, parent)
	}
	if s.arityEmpty != nil && ctx.Err() == nil {
		s.found, s.onlyEmptyArity, s.foundBy = s.arityEmpty, true, s.arityPhase
		return s.conclude(ctx, parent)
	}
	if ctx.Err() != nil && s.total() < s.o.MaxDatabases {
		s.out.Search.BudgetExhausted = true
		s.blameBudget()
	}
	s.decideBounded()
	return nil
}

// seedOf hashes the pair's text, so that each pair gets its own stream:
// its queries, its DDL and the name of its database file, never the
// folder the file lies in (a run on a copy of the data elsewhere, or on
// the demo materialised in a fresh temporary folder, searches the same
// databases), nor the name of a server's database (DBID): a copy of it
// under another name (a test's database, a staging copy) searches the
// same databases, and the verdict never turns on the name.
func seedOf(p Pair) uint64 {
	h := fnv.New64a()
	db := ""
	if p.DB != "" {
		db = filepath.Base(p.DB)
	}
	for _, s := range []string{p.Q1, p.Q2, p.Schema, db} {
		h.Write([]byte(s))
		h.Write([]byte{0})
	}
	return h.Sum64()
}

// loadSchema reads the pair's schema: its DDL (catalog.ParseDDL), the
// database DBID of the sandbox's server, or the SQLite database file DB,
// whose value sample joins the pools (Column.Values).
func (s *searcher) loadSchema(ctx context.Context) error {
	if strings.TrimSpace(s.p.Schema) != "" {
		db, err := catalog.ParseDDL(s.p.Schema)
		if err != nil {
			return err
		}
		if err := refuseGenerated(db); err != nil {
			return err
		}
		s.schema = newSchema(db)
		return nil
	}
	if s.p.DBID != "" {
		return s.readServerDB(ctx)
	}
	if s.p.DB == "" {
		return errors.New("the pair has neither a schema nor a database")
	}
	var err error
	s.schema, err = readSQLiteDB(ctx, s.p.DB)
	return err
}

// refuseGenerated refuses a schema with a generated column: ParseDDL
// leaves it out of the table, as PRAGMA table_info does, and a search or a
// proof on the table without it would be one on another table (SELECT *
// returns it).
func refuseGenerated(db *catalog.Database) error {
	for _, t := range db.Tables {
		if len(t.Generated) > 0 {
			return fmt.Errorf("table %s: the generated column %s is not modelled", t.Name, t.Generated[0])
		}
	}
	return nil
}

// decideBounded sets the verdict when no database told the queries
// apart.
func (s *searcher) decideBounded() {
	for i, q := range []string{"q1", "q2"} {
		if s.ran[i] == 0 && s.fail[i] > 0 {
			s.unknown("%s fails on every database tried (%d): %s", q, s.fail[i], s.msg[i])
			return
		}
	}
	if s.out.Search.Databases == 0 {
		s.unknown("no database could be tried within the budget")
		return
	}
	if s.out.Search.LargestTable == 0 {
		for i, q := range []string{"q1", "q2"} {
			if s.failRows[i] > 0 {
				s.unknown("%s fails on every database with rows that both queries could be tried on (%d): %s", q, s.failRows[i], s.msgRows[i])
				return
			}
		}
		why := "every row drawn broke a key, NOT NULL or foreign key"
		if s.loadErr != "" {
			why = "the engine refused every database with rows: " + s.loadErr
		}
		s.unknown("the schema's constraints admit only the empty database (%s)", why)
		return
	}
	s.out.Verdict = EquivalentBounded
}

func (s *searcher) total() int { return s.out.Search.Databases + s.out.Search.Skipped }

// conditionSources are the texts whose conditions the search solves for
// values (solvedValues): the two queries and, on a proved pair, the
// proof's normal forms, the conditions as the kernel read them.
func (s *searcher) conditionSources() []string {
	src := []string{s.p.Q1, s.p.Q2}
	if s.proof != nil {
		src = append(src, s.proof.NormalForms.Q1, s.proof.NormalForms.Q2)
	}
	return src
}

// phases runs the phases in order until one finds a database that tells
// the queries apart (reported true, kept in s.found), the database cap is
// reached, or the budget ends. conds are the values the queries'
// conditions need (PhaseConditions).
func (s *searcher) phases(ctx context.Context, conds []solved) bool {
	capFor := func(share float64) int { return s.total() + int(share*float64(s.o.MaxDatabases)) }
	type phase struct {
		name string
		next func() (Data, bool)
		cap  int
	}
	run := func(ph phase) bool {
		if s.hopeless() {
			return false
		}
		n := 0
		s.phase = ph.name
		defer func() { s.out.Search.Phases = append(s.out.Search.Phases, Phase{ph.name, n}) }()
		for s.total() < min(ph.cap, s.o.MaxDatabases) && ctx.Err() == nil {
			db, ok := ph.next()
			if !ok {
				return false
			}
			n++
			if s.try(ctx, db, ph.name == PhaseNeighbour) {
				s.foundBy = ph.name
				return true
			}
			if s.hopeless() {
				return false
			}
		}
		return false
	}
	suite := 0
	if len(s.o.SuiteFiles) > 0 && run(phase{PhaseSuite, func() (Data, bool) {
		for suite < len(s.o.SuiteFiles) && ctx.Err() == nil {
			suite++
			if db, err := s.readSuite(ctx, s.o.SuiteFiles[suite-1]); err == nil {
				return s.schema.repair(db), true
			}
		}
		return nil, false
	}, s.o.MaxDatabases}) {
		return true
	}
	emptyDone := !s.schema.admits(make(Data, len(s.schema.Tables)))
	if run(phase{PhaseEmpty, func() (Data, bool) {
		if emptyDone {
			return nil, false
		}
		emptyDone = true
		return make(Data, len(s.schema.Tables)), true
	}, s.o.MaxDatabases}) {
		return true
	}
	if dbs := s.conditionDatabases(conds); len(dbs) > 0 && run(phase{PhaseConditions, listOf(dbs), s.o.MaxDatabases}) {
		return true
	}
	if run(phase{PhaseSmall, func() (Data, bool) { return s.gen.small(1 + s.gen.rng.IntN(3)), true }, capFor(0.4)}) {
		return true
	}
	// The solver phase is skipped on a proved pair (its tripwire of
	// TripwireDatabases stays as it was): most pairs of a benchmark are
	// proved, and Z3's models cost more than the tripwire's databases.
	if s.proof == nil && s.total() < s.o.MaxDatabases && ctx.Err() == nil && !s.hopeless() {
		if dbs := s.solverDatabases(ctx); len(dbs) > 0 && run(phase{PhaseSolver, listOf(dbs), s.o.MaxDatabases}) {
			return true
		}
	}
	if dbs := s.directedDatabases(); len(dbs) > 0 && run(phase{PhaseDirected, listOf(dbs), capFor(0.1)}) {
		return true
	}
	if dbs := s.twinDatabases(); len(dbs) > 0 && run(phase{PhaseTwin, listOf(dbs), capFor(0.1)}) {
		return true
	}
	s.prepareNeighbours(ctx)
	if run(phase{PhaseNeighbour, s.guided(), capFor(0.3)}) {
		return true
	}
	return run(phase{PhaseRandom, func() (Data, bool) { return s.gen.random(), true }, s.o.MaxDatabases})
}

// listOf returns a phase's source of databases that yields dbs in order,
// then ends.
func listOf(dbs []Data) func() (Data, bool) {
	return func() (Data, bool) {
		if len(dbs) == 0 {
			return nil, false
		}
		db := dbs[0]
		dbs = dbs[1:]
		return db, true
	}
}

// readSuite reads a suite database through a read-only engine of its
// own, released afterwards.
func (s *searcher) readSuite(ctx context.Context, path string) (Data, error) {
	eng := sqlite.New("", sqlite.Options{MaxConns: 1})
	defer eng.Close()
	return readSQLiteData(ctx, eng, path, s.schema)
}

// hopeless reports whether a query failed on the first databases without
// ever running: it fails everywhere (a syntax error, a missing column),
// so searching on is pointless.
func (s *searcher) hopeless() bool {
	for i := range 2 {
		if s.ran[i] == 0 && s.fail[i] >= 4 {
			return true
		}
	}
	return false
}

// try loads db and runs both queries on it; it reports whether they
// differ (then db and the results are kept in s.found and s.r). With
// guide, the neighbours still alive are run too, and db joins the corpus
// when it tells one from its query.
func (s *searcher) try(ctx context.Context, db Data, guide bool) bool {
	if !s.schema.admits(db) {
		s.out.Search.Skipped++
		return false
	}
	r, ok := s.runBoth(ctx, db)
	if !ok {
		if s.predFails(ctx) {
			s.compared(db)
			s.found, s.failure = db, &Failure{Kind: FailsError, Error: s.lastErrs[1].Error()}
			return true
		}
		s.out.Search.Skipped++
		return false
	}
	s.compared(db)
	if !s.cmp.equal(ctx, r[0], r[1]) {
		if emptyArity(r) {
			// Different column counts on no rows: kept in case no
			// database with rows shows it, since a witness with rows
			// says more.
			if s.arityEmpty == nil {
				s.arityEmpty, s.arityPhase = db, s.phase
			}
			return false
		}
		if s.strictProof() || s.robust(ctx, db, r) {
			s.found, s.r = db, r
			return true
		}
		return false
	}
	s.keepProductive(db, r)
	if guide {
		s.separateNeighbours(ctx, db, r)
	}
	return false
}

// compared counts db as a database both queries were tried on.
func (s *searcher) compared(db Data) {
	s.out.Search.Databases++
	for _, t := range db {
		s.out.Search.LargestTable = max(s.out.Search.LargestTable, len(t))
	}
}

// predFails reports whether, under Options.Grading, the database runBoth
// ran last is one on which q1 ran and q2 failed on its own: an error of
// the engine that is neither a limit (its timeout, the result cap) nor
// the end of the budget. Such a database is a witness against q2.
func (s *searcher) predFails(ctx context.Context) bool {
	e := s.lastErrs
	return s.o.Grading && ctx.Err() == nil && e[0] == nil && e[1] != nil && engine.Classify(e[1], status.PredError) == status.PredError
}

// runBoth loads db and runs both queries; ok is false when the engine
// refused the database or a query failed (each failure counted). The
// errors stay in s.lastErrs.
func (s *searcher) runBoth(ctx context.Context, db Data) ([2]*result.Set, bool) {
	var r [2]*result.Set
	d := s.o.Sandbox.Dialect()
	if err := s.sc.Load(ctx, s.schema.tableRows(d, db)); err != nil {
		if s.loadErr == "" && ctx.Err() == nil {
			s.loadErr = err.Error()
		}
		s.lastErrs = [2]error{err, err}
		return r, false
	}
	ok := true
	var errs [2]error
	for i, q := range []string{s.p.Q1, s.p.Q2} {
		set, err := s.queryAs(ctx, i, q)
		if errs[i] = err; err != nil {
			s.fail[i]++
			if s.msg[i] == "" {
				s.msg[i] = err.Error()
			}
			if db.Rows() > 0 {
				if s.failRows[i]++; s.msgRows[i] == "" {
					s.msgRows[i] = err.Error()
				}
			}
			ok = false
			continue
		}
		s.ran[i]++
		r[i] = set
	}
	s.countLimits(ctx, errs)
	s.lastErrs = errs
	return r, ok
}

// countLimits counts, in Search.Limited, a query that ran past its
// timeout or the engine's result cap on a database on which the other ran
// (errs are the two queries' errors there). A query stopped by the end of
// the budget (ctx) is not counted: the budget is the search's.
func (s *searcher) countLimits(ctx context.Context, errs [2]error) {
	if ctx.Err() != nil {
		return
	}
	for i, lim := range []*Limits{&s.out.Search.Limited.Q1, &s.out.Search.Limited.Q2} {
		if errs[i] == nil || errs[1-i] != nil {
			continue
		}
		switch engine.Classify(errs[i], status.OK) {
		case status.Timeout:
			lim.Timeout++
		case status.TooLarge:
			lim.TooLarge++
		}
	}
}

// blameBudget marks, when the budget ended the search, the query whose
// runs took more than twice the other's time (Limits.Budget): the search
// ran out of time for its sake. Under Options.Grading a budget that ended
// before any database was compared is the prediction's (chargeBudget).
func (s *searcher) blameBudget() {
	s.out.Search.Limited.Q1.Budget = s.spent[0] > 2*s.spent[1]
	s.out.Search.Limited.Q2.Budget = s.spent[1] > 2*s.spent[0]
	if s.out.Search.Databases == 0 {
		s.chargeBudget()
	}
}

// chargeBudget marks, under Options.Grading, a budget that ended before
// any database was compared as q2's (Limits.Budget) unless q1's runs took
// more than twice q2's time: what ran before (the prover on the two
// texts, the schema, the value pools of the two queries' literals) is
// the same for any prediction but for the prediction's own text, so a
// prediction that exhausts it is not checked, and not counted correct.
func (s *searcher) chargeBudget() {
	if s.o.Grading && !s.out.Search.Limited.Q1.Budget {
		s.out.Search.Limited.Q2.Budget = true
	}
}

// queryAs runs q, a run of query i (0: q1, 1: q2) or of one of its
// neighbours, adding its time to what query i spent.
func (s *searcher) queryAs(ctx context.Context, i int, q string) (*result.Set, error) {
	start := time.Now()
	defer func() { s.spent[i] += time.Since(start) }()
	return s.query(ctx, q)
}

// query runs q on the scratch database within the query timeout. A query
// stopped by its timeout marks the search BudgetExhausted: on a faster
// machine it might have run, and the outcome might differ.
func (s *searcher) query(ctx context.Context, q string) (*result.Set, error) {
	qctx, cancel := context.WithTimeout(ctx, s.o.QueryTimeout)
	defer cancel()
	set, err := s.sc.Query(qctx, q)
	if err != nil && qctx.Err() != nil && ctx.Err() == nil {
		s.out.Search.BudgetExhausted = true
	}
	return set, err
}

// robust reports whether a difference is the queries' doing rather than
// the engine's choice among rows that tie (asked of a pair without a proof
// or with a proof up to ties: a strict proof claims its order keys
// determine the row, so there every difference, ties included, is a
// disagreement; strictProof): when either query orders its
// output or takes a LIMIT, which rows come first among ties (and so which
// survive a LIMIT) follows the scan order, so the difference must also
// show with every table's rows inserted in reverse order, and survive a
// tiebreak on every output column of each query's top-level ORDER BY
// (tiesExplain), so that rows tying on the sort keys, which an engine may
// return in any order (a hash join's, say) or keep in any choice under a
// LIMIT, are never taken for a difference of the queries.
func (s *searcher) robust(ctx context.Context, db Data, r [2]*result.Set) bool {
	if !s.tieSensitive {
		return true
	}
	rev := db.clone()
	for _, t := range rev {
		for i, j := 0, len(t)-1; i < j; i, j = i+1, j-1 {
			t[i], t[j] = t[j], t[i]
		}
	}
	r2, ok := s.runBoth(ctx, rev)
	if !ok || s.cmp.equal(ctx, r2[0], r2[1]) {
		return false
	}
	return !s.tiesExplain(ctx, db, r)
}

// strictProof reports whether the pair has a proof that its ORDER BY keys
// determine the row: then every difference is a witness against it, ties
// included. A proof up to ties (Certificate.Ties) claims only that both
// queries allow the same results, so a difference counts against it as
// against a pair without a proof: when it survives the tie rule (robust).
func (s *searcher) strictProof() bool { return s.proof != nil && !s.proof.Ties }

// tieSensitive reports whether q's result may depend on the order rows
// are scanned in: it has ORDER BY, LIMIT, TOP, FETCH or OFFSET.
func tieSensitive(q string) bool {
	for _, t := range sqllex.Tokenize(q) {
		if t.Kind == sqllex.Word {
			switch strings.ToUpper(t.Text) {
			case "ORDER", "LIMIT", "TOP", "FETCH", "OFFSET":
				return true
			}
		}
	}
	return false
}

// neighbour is a neighbour query of q1 (of=0) or q2 (of=1), alive until
// a database tells it from its query.
type neighbour struct {
	sql   string
	of    int
	alive bool
}

// prepareNeighbours collects up to o.Neighbours neighbour queries of each
// query (testsuite.Neighbours) that run on the empty database; none when
// a query fails everywhere (hopeless: no phase runs after it).
func (s *searcher) prepareNeighbours(ctx context.Context) {
	if s.o.Neighbours < 0 || s.hopeless() {
		return
	}
	info := s.gen.info
	if _, ok := s.runBoth(ctx, make(Data, len(s.schema.Tables))); !ok {
		return
	}
	for i, q := range []string{s.p.Q1, s.p.Q2} {
		n := 0
		for _, nb := range testsuite.Neighbours(q, info) {
			if n == s.o.Neighbours || ctx.Err() != nil {
				break
			}
			if _, err := s.queryAs(ctx, i, nb.SQL); err == nil {
				s.neigh = append(s.neigh, &neighbour{sql: nb.SQL, of: i, alive: true})
				n++
			}
		}
	}
	s.out.Search.Neighbours = len(s.neigh)
}

// separateNeighbours runs the neighbours still alive on the loaded
// database and reports whether it told one from its query.
func (s *searcher) separateNeighbours(ctx context.Context, db Data, r [2]*result.Set) bool {
	told := false
	for _, n := range s.neigh {
		if !n.alive || ctx.Err() != nil {
			continue
		}
		set, err := s.queryAs(ctx, n.of, n.sql)
		if err == nil && !sameBag(set, r[n.of]) {
			n.alive = false
			told = true
			s.out.Search.NeighboursSeparated++
		}
	}
	if told {
		s.corpus = append(s.corpus, db)
	}
	return told
}

// guided returns the neighbour phase's source of databases: a mutation of
// a database of the corpus (those that told a neighbour from its query),
// or a fresh small database while the corpus is empty or one time in
// five.
func (s *searcher) guided() func() (Data, bool) {
	return func() (Data, bool) {
		if len(s.corpus) == 0 || s.gen.rng.IntN(5) == 0 {
			return s.gen.small(1 + s.gen.rng.IntN(3)), true
		}
		return s.gen.mutate(s.corpus[s.gen.rng.IntN(len(s.corpus))]), true
	}
}
