package serve

import (
	"encoding/json"
	"net/http"
	"testing"
)

// TestResultIDs: a result echoes its item's id as sent (a string or a
// number), and an item sent without one gets its index in the request as
// a string, as eval names a JSONL item without an id: it was the number 0,
// 1, ... while the documentation's ids are strings.
func TestResultIDs(t *testing.T) {
	_, _, ts := newTestServer(t, Config{})
	const item = `"db_id": "concert_singer", "gold": "SELECT 1", "pred": "SELECT 1"`
	code, body := post(t, ts.URL+"/v1/grade", `{"items": [{`+item+`}, {"id": "x", `+item+`}, {"id": 7, `+item+`}, {`+item+`}]}`)
	if code != http.StatusOK {
		t.Fatalf("HTTP %d %s", code, body)
	}
	var resp struct {
		Results []struct {
			ID json.RawMessage `json:"id"`
		} `json:"results"`
	}
	if err := json.Unmarshal(body, &resp); err != nil {
		t.Fatal(err)
	}
	want := []string{`"0"`, `"x"`, `7`, `"3"`}
	for i, r := range resp.Results {
		if string(r.ID) != want[i] {
			t.Errorf("result %d: id %s, want %s", i, r.ID, want[i])
		}
	}
}
