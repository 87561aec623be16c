package equiv

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/sqljudge/sqljudge/internal/bench"
	"github.com/sqljudge/sqljudge/internal/engine"
	"github.com/sqljudge/sqljudge/internal/engine/sqlite"
	"github.com/sqljudge/sqljudge/internal/metric"
	"github.com/sqljudge/sqljudge/internal/prove/check"
	"github.com/sqljudge/sqljudge/internal/result"
	sqlitesb "github.com/sqljudge/sqljudge/internal/sandbox/sqlite"
	"github.com/sqljudge/sqljudge/internal/sqllex"
	"github.com/sqljudge/sqljudge/internal/status"
)

func init() {
	metric.Register("equiv", "counterexample search: ex on every small database satisfying the item's schema; a wrong item carries the smallest witness", func(o metric.Options) (metric.Metric, error) {
		return NewMetric(o.Equiv)
	})
	metric.RegisterDetails[Details]("equiv")
	registerSettings()
}

// registerSettings declares the settings of the equiv metric, read by
// verdict's equiv step too: the search's seed, budget, database cap and
// assumption mode (metric.EquivOptions), and the fingerprint entries no
// flag sets.
func registerSettings() {
	both := []string{"equiv", "verdict"}
	for _, s := range []metric.Setting{{
		Flag: "equiv-seed", Default: DefaultMetricSeed, Fingerprint: "equiv_seed",
		Help:  "equiv: random seed of the counterexample search",
		Field: func(o *metric.Options) any { return &o.Equiv.Seed },
	}, {
		Flag: "equiv-budget", Default: DefaultMetricBudget, Fingerprint: "equiv_budget",
		Help:  "equiv: time of one item's search at most, a safety net for slow queries (an item it stops is marked budget_exhausted)",
		Field: func(o *metric.Options) any { return &o.Equiv.Budget },
	}, {
		Flag: "equiv-max-databases", Default: DefaultMetricMaxDatabases, Fingerprint: "equiv_max_databases",
		Help:  "equiv: databases one item's search tries (its bound: the same verdict on any machine)",
		Field: func(o *metric.Options) any { return &o.Equiv.MaxDatabases },
	}, {
		// Recorded only when not the default, so that the fingerprints
		// of runs before the flag keep their keys.
		Flag: "equiv-assume", Default: string(AssumeDeclared), Fingerprint: "equiv_assume", Record: metric.WhenChanged,
		Help:  "equiv: declared (the schema's constraints) or observed (also what the item's database satisfies: NOT NULL where it holds no NULL, a row in every table it fills, UNIQUE where its values are distinct)",
		Field: func(o *metric.Options) any { return &o.Equiv.Assume },
	}} {
		// A run that sets one without equiv or verdict is refused:
		// the flag would change nothing.
		s.Metrics, s.Serve, s.RequiresMetric = both, true, true
		if s.Record == metric.Always {
			// Only with equiv or verdict, so that the fingerprints of
			// runs without them keep their keys (resuming a run with
			// equiv added is then refused).
			s.Record = metric.WhenUsed
		}
		metric.RegisterSetting(s)
	}
	for _, name := range both {
		metric.RegisterFingerprint(name, func() map[string]string {
			return map[string]string{
				// The shrinking's step cap is equiv's default (no
				// flag): a change of it changes the witnesses.
				"equiv_max_shrink_steps": strconv.Itoa(DefaultMaxShrinkSteps),
				// Whether Z3 was found decides which items are proved.
				"equiv_prover": ProverSetting(),
			}
		})
	}
}

// Details are the details of the equiv metric in results.jsonl
// (verdicts.equiv): the search's Verdict, the Witness that tells gold and
// prediction apart (the object `sqljudge equiv` writes: sql, rows, q1 =
// the gold's result, q2 = the prediction's; its sql left out past
// MaxWitnessSQL), the Proof of an equivalent_proved item and what the
// prover did (Prover), the Databases compared, the
// Reason of an unknown verdict, and BudgetExhausted when the time budget,
// not the database cap, ended the search (Search.BudgetExhausted: the
// record may then differ from run to run).
//
// Under --equiv-assume observed, Assume says so and Assumptions lists what
// the item's database satisfies that the search respected (Outcome's).
type Details struct {
	Verdict         Verdict            `json:"verdict"`
	Witness         *Witness           `json:"witness,omitempty"`
	Proof           *check.Certificate `json:"proof,omitempty"`
	Prover          *ProverNote        `json:"prover,omitempty"`
	Databases       int                `json:"databases"`
	Reason          string             `json:"reason,omitempty"`
	BudgetExhausted bool               `json:"budget_exhausted,omitempty"`
	Assume          Assume             `json:"assume,omitempty"`
	Assumptions     []string           `json:"assumptions,omitempty"`
}

