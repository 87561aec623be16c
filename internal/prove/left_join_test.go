package prove

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/sqljudge/sqljudge/internal/prove/check"
	"github.com/sqljudge/sqljudge/internal/sqlast"
)

// leftJoinQuery draws a statement with a LEFT JOIN of a table or of a FROM
// subquery that nothing but its ON reads (at times something else does):
// the right side u itself, u grouped by one or two of compoundDDL's
// columns (NOCASE, untyped and REAL ones among them), u's distinct rows or
// one aggregate row; an ON that equates its columns with t's or with
// literals, at times with one more conjunct or one that may fail; a
// SELECT that is DISTINCT or not, grouped (by tie-safe terms or not,
// with aggregates that count copies of a row or not), or the body of an
// EXISTS or an IN.
func leftJoinQuery(r *rand.Rand) string {
	pick := func(xs ...string) string { return xs[r.IntN(len(xs))] }
	cols := []string{"i", "a", "c", "x", "r"}
	// The right side and the columns its ON may equate.
	var right string
	var keys []string
	switch r.IntN(5) {
	case 0:
		right, keys = "u AS d", []string{"i", "a", "c", "x"}
	case 1, 2:
		g := []string{pick(cols...)}
		if r.IntN(3) == 0 {
			g = append(g, pick(cols...))
		}
		g = slices.Compact(g)
		var outs []string
		for k, x := range g {
			outs = append(outs, fmt.Sprintf("%s AS k%d", x, k))
			keys = append(keys, fmt.Sprintf("k%d", k))
		}
		outs = append(outs, pick("count(*) AS n", "max(i) AS n", "min(a) AS n", "sum(i) AS n", "abs(min(i)) AS n", "a AS n"))
		right = fmt.Sprintf("(SELECT %s FROM u%s GROUP BY %s%s) AS d", strings.Join(outs, ", "), pick("", "", " WHERE i > 1", " WHERE i + 1 > 1"), strings.Join(g, ", "), pick("", "", " HAVING count(*) > 1"))
	case 3:
		g := []string{pick(cols...), pick(cols...)}
		g = slices.Compact(g)
		var outs []string
		for k, x := range g {
			outs = append(outs, fmt.Sprintf("%s AS k%d", x, k))
			keys = append(keys, fmt.Sprintf("k%d", k))
		}
		right = fmt.Sprintf("(SELECT DISTINCT %s FROM u%s) AS d", strings.Join(outs, ", "), pick("", " WHERE c <> 'b'"))
	default:
		right, keys = fmt.Sprintf("(SELECT %s AS k0 FROM u) AS d", pick("count(*)", "max(i)", "min(a)", "sum(i)")), []string{"k0"}
	}
	var on []string
	for _, k := range keys {
		if r.IntN(3) != 0 || len(on) == 0 {
			on = append(on, fmt.Sprintf("d.%s = %s", k, pick("t.i", "t.a", "t.c", "t.x", "t.r", "1", "'a'", "t.i + 0")))
		}
	}
	if r.IntN(4) == 0 {
		on = append(on, pick("t.i > 1", "d."+keys[0]+" IS NOT NULL", "abs(t.i) > 0", "t.a LIKE 'a%'"))
	}
	from := "t LEFT JOIN " + right + " ON " + strings.Join(on, " AND ")
	out := func() string { return pick("t.i", "t.a", "t.c", "t.x", "t.r", "t.i", "t.a", "d."+keys[0]) }
	outs := []string{out()}
	if r.IntN(2) == 0 {
		outs = append(outs, out())
	}
	where := pick("", "", " WHERE t.i IS NOT NULL", " WHERE t.a <> 'b'")
	if r.IntN(5) == 0 {
		// Grouped: by tie-safe terms or not, with aggregates that copies
		// of a row change or do not.
		g := pick("t.i", "t.a", "t.r", "t.c", "t.x")
		agg := pick("count(DISTINCT t.a)", "count(DISTINCT t.c)", "max(t.i)", "min(t.a)", "max(t.c)", "min(t.x)", "count(*)", "sum(t.i)", "count(t.a)", "max(d."+keys[0]+")", "group_concat(DISTINCT t.a)", "t.a")
		q := fmt.Sprintf("SELECT %s, %s FROM %s%s GROUP BY %s", g, agg, from, where, g)
		if r.IntN(3) == 0 {
			q += " ORDER BY " + pick(g, agg, "t.r")
		}
		return q
	}
	switch r.IntN(6) {
	case 0:
		return fmt.Sprintf("SELECT u.i FROM u WHERE EXISTS (SELECT %s FROM %s%s)", outs[0], from, where)
	case 1:
		return fmt.Sprintf("SELECT u.i FROM u WHERE u.a IN (SELECT %s FROM %s%s)", outs[0], from, where)
	case 2, 3:
		q := fmt.Sprintf("SELECT DISTINCT %s FROM %s%s", strings.Join(outs, ", "), from, where)
		if r.IntN(3) == 0 {
			q += " ORDER BY " + pick("1", outs[0], "t.r")
		}
		return q
	}
	return fmt.Sprintf("SELECT %s FROM %s%s", strings.Join(outs, ", "), from, where)
}

