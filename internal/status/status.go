// Package status is sqljudge's one verdict vocabulary: every status a
// metric's verdict can carry (query outcomes, em's parser failures, the
// LLM judges' failures, sqljudge's own failures), the order in which
// reports list them, and whether each one is a verdict on the prediction
// or a failure of the tool. No other file spells a status.
package status

import (
	"maps"
	"slices"
)

// Status is the outcome class of one verdict, written as the "status" of
// a record in results.jsonl and counted by status in summary.json.
type Status string

// Every status. The query statuses follow the official evaluators' split
// of a failed item (Spider's evaluation.py, BIRD's evaluation.py: an
// exception counts the item wrong); the others are sqljudge's.
const (
	// OK: every query of the item ran (or, for a judge, at least one
	// sample was judged); Correct says the verdict.
	OK Status = "ok"
	// PredError: the predicted query failed in the database (syntax
	// error, unknown column, a statement that is not allowed).
	PredError Status = "pred_error"
	// GoldError: the gold query failed, or the item cannot be graded
	// (no schema, a defective test suite); it says nothing about the
	// prediction.
	GoldError Status = "gold_error"
	// Timeout: a query (or the result comparison) ran past its time limit.
	Timeout Status = "timeout"
	// TooLarge: a result passed the row or byte cap, or the database ran
	// out of the memory it is allowed.
	TooLarge Status = "too_large"
	// InternalError is a tool failure, not a verdict on the prediction:
	// the metric panicked (a bug of sqljudge); the detail holds the panic
	// and its stack, and --resume grades the item again.
	InternalError Status = "internal_error"
	// JudgeError is a tool failure: the judge's model could not be
	// reached (after the client's retries), or the item could not be
	// prepared for it (schema unreadable, no question).
	JudgeError Status = "judge_error"
	// JudgeUnparseable is a tool failure: no sample of the judge produced
	// a usable reply, even after the parse retries.
	JudgeUnparseable Status = "judge_unparseable"
	// PredUnparsed: em only; neither sqljudge's parser nor the official
	// Spider one reads the prediction (the official script scores it
	// against an empty SQL and counts it wrong).
	PredUnparsed Status = "pred_unparsed"
	// PredUnparsedOfficial: em only; the official Spider parser
	// (process_sql.py) cannot read the prediction but sqljudge's can: the
	// verdict follows the official script (wrong), the partial scores are
	// sqljudge's.
	PredUnparsedOfficial Status = "pred_unparsed_official"
)

// info is what the vocabulary knows of one status.
type info struct {
	// rank orders reports; it keeps the console table's columns as they
	// were (the five query statuses, then the others by name).
	rank int
	// toolFailure marks a failure of sqljudge or of its judge model
	// rather than a verdict on the prediction.
	toolFailure bool
	// always: the console table shows the status's column even when no
	// verdict has it.
	always bool
	// predFailure: the prediction could not be read or run.
	predFailure bool
}

var known = map[Status]info{
	OK:                   {rank: 0, always: true},
	PredError:            {rank: 1, always: true, predFailure: true},
	GoldError:            {rank: 2, always: true},
	Timeout:              {rank: 3, always: true},
	TooLarge:             {rank: 4, always: true},
	InternalError:        {rank: 5, toolFailure: true},
	JudgeError:           {rank: 6, toolFailure: true},
	JudgeUnparseable:     {rank: 7, toolFailure: true},
	PredUnparsed:         {rank: 8, predFailure: true},
	PredUnparsedOfficial: {rank: 9, predFailure: true},
}

// All returns every status in report order.
func All() []Status {
	return slices.SortedFunc(maps.Keys(known), Compare)
}

// Known reports whether s is one of the statuses above (a results file
// written by another version may hold others).
func (s Status) Known() bool {
	_, ok := known[s]
	return ok
}

// ToolFailure reports whether s is a failure of the tool (internal_error,
// judge_error, judge_unparseable) rather than a verdict on the prediction:
// such an item is graded again by --resume (internal_error) or left out of
// a judge's accuracy (the judge statuses). An unknown status is a verdict.
func (s Status) ToolFailure() bool { return known[s].toolFailure }

// Always reports whether the console table shows a column for s even
// when no verdict has it (the five query statuses: ok, pred_error,
// gold_error, timeout, too_large).
func (s Status) Always() bool { return known[s].always }

// PredFailure reports whether s says the prediction could not be read or
// run (pred_error, pred_unparsed, pred_unparsed_official).
func (s Status) PredFailure() bool { return known[s].predFailure }

// Unjudged reports whether a judge could not give a verdict on the item
// (judge_error or judge_unparseable): the item is left out of the judge's
// accuracy and counted apart.
func (s Status) Unjudged() bool { return s == JudgeError || s == JudgeUnparseable }

// Compare orders two statuses for reports: known statuses in the order of
// All, then unknown ones by name. It returns a negative number, zero or a
// positive number as a sorts before, with or after b.
func Compare(a, b Status) int {
	ia, oka := known[a]
	ib, okb := known[b]
	switch {
	case oka && okb:
		return ia.rank - ib.rank
	case oka:
		return -1
	case okb:
		return 1
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// Sort returns the keys of a status count (summary.json's "status") in
// report order (see Compare).
func Sort[K ~string, V any](counts map[K]V) []K {
	return slices.SortedFunc(maps.Keys(counts), func(a, b K) int { return Compare(Status(a), Status(b)) })
}
