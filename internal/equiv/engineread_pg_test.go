package equiv

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/sqljudge/sqljudge/internal/catalog"
	"github.com/sqljudge/sqljudge/internal/engine"
	"github.com/sqljudge/sqljudge/internal/prove"
	"github.com/sqljudge/sqljudge/internal/prove/check"
	"github.com/sqljudge/sqljudge/internal/prove/explain"
	"github.com/sqljudge/sqljudge/internal/sandbox"
	pgsb "github.com/sqljudge/sqljudge/internal/sandbox/postgres"
	"github.com/sqljudge/sqljudge/internal/testserver"
)

// pgMisreads are issue 37's R1-R3 shapes on PostgreSQL: q1, and q2, the
// query a kernel with the name resolution fix reverted reads q1 as (its
// renaming of q1 is q2's canonical text). PostgreSQL either plans q1 and
// that text otherwise, or refuses q1 (a name that is no column there).
var pgMisreads = []struct{ id, schema, q1, q2 string }{
	// R1: inside an ORDER BY expression a names the input column t.a.
	{"R1-order-expression", "CREATE TABLE t (a INT NOT NULL, b INT NOT NULL)",
		"SELECT b AS a FROM t ORDER BY a * 3 = 122883, a", "SELECT b AS a FROM t ORDER BY b * 3 = 122883, b"},
	{"R1-order-function", "CREATE TABLE t (a INT NOT NULL, b INT NOT NULL)",
		"SELECT b AS a FROM t ORDER BY abs(a)", "SELECT b AS a FROM t ORDER BY abs(b)"},
	// R2: ON sees no output alias: z is t's column z, not the alias (t.a).
	{"R2-on-alias-column", "CREATE TABLE t (a INT, z INT); CREATE TABLE s (c INT)",
		"SELECT t.a AS z FROM t JOIN s ON z = s.c", "SELECT t.a AS z FROM t JOIN s ON t.a = s.c"},
	// R2: "z" in ON is no column at all on PostgreSQL (not the string 'z').
	{"R2-on-quoted-alias", "CREATE TABLE t (a INT, b INT); CREATE TABLE s (c TEXT)",
		`SELECT t.a AS z FROM t JOIN s ON "z" = s.c`, "SELECT t.a AS z FROM t JOIN s ON 'z' = s.c"},
	// R3: "z" in a subquery names the outer column t.z, neither the
	// outer alias nor a string.
	{"R3-subquery-outer-name", "CREATE TABLE t (a INT, z TEXT); CREATE TABLE s (c TEXT)",
		`SELECT t.a AS z FROM t WHERE EXISTS (SELECT s.c FROM s WHERE s.c = "z")`, "SELECT t.a AS z FROM t WHERE EXISTS (SELECT s.c FROM s WHERE s.c = 'z')"},
	{"R3-subquery-outer-alias", "CREATE TABLE t (a INT, b INT); CREATE TABLE s (c INT)",
		`SELECT t.a AS z FROM t WHERE EXISTS (SELECT s.c FROM s WHERE s.c = "z")`, "SELECT t.a AS z FROM t WHERE EXISTS (SELECT s.c FROM s WHERE s.c = t.a)"},
}

// pgPlans opens a PostgreSQL sandbox (the test's server: skipped on a
// bare clone, failing in CI without one) and returns a function that
// makes a scratch database of a schema and returns its Explain.
func pgPlans(t *testing.T) func(db *catalog.Database) explain.PlanFunc {
	t.Helper()
	scratch := pgScratches(t)
	n := 0
	return func(db *catalog.Database) explain.PlanFunc {
		t.Helper()
		n++
		p := scratch(fmt.Sprint("schema ", n), db)
		if p == nil {
			t.Fatal("PostgreSQL refuses the test's schema")
		}
		return p
	}
}

// proveCertificate makes proveFunc return cert until the test ends.
func proveCertificate(t *testing.T, cert *check.Certificate) {
	f := proveFunc
	t.Cleanup(func() { proveFunc = f })
	proveFunc = func(context.Context, string, string, prove.Schema, prove.Options) prove.Attempt {
		return prove.Attempt{Certificate: cert}
	}
}

