package prove

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/sqljudge/sqljudge/internal/prove/check"
)

// riskSchema is t(i, x INTEGER, a TEXT) on dialect d (its type classes
// are read on PostgreSQL only).
func riskSchema(d check.Dialect) *check.MapSchema {
	return &check.MapSchema{D: d, Tables: []*check.Table{{Name: "t", Columns: []check.Column{
		{Name: "i", Family: check.Int, Affinity: check.AffinityInteger, Class: check.ClassInteger},
		{Name: "x", Family: check.Int, Affinity: check.AffinityInteger, Class: check.ClassInteger},
		{Name: "a", Family: check.Text, Affinity: check.AffinityText, Class: check.ClassText},
	}}}}
}

// TestConditionRisk reads the operands of conditions that may fail on
// some row, by dialect: what it names, and what it lets pass.
func TestConditionRisk(t *testing.T) {
	for _, c := range []struct {
		d    check.Dialect
		q    string
		want string // "" for none
	}{
		{check.SQLite, "SELECT i FROM t WHERE abs(i) > 1", "abs(i)"},
		{check.SQLite, "SELECT i FROM t WHERE x > 0 AND a || 'z' = 'y'", "a || 'z'"},
		{check.SQLite, "SELECT i FROM t AS u JOIN t AS v ON abs(u.i) = v.i", "abs(u.i)"},
		{check.SQLite, "SELECT i FROM t WHERE i IN (SELECT abs(i) FROM t)", "abs(i)"},
		{check.SQLite, "SELECT i FROM t GROUP BY i HAVING sum(x) > 1", "sum(x)"},
		{check.SQLite, "SELECT i FROM t WHERE a LIKE 'x' ESCAPE '!'", "a LIKE 'x' ESCAPE '!'"},
		{check.SQLite, "SELECT i FROM t WHERE x LIKE a", "x LIKE a"},
		{check.SQLite, `SELECT i FROM t WHERE x LIKE "a"`, `x LIKE "a"`},
		{check.SQLite, "SELECT i FROM t WHERE i / 0 > 1 AND -x % 2 = CAST(a AS INTEGER)", ""},
		{check.SQLite, `SELECT i FROM t WHERE a LIKE '%x%' OR a GLOB "x*" OR lower(a) = 'x'`, ""},
		{check.SQLite, "SELECT abs(i), sum(x) FROM t WHERE EXISTS (SELECT 1 FROM t AS u WHERE u.i = t.x) GROUP BY i HAVING count(*) > 1", ""},
		{check.SQLite, "SELECT i FROM t WHERE (SELECT max(x) FROM t) > 1 AND CASE WHEN i > 0 THEN TRUE ELSE x IS NULL END", ""},
		{check.Postgres, "SELECT i FROM t WHERE i + 1 > 2", "i + 1"},
		{check.Postgres, "SELECT i FROM t WHERE CAST(a AS INTEGER) = 1", "CAST (a AS INTEGER)"},
		{check.Postgres, "SELECT i FROM t WHERE (SELECT i FROM t) > 1", "(SELECT i FROM t)"},
		{check.Postgres, "SELECT i FROM t WHERE substr(a, 1, x) = 'x'", "substr(a, 1, x)"},
		{check.Postgres, "SELECT i FROM t WHERE i > 2 * 50000", "2 * 50000"},
		{check.Postgres, "SELECT i FROM t WHERE lower(a) = 'x'", "lower(a)"},
		{check.Postgres, "SELECT i FROM t WHERE i > -1 AND i < 2 * 3", ""},
		{check.Postgres, `SELECT i FROM t WHERE a LIKE 'x\'`, `a LIKE 'x\'`},
		{check.Postgres, "SELECT i + 1 FROM t WHERE a ILIKE '%x%' GROUP BY i HAVING sum(x) > 1 AND avg(i) < 2", ""},
	} {
		if got := check.ConditionRisk(c.q, riskSchema(c.d)); got != c.want {
			t.Errorf("%s on %v: %q, want %q", c.q, c.d, got, c.want)
		}
	}
}

