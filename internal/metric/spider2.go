package metric

import (
	"context"
	"fmt"
	"os"
	"regexp"
	"strings"

	"github.com/sqljudge/sqljudge/internal/bench"
	"github.com/sqljudge/sqljudge/internal/result"
	"github.com/sqljudge/sqljudge/internal/status"
)

func init() {
	Register("spider2", "Spider 2.0 column-vector comparator (evaluate.py compare_pandas_table), gold result CSVs (--format spider2)", func(o Options) (Metric, error) {
		return &Spider2{}, nil
	})
}

// Spider2 is Spider 2.0's execution check (xlang-ai/Spider2,
// spider2-lite/evaluation_suite/evaluate.py: evaluate_single_sql_instance,
// get_sqlite_result, compare_pandas_table, compare_multi_pandas_table). It
// grades items read with --format spider2, whose gold is one or several
// result CSVs: the SQL of a ```sql fenced block is taken from the
// prediction (extract_sql_query), the prediction runs on the item's
// database, its result is typed as the CSV round trip of the official
// script types it (result.FrameOfSet), and it is compared with each gold
// CSV (read as pd.read_csv reads it) by result.Spider2Compare or
// result.Spider2CompareMulti.
//
// The verdict carries ScoreDetails "score" (1 or 0, as the official "score"). A
// prediction that fails, times out, returns too many rows or holds text
// that is not UTF-8 (the official sqlite3 connection decodes strictly)
// scores 0 with that status; a gold CSV that cannot be read, or
// condition_cols that do not fit the gold, is gold_error (the official
// script's "Python Script Error", score 0).
type Spider2 struct {
	golds onceMap[string, *result.Frame] // path -> frame, read once per run (load_gold_csv is an lru_cache)
}

// Name returns "spider2".
func (m *Spider2) Name() string { return "spider2" }

var sqlFence = regexp.MustCompile("(?s)```sql\n(.*?)\n```")

// ExtractSQL is the official extract_sql_query: the text of the first
// ```sql fenced block, stripped, or the prediction unchanged.
func ExtractSQL(pred string) string {
	if m := sqlFence.FindStringSubmatch(pred); m != nil {
		return strings.TrimSpace(m[1])
	}
	return pred
}

func (m *Spider2) gold(path string) (*result.Frame, error) {
	return m.golds.get(path, func() (*result.Frame, error) {
		f, err := os.Open(path)
		if err != nil {
			return nil, err
		}
		defer f.Close()
		frame, err := result.ReadCSVFrame(f)
		if err != nil {
			return frame, fmt.Errorf("%s: %w", path, err)
		}
		return frame, nil
	})
}

// Grade runs the prediction and compares its result with the gold CSVs.
func (m *Spider2) Grade(ctx context.Context, x *Exec, it *bench.Item) Verdict {
	zero := ScoreDetails{}
	if len(it.GoldResults) == 0 {
		return Verdict{Status: status.GoldError, Detail: "no gold result CSV: spider2 grades items read with --format spider2", Details: zero}
	}
	ps, perr := strict(x.Pred(ctx, it.DBID, ExtractSQL(it.Pred)))
	if v, bad := failed(nil, perr); bad {
		v.Details = zero
		return v
	}
	golds := make([]*result.Frame, len(it.GoldResults))
	for i, p := range it.GoldResults {
		g, err := m.gold(p)
		if err != nil {
			return Verdict{Status: status.GoldError, Detail: "gold: " + err.Error(), Details: zero}
		}
		golds[i] = g
	}
	pf := result.FrameOfSet(ps)
	var ok bool
	var err error
	if it.GoldResultsMulti {
		ok, err = result.Spider2CompareMulti(pf, golds, it.ConditionCols, it.IgnoreOrder)
	} else {
		ok, err = result.Spider2Compare(pf, golds[0], it.ConditionCols, it.IgnoreOrder)
	}
	if err != nil {
		return Verdict{Status: status.GoldError, Detail: "gold: " + err.Error(), Details: zero}
	}
	if ok {
		return Verdict{Correct: true, Status: status.OK, Details: ScoreDetails{Score: 1}}
	}
	return Verdict{Status: status.OK, Details: zero}
}
