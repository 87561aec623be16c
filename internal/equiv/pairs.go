package equiv

import (
	"fmt"
	"os"
	"strings"

	"github.com/sqljudge/sqljudge/internal/strictjson"
	"github.com/sqljudge/sqljudge/internal/usage"
)

// PairLine is one line of a pairs file (JSON Lines): {"id", "q1", "q2",
// "schema"} with the schema as DDL text, or {"id", "q1", "q2", "db_id"}
// naming a database under --db, either with an optional "note": free text
// about the pair (its source, how it was converted) that the search ignores,
// as testdata/calcite/pairs.jsonl carries. Line is its 1-based line number.
type PairLine struct {
	ID     string `json:"id"`
	Q1     string `json:"q1"`
	Q2     string `json:"q2"`
	Schema string `json:"schema,omitempty"`
	DBID   string `json:"db_id,omitempty"`
	Note   string `json:"note,omitempty"`
	Line   int    `json:"-"`
}

// ReadPairs reads a pairs file. Blank lines are skipped, and a UTF-8 byte
// order mark at the start of the file. A line that is not a JSON object of
// that shape (unknown keys, keys in another case, a key given twice,
// invalid UTF-8, a missing id, q1 or q2, both or neither of schema and
// db_id, an id seen before, more than strictjson.MaxLine bytes) is a
// usage.Error "file:line: what was expected".
func ReadPairs(path string) ([]PairLine, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, usage.Errorf("--pairs: %w", err)
	}
	defer f.Close()
	var out []PairLine
	seen := map[string]int{}
	err = strictjson.Lines(path, f, func(n int, line []byte) error {
		p, err := parsePair(line)
		if err == nil && seen[p.ID] > 0 {
			err = fmt.Errorf("id %q was already used on line %d", p.ID, seen[p.ID])
		}
		if err != nil {
			return fmt.Errorf("%s:%d: %w", path, n, err)
		}
		p.Line = n
		seen[p.ID] = n
		out = append(out, p)
		return nil
	})
	if err != nil {
		return nil, usage.Error{Err: err}
	}
	if len(out) == 0 {
		return nil, usage.Errorf("%s: no pairs", path)
	}
	return out, nil
}

func parsePair(line []byte) (PairLine, error) {
	var p PairLine
	if err := strictjson.UnmarshalKnown(line, &p); err != nil {
		return p, fmt.Errorf(`expected one JSON object {"id", "q1", "q2", "schema" or "db_id"}: %w`, err)
	}
	switch {
	case p.ID == "":
		return p, fmt.Errorf(`missing "id"`)
	case strings.TrimSpace(p.Q1) == "" || strings.TrimSpace(p.Q2) == "":
		return p, fmt.Errorf(`pair %q: missing "q1" or "q2"`, p.ID)
	case (p.Schema == "") == (p.DBID == ""):
		return p, fmt.Errorf(`pair %q: expected exactly one of "schema" (DDL text) and "db_id"`, p.ID)
	}
	return p, nil
}
