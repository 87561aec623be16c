package eval

import (
	"math"
	"runtime/debug"
	"testing"

	"github.com/sqljudge/sqljudge/internal/engine"
	"github.com/sqljudge/sqljudge/internal/engine/sqlite"
	"github.com/sqljudge/sqljudge/internal/report"
)

// TestMemoryCaps: the run block states the Go heap's soft limit in force
// and, when SQLite ran (the --db dialect or a --suite), SQLite's heap cap
// for the whole run.
func TestMemoryCaps(t *testing.T) {
	prev := debug.SetMemoryLimit(300 << 20)
	defer debug.SetMemoryLimit(prev)
	for _, c := range []struct {
		d     engine.Dialect
		suite string
		heap  int64
	}{
		{engine.SQLite, "", sqlite.HeapLimit},
		{engine.Postgres, "suite/", sqlite.HeapLimit},
		{engine.Postgres, "", 0},
	} {
		var ri report.RunInfo
		memoryCaps(&ri, c.d, c.suite)
		if ri.GoMemoryLimit != 300<<20 || ri.SQLiteHeapBytes != c.heap {
			t.Errorf("%s, suite %q: go_memory_limit %d, sqlite_heap_bytes %d; want %d, %d", c.d, c.suite, ri.GoMemoryLimit, ri.SQLiteHeapBytes, 300<<20, c.heap)
		}
	}
	debug.SetMemoryLimit(math.MaxInt64)
	var ri report.RunInfo
	if memoryCaps(&ri, engine.SQLite, ""); ri.GoMemoryLimit != 0 {
		t.Errorf("no Go memory limit: go_memory_limit %d, want it absent", ri.GoMemoryLimit)
	}
}
