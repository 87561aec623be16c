package strictjson

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

type rec struct {
	ID   string          `json:"id"`
	Q1   string          `json:"q1,omitempty"`
	Gold json.RawMessage `json:"gold"`
	N    int             `json:"n"`
	Tags []string        `json:"tags"`
}

// TestUnmarshalRefuses checks each way encoding/json accepts a line
// silently: a key in another case, a key twice, invalid UTF-8 (also inside
// a json.RawMessage), and the message each gets.
func TestUnmarshalRefuses(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{`{"id":"a","id":"b"}`, `key "id" given twice: expected each key once`},
		{`{"id":"a","gold":{"k":1,"k":2}}`, `key "k" given twice in "gold"`},
		{"{\"id\":\"a\xff\"}", `invalid UTF-8 in a string in "id": expected UTF-8 text`},
		{"{\"id\":\"a\",\"gold\":[\"\xff\"]}", `invalid UTF-8 in a string in "gold[0]"`},
		{`{"id":1}`, `"id": expected a string, found a number`},
		{`{"tags":["a",2]}`, `"tags[1]": expected a string, found a number`},
		{`[1]`, `expected an object, found a list`},
		{`{"id":"a"} {}`, `invalid JSON: invalid character '{' after top-level value`},
		{`{"id":"a"`, `ends too early`},
		{"\ufeff{}", `invalid character '\ufeff'`},
	} {
		var r rec
		err := Unmarshal([]byte(c.in), &r)
		var e *Error
		if !errors.As(err, &e) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("Unmarshal(%q) = %v, want an *Error containing %q", c.in, err, c.want)
		}
	}
	var r rec
	if err := UnmarshalKnown([]byte(`{"ID":"a"}`), &r); err == nil || err.Error() != `unknown key "ID" (keys are case-sensitive)` {
		t.Errorf("UnmarshalKnown with \"ID\" = %v", err)
	}
	// Unmarshal skips unknown keys but refuses one that names a field in
	// another case, at any depth.
	if err := Unmarshal([]byte(`{"id":"a","other":{"ID":1}}`), &r); err != nil || r.ID != "a" {
		t.Errorf("Unmarshal with an unknown key = %v, id %q; want no error", err, r.ID)
	}
	for in, want := range map[string]string{
		`{"other":1,"ID":"a"}`:          `unknown key "ID" (keys are case-sensitive: expected "id")`,
		`[{"id":"a"},{"id":"b","N":1}]`: `unknown key "N" in "[1]" (keys are case-sensitive: expected "n")`,
	} {
		var rs any = &r
		if in[0] == '[' {
			rs = &[]rec{}
		}
		if err := Unmarshal([]byte(in), rs); err == nil || err.Error() != want {
			t.Errorf("Unmarshal(%s) = %v, want %s", in, err, want)
		}
	}
	var nested struct {
		Items []struct {
			rec
			DBID string `json:"db_id"`
		} `json:"items"`
	}
	if err := Unmarshal([]byte(`{"items":[{"id":"a","DB_ID":"x"}]}`), &nested); err == nil || err.Error() != `unknown key "DB_ID" in "items[0]" (keys are case-sensitive: expected "db_id")` {
		t.Errorf("nested: %v", err)
	}
	if err := Unmarshal([]byte(`{"items":[{"ID":"a"}]}`), &nested); err == nil || !strings.Contains(err.Error(), `expected "id"`) {
		t.Errorf("embedded: %v", err)
	}
}

// TestUnmarshalReads checks that what encoding/json reads right is read the
// same: fields, raw values, null, and an omitted key.
func TestUnmarshalReads(t *testing.T) {
	var r rec
	in := `{"id":"é","q1":"SELECT 1","gold":["a", "b"],"n":3,"tags":null}`
	if err := UnmarshalKnown([]byte(in), &r); err != nil {
		t.Fatal(err)
	}
	if r.ID != "é" || r.Q1 != "SELECT 1" || string(r.Gold) != `["a", "b"]` || r.N != 3 || r.Tags != nil {
		t.Errorf("got %+v", r)
	}
}

func TestLine(t *testing.T) {
	data := []byte("[\n {\"id\": \"a\"},\n {\"id\": 2}\n]")
	var rs []rec
	err := Unmarshal(data, &rs)
	if got := Line(data, err); got != 3 {
		t.Errorf("Line = %d (%v), want 3", got, err)
	}
}

// TestLines checks the BOM, blank lines, "\r\n" endings and the error of a
// line over MaxLine, which names the file, the line and the limit.
func TestLines(t *testing.T) {
	var got []string
	err := Lines("f.jsonl", strings.NewReader("\ufeff{\"a\":1}\r\n\n  \n{}\n"), func(n int, line []byte) error {
		got = append(got, string(line)+"@"+string(rune('0'+n)))
		return nil
	})
	if err != nil || strings.Join(got, " ") != `{"a":1}@1 {}@4` {
		t.Errorf("Lines = %q, %v", got, err)
	}
	long := "{}\n" + strings.Repeat("x", MaxLine+1) + "\n"
	err = Lines("f.jsonl", strings.NewReader(long), func(int, []byte) error { return nil })
	if err == nil || !strings.HasPrefix(err.Error(), "f.jsonl:2: line longer than 64 MiB") {
		t.Errorf("long line: %v", err)
	}
	stop := errors.New("stop")
	if err := Lines("f", strings.NewReader("1\n2\n"), func(int, []byte) error { return stop }); err != stop {
		t.Errorf("fn's error: %v", err)
	}
}

// TestDecodeLines: blank lines are skipped, every other line is one value
// decoded as UnmarshalKnown decodes it, and an error names the file and
// the line and keeps the values before it.
func TestDecodeLines(t *testing.T) {
	type rec struct {
		ID string `json:"id"`
		N  int    `json:"n"`
	}
	dir := t.TempDir()
	write := func(name, text string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	got, err := DecodeLines[rec](write("ok.jsonl", "{\"id\": \"a\", \"n\": 1}\n\n  \n{\"id\": \"b\", \"n\": 2}\n"))
	if err != nil || len(got) != 2 || got[0] != (rec{"a", 1}) || got[1] != (rec{"b", 2}) {
		t.Fatalf("got %v, %v", got, err)
	}
	for _, c := range []struct{ name, text, want string }{
		{"unknown.jsonl", "{\"id\": \"a\"}\n{\"id\": \"b\", \"x\": 1}\n", "unknown.jsonl:2: "},
		{"case.jsonl", "{\"ID\": \"a\"}\n", "case.jsonl:1: "},
		{"twice.jsonl", "{\"id\": \"a\"} {\"id\": \"b\"}\n", "twice.jsonl:1: "},
		{"type.jsonl", "\n{\"id\": \"a\", \"n\": \"1\"}\n", "type.jsonl:2: "},
	} {
		got, err := DecodeLines[rec](write(c.name, c.text))
		if err == nil || !strings.HasPrefix(err.Error(), c.want) {
			t.Errorf("%s: error %v, want one starting %q", c.name, err, c.want)
		}
		if c.name == "unknown.jsonl" && (len(got) != 1 || got[0].ID != "a") {
			t.Errorf("%s: kept %v, want the first line's value", c.name, got)
		}
	}
	if _, err := DecodeLines[rec](filepath.Join(dir, "missing.jsonl")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("missing file: %v", err)
	}
}
