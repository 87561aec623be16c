package serve

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"testing"
	"time"
)

// hangGuard bounds a wait that the fix makes short and the defect makes
// last the whole query timeout (an hour here): it only stops a hung test.
const hangGuard = 2 * time.Minute

// TestDisconnectCancelsQueries: a client that hangs up while its
// never-ending prediction runs (per-query timeout: an hour) stops that
// query in the engine.
func TestDisconnectCancelsQueries(t *testing.T) {
	_, eng, ts := newTestServer(t, Config{Timeout: time.Hour})
	eng.started = make(chan string, 16)
	eng.finished = make(chan string, 16)
	ctx, hangUp := context.WithCancel(context.Background())
	body, _ := json.Marshal(GradeRequest{Items: []GradeItem{{DBID: "concert_singer", Gold: Gold{"SELECT 1"}, Pred: ptr(neverEnds)}}})
	hreq, err := http.NewRequestWithContext(ctx, "POST", ts.URL+"/v1/grade", bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	hreq.Header.Set("Content-Type", "application/json")
	go func() {
		if resp, err := http.DefaultClient.Do(hreq); err == nil {
			resp.Body.Close()
		}
	}()
	for sql := range eng.started {
		if sql == neverEnds {
			break
		}
	}
	hangUp()
	guard := time.After(hangGuard)
	for {
		select {
		case sql := <-eng.finished:
			if sql == neverEnds {
				return
			}
		case <-guard:
			t.Fatalf("the abandoned query still runs %s after its client hung up", hangGuard)
		}
	}
}

// TestMaxItemTimeCoversEveryAlternative: an item whose 15 gold
// alternatives never end (per-query timeout: an hour) ends at
// --max-item-time, as an error that says so.
func TestMaxItemTimeCoversEveryAlternative(t *testing.T) {
	_, _, ts := newTestServer(t, Config{Timeout: time.Hour, MaxItemTime: 500 * time.Millisecond})
	var gold Gold
	for range 15 {
		gold = append(gold, neverEnds)
	}
	done := make(chan []GradeResult, 1)
	go func() {
		done <- grade(t, ts.URL, GradeRequest{Items: []GradeItem{{DBID: "concert_singer", Gold: gold, Pred: ptr("SELECT 1")}}})
	}()
	select {
	case res := <-done:
		if res[0].Verdict != Error || !bytes.Contains([]byte(res[0].Error), []byte("--max-item-time")) {
			t.Errorf("%+v; want an error naming --max-item-time", res[0])
		}
	case <-time.After(hangGuard):
		t.Fatalf("the item still runs after %s", hangGuard)
	}
}
