package equiv

import (
	"context"
	"database/sql"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/sqljudge/sqljudge/internal/catalog"
	"github.com/sqljudge/sqljudge/internal/engine"
	pgeng "github.com/sqljudge/sqljudge/internal/engine/postgres"
	"github.com/sqljudge/sqljudge/internal/engine/sqlite"
	"github.com/sqljudge/sqljudge/internal/result"
	"github.com/sqljudge/sqljudge/internal/testserver"
)

// wrongProofsFile holds pairs whose proof was wrong (issue 37, R1-R17;
// D1, issue 40's FROM subqueries compared as tables):
// each a pair, its schema, the rows of a database on which the engine
// separates the two queries, and the root cause it shows. The soundness
// fuzzer and later attackers reuse it.
const wrongProofsFile = "testdata/wrong_proofs.jsonl"

// wrongProofCauses are the root causes wrongProofsFile must show, each
// by at least one pair.
var wrongProofCauses = []string{"R1", "R2", "R3", "R4", "R5", "R6", "R7", "R8", "R9", "R10", "R11", "R12", "R13", "R14", "R15", "R16", "R17"}

// wrongProof is one line of wrongProofsFile.
type wrongProof struct {
	// ID names the pair ("R1-order-expression").
	ID string `json:"id"`
	// Cause is the root cause it shows ("R1" ... "R17" of issue 37, "D1"
	// of a FROM subquery's column that PostgreSQL converts).
	Cause string `json:"cause"`
	// Engines are the engines whose semantics the pair is about and on
	// which Rows separate the queries: "sqlite", "postgres".
	Engines []string `json:"engines"`
	// Rule is the comparison rule ("bag" or "spider").
	Rule string `json:"rule"`
	// Schema is the DDL, run as written on the engine.
	Schema string `json:"schema"`
	Q1     string `json:"q1"`
	Q2     string `json:"q2"`
	// Rows are the statements (INSERTs) that fill the separating
	// database, run after Schema.
	Rows string `json:"rows"`
	// Note says what the engine does that the kernel did not model.
	Note string `json:"note"`
}

// readWrongProofs reads wrongProofsFile (readJSONL); a malformed line or
// one without every field fails the test with its number.
func readWrongProofs(t testing.TB) []wrongProof {
	t.Helper()
	out := readJSONL[wrongProof](t, wrongProofsFile)
	for n, w := range out {
		if w.ID == "" || w.Cause == "" || len(w.Engines) == 0 || w.Schema == "" || w.Q1 == "" || w.Q2 == "" || w.Rows == "" {
			t.Fatalf("%s: pair %d (%q): a field is missing", wrongProofsFile, n+1, w.ID)
		}
	}
	return out
}

// TestWrongProofsRefused: every pair of wrongProofsFile, on each of its
// engines, gets no proof (the prover's note says what stopped it), and
// the pair is no vacuous example: on the engine itself, the database of
// its Rows (its schema run as written) separates the two queries under
// its rule.
func TestWrongProofsRefused(t *testing.T) {
	z := z3Solver(t)
	pairs := readWrongProofs(t)
	causes := map[string]int{}
	var pgServer string
	for _, w := range pairs {
		for _, e := range w.Engines {
			d, ok := engine.ParseDialect(e)
			if !ok || d != engine.SQLite && d != engine.Postgres {
				t.Fatalf("%s: engine %q", w.ID, e)
			}
			if d == engine.Postgres && pgServer == "" {
				pgServer = testserver.Postgres(t)
			}
			t.Run(w.ID+"/"+e, func(t *testing.T) {
				causes[w.Cause]++
				db, err := catalog.ParseDDL(w.Schema)
				if err != nil {
					t.Fatalf("schema: %v", err)
				}
				prove := ProveQueries
				if d == engine.Postgres {
					prove = proveKernel // without a server to plan on, ProveQueries proves nothing there: the kernel must refuse it alone
				}
				cert, note := prove(context.Background(), w.Q1, w.Q2, db, d, Rule(w.Rule), z)
				if cert != nil || note.Result == ProverProved {
					t.Errorf("%s (%s): PROVED, the engine separates them\nq1: %s\nq2: %s", w.ID, w.Cause, w.Q1, w.Q2)
				} else if note.StoppedBy == "" {
					t.Errorf("%s: no proof but no stopped_by: %+v", w.ID, note)
				}
				r1, r2 := runSeparating(t, d, pgServer, w)
				c := newComparer(Rule(w.Rule), w.Q1, w.Q2)
				if c.equal(context.Background(), r1, r2) {
					t.Errorf("%s: the engine does not separate the queries on the database given: both return %v", w.ID, r1.Rows)
				}
				t.Logf("%s: prover %s (%s: %s); q1 %v, q2 %v", w.Cause, note.Result, note.StoppedBy, note.Detail, r1.Rows, r2.Rows)
			})
		}
	}
	for _, r := range wrongProofCauses {
		if causes[r] == 0 {
			t.Errorf("no pair shows %s", r)
		}
	}
}

