package prove

import (
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/sqljudge/sqljudge/internal/prove/check"
)

// TestAggMergeDistinctOnSQLite: agg_merge's DISTINCT form (an aggregate of
// an inner GROUP BY column whose groups the outer ones split by it alone
// is the DISTINCT aggregate) and its CAST AS INTEGER of an integer
// aggregate write what they should, and keep the result on 40 SQLite
// databases each (compoundRows: NULLs, repeated values); an inner GROUP BY
// that splits further is refused, and the database shows why.
func TestAggMergeDistinctOnSQLite(t *testing.T) {
	s := compoundSchema()
	r := rand.New(rand.NewPCG(5, 9))
	apply := func(q string) (string, error) {
		after, readErr, err := applyAtSubquery(check.RuleAggMerge, q, s)
		if readErr != nil {
			t.Fatalf("%s: %v", q, readErr)
		}
		return after, err
	}
	for _, tc := range []struct{ q, want string }{
		{"SELECT CAST(COALESCE(SUM(d.n), 0) AS BIGINT), COUNT(d.k), SUM(d.k), MAX(d.k) FROM (SELECT i AS k, COUNT(*) AS n FROM t GROUP BY i) AS d",
			"SELECT count(*), count(DISTINCT a1.i), sum(DISTINCT a1.i), max(a1.i) FROM t AS a1"},
		{"SELECT d.a, CAST(SUM(d.n) AS INT), COUNT(d.i), MIN(d.i) FROM (SELECT a, i, COUNT(*) AS n FROM t WHERE i IS NOT NULL OR a = 'a' GROUP BY a, i) AS d GROUP BY d.a",
			"SELECT a1.a, count(*), count(DISTINCT a1.i), min(a1.i) FROM t AS a1 WHERE a1.i IS NOT NULL OR a1.a = 'a' GROUP BY a1.a"},
		{"SELECT d.k, CAST(SUM(d.s) AS INTEGER), SUM(d.k) FROM (SELECT i AS k, SUM(i) AS s FROM u GROUP BY i) AS d GROUP BY d.k",
			"SELECT a1.i, sum(a1.i), sum(DISTINCT a1.i) FROM u AS a1 GROUP BY a1.i"},
	} {
		got, err := apply(tc.q)
		if err != nil || got != tc.want {
			t.Errorf("%s\nmerged into %q (%v)\nwant %q", tc.q, got, err, tc.want)
			continue
		}
		for range 40 {
			rows := compoundRows(r)
			before, berr := sqliteRun(t, compoundDDL, rows, tc.q, false)
			after, aerr := sqliteRun(t, compoundDDL, rows, got, false)
			if berr != nil || aerr != nil || !slices.Equal(before, after) {
				t.Fatalf("agg_merge changes the result:\n%s\n%s\nrows %s\nbefore %v (%v)\nafter  %v (%v)", tc.q, got, rows, before, berr, after, aerr)
			}
		}
	}
	// Split by a too: a value of i repeats in d, once for each a.
	split := "SELECT COUNT(d.k) FROM (SELECT i AS k FROM t GROUP BY i, a) AS d"
	if got, err := apply(split); err == nil {
		t.Errorf("agg_merge rewrote %s into %s", split, got)
	}
	rows := "INSERT INTO t(i, a) VALUES (1, 'a'), (1, 'b')"
	if same, _ := sameOn(t, rows, split, "SELECT count(DISTINCT i) FROM t"); same {
		t.Errorf("%s equals count(DISTINCT i) on %s: the case no longer shows why the rule refuses", split, rows)
	}
	// A CAST to another type than INTEGER around a merging form is not
	// read.
	if got, err := apply("SELECT d.a, CAST(SUM(d.n) AS REAL) FROM (SELECT a, i, COUNT(*) AS n FROM t GROUP BY a, i) AS d GROUP BY d.a"); err == nil {
		t.Errorf("agg_merge rewrote CAST AS REAL into %s", got)
	}
	// Below the statement the CAST's INTEGER affinity is read: e.c = '2'
	// holds for CAST(count AS INT) = 2, not for count(*) = 2.
	nested := "SELECT e.c FROM (SELECT CAST(COALESCE(SUM(d.n), 0) AS INT) AS c FROM (SELECT i, COUNT(*) AS n FROM t GROUP BY i) AS d) AS e WHERE e.c = '2'"
	c, err := check.Canonicalize(nested, s, "a")
	if err != nil {
		t.Fatal(err)
	}
	inner := strings.LastIndex(c.SQL(), "(SELECT")
	if got, _, err := check.Apply(check.RuleAggMerge, c.SQL(), inner, s); err == nil && !strings.Contains(got, "CAST") {
		t.Errorf("agg_merge dropped a CAST whose affinity the statement reads: %s", got)
	}
	rows = "INSERT INTO t(i) VALUES (1), (1)"
	if same, withCast := sameOn(t, rows, nested, "SELECT e.c FROM (SELECT count(*) AS c FROM t) AS e WHERE e.c = '2'"); same {
		t.Errorf("the CAST's affinity no longer shows on %s: %v", rows, withCast)
	}
	// A column whose equal values differ (NOCASE c): MIN(d.k) is not MIN(c).
	if got, err := apply("SELECT MIN(d.k) FROM (SELECT c AS k FROM t GROUP BY c) AS d"); err == nil {
		t.Errorf("agg_merge rewrote MIN over a NOCASE GROUP BY column into %s", got)
	}
}
