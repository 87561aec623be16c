package bench

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"strconv"
	"strings"

	"github.com/sqljudge/sqljudge/internal/strictjson"
)

// FormatRoseVec is ROSE-VEC, ROSE's expert-labelled validation set
// (CedricPei/ROSE data/annotations/rose-vec-{spider,bird}.json): a JSON
// array of {question_id, db_id, question, predicted_sql, gold_sql,
// evidence, label}. It carries gold and prediction together; its labels
// are read by ReadLabels.
const FormatRoseVec Format = "rose-vec"

func init() { Formats = append(Formats, FormatRoseVec) }

// roseVecRecord is one object of a ROSE-VEC file.
type roseVecRecord struct {
	QuestionID json.RawMessage `json:"question_id"`
	DBID       string          `json:"db_id"`
	Question   string          `json:"question"`
	Predicted  *string         `json:"predicted_sql"`
	Gold       *string         `json:"gold_sql"`
	Evidence   string          `json:"evidence"`
	Difficulty string          `json:"difficulty"`
}

// readRoseVec reads a ROSE-VEC file as items with their predictions.
func readRoseVec(path string) ([]Item, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("cannot read %s: %w", path, err)
	}
	data = strictjson.TrimBOM(data)
	var recs []json.RawMessage
	if err := strictjson.Unmarshal(data, &recs); err != nil {
		return nil, errAt(Pos{File: path, Line: strictjson.Line(data, err)}, "expected a JSON array of ROSE-VEC objects {question_id, db_id, question, predicted_sql, gold_sql, label}: %v", err)
	}
	lineOf := objectLines(data)
	seen := map[string]int{}
	items := make([]Item, 0, len(recs))
	for i, raw := range recs {
		pos := Pos{File: path, Line: lineOf(i)}
		var r roseVecRecord
		if err := strictjson.Unmarshal(raw, &r); err != nil {
			return nil, errAt(pos, "item %d: %v", i, err)
		}
		switch {
		case len(r.QuestionID) == 0:
			return nil, errAt(pos, "item %d has no \"question_id\"", i)
		case r.DBID == "":
			return nil, errAt(pos, "item %d has no \"db_id\"", i)
		case r.Gold == nil:
			return nil, errAt(pos, "item %d has no \"gold_sql\"", i)
		case r.Predicted == nil:
			return nil, errAt(pos, "item %d has no \"predicted_sql\"", i)
		}
		id := rawID(r.QuestionID)
		if l, dup := seen[id]; dup {
			return nil, errAt(pos, "duplicate question_id %s (first at line %d)", id, l)
		}
		seen[id] = pos.Line
		items = append(items, Item{
			Index: i, ID: id, DBID: r.DBID, Question: r.Question, Evidence: r.Evidence,
			Gold: []string{*r.Gold}, GoldText: *r.Gold, Pred: *r.Predicted,
			Difficulty: r.Difficulty, GoldPos: pos, PredPos: pos,
		})
	}
	return items, nil
}

// Label is one human judgement of an item.
type Label struct {
	// Correct is the label: the prediction answers the question.
	Correct bool
	// Pos is where it was read.
	Pos Pos
}

// ReadLabels reads human labels by item id from a ROSE-VEC JSON file (a
// JSON array of objects with "question_id" and "label") or a JSONL file of
// {"id", "label"} lines. A label is a JSON boolean, the string "true" or
// "false", or the number 1 or 0. Ids are compared as text with the ids of
// run records (BIRD's and ROSE-VEC's question_id, JSONL's id, else the
// 0-based index). Errors name the file and line: a missing or malformed
// label, a duplicate id, no labels at all.
func ReadLabels(path string) (map[string]Label, error) {
	head, err := readHead(path, 4096)
	if err != nil {
		return nil, fmt.Errorf("cannot open labels: %w", err)
	}
	out := map[string]Label{}
	add := func(pos Pos, idRaw, labelRaw json.RawMessage, idKey string) error {
		if len(idRaw) == 0 {
			return errAt(pos, "no %q", idKey)
		}
		id := rawID(idRaw)
		c, ok := parseLabel(labelRaw)
		if !ok {
			return errAt(pos, "%s %s: \"label\" must be true or false (or \"true\"/\"false\", 1/0), found %s", idKey, id, orMissing(labelRaw))
		}
		if prev, dup := out[id]; dup {
			return errAt(pos, "duplicate %s %s (first at %s)", idKey, id, prev.Pos)
		}
		out[id] = Label{Correct: c, Pos: pos}
		return nil
	}
	if trim := bytes.TrimLeft(head, " \t\r\n\ufeff"); len(trim) > 0 && trim[0] == '[' {
		data, err := os.ReadFile(path)
		if err != nil {
			return nil, err
		}
		data = strictjson.TrimBOM(data)
		var recs []map[string]json.RawMessage
		if err := strictjson.Unmarshal(data, &recs); err != nil {
			return nil, errAt(Pos{File: path, Line: strictjson.Line(data, err)}, "expected a JSON array of {question_id, label} objects: %v", err)
		}
		lineOf := objectLines(data)
		for i, r := range recs {
			if err := add(Pos{File: path, Line: lineOf(i)}, r["question_id"], r["label"], "question_id"); err != nil {
				return nil, err
			}
		}
	} else {
		f, err := os.Open(path)
		if err != nil {
			return nil, err
		}
		defer f.Close()
		err = jsonLines(path, f, func(pos Pos, line []byte) error {
			var r map[string]json.RawMessage
			if err := strictjson.Unmarshal(line, &r); err != nil {
				return errAt(pos, "expected a JSON object {\"id\", \"label\"}: %v", err)
			}
			return add(pos, r["id"], r["label"], "id")
		})
		if err != nil {
			return nil, err
		}
	}
	if len(out) == 0 {
		return nil, errAt(Pos{File: path}, "no labels")
	}
	return out, nil
}

func parseLabel(raw json.RawMessage) (bool, bool) {
	var b bool
	if json.Unmarshal(raw, &b) == nil {
		return b, true
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		switch strings.ToLower(strings.TrimSpace(s)) {
		case "true":
			return true, true
		case "false":
			return false, true
		}
		return false, false
	}
	var n float64
	if json.Unmarshal(raw, &n) == nil && (n == 0 || n == 1) {
		return n == 1, true
	}
	return false, false
}

func orMissing(raw json.RawMessage) string {
	if len(raw) == 0 {
		return "none"
	}
	return strconv.Quote(string(raw))
}
