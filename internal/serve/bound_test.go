package serve

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/sqljudge/sqljudge/internal/engine/sqlite"
	"github.com/sqljudge/sqljudge/internal/metric"
	"github.com/sqljudge/sqljudge/internal/shareddata"
)

// padItems returns n distinct equiv (or verdict) items on concert_singer
// whose prediction pads each name of the gold's with a string of about
// size bytes: wrong on the item's database, so each carries a witness
// whose q2 rows hold those strings.
func padItems(n, size int, metricName string) []GradeItem {
	var items []GradeItem
	for k := range n {
		pred := fmt.Sprintf("SELECT name || printf('%%.*c', %d, 'x') FROM singer WHERE age > 40", size+k)
		items = append(items, GradeItem{ID: json.RawMessage(fmt.Sprint(k)), DBID: "concert_singer",
			Gold: Gold{"SELECT name FROM singer WHERE age > 40"}, Pred: &pred, Metric: metricName})
	}
	return items
}

// TestWitnessCellsAreCut is the memory attack of issue 31 made small: 12
// equiv and verdict items whose witnesses hold cells of 1 MB each (the
// attack used 30 items of 20 MB: a 600 MB response, 1.88 GB of RSS). The
// response is now a few kilobytes an item: each witness cell is cut to
// result.SampleCellBytes, as a report's samples are, and says so
// (cut_cells); before, it held every cell whole (12 MB and more).
func TestWitnessCellsAreCut(t *testing.T) {
	eng := sqlite.New(shareddata.SubsetPath(t, "spider", "database"), sqlite.Options{})
	t.Cleanup(func() { eng.Close() })
	_, _, ts := newTestServer(t, Config{Engine: eng, MetricOptions: metric.Options{
		Equiv: metric.EquivOptions{Seed: 1, Budget: 20 * time.Second, MaxDatabases: 300}}})
	items := append(padItems(6, 1<<20, "equiv"), padItems(6, 1<<20, "verdict")...)
	code, body := post(t, ts.URL+"/v1/grade", GradeRequest{Items: items})
	if code != http.StatusOK {
		t.Fatalf("HTTP %d: %.300s", code, body)
	}
	if len(body) > len(items)*16<<10 {
		t.Errorf("a response of %d bytes for %d items", len(body), len(items))
	}
	var resp GradeResponse
	if err := json.Unmarshal(body, &resp); err != nil {
		t.Fatal(err)
	}
	for i, r := range resp.Results {
		if r.Verdict != Wrong || witnessOf(t, r, items[i].Metric) == nil {
			t.Errorf("item %d (%s): %+v; want wrong with a witness", i, items[i].Metric, r)
		}
	}
	if n := strings.Count(string(body), `"cut_cells":`); n < len(items) {
		t.Errorf("%d results say cells were cut, want every one of %d", n, len(items))
	}
}

// TestResponseShareIsKept: the verdict details of a response take at most
// --max-response together, an equal share an item: with 4 KiB for 4 items
// (1 KiB each), each witness (about 1.2 kB here) is left out, the rest of
// the verdict kept, and the result says what was cut and why, as the
// response counts the results cut; the same items at the default bound
// keep their witnesses and say nothing.
func TestResponseShareIsKept(t *testing.T) {
	eng := sqlite.New(shareddata.SubsetPath(t, "spider", "database"), sqlite.Options{})
	t.Cleanup(func() { eng.Close() })
	opts := metric.Options{Equiv: metric.EquivOptions{Seed: 1, Budget: 20 * time.Second, MaxDatabases: 300}}
	items := padItems(4, 10, "equiv")
	for _, bound := range []int64{4 << 10, 0} {
		_, _, ts := newTestServer(t, Config{Engine: eng, MetricOptions: opts, MaxResponse: bound})
		code, body := post(t, ts.URL+"/v1/grade", GradeRequest{Items: items})
		var resp GradeResponse
		if err := json.Unmarshal(body, &resp); code != http.StatusOK || err != nil {
			t.Fatalf("HTTP %d (%v): %.300s", code, err, body)
		}
		details := 0
		for i, r := range resp.Results {
			b, _ := json.Marshal(r.Verdicts)
			details += len(b)
			w := witnessOf(t, r, "equiv")
			switch {
			case r.Verdict != Wrong || r.Verdicts["equiv"].Status != "ok":
				t.Errorf("bound %d, item %d: %+v", bound, i, r)
			case bound == 0 && (w == nil || r.Cut != ""):
				t.Errorf("default bound, item %d: witness %v, cut %q", i, w != nil, r.Cut)
			case bound > 0 && (w != nil || !strings.HasPrefix(r.Cut, "verdicts.equiv.witness (") ||
				!strings.Contains(r.Cut, "left out: over this item's share of the response (1024 bytes")):
				t.Errorf("bound %d, item %d: witness %v, cut %q", bound, i, w != nil, r.Cut)
			}
		}
		if bound > 0 && (details > int(bound) || resp.ResultsCut != len(items)) {
			t.Errorf("bound %d: details of %d bytes, %d results cut", bound, details, resp.ResultsCut)
		}
		if bound == 0 && resp.ResultsCut != 0 {
			t.Errorf("default bound: %d results cut", resp.ResultsCut)
		}
	}
}