// applyAtLeftJoin applies rule to q's canonical form over s at its first
// LEFT JOIN: the query rewritten, or the canonical form's error (readErr)
// or the rule's (ruleErr).
func applyAtLeftJoin(rule, q string, s check.Schema) (after string, readErr, ruleErr error) {
	c, err := check.Canonicalize(q, s, "a")
	if err != nil {
		return "", err, nil
	}
	parsed, err := sqlast.Parse(c.SQL())
	if err != nil {
		return "", err, nil
	}
	sites := leftJoinSites(parsed)
	if len(sites) == 0 {
		return "", fmt.Errorf("no LEFT JOIN in %s", c.SQL()), nil
	}
	after, _, err = check.Apply(rule, c.SQL(), sites[0], s)
	return after, nil, err
}

// TestLeftJoinRulesOnSQLite: left_join_elim (a LEFT JOIN of a FROM
// subquery on its groups or its distinct rows) and left_join_copies (a
// LEFT JOIN under DISTINCT, EXISTS or IN) keep the result of every
// statement they rewrite, on SQLite, value by value and storage class by
// storage class, and fail where the statement fails: 1,500 statements of
// leftJoinQuery, each where a rule applies run before and after it on 30
// databases of compoundRows.
func TestLeftJoinRulesOnSQLite(t *testing.T) {
	s := compoundSchema()
	r := rand.New(rand.NewPCG(17, 5))
	applied := map[string]int{}
	refused, unread, failing := 0, 0, 0
	for range 1500 {
		q := leftJoinQuery(r)
		for _, rule := range []string{check.RuleLeftJoinElim, check.RuleLeftJoinCopies} {
			after, readErr, err := applyAtLeftJoin(rule, q, s)
			if readErr != nil {
				unread++
				break
			}
			if err != nil {
				refused++
				continue
			}
			applied[rule]++
			failing += sameOnDatabases(t, r, rule, q, after, false)
		}
	}
	if applied[check.RuleLeftJoinElim] < 60 || applied[check.RuleLeftJoinCopies] < 150 || refused == 0 {
		t.Errorf("left_join_elim applied to %d statements, left_join_copies to %d, %d refusals: the generator no longer reaches them", applied[check.RuleLeftJoinElim], applied[check.RuleLeftJoinCopies], refused)
	}
	t.Logf("left_join_elim rewrote %d statements, left_join_copies %d (each on 30 databases, %d runs failing both ways); %d refusals, %d not read by the canonical form", applied[check.RuleLeftJoinElim], applied[check.RuleLeftJoinCopies], failing, refused, unread)
}

