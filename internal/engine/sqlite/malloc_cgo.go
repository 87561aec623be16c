//go:build cgo && linux

package sqlite

/*
#include <malloc.h>

// SQLite allocates with the C library's malloc. glibc gives each thread
// that allocates an arena of its own, up to eight per core, and keeps what
// is freed in it: the Go runtime runs queries on many threads, so a run of
// queries near the heap cap left gigabytes resident over a score of
// arenas (2.9 GB for 25 cross joins with two workers), though SQLite never
// held more than its cap at once. One arena is no slower here: SQLite
// already takes one process-wide mutex around every allocation (the
// memory accounting behind the heap cap).
static void sqljudge_one_arena(void) {
#if defined(__GLIBC__) && defined(M_ARENA_MAX)
	mallopt(M_ARENA_MAX, 1);
#endif
}

static void sqljudge_trim(void) {
#if defined(__GLIBC__)
	malloc_trim(0);
#endif
}
*/
import "C"

func init() { C.sqljudge_one_arena() }

// releaseHeap hands the free pages of the C heap back to the system
// (glibc's malloc_trim; nothing elsewhere), after a query that may have
// filled SQLite's heap.
func releaseHeap() { C.sqljudge_trim() }
