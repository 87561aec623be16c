package equiv

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"time"

	"github.com/sqljudge/sqljudge/internal/catalog"
	"github.com/sqljudge/sqljudge/internal/prove/check"
	"github.com/sqljudge/sqljudge/internal/result"
	"github.com/sqljudge/sqljudge/internal/sandbox"
)

// Pair is two queries to decide over a schema: DDL text in Schema, the
// SQLite database file at DB, or the database DBID of the sandbox's server
// (a PostgreSQL sandbox reads it, never writes it); a database gives its
// schema, and its values seed the search.
type Pair struct {
	ID     string
	Q1, Q2 string
	Schema string
	DB     string
	DBID   string
}

// Options configure Decide.
type Options struct {
	// Sandbox makes the scratch databases the pair runs on (required).
	Sandbox sandbox.Sandbox
	// Seed makes the search reproducible: the same seed, pair and
	// options give the same Outcome, on any machine, unless Budget ends
	// the search or the shrinking first (then Search.BudgetExhausted).
	Seed int64
	// MaxDatabases bounds the databases tried (default 600): the search
	// ends there, so its outcome does not depend on the machine's speed.
	// The search gives 40% of them to small databases, 30% to the
	// neighbour-guided ones and the rest to the fuzzer's.
	MaxDatabases int
	// MaxShrinkSteps bounds the databases tried while shrinking a witness
	// (default 500), for the same reason.
	MaxShrinkSteps int
	// Budget is a safety net on the time of the search and the shrinking
	// together (default 60s), for queries that run long on every
	// database: the caps end a normal pair well before it (about 1s for
	// 600 databases on SQLite, 3s on PostgreSQL, 12s for the slowest
	// Calcite pairs on a loaded 2-core machine). The re-verification of a
	// witness has time of its own (verifyTimeout), never what is left.
	Budget time.Duration
	// QueryTimeout bounds one query (default 2s, never past Budget).
	QueryTimeout time.Duration
	// Rule is the comparison rule (default RuleBag).
	Rule Rule
	// Neighbours bounds the neighbour queries of each query that guide
	// the search (default 24; -1 for none).
	Neighbours int
	// SuiteFiles are SQLite databases with the pair's schema (a test
	// suite's) tried first, at most suiteRows rows a table each, repaired
	// to the schema's constraints.
	SuiteFiles []string
	// Assume is the assumption mode (default AssumeDeclared).
	Assume Assume
	// NoProof skips the prover: the search alone decides.
	NoProof bool
	// Solver discharges the prover's obligations (Z3's executable: see
	// check.FindZ3); nil proves only what needs no obligation (queries
	// equal up to renaming, forms equal without a condition to compare),
	// and each record says so (prover.solver "none").
	Solver check.Solver
	// Modeler answers the solver phase's goals (PhaseSolver, cover.go);
	// nil uses Z3's executable on PATH (the phase is skipped without
	// one).
	Modeler check.Modeler
	// NoSolve skips the solver phase: the search as it was before it.
	NoSolve bool
	// Grading reads q1 as the gold and q2 as a prediction (the equiv and
	// verdict metrics), whose own behaviour is held against it: a
	// database on which q1 runs and q2 fails (an error of the engine
	// that is neither a limit nor the end of the budget), or on which
	// two runs of q2 differ while q1's agree, is a witness against q2
	// (Witness.Q2Fails); a result of q2 that does not reproduce on a
	// fresh database with the same rows while q1's does counts in
	// Limited.Q2.Unstable, a query limit q2 hits while re-verifying in
	// Limited.Q2, and a budget that ends before any database was
	// compared (the prover, the schema, the pools: work the prediction's
	// text causes) in Limited.Q2.Budget, unless q1's runs took most of it.
	// Without it (sqljudge equiv) the two queries are alike: a database
	// on which either fails is skipped.
	Grading bool
	// prover replaces ProveQueries when set: the tests' prover that lies,
	// to show what the tripwire and the metrics do with a wrong proof.
	prover proverFunc
	// facts remembers the checks of proofs' facts on the pair's database
	// (checkProofFacts) across pairs that share it; nil remembers none.
	facts *factMemo
}

// proverFunc proves q1 and q2 over db, as ProveQueries does.
type proverFunc func(ctx context.Context, q1, q2 string, db *catalog.Database) (*check.Certificate, *ProverNote)

