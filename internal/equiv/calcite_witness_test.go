package equiv_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/sqljudge/sqljudge/internal/engine/postgres"
	"github.com/sqljudge/sqljudge/internal/equiv"
	"github.com/sqljudge/sqljudge/internal/result"
	"github.com/sqljudge/sqljudge/internal/sandbox"
	mysqlsb "github.com/sqljudge/sqljudge/internal/sandbox/mysql"
	pgsb "github.com/sqljudge/sqljudge/internal/sandbox/postgres"
	"github.com/sqljudge/sqljudge/internal/testserver"
)

// calciteSample is the sample of Calcite pairs the witness test searches:
// the four VeriEQL refutes (13, 166, 245, 326) and pairs spread over the
// file (every 80th).
func calciteSample(pairs []calcitePair) []calcitePair {
	want := map[string]bool{"calcite-13": true, "calcite-166": true, "calcite-245": true, "calcite-326": true}
	var out []calcitePair
	for i, p := range pairs {
		if want[p.ID] || i%80 == 0 {
			out = append(out, p)
		}
	}
	return out
}

// witnessCheck re-runs witnesses from their SQL alone, on a fresh database
// of the PostgreSQL test server created for each (not by equiv's sandbox).
type witnessCheck struct {
	server string
	eng    *postgres.Engine
}

func newWitnessCheck(t *testing.T) *witnessCheck {
	server := testserver.Postgres(t)
	eng, err := postgres.New(server, postgres.Options{AllowSuperuser: true, StatementTimeout: 10 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { eng.Close() })
	return &witnessCheck{server: server, eng: eng}
}

// differs builds the witness database from sql, runs q1 and q2 on it and
// reports an error unless both run and their results differ as bags (as
// lists when ordered).
func (c *witnessCheck) differs(t *testing.T, id, sql, q1, q2 string, ordered bool) error {
	t.Helper()
	name := strings.TrimSuffix(testserver.Name("sqljudge_witness_"), "_")
	conn := testserver.CreatePostgresDB(t, c.server, name)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if _, err := conn.Exec(ctx, sql); err != nil {
		return fmt.Errorf("%s: the witness SQL does not run: %v", id, err)
	}
	var sets [2]*result.Set
	for i, q := range []string{q1, q2} {
		s, err := c.eng.Query(ctx, name, q)
		if err != nil {
			return fmt.Errorf("%s: q%d fails on the witness: %v", id, i+1, err)
		}
		sets[i] = s
	}
	if sameResult(sets[0], sets[1], ordered) {
		return fmt.Errorf("%s: false witness: both queries return %d equal rows on\n%s", id, len(sets[0].Rows), sql)
	}
	return nil
}

// sameResult compares two results column by position, rows as a multiset
// (in order when ordered), cells by result.RowKey: the pair rule of
// equiv (RuleBag), written again here.
func sameResult(a, b *result.Set, ordered bool) bool {
	if len(a.Columns) != len(b.Columns) || len(a.Rows) != len(b.Rows) {
		return false
	}
	count := map[string]int{}
	for i := range a.Rows {
		ka, kb := result.RowKey(a.Rows[i]), result.RowKey(b.Rows[i])
		if ordered && ka != kb {
			return false
		}
		count[ka]++
		count[kb]--
	}
	for _, n := range count {
		if n != 0 {
			return false
		}
	}
	return true
}

// TestCalciteWitnessesReproduce searches a sample of the Calcite pairs on
// PostgreSQL and re-runs every witness found from its SQL alone on a fresh
// database: each must show the difference (zero false witnesses). With
// $SQLJUDGE_CALCITE_RESULTS naming the results.jsonl of a full
// `sqljudge equiv` run on testdata/calcite/pairs.jsonl, every witness of
// that run is re-run too.
func TestCalciteWitnessesReproduce(t *testing.T) {
	check := newWitnessCheck(t)
	pairs := loadCalcite(t)
	sb, err := pgsb.New(context.Background(), check.server, true)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { sb.Close() })
	found := 0
	for _, p := range calciteSample(pairs) {
		out, err := equiv.Decide(context.Background(), equiv.Pair{ID: p.ID, Q1: p.Q1, Q2: p.Q2, Schema: p.Schema},
			equiv.Options{NoProof: true, Sandbox: sb, Seed: 1, Budget: 3 * time.Second})
		if err != nil {
			t.Fatalf("%s: %v", p.ID, err)
		}
		if out.Verdict != equiv.Inequivalent {
			continue
		}
		found++
		if err := check.differs(t, p.ID, out.Witness.SQL, p.Q1, p.Q2, strings.Contains(out.Rule, "order")); err != nil {
			t.Error(err)
		}
	}
	if found == 0 {
		t.Fatal("no witness in the sample: the test checked nothing")
	}
	t.Logf("%d witnesses re-run from their SQL alone", found)
	if path := os.Getenv("SQLJUDGE_CALCITE_RESULTS"); path != "" {
		recheckRun(t, check, pairs, path)
	}
}

