package equiv

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/sqljudge/sqljudge/internal/catalog"
	"github.com/sqljudge/sqljudge/internal/engine"
	"github.com/sqljudge/sqljudge/internal/prove"
	"github.com/sqljudge/sqljudge/internal/prove/check"
	"github.com/sqljudge/sqljudge/internal/prove/explain"
	"github.com/sqljudge/sqljudge/internal/sandbox"
)

// proveSchema adapts db to the prover's schema model on dialect d
// (prove.SchemaOf: nil for an engine the prover does not model).
func proveSchema(db *catalog.Database, d engine.Dialect) check.Schema { return prove.SchemaOf(db, d) }

// ProverNote is what the prover did for a pair (the record's "prover"):
// Result "proved", "no proof" (StoppedBy names the construct or rule that
// stopped it, Detail says more) or "skipped" (an engine the prover does not
// model); Solver is the SMT solver that discharged its obligations, "none"
// when Z3's executable was not found (then only proofs that need no
// obligation are found); Obligations counts those run on it.
type ProverNote struct {
	Result      string `json:"result"`
	StoppedBy   string `json:"stopped_by,omitempty"`
	Detail      string `json:"detail,omitempty"`
	Solver      string `json:"solver"`
	Obligations int    `json:"obligations,omitempty"`
	// BrokenFact is the fact of a proof that a row of the pair's
	// database breaks (StoppedBy StoppedByData): no proof.
	BrokenFact *BrokenFact `json:"broken_fact,omitempty"`
}

// StoppedByData is ProverNote.StoppedBy when a proof was found but a fact
// it rests on does not hold on the pair's database (checkProofFacts), or
// could not be checked there.
const StoppedByData = "data"

// The results of ProverNote.
const (
	ProverProved  = "proved"
	ProverNoProof = "no proof"
	ProverSkipped = "skipped"
)

// proverShare is the part of the budget the prover may take at most (a
// quarter): a query whose text keeps the solver busy (a literal of 100
// kB) leaves the search the rest, instead of ending the budget before any
// database is tried.
const proverShare = 4

// prove runs the prover on the pair (unless o.NoProof), within a
// proverShare of the budget; on a proof the search's cap drops to
// TripwireDatabases.
func (s *searcher) prove(ctx context.Context) {
	if s.o.NoProof {
		return
	}
	pctx, cancel := context.WithTimeout(ctx, s.o.Budget/proverShare)
	defer cancel()
	d := s.o.Sandbox.Dialect()
	switch {
	case s.o.prover != nil:
		s.proof, s.out.Prover = s.o.prover(pctx, s.p.Q1, s.p.Q2, s.schema.Database)
	case d == engine.Postgres:
		// Read on the pair's scratch database once it exists (readProof).
		s.proof, s.out.Prover = proveKernel(pctx, s.p.Q1, s.p.Q2, s.schema.Database, d, s.o.Rule, s.o.Solver)
		s.unread = s.proof != nil
	default:
		s.proof, s.out.Prover = ProveQueries(pctx, s.p.Q1, s.p.Q2, s.schema.Database, d, s.o.Rule, s.o.Solver)
	}
	if s.proof != nil {
		s.checkData(ctx)
	}
	if s.proof != nil && s.o.MaxDatabases > TripwireDatabases {
		s.searchCap = s.o.MaxDatabases
		s.o.MaxDatabases = TripwireDatabases
		s.out.Search.MaxDatabases = TripwireDatabases
	}
}

// readProof validates a PostgreSQL proof's renamings on the pair's
// scratch database (engineReading, the plans of the scratch's Explain),
// once the search has made it; a proof PostgreSQL reads otherwise, or
// that cannot be read (sc nil: the scratch could not be made), is
// dropped and the search gets its whole cap back.
func (s *searcher) readProof(ctx context.Context, sc sandbox.Scratch) {
	if !s.unread || s.proof == nil {
		return
	}
	s.unread = false
	var plans explain.PlanFunc
	if x, ok := sc.(sandbox.Explainer); ok {
		plans = x.Explain
	}
	if !dropUnread(ctx, s.schema.Database, s.o.Sandbox.Dialect(), s.proof, plans, s.out.Prover) {
		return
	}
	s.proof = nil
	if s.searchCap > 0 {
		s.o.MaxDatabases, s.out.Search.MaxDatabases = s.searchCap, s.searchCap
	}
}