// TestLeftJoinCases: what left_join_elim, left_join_copies and
// distinct_lift write, and what they refuse, each refusal with the
// database on which the rewrite would change the result.
func TestLeftJoinCases(t *testing.T) {
	s := compoundSchema()
	for _, tc := range []struct{ rule, q, want string }{
		{check.RuleLeftJoinElim, "SELECT t.i FROM t LEFT JOIN (SELECT i AS k, count(*) AS n FROM u GROUP BY i) AS d ON d.k = t.i AND d.n > 1",
			"SELECT a1.i FROM t AS a1"},
		{check.RuleLeftJoinElim, "SELECT t.a FROM t LEFT JOIN (SELECT DISTINCT i AS k, a AS b FROM u) AS d ON d.k = t.i AND d.b = 'a'",
			"SELECT a1.a FROM t AS a1"},
		{check.RuleLeftJoinCopies, "SELECT DISTINCT t.i, t.a FROM t LEFT JOIN u ON t.c = u.c WHERE t.i > 1 ORDER BY t.a",
			"SELECT DISTINCT a1.i, a1.a FROM t AS a1 WHERE a1.i > 1 ORDER BY a1.a"},
		{check.RuleLeftJoinCopies, "SELECT i FROM u WHERE EXISTS (SELECT 1 FROM t LEFT JOIN u AS v ON t.x = v.x WHERE t.i = u.i)",
			"SELECT a1.i FROM u AS a1 WHERE EXISTS (SELECT 1 FROM t AS a2 WHERE a2.i = a1.i)"},
		// Grouped by a tie-safe term, with aggregates copies do not change
		// (calcite-225).
		{check.RuleLeftJoinCopies, "SELECT t.i, count(DISTINCT t.c), max(t.a), 7 FROM t LEFT JOIN u ON t.i = u.i GROUP BY t.i ORDER BY 2",
			"SELECT a1.i, count(DISTINCT a1.c), max(a1.a), 7 FROM t AS a1 GROUP BY a1.i ORDER BY count(DISTINCT a1.c)"},
	} {
		after, readErr, err := applyAtLeftJoin(tc.rule, tc.q, s)
		if readErr != nil || err != nil || after != tc.want {
			t.Errorf("%s: %s\nwrote %q (%v, %v)\nwant  %q", tc.rule, tc.q, after, readErr, err, tc.want)
		}
	}
	rules := []string{check.RuleLeftJoinElim, check.RuleLeftJoinCopies}
	for _, tc := range []struct {
		q, without, rows string // without: the query without the LEFT JOIN, different on rows
	}{
		// Not every GROUP BY term bound: two groups of u meet t's row.
		{"SELECT t.i FROM t LEFT JOIN (SELECT i AS k, a AS b FROM u GROUP BY i, a) AS d ON d.k = t.i",
			"SELECT t.i FROM t",
			"INSERT INTO t(i) VALUES (1); INSERT INTO u(i, a) VALUES (1, 'a'), (1, 'b')"},
		// Groups of a under BINARY, compared under t.c's NOCASE.
		{"SELECT t.i FROM t LEFT JOIN (SELECT a AS k FROM u GROUP BY a) AS d ON t.c = d.k",
			"SELECT t.i FROM t",
			"INSERT INTO t(i, c) VALUES (1, 'a'); INSERT INTO u(a) VALUES ('a'), ('A')"},
		// Groups of an untyped column (1 and '1' apart), compared with an
		// INTEGER column, which converts '1' to 1.
		{"SELECT t.i FROM t LEFT JOIN (SELECT x AS k FROM u GROUP BY x) AS d ON t.i = d.k",
			"SELECT t.i FROM t",
			"INSERT INTO t(i) VALUES (1); INSERT INTO u(x) VALUES (1), ('1')"},
		// Two columns of the Other family: groups of the untyped x apart
		// under BINARY, compared under t.c's NOCASE.
		{"SELECT t.i FROM t LEFT JOIN (SELECT x AS k FROM u GROUP BY x) AS d ON t.c = d.k",
			"SELECT t.i FROM t",
			"INSERT INTO t(i, c) VALUES (1, 'a'); INSERT INTO u(x) VALUES ('a'), ('A')"},
		// SQLite's SUM of integers fails on an overflow; without the
		// subquery the query runs.
		{"SELECT u.i FROM u WHERE EXISTS (SELECT 1 FROM t LEFT JOIN (SELECT i AS k, sum(i) AS n FROM u GROUP BY i) AS d ON d.k = t.i)",
			"SELECT u.i FROM u WHERE EXISTS (SELECT 1 FROM t)",
			"INSERT INTO t(i) VALUES (1); INSERT INTO u(i) VALUES (9223372036854775807), (9223372036854775807)"},
		// An ON that fails (abs of the smallest integer).
		{"SELECT u.i FROM u WHERE EXISTS (SELECT 1 FROM t LEFT JOIN u AS v ON t.i = v.i AND abs(v.i - 1) > 0)",
			"SELECT u.i FROM u WHERE EXISTS (SELECT 1 FROM t)",
			"INSERT INTO t(i) VALUES (-9223372036854775807); INSERT INTO u(i) VALUES (-9223372036854775807)"},
		// No DISTINCT: the copies show.
		{"SELECT t.i FROM t LEFT JOIN u ON t.i = u.i",
			"SELECT t.i FROM t",
			"INSERT INTO t(i) VALUES (1); INSERT INTO u(i) VALUES (1), (1)"},
		// The outer query counts.
		{"SELECT count(DISTINCT t.i), count(*) FROM t LEFT JOIN u ON t.i = u.i",
			"SELECT count(DISTINCT t.i), count(*) FROM t",
			"INSERT INTO t(i) VALUES (1); INSERT INTO u(i) VALUES (1), (1)"},
		// Grouped: COUNT(*) and SUM count the copies.
		{"SELECT t.i, count(*) FROM t LEFT JOIN u ON t.i = u.i GROUP BY t.i",
			"SELECT t.i, count(*) FROM t GROUP BY t.i",
			"INSERT INTO t(i) VALUES (1); INSERT INTO u(i) VALUES (1), (1)"},
		{"SELECT t.a, sum(t.i) FROM t LEFT JOIN u ON t.i = u.i GROUP BY t.a",
			"SELECT t.a, sum(t.i) FROM t GROUP BY t.a",
			"INSERT INTO t(i, a) VALUES (1, 'a'); INSERT INTO u(i) VALUES (1), (1)"},
		// The right side read outside its ON.
		{"SELECT DISTINCT t.i, u.a FROM t LEFT JOIN u ON t.i = u.i",
			"SELECT DISTINCT t.i, NULL FROM t",
			"INSERT INTO t(i) VALUES (1); INSERT INTO u(i, a) VALUES (1, 'a')"},
	} {
		for _, rule := range rules {
			if after, readErr, err := applyAtLeftJoin(rule, tc.q, s); readErr != nil || err == nil {
				t.Errorf("%s rewrote %s into %s (%v)", rule, tc.q, after, readErr)
			}
		}
		if same, rows := sameOn(t, tc.rows, tc.q, tc.without); same {
			t.Errorf("%s and %s agree on %s (%v): the case no longer shows why the rules refuse", tc.q, tc.without, tc.rows, rows)
		}
	}
	// DISTINCT keeps one of 'a' and 'A' under NOCASE, which the join may
	// change.
	for _, q := range []string{
		"SELECT DISTINCT t.c FROM t LEFT JOIN u ON t.i = u.i",
		"SELECT DISTINCT t.i FROM t LEFT JOIN u ON t.i = u.i ORDER BY t.a", // a sort key read from a row DISTINCT folds
		"SELECT DISTINCT t.i FROM t LEFT JOIN u ON t.i = u.i LIMIT 1",
		"SELECT t.c, count(DISTINCT t.i) FROM t LEFT JOIN u ON t.i = u.i GROUP BY t.c", // a NOCASE group shows one of its rows' values
		"SELECT t.i, min(t.c) FROM t LEFT JOIN u ON t.i = u.i GROUP BY t.i",            // MIN keeps one of 'a' and 'A'
		"SELECT t.i, count(DISTINCT t.a) FROM t LEFT JOIN u ON t.i = u.i GROUP BY t.i HAVING count(*) > 1",
		"SELECT t.i, count(DISTINCT t.a) FROM t LEFT JOIN u ON t.i = u.i GROUP BY t.i ORDER BY t.r",
	} {
		if after, readErr, err := applyAtLeftJoin(check.RuleLeftJoinCopies, q, s); readErr == nil && err == nil {
			t.Errorf("left_join_copies rewrote %s into %s", q, after)
		}
	}
}