// runSeparating builds the pair's database on engine d (its schema as
// written, then its rows) and returns both queries' results there.
func runSeparating(t *testing.T, d engine.Dialect, pgServer string, w wrongProof) (*result.Set, *result.Set) {
	t.Helper()
	ctx := context.Background()
	var run func(q string) (*result.Set, error)
	switch d {
	case engine.SQLite:
		path := filepath.Join(t.TempDir(), "wp.sqlite")
		raw, err := sql.Open("sqlite3", path)
		if err != nil {
			t.Fatal(err)
		}
		for _, stmt := range []string{w.Schema, w.Rows} {
			if _, err := raw.Exec(stmt); err != nil {
				t.Fatalf("%v\n%s", err, stmt)
			}
		}
		raw.Close()
		eng := sqlite.New("", sqlite.Options{})
		defer eng.Close()
		run = func(q string) (*result.Set, error) { return eng.QueryFile(ctx, path, q) }
	case engine.Postgres:
		name := testserver.Name("sjt_wp_")
		conn := testserver.CreatePostgresDB(t, pgServer, name)
		for _, stmt := range []string{w.Schema, w.Rows} {
			if _, err := conn.Exec(ctx, stmt); err != nil {
				t.Fatalf("%v\n%s", err, stmt)
			}
		}
		conn.Close(ctx)
		eng, err := pgeng.New(pgServer, pgeng.Options{AllowSuperuser: true})
		if err != nil {
			t.Fatal(err)
		}
		defer eng.Close()
		run = func(q string) (*result.Set, error) { return eng.Query(ctx, name, q) }
	}
	var out [2]*result.Set
	for i, q := range []string{w.Q1, w.Q2} {
		rs, err := run(q)
		if err != nil {
			t.Fatalf("q%d does not run on %s: %v\n%s", i+1, d, err, q)
		}
		out[i] = rs
	}
	return out[0], out[1]
}

// String prints a pair for messages.
func (w wrongProof) String() string { return fmt.Sprintf("%s (%s)", w.ID, w.Cause) }

// searchRefutesWrongProofs are pairs of wrongProofsFile the search alone
// (the prover off) refutes on SQLite since the classes behind them were
// fixed: text spelling a number in another form than the number's own
// ('05' against 5: numberSpellings), and an EXISTS operand's ORDER BY …
// LIMIT, which once stopped every witness as a possible tie (tiebreakAll);
// and NULL in a key column SQLite does not keep from it, an INTEGER
// PRIMARY KEY DESC among them (schema.nullableKeys, catalog's descKey).
var searchRefutesWrongProofs = []string{"R6-text-in-int", "R6-text-not-in-int", "R7-in-subquery-affinity", "R7-not-in-subquery-tie-hatch", "R1-order-expression-tie-hatch",
	"R13-integer-primary-key-desc", "R13-distinct-key"}

// TestSearchRefutesWrongProofs: each pair of searchRefutesWrongProofs is
// refuted on SQLite by the search alone, the witness re-verified from its
// SQL alone.
func TestSearchRefutesWrongProofs(t *testing.T) {
	byID := map[string]wrongProof{}
	for _, w := range readWrongProofs(t) {
		byID[w.ID] = w
	}
	for _, id := range searchRefutesWrongProofs {
		w, ok := byID[id]
		if !ok {
			t.Fatalf("%s: not in %s", id, wrongProofsFile)
		}
		t.Run(id, func(t *testing.T) {
			out := searchAlone(t, w)
			if out.Verdict != Inequivalent {
				t.Fatalf("verdict %s (%s), want inequivalent; search %+v", out.Verdict, out.Reason, out.Search)
			}
			reverifySQLite(t, out.Witness, w.Q1, w.Q2)
		})
	}
}

// searchAlone decides w on SQLite with the search alone: the prover off,
// seed 1, the CLI's defaults (the test and the benchmark of the pairs
// whose proof was wrong).
func searchAlone(tb testing.TB, w wrongProof) Outcome {
	tb.Helper()
	out, err := Decide(context.Background(), Pair{ID: w.ID, Q1: w.Q1, Q2: w.Q2, Schema: w.Schema},
		Options{NoProof: true, Rule: Rule(w.Rule), Sandbox: newSQLite(tb), Seed: 1, Budget: 60 * time.Second})
	if err != nil {
		tb.Fatal(err)
	}
	return out
}

// BenchmarkWrongProofsSearch decides every SQLite pair of wrongProofsFile
// with the search alone (the prover off; seed 1, the CLI's defaults), one
// pair per iteration in file order (-benchtime 42x for all), re-verifies
// each witness, and logs the pairs not refuted: the measure of issue 38's
// "refuted by the search alone".
func BenchmarkWrongProofsSearch(b *testing.B) {
	var pairs []wrongProof
	for _, w := range readWrongProofs(b) {
		if slices.Contains(w.Engines, "sqlite") {
			pairs = append(pairs, w)
		}
	}
	refuted := 0
	var missed []string
	for i := 0; i < b.N; i++ {
		w := pairs[i%len(pairs)]
		out := searchAlone(b, w)
		if out.Verdict == Inequivalent {
			reverifySQLite(b, out.Witness, w.Q1, w.Q2)
			refuted++
		} else {
			missed = append(missed, w.ID)
		}
	}
	b.ReportMetric(float64(refuted)/float64(b.N), "refuted/op")
	b.Logf("refuted by the search alone: %d of %d; not refuted: %s", refuted, b.N, strings.Join(missed, " "))
}
