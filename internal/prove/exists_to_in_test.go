package prove

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/sqljudge/sqljudge/internal/prove/check"
	"github.com/sqljudge/sqljudge/internal/sqlast"
)

// existsToInQuery draws a SELECT over compoundDDL's t with an EXISTS
// subquery over u among its WHERE's conjuncts. The subquery's WHERE holds
// an equality of a column of u and a column of t, of any two kinds
// (integer, text, NOCASE text, untyped, real: 1, 1.0 and '1', 'a' and
// 'A' meet), with other conditions around it. The traps: the EXISTS under
// NOT or OR, the equality under OR, both columns of u, an aggregate,
// DISTINCT, LIMIT or GROUP BY in the subquery, a join inside it.
func existsToInQuery(r *rand.Rand) string {
	pick := func(xs ...string) string { return xs[r.IntN(len(xs))] }
	cols := []string{"i", "i", "a", "a", "c", "x", "r"}
	eq := "u." + pick(cols...) + " = t." + pick(cols...)
	if r.IntN(2) == 0 {
		k := pick("i", "a")
		eq = "u." + k + " = t." + k
	}
	switch r.IntN(8) {
	case 0:
		eq = "t." + pick(cols...) + " = u." + pick(cols...)
	case 1:
		eq = "u." + pick(cols...) + " = u." + pick(cols...)
	case 2:
		eq = "(" + eq + " OR u.a = 'a')"
	}
	conds := []string{eq}
	for range r.IntN(3) {
		conds = append(conds, pick("u.i > 0", "u.a IS NOT NULL", "u.c = 'a'", "u.x = 1", "u.r < t.r", "t.i = 1", "u.a = t.c", "u.i = t.i"))
	}
	r.Shuffle(len(conds), func(i, j int) { conds[i], conds[j] = conds[j], conds[i] })
	from := pick("u", "u", "u", "u JOIN t AS v ON v.i = u.i", "u LEFT JOIN t AS v ON v.a = u.a")
	sub := "SELECT " + pick("*", "1", "u.a", "u.x") + " FROM " + from + " WHERE " + strings.Join(conds, " AND ")
	switch r.IntN(10) {
	case 0:
		sub = "SELECT count(*) FROM " + from + " WHERE " + strings.Join(conds, " AND ")
	case 1:
		sub = "SELECT DISTINCT u.a FROM " + from + " WHERE " + strings.Join(conds, " AND ")
	case 2:
		sub += " LIMIT 1"
	case 3:
		sub = "SELECT u.i FROM " + from + " WHERE " + strings.Join(conds, " AND ") + " GROUP BY u.i"
	}
	ex := "EXISTS (" + sub + ")"
	switch r.IntN(8) {
	case 0:
		ex = "NOT " + ex
	case 1:
		ex = "(" + ex + " OR t.i = 2)"
	}
	outer := []string{ex}
	for range r.IntN(2) {
		outer = append(outer, pick("t.i > 0", "t.a IS NOT NULL", "t.c = 'A'"))
	}
	r.Shuffle(len(outer), func(i, j int) { outer[i], outer[j] = outer[j], outer[i] })
	return "SELECT " + pick("*", "t.a", "t.i, t.x", "t.c") + " FROM t WHERE " + strings.Join(outer, " AND ")
}

// existsToIn applies exists_to_in at the first EXISTS of q's canonical
// form.
func existsToIn(t *testing.T, q string, s check.Schema) (string, error) {
	t.Helper()
	after, readErr, err := applyAtExists(check.RuleExistsToIn, q, s)
	if readErr != nil {
		t.Fatalf("%s: %v", q, readErr)
	}
	return after, err
}

// applyAtExists applies rule to q's canonical form over s at its first
// EXISTS: the query rewritten, or the canonical form's error (readErr) or
// the rule's (ruleErr).
func applyAtExists(rule, q string, s check.Schema) (after string, readErr, ruleErr error) {
	c, err := check.Canonicalize(q, s, "a")
	if err != nil {
		return "", err, nil
	}
	pq, err := sqlast.Parse(c.SQL())
	if err != nil {
		return "", err, nil
	}
	at := -1
	sqlast.Walk(pq.Stmt, func(n sqlast.Node) bool {
		if e, ok := n.(*sqlast.ExistsExpr); ok && at < 0 {
			at = e.Pos()
		}
		return true
	})
	after, _, err = check.Apply(rule, c.SQL(), at, s)
	return after, nil, err
}

