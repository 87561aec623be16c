package schema

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sqljudge/sqljudge/internal/shareddata"
)

func TestLoadSpiderTables(t *testing.T) {
	path := shareddata.SubsetPath(t, "spider", "tables.json")
	s, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	var raw []map[string]any
	b, _ := os.ReadFile(path)
	if err := json.Unmarshal(b, &raw); err != nil {
		t.Fatal(err)
	}
	if len(s) != len(raw) {
		t.Fatalf("%d schemas for %d entries", len(s), len(raw))
	}
	for _, r := range raw {
		d := s[r["db_id"].(string)]
		if d == nil {
			t.Fatalf("db %v missing", r["db_id"])
		}
		if len(d.Columns) != len(r["column_names"].([]any)) || len(d.Tables) != len(r["table_names"].([]any)) {
			t.Fatalf("%s: %d columns, %d tables", d.DBID, len(d.Columns), len(d.Tables))
		}
		if d.Columns[0].Table != -1 || d.Columns[0].Name != "*" {
			t.Fatalf("%s: column 0 is %+v", d.DBID, d.Columns[0])
		}
		for _, fk := range d.ForeignKeys {
			if fk[0] <= 0 || fk[0] >= len(d.Columns) || fk[1] <= 0 || fk[1] >= len(d.Columns) {
				t.Fatalf("%s: foreign key %v out of range", d.DBID, fk)
			}
		}
	}
	if ids := s.IDs(); len(ids) != len(s) || ids[0] > ids[len(ids)-1] {
		t.Errorf("IDs not sorted: %v", ids[:3])
	}
}

func TestLoadErrors(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.json")
	os.WriteFile(bad, []byte("[\n{\"db_id\": \"x\",\n \"column_names\": [[-1, \"*\"]], ,\n}]"), 0o644)
	if _, err := Load(bad); err == nil || !strings.Contains(err.Error(), bad+":3") {
		t.Errorf("syntax error: %v", err)
	}
	short := filepath.Join(dir, "short.json")
	os.WriteFile(short, []byte(`[{"db_id": "x", "table_names": [], "table_names_original": [], "column_names": [[-1, "*"]], "column_names_original": [], "column_types": ["text"]}]`), 0o644)
	if _, err := Load(short); err == nil || !strings.Contains(err.Error(), "differ in length") {
		t.Errorf("length mismatch: %v", err)
	}
}

// TestLoadQuestionsFileRefused is issue 21.9: Spider's dev.json given as
// --tables was read as 20 databases without tables (em then graded every
// item gold_error); it is an error naming the file, the entry and what
// the file is.
func TestLoadQuestionsFileRefused(t *testing.T) {
	dev := filepath.Join(shareddata.Path(t, "spider"), "dev.json")
	_, err := Load(dev)
	if err == nil || !strings.Contains(err.Error(), dev+": entry 0 (concert_singer)") || !strings.Contains(err.Error(), "questions file such as dev.json") {
		t.Fatalf("Load(dev.json): %v", err)
	}
}

// TestLoadStrictJSON checks what encoding/json took silently in a
// tables.json: a key given twice (the last kept) and a key in another case
// (taken for the field) are errors at their line; a BOM at the start is
// skipped.
func TestLoadStrictJSON(t *testing.T) {
	dir := t.TempDir()
	const entry = `{"db_id": "x", "table_names": ["t"], "table_names_original": ["t"], "column_names": [[-1, "*"]], "column_names_original": [[-1, "*"]], "column_types": ["text"]`
	for name, c := range map[string]struct{ body, want string }{
		"twice": {"[\n" + entry + "},\n" + entry + `, "db_id": "y"}]`, `:3: expected a JSON array of Spider schema entries: key "db_id" given twice in "[1]"`},
		"case":  {"[\n" + entry + "},\n" + entry + `, "Primary_Keys": [1]}]`, `:3: expected a JSON array of Spider schema entries: unknown key "Primary_Keys" in "[1]" (keys are case-sensitive: expected "primary_keys")`},
	} {
		p := filepath.Join(dir, name+".json")
		os.WriteFile(p, []byte(c.body), 0o644)
		if _, err := Load(p); err == nil || !strings.HasPrefix(err.Error(), p+c.want) {
			t.Errorf("%s: %v\nwant %s%s", name, err, p, c.want)
		}
	}
	bom := filepath.Join(dir, "bom.json")
	os.WriteFile(bom, []byte("\ufeff["+entry+"}]"), 0o644)
	if s, err := Load(bom); err != nil || len(s) != 1 {
		t.Errorf("a BOM at the start: %v", err)
	}
}
