package serve

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"time"

	"github.com/sqljudge/sqljudge/internal/membudget"
)

// DefaultMaxMemory is the memory budget of a server (Config.MaxMemory,
// --max-memory): 640 MiB. One item may hold seven eighths of it (560
// MiB: a gold and a predicted result at eval's cap of 256 MiB each), and
// with SQLite's heap cap (384 MiB, C memory outside the budget, rarely
// full at the same time) the process stays under 1 GiB.
const DefaultMaxMemory = 640 << 20

// bodyFactor is what a request body costs while its request is graded,
// per byte of body: the items decoded from it, their results' SQL and
// ids, the response encoded before it is sent (measured on bodies of
// 62 MB: BenchmarkServeAttacks41's bodies12x62MB).
const bodyFactor = 4

// equivTextFactor is what equiv derives from an item's SQL per byte of
// text (its tokens, literals and value pools, parse trees of the queries
// and of their rewrites), charged before the item is graded.
const equivTextFactor = 64

// bodyWait is how long a request waits for room for its body in the
// memory budget before it is refused (HTTP 429).
var bodyWait = 10 * time.Second

// reserveBody charges the body of r (its declared length, else
// --max-body) to a new ledger, waiting at most bodyWait for room; the
// caller releases the ledger once the response is written. A body whose
// charge does not fit the budget even alone is a 413, one that did not
// find room a 429, each saying so.
func (s *Server) reserveBody(r *http.Request) (*membudget.Ledger, *requestError) {
	n := s.cfg.MaxBody
	if r.ContentLength >= 0 && r.ContentLength < n {
		n = r.ContentLength
	}
	led := s.mem.Ledger()
	ctx, cancel := context.WithTimeout(r.Context(), bodyWait)
	defer cancel()
	_, err := led.Wait(ctx, bodyFactor*max(n, 1))
	switch {
	case errors.Is(err, membudget.ErrTooLarge):
		return nil, &requestError{http.StatusRequestEntityTooLarge, fmt.Sprintf("a body of %d bytes needs %d bytes of the server's memory budget (--max-memory %d), more than a request may take", n, bodyFactor*n, s.cfg.MaxMemory)}
	case err != nil:
		return nil, &requestError{http.StatusTooManyRequests, fmt.Sprintf("the server's memory budget (--max-memory %d) has no room for a body of %d bytes now (other requests hold it): retry later", s.cfg.MaxMemory, n)}
	}
	return led, nil
}

// chargeText charges what equiv derives from item it's text (pred its
// SQL) to led before it is graded; false with its verdict when it does
// not fit: too large for any item (a wrong answer, too_large), or not
// beside the others (run then grades it again alone).
func (s *Server) chargeText(led *membudget.Ledger, it *GradeItem, pred string) (Verdict, string, bool) {
	n := int64(len(pred))
	for _, g := range it.Gold {
		n += int64(len(g))
	}
	_, err := led.Charge(equivTextFactor * n)
	switch {
	case errors.Is(err, membudget.ErrTooLarge) && equivTextFactor*int64(len(pred)) > s.mem.HolderMax():
		return Wrong, fmt.Sprintf("too_large: the prediction's SQL (%d bytes) needs more of the server's memory budget than an item may take: %v", len(pred), err), false
	case errors.Is(err, membudget.ErrTooLarge):
		return Error, fmt.Sprintf("the item's SQL (%d bytes) needs more of the server's memory budget than an item may take: %v", n, err), false
	case err != nil:
		return Error, err.Error(), false // graded again alone (run)
	}
	return "", "", true
}