// TestProveRefusesConditionsThatMayFail: the prover and the checker
// refuse a pair whose condition holds an operand that may fail, and each
// refused pair is shown on SQLite, on a row with the smallest integer,
// to fail in one query and run in the other (the kernel proved them, its
// encoding blind to failure and to the order of evaluation). Two equal
// texts are still proved.
func TestProveRefusesConditionsThatMayFail(t *testing.T) {
	ddl := "CREATE TABLE t(i INTEGER, x INTEGER, a TEXT)"
	rows := "INSERT INTO t VALUES (-9223372036854775808, 0, 'a'), (5, 1, 'b');"
	s := riskSchema(check.SQLite)
	ctx := context.Background()
	for _, p := range [][2]string{
		{"SELECT i FROM t WHERE x > 0 AND abs(i) > 1", "SELECT i FROM t WHERE abs(i) > 1 AND x > 0"},
		{"SELECT i FROM t WHERE i = i OR abs(i) > 1", "SELECT i FROM t WHERE abs(i) > 1 OR i = i"},
		{"SELECT i FROM t WHERE x >= 0", "SELECT i FROM t WHERE abs(i) > 1 OR x >= 0"},
	} {
		a := Prove(ctx, p[0], p[1], s, Options{Rule: "bag", Solver: solver(t)})
		if a.Proved() || a.Stopped != "may fail" {
			t.Errorf("%s / %s: proved %v, stopped by %q (%s), want may fail", p[0], p[1], a.Proved(), a.Stopped, a.Detail)
		}
		var ce *check.CheckError
		err := check.Check(ctx, check.Input{Q1: p[0], Q2: p[1], Schema: s, Rule: "bag"}, &check.Certificate{Kernel: check.KernelVersion})
		if !errors.As(err, &ce) || ce.Where != "may fail" {
			t.Errorf("%s / %s: the checker says %v, want may fail", p[0], p[1], err)
		}
		_, err1 := sqliteRun(t, ddl, rows, p[0], false)
		_, err2 := sqliteRun(t, ddl, rows, p[1], false)
		if (err1 == nil) == (err2 == nil) || !strings.Contains(errText(err1, err2), "integer overflow") {
			t.Errorf("%s / %s: SQLite gives %v and %v, want one integer overflow", p[0], p[1], err1, err2)
		}
	}
	q := "SELECT i FROM t WHERE x > 0 AND abs(i) > 1"
	if a := Prove(ctx, q, q, s, Options{Rule: "bag", Solver: solver(t)}); !a.Proved() {
		t.Errorf("%s against itself: %s (%s)", q, a.Stopped, a.Detail)
	}
}

// errText is the text of whichever of the two errors is set.
func errText(a, b error) string {
	for _, e := range []error{a, b} {
		if e != nil {
			return e.Error()
		}
	}
	return ""
}

