package serve

import (
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestStrictRequestJSON checks the request bodies encoding/json took
// silently: a key in another case taken for the field, a key given twice
// (items given twice overwrote the first list's entries), invalid UTF-8
// replaced. Each is HTTP 400 naming what is wrong; an unknown key is
// still ignored.
func TestStrictRequestJSON(t *testing.T) {
	_, eng, ts := newTestServer(t, Config{})
	const item = `{"db_id": "concert_singer", "gold": "SELECT 1", "pred": "SELECT 1"}`
	for _, c := range []struct{ name, path, body, want string }{
		{"item key case", "/v1/grade", `{"items": [` + item + `, {"DB_ID": "concert_singer", "gold": "SELECT 1", "pred": "SELECT 1"}]}`, `items[1]: unknown key \"DB_ID\" (keys are case-sensitive: expected \"db_id\")`},
		{"item key twice", "/v1/grade", `{"items": [{"db_id": "concert_singer", "gold": "SELECT 1", "pred": "SELECT 1", "pred": "SELECT 2"}]}`, `key \"pred\" given twice`},
		{"items twice", "/v1/grade", `{"items": [` + item + `], "items": [` + item + `]}`, `key \"items\" given twice`},
		{"invalid UTF-8", "/v1/grade", "{\"items\": [{\"db_id\": \"concert_singer\", \"gold\": \"SELECT 1\", \"pred\": \"SELECT '\xe9'\"}]}", `invalid UTF-8`},
		{"invalid UTF-8 key", "/v1/grade", "{\"items\": [" + item + "], \"x\xe9\": 1}", `invalid UTF-8`},
		{"label key twice", "/v1/openrlhf", `{"query": ["SELECT 1"], "labels": [{"db_id": "concert_singer", "gold": "SELECT 1", "gold": "SELECT 2"}]}`, `key \"gold\" given twice`},
		{"label key case", "/v1/openrlhf", `{"query": ["SELECT 1"], "labels": ["{\"db_id\": \"concert_singer\", \"Gold\": \"SELECT 1\"}"]}`, `unknown key \"Gold\"`},
	} {
		code, out := post(t, ts.URL+c.path, c.body)
		if code != http.StatusBadRequest || !strings.Contains(string(out), c.want) {
			t.Errorf("%s: HTTP %d %s; want 400 with %s", c.name, code, out, c.want)
		}
	}
	if n := eng.total(); n != 0 {
		t.Errorf("refused requests ran %d queries", n)
	}
	if code, out := post(t, ts.URL+"/v1/grade", `{"items": [{"db_id": "concert_singer", "gold": "SELECT 1", "pred": "SELECT 1", "note": {"x": 1}}], "other": [1]}`); code != http.StatusOK {
		t.Errorf("unknown keys: HTTP %d %s", code, out)
	}
}

// TestReadLabelsStrict: the --labels file is read as equiv's pairs are.
func TestReadLabelsStrict(t *testing.T) {
	for _, c := range []struct{ name, body, want string }{
		{"key twice", `{"prompt": "p", "db_id": "d", "gold": "SELECT 1", "gold": "SELECT 2"}`, `:1: want JSON {"prompt", "db_id", "gold"}: key "gold" given twice`},
		{"key case", `{"prompt": "p", "DB_ID": "d", "db_id": "d", "gold": "SELECT 1"}`, `:1: want JSON {"prompt", "db_id", "gold"}: unknown key "DB_ID"`},
		{"long line", `{"prompt": "` + strings.Repeat("x", 64<<20) + `"}`, `:1: line longer than 64 MiB`},
	} {
		p := filepath.Join(t.TempDir(), "labels.jsonl")
		if err := os.WriteFile(p, []byte(c.body), 0o644); err != nil {
			t.Fatal(err)
		}
		if _, err := ReadLabels(p); err == nil || !strings.HasPrefix(err.Error(), p+c.want) {
			t.Errorf("%s: %.300v\nwant %s%s", c.name, err, p, c.want)
		}
	}
	p := filepath.Join(t.TempDir(), "labels.jsonl")
	if err := os.WriteFile(p, []byte("\ufeff"+`{"prompt": "p", "db_id": "d", "gold": "SELECT 1"}`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if m, err := ReadLabels(p); err != nil || m["p"].DBID != "d" {
		t.Errorf("a BOM at the start: %v %v", m, err)
	}
}
