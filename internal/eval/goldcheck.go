package eval

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/sqljudge/sqljudge/internal/run"
	"github.com/sqljudge/sqljudge/internal/status"
)

// GoldCheckItems is how many graded items the gold-error check waits for
// before it first decides (all of a smaller run), and GoldCheckMin the
// fewest it decides on: a run of fewer items is not checked.
const (
	GoldCheckItems = 50
	GoldCheckMin   = 10
)

// ErrGoldErrors is wrapped by Run's error when most gold queries fail
// (see goldCheck): the databases or tables given are likely not the
// benchmark's.
var ErrGoldErrors = errors.New("most gold queries fail")

// goldCheck counts, per metric, the gold_error verdicts of the records a
// run writes and fails as soon as, after the first n records, more than
// half of the records so far are gold_error for some metric. A --db of
// other databases or a --tables file that is not the benchmark's makes
// nearly every gold query fail, and a run that went on would report
// confident zeros. It decides first at the n-th record (most of the first
// 50 failing) and keeps counting, so that a wrong database that happens to
// fit the first items (Spider dev's first 45 are all concert_singer) stops
// the run once the failures are the majority, not after all of it.
type goldCheck struct {
	n, seen int
	bad     map[string]int
	first   map[string]string // metric -> the first gold_error's item and detail
}

// newGoldCheck decides from record min(GoldCheckItems, items) on; it
// never fails a run of fewer than GoldCheckMin items.
func newGoldCheck(items int) *goldCheck {
	n := min(GoldCheckItems, items)
	if items < GoldCheckMin {
		n = items + 1
	}
	return &goldCheck{n: n, bad: map[string]int{}, first: map[string]string{}}
}

// watch is run.Options.Watch.
func (g *goldCheck) watch(r run.Record) error {
	g.seen++
	for m, v := range r.Verdicts {
		if v.Status == status.GoldError {
			if g.bad[m]++; g.first[m] == "" {
				g.first[m] = fmt.Sprintf("item %d (%s): %s", r.Index, r.DBID, strings.TrimSpace(v.Detail))
			}
		}
	}
	if g.seen < g.n {
		return nil
	}
	for _, m := range slices.Sorted(maps.Keys(g.bad)) {
		if 2*g.bad[m] > g.seen {
			return fmt.Errorf("%w: %d of the first %d items are gold_error for %s (first: %s); the databases (--db) or the tables file (--tables) are likely not the benchmark's. The run stopped; check them, or pass --allow-gold-errors to grade anyway",
				ErrGoldErrors, g.bad[m], g.seen, m, g.first[m])
		}
	}
	return nil
}