// TestLeftJoinElimFailingOn: left_join_elim keeps a LEFT JOIN on a key
// whose ON may fail (abs of the smallest integer overflows on SQLite, ||
// past the longest string, a division by zero fails on PostgreSQL): SQL
// evaluates the ON for each
// pair of rows, and without the table the query would not. (SQLite and
// PostgreSQL remove such a join themselves, their LEFT JOIN elimination,
// so neither shows the failure; the rule does not rely on a plan.)
func TestLeftJoinElimFailingOn(t *testing.T) {
	s := &check.MapSchema{D: check.SQLite, Tables: []*check.Table{
		{Name: "t", Columns: []check.Column{{Name: "i", Family: check.Int, Affinity: check.AffinityInteger}, {Name: "a", Family: check.Text, Affinity: check.AffinityText}}},
		{Name: "k", Columns: []check.Column{{Name: "i", Family: check.Int, Affinity: check.AffinityInteger}, {Name: "a", Family: check.Text, Affinity: check.AffinityText}},
			Keys: []check.Key{{Cols: []int{0}, Primary: true}}},
	}}
	if after, readErr, err := applyAtLeftJoin(check.RuleLeftJoinElim, "SELECT t.i FROM t LEFT JOIN k ON k.i = t.i AND k.a > 'a'", s); readErr != nil || err != nil || after != "SELECT a1.i FROM t AS a1" {
		t.Fatalf("left_join_elim on a key: %q (%v, %v)", after, readErr, err)
	}
	pg := *s
	pg.D = check.Postgres
	for _, q := range []string{
		"SELECT t.i FROM t LEFT JOIN k ON k.i = t.i AND abs(k.i - 1) > 0",
		"SELECT t.i FROM t LEFT JOIN k ON k.i = t.i AND k.a LIKE t.a",
		"SELECT t.i FROM t LEFT JOIN k ON k.i = t.i AND k.a = (SELECT a FROM t)",
		"SELECT t.i FROM t LEFT JOIN k ON k.i = t.i AND k.a || t.a > 'a'",
	} {
		for _, sc := range []*check.MapSchema{s, &pg} {
			if after, readErr, err := applyAtLeftJoin(check.RuleLeftJoinElim, q, sc); readErr != nil || err == nil {
				t.Errorf("left_join_elim on %s rewrote %s into %s (%v)", sc.D, q, after, readErr)
			}
		}
	}
	// Arithmetic and CAST fail on PostgreSQL (a division by zero, an
	// overflow, a bad input), never on SQLite (TestFailFreeOnSQLite).
	for _, q := range []string{
		"SELECT t.i FROM t LEFT JOIN k ON k.i = t.i AND 1 / (k.i - t.i) > 0",
		"SELECT t.i FROM t LEFT JOIN k ON k.i = t.i AND CAST(k.a AS INTEGER) > 0",
	} {
		if after, readErr, err := applyAtLeftJoin(check.RuleLeftJoinElim, q, &pg); readErr != nil || err == nil {
			t.Errorf("left_join_elim on PostgreSQL rewrote %s into %s (%v)", q, after, readErr)
		}
		if after, readErr, err := applyAtLeftJoin(check.RuleLeftJoinElim, q, s); readErr != nil || err != nil || after != "SELECT a1.i FROM t AS a1" {
			t.Errorf("left_join_elim on SQLite: %s gave %q (%v, %v), want the join removed", q, after, readErr, err)
		}
	}
}