// RestsOn names what the witness rests on (metric.Refutation), nil
// without a witness.
func (d Details) RestsOn() []string { return d.Witness.restsOn() }

// Assumption names the assumption the search ran under
// (metric.Assumer): "observed", or "declared" (the default, which the
// record leaves out).
func (d Details) Assumption() string {
	if d.Assume == "" {
		return string(AssumeDeclared)
	}
	return string(d.Assume)
}

// Disagrees reports whether a proof and a re-verified witness (or the
// item's database) disagree about the item (metric.Disagreement):
// ReasonDisagree.
func (d Details) Disagrees() bool { return strings.HasPrefix(d.Reason, ReasonDisagree) }

// restsOn returns w's kinds as strings; nil for a nil witness or one cut
// from an item's database without checks.
func (w *Witness) restsOn() []string {
	if w == nil {
		return nil
	}
	out := make([]string, len(w.RestsOn))
	for i, k := range w.RestsOn {
		out[i] = string(k)
	}
	return out
}

// Numbers returns {"databases_tried": n, "with_witness": 0 or 1,
// "budget_exhausted": 0 or 1, "proved": 0 or 1, "proved_up_to_ties": 0 or
// 1}: the summary's mean number of databases searched per item, share of
// items with a witness (wrong items the search refuted, not every wrong
// item), share of items whose search the time budget ended (their records
// may differ from run to run), share of items proved equivalent
// (equivalent_proved) and share of those whose proof holds up to ties
// (Certificate.Ties: the same results allowed, the choice among rows that
// tie on the ORDER BY keys the engine's).
func (d Details) Numbers() map[string]float64 {
	b01 := func(b bool) float64 {
		if b {
			return 1
		}
		return 0
	}
	return map[string]float64{"databases_tried": float64(d.Databases), "with_witness": b01(d.Witness != nil), "budget_exhausted": b01(d.BudgetExhausted),
		"proved": b01(d.Verdict == EquivalentProved), "proved_up_to_ties": b01(d.Verdict == EquivalentProved && d.Proof != nil && d.Proof.Ties)}
}

// Metric is equiv as a metric of eval: the item is correct iff the search
// (Decide, under RuleSpider: Spider's execution match, row order when the
// gold orders) finds no database, satisfying the item's schema and seeded
// with its database's values, on which gold and prediction differ, and
// they agree on the item's database itself. The queries run exactly as
// written (no DISTINCT removal, no value rewriting), so a witness re-runs
// in any SQLite client. A test suite's databases, when given, are tried
// first (at most suiteRows rows a table). The search runs in grading
// mode (Options.Grading): a database on which the gold runs and the
// prediction fails or is not deterministic is a witness against it. A
// witness beats a proof (a disagreement, ReasonDisagree: wrong). A
// prediction that ran past the search's limits where the gold did not, or
// whose result did not reproduce (Search.Limited.Q2), is not correct, with
// status timeout (too_large when only the result cap was hit, ok when only
// its result did not reproduce): a prediction that cannot be checked is
// not rewarded as a right one. Only when the gold's side leaves the pair
// open (unknown: the schema, a gold that fails everywhere) is the verdict
// the comparison on the item's database, with the reason in Detail (see
// settle). The item's database must be a SQLite file; the facts a proof
// rests on are checked on its rows (checkProofFacts).
type Metric struct {
	o      metric.EquivOptions
	sb     *sqlitesb.Sandbox
	solver check.Solver // Z3, nil when not found
	prover proverFunc   // Options.prover: tests only
	facts  *factMemo    // the proofs' facts checked on the items' databases
}

