//go:build cgo

package sqlite

/*
#include <stdint.h>
*/
import "C"

import (
	"context"
	"runtime/cgo"

	"github.com/sqljudge/sqljudge/internal/turn"
)

// progressEvery is how many SQLite virtual machine instructions run
// between two calls of the progress handler (tens to hundreds of
// microseconds of a query's work).
const progressEvery = 10_000

// progress is what the progress handler of one query calls: its
// context's Turn (turn.Yield), which may pause the query for other
// requests.
type progress struct {
	ctx context.Context
}

// step yields the query's turn; non-zero stops the query (SQLite then
// fails it with SQLITE_INTERRUPT), when its context ended.
func (p *progress) step() C.int {
	if turn.Yield(p.ctx) != nil {
		return 1
	}
	return 0
}

//export sqljudgeProgress
func sqljudgeProgress(h C.uintptr_t) C.int {
	return cgo.Handle(h).Value().(*progress).step()
}