// The defaults of Options (and of `sqljudge equiv`).
const (
	DefaultMaxDatabases   = 600
	DefaultMaxShrinkSteps = 500
	DefaultBudget         = 60 * time.Second
)

// The defaults of the equiv metric (--equiv-max-databases
// and --equiv-budget): fewer databases than `sqljudge equiv`, so that
// `eval --metrics ex,equiv` of Spider dev (1034 items) takes about 4
// minutes on 2 loaded cores (measured: 3m13s and 3m50s, no item stopped
// by the budget), and a budget that is only a safety net (an item takes well
// under a second).
const (
	DefaultMetricMaxDatabases = 300
	DefaultMetricBudget       = 20 * time.Second
	// DefaultMetricSeed is the search's seed (eval's --equiv-seed).
	DefaultMetricSeed int64 = 1
)

// TripwireDatabases is the database cap of the search on a proved pair
// (or MaxDatabases when lower): the search still runs, as a tripwire
// against a bug of the prover, but a tenth of the default's databases
// suffice for that (the Calcite and Spider property tests search proved
// pairs at ten times the default cap and find nothing). A pair both
// proved and refuted is Unknown (ReasonDisagree).
const TripwireDatabases = 60

func (o *Options) defaults() {
	if o.Budget <= 0 {
		o.Budget = DefaultBudget
	}
	if o.MaxDatabases <= 0 {
		o.MaxDatabases = DefaultMaxDatabases
	}
	if o.MaxShrinkSteps <= 0 {
		o.MaxShrinkSteps = DefaultMaxShrinkSteps
	}
	if o.QueryTimeout <= 0 {
		o.QueryTimeout = 2 * time.Second
	}
	if o.Rule == "" {
		o.Rule = RuleBag
	}
	if o.Neighbours == 0 {
		o.Neighbours = 24
	}
}

// verifyTimeout bounds the re-verification of a witness: creating a fresh
// database (on PostgreSQL a CREATE DATABASE, which takes seconds on a
// loaded server), loading the witness and four query runs.
func (o *Options) verifyTimeout() time.Duration { return 30*time.Second + 4*o.QueryTimeout }

// Witness is a database on which the two queries differ: SQL creates it
// from nothing (CREATE TABLE statements, then one INSERT per row, in the
// engine's dialect), Rows counts its rows over all tables, Q1 and Q2 are
// the two results on it. SQLOmitted is the length in bytes of an SQL the
// equiv metric left out of its record (SQL is then "": see MaxWitnessSQL);
// 0 otherwise.
type Witness struct {
	SQL        string `json:"sql"`
	SQLOmitted int    `json:"sql_omitted_bytes,omitempty"`
	Rows       int    `json:"rows"`
	Q1         Result `json:"q1"`
	Q2         Result `json:"q2"`
	// RestsOn is what the difference rests on (explain: each kind a check
	// on the witness removed; RestsValue when none did), and RestsChecks
	// every check made, with what it changed and whether the difference
	// disappeared. Both are absent on a witness not made by the search
	// (cut from an item's own database).
	RestsOn []RestsOn `json:"rests_on,omitempty"`
	// Phase is the phase of the search that found the database the
	// witness was shrunk from (PhaseSuite ... PhaseRandom); absent on a
	// witness not made by the search.
	Phase       string       `json:"phase,omitempty"`
	RestsChecks []RestsCheck `json:"rests_on_checks,omitempty"`
	// Q2Fails, under Options.Grading, says how q2 fails on this database
	// while q1 runs (Q2 is then empty for an error, the first of two
	// differing runs when nondeterministic); nil on a witness of two
	// results that differ.
	Q2Fails *Failure `json:"q2_fails,omitempty"`
}

// Failure is how the prediction (q2) fails on a witness on which the gold
// (q1) runs, under Options.Grading: its Kind and the engine's Error (the
// two results, for a nondeterministic one).
type Failure struct {
	Kind  FailureKind `json:"kind"`
	Error string      `json:"error"`
}

// FailureKind is a way a prediction fails where the gold runs, a closed
// set.
type FailureKind string