// runRecord is the part of a results.jsonl record the recheck reads.
type runRecord struct {
	ID      string          `json:"id"`
	Verdict string          `json:"verdict"`
	Witness *equiv.Witness  `json:"witness"`
	Rule    string          `json:"rule"`
	Search  json.RawMessage `json:"search"`
}

func recheckRun(t *testing.T, check *witnessCheck, pairs []calcitePair, path string) {
	byID := map[string]calcitePair{}
	for _, p := range pairs {
		byID[p.ID] = p
	}
	n := 0
	for _, r := range readRunRecords(t, path) {
		if r.Verdict != string(equiv.Inequivalent) {
			continue
		}
		p, ok := byID[r.ID]
		if !ok || r.Witness == nil {
			t.Errorf("%s: %s: an inequivalent record without its pair or witness", path, r.ID)
			continue
		}
		n++
		if err := check.differs(t, r.ID, r.Witness.SQL, p.Q1, p.Q2, strings.Contains(r.Rule, "order")); err != nil {
			t.Error(err)
		}
	}
	t.Logf("%s: %d witnesses re-run from their SQL alone", path, n)
}

func readRunRecords(t *testing.T, path string) []runRecord {
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var out []runRecord
	for i, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		var r runRecord
		if err := json.Unmarshal([]byte(line), &r); err != nil {
			t.Fatalf("%s:%d: %v", path, i+1, err)
		}
		out = append(out, r)
	}
	return out
}

// BenchmarkCalcite decides Calcite pairs on PostgreSQL with the CLI's
// defaults (600 databases, 1m budget as a safety net, seed 1), one pair
// per iteration in file order:
// ns/op is the time per pair; inequivalent/op the share refuted. Run with
// -benchtime=Nx to decide the first N pairs.
func BenchmarkCalcite(b *testing.B) {
	server := testserver.Postgres(b)
	sb, err := pgsb.New(context.Background(), server, true)
	if err != nil {
		b.Fatal(err)
	}
	defer sb.Close()
	benchCalcite(b, sb)
}

// BenchmarkCalciteMySQL is BenchmarkCalcite on the MariaDB test server.
func BenchmarkCalciteMySQL(b *testing.B) {
	server := testserver.MySQL(b)
	sb, err := mysqlsb.New(context.Background(), server, true)
	if err != nil {
		b.Fatal(err)
	}
	defer sb.Close()
	benchCalcite(b, sb)
}

// benchCalcite decides the first b.N Calcite pairs in sb (see
// BenchmarkCalcite).
func benchCalcite(b *testing.B, sb sandbox.Sandbox) {
	pairs := loadCalcite(b)
	refuted := 0
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		p := pairs[i%len(pairs)]
		out, err := equiv.Decide(context.Background(), equiv.Pair{ID: p.ID, Q1: p.Q1, Q2: p.Q2, Schema: p.Schema},
			equiv.Options{NoProof: true, Sandbox: sb, Seed: 1})
		if err != nil {
			b.Fatalf("%s: %v", p.ID, err)
		}
		if out.Verdict == equiv.Inequivalent {
			refuted++
		}
	}
	b.ReportMetric(float64(refuted)/float64(b.N), "inequivalent/op")
}

