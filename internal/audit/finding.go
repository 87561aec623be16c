package audit

import (
	"fmt"
	"strings"

	"github.com/sqljudge/sqljudge/internal/result"
)

// Kind names one way a gold query is unfit to grade against. The set is
// closed: Kinds lists it in report order.
type Kind string

// The kinds of finding.
const (
	// Fails: the gold query fails on the benchmark's database (the
	// engine's error in Error).
	Fails Kind = "fails"
	// Timeout: the gold query ran past the time limit.
	Timeout Kind = "timeout"
	// TooLarge: the gold result has more rows or bytes than the caps.
	TooLarge Kind = "too_large"
	// NearTimeout: the gold query ran in more than SlowRatio of the time
	// limit (the faster of two runs): on a slower or busier machine it
	// times out, so its verdicts depend on the machine.
	NearTimeout Kind = "near_timeout"
	// Empty: the gold query returns no row, so any prediction returning
	// no row is graded correct.
	Empty Kind = "empty"
	// LimitTies: a LIMIT cuts through rows that tie on the ORDER BY keys
	// and differ in what the query returns: which of them are kept is the
	// engine's choice.
	LimitTies Kind = "limit_ties"
	// OrderTies: the benchmark's rule compares rows in order, and the
	// ORDER BY leaves returned rows that differ tied (or there is no
	// outer ORDER BY at all): their order is the engine's choice.
	OrderTies Kind = "order_ties"
	// BareColumn: an aggregate SELECT returns a column its groups do not
	// determine (neither a GROUP BY term nor inside an aggregate), and a
	// group it keeps holds several values of it: the engine returns the
	// value of a row of its choosing (SQLite: the last row of the group it
	// reads, or, beside one MIN or MAX, the first row holding that value).
	BareColumn Kind = "bare_column"
	// DistinctOrder: a SELECT DISTINCT is sorted by a key it does not
	// return, a row takes several values of that key, and the rows kept
	// (or their order, where the rule compares in order) differ between
	// sorting each row by its smallest and by its largest value.
	DistinctOrder Kind = "distinct_order"
	// FloatOrder: a SUM or AVG over floating-point values gives another
	// value when the same rows are summed in another order.
	FloatOrder Kind = "float_order"
	// Volatile: the query calls a random or clock function (random(),
	// date('now'), CURRENT_DATE...): its result depends on when it runs.
	Volatile Kind = "volatile"
	// NullOrder: the ORDER BY sorts NULLs, which SQLite and MySQL put
	// first in ascending order and PostgreSQL last, and the rows kept (or
	// their order, where the rule compares in order) differ between the
	// two.
	NullOrder Kind = "null_order"
	// TextNumbers: an ORDER BY, MAX or MIN over text that holds numbers
	// sorts them as text ('10' < '9'), and sorting them as numbers changes
	// the result.
	TextNumbers Kind = "text_numbers"
)

// Kinds lists every kind in report order: the query's run first, then
// nondeterminism, then sorting across engines.
var Kinds = []Kind{Fails, Timeout, TooLarge, NearTimeout, Empty, LimitTies, OrderTies, BareColumn, DistinctOrder, FloatOrder, Volatile, NullOrder, TextNumbers}

var scanOrderKinds = map[Kind]bool{LimitTies: true, OrderTies: true, BareColumn: true, DistinctOrder: true, FloatOrder: true}

// kindText is a one-line description of each kind, for the console.
var kindText = map[Kind]string{
	Fails:         "the gold fails on the database",
	Timeout:       "the gold times out",
	TooLarge:      "the gold result is past --max-rows/--max-bytes",
	NearTimeout:   "the gold runs close to the time limit (machine-dependent)",
	Empty:         "the gold returns no row",
	LimitTies:     "a LIMIT cuts through tied rows",
	OrderTies:     "rows compared in order are tied on the ORDER BY",
	BareColumn:    "a column the GROUP BY does not determine",
	DistinctOrder: "DISTINCT rows sorted by a column they do not return",
	FloatOrder:    "a float SUM/AVG depends on summation order",
	Volatile:      "a random or clock function",
	NullOrder:     "NULLs sorted where engines disagree",
	TextNumbers:   "numbers stored as text, sorted as text",
}

// ScanOrder reports whether a finding of kind k says the gold's result
// follows the order the engine reads rows in (on one engine, its plan or
// the table's physical order): which tied rows a LIMIT keeps, the order of
// tied rows, a float sum's last digits. The other kinds are about the
// query's run, the clock, or how engines differ in sorting.
func (k Kind) ScanOrder() bool { return scanOrderKinds[k] }

// Describe returns a one-line description of k.
func (k Kind) Describe() string { return kindText[k] }

