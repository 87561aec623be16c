package prove

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/sqljudge/sqljudge/internal/prove/check"
)

// groupedMergeQuery draws a statement that reads a grouped FROM subquery
// as its only FROM item: its groups by one or two of compoundDDL's
// columns or an expression of one (NOCASE, untyped and REAL keys among
// them), aggregates, bare and grouped outputs; the query around it with a
// WHERE and outputs that compare its columns to literals of each kind
// (the subquery's columns carry their expressions' affinity and
// collation), DISTINCT, an ORDER BY over every output with LIMIT; at
// times one the rule refuses (an outer aggregate, d read in a correlated
// subquery, no GROUP BY, SUM dropped).
func groupedMergeQuery(r *rand.Rand) string {
	pick := func(xs ...string) string { return xs[r.IntN(len(xs))] }
	// Keys whose equal values are the same (i, a, lower(a)) most of the
	// time; else ones whose group's rows differ (NOCASE c, untyped x, REAL
	// r), whose reading the rule refuses.
	keys := [][]string{{"i"}, {"a"}, {"i", "a"}, {"lower(a)"}, {"a", "i"}, {"i"}, {"a"}, {"upper(c)"}, {"i"}, {"a"},
		{"c"}, {"x"}, {"r"}, {"i + 1"}, {"c COLLATE BINARY"}, {"i", "c"}, {"a", "x"}}[r.IntN(17)]
	cols := []string{}
	for k, key := range keys {
		cols = append(cols, fmt.Sprintf("%s AS k%d", key, k))
	}
	aggs := []string{"count(*)", "count(x)", "min(a)", "max(i)", "sum(i)", "count(c)", "max(i) + 1", "count(*) * 2", "min(a) || 'z'", "count(DISTINCT c)",
		"count(*)", "sum(i) - 1", "max(a)", "min(i)", "max(c)", "avg(r)", "total(x)", "min(c) || 'z'", "i", "a", "c"}
	for n := range 1 + r.IntN(3) {
		cols = append(cols, fmt.Sprintf("%s AS v%d", aggs[r.IntN(len(aggs))], n))
	}
	inner := fmt.Sprintf("SELECT %s FROM %s", strings.Join(cols, ", "), pick("t", "u", "t WHERE i IS NOT NULL", "u WHERE c <> 'b'", "t WHERE r > 1"))
	if r.IntN(12) != 0 {
		inner += " GROUP BY " + strings.Join(keys, ", ")
		if r.IntN(3) == 0 {
			inner += " HAVING " + pick("count(*) > 1", "min(i) = 1", "max(a) = 'a'", "sum(i) > 2", "count(c) >= 1", "max(c) = 'a'")
		}
	}
	names := []string{"d.k0", "d.v0"}
	for k := 1; k < len(cols); k++ {
		if k < len(keys) {
			names = append(names, fmt.Sprintf("d.k%d", k))
		} else {
			names = append(names, fmt.Sprintf("d.v%d", k-len(keys)))
		}
	}
	names = slices.Compact(names)
	out := func() string {
		n := names[r.IntN(len(names))]
		return pick(n, n, n, n+" + 1", "'z'", n+" COLLATE NOCASE", "CASE WHEN "+n+" > 1 THEN "+n+" END", n+" = '1'")
	}
	var outs []string
	for range 1 + r.IntN(3) {
		outs = append(outs, out())
	}
	if r.IntN(15) == 0 {
		outs = append(outs, "count(*)") // refused: the outer query aggregates
	}
	q := "SELECT "
	if r.IntN(4) == 0 {
		q += "DISTINCT "
	}
	q += strings.Join(outs, ", ") + " FROM (" + inner + ") AS d"
	if r.IntN(3) != 0 {
		n := names[r.IntN(len(names))]
		q += " WHERE " + pick(n+" > 1", n+" = 'a'", n+" = 1", n+" = '1'", n+" IS NULL", n+" IN (1, 'a', 2.0)", n+" LIKE 'a%'",
			n+" = 'A'", n+" BETWEEN 1 AND 2", n+" IN (SELECT i FROM u)", "EXISTS (SELECT 1 FROM u WHERE u.c = "+n+")")
	}
	if r.IntN(4) == 0 && !strings.Contains(q, "count(*) FROM (") {
		// An ORDER BY of every output and every column of d: a total
		// order of d's rows, so that LIMIT keeps the same ones.
		var terms []string
		for k := range outs {
			terms = append(terms, fmt.Sprint(k+1))
		}
		q += " ORDER BY " + strings.Join(append(terms, names...), ", ") + " LIMIT " + pick("1", "2", "3 OFFSET 1")
	}
	return q
}

