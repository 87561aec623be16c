// Package turn is the contract between a pool of workers that share the
// CPU by time (serve's scheduler) and the code that runs on them (the
// metrics, the engines): an item holds a Turn on a worker, which it gives
// up at yield points when others wait for one, and gets back later; what
// bounds the item's work in time counts only the time its Turn holds a
// worker, so that a verdict does not depend on how long the item waited
// for its neighbours.
//
//   - Yield is the yield point: the SQLite engine calls it from SQLite's
//     progress handler (every few thousand virtual machine instructions),
//     so that a query that runs for seconds gives its worker to a waiting
//     request after a quantum instead of holding it to its timeout.
//   - Idle runs a blocking wait (a query waiting to run alone, an item
//     waiting for a gold result another item computes) without holding a
//     worker, so that no wait inside an item can keep the others from the
//     workers they need to end what it waits for.
//   - WithTimeout bounds a context by the time its Turn holds a worker
//     (wall time when the context carries no Turn, as in eval): the
//     per-query --timeout and serve's --max-item-time.
//
// Code that runs without a Turn (eval, the CLI's other commands) sees
// Yield and Idle do nothing more than call through, and WithTimeout be
// context.WithTimeout.
package turn