// TestFormRisk reads the units that may fail in two normal forms: what
// it lets pass (the same operands evaluated on the same rows) and what
// it refuses (one side only, lazily, in a condition, a subquery, a
// derived table, an output under a LIMIT).
func TestFormRisk(t *testing.T) {
	bij := map[string]string{"a1": "b1", "a2": "b2"}
	for _, c := range []struct {
		d        check.Dialect
		nf1, nf2 string
		want     string // a part of the reason; "" for none
	}{
		{check.SQLite, "SELECT abs(a1.i) FROM t AS a1", "SELECT abs(b1.i) FROM t AS b1", ""},
		{check.SQLite, "SELECT abs(a1.i) + 1, a1.x FROM t AS a1 ORDER BY abs(a1.i)", "SELECT a1.x, abs(b1.i) FROM t AS b1", ""},
		{check.SQLite, "SELECT a1.x, sum(a1.i) FROM t AS a1 GROUP BY a1.x", "SELECT b1.x, CASE WHEN b1.x > 0 THEN sum(b1.i) END FROM t AS b1 GROUP BY b1.x HAVING sum(b1.i) IS NOT NULL OR 1 = 1", ""},
		{check.SQLite, "SELECT a1.x + a1.i, CAST (a1.a AS INTEGER) FROM t AS a1", "SELECT 1 FROM t AS b1", ""},
		{check.SQLite, "SELECT CASE WHEN abs(a1.i) > 0 THEN 1 ELSE 1 END FROM t AS a1", "SELECT 1 FROM t AS b1", "q1 evaluates abs(a1.i) per row"},
		{check.SQLite, "SELECT 1 FROM t AS a1", "SELECT nullif(abs(b1.i), abs(b1.i)) FROM t AS b1", "q2 evaluates abs(b1.i) per row"},
		{check.SQLite, "SELECT count(abs(a1.i)) * 0 FROM t AS a1", "SELECT 0 FROM t AS b1", "q1 evaluates count(abs(a1.i)) as an aggregate"},
		{check.SQLite, "SELECT a1.x FROM t AS a1 GROUP BY a1.x ORDER BY sum(a1.i)", "SELECT b1.x FROM t AS b1 GROUP BY b1.x", "sum(a1.i) as an aggregate"},
		{check.SQLite, "SELECT abs(a1.i) FROM t AS a1 GROUP BY a1.i", "SELECT abs(b1.i) FROM t AS b1", "q1 evaluates abs(a1.i) per group"},
		{check.SQLite, "SELECT coalesce(a1.x, abs(a1.i)) FROM t AS a1", "SELECT coalesce(b1.x, abs(b1.i)) FROM t AS b1", ""},
		{check.SQLite, "SELECT coalesce(a1.x, abs(a1.i)) FROM t AS a1", "SELECT coalesce(abs(b1.i), b1.x) FROM t AS b1", "q1 evaluates coalesce(a1.x, abs(a1.i)) per row"},
		{check.SQLite, "SELECT a1.x > 0 AND abs(a1.i) > 0 FROM t AS a1", "SELECT abs(b1.i) > 0 AND b1.x > 0 FROM t AS b1", "q1 evaluates a1.x > 0 AND abs(a1.i) > 0 per row"},
		{check.SQLite, "SELECT a1.x FROM t AS a1 WHERE abs(a1.i) > 0", "SELECT b1.x FROM t AS b1 WHERE abs(b1.i) > 0", "in a condition"},
		{check.SQLite, "SELECT (SELECT abs(a2.i) FROM t AS a2) FROM t AS a1", "SELECT (SELECT abs(b2.i) FROM t AS b2) FROM t AS b1", "in a subquery"},
		{check.SQLite, "SELECT * FROM (SELECT abs(a2.i) AS c1 FROM t AS a2) AS a1", "SELECT * FROM (SELECT abs(b2.i) AS c1 FROM t AS b2) AS b1", "in a derived table"},
		{check.SQLite, "SELECT abs(a1.i) FROM t AS a1 ORDER BY a1.x LIMIT 1", "SELECT abs(b1.i) FROM t AS b1 ORDER BY b1.x LIMIT 1", "with a LIMIT"},
		{check.SQLite, "SELECT a1.x FROM t AS a1 ORDER BY abs(a1.i) LIMIT 1", "SELECT b1.x FROM t AS b1 ORDER BY abs(b1.i) LIMIT 1", ""},
		{check.Postgres, "SELECT a1.i + 1 FROM t AS a1", "SELECT b1.i + 1 FROM t AS b1", ""},
		{check.Postgres, "SELECT a1.i + 1 FROM t AS a1", "SELECT 1 + b1.i FROM t AS b1", "q1 evaluates a1.i + 1 per row"},
		{check.Postgres, "SELECT a1.x, sum(a1.i) FROM t AS a1 GROUP BY a1.x", "SELECT b1.x FROM t AS b1 GROUP BY b1.x", ""},
		{check.Postgres, "SELECT a1.x FROM t AS a1 GROUP BY a1.x HAVING sum(a1.i + 1) > 0", "SELECT b1.x FROM t AS b1 GROUP BY b1.x", "sum(a1.i + 1) as an aggregate"},
		{check.Postgres, "SELECT a2.i, a1.x FROM t AS a1, t AS a2", "SELECT b2.i + 0, b1.x FROM t AS b1, t AS b2", "q2 evaluates b2.i + 0 per row"},
	} {
		got := check.FormRisk(c.nf1, c.nf2, bij, riskSchema(c.d))
		if c.want == "" && got != "" || c.want != "" && !strings.Contains(got, c.want) {
			t.Errorf("%s / %s on %v: %q, want %q", c.nf1, c.nf2, c.d, got, c.want)
		}
	}
}

// oldCertificate is a certificate an older kernel gave, and its checker
// accepted, with its pair and dialect ("sqlite" or "postgres").
type oldCertificate struct {
	Dialect     string             `json:"dialect"`
	Q1          string             `json:"q1"`
	Q2          string             `json:"q2"`
	Certificate *check.Certificate `json:"certificate"`
}

// certificatesIn reads a JSON array of oldCertificate from file.
func certificatesIn(t *testing.T, file string) []oldCertificate {
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	var cs []oldCertificate
	if err := json.Unmarshal(b, &cs); err != nil {
		t.Fatal(err)
	}
	return cs
}

// refused asserts that today's prover does not prove c's pair on schema
// s (stopped by one of stops, when any is given) and that the checker
// refuses c's certificate; it returns the checker's error.
func refused(t *testing.T, c oldCertificate, s check.Schema, stops ...string) error {
	t.Helper()
	ctx := context.Background()
	a := Prove(ctx, c.Q1, c.Q2, s, Options{Rule: "bag", Solver: solver(t)})
	if a.Proved() || len(stops) > 0 && !slices.Contains(stops, a.Stopped) {
		t.Errorf("%s / %s on %s: proved %v, stopped by %q (%s), want one of %q", c.Q1, c.Q2, c.Dialect, a.Proved(), a.Stopped, a.Detail, stops)
	}
	err := check.Check(ctx, check.Input{Q1: c.Q1, Q2: c.Q2, Schema: s, Rule: "bag", Solver: solver(t)}, c.Certificate)
	if err == nil {
		t.Errorf("%s / %s on %s: the checker accepts the certificate", c.Q1, c.Q2, c.Dialect)
	}
	return err
}