// TestGroupedMergeOnSQLite: grouped_merge keeps the result of every
// statement it rewrites, on SQLite, value by value and storage class by
// storage class (in order under ORDER BY … LIMIT), and fails where the
// statement fails: 600 statements of groupedMergeQuery, each where the
// rule applies run before and after it on 30 databases of compoundRows.
func TestGroupedMergeOnSQLite(t *testing.T) {
	s := compoundSchema()
	r := rand.New(rand.NewPCG(11, 3))
	applied, refused, unread, failing := 0, 0, 0, 0
	for range 600 {
		q := groupedMergeQuery(r)
		after, readErr, err := applyAtSubquery(check.RuleGroupedMerge, q, s)
		if readErr != nil {
			unread++
			continue
		}
		if err != nil {
			refused++
			continue
		}
		applied++
		failing += sameOnDatabases(t, r, check.RuleGroupedMerge, q, after, strings.Contains(q, " LIMIT "))
	}
	if applied < 150 || refused == 0 {
		t.Errorf("the rule applied to %d statements and refused %d: the generator no longer reaches both", applied, refused)
	}
	t.Logf("grouped_merge: %d statements rewritten (each on 30 databases, %d runs failing both ways), %d refused, %d not read by the canonical form", applied, failing, refused, unread)
}

// TestGroupedMergeCases: what grouped_merge writes for a filtered, sorted
// and limited read of a grouped FROM subquery, and what it refuses, each
// refusal with the database on which the merge would change the result.
func TestGroupedMergeCases(t *testing.T) {
	s := compoundSchema()
	apply := func(q string) (string, error) {
		after, readErr, err := applyAtSubquery(check.RuleGroupedMerge, q, s)
		if readErr != nil {
			t.Fatalf("%s: %v", q, readErr)
		}
		return after, err
	}
	got, err := apply("SELECT d.k FROM (SELECT a AS k, count(*) AS n FROM t GROUP BY a) AS d WHERE d.n > 1 ORDER BY d.n DESC, d.k LIMIT 2")
	if want := "SELECT a1.a FROM t AS a1 GROUP BY a1.a HAVING count(*) > 1 ORDER BY count(*) DESC, a1.a LIMIT 2"; err != nil || got != want {
		t.Errorf("merged into %q (%v), want %q", got, err, want)
	}
	for _, tc := range []struct {
		q, merged, rows string // merged: the query the merge would write, different on rows
	}{
		// SQLite's SUM of integers fails on an overflow; the merged query
		// drops it and runs.
		{"SELECT d.k FROM (SELECT i AS k, sum(i) AS s FROM t GROUP BY i) AS d",
			"SELECT i FROM t GROUP BY i",
			"INSERT INTO t(i) VALUES (9223372036854775807), (9223372036854775807)"},
		// c is a bare column: SQLite takes it from the row of min(a),
		// which the merged query no longer computes.
		{"SELECT d.k, d.v FROM (SELECT i AS k, min(a) AS m, c AS v FROM t GROUP BY i) AS d",
			"SELECT i, c FROM t GROUP BY i",
			"INSERT INTO t(i, a, c) VALUES (1, 'b', 'x'), (1, 'a', 'y')"},
		// The subquery's HAVING reads the bare column c from the row of
		// max(a); the merged query, without max(a), from another row.
		{"SELECT d.k FROM (SELECT i AS k, max(a) AS m FROM t GROUP BY i HAVING c = 'y') AS d",
			"SELECT i FROM t GROUP BY i HAVING c = 'y'",
			"INSERT INTO t(i, a, c) VALUES (1, 'a', 'x'), (1, 'b', 'y')"},
		// Without GROUP BY the subquery is one row, the merged query one
		// row for each of t's.
		{"SELECT 1 FROM (SELECT count(*) AS n FROM t) AS d",
			"SELECT 1 FROM t",
			"INSERT INTO t(i) VALUES (1), (2)"},
		// count(*) inside the subquery counts u's rows, not the group's.
		{"SELECT d.k FROM (SELECT i AS k, count(*) AS n FROM t GROUP BY i) AS d WHERE EXISTS (SELECT 1 FROM u WHERE u.i = d.n)",
			"SELECT i FROM t GROUP BY i HAVING EXISTS (SELECT 1 FROM u WHERE u.i = count(*))",
			"INSERT INTO t(i) VALUES (1), (1); INSERT INTO u(i) VALUES (1)"},
	} {
		if after, err := apply(tc.q); err == nil {
			t.Errorf("grouped_merge rewrote %s into %s", tc.q, after)
		}
		if same, rows := sameOn(t, tc.rows, tc.q, tc.merged); same {
			t.Errorf("%s and %s agree on %s (%v): the case no longer shows why the rule refuses", tc.q, tc.merged, tc.rows, rows)
		}
	}
	for _, q := range []string{
		"SELECT count(*) FROM (SELECT i AS k FROM t GROUP BY i) AS d",               // the outer query aggregates (agg_merge's)
		"SELECT d.k FROM (SELECT DISTINCT i AS k FROM t GROUP BY i, a) AS d",        // DISTINCT in the subquery
		"SELECT d.k FROM (SELECT i AS k FROM t GROUP BY i LIMIT 1) AS d",            // LIMIT in the subquery
		"SELECT d.k FROM (SELECT i AS k FROM t GROUP BY i) AS d, u WHERE u.i = d.k", // another FROM item
		"SELECT d.k FROM (SELECT c AS k FROM t GROUP BY c) AS d",                    // a NOCASE key: 'a' or 'A'
	} {
		if after, err := apply(q); err == nil {
			t.Errorf("grouped_merge rewrote %s into %s", q, after)
		}
	}
}

