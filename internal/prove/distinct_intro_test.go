package prove

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/sqljudge/sqljudge/internal/prove/check"
	"github.com/sqljudge/sqljudge/internal/sqlast"
)

// introSub is a FROM subquery distinctIntroQuery draws, with its output
// names.
type introSub struct {
	sql  string
	cols []string
}

// introSubs are FROM subqueries over compoundDDL's tables: keyed (grouped
// by outputs, DISTINCT over columns, one aggregate row), and not (an
// expression among DISTINCT outputs, a GROUP BY term not output, no
// grouping at all), over integer, text, NOCASE, untyped and real
// columns, so that groups fold 'a' and 'A', and 1, 1.0 and '1'.
func introSubs(r *rand.Rand) []introSub {
	pick := func(xs ...string) string { return xs[r.IntN(len(xs))] }
	where := func() string {
		return pick("", " WHERE i = 1", " WHERE a IS NOT NULL", " WHERE c = 'a'", " WHERE x = 1")
	}
	tbl := func() string { return pick("t", "u") }
	return []introSub{
		{"SELECT i, a FROM " + tbl() + where() + " GROUP BY i, a", []string{"i", "a"}},
		{"SELECT i, count(*) AS n FROM " + tbl() + where() + " GROUP BY i", []string{"i", "n"}},
		{"SELECT c FROM " + tbl() + where() + " GROUP BY c", []string{"c"}},
		{"SELECT x, max(r) AS m FROM " + tbl() + where() + " GROUP BY x", []string{"x", "m"}},
		{"SELECT DISTINCT a, c FROM " + tbl() + where(), []string{"a", "c"}},
		{"SELECT DISTINCT x, r FROM " + tbl() + where(), []string{"x", "r"}},
		{"SELECT count(*) AS n, max(a) AS m FROM " + tbl() + where(), []string{"n", "m"}},
		{"SELECT i, a FROM " + tbl() + where() + " GROUP BY i", []string{"i", "a"}},
		// No key: an expression under DISTINCT, a term not output, rows as
		// they are.
		{"SELECT DISTINCT i, a || 'z' AS e FROM " + tbl() + where(), []string{"i", "e"}},
		{"SELECT a FROM " + tbl() + where() + " GROUP BY i", []string{"a"}},
		{"SELECT i, a FROM " + tbl() + where(), []string{"i", "a"}},
	}
}

// distinctIntroQuery draws a SELECT without DISTINCT over one or two FROM
// subqueries of introSubs, joined on columns of kinds that = compares as
// identity (integers, text) or not (NOCASE, untyped), outputs a few of
// their columns, at times under a WHERE.
func distinctIntroQuery(r *rand.Rand) string {
	subs := introSubs(r)
	x := subs[r.IntN(len(subs))]
	var outs []string
	cols := func(alias string, s introSub) []string {
		var out []string
		for _, c := range s.cols {
			out = append(out, alias+"."+c)
		}
		return out
	}
	all := cols("x", x)
	from := fmt.Sprintf("(%s) AS x", x.sql)
	if r.IntN(4) > 0 {
		y := subs[r.IntN(len(subs))]
		ys := cols("y", y)
		on := fmt.Sprintf("%s = %s", all[r.IntN(len(all))], ys[r.IntN(len(ys))])
		if r.IntN(2) == 0 {
			on = fmt.Sprintf("%s = %s", ys[r.IntN(len(ys))], all[r.IntN(len(all))])
		}
		from += fmt.Sprintf(" JOIN (%s) AS y ON %s", y.sql, on)
		all = append(all, ys...)
	}
	for range 1 + r.IntN(3) {
		outs = append(outs, all[r.IntN(len(all))])
	}
	q := fmt.Sprintf("SELECT %s FROM %s", strings.Join(outs, ", "), from)
	if r.IntN(3) == 0 {
		q += fmt.Sprintf(" WHERE %s = %s", all[r.IntN(len(all))], all[r.IntN(len(all))])
	}
	return q
}