// dialect is c's dialect.
func (c oldCertificate) dialect() check.Dialect {
	if c.Dialect == "postgres" {
		return check.Postgres
	}
	return check.SQLite
}

// TestProveRefusesOutputsThatMayFail: three pairs the kernel proved, and
// whose certificates it accepted, before it compared what may fail
// outside conditions. The prover no longer proves them, the checker
// refuses their certificates (may fail), and on SQLite each is shown
// failing in one query and running in the other on the smallest
// integer. Pairs that evaluate the same operands on the same rows are
// still proved.
func TestProveRefusesOutputsThatMayFail(t *testing.T) {
	ddl := "CREATE TABLE t(i INTEGER, x INTEGER, a TEXT)"
	rows := "INSERT INTO t VALUES (-9223372036854775808, 0, 'a'), (5, 1, 'b');"
	ctx := context.Background()
	cs := certificatesIn(t, "testdata/mayfail_certificates.json")
	if len(cs) != 3 {
		t.Fatalf("%d certificates, want 3", len(cs))
	}
	for _, c := range cs {
		d := c.dialect()
		var ce *check.CheckError
		if err := refused(t, c, riskSchema(d)); !errors.As(err, &ce) || ce.Where != "may fail" {
			t.Errorf("%s / %s on %s: the checker says %v, want may fail", c.Q1, c.Q2, c.Dialect, err)
		}
		if d == check.SQLite {
			_, err1 := sqliteRun(t, ddl, rows, c.Q1, false)
			_, err2 := sqliteRun(t, ddl, rows, c.Q2, false)
			if (err1 == nil) == (err2 == nil) || !strings.Contains(errText(err1, err2), "integer overflow") {
				t.Errorf("%s / %s: SQLite gives %v and %v, want one integer overflow", c.Q1, c.Q2, err1, err2)
			}
		}
	}
	if a := Prove(ctx, cs[0].Q1, cs[0].Q2, riskSchema(check.SQLite), Options{Rule: "bag", Solver: solver(t)}); a.Stopped != "may fail" {
		t.Errorf("%s / %s: stopped by %q (%s), want may fail", cs[0].Q1, cs[0].Q2, a.Stopped, a.Detail)
	}
	for _, p := range []struct {
		d      check.Dialect
		q1, q2 string
	}{
		{check.SQLite, "SELECT sum(i) FROM t WHERE x > 0", "SELECT sum(i) FROM t WHERE 0 < x"},
		{check.SQLite, "SELECT x, sum(i) FROM t GROUP BY x", "SELECT x, sum(i) FROM t GROUP BY x HAVING count(*) > 0"},
		{check.Postgres, "SELECT i + 1 FROM t WHERE x = 1", "SELECT i + 1 FROM t WHERE 1 = x"},
		{check.Postgres, "SELECT x FROM t GROUP BY x HAVING sum(i) > 0 OR count(*) > 0", "SELECT x FROM t GROUP BY x"},
	} {
		if a := Prove(ctx, p.q1, p.q2, riskSchema(p.d), Options{Rule: "bag", Solver: solver(t)}); !a.Proved() {
			t.Errorf("%s / %s on %v: %s (%s)", p.q1, p.q2, p.d, a.Stopped, a.Detail)
		}
	}
}

// TestProveRefusesUnknownCollations: the engines fail a query whose
// COLLATE names a collation they do not have, on every database, and
// PostgreSQL one whose COLLATE stands on an operand that is not text.
// The kernel proved each pair of testdata/collate_certificates.json
// (`WHERE a COLLATE nosuch = 'x' AND 1 = 0` equal to `WHERE 1 = 0`), and
// its checker accepted the certificates; SQLite fails the first query and
// runs the second (PostgreSQL's are run on a server in
// TestPostgresConditions).
func TestProveRefusesUnknownCollations(t *testing.T) {
	ctx := context.Background()
	cs := certificatesIn(t, "testdata/collate_certificates.json")
	if len(cs) != 3 {
		t.Fatalf("%d certificates, want 3", len(cs))
	}
	for _, c := range cs {
		refused(t, c, riskSchema(c.dialect()), "COLLATE", "type")
		if c.dialect() == check.SQLite {
			_, err1 := sqliteRun(t, "CREATE TABLE t(i INTEGER, x INTEGER, a TEXT)", "", c.Q1, false)
			_, err2 := sqliteRun(t, "CREATE TABLE t(i INTEGER, x INTEGER, a TEXT)", "", c.Q2, false)
			if err1 == nil || err2 != nil || !strings.Contains(err1.Error(), "no such collation sequence") {
				t.Errorf("%s / %s: SQLite gives %v and %v, want the first to fail for its collation", c.Q1, c.Q2, err1, err2)
			}
		}
	}
	// SQLite's three collations, named in any case, and PostgreSQL's
	// "C" on a text column still prove.
	for _, p := range []struct {
		d      check.Dialect
		q1, q2 string
	}{
		{check.SQLite, "SELECT i FROM t WHERE a COLLATE NoCase = 'x' AND x > 1", "SELECT i FROM t WHERE 1 < x AND a COLLATE nocase = 'x'"},
		{check.SQLite, "SELECT a FROM t ORDER BY a COLLATE RTRIM, i", "SELECT a FROM t ORDER BY a COLLATE rtrim, i"},
		{check.Postgres, `SELECT i FROM t WHERE a COLLATE "C" < 'x' AND x > 1`, `SELECT i FROM t WHERE 1 < x AND a COLLATE "C" < 'x'`},
	} {
		if a := Prove(ctx, p.q1, p.q2, riskSchema(p.d), Options{Rule: "bag", Solver: solver(t)}); !a.Proved() {
			t.Errorf("%s / %s on %v: %s (%s)", p.q1, p.q2, p.d, a.Stopped, a.Detail)
		}
	}
}

