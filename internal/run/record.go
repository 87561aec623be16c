package run

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/sqljudge/sqljudge/internal/bench"
	"github.com/sqljudge/sqljudge/internal/metric"
	"github.com/sqljudge/sqljudge/internal/outdir"
	"github.com/sqljudge/sqljudge/internal/result"
	"github.com/sqljudge/sqljudge/internal/status"
)

// ResultsFile is the name of the per-item record file in an output folder.
const ResultsFile = "results.jsonl"

// Record is one line of OUT/results.jsonl: the contract between a run and
// everything that reads it (reports, `sqljudge agree`, the HTML page,
// users' own scripts). Fields are only ever added.
//
//	{"index": 0, "id": "0", "db_id": "concert_singer", "difficulty": "easy",
//	 "question": "...", "gold": "SELECT ...", "pred": "SELECT ...",
//	 "verdicts": {"ex": {"correct": true, "status": "ok"}}}
//
// Index is the 0-based position of the item in the gold file. Gold is the
// gold field as written (all alternatives of a SQL-Eval question, joined by
// ';'); GoldAlternatives lists them when there are several. Verdicts maps a
// metric name to its verdict (see metric.Verdict); status is one of ok,
// pred_error, gold_error, timeout, too_large, internal_error (a metric
// panicked; graded again by --resume), or a metric's own status.
type Record struct {
	Index            int                       `json:"index"`
	ID               string                    `json:"id"`
	DBID             string                    `json:"db_id"`
	Difficulty       string                    `json:"difficulty"`
	Question         string                    `json:"question,omitempty"`
	Evidence         string                    `json:"evidence,omitempty"`
	Category         string                    `json:"category,omitempty"`
	Gold             string                    `json:"gold"`
	GoldAlternatives []string                  `json:"gold_alternatives,omitempty"`
	Pred             string                    `json:"pred"`
	Verdicts         map[string]metric.Verdict `json:"verdicts"`
	// GoldHazards are what eval --audit found that makes the item's gold
	// unfit to grade against (package audit), absent without --audit or
	// when nothing was found. They never change a verdict.
	GoldHazards []GoldHazard   `json:"gold_hazards,omitempty"`
	Sample      *result.Sample `json:"sample,omitempty"`
}

// GoldHazard is one finding of the gold audit on a record: its kind (an
// audit.Kind such as "limit_ties") and a one-sentence evidence.
type GoldHazard struct {
	Kind   string `json:"kind"`
	Detail string `json:"detail"`
}

// WrongResult reports whether some verdict of r found a wrong result: its
// status is ok, it is not correct, and the prediction is not empty.
func (r *Record) WrongResult() bool {
	if strings.TrimSpace(r.Pred) == "" {
		return false
	}
	for _, v := range r.Verdicts {
		if !v.Correct && v.Status == status.OK {
			return true
		}
	}
	return false
}

// UnmarshalJSON reads a record, each verdict's details into its metric's
// own type (metric.DecodeVerdict); an error names the metric whose verdict
// does not fit.
func (r *Record) UnmarshalJSON(data []byte) error {
	type plain Record
	var aux struct {
		plain
		Verdicts map[string]json.RawMessage `json:"verdicts"`
	}
	if err := json.Unmarshal(data, &aux); err != nil {
		return err
	}
	*r = Record(aux.plain)
	r.Verdicts = nil
	if aux.Verdicts != nil {
		r.Verdicts = make(map[string]metric.Verdict, len(aux.Verdicts))
	}
	for name, raw := range aux.Verdicts {
		v, err := metric.DecodeVerdict(name, raw)
		if err != nil {
			return fmt.Errorf("verdict %q: %w", name, err)
		}
		r.Verdicts[name] = v
	}
	return nil
}

// NewRecord returns the record of an item without verdicts.
func NewRecord(it *bench.Item, difficulty string) Record {
	r := Record{
		Index: it.Index, ID: it.ID, DBID: it.DBID, Difficulty: difficulty,
		Question: it.Question, Evidence: it.Evidence, Category: it.Category,
		Gold: it.GoldText, Pred: it.Pred, Verdicts: map[string]metric.Verdict{},
	}
	if r.Gold == "" && len(it.Gold) > 0 {
		r.Gold = it.Gold[0]
	}
	if len(it.Gold) > 1 {
		r.GoldAlternatives = it.Gold
	}
	return r
}

// ReadRecords reads a results.jsonl file. Records are returned in file
// order; a later record for the same index supersedes an earlier one (see
// Latest). A final line without its newline (a write cut short by a crash)
// is ignored; validBytes is the length of the file up to the last complete
// line. Any other malformed line is an error naming the file and line.
func ReadRecords(path string) (recs []Record, validBytes int64, err error) {
	valid, err := outdir.ReadJournal(path, recordReader(path, &recs))
	if err != nil {
		return nil, 0, err
	}
	return recs, valid, nil
}

// recordReader is the outdir.ReadJournal line function of results.jsonl:
// it appends each line's record to recs; a line that is not a record is an
// error naming path and line.
func recordReader(path string, recs *[]Record) func(ln int, line []byte) error {
	return func(ln int, line []byte) error {
		// Record.UnmarshalJSON directly: json.Unmarshal would scan the
		// line once more before handing it over.
		var r Record
		if err := r.UnmarshalJSON(line); err != nil {
			return fmt.Errorf("%s:%d: not a sqljudge record: %w", path, ln, err)
		}
		*recs = append(*recs, r)
		return nil
	}
}

// Latest returns, for each index, the last record read for it.
func Latest(recs []Record) map[int]Record {
	m := make(map[int]Record, len(recs))
	for _, r := range recs {
		m[r.Index] = r
	}
	return m
}

// LatestInOrder returns one record per index, the last read for it (as in
// Latest), in index order.
func LatestInOrder(recs []Record) []Record {
	m := Latest(recs)
	out := make([]Record, 0, len(m))
	for _, i := range slices.Sorted(maps.Keys(m)) {
		out = append(out, m[i])
	}
	return out
}
