package metric

import (
	"context"
	"errors"
	"fmt"

	"github.com/sqljudge/sqljudge/internal/bench"
	"github.com/sqljudge/sqljudge/internal/engine"
	"github.com/sqljudge/sqljudge/internal/schema"
	"github.com/sqljudge/sqljudge/internal/sqlast/spider"
)

// Statuses of em verdicts besides ok and gold_error.
const (
	// StatusPredUnparsedOfficial: the official Spider parser
	// (process_sql.get_sql) rejects the prediction, so the official
	// evaluator scores it as the empty query (em default mode).
	StatusPredUnparsedOfficial engine.Status = "pred_unparsed_official"
	// StatusPredUnparsed: neither sqljudge's parser nor the official one
	// reads the prediction (em-fixed mode); it is scored as the empty
	// query.
	StatusPredUnparsed engine.Status = "pred_unparsed"
)

func init() {
	Register("em", "exact set match, Spider official (evaluation.eval_exact_match; --em-fixed grades what sqljudge's parser reads)", func(o Options) (Metric, error) {
		return NewEM(o.Schemas, o.EMFixed)
	})
}

// EM is Spider's exact set match (Yu et al., EMNLP 2018; taoyds/spider
// and taoyds/test-suite-sql-eval evaluation.py: evaluate with --etype
// match, Evaluator.eval_exact_match), with the official defaults: values
// ignored (rebuild_sql_val), DISTINCT disabled (rebuild_sql_col),
// foreign-key columns canonicalised (build_foreign_key_map_from_json).
// It runs no query.
//
// By default the verdict is the official one: both queries are read by
// spider.ParseOfficial, a reimplementation of process_sql.get_sql over
// nltk's word tokenizer, and a prediction it rejects scores 0 with status
// pred_unparsed_official (the official evaluator compares it as an empty
// query). With Fixed (--em-fixed), both are read by spider.ParseFixed:
// sqljudge's SQLite parser mapped onto the same structure, so a
// prediction the official tokenizer cannot read (quotes inside strings,
// aliases without AS, comma joins, ...) is graded; where both parsers read
// a query they build the same structure, so the two modes differ only on
// predictions the official parser rejects. A prediction neither reads is
// status pred_unparsed.
//
// Every verdict of a gold the parser reads carries Fields "hardness"
// (easy, medium, hard, extra: Evaluator.eval_hardness of the gold) and
// "partial": for each component of eval_partial_match ("select", "select(no
// AGG)", "where", "where(no OP)", "group(no Having)", "group", "order",
// "and/or", "IUEN", "keywords") an object {"acc", "rec", "f1",
// "label_total", "pred_total"} as the official partial_scores holds it
// (spider.Table aggregates them as the official table does). A gold the
// parser cannot read, or a database without a schema, is status
// gold_error. With several gold queries the item is correct if one
// matches; hardness and partial scores are the first gold's.
type EM struct {
	// Fixed grades with sqljudge's parser (--em-fixed).
	Fixed   bool
	schemas map[string]*spider.Schema
}

// NewEM builds the em metric over the schemas of tables.json; it fails
// without them.
func NewEM(ss schema.Schemas, fixed bool) (*EM, error) {
	if len(ss) == 0 {
		return nil, errors.New("em needs the database schemas: give the benchmark's tables.json")
	}
	s, err := spider.Schemas(ss)
	if err != nil {
		return nil, fmt.Errorf("em: %w", err)
	}
	return &EM{Fixed: fixed, schemas: s}, nil
}

// Name returns "em".
func (m *EM) Name() string { return "em" }

// Grade compares the item's prediction with its gold queries.
func (m *EM) Grade(ctx context.Context, x *Exec, it *bench.Item) Verdict {
	s := m.schemas[it.DBID]
	if s == nil {
		return Verdict{Status: engine.StatusGoldError, Detail: fmt.Sprintf("no schema for database %q in tables.json", it.DBID)}
	}
	var first Verdict
	for i, gold := range it.Gold {
		g, err := m.grade(s, gold, it.Pred)
		if err != nil {
			v := Verdict{Status: engine.StatusGoldError, Detail: err.Error()}
			if i == 0 {
				first = v
			}
			continue
		}
		v := Verdict{Correct: g.Exact, Status: engine.StatusOK, Fields: map[string]any{
			"hardness": g.Hardness,
			"partial":  partialFields(g.Partial),
		}}
		if !g.PredParsed {
			v.Status = StatusPredUnparsedOfficial
			if m.Fixed {
				v.Status = StatusPredUnparsed
			}
			v.Detail = g.PredErr.Error()
		}
		if v.Correct {
			return v
		}
		if i == 0 {
			first = v
		}
	}
	return first
}

func (m *EM) grade(s *spider.Schema, gold, pred string) (spider.Grade, error) {
	if !m.Fixed {
		return spider.GradeOfficial(s, gold, pred)
	}
	g, err := spider.ParseFixed(s, gold)
	if err != nil {
		return spider.Grade{}, fmt.Errorf("gold: %w", err)
	}
	p, perr := spider.ParseFixed(s, spider.PrepareOfficial(pred))
	return spider.GradeParsed(s, g, p, perr)
}

// partialFields renders partial scores as the official partial_scores.
func partialFields(p spider.Partial) map[string]any {
	out := make(map[string]any, len(p))
	for c, s := range p {
		out[spider.Component(c).String()] = map[string]int{
			"acc": s.Match, "rec": s.Match, "f1": s.Match,
			"label_total": s.LabelTotal, "pred_total": s.PredTotal,
		}
	}
	return out
}
