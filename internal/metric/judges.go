package metric

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/sqljudge/sqljudge/internal/bench"
	"github.com/sqljudge/sqljudge/internal/judge"
	"github.com/sqljudge/sqljudge/internal/result"
	"github.com/sqljudge/sqljudge/internal/status"
)

func init() {
	Register("xscore", "LLM judge: Snowflake's Execution Score, 0-3 from question + schema + predicted SQL (no gold, no data)", func(o Options) (Metric, error) {
		j, err := newJudge("xscore", o.Judge)
		if err != nil {
			return nil, err
		}
		return &XScore{judged: judged{j: j}}, nil
	})
	Register("rose", "LLM judge: ROSE prover/refuter cascade (CedricPei/ROSE main.py), with ambiguity and gold-fault labels", func(o Options) (Metric, error) {
		j, err := newJudge("rose", o.Judge)
		if err != nil {
			return nil, err
		}
		return &ROSE{judged: judged{j: j}}, nil
	})
	Register("flex", "LLM judge: FLEX after ex, strict prompt when ex passes, loose when it fails (HeegyuKim/FLEX)", func(o Options) (Metric, error) {
		j, err := newJudge("flex", o.Judge)
		if err != nil {
			return nil, err
		}
		return &FLEX{judged: judged{j: j}, ex: NewEX(o.EX)}, nil
	})
	// The judges' settings (package judge's), checked only in runs of a
	// judge, and recorded in every run's fingerprint.
	judges := []string{"xscore", "rose", "flex"}
	for _, s := range []Setting{{
		Flag: "samples", Default: judge.DefaultSamples, Fingerprint: "samples",
		Help:  "judgements per item; the verdict is their majority (ties count as incorrect)",
		Field: func(o *Options) any { return &o.Judge.Samples },
		Check: func(o *Options) error {
			if o.Judge.Samples < 1 {
				return errors.New("--samples must be at least 1")
			}
			return nil
		},
	}, {
		// generate's steps read it too (its --llm-parse-retries).
		Flag: "llm-parse-retries", Default: judge.DefaultParseRetries, Fingerprint: "llm_parse_retries",
		Help:         "new requests after a reply with no usable JSON, before judge_unparseable",
		GenerateHelp: "new requests after an unparseable reply (default for CHESS steps: 11, the official 12 attempts; judges: 2)",
		Field:        func(o *Options) any { return &o.Judge.ParseRetries },
		Check: func(o *Options) error {
			if o.Judge.ParseRetries < 0 {
				return errors.New("--llm-parse-retries must not be negative")
			}
			return nil
		},
	}, {
		Flag: "xscore-min", Default: judge.DefaultXScoreMin, Fingerprint: "xscore_min",
		Help:  "least Execution Score (0-3) counted correct",
		Field: func(o *Options) any { return &o.Judge.XScoreMin },
		Check: func(o *Options) error {
			if o.Judge.XScoreMin < 0 || o.Judge.XScoreMin > 3 {
				return errors.New("--xscore-min must be 0 to 3")
			}
			return nil
		},
	}} {
		s.Metrics, s.Record, s.CheckWhen = judges, Always, WhenUsed
		RegisterSetting(s)
	}
}

// Regrade reports whether --resume grades a kept verdict again: an
// internal_error (the metric panicked) is graded again, and a judge_error
// (the model could not be reached) is asked again; an unparseable reply
// is not (the same request would be served from the cache with the same
// reply).
func Regrade(v Verdict) bool {
	return v.Status == status.InternalError || v.Status == status.JudgeError
}

// newJudge returns a copy of the judge o of LLM metric name, or says what
// is missing or impossible in it.
func newJudge(name string, o judge.Judge) (*judge.Judge, error) {
	if o.Client == nil {
		return nil, fmt.Errorf("%s is an LLM judge: give --llm-base-url and --llm-model (or set OPENAI_BASE_URL and SQLJUDGE_MODEL)", name)
	}
	switch {
	case o.Samples < 1:
		return nil, fmt.Errorf("%s: %d samples per item: at least 1 is needed", name, o.Samples)
	case o.ParseRetries < 0:
		return nil, fmt.Errorf("%s: %d parse retries: 0 or more are needed", name, o.ParseRetries)
	case o.XScoreMin < 0 || o.XScoreMin > 3:
		return nil, fmt.Errorf("%s: least correct Execution Score %d: it is 0 to 3", name, o.XScoreMin)
	}
	return &o, nil
}

// judged is what the LLM metrics share: the judge and the schema text of
// each database, read once per run.
type judged struct {
	j       *judge.Judge
	schemas onceMap[string, string]        // db -> judge.SchemaDDL
	infos   onceMap[string, *judge.DBInfo] // db -> judge.LoadDBInfo
}

// Lengthy returns true: an item waits for the judge's model (metric.Lengthy).
func (m *judged) Lengthy() bool { return true }

// dbInfo returns ROSE's database information of db, read once per run.
func (m *judged) dbInfo(ctx context.Context, x *Exec, db string) (*judge.DBInfo, error) {
	return m.infos.get(db, func() (*judge.DBInfo, error) { return judge.LoadDBInfo(ctx, x.Env().Engine, db) })
}

// needQuestion is the error of an item without question text.
const needQuestion = "needs the question: use a gold file with questions (Spider dev.json, BIRD dev.json, JSONL, ROSE-VEC); Spider's dev_gold.sql has none"

