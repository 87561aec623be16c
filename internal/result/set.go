package result

import (
	"strconv"
	"strings"
)

// Set is the result of one query: column names in select order and rows of
// typed values, each row as long as Columns.
type Set struct {
	// Columns are the result column names as the engine reports them.
	Columns []string `json:"columns"`
	// Rows holds the rows in the order the engine returned them.
	Rows [][]Value `json:"-"`
	// InvalidUTF8 is true when some text cell held bytes that are not valid
	// UTF-8 (they were dropped). Python's default sqlite3 text factory raises
	// on such a cell, which BIRD's evaluator counts as an error.
	InvalidUTF8 bool `json:"-"`
}

// Len returns the number of rows.
func (s *Set) Len() int {
	if s == nil {
		return 0
	}
	return len(s.Rows)
}

// NumCols returns the number of columns of the first row, as the official
// evaluators read it (len(result[0])), or len(Columns) when there are no
// rows.
func (s *Set) NumCols() int {
	if s == nil {
		return 0
	}
	if len(s.Rows) > 0 {
		return len(s.Rows[0])
	}
	return len(s.Columns)
}

// SameRows reports whether a and b have the same number of columns and
// the same rows under RowKey's equality (Python == on tuples): position
// by position when ordered, else as multisets (each row as often in a as
// in b). Column names are not compared. This is the "bag" rule of
// docs/equiv.md ("bag+order" when ordered), which equiv's search and its
// soundness oracle both apply.
func SameRows(a, b *Set, ordered bool) bool {
	if len(a.Columns) != len(b.Columns) || len(a.Rows) != len(b.Rows) {
		return false
	}
	if ordered {
		for i := range a.Rows {
			if RowKey(a.Rows[i]) != RowKey(b.Rows[i]) {
				return false
			}
		}
		return true
	}
	bag := make(map[string]int, len(a.Rows))
	for _, r := range a.Rows {
		bag[RowKey(r)]++
	}
	for _, r := range b.Rows {
		k := RowKey(r)
		if bag[k] == 0 {
			return false
		}
		bag[k]--
	}
	return true
}

// RowKey returns the canonical key of a row: equal keys iff the rows are
// equal tuples under Python ==.
func RowKey(row []Value) string {
	var buf [64]byte
	b := buf[:0]
	for _, v := range row {
		b = AppendKey(b, v)
	}
	return string(b)
}

// String renders a short, human-readable form of the set for messages: the
// column names, the row count and at most the first five rows, each cell
// cut to SampleCellBytes (CutCell).
func (s *Set) String() string {
	if s == nil {
		return "<nil>"
	}
	var b strings.Builder
	b.WriteString("(" + strings.Join(s.Columns, ", ") + ") " + strconv.Itoa(len(s.Rows)) + " rows:")
	for i, r := range s.Rows {
		if i == 5 {
			b.WriteString(" ...")
			break
		}
		b.WriteString(" [")
		for j, v := range r {
			if j > 0 {
				b.WriteString(", ")
			}
			b.WriteString(CutCell(PyStr(v)))
		}
		b.WriteString("]")
	}
	return b.String()
}
