package prove

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/sqljudge/sqljudge/internal/prove/check"
	"github.com/sqljudge/sqljudge/internal/testserver"
)

func testSchema() *check.MapSchema {
	return &check.MapSchema{D: check.SQLite, Tables: []*check.Table{
		{Name: "singer", Columns: []check.Column{{Name: "Singer_ID", Family: check.Int, NotNull: true}, {Name: "Name", Family: check.Text}, {Name: "Country", Family: check.Text}, {Name: "Age", Family: check.Int}},
			Keys: []check.Key{{Cols: []int{0}, Primary: true}}},
		{Name: "concert", Columns: []check.Column{{Name: "concert_ID", Family: check.Int, NotNull: true}, {Name: "Stadium_ID", Family: check.Int}, {Name: "Year", Family: check.Int}},
			Keys: []check.Key{{Cols: []int{0}, Primary: true}}},
		{Name: "singer_in_concert", Columns: []check.Column{{Name: "concert_ID", Family: check.Int, NotNull: true}, {Name: "Singer_ID", Family: check.Int, NotNull: true}},
			Keys: []check.Key{{Cols: []int{0, 1}, Primary: true}},
			FKs:  []check.ForeignKey{{Cols: []int{0}, RefTable: "concert", RefCols: []int{0}}, {Cols: []int{1}, RefTable: "singer", RefCols: []int{0}}}},
	}}
}

// postgresSchema turns a test schema into PostgreSQL's, its column names
// in lower case (as unquoted names fold there).
func postgresSchema(s *check.MapSchema) *check.MapSchema {
	s.D = check.Postgres
	for _, tb := range s.Tables {
		for i := range tb.Columns {
			tb.Columns[i].Name = strings.ToLower(tb.Columns[i].Name)
		}
	}
	return s
}

// solver returns Z3's executable; without it the test fails in CI
// (testserver.Required) and is skipped elsewhere, saying why.
func solver(t *testing.T) check.Solver {
	t.Helper()
	z, err := check.FindZ3()
	if err != nil {
		if testserver.Required() {
			t.Fatalf("%v: CI must install z3 (.ci/run does)", err)
		}
		t.Skipf("skipped: %v", err)
	}
	return z
}

func TestProveEquivalent(t *testing.T) {
	s := testSchema()
	z := solver(t)
	for _, c := range []struct{ q1, q2, rule, method string }{
		{"SELECT count(*) FROM singer", "SELECT COUNT(*) FROM singer;", "bag", check.MethodIdentical},
		{"SELECT count(*) FROM concert WHERE YEAR = 2014 OR YEAR = 2015", "SELECT COUNT(*) FROM concert WHERE Year IN (2015, 2014)", "bag", check.MethodNormalForm},
		{"SELECT T2.name FROM singer_in_concert AS T1 JOIN singer AS T2 ON T1.singer_id = T2.singer_id WHERE T2.age > 20",
			"SELECT s.Name FROM singer s, singer_in_concert c WHERE 20 < s.Age AND c.Singer_ID = s.Singer_ID", "bag", check.MethodNormalForm},
		{"SELECT name, age FROM singer", "SELECT age, name FROM singer", "spider", check.MethodNormalForm},
		{"SELECT name FROM singer WHERE age BETWEEN 20 AND 30", "SELECT name FROM singer WHERE age >= 20 AND NOT age > 30", "bag", check.MethodNormalForm},
		{"SELECT name FROM singer WHERE country = 'France' ORDER BY singer_id", "SELECT name FROM singer WHERE 'France' = country ORDER BY singer_id ASC", "bag", check.MethodNormalForm},
		// SQLite's LIKE ignores the case of ASCII letters.
		{"SELECT name FROM singer WHERE name LIKE '%al%'", "SELECT name FROM singer WHERE name LIKE '%AL%'", "bag", check.MethodNormalForm},
		// IS NOT DISTINCT FROM is IS; TRUE is 1 on SQLite.
		{"SELECT name FROM singer WHERE age IS NOT DISTINCT FROM 20", "SELECT name FROM singer WHERE age IS 20 AND TRUE", "bag", check.MethodNormalForm},
		// A FROM subquery merged into its query.
		{"SELECT t.n FROM (SELECT name AS n, age FROM singer WHERE age > 3) AS t WHERE t.age < 9", "SELECT name FROM singer WHERE age BETWEEN 4 AND 8", "bag", check.MethodNormalForm},
	} {
		a := Prove(context.Background(), c.q1, c.q2, s, Options{Rule: c.rule, Solver: z})
		if !a.Proved() {
			t.Errorf("%s | %s: not proved: %s: %s", c.q1, c.q2, a.Stopped, a.Detail)
			continue
		}
		if a.Certificate.Method != c.method {
			t.Errorf("%s | %s: method %s, want %s", c.q1, c.q2, a.Certificate.Method, c.method)
		}
	}
}

