package prove

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/sqljudge/sqljudge/internal/prove/check"
)

// applyAtDerived canonicalizes q and applies rule at its first FROM
// subquery (the first "FROM (SELECT" of the canonical text).
func applyAtDerived(rule, q string, s check.Schema) (after string, readErr, ruleErr error) {
	c, err := check.Canonicalize(q, s, "a")
	if err != nil {
		return "", err, nil
	}
	at := strings.Index(c.SQL(), "FROM (SELECT")
	if at < 0 {
		return "", fmt.Errorf("no FROM subquery in %s", c.SQL()), nil
	}
	after, _, err = check.Apply(rule, c.SQL(), at+len("FROM "), s)
	return after, nil, err
}

// groupDerivedQuery draws a statement that reads a FROM subquery of t or u
// grouped without aggregates: outputs and GROUP BY terms of compoundDDL's
// columns (NOCASE, untyped and REAL ones among them), arithmetic and
// functions on them, at times an output that is no term or an aggregate;
// the query around it DISTINCT or not, or the subquery inside an EXISTS
// or an IN body, reading some of its columns in the outputs, a WHERE or
// the ON of a join.
func groupDerivedQuery(r *rand.Rand) string {
	pick := func(xs ...string) string { return xs[r.IntN(len(xs))] }
	// abs(i - 9223372036854775807 - 2) fails where i is 1 (abs of the
	// smallest integer): a term or output that may fail is refused.
	pool := []string{"i", "a", "c", "x", "r", "i + 1", "i * 2 - r", "i / 0", "-i", "CAST(a AS INTEGER)", "lower(a)", "a || 'z'", "abs(i - 9223372036854775807 - 2)"}
	var outs, names []string
	for k := range 1 + r.IntN(3) {
		e := pick(pool...)
		if k == 0 && r.IntN(2) == 0 {
			e = pick("i", "a") // tie-safe: the query may read it
		}
		if r.IntN(12) == 0 {
			e = pick("count(*)", "max(i)")
		}
		outs = append(outs, fmt.Sprintf("%s AS k%d", e, k))
		names = append(names, fmt.Sprintf("d.k%d", k))
	}
	var terms []string
	for _, o := range outs {
		if r.IntN(5) > 0 {
			terms = append(terms, strings.Split(o, " AS ")[0])
		}
	}
	if len(terms) == 0 || r.IntN(4) == 0 {
		terms = append(terms, pick(append(pool[:6:6], pool[len(pool)-1])...))
	}
	r.Shuffle(len(terms), func(i, j int) { terms[i], terms[j] = terms[j], terms[i] })
	inner := fmt.Sprintf("(SELECT %s FROM %s GROUP BY %s) AS d", strings.Join(outs, ", "), pick("t", "u", "t WHERE i > 1", "t WHERE a <> 'b'"), strings.Join(terms, ", "))
	read := names[:1+r.IntN(len(names))]
	var where string
	if r.IntN(2) == 0 {
		n := names[r.IntN(len(names))]
		where = " WHERE " + pick(n+" = 'a'", n+" = 1", n+" IS NOT NULL", n+" > '1'", n+" IN (SELECT i FROM u)")
	}
	switch r.IntN(7) {
	case 0: // counts its rows: refused
		return fmt.Sprintf("SELECT %s FROM %s%s", strings.Join(read, ", "), inner, where)
	case 1:
		return fmt.Sprintf("SELECT a FROM u WHERE EXISTS (SELECT 1 FROM %s WHERE %s = u.%s)", inner, read[0], pick("i", "a", "c", "x"))
	case 2:
		return fmt.Sprintf("SELECT a FROM u WHERE %s IN (SELECT %s FROM %s%s)", pick("i", "a", "c", "x"), read[0], inner, where)
	case 3:
		return fmt.Sprintf("SELECT DISTINCT %s, e.a FROM %s JOIN u AS e ON e.%s = %s%s", strings.Join(read, ", "), inner, pick("i", "a", "c"), names[len(names)-1], where)
	case 4: // sorted by a term that is no output: refused
		return fmt.Sprintf("SELECT DISTINCT %s FROM %s%s ORDER BY %s", read[0], inner, where, names[len(names)-1])
	}
	return fmt.Sprintf("SELECT DISTINCT %s FROM %s%s ORDER BY %s", strings.Join(read, ", "), inner, where, read[0])
}

// TestGroupDerivedOnSQLite runs every statement group_derived rewrites,
// before and after, on 30 SQLite databases each (rows as a bag, values,
// storage classes and failure compared: the rule claims the bag, and an
// ORDER BY that leaves ties is the comparison's to refuse).
func TestGroupDerivedOnSQLite(t *testing.T) {
	s := compoundSchema()
	r := rand.New(rand.NewPCG(29, 4))
	applied, arith, refused := 0, 0, 0
	for range 1500 {
		q := groupDerivedQuery(r)
		after, readErr, err := applyAtDerived(check.RuleGroupDerived, q, s)
		if readErr != nil || err != nil {
			refused++
			continue
		}
		applied++
		if strings.ContainsAny(q, "+*/") { // the query around d has none
			arith++
		}
		sameOnDatabases(t, r, check.RuleGroupDerived, q, after, false)
	}
	if applied < 250 || arith < 20 || refused < 300 {
		t.Errorf("group_derived applied to %d statements (%d grouped by arithmetic) and refused %d: the generator no longer reaches them", applied, arith, refused)
	}
	t.Logf("group_derived: %d statements rewritten (%d grouped by arithmetic; each on 30 databases), %d refused", applied, arith, refused)
}

