// Package membudget is serve's one memory budget for the process: the
// bytes of what requests hold (query results, gold results kept across
// requests, request bodies in flight, what equiv derives from a query's
// text) are charged to it, and a charge that does not fit is refused
// instead of growing the process past its memory.
//
// Each holder of memory has a Ledger (an item being graded, a request's
// body): what it charges it holds until it releases the Ledger. A Charge
// (one query's result) may be held by several holders at once (an item
// and the gold cache) and is counted once, until the last lets it go.
//
// What one holder may take is capped at HolderMax, seven eighths of the
// limit: a charge past that is ErrTooLarge, a property of the holder
// alone. A charge that would fit that cap but not the room the others
// leave is ErrFull: the holder did not fit beside its neighbours, and
// runs again with Exclusive, which waits until the others hold at most an
// eighth of the limit and keeps them there while it runs, so that
// whether an item fits never depends on its neighbours.
package membudget
