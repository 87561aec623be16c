package cli

import (
	"math"
	"runtime/debug"
	"testing"
)

// TestTuneGC checks that eval raises the GC percent and sets a soft memory
// limit only where GOGC and GOMEMLIMIT are unset, and that restore puts
// the previous settings back.
func TestTuneGC(t *testing.T) {
	prevGC := debug.SetGCPercent(100)
	prevMem := debug.SetMemoryLimit(math.MaxInt64)
	defer debug.SetGCPercent(prevGC)
	defer debug.SetMemoryLimit(prevMem)

	restore := tuneGC(func(string) string { return "" })
	if gc, mem := debug.SetGCPercent(evalGCPercent), debug.SetMemoryLimit(-1); gc != evalGCPercent || mem != evalMemoryLimit {
		t.Errorf("with GOGC and GOMEMLIMIT unset: GC percent %d, memory limit %d; want %d, %d", gc, mem, evalGCPercent, evalMemoryLimit)
	}
	restore()
	if gc, mem := debug.SetGCPercent(100), debug.SetMemoryLimit(-1); gc != 100 || mem != math.MaxInt64 {
		t.Errorf("after restore: GC percent %d, memory limit %d; want 100, MaxInt64", gc, mem)
	}

	set := map[string]string{"GOGC": "50", "GOMEMLIMIT": "1GiB"}
	restore = tuneGC(func(k string) string { return set[k] })
	defer restore()
	if gc, mem := debug.SetGCPercent(100), debug.SetMemoryLimit(-1); gc != 100 || mem != math.MaxInt64 {
		t.Errorf("with GOGC and GOMEMLIMIT set: GC percent %d, memory limit %d; want them untouched", gc, mem)
	}
}