// checkData drops the proof when a fact it rests on does not hold on the
// pair's database, or could not be checked there (checkProofFacts): the
// record's prover then says no proof, stopped by "data", with the fact and
// the row that breaks it.
func (s *searcher) checkData(ctx context.Context) {
	b, err := s.checkProofFacts(ctx)
	if err == nil && b == nil {
		return
	}
	s.proof = nil
	s.out.Prover.Result, s.out.Prover.StoppedBy, s.out.Prover.BrokenFact = ProverNoProof, StoppedByData, b
	if err != nil {
		s.out.Prover.Detail = fmt.Sprintf("a proof was found, but a fact it rests on could not be checked on the database's rows: %v", err)
		return
	}
	row, _ := json.Marshal(b.Row)
	s.out.Prover.Detail = fmt.Sprintf("a proof was found, but it rests on %s, which a row of the database breaks: %s", b.Holds, row)
}

// proveFunc is the prover ProveQueries runs (a test swaps in one whose
// renaming is wrong, to show engineReading catches it).
var proveFunc = prove.Prove

// StoppedByEngineReading is ProverNote.StoppedBy when a proof was found
// but the engine reads one of its renaming steps otherwise than the
// kernel, or could not be asked (engineReading): the kernel's name
// resolution is not trusted.
const StoppedByEngineReading = "engine reading"

// engineReading validates the renaming steps of cert against the
// engine's own name resolution: on SQLite, SQLite's programs of both
// texts of each step (explain.Validate) on a scratch database holding
// db's tables (catalog's CreateStatements, as the sandbox creates them);
// on PostgreSQL, PostgreSQL's plans (explain.ValidatePlans) read by
// plans, on a scratch holding the pair's tables (nil: no server, and a
// certificate with a renaming step is refused). The error says which
// step the engine reads otherwise, and how, or why it could not be
// asked.
func engineReading(ctx context.Context, db *catalog.Database, d engine.Dialect, cert *check.Certificate, plans explain.PlanFunc) error {
	switch d {
	case engine.SQLite:
		sc, err := explain.NewScratch(ctx, db.CreateStatements(engine.SQLite))
		if err != nil {
			return fmt.Errorf("its renaming could not be compared with SQLite's reading: %w", err)
		}
		defer sc.Close()
		return explain.Validate(ctx, sc, cert)
	case engine.Postgres:
		if plans == nil && hasRenaming(cert) {
			return fmt.Errorf("its renaming could not be compared with PostgreSQL's reading: no PostgreSQL server to plan it on")
		}
		return explain.ValidatePlans(ctx, plans, cert)
	}
	return nil
}

// hasRenaming reports whether cert has a renaming step.
func hasRenaming(cert *check.Certificate) bool {
	for _, st := range append(append([]check.Step{}, cert.Q1Steps...), cert.Q2Steps...) {
		if st.Rule == check.RuleRename {
			return true
		}
	}
	return false
}

// ProveQueries runs the prover alone on q1 and q2 over schema db (as
// ReadSchema or catalog.ParseDDL return it), under rule, on dialect d's
// semantics (SQLite or PostgreSQL; any other is skipped), with solver
// discharging the obligations (nil: only proofs that need none): the
// certificate, or nil, and the note saying what the prover did. Each
// column's family, affinity and collation are read from the catalog
// (proveColumn). A proof whose renaming the engine reads otherwise
// (engineReading) is dropped: no proof, stopped by
// StoppedByEngineReading. On PostgreSQL that needs a server: without one
// (ProveQueriesWith gives it) no proof is given.
func ProveQueries(ctx context.Context, q1, q2 string, db *catalog.Database, d engine.Dialect, rule Rule, solver check.Solver) (*check.Certificate, *ProverNote) {
	return ProveQueriesWith(ctx, q1, q2, db, d, rule, solver, nil)
}

// ProveQueriesWith is ProveQueries with plans, PostgreSQL's plans of
// queries on a scratch holding db's tables (a sandbox.Explainer's
// Explain), against which a PostgreSQL proof's renamings are validated
// (explain.ValidatePlans); plans is unused on SQLite.
func ProveQueriesWith(ctx context.Context, q1, q2 string, db *catalog.Database, d engine.Dialect, rule Rule, solver check.Solver, plans explain.PlanFunc) (*check.Certificate, *ProverNote) {
	cert, note := proveKernel(ctx, q1, q2, db, d, rule, solver)
	if cert == nil {
		return nil, note
	}
	if dropUnread(ctx, db, d, cert, plans, note) {
		return nil, note
	}
	return cert, note
}