// TestProveRefusesSumOverJoins: SQLite's SUM of integers fails when a
// running sum leaves 64 bits, and a join repeats a row as often as it
// matches, so whether it fails depends on the order the join produces
// the rows in; sum_in_range (the magnitudes of a column's values sum
// below 2^63) bounds one table's rows, read once each. The kernel proved
// the pairs of testdata/sumjoin_certificates.json (the same join in two
// orders; the first with no fact about the rows) and its checker accepted
// them; SQLite fails the first query of the first pair and runs the
// second. A SUM over one table, or a join that meets each of its rows at
// most once, still proves, under sum_in_range.
func TestProveRefusesSumOverJoins(t *testing.T) {
	ctx := context.Background()
	s := &check.MapSchema{D: check.SQLite, Tables: []*check.Table{
		{Name: "t", Columns: []check.Column{{Name: "i", Family: check.Int, Affinity: check.AffinityInteger, NotNull: true}, {Name: "x", Family: check.Int, Affinity: check.AffinityInteger}}, Keys: []check.Key{{Cols: []int{0}, Primary: true}}},
		{Name: "u", Columns: []check.Column{{Name: "i", Family: check.Int, Affinity: check.AffinityInteger, NotNull: true}, {Name: "y", Family: check.Int, Affinity: check.AffinityInteger}}, Keys: []check.Key{{Cols: []int{0}, Primary: true}}},
	}}
	cs := certificatesIn(t, "testdata/sumjoin_certificates.json")
	if len(cs) != 2 {
		t.Fatalf("%d certificates, want 2", len(cs))
	}
	for _, c := range cs {
		refused(t, c, s, "aggregate order")
	}
	ddl := "CREATE TABLE t(i INTEGER PRIMARY KEY, x INTEGER); CREATE TABLE u(i INTEGER PRIMARY KEY, y INTEGER)"
	rows := "INSERT INTO t VALUES (1, 4611686018427387904), (2, -4611686018427387903); INSERT INTO u VALUES (1, 0), (2, 0);"
	_, err1 := sqliteRun(t, ddl, rows, cs[0].Q1, false)
	r2, err2 := sqliteRun(t, ddl, rows, cs[0].Q2, false)
	if err1 == nil || !strings.Contains(err1.Error(), "integer overflow") || err2 != nil {
		t.Errorf("%s / %s: SQLite gives %v and %v (%v), want the first to overflow and the second to run", cs[0].Q1, cs[0].Q2, err1, err2, r2)
	}
	// A SUM over one table, or over a join that meets each of its rows
	// at most once (the other table joined on its key), proves under
	// sum_in_range (and the key).
	for _, p := range []struct {
		q1, q2 string
		facts  []string
	}{
		{"SELECT sum(x) FROM t WHERE i > 1", "SELECT sum(t.x) FROM t WHERE 1 < t.i", []string{"sum_in_range(t.x)"}},
		{"SELECT sum(t.x) FROM t JOIN u ON u.i = t.i", "SELECT sum(t.x) FROM u JOIN t ON t.i = u.i", []string{"sum_in_range(t.x)", "key(u(i))"}},
		{"SELECT avg(t.x) FROM t, u WHERE u.i = t.x AND u.y > 0", "SELECT avg(t.x) FROM u, t WHERE t.x = u.i AND 0 < u.y", []string{"sum_in_range(t.x)", "key(u(i))"}},
	} {
		a := Prove(ctx, p.q1, p.q2, s, Options{Rule: "bag", Solver: solver(t)})
		if !a.Proved() {
			t.Errorf("%s / %s: %s (%s)", p.q1, p.q2, a.Stopped, a.Detail)
			continue
		}
		have := map[string]bool{}
		for _, f := range a.Certificate.Facts {
			have[f.String()] = true
		}
		for _, f := range p.facts {
			if !have[f] {
				t.Errorf("%s / %s: proved without %s: %v", p.q1, p.q2, f, a.Certificate.Facts)
			}
		}
	}
	// Not when the other table's key is bound to nothing (each row of t
	// meets every row of u), nor to a column of u itself.
	for _, p := range [][2]string{
		{"SELECT sum(t.x) FROM t JOIN u ON u.y = t.i", "SELECT sum(t.x) FROM u JOIN t ON t.i = u.y"},
		{"SELECT sum(t.x) FROM t, u WHERE u.i = u.y", "SELECT sum(t.x) FROM u, t WHERE u.y = u.i"},
	} {
		if a := Prove(ctx, p[0], p[1], s, Options{Rule: "bag", Solver: solver(t)}); a.Proved() || a.Stopped != "aggregate order" {
			t.Errorf("%s / %s: proved %v, stopped by %q, want aggregate order", p[0], p[1], a.Proved(), a.Stopped)
		}
	}
}

