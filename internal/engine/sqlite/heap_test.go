package sqlite_test

import (
	"bufio"
	"context"
	"errors"
	"os"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/sqljudge/sqljudge/internal/engine"
	"github.com/sqljudge/sqljudge/internal/engine/sqlite"
	"github.com/sqljudge/sqljudge/internal/shareddata"
)

// heapBomb sorts rows without end: SQLite's sorter (in memory, under the
// heap cap) grows until the cap stops it.
const heapBomb = `WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c)
	SELECT x, printf('%.4000c', 'x') FROM c ORDER BY random()`

// TestHeapCapIsTheRuns: a query that fills SQLite's heap is too_large, and
// its error says the cap is all queries', not its own.
func TestHeapCapIsTheRuns(t *testing.T) {
	e := sqlite.New(shareddata.SubsetPath(t, "spider", "database"), sqlite.Options{})
	defer e.Close()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	_, err := e.Query(ctx, "concert_singer", heapBomb)
	if !errors.Is(err, engine.ErrTooLarge) || !strings.Contains(err.Error(), "the cap of all queries; it ran alone") {
		t.Fatalf("got %v, want too large: the heap cap shared by the run's queries", err)
	}
}

// BenchmarkHeapCapRSS runs heapBomb on four goroutines at once, b.N times
// each, and reports the process's peak resident memory (VmHWM): SQLite
// never holds more than sqlite.HeapLimit at once, and with one malloc
// arena (malloc_cgo.go) what it frees is used again instead of staying
// resident in an arena per thread.
func BenchmarkHeapCapRSS(b *testing.B) {
	e := sqlite.New(shareddata.SubsetPath(b, "spider", "database"), sqlite.Options{MaxConns: 4})
	defer e.Close()
	var wg sync.WaitGroup
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range b.N {
				if _, err := e.Query(context.Background(), "concert_singer", heapBomb); !errors.Is(err, engine.ErrTooLarge) {
					b.Errorf("got %v, want too large", err)
				}
			}
		}()
	}
	wg.Wait()
	b.ReportMetric(float64(peakRSS(b))/(1<<20), "peak-RSS-MiB")
	b.ReportMetric(float64(sqlite.HeapLimit)/(1<<20), "heap-cap-MiB")
}

// peakRSS returns VmHWM of /proc/self/status in bytes.
func peakRSS(b *testing.B) int64 {
	f, err := os.Open("/proc/self/status")
	if err != nil {
		b.Skip("no /proc/self/status")
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if rest, ok := strings.CutPrefix(sc.Text(), "VmHWM:"); ok {
			kb, err := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(rest), "kB")), 10, 64)
			if err != nil {
				b.Fatal(err)
			}
			return kb << 10
		}
	}
	b.Skip("no VmHWM")
	return 0
}