// TestPostgresReadingCatchesMisreadNames: for every R1-R3 shape on
// PostgreSQL, a prover whose renaming of q1 is q2's canonical text (the
// kernel's name resolution fix reverted) gets no proof from
// ProveQueriesWith (stopped by "engine reading", naming q1's renaming
// step), nor from ProveQueries without a server; the fixed kernel's own
// renaming of q1 plans as q1 does.
func TestPostgresReadingCatchesMisreadNames(t *testing.T) {
	plansOf := pgPlans(t)
	ctx := context.Background()
	for _, c := range pgMisreads {
		t.Run(c.id, func(t *testing.T) {
			db, err := catalog.ParseDDL(c.schema)
			if err != nil {
				t.Fatal(err)
			}
			plans := plansOf(db)
			s := proveSchema(db, engine.Postgres)
			var ref *check.Refusal
			switch r1, err := check.Rename(c.q1, s, "a"); {
			case errors.As(err, &ref):
				t.Logf("the fixed kernel refuses q1: %v", err)
			case err != nil:
				t.Fatal(err)
			default:
				if err := explain.SamePlan(ctx, plans, c.q1, r1); err != nil {
					t.Errorf("the fixed kernel's renaming of q1 is not PostgreSQL's reading: %v", err)
				}
			}
			proveCertificate(t, misreadCertificate(t, c.q1, c.q2, s))
			got, note := ProveQueriesWith(ctx, c.q1, c.q2, db, engine.Postgres, RuleBag, nil, plans)
			if got != nil || note.StoppedBy != StoppedByEngineReading || !strings.Contains(note.Detail, "q1 step 1 (rename)") {
				t.Fatalf("the misread proof is kept: %+v", note)
			}
			t.Logf("%s", note.Detail)
			if got, note := ProveQueries(ctx, c.q1, c.q2, db, engine.Postgres, RuleBag, nil); got != nil || note.StoppedBy != StoppedByEngineReading {
				t.Errorf("without a server the proof is kept: %+v", note)
			}
		})
	}
}

// TestPostgresReadingKeepsProofs: proofs whose renamings resolve output
// aliases, qualify columns, rename a self-join and a derived table, and
// correlate a subquery are kept: PostgreSQL plans each query as its
// canonical text.
func TestPostgresReadingKeepsProofs(t *testing.T) {
	plansOf := pgPlans(t)
	z := z3Solver(t)
	ctx := context.Background()
	db, err := catalog.ParseDDL("CREATE TABLE t (a INT PRIMARY KEY, b INT NOT NULL, z TEXT); CREATE TABLE s (c INT, d TEXT)")
	if err != nil {
		t.Fatal(err)
	}
	plans := plansOf(db)
	for _, p := range [][2]string{
		{"SELECT b AS a FROM t ORDER BY a", "SELECT t.b FROM t ORDER BY t.b"},
		{"SELECT t.a AS k FROM t JOIN s ON t.a = s.c WHERE d = 'x.y'", "SELECT T.a FROM s JOIN t AS T ON s.c = T.a WHERE s.d = 'x.y'"},
		{"SELECT T1.a FROM t AS T1 JOIN t AS T2 ON T1.a = T2.b", "SELECT x.a FROM t AS x JOIN t AS y ON x.a = y.b"},
		{"SELECT count(*) AS n, b FROM t GROUP BY b HAVING count(*) > 1 ORDER BY n", "SELECT count(*), t.b FROM t GROUP BY t.b HAVING count(*) > 1 ORDER BY count(*)"},
		{"SELECT a FROM t WHERE EXISTS (SELECT * FROM s WHERE s.c = t.b)", "SELECT t.a FROM t WHERE EXISTS (SELECT 1 FROM s WHERE s.c = t.b)"},
		{"SELECT x FROM (SELECT a AS x FROM t) AS sub WHERE x > 1", "SELECT a FROM t WHERE a > 1"},
	} {
		cert, note := ProveQueriesWith(ctx, p[0], p[1], db, engine.Postgres, RuleBag, z, plans)
		if cert == nil {
			t.Errorf("%s / %s: no proof: %+v", p[0], p[1], note)
		}
	}
	// Quoted mixed-case names stay quoted in the canonical text, which
	// PostgreSQL then plans (it once read a1.val).
	mixed, err := catalog.ParseDDL(`CREATE TABLE "Tab" ("Val" INT, k INT PRIMARY KEY)`)
	if err != nil {
		t.Fatal(err)
	}
	q1, q2 := `SELECT "Val" FROM "Tab" WHERE k = 1`, `SELECT t."Val" FROM "Tab" AS t WHERE t.k = 1`
	if cert, note := ProveQueriesWith(ctx, q1, q2, mixed, engine.Postgres, RuleBag, z, plansOf(mixed)); cert == nil {
		t.Errorf("%s / %s: no proof: %+v", q1, q2, note)
	}
}

