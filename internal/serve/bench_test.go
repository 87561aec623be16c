package serve

import (
	"encoding/json"
	"fmt"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/sqljudge/sqljudge/internal/engine/sqlite"
	"github.com/sqljudge/sqljudge/internal/shareddata"
)

// BenchmarkServeSpiderDev grades Spider dev gold x the four prediction
// files of the shared data (4,136 items, ex, preset arctic) through
// /v1/grade in batches of 256 from two concurrent clients, on a server
// started once per iteration (so every gold query runs once, then comes
// from the cache). It reports items/s; compare with four `sqljudge eval
// --metrics ex` runs on the same files.
//
//	go test ./internal/serve -run '^$' -bench ServeSpiderDev -benchtime 3x
func BenchmarkServeSpiderDev(b *testing.B) {
	var all []GradeItem
	for _, sys := range shareddata.Systems {
		for _, it := range spiderItems(b, sys) {
			all = append(all, GradeItem{ID: json.RawMessage(fmt.Sprintf(`"%s/%d"`, sys, it.Index)), DBID: it.DBID, Gold: it.Gold, Pred: ptr(it.Pred)})
		}
	}
	b.ResetTimer()
	start := time.Now()
	for range b.N {
		eng := sqlite.New(shareddata.SubsetPath(b, "spider", "database"), sqlite.Options{})
		s := New(Config{Engine: eng, Timeout: 60 * time.Second})
		ts := httptest.NewServer(s.Handler())
		batches := make(chan int)
		var wg sync.WaitGroup
		for range 2 {
			wg.Go(func() {
				for lo := range batches {
					grade(b, ts.URL, GradeRequest{Preset: "arctic", Items: all[lo:min(lo+256, len(all))]})
				}
			})
		}
		for lo := 0; lo < len(all); lo += 256 {
			batches <- lo
		}
		close(batches)
		wg.Wait()
		ts.Close()
		s.Close()
		eng.Close()
	}
	b.ReportMetric(float64(len(all)*b.N)/time.Since(start).Seconds(), "items/s")
}