// NewMetric returns the equiv metric; the caller closes it.
func NewMetric(o metric.EquivOptions) (*Metric, error) {
	if o.Budget <= 0 || o.MaxDatabases <= 0 {
		return nil, errors.New("needs a positive --equiv-budget and --equiv-max-databases")
	}
	if !Assume(o.Assume).Valid() {
		return nil, fmt.Errorf("--equiv-assume %q: want %s or %s", o.Assume, AssumeDeclared, AssumeObserved)
	}
	sb, err := sqlitesb.New("")
	if err != nil {
		return nil, err
	}
	m := &Metric{o: o, sb: sb, facts: &factMemo{}}
	if z, err := check.FindZ3(); err == nil {
		m.solver = z
	}
	return m, nil
}

// Name returns "equiv".
func (m *Metric) Name() string { return "equiv" }

// Close removes the scratch databases' folder.
func (m *Metric) Close() error { return m.sb.Close() }

// Lengthy returns true: an item is a search of up to the budget
// (metric.Lengthy).
func (m *Metric) Lengthy() bool { return true }

// Grade decides gold against prediction; with several gold alternatives
// the item is correct if one of them has no witness.
func (m *Metric) Grade(ctx context.Context, x *metric.Exec, it *bench.Item) metric.Verdict {
	eng, ok := x.Env().Engine.(*sqlite.Engine)
	if !ok {
		return metric.Verdict{Status: status.InternalError, Detail: "equiv runs on SQLite databases (--db a folder of .sqlite files)"}
	}
	path, err := eng.Path(it.DBID)
	if err != nil {
		return metric.Verdict{Status: status.InternalError, Detail: err.Error()}
	}
	var last metric.Verdict
	for _, gold := range it.Gold {
		last = m.gradeOne(ctx, x, it, gold, path)
		if last.Correct {
			break
		}
	}
	return last
}

// gradeOne grades the prediction against one gold query.
func (m *Metric) gradeOne(ctx context.Context, x *metric.Exec, it *bench.Item, gold, path string) metric.Verdict {
	gs, gerr := x.Gold(ctx, it.DBID, gold)
	if gerr != nil {
		return metric.Verdict{Status: engine.Classify(gerr, status.GoldError), Detail: gerr.Error()}
	}
	ps, perr := x.Pred(ctx, it.DBID, it.Pred)
	if perr != nil {
		return metric.Verdict{Status: engine.Classify(perr, status.PredError), Detail: perr.Error()}
	}
	sameOnDB := result.SpiderEqual(gs, ps, sqllex.ContainsOrderBy(gold))
	out, err := Decide(ctx, Pair{ID: it.ID, Q1: gold, Q2: it.Pred, DB: path}, Options{
		Sandbox: m.sb, Seed: m.o.Seed, Budget: m.o.Budget, MaxDatabases: m.o.MaxDatabases,
		Rule: RuleSpider, SuiteFiles: m.suiteFiles(it.DBID), Assume: Assume(m.o.Assume), Solver: m.solver, Grading: true, prover: m.prover, facts: m.facts,
	})
	if err != nil {
		return metric.Verdict{Status: status.InternalError, Detail: err.Error()}
	}
	d := Details{Verdict: out.Verdict, Witness: recordWitness(out.Witness), Proof: out.Proof, Prover: out.Prover, Databases: out.Search.Databases, Reason: out.Reason, BudgetExhausted: out.Search.BudgetExhausted,
		Assume: out.Assume, Assumptions: out.Assumptions}
	tiesOnDB := !sameOnDB && out.Verdict == EquivalentProved && out.Proof != nil && out.Proof.Ties &&
		tiebrokenAgree(ctx, x, it, gold, out.Proof)
	v := m.settle(ctx, it, gold, path, out, sameOnDB, tiesOnDB, &d)
	v.Details = d
	return v
}

