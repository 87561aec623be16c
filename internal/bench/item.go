package bench

import (
	"errors"
	"fmt"
)

// Item is one benchmark question with its gold and predicted SQL.
type Item struct {
	// Index is the 0-based position of the item in the gold file (blank
	// separator lines of SParC/CoSQL files are not items).
	Index int `json:"index"`
	// ID identifies the item: the benchmark's own id (BIRD question_id,
	// JSONL id) or, where the format has none, the index as text.
	ID string `json:"id"`
	// DBID names the database the item runs on.
	DBID string `json:"db_id"`
	// Question is the natural-language question ("" when the gold file has
	// none, as Spider's dev_gold.sql).
	Question string `json:"question,omitempty"`
	// Evidence is BIRD's external knowledge hint.
	Evidence string `json:"evidence,omitempty"`
	// Gold holds the acceptable gold queries, at least one. Only Defog
	// SQL-Eval has several.
	Gold []string `json:"gold"`
	// GoldText is the gold field as written in the file (for SQL-Eval, all
	// alternatives joined by ';').
	GoldText string `json:"-"`
	// Pred is the predicted query.
	Pred string `json:"pred"`
	// Difficulty is the benchmark's difficulty label (BIRD simple,
	// moderate, challenging); "" when the benchmark has none.
	Difficulty string `json:"difficulty,omitempty"`
	// Category is Defog SQL-Eval's query_category.
	Category string `json:"category,omitempty"`
	// Instructions are Defog SQL-Eval's per-question instructions.
	Instructions string `json:"instructions,omitempty"`
	// Interaction and Turn place an item of a SParC/CoSQL gold file: the
	// 0-based interaction (blank-line separated block) and the 0-based turn
	// within it. Both are 0 for single-turn benchmarks.
	Interaction int `json:"interaction,omitempty"`
	Turn        int `json:"turn,omitempty"`
	// GoldResults are Spider 2.0's gold result CSV files (FormatSpider2),
	// in place of gold SQL: Gold is empty then. GoldResultsMulti says they
	// are compared as compare_multi_pandas_table does (several gold
	// files), not as compare_pandas_table (one gold file); ConditionCols is the
	// instance's condition_cols as decoded from JSON (nil, a number, a list
	// of numbers or of lists) and IgnoreOrder its ignore_order.
	GoldResults      []string `json:"-"`
	GoldResultsMulti bool     `json:"-"`
	ConditionCols    any      `json:"-"`
	IgnoreOrder      bool     `json:"-"`
	// GoldPos and PredPos say where the item was read, for messages.
	GoldPos Pos `json:"-"`
	PredPos Pos `json:"-"`
}

// Pos is a position in an input file: the file and its 1-based line (0
// when the format has no lines, such as a JSON array).
type Pos struct {
	File string
	Line int
}

// String renders "file:line" or "file".
func (p Pos) String() string {
	if p.Line > 0 {
		return fmt.Sprintf("%s:%d", p.File, p.Line)
	}
	return p.File
}

// ErrFormat is wrapped by every error about malformed or mismatched input.
var ErrFormat = errors.New("bad benchmark input")

// InputError is an error about an input file, with its position.
type InputError struct {
	Pos Pos
	Msg string
}

// Error renders "file:line: message".
func (e *InputError) Error() string { return e.Pos.String() + ": " + e.Msg }

// Unwrap returns ErrFormat.
func (e *InputError) Unwrap() error { return ErrFormat }

func errAt(p Pos, format string, args ...any) error {
	return &InputError{Pos: p, Msg: fmt.Sprintf(format, args...)}
}
