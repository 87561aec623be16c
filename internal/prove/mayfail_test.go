package prove

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/sqljudge/sqljudge/internal/prove/check"
)

// riskSchema is t(i, x INTEGER, a TEXT) on dialect d.
func riskSchema(d check.Dialect) *check.MapSchema {
	return &check.MapSchema{D: d, Tables: []*check.Table{{Name: "t", Columns: []check.Column{
		{Name: "i", Family: check.Int, Affinity: check.AffinityInteger},
		{Name: "x", Family: check.Int, Affinity: check.AffinityInteger},
		{Name: "a", Family: check.Text, Affinity: check.AffinityText},
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
		{check.Postgres, "SELECT i FROM t WHERE lower(a) = 'x'", "lower(a)"},
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
