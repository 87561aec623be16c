package result

import "unicode/utf8"

// SampleRows is the most rows of each result a Sample keeps.
const SampleRows = 20

// SampleCellBytes is the most bytes of a cell a Sample keeps, and every
// other shown result with it (CutCell): a longer value is cut at a
// character boundary and ends in "…".
const SampleCellBytes = 500

// Sample is a bounded diff of one item's gold and predicted results, kept
// by the runner while it grades (run.Record's "sample") so that a report
// shows it without running a query again. Rows are the gold's first rows
// in order, each marked "=" (also in the prediction) or "-" (only in the
// gold), then the prediction's rows found in no gold row ("+"), at most
// SampleRows of each; rows are matched as multisets (Python tuple
// equality, RowKey) over all rows of both results.
//
//	{"gold_columns": ["name"], "pred_columns": ["name"],
//	 "rows": [{"op": "=", "cells": ["Joe"]}, {"op": "+", "cells": ["Ann"]}],
//	 "gold_rows": 1, "pred_rows": 2}
type Sample struct {
	GoldColumns []string `json:"gold_columns"`
	PredColumns []string `json:"pred_columns"`
	// Rows are the diff's rows, gold first.
	Rows []DiffRow `json:"rows"`
	// GoldRows and PredRows are the results' full row counts.
	GoldRows int `json:"gold_rows"`
	PredRows int `json:"pred_rows"`
	// Err is why the results could not be read ("" otherwise; only
	// samples computed after a run, by report --db, have one).
	Err string `json:"err,omitempty"`
}

// DiffRow is one row of a Sample: Op is "=", "-" or "+"; Cells are the
// values as Python's str() prints them, each cut to SampleCellBytes.
type DiffRow struct {
	Op    string   `json:"op"`
	Cells []string `json:"cells"`
}

// Diff compares a gold and a predicted result into a Sample.
func Diff(gold, pred *Set) *Sample {
	s := &Sample{GoldColumns: gold.Columns, PredColumns: pred.Columns, GoldRows: gold.Len(), PredRows: pred.Len()}
	left := make(map[string]int, len(pred.Rows))
	for _, r := range pred.Rows {
		left[RowKey(r)]++
	}
	for k, r := range gold.Rows {
		op := "-"
		if key := RowKey(r); left[key] > 0 {
			left[key]--
			op = "="
		}
		if k < SampleRows {
			s.Rows = append(s.Rows, DiffRow{Op: op, Cells: sampleCells(r)})
		}
	}
	shown := 0
	for _, r := range pred.Rows {
		if shown == SampleRows {
			break
		}
		key := RowKey(r)
		if left[key] == 0 {
			continue
		}
		left[key]--
		s.Rows = append(s.Rows, DiffRow{Op: "+", Cells: sampleCells(r)})
		shown++
	}
	return s
}

// sampleCells prints a row's values, each cut to SampleCellBytes.
func sampleCells(r []Value) []string {
	out := make([]string, len(r))
	for i, v := range r {
		out[i] = CutCell(PyStr(v))
	}
	return out
}

// CutCell cuts a cell's text s to at most SampleCellBytes bytes (then
// "…", 3 bytes more), at a character boundary; a shorter s is returned as
// it is. It is the one cap of a cell shown outside a result set: a
// report's samples, equiv's witnesses, ts's witness results (Set.String).
func CutCell(s string) string {
	if len(s) <= SampleCellBytes {
		return s
	}
	n := SampleCellBytes
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "…"
}