// TestDecideReadsPostgresProofs: on the PostgreSQL sandbox, Decide
// validates a proof on the pair's scratch database: a misread renaming
// (R1) gives no proof, stopped by "engine reading", and the search keeps
// its whole cap; a correct proof gives equivalent_proved.
func TestDecideReadsPostgresProofs(t *testing.T) {
	server := testserver.Postgres(t)
	sb, err := pgsb.New(context.Background(), server, true)
	if err != nil {
		t.Fatal(err)
	}
	defer sb.Close()
	c := pgMisreads[0]
	p := Pair{Q1: c.q1, Q2: c.q2, Schema: c.schema}
	o := Options{Sandbox: sb, Seed: 1, Budget: 30 * time.Second, MaxDatabases: 60}
	out, err := Decide(context.Background(), p, o)
	if err != nil {
		t.Fatal(err)
	}
	if out.Verdict != Inequivalent {
		t.Errorf("%s: %s (%s), want inequivalent", c.id, out.Verdict, out.Reason)
	}
	db, err := catalog.ParseDDL(c.schema)
	if err != nil {
		t.Fatal(err)
	}
	proveCertificate(t, misreadCertificate(t, c.q1, c.q2, proveSchema(db, engine.Postgres)))
	out, err = Decide(context.Background(), Pair{Q1: c.q1, Q2: c.q1 + " ", Schema: c.schema}, o)
	if err != nil {
		t.Fatal(err)
	}
	if out.Proof != nil || out.Prover == nil || out.Prover.StoppedBy != StoppedByEngineReading || out.Search.MaxDatabases != 60 {
		t.Errorf("the misread proof is kept: %s, %+v, cap %d", out.Verdict, out.Prover, out.Search.MaxDatabases)
	}
	proveFunc = prove.Prove
	out, err = Decide(context.Background(), Pair{Q1: "SELECT b AS a FROM t ORDER BY a", Q2: "SELECT t.b FROM t ORDER BY t.b", Schema: c.schema}, o)
	if err != nil {
		t.Fatal(err)
	}
	if out.Verdict != EquivalentProved {
		t.Errorf("a correct proof is lost: %s, %+v", out.Verdict, out.Prover)
	}
}

// pgScratches makes one scratch database per schema (by its DDL text)
// and returns its plans; a schema PostgreSQL refuses gives nil.
func pgScratches(t *testing.T) func(key string, db *catalog.Database) explain.PlanFunc {
	t.Helper()
	server := testserver.Postgres(t)
	sb, err := pgsb.New(context.Background(), server, true)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { sb.Close() })
	made := map[string]explain.PlanFunc{}
	return func(key string, db *catalog.Database) explain.PlanFunc {
		if p, ok := made[key]; ok {
			return p
		}
		sc, err := sb.Open(context.Background(), db.CreateStatements(engine.Postgres))
		if err != nil {
			t.Logf("%s: PostgreSQL refuses the schema: %v", key, err)
			made[key] = nil
			return nil
		}
		t.Cleanup(func() { sc.Close() })
		made[key] = sc.(sandbox.Explainer).Explain
		return made[key]
	}
}