// TestFailFreeOnSQLite holds what failFree accepts on SQLite beyond
// comparisons: +, -, *, /, % and unary minus and plus, and CAST to every
// type, on the values that make other engines fail (the largest and
// smallest integers, zero, a real beyond the integers, text that is and is
// not a number, a BLOB, NULL): each expression runs on every pair of them
// without an error, and left_join_elim takes it in an ON on SQLite while
// refusing it on PostgreSQL.
func TestFailFreeOnSQLite(t *testing.T) {
	ddl := "CREATE TABLE t(i INTEGER, a TEXT); CREATE TABLE k(i INTEGER PRIMARY KEY, a TEXT)"
	var rows []string
	for n, v := range []string{"9223372036854775807", "-9223372036854775808", "0", "-1", "1.5", "1e308", "'abc'", "'12x'", "x'ff00'", "NULL", "'9223372036854775808'"} {
		rows = append(rows, fmt.Sprintf("INSERT INTO t VALUES (%s, %[1]s); INSERT INTO k VALUES (%d, %s);", v, n, v))
	}
	s := &check.MapSchema{D: check.SQLite, Tables: []*check.Table{
		{Name: "t", Columns: []check.Column{{Name: "i", Family: check.Int, Affinity: check.AffinityInteger}, {Name: "a", Family: check.Text, Affinity: check.AffinityText}}},
		{Name: "k", Columns: []check.Column{{Name: "i", Family: check.Int, Affinity: check.AffinityInteger, NotNull: true}, {Name: "a", Family: check.Text, Affinity: check.AffinityText}},
			Keys: []check.Key{{Cols: []int{0}, Primary: true}}},
	}}
	pg := *s
	pg.D = check.Postgres
	for _, e := range []string{
		"t.i + k.a", "t.i - t.a", "t.a * k.a", "t.i / t.a", "k.a % t.i", "t.a / 0", "t.i % 0.0", "-t.i", "+t.a", "-(t.i - 1) * (t.a + 1) / (t.i % k.a)",
		"CAST(t.a AS INTEGER)", "CAST(t.i AS TEXT)", "CAST(t.a AS REAL)", "CAST(t.i * t.i AS NUMERIC)", "CAST(t.a AS BLOB)", "CAST(-t.a AS INT) / CAST(t.i AS REAL)",
	} {
		if _, err := sqliteRun(t, ddl, strings.Join(rows, " "), fmt.Sprintf("SELECT %s FROM t, t AS u, k", strings.ReplaceAll(e, "k.a", "u.a")), false); err != nil {
			t.Errorf("SQLite fails %s: %v", e, err)
		}
		q := fmt.Sprintf("SELECT t.i FROM t LEFT JOIN k ON k.i = t.i AND %s > 0", e)
		if after, readErr, err := applyAtLeftJoin(check.RuleLeftJoinElim, q, s); readErr != nil || err != nil || after != "SELECT a1.i FROM t AS a1" {
			t.Errorf("left_join_elim on SQLite: %s gave %q (%v, %v), want the join removed", q, after, readErr, err)
		}
		if after, readErr, err := applyAtLeftJoin(check.RuleLeftJoinElim, q, &pg); readErr != nil || err == nil {
			t.Errorf("left_join_elim on PostgreSQL rewrote %s into %s (%v)", q, after, readErr)
		}
	}
}