// TestDistinctIntroOnSQLite: distinct_intro keeps the result of every
// statement it rewrites, on SQLite: 600 statements of
// distinctIntroQuery, each where the rule applies run before and after
// it on 30 databases of compoundRows (few values: duplicates, NULLs, 1
// against 1.0 against '1', 'a' against 'A'), compared as bags of values
// with their storage classes.
func TestDistinctIntroOnSQLite(t *testing.T) {
	s := compoundSchema()
	r := rand.New(rand.NewPCG(5, 23))
	applied, refused := 0, 0
	for range 600 {
		q := distinctIntroQuery(r)
		after, err := introduce(t, q, s)
		if err != nil {
			refused++
			continue
		}
		applied++
		if !strings.HasPrefix(after, "SELECT DISTINCT ") {
			t.Fatalf("%s: the rule wrote %s", q, after)
		}
		if sameOnDatabases(t, r, check.RuleDistinctIntro, q, after, false) > 0 {
			t.Fatalf("%s fails on a database: the generator writes statements SQLite refuses", q)
		}
	}
	if applied < 100 || refused < 100 {
		t.Errorf("the rule applied to %d statements and refused %d: the generator no longer reaches both", applied, refused)
	}
	t.Logf("distinct_intro: %d statements rewritten (each on 30 databases), %d refused", applied, refused)
}

// TestDistinctIntroCases: what distinct_intro lets the prover prove
// (Calcite's AggregateJoinTransposeRule: calcite-240, 242), and where it
// refuses.
func TestDistinctIntroCases(t *testing.T) {
	s := compoundSchema()
	z := solver(t)
	for _, c := range []struct{ q1, q2 string }{
		{"SELECT t.i, u.i, u.a FROM t JOIN u ON t.i = u.i WHERE t.a = 'x' GROUP BY t.i, u.i, u.a",
			"SELECT * FROM (SELECT i FROM t WHERE a = 'x' GROUP BY i) AS d JOIN (SELECT i, a FROM u GROUP BY i, a) AS e ON d.i = e.i"},
		{"SELECT t.i FROM t JOIN u ON t.i = u.i GROUP BY t.i, u.i",
			"SELECT d.i FROM (SELECT i FROM t GROUP BY i) AS d JOIN (SELECT DISTINCT i FROM u) AS e ON d.i = e.i"},
	} {
		if a := Prove(context.Background(), c.q1, c.q2, s, Options{Rule: "bag", Solver: z}); !a.Proved() {
			t.Errorf("%s | %s: not proved: %s: %s", c.q1, c.q2, a.Stopped, a.Detail)
		}
	}
	// The site is found as for the refusals below.
	if _, err := introduce(t, "SELECT d.i, d.a FROM (SELECT i, a FROM t GROUP BY i, a) AS d", s); err != nil {
		t.Fatalf("a grouped subquery's key among the outputs: %v", err)
	}
	for _, c := range []struct{ q, why string }{
		{"SELECT d.i FROM (SELECT i, a FROM t GROUP BY i, a) AS d", "the outputs miss the key's a"},
		{"SELECT d.a FROM (SELECT a FROM t GROUP BY i) AS d", "a GROUP BY term not output"},
		{"SELECT d.e FROM (SELECT DISTINCT a || 'z' AS e FROM t) AS d", "an expression under DISTINCT"},
		{"SELECT d.i FROM (SELECT i FROM t GROUP BY i) AS d JOIN u ON d.i = u.i", "a base table without a key"},
		{"SELECT d.c FROM (SELECT c FROM t GROUP BY c) AS d JOIN (SELECT a FROM u GROUP BY a) AS e ON d.c = e.a", "NOCASE: = is not identity"},
		{"SELECT DISTINCT d.i FROM (SELECT i FROM t GROUP BY i) AS d", "already DISTINCT"},
	} {
		if after, err := introduce(t, c.q, s); err == nil {
			t.Errorf("%s (%s): rewritten to %s", c.q, c.why, after)
		}
	}
}

// introduce applies distinct_intro to the top SELECT of q's canonical
// form.
func introduce(t *testing.T, q string, s check.Schema) (string, error) {
	t.Helper()
	c, err := check.Canonicalize(q, s, "a")
	if err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	pq, err := sqlast.Parse(c.SQL())
	if err != nil {
		t.Fatal(err)
	}
	after, _, err := check.Apply(check.RuleDistinctIntro, c.SQL(), pq.Select().Cores[0].Pos(), s)
	return after, err
}