// TestExistsToInOnSQLite: exists_to_in keeps the result of every
// statement it rewrites, on SQLite: 800 statements of existsToInQuery,
// each where the rule applies run before and after it on 30 databases of
// compoundRows (duplicates, NULLs, 1 against 1.0 against '1', 'a'
// against 'A'), compared as bags of values with their storage classes.
func TestExistsToInOnSQLite(t *testing.T) {
	s := compoundSchema()
	r := rand.New(rand.NewPCG(7, 41))
	applied, refused := 0, 0
	for range 800 {
		q := existsToInQuery(r)
		after, err := existsToIn(t, q, s)
		if err != nil {
			refused++
			continue
		}
		applied++
		if !strings.Contains(after, " IN (SELECT ") || strings.Contains(after, "EXISTS") {
			t.Fatalf("%s: the rule wrote %s", q, after)
		}
		if sameOnDatabases(t, r, check.RuleExistsToIn, q, after, false) > 0 {
			t.Fatalf("%s fails on a database: the generator writes statements SQLite refuses", q)
		}
	}
	if applied < 100 || refused < 200 {
		t.Errorf("the rule applied to %d statements and refused %d: the generator no longer reaches both", applied, refused)
	}
	t.Logf("exists_to_in: %d statements rewritten (each on 30 databases), %d refused", applied, refused)
}

