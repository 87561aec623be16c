package metric

import (
	"context"
	"errors"

	"github.com/sqljudge/sqljudge/internal/bench"
	"github.com/sqljudge/sqljudge/internal/result"
	"github.com/sqljudge/sqljudge/internal/status"
)

func init() {
	Register("ex_bird", "execution accuracy, BIRD semantics (evaluation.py: set(pred) == set(gold))", func(o Options) (Metric, error) {
		return &EXBird{}, nil
	})
}

// errUTF8 is the error Python's sqlite3 raises on text that is not UTF-8
// when no text_factory is set, as in BIRD's evaluator.
var errUTF8 = errors.New("could not decode to UTF-8 (BIRD's evaluator reads text strictly)")

// EXBird is BIRD's execution accuracy (AlibabaResearch/DAMO-ConvAI,
// bird/llm/src/evaluation.py, execute_sql): both queries run unchanged and
// the item is correct iff set(predicted rows) == set(gold rows)
// (result.BirdEqual). The official script counts any exception as wrong,
// including a text cell that is not valid UTF-8 (its sqlite3 connection
// decodes strictly); so does EXBird, as pred_error or gold_error. The
// official script pairs items by position; sqljudge pairs them by
// question_id.
type EXBird struct{}

// Name returns "ex_bird".
func (m *EXBird) Name() string { return "ex_bird" }

// Grade runs both queries and compares their row sets.
func (m *EXBird) Grade(ctx context.Context, x *Exec, it *bench.Item) Verdict {
	var last Verdict
	for _, gold := range it.Gold {
		gs, ps, v, bad := runStrict(ctx, x, it.DBID, gold, it.Pred)
		if bad {
			last = v
			continue
		}
		if result.BirdEqual(gs, ps) {
			return Verdict{Correct: true, Status: status.OK}
		}
		last = Verdict{Status: status.OK}
	}
	return last
}