// applyAtSubquery applies rule to q's canonical form over s at its first
// FROM subquery: the query rewritten, or the canonical form's error
// (readErr: the kernel does not read q) or the rule's (ruleErr).
func applyAtSubquery(rule, q string, s check.Schema) (after string, readErr, ruleErr error) {
	c, err := check.Canonicalize(q, s, "a")
	if err != nil {
		return "", err, nil
	}
	after, _, err = check.Apply(rule, c.SQL(), strings.Index(c.SQL(), "(SELECT"), s)
	return after, nil, err
}

// sameOnDatabases runs q and after, the statement rule wrote from it, on
// 30 SQLite databases of compoundDDL and compoundRows, in order when
// ordered: the test fails where they differ in rows, values or storage
// classes, or in whether they fail. It returns the number of databases on
// which both fail.
func sameOnDatabases(t *testing.T, r *rand.Rand, rule, q, after string, ordered bool) (failing int) {
	t.Helper()
	return sameOnDatabasesOf(t, r, compoundDDL, compoundRows, rule, q, after, ordered)
}

// sameOnDatabasesOf is sameOnDatabases on 30 databases of ddl and rows
// drawn by draw.
func sameOnDatabasesOf(t *testing.T, r *rand.Rand, ddl string, draw func(*rand.Rand) string, rule, q, after string, ordered bool) (failing int) {
	t.Helper()
	for range 30 {
		rows := draw(r)
		want, werr := sqliteRun(t, ddl, rows, q, ordered)
		got, gerr := sqliteRun(t, ddl, rows, after, ordered)
		if (werr == nil) != (gerr == nil) {
			t.Fatalf("%s changes whether the statement fails:\n%s\n%s\nrows %s\nbefore %v\nafter  %v", rule, q, after, rows, werr, gerr)
		}
		if werr != nil {
			failing++
			continue
		}
		if !slices.Equal(want, got) {
			t.Fatalf("%s changes the result:\n%s\n%s\nrows %s\nbefore %v\nafter  %v", rule, q, after, rows, want, got)
		}
	}
	return failing
}

// sameOn runs q1 and q2 on one SQLite database of compoundDDL and rows:
// whether both run and return the same rows (as a bag), and q1's rows.
func sameOn(t *testing.T, rows, q1, q2 string) (bool, []string) {
	t.Helper()
	r1, err1 := sqliteRun(t, compoundDDL, rows, q1, false)
	r2, err2 := sqliteRun(t, compoundDDL, rows, q2, false)
	return err1 == nil && err2 == nil && slices.Equal(r1, r2), r1
}