// lostProof reports whether err, the engine reading of a
// proof, drops it for another reason than PostgreSQL refusing to plan
// the pair's own query (no proof then rests on PostgreSQL's reading).
func lostProof(err error) bool {
	var m *explain.PlanMismatch
	return err != nil && !(errors.As(err, &m) && m.Failed == "the query")
}

// TestCalcitePostgresProofsRead: every Calcite pair (VeriEQL's 397) the
// kernel proves on PostgreSQL keeps its proof once PostgreSQL reads its
// renamings on a scratch database of the pair's schema: the check costs
// no proof of a query PostgreSQL plans.
func TestCalcitePostgresProofsRead(t *testing.T) {
	z := z3Solver(t)
	plansOf := pgScratches(t)
	ctx := context.Background()
	proved, kept := 0, 0
	var took []time.Duration
	lines, err := ReadPairs("testdata/calcite/pairs.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range lines {
		db, err := catalog.ParseDDL(p.Schema)
		if err != nil {
			continue
		}
		cert, _ := proveKernel(ctx, p.Q1, p.Q2, db, engine.Postgres, RuleBag, z)
		if cert == nil {
			continue
		}
		proved++
		plans := plansOf(p.Schema, db)
		if plans == nil {
			continue
		}
		start := time.Now()
		err = engineReading(ctx, db, engine.Postgres, cert, plans)
		took = append(took, time.Since(start))
		if lostProof(err) {
			t.Errorf("%s: the proof is lost: %v", p.ID, err)
			continue
		}
		if err != nil {
			t.Logf("%s: %v", p.ID, err)
			continue
		}
		kept++
	}
	if proved < 50 {
		t.Errorf("only %d Calcite pairs proved by the kernel on PostgreSQL", proved)
	}
	slices.Sort(took)
	if len(took) > 0 {
		t.Logf("%d of %d kernel proofs on PostgreSQL kept after PostgreSQL's reading, in a median %v per proof (at most %v; the scratch database aside)", kept, proved, took[len(took)/2], took[len(took)-1])
	}
}

// TestSpiderRenamingsPlanAlikeOnPostgres: on every EX-correct DIN-SQL
// item of Spider dev whose schema PostgreSQL takes, the kernel's
// PostgreSQL renaming of the gold and of the prediction (when it has
// one, and PostgreSQL plans the query) plans as the query does.
func TestSpiderRenamingsPlanAlikeOnPostgres(t *testing.T) {
	ctx := context.Background()
	ids, pairs := spiderDIN(t)
	plansOf := pgScratches(t)
	same, refused := 0, 0
	kernel := map[string]int{}
	for _, i := range ids {
		p := pairs[i]
		db, err := ReadSchema(ctx, p)
		if err != nil {
			t.Fatal(err)
		}
		plans := plansOf(p.ID, db)
		if plans == nil {
			continue
		}
		s := proveSchema(db, engine.Postgres)
		for _, q := range []string{p.Q1, p.Q2} {
			r, err := check.Rename(q, s, "a")
			var ref *check.Refusal
			if errors.As(err, &ref) {
				kernel[ref.Construct]++
			}
			if err != nil {
				continue // the kernel refuses it: no proof rests on it
			}
			err = explain.SamePlan(ctx, plans, q, r)
			switch {
			case lostProof(err):
				t.Errorf("item %d: %v", i, err)
			case err != nil:
				refused++
			default:
				same++
			}
		}
	}
	// Spider's schemas quote mixed-case names ("Name") that its queries
	// write in lower case: on PostgreSQL most queries do not resolve, and
	// the kernel refuses them ("name case"). A floor, so that a check that
	// compares nothing does not pass.
	if same < 100 {
		t.Errorf("only %d renamings of %d items compared", same, len(ids))
	}
	t.Logf("%d renamings of %d items plan alike on PostgreSQL; PostgreSQL refuses %d of the queries; the kernel refuses %v", same, len(ids), refused, kernel)
}
