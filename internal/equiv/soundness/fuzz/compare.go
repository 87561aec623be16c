package fuzz

import (
	"context"

	"github.com/sqljudge/sqljudge/internal/result"
	"github.com/sqljudge/sqljudge/internal/sqllex"
)

// comparer compares two results under a pair's rule, as docs/equiv.md
// states the rules: bag (the same number of columns, the same multiset of
// rows under Python ==, in the same order when either query has a
// top-level ORDER BY) or spider (Spider's execution match, in order when
// the gold, q1, contains "order by"). It is written from the documented
// rule rather than taken from equiv's search, on purpose: the oracle
// shares no code with what it checks but result's row equality
// (result.SameRows, the bag rule as docs/equiv.md states it) and Spider's
// match.
type comparer struct {
	spider  bool
	ordered bool
}

func newComparer(rule, q1, q2 string) comparer {
	if rule == "spider" {
		return comparer{spider: true, ordered: sqllex.ContainsOrderBy(q1)}
	}
	return comparer{ordered: sqllex.TopLevelOrderBy(q1) || sqllex.TopLevelOrderBy(q2)}
}

// equal reports whether a and b are the same result under the rule.
func (c comparer) equal(ctx context.Context, a, b *result.Set) bool {
	if c.spider {
		eq, err := result.SpiderEqualContext(ctx, a, b, c.ordered)
		return eq || err != nil
	}
	return result.SameRows(a, b, c.ordered)
}
