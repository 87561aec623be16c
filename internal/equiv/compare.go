package equiv

import (
	"context"

	"github.com/sqljudge/sqljudge/internal/result"
	"github.com/sqljudge/sqljudge/internal/sqllex"
)

// Rule is how two results are compared, a closed set.
type Rule string

// The comparison rules.
const (
	// RuleBag compares results as bags of rows with columns by position:
	// the same number of columns, and every row as often in one as in the
	// other (cells equal under Python ==: 1 == 1.0, NULL == NULL,
	// '1' != 1). When either query orders its output (a top-level ORDER
	// BY), the rows must also come in the same order. The rule for pairs.
	RuleBag Rule = "bag"
	// RuleSpider is Spider's execution match (test-suite-sql-eval
	// exec_eval.result_eq, result.SpiderEqual): any column permutation, a
	// multiset of rows, both empty equal, row order only when the first
	// query (the gold) contains ORDER BY. The rule of the equiv metric.
	RuleSpider Rule = "spider"
)

// comparer compares the two queries' results under a rule.
type comparer struct {
	rule    Rule
	ordered bool
}

func newComparer(rule Rule, q1, q2 string) comparer {
	if rule == RuleSpider {
		return comparer{rule: rule, ordered: sqllex.ContainsOrderBy(q1)}
	}
	return comparer{rule: RuleBag, ordered: sqllex.TopLevelOrderBy(q1) || sqllex.TopLevelOrderBy(q2)}
}

// describe states the rule as the record gives it.
func (c comparer) describe() string {
	switch {
	case c.rule == RuleSpider && c.ordered:
		return "spider: Spider's execution match (exec_eval.result_eq), rows in order because the gold orders its output"
	case c.rule == RuleSpider:
		return "spider: Spider's execution match (exec_eval.result_eq), rows as a multiset"
	case c.ordered:
		return "bag+order: same columns by position and the same rows in the same order (a query orders its output)"
	}
	return "bag: same columns by position and the same multiset of rows"
}

// equal reports whether a and b are equal results under the rule.
func (c comparer) equal(ctx context.Context, a, b *result.Set) bool {
	if c.rule == RuleSpider {
		eq, err := result.SpiderEqualContext(ctx, a, b, c.ordered)
		return eq || err != nil
	}
	return result.SameRows(a, b, c.ordered)
}

// sameBag reports whether a and b hold the same multiset of rows (the
// order aside), under RuleBag's cell equality.
func sameBag(a, b *result.Set) bool {
	return result.SameRows(a, b, false)
}