// The kinds of Failure.
const (
	// FailsError: q2 fails with an error of the engine (malformed JSON,
	// an integer overflow, ...) that is neither a time nor a size limit.
	FailsError FailureKind = "error"
	// FailsNondeterministic: two runs of q2 on the witness return
	// different results (random(), the clock), while two runs of q1
	// agree.
	FailsNondeterministic FailureKind = "nondeterministic"
)

// Recheck compares the results of q1 and q2 re-run on the witness's
// database, built elsewhere from SQL alone, with the recorded ones: nil
// when both equal their record (as Result, JSON) and differ from each
// other; else an error saying which.
func (w *Witness) Recheck(r1, r2 *result.Set) error {
	var got [2]string
	for i, r := range []*result.Set{r1, r2} {
		b, _ := json.Marshal(resultJSON(r))
		got[i] = string(b)
	}
	want1, _ := json.Marshal(w.Q1)
	want2, _ := json.Marshal(w.Q2)
	if got[0] != string(want1) || got[1] != string(want2) {
		return fmt.Errorf("witness results differ from the record:\n got %s / %s\nwant %s / %s", got[0], got[1], want1, want2)
	}
	if got[0] == got[1] {
		return fmt.Errorf("the queries agree on the witness: %s", got[0])
	}
	return nil
}

// Result is a query result as JSON: column names and rows, each cell
// null, a number, a boolean or a string (decimals, dates and times as
// their text). At most maxShownRows rows are kept; Truncated says when
// more were returned. A string cell is cut to result.SampleCellBytes
// (result.CutCell: it then ends in "…"), as a report's samples are;
// CutCells counts the cells cut.
type Result struct {
	Columns   []string `json:"columns"`
	Rows      [][]any  `json:"rows"`
	Truncated bool     `json:"truncated,omitempty"`
	CutCells  int      `json:"cut_cells,omitempty"`
}

const maxShownRows = 100

// ResultOf converts a result set into a witness's Result (its columns and
// at most 100 rows, cells as JSON values), as Decide records q1's and
// q2's results: a test re-running a witness compares with it.
func ResultOf(s *result.Set) Result { return resultJSON(s) }

// resultJSON converts a result set.
func resultJSON(s *result.Set) Result {
	r := Result{Columns: s.Columns, Rows: [][]any{}}
	if r.Columns == nil {
		r.Columns = []string{}
	}
	for i, row := range s.Rows {
		if i == maxShownRows {
			r.Truncated = true
			break
		}
		cells := make([]any, len(row))
		for j, v := range row {
			cells[j] = cellJSON(v)
			if s, ok := cells[j].(string); ok {
				if c := result.CutCell(s); len(c) != len(s) {
					cells[j] = c
					r.CutCells++
				}
			}
		}
		r.Rows = append(r.Rows, cells)
	}
	return r
}

func cellJSON(v result.Value) any {
	switch v.K {
	case result.Null:
		return nil
	case result.Int:
		return v.I
	case result.Bool:
		return v.I != 0
	case result.Float:
		if math.IsInf(v.F, 0) || math.IsNaN(v.F) {
			return strconv.FormatFloat(v.F, 'g', -1, 64)
		}
		return v.F
	case result.Decimal:
		if json.Valid([]byte(v.S)) {
			return json.Number(v.S)
		}
	}
	return v.S
}

// Phase is one phase of the search and the databases it tried.
type Phase struct {
	Name      string `json:"name"`
	Databases int    `json:"databases"`
}

// The phases of the search, in order.
const (
	PhaseSuite      = "suite"      // Options.SuiteFiles (a test suite's databases)
	PhaseEmpty      = "empty"      // every table empty
	PhaseConditions = "conditions" // a value the queries' linear conditions need in one row (solve.go)
	PhaseSmall      = "small"      // tables of 0 to 3 rows from the value pools
	PhaseSolver     = "solver"     // models of the queries' conditions from Z3 (cover.go)
	PhaseDirected   = "directed"   // groups built on the queries' conditions (directed.go)
	PhaseTwin       = "twin"       // a database the queries return rows on, one table's rows twinned (twin.go)
	PhaseNeighbour  = "neighbour"  // mutations kept while they tell a query from a neighbour
	PhaseRandom     = "random"     // the test-suite fuzzer's databases, up to 80 rows a table
)

// PhaseNames are the phases of the search in the order they run.
var PhaseNames = []string{PhaseSuite, PhaseEmpty, PhaseConditions, PhaseSmall, PhaseSolver, PhaseDirected, PhaseTwin, PhaseNeighbour, PhaseRandom}

