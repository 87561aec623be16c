package bench

import (
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"

	"github.com/sqljudge/sqljudge/internal/sqllex"
)

// readSQLEvalCSV reads Defog SQL-Eval's questions CSV (columns db_name,
// query_category, query, question, instructions; db_type and others are
// allowed). The query field may hold several acceptable gold queries
// separated by ';', split outside string literals and quoted identifiers.
// Items have no id in the file: the id is the 0-based row index.
func readSQLEvalCSV(path string) ([]Item, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("cannot open benchmark: %w", err)
	}
	defer f.Close()
	r := csv.NewReader(f)
	r.FieldsPerRecord = -1
	// The published files have unescaped quotes inside quoted fields (a
	// question that "quotes" a term); Python's csv reads them leniently.
	r.LazyQuotes = true
	header, err := r.Read()
	if err != nil {
		return nil, errAt(Pos{File: path, Line: 1}, "expected a CSV header: %v", err)
	}
	col := map[string]int{}
	for i, h := range header {
		col[strings.TrimPrefix(strings.TrimSpace(h), "\ufeff")] = i
	}
	for _, need := range []string{"db_name", "query", "question"} {
		if _, ok := col[need]; !ok {
			return nil, errAt(Pos{File: path, Line: 1}, "CSV header has no %q column (have %s)", need, strings.Join(header, ", "))
		}
	}
	get := func(rec []string, name string) string {
		if i, ok := col[name]; ok && i < len(rec) {
			return rec[i]
		}
		return ""
	}
	var items []Item
	for {
		rec, err := r.Read()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			var pe *csv.ParseError
			if errors.As(err, &pe) {
				return nil, errAt(Pos{File: path, Line: pe.Line}, "%v", pe.Err)
			}
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		line, _ := r.FieldPos(0)
		pos := Pos{File: path, Line: line}
		if len(rec) != len(header) {
			return nil, errAt(pos, "%d fields, the header has %d", len(rec), len(header))
		}
		q := get(rec, "query")
		gold := sqllex.SplitStatements(q)
		if len(gold) == 0 {
			return nil, errAt(pos, "empty \"query\"")
		}
		db := strings.TrimSpace(get(rec, "db_name"))
		if db == "" {
			return nil, errAt(pos, "empty \"db_name\"")
		}
		idx := len(items)
		items = append(items, Item{
			Index: idx, ID: strconv.Itoa(idx), DBID: db, Question: get(rec, "question"),
			Gold: gold, GoldText: q, Category: get(rec, "query_category"),
			Instructions: get(rec, "instructions"), GoldPos: pos,
		})
	}
	return items, nil
}