// TestExistsToInCases: the semi-join on a key proved against the join
// (calcite-17's shape, through exists_to_in and in_to_join), an EXISTS
// of a table's own row (exists_self) and of an aggregate's one row
// (exists_one_row) proved away, and what the rules refuse, each with its
// reason.
func TestExistsToInCases(t *testing.T) {
	s := &check.MapSchema{D: check.SQLite, Tables: []*check.Table{
		{Name: "dept", Columns: []check.Column{{Name: "deptno", Family: check.Int, Affinity: check.AffinityInteger, NotNull: true}, {Name: "name", Family: check.Text, Affinity: check.AffinityText}},
			Keys: []check.Key{{Cols: []int{0}, Primary: true}}},
		{Name: "emp", Columns: []check.Column{{Name: "empno", Family: check.Int, Affinity: check.AffinityInteger, NotNull: true}, {Name: "deptno", Family: check.Int, Affinity: check.AffinityInteger}, {Name: "ename", Family: check.Text, Affinity: check.AffinityText, Collation: "nocase"}},
			Keys: []check.Key{{Cols: []int{0}, Primary: true}}},
	}}
	z := solver(t)
	for _, c := range []struct{ q1, q2 string }{
		{"SELECT e.deptno, e.empno FROM emp AS e WHERE EXISTS (SELECT 1 FROM dept AS d WHERE e.deptno = d.deptno)",
			"SELECT e.deptno, e.empno FROM dept AS d JOIN emp AS e ON e.deptno = d.deptno"},
		{"SELECT * FROM emp WHERE empno > 3 AND EXISTS (SELECT name FROM dept WHERE dept.deptno = emp.deptno AND name = 'x')",
			"SELECT emp.* FROM emp, (SELECT deptno FROM dept WHERE name = 'x') AS d WHERE d.deptno = emp.deptno AND emp.empno > 3"},
		// exists_self: emp's own row is a row of the subquery (calcite-70).
		{"SELECT * FROM emp WHERE EXISTS (SELECT * FROM emp AS e2 WHERE e2.empno = e2.empno)", "SELECT * FROM emp"},
		{"SELECT e.ename FROM emp AS e WHERE e.deptno = 3 AND EXISTS (SELECT 1 FROM emp AS f WHERE f.empno = e.empno AND f.deptno = 3)",
			"SELECT ename FROM emp WHERE deptno = 3"},
		// exists_one_row: an aggregate's one row (calcite-216).
		{"SELECT * FROM dept WHERE EXISTS (SELECT count(*) FROM emp WHERE emp.deptno = dept.deptno)", "SELECT * FROM dept"},
	} {
		if a := Prove(context.Background(), c.q1, c.q2, s, Options{Rule: "bag", Solver: z}); !a.Proved() {
			t.Errorf("%s | %s: not proved: %s: %s", c.q1, c.q2, a.Stopped, a.Detail)
		}
	}
	for _, c := range []struct{ q, why string }{
		{"SELECT empno FROM emp WHERE NOT EXISTS (SELECT 1 FROM dept WHERE dept.deptno = emp.deptno)", "NOT EXISTS keeps a row without a match"},
		{"SELECT empno FROM emp WHERE EXISTS (SELECT 1 FROM dept WHERE dept.deptno = emp.deptno) OR empno = 1", "under OR, NULL is not FALSE"},
		{"SELECT empno FROM emp WHERE EXISTS (SELECT 1 FROM dept WHERE dept.name = emp.ename)", "NOCASE: IN would compare under the outer column's collation"},
		{"SELECT empno FROM emp WHERE EXISTS (SELECT 1 FROM dept WHERE dept.deptno = emp.deptno LIMIT 1)", "LIMIT"},
		{"SELECT empno FROM emp WHERE EXISTS (SELECT count(*) FROM dept WHERE dept.deptno = emp.deptno)", "an aggregate: one row always"},
		{"SELECT empno FROM emp WHERE EXISTS (SELECT 1 FROM dept WHERE dept.deptno = dept.deptno)", "no outer column"},
		{"SELECT empno FROM emp WHERE EXISTS (SELECT 1 FROM dept WHERE dept.deptno = emp.deptno OR dept.name = 'x')", "the equality under OR"},
	} {
		if after, err := existsToIn(t, c.q, s); err == nil {
			t.Errorf("%s (%s): rewritten to %s, want a refusal", c.q, c.why, after)
		}
	}
	for _, c := range []struct{ q1, q2, why string }{
		{"SELECT * FROM emp WHERE EXISTS (SELECT * FROM emp AS e2 WHERE e2.deptno = e2.deptno)", "SELECT * FROM emp", "deptno may be NULL"},
		{"SELECT e.ename FROM emp AS e WHERE EXISTS (SELECT 1 FROM emp AS f WHERE f.empno = e.empno AND f.deptno = 3)", "SELECT ename FROM emp", "deptno = 3 not in the WHERE"},
		{"SELECT * FROM dept WHERE EXISTS (SELECT * FROM emp WHERE emp.deptno = emp.deptno)", "SELECT * FROM dept", "no row of emp outside"},
		{"SELECT * FROM dept WHERE EXISTS (SELECT count(*) FROM emp GROUP BY emp.deptno)", "SELECT * FROM dept", "a group for each row: none on an empty emp"},
		{"SELECT * FROM dept WHERE EXISTS (SELECT count(*) FROM emp LIMIT 0)", "SELECT * FROM dept", "LIMIT 0"},
	} {
		if a := Prove(context.Background(), c.q1, c.q2, s, Options{Rule: "bag", Solver: z}); a.Proved() {
			t.Errorf("%s | %s: proved, want refused (%s)", c.q1, c.q2, c.why)
		}
	}
}

// existsOneRowQuery draws a SELECT over compoundDDL's t with an EXISTS
// subquery over u among its WHERE's conjuncts, most of them aggregating
// (count, max, sum, total, group_concat of u's columns, correlated or
// not). The traps: a GROUP BY, a HAVING, a LIMIT or OFFSET, a window
// function, an aggregate of t's column (the outer query's aggregate,
// which SQLite refuses in a WHERE), no aggregate, the EXISTS under NOT or
// OR.
func existsOneRowQuery(r *rand.Rand) string {
	pick := func(xs ...string) string { return xs[r.IntN(len(xs))] }
	out := pick("count(*)", "max(u.a)", "sum(u.i)", "total(u.r)", "group_concat(u.c)", "count(u.x) + 1", "min(u.i), max(u.a)")
	switch r.IntN(8) {
	case 0:
		out = pick("u.a", "1", "*")
	case 1:
		out = pick("count(*) OVER ()", "max(u.i) OVER (PARTITION BY u.a)")
	case 2:
		out = pick("count(t.a)", "max(t.i)")
	}
	sub := "SELECT " + out + " FROM u" + pick("", " WHERE u.i = t.i", " WHERE u.a > 'a'", " WHERE u.c = t.c AND u.i > 1", " WHERE 0")
	switch r.IntN(8) {
	case 0:
		sub += " GROUP BY u.a"
	case 1:
		sub += " HAVING count(*) > 1"
	case 2:
		sub += pick(" LIMIT 0", " LIMIT 1 OFFSET 1", " LIMIT 1")
	}
	ex := "EXISTS (" + sub + ")"
	switch r.IntN(8) {
	case 0:
		ex = "NOT " + ex
	case 1:
		ex = "(" + ex + " OR t.i = 2)"
	}
	outer := []string{ex}
	for range r.IntN(2) {
		outer = append(outer, pick("t.i > 0", "t.a IS NOT NULL", "t.c = 'A'"))
	}
	r.Shuffle(len(outer), func(i, j int) { outer[i], outer[j] = outer[j], outer[i] })
	return "SELECT " + pick("*", "t.a", "t.i, t.x", "count(*)") + " FROM t WHERE " + strings.Join(outer, " AND ")
}