// Search is what the search tried: Databases compared (both queries ran),
// Skipped (the engine refused the database, or a query failed on it),
// LargestTable rows in a table, Values in the pools of all columns, the
// Phases with their databases, the neighbour queries that guided it and
// how many of them a database told from their query, the shrinking steps,
// and the settings (seed, budget, database and shrinking caps).
// BudgetExhausted is true when a time limit cut the work short: the budget
// ended the search before its database cap or the shrinking before it was
// done, or a query ran into its timeout (Options.QueryTimeout). The
// outcome then depends on the machine's speed and may differ from run to
// run; a record without it is the same bytes on every run. Limited says
// which query kept the search from comparing them (see Limits). Elapsed
// is wall time, kept out of results.jsonl.
type Search struct {
	Databases           int           `json:"databases"`
	Skipped             int           `json:"skipped"`
	LargestTable        int           `json:"largest_table"`
	Values              int           `json:"values"`
	Phases              []Phase       `json:"phases"`
	Neighbours          int           `json:"neighbours"`
	NeighboursSeparated int           `json:"neighbours_separated"`
	ShrinkSteps         int           `json:"shrink_steps,omitempty"`
	SolverCalls         int           `json:"solver_calls,omitempty"`
	Seed                int64         `json:"seed"`
	Budget              string        `json:"budget"`
	MaxDatabases        int           `json:"max_databases"`
	MaxShrinkSteps      int           `json:"max_shrink_steps"`
	BudgetExhausted     bool          `json:"budget_exhausted,omitempty"`
	Limited             Limited       `json:"limited,omitzero"`
	Elapsed             time.Duration `json:"-"`
}

// Limited holds the Limits of q1 and of q2; {"q2": {"timeout": 4}} in
// JSON, absent when neither query hit one.
type Limited struct {
	Q1 Limits `json:"q1,omitzero"`
	Q2 Limits `json:"q2,omitzero"`
}

// Limits says how one query kept the search from comparing the pair: the
// databases on which it ran past Options.QueryTimeout (Timeout) or past
// the engine's cap on a result's rows or memory (TooLarge) while the other
// query ran within them, and Budget when the budget ended the search
// before its database cap while this query's runs (its neighbours'
// included) had taken more than twice the other's time (under
// Options.Grading, q2's Budget also when the budget ended before any
// database was compared and q1 is not to blame). Such a query, not the
// pair, is why the search could not decide: the equiv metric never counts
// a prediction with Limits correct (Metric).
type Limits struct {
	Timeout  int  `json:"timeout,omitempty"`
	TooLarge int  `json:"too_large,omitempty"`
	Budget   bool `json:"budget,omitempty"`
	// Unstable counts, under Options.Grading, the witnesses on which the
	// query's result did not reproduce on a fresh database with the same
	// rows while the other's did (it reads something besides the rows:
	// the clock, the file).
	Unstable int `json:"unstable,omitempty"`
}

// Hit reports whether the query hit a limit.
func (l Limits) Hit() bool { return l != Limits{} }

// Outcome is the answer for a pair: its Verdict, the Witness when
// Inequivalent, the Proof when EquivalentProved (both when the two
// disagree: then Unknown), what the prover did (Prover), what was
// searched, the Reason when Unknown, and the comparison Rule as a
// sentence.
//
// Under AssumeObserved, Assume says so and Assumptions lists what the
// pair's database satisfies that the search respected ("not_null t.c",
// "non_empty t", "unique t.c"; empty with AssumeNote saying why when the
// pair has no database). Under AssumeDeclared both are absent. A proof
// never rests on them: it holds on every database satisfying the declared
// schema.
type Outcome struct {
	Verdict     Verdict            `json:"verdict"`
	Witness     *Witness           `json:"witness,omitempty"`
	Proof       *check.Certificate `json:"proof,omitempty"`
	Prover      *ProverNote        `json:"prover,omitempty"`
	Search      Search             `json:"search"`
	Reason      string             `json:"reason,omitempty"`
	Rule        string             `json:"rule"`
	Assume      Assume             `json:"assume,omitempty"`
	Assumptions []string           `json:"assumptions,omitempty"`
	AssumeNote  string             `json:"assume_note,omitempty"`
}