// settle turns the search's outcome and the comparison on the item's
// database (sameOnDB) into the metric's verdict, adjusting d; tiesOnDB:
// the pair's proof holds up to ties (Certificate.Ties) and the item's
// database separates the pair by ties alone (tiebrokenAgree). In order: a
// witness beats a proof (a disagreement: wrong, whether or not the item's
// database separates them); a witness, or the item's database separating
// them, is wrong; a prediction that ran past the search's limits where
// the gold did not, or whose result did not reproduce, is not correct; a
// proof is correct; and only an unknown the gold's side leaves open (the
// schema, a gold that fails or is not deterministic on the scratch
// databases) falls back to the item's database.
func (m *Metric) settle(ctx context.Context, it *bench.Item, gold, path string, out Outcome, sameOnDB, tiesOnDB bool, d *Details) metric.Verdict {
	v := metric.Verdict{Status: status.OK}
	switch {
	case out.Reason == ReasonDisagree:
		// The witness, re-verified, beats the proof (kept beside it): a
		// bug of the prover, the kernel or the search, and a wrong item.
		d.Verdict = Inequivalent
		v.Detail = "a proof and a re-verified witness disagree: the witness decides"
	case tiesOnDB:
		// The proof claims the same results up to ties; on the item's
		// database the engine chose differently among rows that tie, which
		// Spider's match counts, as it does for any pair.
		// No witness: a difference of ties is none under the tie rule, so
		// the item's database is the evidence (EX's own).
		d.Verdict, d.Proof = Inequivalent, out.Proof
		v.Detail = "the results differ on the item's database, where the two queries return different rows among rows that tie on their ORDER BY keys: the proof holds up to that choice only (ties), and the database decides"
	case out.Verdict == EquivalentProved && !sameOnDB:
		// A proof covers every database satisfying the schema, whose facts
		// the item's database was checked against: it separating the
		// pair is a bug, and decides.
		d.Verdict, d.Proof, d.Reason = Inequivalent, out.Proof, ReasonDisagree+" (the item's database "+it.DBID+" separates them)"
		d.Witness = m.itemDBWitness(ctx, it.ID, gold, it.Pred, path)
		v.Detail = "the results differ on the item's database, which a proof says cannot be: the database decides"
	case out.Verdict == Inequivalent && out.Witness.Q2Fails != nil:
		v.Detail = "the prediction fails on a database on which the gold runs (" + string(out.Witness.Q2Fails.Kind) + "): " + out.Witness.Q2Fails.Error
	case out.Verdict == Inequivalent:
	case !sameOnDB:
		// The item's database itself separates the pair: the verdict is
		// inequivalent, never "equivalent_bounded", whether or not a part of
		// it small enough to print as a witness still does.
		d.Verdict, d.Reason = Inequivalent, ""
		if d.Witness = m.itemDBWitness(ctx, it.ID, gold, it.Pred, path); d.Witness == nil {
			d.Reason = "the item's database (" + it.DBID + ") separates them; no part of it small enough to print does, and the search found no other database that does"
		}
		v.Detail = "the results differ on the item's database"
	case out.Search.Limited.Q2.Hit():
		v.Status, v.Detail = limitedVerdict(out.Search.Limited.Q2)
	case out.Verdict == EquivalentProved:
		// Proved: checked on every database, whatever the search's limits.
		v.Correct = true
	case out.Verdict == Unknown:
		v.Correct = true
		v.Detail = "equiv could not search (" + out.Reason + "); the gold's side leaves the pair open, so the verdict is the comparison on the item's database"
	default:
		v.Correct = true
	}
	return v
}

// limitedVerdict is the status and detail of a prediction that kept the
// search from comparing it with the gold (Limits, q2's): timeout when it
// ran past a timeout or the budget, too_large when only the result cap
// stopped it, ok (wrong) when its result did not reproduce.
func limitedVerdict(lim Limits) (status.Status, string) {
	st := status.OK
	switch {
	case lim.Timeout > 0 || lim.Budget:
		st = status.Timeout
	case lim.TooLarge > 0:
		st = status.TooLarge
	}
	return st, "the prediction ran past equiv's limits where the gold did not (" + describeLimits(lim) +
		"): the search could not compare them, and a prediction that cannot be checked is not counted correct"
}

// describeLimits says which limits a query hit, for a verdict's detail.
func describeLimits(l Limits) string {
	var parts []string
	if l.Timeout > 0 {
		parts = append(parts, "timed out on "+databases(l.Timeout))
	}
	if l.TooLarge > 0 {
		parts = append(parts, "result too large on "+databases(l.TooLarge))
	}
	if l.Budget {
		parts = append(parts, "took most of the budget")
	}
	if l.Unstable > 0 {
		parts = append(parts, "its result on "+databases(l.Unstable)+" did not reproduce on the same rows")
	}
	return strings.Join(parts, "; ")
}

// databases says "1 database" or "n databases".
func databases(n int) string {
	if n == 1 {
		return "1 database"
	}
	return fmt.Sprintf("%d databases", n)
}