func TestProveRefusesInequivalent(t *testing.T) {
	s := testSchema()
	z := solver(t)
	for _, c := range []struct{ q1, q2, rule string }{
		{"SELECT name FROM singer WHERE age > 10", "SELECT name FROM singer WHERE age >= 10", "bag"},
		{"SELECT name, age FROM singer", "SELECT age, name FROM singer", "bag"},
		{"SELECT name FROM singer WHERE name = name", "SELECT name FROM singer", "bag"},
		{"SELECT name FROM singer ORDER BY age", "SELECT name FROM singer ORDER BY age DESC", "bag"},
		{"SELECT name FROM singer ORDER BY age LIMIT 1", "SELECT name FROM singer WHERE age = (SELECT min(age) FROM singer)", "spider"},
		{"SELECT country FROM singer", "SELECT DISTINCT country FROM singer", "bag"},
		{"SELECT count(*) FROM singer", "SELECT count(name) FROM singer", "bag"},
		{"SELECT name FROM singer WHERE name LIKE '%al%'", "SELECT name FROM singer WHERE name LIKE '%a_%'", "bag"},
		{"SELECT name FROM singer WHERE age IS DISTINCT FROM 20", "SELECT name FROM singer WHERE age IS 20", "bag"},
		{"SELECT t.n FROM (SELECT DISTINCT name AS n FROM singer) AS t", "SELECT name FROM singer", "bag"},
		// DISTINCT sorted by a key outside the output: each name sorts by
		// one of its singers' ids, which the engine picks.
		{"SELECT DISTINCT name FROM singer ORDER BY singer_id LIMIT 2", "SELECT DISTINCT name FROM singer WHERE 1 = 1 ORDER BY singer_id LIMIT 2", "bag"},
	} {
		a := Prove(context.Background(), c.q1, c.q2, s, Options{Rule: c.rule, Solver: z})
		if a.Proved() {
			t.Errorf("%s | %s: proved (%s), want no proof", c.q1, c.q2, a.Certificate.Method)
		}
	}
}

