package explain

import (
	"context"
	"errors"
	"strings"
	"testing"
)

// planOf is a PlanFunc over canned plans, by query.
func planOf(plans map[string]string) PlanFunc {
	return func(_ context.Context, q string) ([]byte, error) {
		p, ok := plans[q]
		if !ok {
			return nil, errors.New("no such plan")
		}
		return []byte(p), nil
	}
}

// scan is a one-node plan of EXPLAIN (VERBOSE, COSTS OFF, FORMAT JSON)
// scanning t under alias, with output out and filter f.
func scan(alias, out, f string) string {
	return `[{"Plan": {"Node Type": "Seq Scan", "Relation Name": "t", "Schema": "sj_1", "Alias": ` + alias +
		`, "Output": [` + out + `], "Filter": ` + f + `}}]`
}

// TestSamePlanNumbersAliases: plans that differ only by the names of
// their range table entries (quoted or not) are the same; a qualifier
// inside a string literal, a column, a relation or a constant that
// differs is a mismatch naming the field.
func TestSamePlanNumbersAliases(t *testing.T) {
	ctx := context.Background()
	plans := planOf(map[string]string{
		"q":      scan(`"t"`, `"t.a"`, `"((t.b > 1) AND (t.c = 't.x'))"`),
		"alike":  scan(`"a1"`, `"a1.a"`, `"((a1.b > 1) AND (a1.c = 't.x'))"`),
		"quoted": scan(`"T x"`, `"\"T x\".a"`, `"((\"T x\".b > 1) AND (\"T x\".c = 't.x'))"`),
		"lit":    scan(`"a1"`, `"a1.a"`, `"((a1.b > 1) AND (a1.c = 'a1.x'))"`),
		"col":    scan(`"a1"`, `"a1.b"`, `"((a1.b > 1) AND (a1.c = 't.x'))"`),
		"const":  scan(`"a1"`, `"a1.a"`, `"((a1.b > 2) AND (a1.c = 't.x'))"`),
		"bad":    `[{"Plan": `,
	})
	for _, q := range []string{"alike", "quoted"} {
		if err := SamePlan(ctx, plans, "q", q); err != nil {
			t.Errorf("%s: %v", q, err)
		}
	}
	for q, path := range map[string]string{"lit": "Filter", "col": "Output[0]", "const": "Filter"} {
		var m *PlanMismatch
		if err := SamePlan(ctx, plans, "q", q); !errors.As(err, &m) || m.Err != nil || !strings.HasSuffix(m.Path, path) {
			t.Errorf("%s: %v, want a mismatch at %s", q, err, path)
		}
	}
	for _, q := range []string{"bad", "missing"} {
		var m *PlanMismatch
		if err := SamePlan(ctx, plans, "q", q); !errors.As(err, &m) || m.Err == nil {
			t.Errorf("%s: %v, want a mismatch carrying the error", q, err)
		}
	}
	if _, err := NormalPlan([]byte(strings.Repeat(" ", MaxPlanBytes+1))); err == nil {
		t.Errorf("a plan over MaxPlanBytes is read")
	}
}

// TestSamePlanNumbersSubqueryColumns: a FROM subquery PostgreSQL cannot
// pull up (it groups) shows its columns by name; a renaming of its
// outputs (c1, c2) plans alike when it reads the same positions, and is a
// mismatch when it reads another.
func TestSamePlanNumbersSubqueryColumns(t *testing.T) {
	ctx := context.Background()
	grouped := func(alias, key string) string {
		return `[{"Plan": {"Node Type": "Group", "Group Key": ["` + key + `"], "Output": ["` + key + `"], "Plans": [{"Node Type": "Subquery Scan", "Alias": "` + alias +
			`", "Output": ["` + key + `"], "Plans": [{"Node Type": "Seq Scan", "Relation Name": "emp", "Alias": "emp", "Output": ["emp.ename", "emp.job"]}]}]}}]`
	}
	q := `SELECT t5.ENAME FROM (SELECT ENAME, JOB FROM EMP GROUP BY ENAME, JOB) AS t5 GROUP BY t5.ENAME`
	alike := `SELECT b1.c1 FROM (SELECT b2.ename AS c1, b2.job AS c2 FROM emp AS b2 GROUP BY b2.ename, b2.job) AS b1 GROUP BY b1.c1`
	other := `SELECT b1.c2 FROM (SELECT b2.ename AS c1, b2.job AS c2 FROM emp AS b2 GROUP BY b2.ename, b2.job) AS b1 GROUP BY b1.c2`
	plans := planOf(map[string]string{q: grouped("t5", "t5.ename"), alike: grouped("b1", "b1.c1"), other: grouped("b1", "b1.c2")})
	if err := SamePlan(ctx, plans, q, alike); err != nil {
		t.Errorf("the same positions: %v", err)
	}
	var m *PlanMismatch
	if err := SamePlan(ctx, plans, q, other); !errors.As(err, &m) || m.Err != nil || !strings.Contains(m.Got, "#2") {
		t.Errorf("another position: %v, want a mismatch reading #2", err)
	}
	if got := subqueryColumns(`SELECT x.a FROM (SELECT "Ab", b AS "C d", e.f FROM e) AS x, (SELECT * FROM e) AS y, (SELECT 1 FROM e) AS z`); len(got) != 1 || strings.Join(got["x"], ",") != "Ab,C d,f" {
		t.Errorf("subqueryColumns: %q", got)
	}
}

// TestSamePlanNumbersSetOpBranches: PostgreSQL names a set operation's
// branches "*SELECT* n" and their columns by the branch's output names,
// which a renaming changes; the columns are numbered by their place in
// the branch scan's Output, so the same positions read alike and others
// do not.
func TestSamePlanNumbersSetOpBranches(t *testing.T) {
	ctx := context.Background()
	plan := func(a, b, read string) string {
		return `[{"Plan": {"Node Type": "Sort", "Sort Key": ["\"*SELECT* 1\".` + read + `"], "Plans": [{"Node Type": "Subquery Scan", "Alias": "*SELECT* 1", "Output": ["\"*SELECT* 1\".` + a +
			`", "\"*SELECT* 1\".` + b + `"], "Plans": [{"Node Type": "Seq Scan", "Relation Name": "dept", "Alias": "dept", "Output": ["dept.name", "dept.deptno"]}]}]}}]`
	}
	plans := planOf(map[string]string{"q": plan("name", "deptno", "name"), "alike": plan("c1", "c2", "c1"), "other": plan("c1", "c2", "c2")})
	if err := SamePlan(ctx, plans, "q", "alike"); err != nil {
		t.Errorf("the same positions: %v", err)
	}
	var m *PlanMismatch
	if err := SamePlan(ctx, plans, "q", "other"); !errors.As(err, &m) || m.Err != nil || !strings.Contains(m.Got, "#2") {
		t.Errorf("another position: %v, want a mismatch reading #2", err)
	}
}