// CheckItem fails when the item has no question: every LLM judge shows it
// to the model (ItemChecker).
func (m *judged) CheckItem(it *bench.Item) error {
	if strings.TrimSpace(it.Question) == "" {
		return errors.New(needQuestion)
	}
	return nil
}

func (m *judged) schema(ctx context.Context, x *Exec, db string) (string, error) {
	return m.schemas.get(db, func() (string, error) { return judge.SchemaDDL(ctx, x.Env().Engine, db) })
}

// verdict turns a judge's outcome into a verdict.
func verdict(o judge.Outcome) Verdict {
	v := Verdict{Correct: o.Correct, Status: o.Status, Detail: o.Detail}
	if o.Details != nil {
		v.Details = *o.Details
	}
	return v
}

// noCall is the verdict of an item decided without asking the model.
// ex is FLEX's starting EX verdict, nil for the other judges.
func noCall(v Verdict, ex *bool) Verdict {
	v.Details = judge.Details{Calls: 0, Ex: ex}
	return v
}

// XScore is the metric "xscore": judge.XScore on the item's question,
// evidence, database schema (judge.SchemaDDL) and predicted SQL. No query
// runs. An item without question text is judge_error (eval refuses such a
// gold file up front: CheckItem).
type XScore struct{ judged }

// Name returns "xscore".
func (m *XScore) Name() string { return "xscore" }

// Grade asks the model for the Execution Score of the prediction.
func (m *XScore) Grade(ctx context.Context, x *Exec, it *bench.Item) Verdict {
	if m.CheckItem(it) != nil {
		return noCall(Verdict{Status: status.JudgeError, Detail: "xscore " + needQuestion}, nil)
	}
	ddl, err := m.schema(ctx, x, it.DBID)
	if err != nil {
		return noCall(Verdict{Status: status.JudgeError, Detail: err.Error()}, nil)
	}
	return verdict(m.j.XScore(ctx, judge.Input{Question: it.Question, Evidence: it.Evidence, Schema: ddl, Pred: it.Pred}))
}

// ROSE is the metric "rose": both queries run unchanged (the first gold
// alternative when there are several), then judge.ROSE with the
// database's information as ROSE shows it (judge.LoadDBInfo, read once per
// database). A failing
// prediction is wrong without a call (pred_error, timeout, too_large), as
// in ROSE's main.py; a failing gold is gold_error (ROSE skips the item).
type ROSE struct{ judged }

// Name returns "rose".
func (m *ROSE) Name() string { return "rose" }

// Grade runs both queries and the cascade.
func (m *ROSE) Grade(ctx context.Context, x *Exec, it *bench.Item) Verdict {
	if m.CheckItem(it) != nil {
		return noCall(Verdict{Status: status.JudgeError, Detail: "rose " + needQuestion}, nil)
	}
	gold := it.Gold[0]
	gs, gerr := x.Gold(ctx, it.DBID, gold)
	var ps *result.Set
	var perr error
	if gerr == nil {
		ps, perr = x.Pred(ctx, it.DBID, it.Pred)
	}
	if v, bad := failed(gerr, perr); bad {
		return noCall(v, nil)
	}
	info, err := m.dbInfo(ctx, x, it.DBID)
	if err != nil {
		return noCall(Verdict{Status: status.JudgeError, Detail: err.Error()}, nil)
	}
	return verdict(m.j.ROSE(ctx, judge.Input{
		Question: it.Question, Evidence: it.Evidence, DBInfo: info,
		Pred: it.Pred, Gold: gold, PredResult: ps, GoldResult: gs,
	}))
}

// FLEX is the metric "flex": ex first (metric EX, with the run's
// KeepDistinct), then judge.FLEX with its verdict. Where ex is not ok
// (a query failed) its verdict stands without a call. The results shown to
// the model are those of the queries as written (ex's DISTINCT removal and
// value substitution are for comparison only).
type FLEX struct {
	judged
	ex *EX
}

// Name returns "flex".
func (m *FLEX) Name() string { return "flex" }

// Grade runs ex, then asks the model to confirm or overturn it.
func (m *FLEX) Grade(ctx context.Context, x *Exec, it *bench.Item) Verdict {
	if m.CheckItem(it) != nil {
		return noCall(Verdict{Status: status.JudgeError, Detail: "flex " + needQuestion}, nil)
	}
	ev := m.ex.Grade(ctx, x, it)
	if ev.Status != status.OK {
		return noCall(Verdict{Status: ev.Status, Detail: ev.Detail}, &ev.Correct)
	}
	gold := it.Gold[0]
	gs, gerr := x.Gold(ctx, it.DBID, gold)
	ps, perr := x.Pred(ctx, it.DBID, it.Pred)
	if v, bad := failed(gerr, perr); bad {
		// The raw query failed where ex's processed one ran.
		return noCall(v, &ev.Correct)
	}
	ddl, err := m.schema(ctx, x, it.DBID)
	if err != nil {
		return noCall(Verdict{Status: status.JudgeError, Detail: err.Error()}, &ev.Correct)
	}
	return verdict(m.j.FLEX(ctx, judge.Input{
		Question: it.Question, Evidence: it.Evidence, Schema: ddl,
		Pred: it.Pred, Gold: gold, PredResult: ps, GoldResult: gs,
	}, ev.Correct))
}