// TestProveUpToTies: a statement whose ORDER BY keys do not determine its
// rows is proved only up to ties (Certificate.Ties: the same multiset of
// rows sorted by the same keys, with the same LIMIT), and only at the
// statement's own level; keys that determine the row give a strict
// proof. Ties inside a subquery or a compound's branch feed the rest of
// the query and stay refused, as do outputs the engine may take for equal
// while they differ (no tiebreak makes the result one).
func TestProveUpToTies(t *testing.T) {
	s := testSchema()
	z := solver(t)
	for _, c := range []struct {
		q1, q2, rule string
		want         string // "ties", "strict" or "refused"
	}{
		{"SELECT name FROM singer ORDER BY age", "SELECT name FROM singer WHERE 1 = 1 ORDER BY age", "bag", "ties"},
		// CROSS JOIN fixes SQLite's join order, a comma does not: the
		// engine may meet the rows that tie on year in another order.
		{"SELECT s.name FROM singer s CROSS JOIN concert c ORDER BY c.year LIMIT 1", "SELECT s.name FROM singer s, concert c ORDER BY c.year LIMIT 1", "bag", "ties"},
		{"SELECT country FROM singer GROUP BY country ORDER BY count(*) DESC LIMIT 1", "SELECT country FROM singer GROUP BY country ORDER BY count(singer_id) DESC LIMIT 1", "spider", "ties"},
		{"SELECT name FROM singer ORDER BY singer_id LIMIT 1", "SELECT name FROM singer WHERE 1 = 1 ORDER BY singer_id LIMIT 1", "bag", "strict"},
		// Other keys, directions or LIMITs are no proof at all.
		{"SELECT name FROM singer ORDER BY age LIMIT 1", "SELECT name FROM singer ORDER BY age LIMIT 2", "bag", "refused"},
		{"SELECT name FROM singer ORDER BY age LIMIT 1", "SELECT name FROM singer ORDER BY age, name LIMIT 1", "bag", "refused"},
		{"SELECT name FROM singer ORDER BY age LIMIT 1", "SELECT name FROM singer ORDER BY age DESC LIMIT 1", "bag", "refused"},
		// SELECT DISTINCT over groups sorted by a key outside the output:
		// each distinct row sorts by the key of the group the engine meets
		// first, which follows the GROUP BY's written order (the adversarial
		// round of 2026-12-07: proved, strictly and up to ties, before).
		{"SELECT DISTINCT count(*) FROM singer GROUP BY age, country ORDER BY age, country", "SELECT DISTINCT count(*) FROM singer GROUP BY country, age ORDER BY age, country", "bag", "refused"},
		{"SELECT DISTINCT count(*) > 1 FROM singer GROUP BY age, country ORDER BY age DESC LIMIT 1", "SELECT DISTINCT count(*) > 1 FROM singer GROUP BY country, age ORDER BY age DESC LIMIT 1", "bag", "refused"},
		{"SELECT DISTINCT country FROM singer GROUP BY country, age ORDER BY count(*) DESC LIMIT 1", "SELECT DISTINCT country FROM singer GROUP BY age, country ORDER BY count(*) DESC LIMIT 1", "spider", "refused"},
		// Ties in a subquery decide which rows the statement reads.
		{"SELECT name FROM singer WHERE singer_id IN (SELECT singer_id FROM singer_in_concert ORDER BY concert_id LIMIT 1)",
			"SELECT name FROM singer WHERE singer_id IN (SELECT singer_id FROM singer_in_concert WHERE 1 = 1 ORDER BY concert_id LIMIT 1)", "bag", "refused"},
		// Under Spider's match (which tells 1 from 1.0) an untyped output
		// is not tie-safe: no tiebreak makes the result one.
		{"SELECT name, age + 0.5 FROM singer ORDER BY age LIMIT 1", "SELECT name, age + 0.5 FROM singer WHERE 1 = 1 ORDER BY age LIMIT 1", "spider", "refused"},
	} {
		a := Prove(context.Background(), c.q1, c.q2, s, Options{Rule: c.rule, Solver: z})
		got := "refused"
		if a.Proved() {
			got = "strict"
			if a.Certificate.Ties {
				got = "ties"
			}
		}
		if got != c.want {
			t.Errorf("%s | %s (%s): %s (%s: %s), want %s", c.q1, c.q2, c.rule, got, a.Stopped, a.Detail, c.want)
		} else if got == "refused" {
			t.Logf("%s | %s: refused (%s: %s)", c.q1, c.q2, a.Stopped, a.Detail)
		}
	}
}

// TestProvePostgresLikeIsCaseSensitive: PostgreSQL's LIKE tells case
// apart, so the patterns '%al%' and '%AL%' are no proof there.
func TestProvePostgresLikeIsCaseSensitive(t *testing.T) {
	s := testSchema()
	s.D = check.Postgres
	a := Prove(context.Background(), "SELECT name FROM singer WHERE name LIKE '%al%'", "SELECT name FROM singer WHERE name LIKE '%AL%'", s, Options{Rule: "bag", Solver: solver(t)})
	if a.Proved() {
		t.Fatal("proved on PostgreSQL")
	}
}

