package generate

import (
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"os"
	"slices"

	"github.com/sqljudge/sqljudge/internal/outdir"
)

// Step names: the fixed vocabulary of the ledger and of the
// X-Sqljudge-Step header, the official CHESS tool names
// (src/workflow/agents/*/tool_kit, Tool.tool_name) and "direct".
const (
	StepExtractKeywords   = "extract_keywords"
	StepRetrieveEntity    = "retrieve_entity"
	StepRetrieveContext   = "retrieve_context"
	StepFilterColumn      = "filter_column"
	StepSelectTables      = "select_tables"
	StepSelectColumns     = "select_columns"
	StepGenerateCandidate = "generate_candidate"
	StepRevise            = "revise"
	StepGenerateUnitTest  = "generate_unit_test"
	StepEvaluate          = "evaluate"
	StepDirect            = "direct"
)

// Header names sent with every LLM request.
const (
	HeaderStep = "X-Sqljudge-Step"
	HeaderItem = "X-Sqljudge-Item"
)

// Call is one LLM call of a step, as the ledger records it.
type Call struct {
	// Template is "name@hash" of the prompt template.
	Template string `json:"template"`
	// Model and Temperature are what the request sent; Sample is the draw
	// index among a step's samples of one prompt (it adds to the seed).
	Model       string  `json:"model"`
	Temperature float64 `json:"temperature"`
	Sample      int     `json:"sample"`
	// Attempt counts new requests after an unparseable reply.
	Attempt int `json:"attempt,omitempty"`
	// PromptHash is the first 16 hex digits of the SHA-256 of the prompt;
	// Key is the reply's key in the LLM cache (llm.Store).
	PromptHash string `json:"prompt_hash"`
	Key        string `json:"key"`
	// PromptTokens and CompletionTokens are the usage the server reported
	// for the reply (also when it now came from the cache, Cached, and cost
	// nothing in this run).
	PromptTokens     int64 `json:"prompt_tokens"`
	CompletionTokens int64 `json:"completion_tokens"`
	// LatencyMS is the wall time of the call in milliseconds.
	LatencyMS float64 `json:"latency_ms"`
	Cached    bool    `json:"cached,omitempty"`
	// ParseError says why the reply could not be read ("" when it could).
	ParseError string `json:"parse_error,omitempty"`
	// OfficialFail marks an unreadable reply on which the official code
	// fails the step outright instead of asking again (an eval error of
	// the keywords, a JSON reply that is not an object): the next attempt
	// is sqljudge's recovery (see docs/generation.md).
	OfficialFail bool `json:"official_fail,omitempty"`
}

// Candidate is one candidate SQL with its execution.
type Candidate struct {
	// SQL is the candidate query; Template the generator template that
	// wrote it (generate_candidate) or "revise".
	SQL      string `json:"sql"`
	Template string `json:"template,omitempty"`
	// Status is "ok", "empty" (no rows: revised, as the official
	// EMPTY_RESULT) or "error" (SYNTACTICALLY_INCORRECT: the query failed,
	// timed out or returned too many rows).
	Status string `json:"status"`
	// Error is the engine's message when Status is "error".
	Error string `json:"error,omitempty"`
	// Rows is the number of result rows.
	Rows int `json:"rows"`
	// Revised is true when revise replaced the query.
	Revised bool `json:"revised,omitempty"`
}