// TestGroupDerivedCases holds what group_derived writes and each refusal
// with the database on which the statement without its GROUP BY differs.
func TestGroupDerivedCases(t *testing.T) {
	s := compoundSchema()
	for _, tc := range []struct{ q, want string }{
		{"SELECT DISTINCT d.k FROM (SELECT a AS k, i + 1 AS n FROM t GROUP BY a, i + 1) AS d",
			"SELECT DISTINCT a1.c1 FROM (SELECT a2.a AS c1, a2.i + 1 AS c2 FROM t AS a2) AS a1"},
		{"SELECT i FROM u WHERE i IN (SELECT d.k FROM (SELECT i AS k, c AS m FROM t GROUP BY i) AS d)",
			"SELECT a1.i FROM u AS a1 WHERE a1.i IN (SELECT a2.c1 FROM (SELECT a3.i AS c1, a3.c AS c2 FROM t AS a3) AS a2)"},
	} {
		after, readErr, err := applyAtDerived(check.RuleGroupDerived, tc.q, s)
		if readErr != nil || err != nil || after != tc.want {
			t.Errorf("%s\nwrote %q (%v, %v)\nwant  %q", tc.q, after, readErr, err, tc.want)
		}
	}
	for _, tc := range []struct {
		q, without, rows string
	}{
		// The query counts its rows.
		{"SELECT d.k FROM (SELECT i AS k FROM t GROUP BY i) AS d",
			"SELECT d.k FROM (SELECT i AS k FROM t) AS d",
			"INSERT INTO t(i) VALUES (1), (1)"},
		// A column read that is no GROUP BY term: a group shows one row's.
		{"SELECT DISTINCT d.m FROM (SELECT i AS k, a AS m FROM t GROUP BY i) AS d",
			"SELECT DISTINCT d.m FROM (SELECT i AS k, a AS m FROM t) AS d",
			"INSERT INTO t(i, a) VALUES (1, 'a'), (1, 'b')"},
		// A term that is not tie-safe: 'a' and 'A' are one group under
		// NOCASE, which shows one of them, and u.a's BINARY IN tells.
		{"SELECT a FROM u WHERE a IN (SELECT d.k FROM (SELECT c AS k FROM t GROUP BY c) AS d)",
			"SELECT a FROM u WHERE a IN (SELECT d.k FROM (SELECT c AS k FROM t) AS d)",
			"INSERT INTO t(c) VALUES ('a'), ('A'); INSERT INTO u(a) VALUES ('a'), ('A')"},
		// Arithmetic is not tie-safe: 1 + 1 and 1.0 + 1 are one group,
		// which shows 2 or 2.0.
		{"SELECT DISTINCT typeof(d.k) FROM (SELECT x + i AS k FROM t GROUP BY x + i) AS d",
			"SELECT DISTINCT typeof(d.k) FROM (SELECT x + i AS k FROM t) AS d",
			"INSERT INTO t(i, x) VALUES (1, 1), (1, 1.0)"},
		// An aggregate output: one row per group, its count.
		{"SELECT DISTINCT d.k FROM (SELECT count(*) AS k FROM t GROUP BY i) AS d",
			"SELECT DISTINCT d.k FROM (SELECT count(*) AS k FROM t) AS d",
			"INSERT INTO t(i) VALUES (1), (2)"},
	} {
		if _, readErr, err := applyAtDerived(check.RuleGroupDerived, tc.q, s); readErr == nil && err == nil {
			t.Errorf("group_derived rewrote %s", tc.q)
		}
		if same, rows := sameOn(t, tc.rows, tc.q, tc.without); same {
			t.Errorf("%s and %s agree on %s (%v): the case shows nothing", tc.q, tc.without, tc.rows, rows)
		}
	}
	// PostgreSQL fails an output that is no GROUP BY term; without the
	// GROUP BY it would not.
	pg := compoundSchema()
	pg.D = check.Postgres
	q := "SELECT DISTINCT d.k FROM (SELECT i AS k, a AS m FROM t GROUP BY i) AS d"
	if _, readErr, err := applyAtDerived(check.RuleGroupDerived, q, pg); readErr != nil || err == nil {
		t.Errorf("group_derived on PostgreSQL: %s read %v, rule %v; want a refusal", q, readErr, err)
	}
	if _, readErr, err := applyAtDerived(check.RuleGroupDerived, q, s); readErr != nil || err != nil {
		t.Errorf("group_derived on SQLite: %s read %v, rule %v; want the rewrite", q, readErr, err)
	}
}