// affinitySchema has a column of each family and affinity, and two that
// the kernel reads as Other: an untyped one (BLOB affinity) and a text
// column under NOCASE.
func affinitySchema() *check.MapSchema {
	return &check.MapSchema{D: check.SQLite, Tables: []*check.Table{
		{Name: "t", Columns: []check.Column{
			{Name: "i", Family: check.Int, NotNull: true, Affinity: check.AffinityInteger},
			{Name: "x", Family: check.Text, NotNull: true, Affinity: check.AffinityText},
			{Name: "r", Family: check.Real, NotNull: true, Affinity: check.AffinityReal},
			{Name: "n", Family: check.Numeric, NotNull: true, Affinity: check.AffinityNumeric},
			{Name: "v", Family: check.Text, NotNull: true, Affinity: check.AffinityBlob},
			{Name: "c", Family: check.Text, NotNull: true, Affinity: check.AffinityText, Collation: "nocase"},
		}},
		{Name: "u", Columns: []check.Column{{Name: "y", Family: check.Text, NotNull: true, Affinity: check.AffinityText}}},
	}}
}

// TestComparisonAffinity: comparisons are encoded as SQLite makes them
// (datatype3.html, section 4.2; issue 37, R5-R9, R17): proved where the
// conversions are those of a literal, never where the affinity or the
// storage class of a column would decide.
func TestComparisonAffinity(t *testing.T) {
	z := solver(t)
	s := affinitySchema()
	const q = "SELECT i FROM t WHERE "
	for _, c := range []struct {
		w1, w2 string
		proved bool
	}{
		{"i = '5'", "i = 5", true},     // INTEGER affinity turns '5' into 5
		{"'5' IN (i)", "1 = 0", true},  // the list's value has no affinity: text is never an integer
		{"'5' IN (i)", "i = 5", false}, // (R5)
		{"i IN ('5')", "i = 5", true},  // x's affinity applies to the list
		{"x = 5", "x = '5'", true},     // TEXT affinity turns 5 into '5'
		{"5 = '5'", "1 = 0", true},     // no affinity: an integer is not a string
		{"5 < 'a'", "1 = 1", true},     // numbers sort before strings
		{"x IN (i)", "x = i", false},   // (R6)
		{"r = n AND typeof(r) = 'real'", "r = n AND typeof(n) = 'real'", false},         // (R8)
		{"r = 5", "n = 5 AND r = n", false},                                             // 5.0 and 5 are equal numbers of different classes
		{"v = 5", "v = '5'", false},                                                     // BLOB affinity converts nothing (R9)
		{"c = 'abc'", "c = 'ABC'", false},                                               // NOCASE is not modelled (R17)
		{"i = 5 AND i IN (SELECT y FROM u)", "i = 5 AND 5 IN (SELECT y FROM u)", false}, // (R7)
		{"i IN (SELECT y FROM u)", "i IN (SELECT +y FROM u)", false},
	} {
		a := Prove(context.Background(), q+c.w1, q+c.w2, s, Options{Rule: "bag", Solver: z})
		if a.Proved() != c.proved {
			t.Errorf("%s / %s: proved %v (%s: %s), want %v", c.w1, c.w2, a.Proved(), a.Stopped, a.Detail, c.proved)
		}
	}
}

// TestProveStopsWithItsContext (issue 41): the prover stops when its
// context has ended, before any rewrite, and does not try a query past
// MaxQueryBytes. Before, it checked its context only when it called the
// solver: an equiv item whose prediction held an IN list of 300,000
// values held its worker 151 s against serve's 60 s --max-item-time,
// rewriting (and parsing again) 2 MB of SQL.
func TestProveStopsWithItsContext(t *testing.T) {
	s := testSchema()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	q1, q2 := "SELECT count(*) FROM concert WHERE Year = 2014 OR Year = 2015", "SELECT count(*) FROM concert WHERE Year IN (2015, 2014)"
	if a := Prove(ctx, q1, q2, s, Options{Rule: "bag"}); a.Stopped != "cancelled" || a.Proved() {
		t.Errorf("with its context ended: stopped by %q (%s), proved %v; want cancelled", a.Stopped, a.Detail, a.Proved())
	}
	long := "SELECT name FROM singer WHERE singer_id IN (" + strings.Repeat("1, ", MaxQueryBytes/3) + "1)"
	if a := Prove(context.Background(), "SELECT name FROM singer", long, s, Options{Rule: "bag"}); a.Stopped != "query size" {
		t.Errorf("a query of %d bytes: stopped by %q (%s); want query size", len(long), a.Stopped, a.Detail)
	}
}