// Step is one step of a question's run.
type Step struct {
	// Name is from the step vocabulary (the Step* constants).
	Name  string `json:"step"`
	Calls []Call `json:"calls,omitempty"`
	// Keywords: extract_keywords' list.
	Keywords []string `json:"keywords,omitempty"`
	// SimilarColumns and SimilarValues: retrieve_entity's column names
	// (table -> columns) and values (table -> column -> values).
	SimilarColumns map[string][]string            `json:"similar_columns,omitempty"`
	SimilarValues  map[string]map[string][]string `json:"similar_values,omitempty"`
	// Descriptions: retrieve_context's column descriptions.
	Descriptions map[string]map[string]Description `json:"descriptions,omitempty"`
	// Schema: the tentative schema after a schema-selector step.
	Schema map[string][]string `json:"schema,omitempty"`
	// Candidates: generate_candidate's candidates, or revise's candidates
	// after revision, each executed.
	Candidates []Candidate `json:"candidates,omitempty"`
	// Clusters: the candidates' indexes grouped by equal execution results.
	Clusters [][]int `json:"clusters,omitempty"`
	// UnitTests: generate_unit_test's tests (the official hard-coded test
	// last).
	UnitTests []string `json:"unit_tests,omitempty"`
	// Scores, Matrix, Winner, Reason: evaluate's passed-test counts per
	// candidate, the per-test verdicts (Matrix[test][candidate]; nil for a
	// test whose reply could not be read), the chosen candidate and why.
	// Candidate indexes (here and in Clusters of generate_unit_test and
	// evaluate) refer to the revise step's candidates.
	Scores []int   `json:"scores,omitempty"`
	Matrix [][]int `json:"matrix,omitempty"`
	Winner *int    `json:"winner,omitempty"`
	Reason string  `json:"reason,omitempty"`
	// Note says what a step did when it made no call.
	// Recovery, when set, says how sqljudge went on where the official
	// code fails the step (evaluate: unit tests whose replies were not
	// read, verdict counts that differ from the candidates'); the summary
	// counts these.
	Recovery string `json:"recovery,omitempty"`
	Note     string `json:"note,omitempty"`
	// Error is a step failure; like the official Tool.__call__, the
	// pipeline goes on with what earlier steps produced.
	Error string `json:"error,omitempty"`
}

// Record is one question of ledger.jsonl.
type Record struct {
	// Index is the 0-based position in the question file; ID the
	// question's id (the X-Sqljudge-Item header); DBID its database.
	Index    int    `json:"index"`
	ID       string `json:"id"`
	DBID     string `json:"db_id"`
	Question string `json:"question"`
	// Method is "chess" or "direct"; Config the CHESS configuration.
	Method string `json:"method"`
	Config string `json:"config,omitempty"`
	// Pred is the final SQL ("" when nothing could be generated).
	Pred  string `json:"pred"`
	Steps []Step `json:"steps"`
	// Calls, PromptTokens, CompletionTokens sum the steps' calls.
	Calls            int   `json:"calls"`
	PromptTokens     int64 `json:"prompt_tokens"`
	CompletionTokens int64 `json:"completion_tokens"`
	// WallMS is the question's wall time in milliseconds.
	WallMS float64 `json:"wall_ms"`
	// Error is set when the question failed as a whole (an unreachable
	// LLM); such a record is redone by --resume.
	Error string `json:"error,omitempty"`
}

func (r *Record) total() {
	r.Calls, r.PromptTokens, r.CompletionTokens = 0, 0, 0
	for _, s := range r.Steps {
		for _, c := range s.Calls {
			r.Calls++
			r.PromptTokens += c.PromptTokens
			r.CompletionTokens += c.CompletionTokens
		}
	}
}

// LedgerFile, PredictionsFile, BirdPredictionsFile and SummaryFile are the
// names of the outputs in OUT.
const (
	LedgerFile          = "ledger.jsonl"
	PredictionsFile     = "predictions.sql"
	BirdPredictionsFile = "predict_dev.json"
	SummaryFile         = "summary.json"
)

// ReadLedger reads OUT/ledger.jsonl, keeping the last record of each index.
// A torn last line (a crash mid-write) is ignored; any other bad line is an
// error naming file and line. A missing ledger is an empty one.
func ReadLedger(path string) (map[int]Record, error) {
	return readLedger(path, false)
}

// readLedger is ReadLedger; with resume it also cuts a torn last line from
// the file (outdir.ResumeJournal), so that new records follow whole ones.
func readLedger(path string, resume bool) (map[int]Record, error) {
	recs := map[int]Record{}
	line := func(ln int, line []byte) error {
		var r Record
		if err := json.Unmarshal(line, &r); err != nil {
			return fmt.Errorf("%s:%d: not a ledger record: %v", path, ln, err)
		}
		recs[r.Index] = r
		return nil
	}
	var err error
	if resume {
		err = outdir.ResumeJournal(path, line)
	} else {
		_, err = outdir.ReadJournal(path, line)
	}
	if errors.Is(err, os.ErrNotExist) {
		return map[int]Record{}, nil
	}
	return recs, err
}

// writeLedgerInOrder rewrites the ledger with one record per index in index
// order, atomically.
func writeLedgerInOrder(path string, recs map[int]Record) error {
	out := make([]Record, 0, len(recs))
	for _, i := range slices.Sorted(maps.Keys(recs)) {
		out = append(out, recs[i])
	}
	return outdir.WriteJSONL(path, out, outdir.JSON[Record])
}