// TestCalciteTiesAreNoWitness: pairs 100, 163, 164 and 165 differ only in
// which of the rows tying on the ORDER BY key come first, or are kept by a
// FETCH (PostgreSQL's hash join and sort return ties in an order of their
// own). Before ties were broken (tiesExplain), each got a "witness" of 3
// rows; none is a difference of the queries, so none may be refuted. Pair
// 166, a real difference under an ORDER BY, must stay refuted.
func TestCalciteTiesAreNoWitness(t *testing.T) {
	check := newWitnessCheck(t)
	sb, err := pgsb.New(context.Background(), check.server, true)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { sb.Close() })
	want := map[string]equiv.Verdict{"calcite-100": equiv.EquivalentBounded, "calcite-163": equiv.EquivalentBounded,
		"calcite-164": equiv.EquivalentBounded, "calcite-165": equiv.EquivalentBounded, "calcite-166": equiv.Inequivalent}
	for _, p := range loadCalcite(t) {
		w, ok := want[p.ID]
		if !ok {
			continue
		}
		out, err := equiv.Decide(context.Background(), equiv.Pair{ID: p.ID, Q1: p.Q1, Q2: p.Q2, Schema: p.Schema},
			equiv.Options{NoProof: true, Sandbox: sb, Seed: 1, Budget: 4 * time.Second})
		if err != nil {
			t.Fatalf("%s: %v", p.ID, err)
		}
		if out.Verdict != w {
			t.Errorf("%s: %s (%s), want %s; witness %+v", p.ID, out.Verdict, out.Reason, w, out.Witness)
		}
		delete(want, p.ID)
	}
	if len(want) != 0 {
		t.Fatalf("pairs not in testdata: %v", want)
	}
}

// TestCalcite195RefutedSmall: Calcite pair 195 (a correlated IN subquery
// against Calcite's LATERAL plan of it; q1's subquery binds DEPTNO to its
// own EMP, so q1 is always empty) differs on two departments with one
// employee each, of the same salary, the second's department numbered
// higher: equal values across rows, which independent draws from the
// value pools rarely give. Values already placed in the database are now
// drawn too (reuse.go), and the small databases find it: before, seed 1
// found it only at the 422nd database (a fuzzed one), 4 seeds of 10 past
// the 400th, too late for a 10s budget on PostgreSQL; now 9 of 10 find it
// among the small databases (seed 1 at the 156th).
func TestCalcite195RefutedSmall(t *testing.T) {
	check := newWitnessCheck(t)
	var p calcitePair
	for _, c := range loadCalcite(t) {
		if c.ID == "calcite-195" {
			p = c
		}
	}
	sb, err := pgsb.New(context.Background(), check.server, true)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { sb.Close() })
	out, err := equiv.Decide(context.Background(), equiv.Pair{ID: p.ID, Q1: p.Q1, Q2: p.Q2, Schema: p.Schema}, equiv.Options{NoProof: true, Sandbox: sb, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	if out.Verdict != equiv.Inequivalent {
		t.Fatalf("%s: %s (%s), want inequivalent; %+v", p.ID, out.Verdict, out.Reason, out.Search)
	}
	if last := out.Search.Phases[len(out.Search.Phases)-1]; last.Name != equiv.PhaseSmall {
		t.Errorf("%s: refuted in phase %s after %d databases, want among the small databases", p.ID, last.Name, out.Search.Databases)
	}
	if out.Witness.Rows != 4 {
		t.Errorf("%s: a witness of %d rows, want 4 (two departments, two employees)", p.ID, out.Witness.Rows)
	}
	if err := check.differs(t, p.ID, out.Witness.SQL, p.Q1, p.Q2, false); err != nil {
		t.Error(err)
	}
}
