package prove

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/sqljudge/sqljudge/internal/prove/check"
)

// limitsSchema is two tables with integer keys, as the adversarial
// search that found the pairs of TestProveRefusesWhatTheEngineRefuses
// had them.
func limitsSchema() *check.MapSchema {
	col := func(name string, f check.Family, a check.Affinity, notNull bool) check.Column {
		return check.Column{Name: name, Family: f, Affinity: a, NotNull: notNull}
	}
	return &check.MapSchema{D: check.SQLite, Tables: []*check.Table{
		{Name: "t", Columns: []check.Column{col("i", check.Int, check.AffinityInteger, true), col("x", check.Int, check.AffinityInteger, false), col("a", check.Text, check.AffinityText, false), col("j", check.Int, check.AffinityInteger, false)}, Keys: []check.Key{{Cols: []int{0}, Primary: true}}},
		{Name: "u", Columns: []check.Column{col("i", check.Int, check.AffinityInteger, true), col("y", check.Int, check.AffinityInteger, false), col("b", check.Text, check.AffinityText, false), col("k", check.Int, check.AffinityInteger, false)}, Keys: []check.Key{{Cols: []int{0}, Primary: true}}},
	}}
}

const (
	limitsDDL  = "CREATE TABLE t(i INTEGER PRIMARY KEY, x INTEGER, a TEXT, j INTEGER); CREATE TABLE u(i INTEGER PRIMARY KEY, y INTEGER, b TEXT, k INTEGER)"
	limitsRows = "INSERT INTO t VALUES (1, 5, 'a', 1), (2, 7, 'b', 2); INSERT INTO u VALUES (1, 0, 'a', 1), (2, 0, 'b', 2);"
)

// TestProveRefusesWhatTheEngineRefuses: pairs an adversarial search
// found the kernel proving (each certificate accepted by check.Check),
// whose first query SQLite refuses when it prepares it, on every
// database, while it runs the second: an aggregate where the engines
// allow none (an ON, a WHERE, a GROUP BY, another aggregate), which a
// rule then dropped (left_join_elim, group_derived), and a query over the
// engine's size limits (check.SizeRisk) that a rule brought under them.
// A time function of a computed value, which may be 'now', or without a
// time value (strftime of a format alone) is refused too (SQLite reads the
// clock: two runs differ).
func TestProveRefusesWhatTheEngineRefuses(t *testing.T) {
	ctx := context.Background()
	s := limitsSchema()
	var joins strings.Builder
	for i := range 64 {
		fmt.Fprintf(&joins, " LEFT JOIN u AS u%d ON u%d.i = t.j", i, i)
	}
	for _, c := range []struct {
		q1, q2, stop, engine string
	}{
		{"SELECT t.i FROM t LEFT JOIN u ON u.i = t.j AND count(*) > 0", "SELECT t.i FROM t", "aggregate", "misuse of aggregate"},
		{"SELECT t.i FROM t LEFT JOIN (SELECT u.i AS i FROM u WHERE max(u.y) > 0) AS d ON d.i = t.j", "SELECT t.i FROM t", "aggregate", "misuse of aggregate"},
		{"SELECT t.i FROM t LEFT JOIN (SELECT max(count(u.y)) AS m FROM u) AS d ON d.m = t.x", "SELECT t.i FROM t", "aggregate", "misuse of aggregate"},
		{"SELECT DISTINCT d.a FROM (SELECT u.b AS a FROM u GROUP BY u.b, count(*)) AS d", "SELECT DISTINCT u.b FROM u", "aggregate", "aggregate functions are not allowed in the GROUP BY clause"},
		{"SELECT t.i, count(*) FROM t GROUP BY t.i, t.x" + strings.Repeat(" + 0", 1000), "SELECT t.i, count(*) FROM t GROUP BY t.i", "query size", "Expression tree is too large"},
		{"SELECT t.i FROM t" + joins.String(), "SELECT t.i FROM t", "query size", "at most 64 tables in a join"},
		{"SELECT strftime('%f', 'no' || 'w') FROM t", "SELECT strftime('%f', 'no' || 'w') FROM t WHERE 1 = 1", "current time", ""},
		{`SELECT strftime('%f', "now") FROM t`, `SELECT strftime('%f', "now") FROM t WHERE 1 = 1`, "current time", ""},
		// strftime with a format alone reads the clock (a fourth round's
		// helper: two runs 15 ms apart returned other rows).
		{"SELECT t.i FROM t WHERE strftime('%f') < '30'", "SELECT i FROM t WHERE strftime('%f') < '30'", "current time", ""},
		{"SELECT t.i, strftime(t.a) FROM t", "SELECT i, strftime(a) FROM t", "current time", ""},
	} {
		if a := Prove(ctx, c.q1, c.q2, s, Options{Rule: "bag", Solver: solver(t)}); a.Proved() || a.Stopped != c.stop {
			t.Errorf("%.80s / %s: proved %v, stopped by %q (%s), want %q", c.q1, c.q2, a.Proved(), a.Stopped, a.Detail, c.stop)
		}
		if c.engine == "" {
			continue
		}
		_, err1 := sqliteRun(t, limitsDDL, limitsRows, c.q1, false)
		_, err2 := sqliteRun(t, limitsDDL, limitsRows, c.q2, false)
		if err1 == nil || !strings.Contains(err1.Error(), c.engine) || err2 != nil {
			t.Errorf("%.80s / %s: SQLite gives %v and %v, want the first to fail with %q", c.q1, c.q2, err1, err2, c.engine)
		}
	}
	// What the checks leave: an aggregate in an output, a HAVING, a
	// subquery under an ON; a time function of a column.
	for _, p := range [][2]string{
		{"SELECT t.i FROM t LEFT JOIN (SELECT max(u.y) AS m FROM u) AS d ON d.m = t.x", "SELECT t.i FROM t LEFT JOIN (SELECT max(u.y) AS m FROM u) AS d ON t.x = d.m"},
		{"SELECT u.y, count(*) FROM u GROUP BY u.y HAVING count(*) > 1", "SELECT u.y, count(*) FROM u GROUP BY u.y HAVING 1 < count(*)"},
		{"SELECT strftime('%Y', t.a) FROM t WHERE t.x > 1", "SELECT strftime('%Y', t.a) FROM t WHERE 1 < t.x"},
	} {
		if a := Prove(ctx, p[0], p[1], s, Options{Rule: "bag", Solver: solver(t)}); !a.Proved() {
			t.Errorf("%s / %s: %s (%s)", p[0], p[1], a.Stopped, a.Detail)
		}
	}
}