// TestProveSpiderPythonType: under the spider rule two outputs that are
// equal value by value must also be of one Python type (Spider's
// evaluator sorts a row's values by str(x) + str(type(x))): a REAL
// column's 1.0 against a NUMERIC column's 1 beside a 10 is (1.0, 10)
// against (10, 1) there. The bag rule (Python ==) proves the pair;
// integer outputs of different text are still proved under spider.
func TestProveSpiderPythonType(t *testing.T) {
	s := &check.MapSchema{D: check.SQLite, Tables: []*check.Table{
		{Name: "m", Columns: []check.Column{{Name: "r", Family: check.Real}, {Name: "n", Family: check.Numeric}, {Name: "k", Family: check.Int}, {Name: "u", Family: check.Other, Affinity: check.AffinityBlob}}},
	}}
	z := solver(t)
	q1 := "SELECT r, k * 10 FROM m WHERE r = n"
	q2 := "SELECT n, k * 10 FROM m WHERE r = n"
	if a := Prove(context.Background(), q1, q2, s, Options{Rule: "bag", Solver: z}); !a.Proved() {
		t.Errorf("bag: not proved: %s: %s", a.Stopped, a.Detail)
	}
	if a := Prove(context.Background(), q1, q2, s, Options{Rule: "spider", Solver: z}); a.Proved() || a.Stopped != "output" {
		t.Errorf("spider: proved %v, stopped %q (%s), want stopped output", a.Proved(), a.Stopped, a.Detail)
	}
	q1 = "SELECT k, r FROM m WHERE k = 5"
	q2 = "SELECT 5, r FROM m WHERE k = 5"
	if a := Prove(context.Background(), q1, q2, s, Options{Rule: "spider", Solver: z}); !a.Proved() {
		t.Errorf("spider, integer outputs: not proved: %s: %s", a.Stopped, a.Detail)
	}
	// DISTINCT keeps whichever of 1 and 1.0 (an untyped column holds
	// both) it meets first: the bag rule cannot tell, Spider's can.
	q1 = "SELECT DISTINCT u, k FROM m WHERE k > 1"
	q2 = "SELECT DISTINCT u, k FROM m WHERE 1 < k"
	if a := Prove(context.Background(), q1, q2, s, Options{Rule: "bag", Solver: z}); !a.Proved() {
		t.Errorf("bag, DISTINCT: not proved: %s: %s", a.Stopped, a.Detail)
	}
	if a := Prove(context.Background(), q1, q2, s, Options{Rule: "spider", Solver: z}); a.Proved() || a.Stopped != "DISTINCT" {
		t.Errorf("spider, DISTINCT: proved %v, stopped %q (%s), want stopped DISTINCT", a.Proved(), a.Stopped, a.Detail)
	}
}