// TestCheckQuerySize: equiv check reads certificates from a file, so the
// checker, not only the prover, refuses a query over MaxQueryBytes before
// it parses it.
func TestCheckQuerySize(t *testing.T) {
	long := "SELECT i FROM t WHERE i IN (" + strings.Repeat("1, ", MaxQueryBytes/3) + "1)"
	var ce *check.CheckError
	err := check.Check(context.Background(), check.Input{Q1: long, Q2: "SELECT i FROM t", Schema: riskSchema(check.SQLite), Rule: "bag"}, &check.Certificate{Kernel: check.KernelVersion})
	if !errors.As(err, &ce) || ce.Where != "query size" {
		t.Errorf("a query of %d bytes: the checker says %v, want query size", len(long), err)
	}
}

// TestTypeRisk reads the operands PostgreSQL refuses to compare, and
// lets pass what it coerces (a string that reads as a number against an
// integer, an integer against a numeric); SQLite types nothing.
func TestTypeRisk(t *testing.T) {
	for _, c := range []struct {
		d    check.Dialect
		q    string
		want string // a part of the reason; "" for none
	}{
		{check.Postgres, "SELECT i FROM t WHERE a > 1", "text and integer do not compare"},
		{check.Postgres, "SELECT u.i FROM t AS u JOIN t AS v ON u.a = v.i", "a1.a against a2.i"},
		// Names are read on the canonical form: a derived table's column
		// has the type of its output there (a string literal's is text).
		{check.Postgres, "SELECT i FROM (SELECT a AS i FROM t) AS d WHERE i = 1", "a1.c1 against 1: text and integer"},
		{check.Postgres, "SELECT i FROM (SELECT 'x' AS i FROM t) AS d WHERE i = 1", "a1.c1 against 1: text and integer"},
		{check.Postgres, "SELECT i FROM (SELECT a AS i FROM t) AS d WHERE i = 'x'", ""},
		// Expressions whose type PostgreSQL fixes: comparisons are
		// booleans, count an integer, min and max their argument's type.
		{check.Postgres, "SELECT i FROM t WHERE i = (x > 1)", "integer and boolean"},
		{check.Postgres, "SELECT i FROM t WHERE a IS NULL = 1", "boolean and integer"},
		{check.Postgres, "SELECT i FROM t GROUP BY i HAVING max(a) = 1", "text and integer"},
		{check.Postgres, "SELECT i FROM t GROUP BY i HAVING count(*) = 'x'", "does not read as a value of type integer"},
		{check.Postgres, "SELECT i FROM t WHERE a || i = 1", "text and integer"},
		{check.Postgres, "SELECT i FROM t WHERE CAST(i AS TEXT) > 1", "text and integer"},
		{check.Postgres, "SELECT i FROM t WHERE i + 1 = '1.5'", "does not read as a value of type integer"},
		{check.Postgres, `SELECT i FROM t WHERE i COLLATE "C" > 1`, "not known to be text"},
		{check.Postgres, "SELECT i FROM t GROUP BY i HAVING sum(x) > 1.5 AND min(a) = 'x' AND (i > 1) = (i < 2) AND i + i / 2 = 3", ""},
		// PostgreSQL's grouping: a column neither grouped nor aggregated
		// is refused unless its table's PRIMARY KEY is grouped (k below);
		// an equality in the WHERE does not count.
		{check.Postgres, "SELECT i, x FROM t WHERE i = x GROUP BY i", "a1.x is neither grouped nor aggregated"},
		{check.Postgres, "SELECT i, count(*) FROM t WHERE x = i GROUP BY i ORDER BY x", "a1.x is neither grouped nor aggregated"},
		{check.Postgres, "SELECT max(i), a FROM t", "a1.a is neither grouped nor aggregated"},
		{check.Postgres, "SELECT k.id, k.v, count(*) FROM k GROUP BY k.id", ""},
		{check.Postgres, "SELECT d.id, d.v FROM (SELECT id, v FROM k) AS d GROUP BY d.id", "a1.c2 is neither grouped nor aggregated"},
		{check.Postgres, "SELECT i + 1, count(*) FROM t GROUP BY i + 1 ORDER BY i + 1", ""},
		// SELECT DISTINCT orders by its outputs only.
		{check.Postgres, "SELECT DISTINCT i FROM t ORDER BY x", "in a SELECT DISTINCT that does not output it"},
		{check.Postgres, "SELECT DISTINCT i, x FROM t ORDER BY x DESC", ""},
		// Arithmetic on text or a boolean, and a string literal out of
		// SMALLINT's range.
		{check.Postgres, "SELECT a + 1 FROM t", "arithmetic on text"},
		{check.Postgres, "SELECT i FROM t WHERE -(i > 1) = 1", "a sign on boolean"},
		{check.Postgres, "SELECT i FROM t WHERE i = '40000'", "does not read as a value of type integer"},
		// A column of a type the kernel does not model (uuid).
		{check.Postgres, "SELECT k.id FROM k WHERE k.g = 'x'", "a type the kernel does not model"},
		{check.Postgres, "SELECT i FROM t WHERE i BETWEEN '1' AND 'z'", "i against 'z'"},
		{check.Postgres, "SELECT i FROM t WHERE x IN (1, '2', '3.5')", "x against '3.5'"},
		{check.Postgres, "SELECT i FROM t WHERE i LIKE 'x%'", "i in a LIKE: integer, not text"},
		{check.Postgres, "SELECT i FROM t WHERE (i > 1) IS TRUE AND i IS NOT TRUE", "i IS TRUE or FALSE"},
		{check.Postgres, "SELECT CASE WHEN i > 0 THEN a ELSE 0 END FROM t", "a against 0"},
		{check.Postgres, "SELECT sum(a) FROM t", "sum of text"},
		{check.Postgres, "SELECT i FROM t UNION ALL SELECT a FROM t", "i against a"},
		{check.Postgres, "SELECT i FROM t WHERE i = ' 12 ' AND x > 1.5 AND a = 'x' AND a LIKE 'b%' AND i IN (SELECT x FROM t)", ""},
		{check.Postgres, "SELECT max(a), sum(i + 1), CASE WHEN i > 0 THEN 1 ELSE 2.5 END FROM t GROUP BY i", ""},
		{check.SQLite, "SELECT i FROM t WHERE a > 1 AND i = 'abc'", ""},
	} {
		s := riskSchema(c.d)
		s.Tables = append(s.Tables, &check.Table{Name: "k", Columns: []check.Column{
			{Name: "id", Family: check.Int, NotNull: true, Class: check.ClassInteger},
			{Name: "v", Family: check.Int, Class: check.ClassInteger},
			{Name: "g", Family: check.Other, Class: check.ClassOpaque},
		}, Keys: []check.Key{{Cols: []int{0}, Primary: true}}})
		got := check.TypeRisk(c.q, s)
		if c.want == "" && got != "" || c.want != "" && !strings.Contains(got, c.want) {
			t.Errorf("%s on %v: %q, want %q", c.q, c.d, got, c.want)
		}
	}
}