// TestProveRefusesRowValuesAndLongCalls: a subquery of two columns
// where one value is wanted, and a call of 1,001 arguments, which SQLite
// refuses when it prepares the query, on every database; the kernel
// dropped or read them and proved each pair (a helper's search), and
// SQLite fails each q1 and runs its q2.
func TestProveRefusesRowValuesAndLongCalls(t *testing.T) {
	ctx := context.Background()
	s := riskSchema(check.SQLite)
	ddl := "CREATE TABLE t(i INTEGER, x INTEGER, a TEXT)"
	rows := "INSERT INTO t VALUES (5, 1, 'b'), (7, NULL, 'x');"
	long := "coalesce(x" + strings.Repeat(", x", 1000) + ")"
	for _, p := range []struct{ q1, q2, stop, err string }{
		{"SELECT d.i FROM (SELECT i, x = (SELECT v.x, v.a FROM t AS v) AS z FROM t) AS d", "SELECT i FROM t", "row value", "row value misused"},
		{"SELECT count(*) FROM (SELECT i, x BETWEEN 1 AND (SELECT v.x, v.a FROM t AS v) AS z FROM t) AS d", "SELECT count(*) FROM t", "row value", "row value misused"},
		{"WITH c AS MATERIALIZED (SELECT i, (SELECT v.x, v.a FROM t AS v) AS z FROM t) SELECT c.i FROM c", "SELECT i FROM t", "row value", "sub-select returns 2 columns"},
		{"SELECT i FROM t WHERE " + long + " = 1", "SELECT i FROM t WHERE x = 1", "query size", "too many arguments"},
		{"SELECT d.i FROM (SELECT i, " + long + " AS z FROM t) AS d", "SELECT i FROM t", "query size", "too many arguments"},
	} {
		if a := Prove(ctx, p.q1, p.q2, s, Options{Rule: "bag", Solver: solver(t)}); a.Proved() || a.Stopped != p.stop {
			t.Errorf("%.120s / %s: proved %v, stopped by %q (%s), want %s", p.q1, p.q2, a.Proved(), a.Stopped, a.Detail, p.stop)
		}
		_, err1 := sqliteRun(t, ddl, rows, p.q1, false)
		_, err2 := sqliteRun(t, ddl, rows, p.q2, false)
		if err1 == nil || !strings.Contains(err1.Error(), p.err) || err2 != nil {
			t.Errorf("%.120s / %s: SQLite gives %v and %v, want the first to fail (%s) and the second to run", p.q1, p.q2, err1, err2, p.err)
		}
	}
	// One column, and 100 arguments, still prove.
	for _, p := range [][2]string{
		{"SELECT i FROM t WHERE x = (SELECT max(v.x) FROM t AS v) AND i > 1", "SELECT i FROM t WHERE 1 < i AND x = (SELECT max(v.x) FROM t AS v)"},
		{"SELECT i FROM t WHERE coalesce(x" + strings.Repeat(", x", 99) + ") = 1 AND i > 1", "SELECT i FROM t WHERE 1 < i AND coalesce(x" + strings.Repeat(", x", 99) + ") = 1"},
	} {
		if a := Prove(ctx, p[0], p[1], s, Options{Rule: "bag", Solver: solver(t)}); !a.Proved() {
			t.Errorf("%.120s: %s (%s)", p[0], a.Stopped, a.Detail)
		}
	}
}