// TestProveHavingToWhere proves pairs that filter groups on GROUP BY
// columns in HAVING against the same filter in WHERE (VeriEQL's Calcite
// pairs 124, 148, 360), and refuses the traps where a group's rows
// differ in what the conjunct reads: a NOCASE column holding 'A' and 'a'
// compared under BINARY, a column outside GROUP BY (the value of a row
// the group picks) — each gives two results on SQLite 3.40 with the rows
// of its comment — and an untyped column holding 5 and 5.0 (one group,
// which shows one of them to typeof: SQLite 3.40 moves that HAVING term
// to its WHERE itself and agrees, but the kernel does not rest on a
// planner's choice).
func TestProveHavingToWhere(t *testing.T) {
	s := affinitySchema()
	z := solver(t)
	for _, c := range []struct{ q1, q2 string }{
		{"SELECT x, i FROM t WHERE i > 5000 GROUP BY x, i", "SELECT x, i FROM t GROUP BY x, i HAVING i > 5000"},
		{"SELECT x AS x, count(*) AS c FROM t GROUP BY x HAVING x = 'Charlie'", "SELECT x, count(*) AS c FROM (SELECT x AS x FROM t) AS t3 WHERE x = 'Charlie' GROUP BY x"},
		{"SELECT x AS c1 FROM t WHERE x > 'b' GROUP BY x HAVING x > 'c' AND (count(*) > 30 OR x < 'z')",
			"SELECT c1 FROM (SELECT x AS c1 FROM t WHERE x > 'b') AS t5 WHERE c1 > 'c' GROUP BY c1 HAVING count(*) > 30 OR c1 < 'z'"},
	} {
		a := Prove(context.Background(), c.q1, c.q2, s, Options{Rule: "bag", Solver: z})
		if !a.Proved() {
			t.Errorf("%s | %s: not proved: %s: %s", c.q1, c.q2, a.Stopped, a.Detail)
			continue
		}
		if rules := append(stepRules(a.Certificate.Q1Steps), stepRules(a.Certificate.Q2Steps)...); !slices.Contains(rules, check.RuleHavingToWhere) {
			t.Errorf("%s: steps %v, want having_to_where among them", c.q1, rules)
		}
	}
	for _, c := range []struct{ q1, q2 string }{
		// Rows (5), (5.0) in v: one group of two rows, whose v shows 5 or 5.0.
		{"SELECT count(*) FROM t GROUP BY v HAVING typeof(v) = 'integer'", "SELECT count(*) FROM t WHERE typeof(v) = 'integer' GROUP BY v"},
		// Rows ('A'), ('a') in c: one group, which shows 'A' or 'a'.
		{"SELECT count(*) FROM t GROUP BY c HAVING c = 'a' COLLATE binary", "SELECT count(*) FROM t WHERE c = 'a' COLLATE binary GROUP BY c"},
		// Rows ('a', 1), ('a', 2) in (x, i): the group shows i of one row.
		{"SELECT x FROM t GROUP BY x HAVING i > 1", "SELECT x FROM t WHERE i > 1 GROUP BY x"},
	} {
		for _, q := range [][2]string{{c.q1, c.q2}, {c.q2, c.q1}} {
			if a := Prove(context.Background(), q[0], q[1], s, Options{Rule: "bag", Solver: z}); a.Proved() {
				t.Errorf("%s | %s: proved, want refused", q[0], q[1])
			}
		}
	}
}

// TestProveAggregateOrderFacts: TOTAL, AVG and SUM of an INTEGER column
// are free of the order of their rows only while the column holds
// integers (SQLite keeps there a REAL it cannot convert, and then adds in
// floating point: 1e308 + 1e308 - 1e308 is inf, 1e308 - 1e308 + 1e308 is
// not), so a proof that reads one so lists the column's family (TOTAL
// and AVG sum_in_range too), and such rows separate the pair: the
// soundness fuzzer's pair 6200 of seed 1 was a proof listing sum_in_range
// alone (1e308 in a BIGINT column, which the fuzzer did not read as
// outside that fact either; it does now).
func TestProveAggregateOrderFacts(t *testing.T) {
	z := solver(t)
	rows := "INSERT INTO t(i) VALUES (1e308), (-1e308), (1e308)"
	want := check.Fact{Fact: check.FactFamily, Table: "t", Column: "i", Family: "int"}
	for _, agg := range []string{"total", "avg", "sum"} {
		q1 := "SELECT " + agg + "(i) FROM t"
		q2 := "SELECT " + agg + "(i) FROM (SELECT i FROM t ORDER BY i DESC) AS d"
		a := Prove(context.Background(), q1, q2, arithSchema(), Options{Rule: "bag", Solver: z})
		if !a.Proved() {
			t.Fatalf("%s: no proof: %s %s", agg, a.Stopped, a.Detail)
		}
		facts := slices.Clone(a.Certificate.Facts)
		for _, st := range append(slices.Clone(a.Certificate.Q1Steps), a.Certificate.Q2Steps...) {
			facts = append(facts, st.Facts...)
		}
		if !slices.ContainsFunc(facts, func(f check.Fact) bool {
			return f.Fact == want.Fact && f.Table == want.Table && f.Column == want.Column && f.Family == want.Family
		}) {
			t.Errorf("%s: the proof's facts %v lack %v", agg, facts, want)
		}
		if r1, r2 := sqliteBag(t, rows, q1), sqliteBag(t, rows, q2); slices.Equal(r1, r2) {
			t.Errorf("%s: the rows that break the family do not separate the pair (%v): the test shows nothing", agg, r1)
		}
	}
}
