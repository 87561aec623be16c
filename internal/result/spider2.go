package result

import (
	"bytes"
	"encoding/csv"
	"fmt"
	"io"
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// This file reproduces Spider 2.0's result comparison
// (xlang-ai/Spider2, spider2-lite/evaluation_suite/evaluate.py:
// get_sqlite_result, compare_pandas_table, compare_multi_pandas_table;
// spider2-snow's evaluate.py has the same logic) with the pandas 1.5
// typing it depends on: a predicted result is written to CSV in chunks of
// 500 rows (pd.read_sql_query(chunksize=500).to_csv) and read back with
// pd.read_csv, as the gold CSVs are, so both sides are typed from their
// CSV text.

// pyKind is the Python type of a cell of a pandas frame.
type pyKind uint8

const (
	pyNaN pyKind = iota // a missing value (float nan)
	pyInt
	pyFloat
	pyBool
	pyStr
)

// pyCell is one value as DataFrame.values.tolist() hands it to the
// comparator: int, float, bool, str or nan.
type pyCell struct {
	k pyKind
	i int64
	f float64
	s string
}

// csvDtype is a pandas column dtype as read_csv infers it.
type csvDtype uint8

const (
	csvObject csvDtype = iota
	csvInt64
	csvFloat64
	csvBool
)

// Frame is a table as pandas' read_csv types it: columns in file order,
// each with its inferred dtype (int64, float64, bool or object) and its
// cells. It is what Spider 2.0's comparator reads.
type Frame struct {
	cols []frameCol
}

type frameCol struct {
	dt    csvDtype
	cells []pyCell
}

// NumCols returns the number of columns.
func (f *Frame) NumCols() int { return len(f.cols) }

// naValues are pandas 1.5's default missing-value strings
// (pandas._libs.parsers.STR_NA_VALUES), matched exactly.
var naValues = map[string]bool{
	"": true, "#N/A": true, "#N/A N/A": true, "#NA": true, "-1.#IND": true, "-1.#QNAN": true,
	"-NaN": true, "-nan": true, "1.#IND": true, "1.#QNAN": true, "<NA>": true, "N/A": true,
	"NA": true, "NULL": true, "NaN": true, "n/a": true, "nan": true, "null": true,
}

var (
	csvInt   = regexp.MustCompile(`^[ \t]*[+-]?[0-9]+[ \t]*$`)
	csvFloat = regexp.MustCompile(`^[ \t]*[+-]?([0-9]+\.?[0-9]*|\.[0-9]+)([eE][+-]?[0-9]+)?[ \t]*$`)
	csvInf   = regexp.MustCompile(`^[ \t]*([+-]?)(?i:inf|infinity)[ \t]*$`)
)

// typeColumn infers a column's dtype from its CSV fields as pandas'
// C parser does: all fields (missing ones aside) integers -> int64 (float64
// when some are missing); numbers -> float64; True/False words -> bool
// (object when some are missing); anything else -> object, every field
// kept as text.
func typeColumn(fields []string) frameCol {
	cells := make([]pyCell, len(fields))
	missing, ints, floats, bools := 0, 0, 0, 0
	for _, s := range fields {
		switch {
		case naValues[s]:
			missing++
		case csvInt.MatchString(s):
			ints++
		case csvFloat.MatchString(s) || csvInf.MatchString(s):
			floats++
		case s == "True" || s == "TRUE" || s == "true" || s == "False" || s == "FALSE" || s == "false":
			bools++
		}
	}
	present := len(fields) - missing
	switch {
	case present == 0 && len(fields) > 0:
		return frameCol{dt: csvFloat64, cells: cells} // all nan
	case len(fields) == 0:
		return frameCol{dt: csvObject, cells: cells}
	case ints == present && missing == 0:
		for i, s := range fields {
			n, err := strconv.ParseInt(strings.Trim(s, " \t+"), 10, 64)
			if err != nil { // past int64: pandas reads uint64 or keeps text
				return objectColumn(fields)
			}
			cells[i] = pyCell{k: pyInt, i: n}
		}
		return frameCol{dt: csvInt64, cells: cells}
	case ints+floats == present:
		for i, s := range fields {
			if naValues[s] {
				continue
			}
			f, ok := csvNumber(s)
			if !ok {
				return objectColumn(fields)
			}
			cells[i] = pyCell{k: pyFloat, f: f}
		}
		return frameCol{dt: csvFloat64, cells: cells}
	case bools == present:
		for i, s := range fields {
			if !naValues[s] {
				cells[i] = pyCell{k: pyBool, i: b2i(strings.EqualFold(s, "true"))}
			}
		}
		if missing > 0 {
			return frameCol{dt: csvObject, cells: cells}
		}
		return frameCol{dt: csvBool, cells: cells}
	}
	return objectColumn(fields)
}

func b2i(b bool) int64 {
	if b {
		return 1
	}
	return 0
}

func csvNumber(s string) (float64, bool) {
	t := strings.Trim(s, " \t")
	if m := csvInf.FindStringSubmatch(s); m != nil {
		if m[1] == "-" {
			return math.Inf(-1), true
		}
		return math.Inf(1), true
	}
	f, err := strconv.ParseFloat(t, 64)
	if err != nil { // out of range: pandas keeps the column as text
		return 0, false
	}
	return f, true
}

func objectColumn(fields []string) frameCol {
	cells := make([]pyCell, len(fields))
	for i, s := range fields {
		if !naValues[s] {
			cells[i] = pyCell{k: pyStr, s: s}
		}
	}
	return frameCol{dt: csvObject, cells: cells}
}

// ReadCSVFrame reads a CSV file as pd.read_csv does with its defaults: the
// first line is the header, blank lines are skipped, a UTF-8 byte order
// mark is dropped, each column is typed by typeColumn. A data row with
// more fields than the header is an error; a shorter one is padded with
// missing values.
func ReadCSVFrame(r io.Reader) (*Frame, error) {
	data, err := io.ReadAll(r)
	if err != nil {
		return nil, err
	}
	cr := csv.NewReader(bytes.NewReader(bytes.TrimPrefix(data, []byte("\ufeff"))))
	cr.FieldsPerRecord = -1
	cr.LazyQuotes = true // pandas reads a stray quote inside a field as text
	recs, err := cr.ReadAll()
	if err != nil {
		return nil, err
	}
	if len(recs) == 0 {
		return nil, fmt.Errorf("no columns to parse from file (empty CSV)")
	}
	n := len(recs[0])
	fields := make([][]string, n)
	for k, rec := range recs[1:] {
		if len(rec) > n {
			return nil, fmt.Errorf("row %d: expected %d fields, saw %d", k+2, n, len(rec))
		}
		for j := range n {
			s := ""
			if j < len(rec) {
				s = rec[j]
			}
			fields[j] = append(fields[j], s)
		}
	}
	f := &Frame{cols: make([]frameCol, n)}
	for j := range n {
		f.cols[j] = typeColumn(fields[j])
	}
	return f, nil
}

// spider2Chunk is get_sqlite_result's chunksize: read_sql_query types each
// chunk of 500 rows on its own before to_csv writes it.
const spider2Chunk = 500

// FrameOfSet returns the frame Spider 2.0's evaluator reads back from the
// CSV it writes for a predicted result (get_sqlite_result: read_sql_query
// in chunks of 500 rows, to_csv, then pd.read_csv). Each chunk's column is
// typed as read_sql_query types Python objects (all int -> int64; numbers
// with a float or a None -> float64; any text or bytes, or only None ->
// object) and written as to_csv writes it (floats as repr, ints in a
// float64 column as floats, None as an empty field, bytes as b'..'); the
// fields are then typed by typeColumn.
func FrameOfSet(s *Set) *Frame {
	n := s.NumCols()
	fields := make([][]string, n)
	for start := 0; start < len(s.Rows); start += spider2Chunk {
		chunk := s.Rows[start:min(start+spider2Chunk, len(s.Rows))]
		for j := range n {
			fields[j] = appendChunkFields(fields[j], chunk, j)
		}
	}
	f := &Frame{cols: make([]frameCol, n)}
	for j := range n {
		f.cols[j] = typeColumn(fields[j])
	}
	return f
}

func appendChunkFields(dst []string, chunk [][]Value, j int) []string {
	hasFloat, hasNull, object := false, false, false
	allNull := true
	for _, r := range chunk {
		switch r[j].K {
		case Null:
			hasNull = true
			continue
		case Int, Bool:
		case Float, Decimal:
			hasFloat = true
		default:
			object = true
		}
		allNull = false
	}
	asFloat := !object && !allNull && (hasFloat || hasNull)
	for _, r := range chunk {
		v := r[j]
		switch {
		case v.K == Null:
			dst = append(dst, "")
		case asFloat:
			f := v.F
			if v.K == Int || v.K == Bool {
				f = float64(v.I)
			}
			dst = append(dst, PyFloatRepr(f))
		default:
			dst = append(dst, PyStr(v))
		}
	}
	return dst
}

// Spider2Compare is compare_pandas_table: 1 iff every gold column (only
// those at condition_cols when it is truthy; a lone number is a list of
// one; negative indexes count from the end) equals some predicted column
// as a vector. Missing values become 0; with ignoreOrder both vectors are
// sorted by (str(x), is number); lengths must match; numbers compare with
// math.isclose(abs_tol=1e-2), anything else with ==. An error is what the
// official code raises (a condition column out of range), which its caller
// scores 0.
func Spider2Compare(pred, gold *Frame, conditionCols any, ignoreOrder bool) (bool, error) {
	idx, err := conditionIndexes(conditionCols, gold.NumCols())
	if err != nil {
		return false, err
	}
	goldVecs := vectors(gold, idx)
	predVecs := vectors(pred, nil)
	if ignoreOrder {
		for _, v := range goldVecs {
			sortVector(v)
		}
		for _, v := range predVecs {
			sortVector(v)
		}
	}
	for _, g := range goldVecs {
		if !slices.ContainsFunc(predVecs, func(p []pyCell) bool { return vectorsMatch(g, p) }) {
			return false, nil
		}
	}
	return true, nil
}

// Spider2CompareMulti is compare_multi_pandas_table: correct iff some gold
// frame matches. condition_cols that is None, [], [[]] or [None] means all
// columns for every gold; with several golds a list that is not a list of
// lists is used for each; otherwise (one gold, or a list of lists) gold i
// takes element i of it, so one gold with a flat [a, b] reads only a (and
// all columns when a is 0). An index past the list is an error, as in the
// official code, once no earlier gold matched.
func Spider2CompareMulti(pred *Frame, golds []*Frame, conditionCols any, ignoreOrder bool) (bool, error) {
	if len(golds) == 0 {
		return false, nil
	}
	var per []any
	list, isList := conditionCols.([]any)
	switch {
	case conditionCols == nil || isList && (len(list) == 0 || len(list) == 1 && (list[0] == nil || isEmptyList(list[0]))):
		per = make([]any, len(golds))
	case len(golds) > 1 && !(isList && allLists(list)):
		if !isList {
			return false, fmt.Errorf("condition_cols %v is not iterable", conditionCols)
		}
		per = slices.Repeat([]any{conditionCols}, len(golds))
	default:
		if !isList {
			return false, fmt.Errorf("condition_cols %v is not subscriptable", conditionCols)
		}
		per = list
	}
	for i, g := range golds {
		if i >= len(per) {
			return false, fmt.Errorf("condition_cols has no entry for gold %d (list index out of range)", i)
		}
		ok, err := Spider2Compare(pred, g, per[i], ignoreOrder)
		if err != nil {
			return false, err
		}
		if ok {
			return true, nil
		}
	}
	return false, nil
}

func isEmptyList(x any) bool {
	l, ok := x.([]any)
	return ok && len(l) == 0
}

func allLists(l []any) bool {
	for _, x := range l {
		if _, ok := x.([]any); !ok {
			return false
		}
	}
	return true
}

// conditionIndexes reads condition_cols as compare_pandas_table does: a
// falsy value (None, 0, an empty list) selects every column (nil); a
// number is a list of one; each index selects a column as iloc does.
func conditionIndexes(c any, ncols int) ([]int, error) {
	var list []any
	switch t := c.(type) {
	case nil:
		return nil, nil
	case float64:
		if t == 0 {
			return nil, nil
		}
		list = []any{t}
	case []any:
		if len(t) == 0 {
			return nil, nil
		}
		list = t
	default:
		return nil, fmt.Errorf("condition_cols %v: expected column indexes", c)
	}
	out := make([]int, 0, len(list))
	for _, x := range list {
		f, ok := x.(float64)
		if !ok || f != math.Trunc(f) {
			return nil, fmt.Errorf("condition_cols %v: expected integer column indexes", c)
		}
		k := int(f)
		if k < 0 {
			k += ncols
		}
		if k < 0 || k >= ncols {
			return nil, fmt.Errorf("condition_cols %v: positional indexer is out-of-bounds (the gold has %d columns)", c, ncols)
		}
		out = append(out, k)
	}
	return out, nil
}

// vectors returns the columns at idx (all when nil) as
// frame.iloc[:, idx].transpose().values.tolist() hands them over, missing
// values normalised to 0: the selected columns share numpy's common dtype,
// so int64 columns beside float64 ones become floats, and any bool or
// object column makes every cell keep its own Python type.
func vectors(f *Frame, idx []int) [][]pyCell {
	if idx == nil {
		idx = make([]int, len(f.cols))
		for j := range idx {
			idx[j] = j
		}
	}
	allInt, allNum, allBool := true, true, true
	for _, j := range idx {
		switch f.cols[j].dt {
		case csvInt64:
			allBool = false
		case csvFloat64:
			allInt, allBool = false, false
		case csvBool:
			allInt, allNum = false, false
		default:
			allInt, allNum, allBool = false, false, false
		}
	}
	toFloat := allNum && !allInt && !allBool
	out := make([][]pyCell, len(idx))
	for k, j := range idx {
		v := slices.Clone(f.cols[j].cells)
		for i, c := range v {
			switch {
			case c.k == pyNaN || c.k == pyFloat && math.IsNaN(c.f):
				v[i] = pyCell{k: pyInt} // normalize: pd.isna(x) -> 0
			case toFloat && c.k == pyInt:
				v[i] = pyCell{k: pyFloat, f: float64(c.i)}
			}
		}
		out[k] = v
	}
	return out
}

// pyStr is Python's str() of a cell.
func (c pyCell) pyStr() string {
	switch c.k {
	case pyInt:
		return strconv.FormatInt(c.i, 10)
	case pyFloat:
		return PyFloatRepr(c.f)
	case pyBool:
		if c.i != 0 {
			return "True"
		}
		return "False"
	case pyStr:
		return c.s
	}
	return "nan"
}

func (c pyCell) number() (float64, bool) {
	switch c.k {
	case pyInt, pyBool:
		return float64(c.i), true
	case pyFloat:
		return c.f, true
	}
	return 0, false
}

// sortVector sorts as sorted(v, key=lambda x: (x is None, str(x),
// isinstance(x, (int, float)))) does: stable, by text, text before numbers
// on equal text (no cell is None after normalising).
func sortVector(v []pyCell) {
	type keyed struct {
		s   string
		num bool
		c   pyCell
	}
	ks := make([]keyed, len(v))
	for i, c := range v {
		_, num := c.number()
		ks[i] = keyed{c.pyStr(), num, c}
	}
	slices.SortStableFunc(ks, func(a, b keyed) int {
		if c := strings.Compare(a.s, b.s); c != 0 {
			return c
		}
		switch {
		case a.num == b.num:
			return 0
		case !a.num:
			return -1
		}
		return 1
	})
	for i := range ks {
		v[i] = ks[i].c
	}
}

// vectorsMatch is vectors_match on normalised (and, if asked, sorted)
// vectors.
func vectorsMatch(a, b []pyCell) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		x, xn := a[i].number()
		y, yn := b[i].number()
		switch {
		case xn && yn:
			if !isClose(x, y, 1e-2) {
				return false
			}
		case xn || yn:
			return false // a number never == a str
		case a[i].s != b[i].s:
			return false
		}
	}
	return true
}

// isClose is Python's math.isclose(a, b, abs_tol=tol) with its default
// rel_tol of 1e-09.
func isClose(a, b, tol float64) bool {
	if a == b {
		return true
	}
	if math.IsInf(a, 0) || math.IsInf(b, 0) {
		return false
	}
	d := math.Abs(a - b)
	return d <= math.Abs(1e-9*b) || d <= math.Abs(1e-9*a) || d <= tol
}