// TestExistsOneRowOnSQLite: exists_one_row keeps the result of every
// statement it rewrites, on SQLite (failures included: a statement that
// fails before fails after): 800 statements of existsOneRowQuery, each
// where the rule applies run before and after it on 30 databases of
// compoundRows.
func TestExistsOneRowOnSQLite(t *testing.T) {
	s := compoundSchema()
	r := rand.New(rand.NewPCG(11, 43))
	applied, refused := 0, 0
	for range 800 {
		q := existsOneRowQuery(r)
		after, readErr, err := applyAtExists(check.RuleExistsOneRow, q, s)
		if readErr != nil || err != nil {
			refused++
			continue
		}
		applied++
		if strings.Contains(after, "EXISTS") {
			t.Fatalf("%s: the rule wrote %s", q, after)
		}
		if sameOnDatabases(t, r, check.RuleExistsOneRow, q, after, false) > 0 {
			t.Fatalf("%s fails on a database: the generator writes statements SQLite refuses", q)
		}
	}
	if applied < 100 || refused < 200 {
		t.Errorf("the rule applied to %d statements and refused %d: the generator no longer reaches both", applied, refused)
	}
	t.Logf("exists_one_row: %d statements rewritten (each on 30 databases), %d refused", applied, refused)
}

// selfDDL is compoundDDL's two tables with NOT NULL columns (k, a, c, x)
// beside nullable ones (i, r).
const selfDDL = "CREATE TABLE t(k INTEGER NOT NULL, i INTEGER, a TEXT NOT NULL, c TEXT COLLATE NOCASE NOT NULL, x NOT NULL, r REAL); CREATE TABLE u(k INTEGER NOT NULL, i INTEGER, a TEXT NOT NULL, c TEXT COLLATE NOCASE NOT NULL, x NOT NULL, r REAL)"

// selfSchema is selfDDL as the kernel reads it.
func selfSchema() *check.MapSchema {
	cols := func() []check.Column {
		return []check.Column{
			{Name: "k", Family: check.Int, Affinity: check.AffinityInteger, NotNull: true},
			{Name: "i", Family: check.Int, Affinity: check.AffinityInteger},
			{Name: "a", Family: check.Text, Affinity: check.AffinityText, NotNull: true},
			{Name: "c", Family: check.Text, Affinity: check.AffinityText, Collation: "nocase", NotNull: true},
			{Name: "x", Family: check.Other, Affinity: check.AffinityBlob, NotNull: true},
			{Name: "r", Family: check.Real, Affinity: check.AffinityReal},
		}
	}
	return &check.MapSchema{D: check.SQLite, Tables: []*check.Table{{Name: "t", Columns: cols()}, {Name: "u", Columns: cols()}}}
}

// selfRows draws rows of selfDDL's tables: few values, so that
// duplicates, NULLs of the nullable columns, 'a' and 'A', and 1, 1.0
// and '1' meet; at times a table is empty.
func selfRows(r *rand.Rand) string {
	pick := func(xs ...string) string { return xs[r.IntN(len(xs))] }
	var b strings.Builder
	for _, table := range []string{"t", "u"} {
		for range r.IntN(5) {
			fmt.Fprintf(&b, "INSERT INTO %s VALUES (%s, %s, %s, %s, %s, %s);", table,
				pick("1", "2"), pick("1", "2", "NULL"), pick("'1'", "'a'", "'A'"), pick("'a'", "'A'", "'b'"), pick("1", "1.0", "'1'", "'a'"), pick("1.5", "2", "NULL"))
		}
	}
	return b.String()
}