// Finding is one reason an item's gold query is unfit to grade against,
// with its evidence: one line of findings.jsonl. Index and ID name the
// item as eval's records do (run.Record). The evidence fields present
// depend on the kind (see docs/audit.md); rows are lists of cells printed
// as Python's str() prints them (NULL is None), as result samples are.
type Finding struct {
	Index int    `json:"index"`
	ID    string `json:"id"`
	DBID  string `json:"db_id"`
	Kind  Kind   `json:"kind"`
	// Query is the 0-based position of the audited query among the item's
	// gold queries (SQL-Eval's ';'-separated alternatives, each {a,b}
	// column choice expanded), present only when there are several.
	Query *int `json:"query,omitempty"`
	// Gold is the gold query audited.
	Gold string `json:"gold"`
	// Detail says what was found, in one sentence.
	Detail string `json:"detail"`
	// Clause is the part of the query the finding is about: the ORDER BY
	// and LIMIT, the aggregate, the function call.
	Clause string `json:"clause,omitempty"`
	// Subquery is the SELECT holding Clause when it is not the whole query.
	Subquery string `json:"subquery,omitempty"`
	// Error is the engine's error (fails, too_large).
	Error string `json:"error,omitempty"`
	// Seconds is the measured run time and TimeoutSeconds the limit
	// (timeout, near_timeout).
	Seconds        float64 `json:"seconds,omitempty"`
	TimeoutSeconds float64 `json:"timeout_seconds,omitempty"`
	// Columns are the columns of the rows below.
	Columns []string `json:"columns,omitempty"`
	// SortKeys are the ORDER BY keys as written.
	SortKeys []string `json:"sort_keys,omitempty"`
	// LastKept is the last row the LIMIT keeps (limit_ties).
	LastKept []string `json:"last_kept,omitempty"`
	// Tied are rows tied on the sort keys: beyond the LIMIT (limit_ties),
	// or among the rows returned, one group in returned order
	// (order_ties); at most the evidence cap.
	Tied [][]string `json:"tied,omitempty"`
	// TiedTotal counts the tied rows (limit_ties: beyond the LIMIT, up to
	// the window read; order_ties: in every tied group), TieGroups the
	// groups (order_ties).
	TiedTotal int `json:"tied_total,omitempty"`
	TieGroups int `json:"tie_groups,omitempty"`
	// Kept are rows the query keeps (or returns in another order, from the
	// first place they differ, where the rule compares in order) under one
	// order: null_order NULLs as the smallest values (SQLite, MySQL),
	// text_numbers text order; Instead the rows under the other order:
	// NULLs as the largest values (PostgreSQL), numeric order. Rows both
	// keep are left out.
	Kept    [][]string `json:"kept,omitempty"`
	Instead [][]string `json:"instead,omitempty"`
	// Values are two values that show the finding: float_order the
	// aggregate summed in scan order and in another order (Python repr);
	// text_numbers two values whose text order and numeric order invert.
	Values []string `json:"values,omitempty"`
	// EngineValues are float_order's two sums with the engine's own
	// summation (SQLite's compensated sum, 3.43 and later).
	EngineValues []string `json:"engine_values,omitempty"`
	// Group is the GROUP BY values of the group shown and Rows the number
	// of values summed or compared in it (float_order, text_numbers of MAX
	// and MIN); Groups the number of groups affected.
	Group  []string `json:"group,omitempty"`
	Rows   int      `json:"rows,omitempty"`
	Groups int      `json:"groups,omitempty"`
	// EvidenceCut says the evidence rows were cut to the cap (or the
	// window read ended while rows still tied).
	EvidenceCut bool `json:"evidence_cut,omitempty"`
}

// cells prints a row's values as result samples do (Python's str(), each
// cut to result.SampleCellBytes).
func cells(row []result.Value) []string {
	out := make([]string, len(row))
	for i, v := range row {
		s := result.PyStr(v)
		if len(s) > result.SampleCellBytes {
			s = cutUTF8(s, result.SampleCellBytes) + "…"
		}
		out[i] = s
	}
	return out
}

// cutUTF8 cuts s to at most n bytes at a character boundary.
func cutUTF8(s string, n int) string {
	if n >= len(s) {
		return s
	}
	for n > 0 && n < len(s) && s[n]&0xC0 == 0x80 {
		n--
	}
	return s[:n]
}

// rowsCells prints rows (see cells), at most limit of them; cut reports
// whether some were left out.
func rowsCells(rows [][]result.Value, limit int) (out [][]string, cut bool) {
	for i, r := range rows {
		if i == limit {
			return out, true
		}
		out = append(out, cells(r))
	}
	return out, false
}

// repr prints a value for a sentence: NULL, a text quoted ('null' is
// text, NULL is not), anything else as Python's str() prints it.
func repr(v result.Value) string {
	switch v.K {
	case result.Null:
		return "NULL"
	case result.Text:
		return "'" + strings.ReplaceAll(cutUTF8(v.S, 80), "'", "''") + "'"
	}
	return result.PyStr(v)
}

// reprs prints values for a sentence, comma-separated (see repr).
func reprs(vs []result.Value) string {
	out := make([]string, len(vs))
	for i, v := range vs {
		out[i] = repr(v)
	}
	return strings.Join(out, ", ")
}

// plural returns "1 row" or "n rows" for noun "row".
func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}