// transposePair draws Calcite's AggregateJoinTransposeRule pair over
// compoundDDL's tables: q1 groups (or is DISTINCT) over t JOIN u, q2
// joins FROM subqueries that group (or are DISTINCT) over each side's
// columns and has no DISTINCT. They are equivalent when q2's outputs
// determine every column its subqueries group by (directly, or by the
// join's equality of two integer or text columns); the traps: an
// output left out, a join on NOCASE or untyped columns (= is not
// identity there), q1 without its DISTINCT, a subquery that does not
// group, a GROUP BY term the subquery does not output.
func transposePair(r *rand.Rand) (string, string) {
	pick := func(xs ...string) string { return xs[r.IntN(len(xs))] }
	cols := []string{"i", "i", "a", "a", "c", "x", "r"}
	a := []string{pick(cols...)}
	if r.IntN(2) == 0 {
		a = append(a, pick(cols...))
	}
	b := []string{pick(cols...)}
	if r.IntN(2) == 0 {
		b = append(b, pick(cols...))
	}
	a, b = dedupe(a), dedupe(b)
	p, q := a[r.IntN(len(a))], b[r.IntN(len(b))]
	w1 := pick("", "i = 1", "a <> 'b'", "c = 'a'")
	w2 := pick("", "i > 1", "x IS NOT NULL")
	sub := func(tbl string, cs []string, w string) string {
		where := ""
		if w != "" {
			where = " WHERE " + w
		}
		list := strings.Join(cs, ", ")
		switch r.IntN(8) {
		case 0:
			return fmt.Sprintf("SELECT DISTINCT %s FROM %s%s", list, tbl, where)
		case 1: // trap: no grouping
			return fmt.Sprintf("SELECT %s FROM %s%s", list, tbl, where)
		case 2: // trap: a GROUP BY term not output
			return fmt.Sprintf("SELECT %s FROM %s%s GROUP BY %s, r", list, tbl, where, list)
		}
		return fmt.Sprintf("SELECT %s FROM %s%s GROUP BY %s", list, tbl, where, list)
	}
	var outs2, outs1 []string
	for _, c := range a {
		if r.IntN(5) > 0 || c == p {
			outs2, outs1 = append(outs2, "d."+c), append(outs1, "t."+c)
		}
	}
	for _, c := range b {
		if r.IntN(5) > 0 {
			outs2, outs1 = append(outs2, "e."+c), append(outs1, "u."+c)
		}
	}
	q2 := fmt.Sprintf("SELECT %s FROM (%s) AS d JOIN (%s) AS e ON d.%s = e.%s",
		strings.Join(outs2, ", "), sub("t", a, w1), sub("u", b, w2), p, q)
	var conds []string
	conds = append(conds, fmt.Sprintf("t.%s = u.%s", p, q))
	if w1 != "" {
		conds = append(conds, "t."+w1)
	}
	if w2 != "" {
		conds = append(conds, "u."+w2)
	}
	from := fmt.Sprintf("FROM t JOIN u ON %s", strings.Join(conds, " AND "))
	switch r.IntN(5) {
	case 0: // trap: duplicates kept
		return fmt.Sprintf("SELECT %s %s", strings.Join(outs1, ", "), from), q2
	case 1, 2:
		return fmt.Sprintf("SELECT DISTINCT %s %s", strings.Join(outs1, ", "), from), q2
	}
	return fmt.Sprintf("SELECT %s %s GROUP BY %s", strings.Join(outs1, ", "), from, strings.Join(outs1, ", ")), q2
}

// dedupe drops the repeats of xs, keeping the first of each.
func dedupe(xs []string) []string {
	var out []string
	for _, x := range xs {
		if !slices.Contains(out, x) {
			out = append(out, x)
		}
	}
	return out
}

// TestDistinctIntroPairsOnSQLite: the prover with distinct_intro on 500
// transposePair pairs; each proved one must return the same rows on 30
// SQLite databases of compoundRows (duplicates, NULLs, 1 against 1.0
// against '1', 'a' against 'A'), and some must be proved through
// distinct_intro.
func TestDistinctIntroPairsOnSQLite(t *testing.T) {
	s := compoundSchema()
	z := solver(t)
	r := rand.New(rand.NewPCG(3, 17))
	proved, intro, refused := 0, 0, 0
	for range 500 {
		q1, q2 := transposePair(r)
		a := Prove(context.Background(), q1, q2, s, Options{Rule: "bag", Solver: z})
		if !a.Proved() {
			refused++
			continue
		}
		proved++
		for _, st := range slices.Concat(a.Certificate.Q1Steps, a.Certificate.Q2Steps) {
			if st.Rule == check.RuleDistinctIntro {
				intro++
				break
			}
		}
		sameOnDatabases(t, r, "the proved pair's second query", q1, q2, false)
	}
	if intro < 30 || refused < 100 {
		t.Errorf("%d pairs proved (%d through distinct_intro), %d refused: the generator no longer reaches both", proved, intro, refused)
	}
	t.Logf("AggregateJoinTransposeRule pairs: %d proved (%d through distinct_intro; each on 30 databases), %d not", proved, intro, refused)
}
