package equiv

import (
	"bufio"
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	_ "github.com/mattn/go-sqlite3" // to write each label's database

	"github.com/sqljudge/sqljudge/internal/engine"
	"github.com/sqljudge/sqljudge/internal/engine/sqlite"
	"github.com/sqljudge/sqljudge/internal/prove/check"
	"github.com/sqljudge/sqljudge/internal/result"
	"github.com/sqljudge/sqljudge/internal/sandbox"
)

// birdDir holds the BIRD-style evaluation set (testdata/bird/README.md).
const birdDir = "testdata/bird"

// birdLabel is one line of labels.jsonl: the separating database of a
// kind-(a) pair, as INSERT statements in the pair's schema.
type birdLabel struct {
	ID         string `json:"id"`
	Kind       string `json:"kind"`
	DBID       string `json:"db_id"`
	QuestionID int    `json:"question_id"`
	Database   string `json:"database"`
}

// readBIRDLabels reads labels.jsonl, strictly (readJSONL).
func readBIRDLabels(t testing.TB) []birdLabel {
	t.Helper()
	return readJSONL[birdLabel](t, filepath.Join(birdDir, "labels.jsonl"))
}

// TestBIRDSetShape checks the committed set against what its README
// claims: at least 300 kind-(a) pairs over the 11 BIRD mini-dev databases,
// one label each (and no label without a pair), every pair's DDL read by
// the search, and at least 200 kind-(b) pairs.
func TestBIRDSetShape(t *testing.T) {
	pairs, err := ReadPairs(filepath.Join(birdDir, "pairs.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	labels := readBIRDLabels(t)
	byID := map[string]PairLine{}
	for _, p := range pairs {
		byID[p.ID] = p
	}
	dbs, kinds := map[string]int{}, map[string]int{}
	for _, l := range labels {
		if _, ok := byID[l.ID]; !ok {
			t.Errorf("label %s has no pair", l.ID)
		}
		delete(byID, l.ID)
		dbs[l.DBID]++
		kinds[l.Kind]++
	}
	for id := range byID {
		t.Errorf("pair %s has no label", id)
	}
	if len(pairs) < 300 || len(dbs) != 11 {
		t.Errorf("%d kind-(a) pairs over %d databases, want at least 300 over 11", len(pairs), len(dbs))
	}
	preds, err := ReadPairs(filepath.Join(birdDir, "predictions.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	if len(preds) < 200 {
		t.Errorf("%d kind-(b) pairs, want at least 200", len(preds))
	}
	for _, p := range append(pairs, preds...) {
		s := &searcher{p: Pair{ID: p.ID, Q1: p.Q1, Q2: p.Q2, Schema: p.Schema}}
		if err := s.loadSchema(context.Background()); err != nil {
			t.Errorf("pair %s: %v", p.ID, err)
		}
	}
	t.Logf("%d kind-(a) pairs: %v; databases %v; %d kind-(b) pairs", len(pairs), kinds, dbs, len(preds))
}

// TestBIRDLabelsSeparate checks every kind-(a) label: its database is one
// of the pair's schema as the search understands it (each value of its
// column's family, every key, NOT NULL and foreign key kept), and the two
// queries differ on it by the search's own rule, with the rows in either
// order and after every ORDER BY is tiebroken (searcher.try, robust). So
// each pair is separable: its label is checked, not asserted.
func TestBIRDLabelsSeparate(t *testing.T) {
	pairs, err := ReadPairs(filepath.Join(birdDir, "pairs.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	byID := map[string]PairLine{}
	for _, p := range pairs {
		byID[p.ID] = p
	}
	sb := newSQLite(t)
	eng := sqlite.New("", sqlite.Options{MaxConns: 1})
	defer eng.Close()
	ctx := context.Background()
	for _, l := range readBIRDLabels(t) {
		p, ok := byID[l.ID]
		if !ok {
			continue // TestBIRDSetShape reports it
		}
		if err := labelSeparates(ctx, t, sb, eng, p, l); err != nil {
			t.Errorf("pair %s (%s): %v", l.ID, l.Kind, err)
		}
	}
}

// TestBIRDWitnessesHold decides every 25th kind-(a) pair (13 of them) at
// the search's defaults on SQLite, without the prover, and re-runs each
// witness found from its SQL alone on a fresh SQLite file
// (reverifySQLite): zero false witnesses. It asserts no recall: the
// figure is BenchmarkBIRD's (docs/equiv.md), and only that some pair of
// the sample is refuted, or the test would check nothing.
func TestBIRDWitnessesHold(t *testing.T) {
	pairs, err := ReadPairs(filepath.Join(birdDir, "pairs.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	sb := newSQLite(t)
	found := 0
	for i := 0; i < len(pairs); i += 25 {
		p := pairs[i]
		out, err := Decide(context.Background(), Pair{ID: p.ID, Q1: p.Q1, Q2: p.Q2, Schema: p.Schema}, Options{Sandbox: sb, Seed: 1, NoProof: true})
		if err != nil {
			t.Fatalf("%s: %v", p.ID, err)
		}
		if out.Verdict == Inequivalent {
			found++
			reverifySQLite(t, out.Witness, p.Q1, p.Q2)
		}
	}
	if found == 0 {
		t.Fatal("no pair of the sample refuted: the test checked no witness")
	}
	t.Logf("%d witnesses re-run from their SQL alone", found)
}

// labelSeparates builds the searcher of the pair, reads the label's
// database into its data model and tries it as the search would.
func labelSeparates(ctx context.Context, t *testing.T, sb sandbox.Sandbox, eng *sqlite.Engine, p PairLine, l birdLabel) error {
	o := Options{Sandbox: sb, Seed: 1, NoProof: true}
	o.defaults()
	s := &searcher{o: o, p: Pair{ID: p.ID, Q1: p.Q1, Q2: p.Q2, Schema: p.Schema}, cmp: newComparer(RuleBag, p.Q1, p.Q2), tieSensitive: tieSensitive(p.Q1) || tieSensitive(p.Q2)}
	if err := s.loadSchema(ctx); err != nil {
		return err
	}
	s.schema.dialect = engine.SQLite
	db, err := labelData(ctx, t, eng, s.schema, l.Database)
	if err != nil {
		return err
	}
	if repaired := s.schema.repair(db); repaired.Rows() != db.Rows() || !s.schema.admits(db) {
		return fmt.Errorf("the database breaks a key, NOT NULL or foreign key of the schema (%d of its %d rows keep them)", repaired.Rows(), db.Rows())
	}
	if s.sc, err = s.o.Sandbox.Open(ctx, s.schema.CreateStatements(engine.SQLite)); err != nil {
		return err
	}
	defer s.sc.Close()
	if !s.try(ctx, db, false) {
		r, _ := s.runBoth(ctx, db)
		return fmt.Errorf("q1 and q2 do not differ on it (q1 %s, q2 %s; failures %v)", resultText(r[0]), resultText(r[1]), s.msg)
	}
	return nil
}

// labelData writes the label's database into a SQLite file made from the
// schema's own CREATE statements and reads it back into the search's data
// model, each value coerced to its column's family as the search holds
// values: a value the search could not hold is an error.
func labelData(ctx context.Context, t *testing.T, eng *sqlite.Engine, s *schema, inserts string) (Data, error) {
	path := filepath.Join(t.TempDir(), "label.sqlite")
	w, err := sql.Open("sqlite3", path)
	if err != nil {
		return nil, err
	}
	for _, stmt := range append(s.CreateStatements(engine.SQLite), strings.Split(inserts, "\n")...) {
		if strings.TrimSpace(stmt) == "" {
			continue
		}
		if _, err := w.ExecContext(ctx, stmt); err != nil {
			w.Close()
			return nil, fmt.Errorf("%s: %w", stmt, err)
		}
	}
	if err := w.Close(); err != nil {
		return nil, err
	}
	db := make(Data, len(s.Tables))
	for ti, tb := range s.Tables {
		cols := make([]string, len(tb.Columns))
		for i, c := range tb.Columns {
			cols[i] = engine.SQLite.QuoteIdent(c.Name)
		}
		set, err := eng.QueryFile(ctx, path, fmt.Sprintf("SELECT %s FROM %s ORDER BY rowid", strings.Join(cols, ", "), engine.SQLite.QuoteIdent(tb.Name)))
		if err != nil {
			return nil, err
		}
		for _, r := range set.Rows {
			row := make([]result.Value, len(r))
			for i, v := range r {
				cv, ok := coerce(v, tb.Columns[i])
				if !ok {
					return nil, fmt.Errorf("%s.%s holds %v, which the search cannot hold in a column of type %s", tb.Name, tb.Columns[i].Name, v, tb.Columns[i].Type)
				}
				row[i] = cv
			}
			db[ti] = append(db[ti], row)
		}
	}
	return db, nil
}

// resultText prints a result for a message.
func resultText(r *result.Set) string {
	if r == nil {
		return "(failed)"
	}
	b, _ := json.Marshal(ResultOf(r).Rows)
	return string(b)
}

// BenchmarkBIRD decides the first b.N kind-(a) pairs of the BIRD-style set
// (testdata/bird/pairs.jsonl, every pair separable: TestBIRDLabelsSeparate)
// at `sqljudge equiv`'s defaults on SQLite, the prover on (Z3 when on
// PATH). It reports the share of each verdict, the seconds a pair took
// (median, p95), and logs them per kind and the phase that found each
// witness. It fails on a false witness (each is re-run from its SQL alone,
// reverifySQLite) and on a pair proved equivalent (each is separable). The
// whole set: go test ./internal/equiv -run XXX -bench 'BIRD$' -benchtime 306x.
func BenchmarkBIRD(b *testing.B) {
	labels := readBIRDLabels(b)
	kind := map[string]string{}
	for _, l := range labels {
		kind[l.ID] = l.Kind
	}
	benchPairsFile(b, filepath.Join(birdDir, "pairs.jsonl"), kind, true)
}

// BenchmarkBIRDPredictions is BenchmarkBIRD on the kind-(b) pairs (gold
// against an LLM's prediction, unlabelled), by model.
func BenchmarkBIRDPredictions(b *testing.B) {
	benchPairsFile(b, filepath.Join(birdDir, "predictions.jsonl"), nil, false)
}

// TestLiteratureSetShape checks testdata/literature against its README:
// 64 pairs, each with VeriEQL's record of the same id (29 refuted by
// VeriEQL), and each schema read by the search.
func TestLiteratureSetShape(t *testing.T) {
	pairs, err := ReadPairs("testdata/literature/pairs.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	f, err := os.Open("testdata/literature/verieql.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	refuted := map[string]bool{}
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	for sc.Scan() {
		var v struct {
			ID      string `json:"id"`
			Refuted bool   `json:"refuted"`
		}
		if err := json.Unmarshal(sc.Bytes(), &v); err != nil {
			t.Fatal(err)
		}
		refuted[v.ID] = v.Refuted
	}
	n := 0
	for _, p := range pairs {
		r, ok := refuted[p.ID]
		if !ok {
			t.Errorf("pair %s has no VeriEQL record", p.ID)
		}
		if r {
			n++
		}
		s := &searcher{p: Pair{ID: p.ID, Q1: p.Q1, Q2: p.Q2, Schema: p.Schema}}
		if err := s.loadSchema(context.Background()); err != nil {
			t.Errorf("pair %s: %v", p.ID, err)
		}
	}
	if len(pairs) != 64 || len(refuted) != 64 || n != 29 {
		t.Errorf("%d pairs, %d VeriEQL records, %d refuted by VeriEQL; want 64, 64, 29", len(pairs), len(refuted), n)
	}
}

// BenchmarkLiterature is BenchmarkBIRD on VeriEQL's literature pairs
// (testdata/literature), grouped by VeriEQL's verdict.
func BenchmarkLiterature(b *testing.B) {
	group := map[string]string{}
	f, err := os.Open("testdata/literature/verieql.jsonl")
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	for sc.Scan() {
		var v struct {
			ID                 string `json:"id"`
			Refuted            bool   `json:"refuted"`
			ReproducesPostgres *bool  `json:"reproduces_postgres"`
		}
		if err := json.Unmarshal(sc.Bytes(), &v); err != nil {
			b.Fatal(err)
		}
		switch {
		case v.ReproducesPostgres != nil && *v.ReproducesPostgres:
			group[v.ID] = "VeriEQL refutes, reproduces on PostgreSQL"
		case v.Refuted:
			group[v.ID] = "VeriEQL refutes, does not reproduce"
		default:
			group[v.ID] = "VeriEQL does not refute"
		}
	}
	benchPairsFile(b, "testdata/literature/pairs.jsonl", group, false)
}

// benchPairsFile decides the first b.N pairs of path (see BenchmarkBIRD);
// group names each pair's group for the log (nil: the model of a
// prediction, from its id). Every witness is re-run from its SQL alone
// (reverifySQLite); separable says every pair is, so a proof is false.
func benchPairsFile(b *testing.B, path string, group map[string]string, separable bool) {
	pairs, err := ReadPairs(path)
	if err != nil {
		b.Fatal(err)
	}
	sb := newSQLite(b)
	o := Options{Sandbox: sb, Seed: 1}
	if z, err := check.FindZ3(); err == nil {
		o.Solver = z
	}
	var tally pairTally
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		p := pairs[i%len(pairs)]
		out, err := Decide(context.Background(), Pair{ID: p.ID, Q1: p.Q1, Q2: p.Q2, Schema: p.Schema}, o)
		if err != nil {
			b.Fatalf("%s: %v", p.ID, err)
		}
		b.StopTimer()
		switch {
		case out.Verdict == Inequivalent:
			reverifySQLite(b, out.Witness, p.Q1, p.Q2)
		case out.Verdict == EquivalentProved && separable:
			b.Errorf("%s: proved equivalent, but the pair is separable (its label)", p.ID)
		}
		b.StartTimer()
		g := group[p.ID]
		if group == nil { // pred-<model>-<question id>
			g = p.ID[len("pred-"):strings.LastIndex(p.ID, "-")]
		}
		tally.add(p.ID, g, out)
	}
	b.StopTimer()
	tally.report(b)
}

// pairTally counts the outcomes of a benchmark's pairs.
type pairTally struct {
	n        int
	verdicts map[Verdict]int
	byGroup  map[string]map[Verdict]int
	missed   []string // ids of the pairs not refuted
	phases   map[string]int
	secs     []float64
	budget   int
}

func (t *pairTally) add(id, group string, out Outcome) {
	if t.verdicts == nil {
		t.verdicts, t.byGroup, t.phases = map[Verdict]int{}, map[string]map[Verdict]int{}, map[string]int{}
	}
	t.n++
	t.verdicts[out.Verdict]++
	if t.byGroup[group] == nil {
		t.byGroup[group] = map[Verdict]int{}
	}
	t.byGroup[group][out.Verdict]++
	if out.Verdict != Inequivalent {
		t.missed = append(t.missed, id)
	}
	if out.Verdict == Inequivalent && len(out.Search.Phases) > 0 {
		t.phases[out.Search.Phases[len(out.Search.Phases)-1].Name]++
	}
	if out.Search.BudgetExhausted {
		t.budget++
	}
	t.secs = append(t.secs, out.Search.Elapsed.Seconds())
}

// report gives each verdict's share as a metric, the time per pair, and
// logs the counts by group and the phases of the witnesses.
func (t *pairTally) report(b *testing.B) {
	if t.n == 0 {
		return
	}
	for _, v := range Verdicts {
		b.ReportMetric(float64(t.verdicts[v])/float64(t.n), string(v)+"/op")
	}
	s := spread(t.secs)
	b.ReportMetric(s.Median, "median-s/pair")
	b.ReportMetric(s.P95, "p95-s/pair")
	b.Logf("%d pairs: %v; witnesses by phase %v; budget exhausted %d; seconds a pair: median %.2f, p95 %.2f, max %.2f", t.n, t.verdicts, t.phases, t.budget, s.Median, s.P95, s.Max)
	groups := make([]string, 0, len(t.byGroup))
	for g := range t.byGroup {
		groups = append(groups, g)
	}
	slices.Sort(groups)
	// One line each: go test keeps only the first 10 lines a benchmark logs.
	by := make([]string, len(groups))
	for i, g := range groups {
		by[i] = fmt.Sprintf("%s %v", g, t.byGroup[g])
	}
	b.Logf("by group: %s", strings.Join(by, "; "))
	b.Logf("not refuted: %s", strings.Join(t.missed, " "))
}