// unreadSchema is t, u (integer keys, an integer column that may hold
// -2^63) and w of TestProveRefusesUnreadOutputs, on SQLite.
func unreadSchema() *check.MapSchema {
	return &check.MapSchema{D: check.SQLite, Tables: []*check.Table{
		{Name: "t", Columns: []check.Column{
			{Name: "i", Family: check.Int, NotNull: true, Affinity: check.AffinityInteger},
			{Name: "x", Family: check.Int, Affinity: check.AffinityInteger},
		}, Keys: []check.Key{{Cols: []int{0}, Primary: true}}},
		{Name: "u", Columns: []check.Column{
			{Name: "k", Family: check.Int, NotNull: true, Affinity: check.AffinityInteger},
			{Name: "ti", Family: check.Int, Affinity: check.AffinityInteger},
			{Name: "v", Family: check.Int, Affinity: check.AffinityInteger},
		}, Keys: []check.Key{{Cols: []int{0}, Primary: true}}},
	}}
}

// TestProveRefusesUnreadOutputs: SQLite computes every column of a WITH
// query it materializes (MATERIALIZED, a compound, an ORDER BY under an
// aggregate) and of a correlated FROM subquery with an ORDER BY, read or
// not, so an unread output that fails (abs of -2^63: "integer
// overflow") fails the query. The kernel dropped such outputs and proved
// each pair below (testdata/unread_certificates.json holds three of its
// certificates, which its checker accepted); SQLite fails each q1 and
// runs its q2 on the database given. Outputs the statement reads on
// every row of the subquery (its own output, or an aggregate's argument,
// over the subquery alone without WHERE or LIMIT), and unread ones that
// never fail, still prove.
func TestProveRefusesUnreadOutputs(t *testing.T) {
	ddl := "CREATE TABLE t(i INTEGER NOT NULL PRIMARY KEY, x INTEGER); CREATE TABLE u(k INTEGER NOT NULL PRIMARY KEY, ti INTEGER, v INTEGER)"
	xMin := "INSERT INTO t VALUES (1, -9223372036854775808), (2, 2); INSERT INTO u VALUES (1, 1, 5), (2, 2, 3);"
	vMin := "INSERT INTO t VALUES (1, 1), (2, 2); INSERT INTO u VALUES (1, 1, -9223372036854775808), (2, 2, 3);"
	s := unreadSchema()
	for _, c := range certificatesIn(t, "testdata/unread_certificates.json") {
		refused(t, c, s, "may fail")
	}
	for _, p := range []struct{ q1, q2, rows string }{
		{"WITH c AS MATERIALIZED (SELECT i, abs(x) AS y FROM t) SELECT i FROM c", "SELECT i FROM t", xMin},
		{"WITH c AS MATERIALIZED (SELECT k, abs(v) AS y FROM u) SELECT t.i FROM t LEFT JOIN c ON c.k = t.x", "SELECT i FROM t", vMin},
		{"WITH c AS (SELECT i, abs(x) AS y FROM t ORDER BY i) SELECT count(*) FROM c", "SELECT count(*) FROM t", xMin},
		{"WITH c AS (SELECT k, ti, abs(v) AS y FROM u ORDER BY k) SELECT ti, count(*) FROM c GROUP BY ti", "SELECT ti, count(*) FROM u GROUP BY ti", vMin},
		{"WITH c AS (SELECT k, abs(v) AS y FROM u UNION ALL SELECT i, x FROM t) SELECT k FROM c", "SELECT k FROM u UNION ALL SELECT i FROM t", vMin},
		{"WITH c AS (SELECT k, v AS y FROM u UNION ALL SELECT i, abs(x) FROM t) SELECT DISTINCT k FROM c", "SELECT k FROM u UNION SELECT i FROM t", xMin},
		{"SELECT i, (SELECT count(*) FROM (SELECT k, abs(v) AS y FROM u WHERE u.k = t.x ORDER BY k) AS d) FROM t", "SELECT i, (SELECT count(*) FROM u WHERE u.k = t.x) FROM t", vMin},
	} {
		if a := Prove(context.Background(), p.q1, p.q2, s, Options{Rule: "bag", Solver: solver(t)}); a.Proved() || a.Stopped != "may fail" {
			t.Errorf("%s / %s: proved %v, stopped by %q (%s), want may fail", p.q1, p.q2, a.Proved(), a.Stopped, a.Detail)
		}
		_, err1 := sqliteRun(t, ddl, p.rows, p.q1, false)
		r2, err2 := sqliteRun(t, ddl, p.rows, p.q2, false)
		if err1 == nil || !strings.Contains(err1.Error(), "integer overflow") || err2 != nil {
			t.Errorf("%s / %s: SQLite gives %v and %v (%v), want the first to overflow and the second to run", p.q1, p.q2, err1, err2, r2)
		}
	}
	for _, p := range [][2]string{
		{"WITH c AS (SELECT i, x + 1 AS y FROM t ORDER BY i) SELECT count(*) FROM c", "SELECT count(*) FROM t"},
		{"SELECT d.y FROM (SELECT i, abs(x) AS y FROM t WHERE x > 0) AS d", "SELECT abs(x) FROM t WHERE 0 < x"},
		{"SELECT y FROM (SELECT i, abs(x) AS y FROM t) AS d", "SELECT abs(x) FROM t"},
		{"SELECT count(d.y) FROM (SELECT i, abs(x) AS y FROM t) AS d", "SELECT count(abs(x)) FROM t"},
		{"SELECT count(d.y) + 1 FROM (SELECT i, abs(x) AS y FROM t) AS d", "SELECT count(abs(x)) + 1 FROM t"},
		{"SELECT d.i, max(d.y) FROM (SELECT i, abs(x) AS y FROM t) AS d GROUP BY d.i", "SELECT i, max(abs(x)) FROM t GROUP BY i"},
	} {
		if a := Prove(context.Background(), p[0], p[1], s, Options{Rule: "bag", Solver: solver(t)}); !a.Proved() {
			t.Errorf("%s / %s: %s (%s)", p[0], p[1], a.Stopped, a.Detail)
		}
	}
}