// TestDistinctLiftOnSQLite: distinct_lift keeps the result of every
// statement it rewrites (a projection of a SELECT DISTINCT FROM subquery,
// alone or LEFT JOINed to a grouped or DISTINCT subquery on its groups or
// to a table, filtered, sorted and limited, outputs of the joined side and
// expressions among its outputs): 1,200 statements, each where it applies
// run before and after it on 30 databases of compoundRows, in order under
// ORDER BY … LIMIT.
func TestDistinctLiftOnSQLite(t *testing.T) {
	s := compoundSchema()
	r := rand.New(rand.NewPCG(23, 9))
	pick := func(xs ...string) string { return xs[r.IntN(len(xs))] }
	applied, joined, refused := 0, 0, 0
	for range 1200 {
		cols := []string{pick("i", "a", "c", "x", "r", "lower(a)"), pick("i", "a", "i + 1", "x")}
		if r.IntN(2) == 0 {
			cols = cols[:1]
		}
		cols = slices.Compact(cols)
		var inner, names []string
		for k, x := range cols {
			inner = append(inner, fmt.Sprintf("%s AS k%d", x, k))
			names = append(names, fmt.Sprintf("d.k%d", k))
		}
		outs := slices.Clone(names)
		r.Shuffle(len(outs), func(i, j int) { outs[i], outs[j] = outs[j], outs[i] })
		switch r.IntN(6) {
		case 0:
			outs = outs[:1] // refused when d has two columns: copies of the other remain
		case 1:
			outs = append(outs, pick(outs[0], outs[0]+" || 'z'", "1"))
		}
		// A LEFT JOIN that meets at most one row for a row of d (a
		// grouped or DISTINCT subquery on its groups), or more (u itself,
		// a group left out, an inner join): refused.
		join, g := "", pick("i", "a")
		if cols[0] == "i" || cols[0] == "a" {
			g = cols[0] // of d.k0's family, most often
		}
		switch r.IntN(10) {
		case 4, 5:
			join = fmt.Sprintf(" LEFT JOIN (SELECT %s AS g, count(*) AS n FROM u GROUP BY %[1]s) AS e ON e.g = d.k0", g)
		case 6:
			join = fmt.Sprintf(" LEFT JOIN (SELECT DISTINCT %s AS g FROM u) AS e ON e.g = d.k0", g)
		case 7:
			join = fmt.Sprintf(" LEFT JOIN (SELECT %s AS g, c AS n FROM u GROUP BY %[1]s, c) AS e ON e.g = d.k0", g)
		case 8:
			join = " LEFT JOIN u AS e ON e.i = d.k0"
		case 9:
			join = " JOIN (SELECT DISTINCT i AS g FROM u) AS e ON e.g = d.k0"
		}
		if join != "" && r.IntN(2) == 0 {
			outs = append(outs, pick("e.g", "e.n", "e.i"))
		}
		q := fmt.Sprintf("SELECT %s FROM (SELECT DISTINCT %s FROM %s) AS d%s", strings.Join(outs, ", "), strings.Join(inner, ", "), pick("t", "u", "t WHERE i > 1"), join)
		if r.IntN(2) == 0 {
			n := names[r.IntN(len(names))]
			q += " WHERE " + pick(n+" = 'a'", n+" = 1", n+" IS NOT NULL", n+" IN (SELECT i FROM u)", n+" > '1'")
		}
		ordered := false
		if r.IntN(3) == 0 {
			q += " ORDER BY " + strings.Join(names, ", ") + " LIMIT " + pick("1", "2")
			ordered = true
		}
		after, readErr, err := applyAtSubquery(check.RuleDistinctLift, q, s)
		if readErr != nil || err != nil {
			refused++
			continue
		}
		if strings.Contains(q, " JOIN ") {
			joined++
		}
		applied++
		sameOnDatabases(t, r, check.RuleDistinctLift, q, after, ordered)
	}
	if applied < 150 || joined < 50 || refused == 0 {
		t.Errorf("distinct_lift applied to %d statements (%d with a LEFT JOIN) and refused %d: the generator no longer reaches them", applied, joined, refused)
	}
	t.Logf("distinct_lift: %d statements rewritten (%d with a LEFT JOIN; each on 30 databases), %d refused", applied, joined, refused)
}