// dropUnread runs engineReading on cert and, when the engine reads it
// otherwise or cannot be asked, records in note that the proof is
// dropped (true).
func dropUnread(ctx context.Context, db *catalog.Database, d engine.Dialect, cert *check.Certificate, plans explain.PlanFunc, note *ProverNote) bool {
	err := engineReading(ctx, db, d, cert, plans)
	if err == nil {
		return false
	}
	note.Result, note.StoppedBy = ProverNoProof, StoppedByEngineReading
	note.Detail = "a proof was found, but " + err.Error()
	return true
}

// proveKernel is ProveQueries without engineReading: the kernel's proof
// alone (tests of the kernel on PostgreSQL without a server, and Decide,
// which validates a PostgreSQL proof on its own scratch database).
func proveKernel(ctx context.Context, q1, q2 string, db *catalog.Database, d engine.Dialect, rule Rule, solver check.Solver) (*check.Certificate, *ProverNote) {
	note := &ProverNote{Solver: "none"}
	if solver != nil {
		note.Solver = solver.Name()
	}
	ps := proveSchema(db, d)
	if ps == nil {
		note.Result, note.Detail = ProverSkipped, fmt.Sprintf("the prover models SQLite and PostgreSQL, not %s", d)
		return nil, note
	}
	if why := unmodelledRead(db, true, q1, q2); why != "" {
		// The entry points refuse such a pair before; a caller of the
		// kernel alone (ProveQueries) gets the same refusal.
		note.Result, note.StoppedBy, note.Detail = ProverNoProof, "schema", why
		return nil, note
	}
	if rule == "" {
		rule = RuleBag
	}
	a := proveFunc(ctx, q1, q2, ps, prove.Options{Rule: string(rule), Solver: solver})
	note.Obligations = a.SolverCalls
	if !a.Proved() {
		note.Result, note.StoppedBy, note.Detail = ProverNoProof, a.Stopped, a.Detail
		return nil, note
	}
	if b, err := json.Marshal(a.Certificate); err != nil || len(b) > MaxProofBytes {
		note.Result, note.StoppedBy = ProverNoProof, "proof size"
		note.Detail = fmt.Sprintf("a proof of %d bytes of JSON, over the %d a record keeps", len(b), MaxProofBytes)
		return nil, note
	}
	note.Result = ProverProved
	return a.Certificate, note
}

// MaxProofBytes bounds a proof's JSON in a record (results.jsonl, serve's
// response): a proof over it (queries of many kilobytes, rewritten step
// after step) is not reported, and the search decides the pair as without
// one.
const MaxProofBytes = 64 << 10

// ReadSchema reads a pair's schema as Decide does, into the catalog
// model: its DDL (catalog.ParseDDL), or the SQLite database at p.DB
// (catalog.Read, ordered by references, declared types upper-cased); a
// server's db_id needs the sandbox: not here.
func ReadSchema(ctx context.Context, p Pair) (*catalog.Database, error) {
	s := &searcher{p: p}
	if p.DBID != "" && strings.TrimSpace(p.Schema) == "" {
		return nil, fmt.Errorf("equiv: ReadSchema reads DDL or a SQLite file, not a server's db_id")
	}
	if err := s.loadSchema(ctx); err != nil {
		return nil, err
	}
	return s.schema.Database, nil
}

// reconcile sets the verdict of a proved pair from the search's: a
// witness against a proof makes the pair Unknown (ReasonDisagree), with
// both kept in the record; no witness makes it EquivalentProved; a search
// that could not decide keeps its Unknown (the queries may not run at
// all), the proof then unreported.
func (s *searcher) reconcile() {
	if s.proof == nil {
		return
	}
	switch {
	case s.out.Verdict == Inequivalent && s.out.Witness.Q2Fails != nil:
		// A proof holds where both queries run; q2 failing where q1 runs
		// does not contradict it, and decides.
		s.out.Prover.Detail = "not reported as the verdict: q2 fails on a database on which q1 runs"
	case s.out.Verdict == Inequivalent:
		s.out.Verdict, s.out.Reason, s.out.Proof = Unknown, ReasonDisagree, s.proof
	case s.out.Verdict == EquivalentBounded:
		s.out.Verdict, s.out.Proof = EquivalentProved, s.proof
	default:
		s.out.Prover.Detail = "not reported as the verdict: the search could not run the pair (" + s.out.Reason + ")"
	}
}

// ProverSetting names what the equiv metric's proofs depend on, for
// eval's fingerprint: "z3" when Z3's executable is on PATH, "no solver"
// otherwise.
func ProverSetting() string {
	if _, err := check.FindZ3(); err != nil {
		return "no solver"
	}
	return "z3"
}