// tiebrokenAgree reports whether gold and pred, tiebroken as the proof's
// column map says (Tiebroken: every output appended to each top-level
// ORDER BY, the pred's in the gold's order), give the same result on the
// item's database under Spider's match: then the difference of their
// results there is the engine's choice among rows that tie, not the
// queries' doing.
func tiebrokenAgree(ctx context.Context, x *metric.Exec, it *bench.Item, gold string, proof *check.Certificate) bool {
	tg, tp, ok := Tiebroken(gold, it.Pred, proof)
	if !ok {
		return false
	}
	a, err := x.Gold(ctx, it.DBID, tg)
	if err != nil {
		return false
	}
	b, err := x.Pred(ctx, it.DBID, tp)
	if err != nil {
		return false
	}
	return result.SpiderEqual(a, b, sqllex.ContainsOrderBy(gold))
}

// itemDBWitness shrinks the item's database at path (at most suiteRows
// rows a table) into a witness between gold and pred; nil when the queries
// fail there or the part read does not tell them apart.
func (m *Metric) itemDBWitness(ctx context.Context, id, gold, pred, path string) *Witness {
	out, err := Decide(ctx, Pair{ID: id, Q1: gold, Q2: pred, DB: path}, Options{
		Sandbox: m.sb, Seed: m.o.Seed, Budget: m.o.Budget, MaxDatabases: 1,
		Rule: RuleSpider, SuiteFiles: []string{path}, Neighbours: -1, Assume: Assume(m.o.Assume), NoProof: true,
	})
	if err != nil {
		return nil
	}
	return recordWitness(out.Witness)
}

// MaxWitnessSQL is the longest witness SQL, in bytes, the equiv and
// verdict metrics keep in a verdict (a record of results.jsonl, an item of
// serve's response): 64 KiB, seven times the CREATE TABLE statements of
// Spider's largest schema (baseball_1, 9.1 kB) with room for its rows. A
// longer one (a schema of hundreds of columns, values of kilobytes from
// the database or from a query's literals) would make one record as large
// as a query's text or a database's values allow; its results and row
// count stay, Witness.SQLOmitted says its length.
const MaxWitnessSQL = 64 << 10

// recordWitness returns w as a verdict keeps it: its SQL left out when
// longer than MaxWitnessSQL (a copy; w is not changed).
func recordWitness(w *Witness) *Witness {
	if w == nil || len(w.SQL) <= MaxWitnessSQL {
		return w
	}
	c := *w
	c.SQL, c.SQLOmitted = "", len(w.SQL)
	return &c
}

// suiteFiles lists the suite's databases for db_id, the item's own
// database left out, by name.
func (m *Metric) suiteFiles(dbID string) []string {
	if m.o.Suite == "" {
		return nil
	}
	entries, err := os.ReadDir(filepath.Join(m.o.Suite, dbID))
	if err != nil {
		return nil
	}
	var out []string
	for _, e := range entries {
		if e.IsDir() || !strings.HasSuffix(e.Name(), ".sqlite") || e.Name() == dbID+".sqlite" {
			continue
		}
		out = append(out, filepath.Join(m.o.Suite, dbID, e.Name()))
	}
	slices.Sort(out)
	return out
}

// suiteRows bounds the rows read from each table of a suite database.
const suiteRows = 200

// readSQLiteData reads the rows of every table of s from the SQLite file
// at path (at most suiteRows a table, values coerced to the columns'
// kinds); a table the file lacks stays empty.
func readSQLiteData(ctx context.Context, eng *sqlite.Engine, path string, s *schema) (Data, error) {
	db := make(Data, len(s.Tables))
	for ti, t := range s.Tables {
		cols := make([]string, len(t.Columns))
		for i, c := range t.Columns {
			cols[i] = engine.SQLite.QuoteIdent(c.Name)
		}
		q := fmt.Sprintf("SELECT %s FROM %s LIMIT %d", strings.Join(cols, ", "), engine.SQLite.QuoteIdent(t.Name), suiteRows)
		set, err := eng.QueryFile(ctx, path, q)
		if err != nil {
			continue
		}
		for _, r := range set.Rows {
			row := make([]result.Value, len(r))
			for i, v := range r {
				if cv, ok := coerce(v, t.Columns[i]); ok {
					row[i] = cv
				}
			}
			db[ti] = append(db[ti], row)
		}
	}
	return db, nil
}