// existsSelfQuery draws a SELECT whose WHERE holds EXISTS (SELECT … FROM
// t AS v WHERE …) beside other conjuncts, the outer FROM reading t: the
// subquery's conjuncts are v.c = t.c for columns of every kind (NOT NULL
// or not, NOCASE, untyped), conjuncts the outer WHERE repeats of t, or
// not. The traps: t on the NULL-extended side of a LEFT JOIN, no t
// outside, the subquery's conjunct not among the outer ones, a nullable
// or crosswise equality, an output that may fail, the EXISTS under NOT
// or OR. At times the subquery has no WHERE (true of any row of t, and
// false when t is empty).
func existsSelfQuery(r *rand.Rand) string {
	pick := func(xs ...string) string { return xs[r.IntN(len(xs))] }
	cols := []string{"k", "k", "a", "a", "i", "c", "x", "r"}
	from := pick("t", "t", "t JOIN u ON u.k = t.k", "t, t AS w", "u LEFT JOIN t ON t.k = u.i", "u")
	o := "t"
	if from == "u" {
		o = "u"
	}
	outerConds := []string{o + ".k = 1", o + ".a = 'a'", o + ".r > 1", o + ".i = " + o + ".k", o + ".i IS NULL"}
	var outer []string
	for range r.IntN(3) {
		outer = append(outer, pick(outerConds...))
	}
	var conds []string
	for range 1 + r.IntN(3) {
		switch r.IntN(4) {
		case 0, 1:
			col := pick(cols...)
			if r.IntN(6) == 0 {
				conds = append(conds, "v."+col+" = "+o+"."+pick(cols...))
			} else {
				conds = append(conds, pick("v."+col+" = "+o+"."+col, o+"."+col+" = v."+col))
			}
		case 2:
			conds = append(conds, pick("v.k = 1", "v.a = 'a'", "v.r > 1", "v.i = v.k", "v.i IS NULL"))
		default:
			conds = append(conds, "v.k = v.k")
		}
	}
	sub := "SELECT " + pick("*", "1", "v.a", "v.k + 1", "abs(v.k)") + " FROM t AS v WHERE " + strings.Join(conds, " AND ")
	if r.IntN(8) == 0 {
		sub = "SELECT " + pick("*", "1") + " FROM t AS v"
	}
	ex := "EXISTS (" + sub + ")"
	switch r.IntN(10) {
	case 0:
		ex = "NOT " + ex
	case 1:
		ex = "(" + ex + " OR 1 = 0)"
	}
	outer = append(outer, ex)
	r.Shuffle(len(outer), func(i, j int) { outer[i], outer[j] = outer[j], outer[i] })
	sel := pick("*", "count(*)", "1")
	return "SELECT " + sel + " FROM " + from + " WHERE " + strings.Join(outer, " AND ")
}

// TestExistsSelfOnSQLite: exists_self keeps the result of every statement
// it rewrites, on SQLite: 1,500 statements of existsSelfQuery, each where
// the rule applies run before and after it on 30 databases of selfRows,
// compared as bags of values with their storage classes.
func TestExistsSelfOnSQLite(t *testing.T) {
	s := selfSchema()
	r := rand.New(rand.NewPCG(13, 47))
	applied, refused := 0, 0
	for range 1500 {
		q := existsSelfQuery(r)
		after, readErr, err := applyAtExists(check.RuleExistsSelf, q, s)
		if readErr != nil {
			t.Fatalf("%s: %v", q, readErr)
		}
		if err != nil {
			refused++
			continue
		}
		applied++
		if strings.Contains(after, "EXISTS") {
			t.Fatalf("%s: the rule wrote %s", q, after)
		}
		if sameOnDatabasesOf(t, r, selfDDL, selfRows, check.RuleExistsSelf, q, after, false) > 0 {
			t.Fatalf("%s fails on a database: the generator writes statements SQLite refuses", q)
		}
	}
	if applied < 100 || refused < 200 {
		t.Errorf("the rule applied to %d statements and refused %d: the generator no longer reaches both", applied, refused)
	}
	t.Logf("exists_self: %d statements rewritten (each on 30 databases), %d refused", applied, refused)
}
