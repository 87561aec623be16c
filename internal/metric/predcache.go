package metric

import (
	"strings"
	"sync"

	"github.com/sqljudge/sqljudge/internal/engine"
	"github.com/sqljudge/sqljudge/internal/result"
)

// PredCacheSize is how many predicted results an Env with SharePreds keeps
// across items: the most recent ones. Spider's questions come in
// paraphrase pairs that a system often answers with the same SQL, so the
// second of a pair finds the first's result (277 of DIN-SQL's 1034 Spider
// dev predictions repeat one on the same database).
const PredCacheSize = 64

// predCacheMaxBytes is the largest result (engine.SetBytes) the
// cache keeps, so that it never holds more than PredCacheSize times this.
const predCacheMaxBytes = 1 << 20

// predCache holds the most recent predicted results (or errors) by
// (database, SQL), each computed once even when two items ask at the same
// time. It is safe for concurrent use; its zero value is empty.
type predCache struct {
	mu    sync.Mutex
	m     map[goldKey]*onceEntry[*result.Set]
	order []goldKey // keys in insertion order, a ring of PredCacheSize
	next  int
}

// get returns the result of k, computed by f unless a recent call for k
// computed it.
func (c *predCache) get(k goldKey, f func() (*result.Set, error)) (*result.Set, error) {
	c.mu.Lock()
	if c.m == nil {
		c.m = make(map[goldKey]*onceEntry[*result.Set], PredCacheSize)
	}
	ent, ok := c.m[k]
	if !ok {
		ent = &onceEntry[*result.Set]{}
		c.insert(k, ent)
	}
	c.mu.Unlock()
	ent.once.Do(func() {
		ent.v, ent.err = f()
		if ent.err == nil && engine.SetBytes(ent.v) > predCacheMaxBytes {
			c.drop(k, ent)
		}
	})
	return ent.v, ent.err
}

// insert adds k, evicting the oldest key when the ring is full; c.mu is
// held.
func (c *predCache) insert(k goldKey, ent *onceEntry[*result.Set]) {
	if len(c.order) < PredCacheSize {
		c.order = append(c.order, k)
	} else {
		delete(c.m, c.order[c.next])
		c.order[c.next] = k
		c.next = (c.next + 1) % PredCacheSize
	}
	c.m[k] = ent
}

// drop forgets k if it still maps to ent (its ring slot is reused later).
func (c *predCache) drop(k goldKey, ent *onceEntry[*result.Set]) {
	c.mu.Lock()
	if c.m[k] == ent {
		delete(c.m, k)
	}
	c.mu.Unlock()
}

// volatileWords are the words (lower case) of SQLite's functions whose
// value is not fixed by the database: random(), randomblob(), the date and
// time functions (whose time value defaults to 'now'), CURRENT_DATE and
// the like, changes() and last_insert_rowid(). A query whose text holds
// one of them anywhere (in a name or a string too: the test is cheap and
// errs on the side of running) is never shared.
var volatileWords = []string{"random", "now", "current_", "date", "time", "julianday", "unixepoch", "strftime", "changes", "last_insert_rowid"}

// shareable reports whether running sql twice on the same immutable SQLite
// database must give the same result, so that one run may stand for both.
func shareable(sql string) bool {
	lower := strings.ToLower(sql)
	for _, w := range volatileWords {
		if strings.Contains(lower, w) {
			return false
		}
	}
	return true
}
