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
