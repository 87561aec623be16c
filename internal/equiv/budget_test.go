package equiv

import (
	"context"
	"encoding/json"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/sqljudge/sqljudge/internal/engine"
	"github.com/sqljudge/sqljudge/internal/result"
	"github.com/sqljudge/sqljudge/internal/sandbox"
	pgsb "github.com/sqljudge/sqljudge/internal/sandbox/postgres"
	sqlitesb "github.com/sqljudge/sqljudge/internal/sandbox/sqlite"
	"github.com/sqljudge/sqljudge/internal/testserver"
)

// slowSandbox wraps a sandbox to play a slower machine: every Load of its
// scratch databases waits loadDelay first, and the Open numbered slowOpen
// (1 for the first) waits openDelay, or until ctx ends.
type slowSandbox struct {
	sandbox.Sandbox
	loadDelay time.Duration
	slowOpen  int64
	openDelay time.Duration
	opens     atomic.Int64
}

func (s *slowSandbox) Open(ctx context.Context, ddl []string) (sandbox.Scratch, error) {
	if s.opens.Add(1) == s.slowOpen {
		select {
		case <-time.After(s.openDelay):
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	sc, err := s.Sandbox.Open(ctx, ddl)
	if err != nil {
		return nil, err
	}
	return slowScratch{sc, s.loadDelay}, nil
}

type slowScratch struct {
	sandbox.Scratch
	delay time.Duration
}

func (sc slowScratch) Load(ctx context.Context, tables []sandbox.TableRows) error {
	time.Sleep(sc.delay)
	return sc.Scratch.Load(ctx, tables)
}

func (sc slowScratch) Query(ctx context.Context, q string) (*result.Set, error) {
	return sc.Scratch.Query(ctx, q)
}

// TestSameOutcomeOnASlowMachine: with the default options, the database
// and shrinking caps end a pair, not the clock, so a machine where every
// database costs 15ms more (600 databases: 9s more) gives the same
// record, byte for byte, for an equivalent pair (searched to its cap) and
// an inequivalent one (searched, shrunk and re-verified).
func TestSameOutcomeOnASlowMachine(t *testing.T) {
	t.Parallel()
	pairs := []Pair{
		{ID: "equivalent_bounded", Q1: "SELECT x FROM t WHERE y = y", Q2: "SELECT x FROM t", Schema: "CREATE TABLE t (x INT PRIMARY KEY, y INT NOT NULL)"},
		{ID: "inequivalent", Q1: "SELECT x FROM t WHERE y > 2", Q2: "SELECT x FROM t WHERE y >= 2 AND x <> y", Schema: "CREATE TABLE t (x INT PRIMARY KEY, y INT)"},
	}
	for _, p := range pairs {
		var got [2][]byte
		for i, delay := range []time.Duration{0, 15 * time.Millisecond} {
			sb := &slowSandbox{Sandbox: newSQLite(t), loadDelay: delay}
			out, err := Decide(context.Background(), p, Options{NoProof: true, Sandbox: sb, Seed: 1})
			if err != nil {
				t.Fatal(err)
			}
			if out.Search.BudgetExhausted {
				t.Fatalf("%s, %v a database: the budget ended the search: %+v", p.ID, delay, out.Search)
			}
			got[i], _ = json.Marshal(out)
		}
		if string(got[0]) != string(got[1]) {
			t.Errorf("%s: a slower machine changed the outcome:\n%s\n%s", p.ID, got[0], got[1])
		}
		if want := `"verdict":"` + p.ID + `"`; !strings.Contains(string(got[0]), want) {
			t.Errorf("%s: %s", p.ID, got[0])
		}
	}
}

// TestBudgetExhaustedIsSaid: when the budget ends the search before its
// cap, the record says so.
func TestBudgetExhaustedIsSaid(t *testing.T) {
	sb := &slowSandbox{Sandbox: newSQLite(t), loadDelay: 10 * time.Millisecond}
	out, err := Decide(context.Background(), Pair{Q1: "SELECT x FROM t", Q2: "SELECT x FROM t WHERE x = x", Schema: "CREATE TABLE t (x INT NOT NULL)"},
		Options{NoProof: true, Sandbox: sb, Seed: 1, Budget: 300 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	if !out.Search.BudgetExhausted || out.Search.Databases >= out.Search.MaxDatabases {
		t.Fatalf("the budget ended the search, the record does not say so: %+v", out.Search)
	}
}

// TestPostgresVerificationHasItsOwnTime: the re-verification of a witness
// on PostgreSQL creates a fresh database, which takes long on a loaded
// server; here that CREATE DATABASE (the sandbox's second Open) is made
// to take longer than the whole budget, and the witness must still be
// re-verified and kept.
func TestPostgresVerificationHasItsOwnTime(t *testing.T) {
	server := testserver.Postgres(t)
	pg, err := pgsb.New(context.Background(), server, true)
	if err != nil {
		t.Fatal(err)
	}
	defer pg.Close()
	budget := 2 * time.Second
	sb := &slowSandbox{Sandbox: pg, slowOpen: 2, openDelay: budget + 500*time.Millisecond}
	out, err := Decide(context.Background(), Pair{Q1: "SELECT x FROM t WHERE x > 1", Q2: "SELECT x FROM t WHERE x >= 1", Schema: "CREATE TABLE t (x INT PRIMARY KEY)"},
		Options{NoProof: true, Sandbox: sb, Seed: 1, Budget: budget})
	if err != nil {
		t.Fatal(err)
	}
	if out.Verdict != Inequivalent || out.Witness == nil || out.Witness.Rows != 1 {
		t.Fatalf("got %s (%s), want the 1-row witness re-verified", out.Verdict, out.Reason)
	}
	if sb.opens.Load() != 2 {
		t.Fatalf("%d databases opened, want 2 (the search's, the re-verification's)", sb.opens.Load())
	}
}

// TestSummaryCountsBudgetExhausted: summary.json and the console count the
// pairs the budget stopped, whose records may differ from run to run.
func TestSummaryCountsBudgetExhausted(t *testing.T) {
	recs := []Record{
		{ID: "a", Outcome: Outcome{Verdict: EquivalentBounded, Search: Search{BudgetExhausted: true}}},
		{ID: "b", Outcome: Outcome{Verdict: EquivalentBounded}},
		{ID: "c", Outcome: Outcome{Verdict: Unknown, Search: Search{BudgetExhausted: true}}},
	}
	sum := summarize(CommandOptions{MaxDatabases: 600}, "sqlite", recs, nil, 0, 0)
	if sum.BudgetExhausted != 2 {
		t.Fatalf("budget_exhausted %d, want 2", sum.BudgetExhausted)
	}
	var b strings.Builder
	sum.print(&b)
	if !strings.Contains(b.String(), "budget ended the search of 2 pairs") {
		t.Fatalf("the console does not count them:\n%s", b.String())
	}
	sum = summarize(CommandOptions{MaxDatabases: 600}, "sqlite", recs[1:2], nil, 0, 0)
	b.Reset()
	sum.print(&b)
	if sum.BudgetExhausted != 0 || strings.Contains(b.String(), "budget ended") {
		t.Fatalf("no pair stopped, yet: %d\n%s", sum.BudgetExhausted, b.String())
	}
}

// TestQueryTimeoutIsSaid: a query stopped by its own timeout (a
// recursive count to ten million per row of t: instant on the empty
// database, past any 50 ms on every other, whatever rows the search's
// phases draw) might have run on a faster machine, so the record says
// budget_exhausted even though the database cap, not the budget, ended
// the search.
func TestQueryTimeoutIsSaid(t *testing.T) {
	q := "WITH RECURSIVE c(n) AS (SELECT 0 UNION ALL SELECT n + 1 FROM c WHERE n < (SELECT count(*) FROM t) * 10000000) SELECT count(*) FROM c WHERE n >= 0"
	out, err := Decide(context.Background(), Pair{Q1: q, Q2: q + " AND 1 = 1", Schema: "CREATE TABLE t (x INT)"},
		Options{NoProof: true, Sandbox: newSQLite(t), Seed: 1, MaxDatabases: 30, QueryTimeout: 50 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	if out.Search.Databases+out.Search.Skipped != 30 || out.Search.Skipped == 0 {
		t.Fatalf("want the cap reached with databases skipped by a timeout: %+v", out.Search)
	}
	if !out.Search.BudgetExhausted {
		t.Fatalf("queries ran into their timeout, the record does not say so: %+v", out.Search)
	}
}

// timeoutOnOpen wraps a sandbox so that every query on the n-th database
// opened fails as a query past its timeout does.
type timeoutOnOpen struct {
	sandbox.Sandbox
	n     int64
	opens atomic.Int64
}

func (s *timeoutOnOpen) Open(ctx context.Context, ddl []string) (sandbox.Scratch, error) {
	sc, err := s.Sandbox.Open(ctx, ddl)
	if err != nil || s.opens.Add(1) != s.n {
		return sc, err
	}
	return timeoutScratch{sc}, nil
}

type timeoutScratch struct{ sandbox.Scratch }

func (timeoutScratch) Query(context.Context, string) (*result.Set, error) {
	return nil, &engine.QueryError{Err: engine.ErrTimeout}
}

// TestVerificationTimeoutIsNotABug: when a query times out on the fresh
// database of the re-verification (the second opened), the pair is
// unknown with that reason and budget_exhausted, not "internal error: the
// witness does not reproduce", which would claim a bug of the search.
func TestVerificationTimeoutIsNotABug(t *testing.T) {
	sq, err := sqlitesb.New(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer sq.Close()
	out, err := Decide(context.Background(), Pair{Q1: "SELECT x FROM t WHERE x > 1", Q2: "SELECT x FROM t WHERE x >= 1", Schema: "CREATE TABLE t (x INT PRIMARY KEY)"},
		Options{NoProof: true, Sandbox: &timeoutOnOpen{Sandbox: sq, n: 2}, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	if out.Verdict != Unknown || !strings.Contains(out.Reason, "stopped at a query's limit (timeout") || !out.Search.BudgetExhausted {
		t.Fatalf("got %s (%s), budget_exhausted %v", out.Verdict, out.Reason, out.Search.BudgetExhausted)
	}
}

// TestSummaryWithoutWitnesses: a run that refutes no pair says so on the
// console instead of "witness rows: median 0, max 0", which reads as
// witnesses of no rows; with witnesses it says how many the figures cover.
func TestSummaryWithoutWitnesses(t *testing.T) {
	var b strings.Builder
	summarize(CommandOptions{MaxDatabases: 600}, "sqlite", []Record{{ID: "a", Outcome: Outcome{Verdict: EquivalentBounded}}}, nil, 0, 0).print(&b)
	if !strings.Contains(b.String(), "witness rows: no witness (no pair inequivalent)") || strings.Contains(b.String(), "witness rows: median") {
		t.Fatalf("console:\n%s", b.String())
	}
	b.Reset()
	w := &Witness{Rows: 2}
	summarize(CommandOptions{MaxDatabases: 600}, "sqlite", []Record{{ID: "a", Outcome: Outcome{Verdict: Inequivalent, Witness: w}}}, nil, 0, 0).print(&b)
	if !strings.Contains(b.String(), "witness rows: median 2, max 2 (of 1 witnesses)") {
		t.Fatalf("console:\n%s", b.String())
	}
}

// TestLimitsNameTheQuery: a query that never ends on the scratch databases
// (a recursive CTE without a bound joined in) while the other runs is
// named in Search.Limited: by its query timeouts, counted where the other
// query ran, or, when its first run outlasts the whole budget, as the query
// that took it. The other query's Limits stay empty, and no neighbour is
// prepared once the query has failed everywhere.
func TestLimitsNameTheQuery(t *testing.T) {
	pair := Pair{Q1: "SELECT x FROM t", Schema: "CREATE TABLE t (x INT)",
		Q2: "WITH RECURSIVE pad(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM pad) SELECT x FROM t, (SELECT max(n) FROM pad)"}
	out, err := Decide(context.Background(), pair, Options{Sandbox: newSQLite(t), Seed: 1, QueryTimeout: 100 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	if want := (Limited{Q2: Limits{Timeout: 4}}); out.Verdict != Unknown || out.Search.Limited != want || out.Search.Neighbours != 0 {
		t.Fatalf("got %s, limited %+v, %d neighbours; want unknown, %+v, none", out.Verdict, out.Search.Limited, out.Search.Neighbours, want)
	}
	out, err = Decide(context.Background(), pair, Options{Sandbox: newSQLite(t), Seed: 1, Budget: time.Second, QueryTimeout: time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	if want := (Limited{Q2: Limits{Budget: true}}); !out.Search.BudgetExhausted || out.Search.Limited != want {
		t.Fatalf("got limited %+v (budget exhausted: %v); want %+v", out.Search.Limited, out.Search.BudgetExhausted, want)
	}
	b, _ := json.Marshal(out.Search)
	if !strings.Contains(string(b), `"limited":{"q2":{"budget":true}}`) {
		t.Fatalf("the record does not say it: %s", b)
	}
}
