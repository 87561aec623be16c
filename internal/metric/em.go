package metric

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"

	"github.com/sqljudge/sqljudge/internal/bench"
	"github.com/sqljudge/sqljudge/internal/schema"
	"github.com/sqljudge/sqljudge/internal/sqlast/spider"
	"github.com/sqljudge/sqljudge/internal/status"
)

func init() {
	Register("em", "exact set match, Spider official (evaluation.eval_exact_match; --em-fixed grades what sqljudge's parser reads)", func(o Options) (Metric, error) {
		return NewEM(o.EM)
	})
	RegisterSetting(Setting{
		Flag: "em-fixed", Metrics: []string{"em"}, Default: false,
		Help:        "em: grade the predictions the official Spider parser rejects with sqljudge's parser instead of scoring them 0",
		Field:       func(o *Options) any { return &o.EM.Fixed },
		Fingerprint: "em_fixed", Record: Always, RunInfo: "em_fixed",
		RequiresMetric: true,
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
// Every verdict of a gold the parser reads carries EMDetails: "hardness"
// (easy, medium, hard, extra: Evaluator.eval_hardness of the gold) and
// "partial": for each component of eval_partial_match ("select", "select(no
// AGG)", "where", "where(no OP)", "group(no Having)", "group", "order",
// "and/or", "IUEN", "keywords") an object {"acc", "rec", "f1",
// "label_total", "pred_total"} as the official partial_scores holds it
// (spider.Table aggregates them as the official table does). A gold the
// parser cannot read, or a database without a schema, is status
// gold_error. With several gold queries the item is correct if one
// matches; hardness and partial scores are those of the gold that
// matched, else of the first gold.
type EM struct {
	// Fixed grades with sqljudge's parser (--em-fixed).
	Fixed   bool
	schemas map[string]*spider.Schema
}

// EMOptions are em's options.
type EMOptions struct {
	// Schemas are the database schemas of the benchmark's tables.json;
	// em cannot run without them.
	Schemas schema.Schemas
	// Fixed grades with sqljudge's parser (eval's --em-fixed); see EM.
	Fixed bool
}

// NewEM builds the em metric over o.Schemas, the schemas of tables.json;
// it fails without them, or when a schema cannot be read into Spider's
// structure (spider.Schemas).
func NewEM(o EMOptions) (*EM, error) {
	ss := o.Schemas
	if len(ss) == 0 {
		return nil, errors.New("em needs the database schemas: give the benchmark's tables.json")
	}
	s, err := spider.Schemas(ss)
	if err != nil {
		return nil, fmt.Errorf("em: %w", err)
	}
	return &EM{Fixed: o.Fixed, schemas: s}, nil
}

// Name returns "em".
func (m *EM) Name() string { return "em" }

// Grade compares the item's prediction with its gold queries.
func (m *EM) Grade(ctx context.Context, x *Exec, it *bench.Item) Verdict {
	s := m.schemas[it.DBID]
	if s == nil {
		return Verdict{Status: status.GoldError, Detail: fmt.Sprintf("no schema for database %q in tables.json", it.DBID)}
	}
	var first Verdict
	for i, gold := range it.Gold {
		g, err := m.grade(s, gold, it.Pred)
		if err != nil {
			v := Verdict{Status: status.GoldError, Detail: err.Error()}
			if i == 0 {
				first = v
			}
			continue
		}
		v := Verdict{Correct: g.Exact, Status: status.OK, Details: EMDetails{
			Hardness: g.Hardness,
			Partial:  partialDetails(g.Partial),
		}}
		if !g.PredParsed {
			v.Status = status.PredUnparsedOfficial
			if m.Fixed {
				v.Status = status.PredUnparsed
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

// partialDetails renders partial scores as the official partial_scores.
func partialDetails(p spider.Partial) map[string]EMComponent {
	out := make(map[string]EMComponent, len(p))
	for c, s := range p {
		out[spider.Component(c).String()] = EMComponent{
			Acc: s.Match, Rec: s.Match, F1: s.Match,
			LabelTotal: s.LabelTotal, PredTotal: s.PredTotal,
		}
	}
	return out
}

// EMPartial reads back what an em verdict records for the official
// partial-matching table (the inverse of the EMDetails Grade writes, as
// they come out of results.jsonl through DecodeVerdict): the gold's
// hardness and the ten component scores. ok is false when the verdict
// has no partial scores (its gold could not be read: status gold_error);
// an error says what is malformed (a record not written by em).
func EMPartial(v Verdict) (hardness string, p spider.Partial, ok bool, err error) {
	var d EMDetails
	switch t := v.Details.(type) {
	case nil:
		return "", p, false, nil
	case EMDetails:
		d = t
	case RawFields:
		// A verdict read without its metric name: read it as em's.
		b, err := json.Marshal(t)
		if err != nil {
			return "", p, false, fmt.Errorf("em verdict: %w", err)
		}
		if err := json.Unmarshal(b, &d); err != nil {
			return "", p, false, fmt.Errorf("em verdict: details do not fit em's object: %w", err)
		}
		if _, has := t["partial"]; has && d.Partial == nil {
			return "", p, false, errors.New("em verdict: partial is null, not an object")
		}
	default:
		return "", p, false, fmt.Errorf("em verdict: details are %T, not em's", v.Details)
	}
	if d.Partial == nil {
		return "", p, false, nil
	}
	if !slices.Contains(spider.Levels, d.Hardness) {
		return "", p, false, fmt.Errorf("em verdict: hardness %q is not one of %v", d.Hardness, spider.Levels)
	}
	for c := spider.Component(0); c < spider.NumComponents; c++ {
		s, has := d.Partial[c.String()]
		if !has {
			return "", p, false, fmt.Errorf("em verdict: partial lacks the object %q", c)
		}
		for k, n := range [3]int{s.Acc, s.LabelTotal, s.PredTotal} {
			if n < 0 {
				return "", p, false, fmt.Errorf("em verdict: partial %q: %s is %d, not a count", c, [3]string{"acc", "label_total", "pred_total"}[k], n)
			}
		}
		if s.Acc > 1 {
			return "", p, false, fmt.Errorf("em verdict: partial %q: acc is %d, not 0 or 1", c, s.Acc)
		}
		p[c] = spider.Score{Match: s.Acc, LabelTotal: s.LabelTotal, PredTotal: s.PredTotal}
	}
	return d.Hardness, p, true, nil
}

// SpiderHardness labels items with the Spider hardness (easy, medium,
// hard, extra) of their first gold query on their database's schema from
// tables.json, as the official evaluator labels the rows of its table
// (process_sql.get_sql, then Evaluator.eval_hardness; see
// spider.Schema.Hardness). labels[i] is items[i]'s level, "" where it has
// none; errs[i] says why (the official parser cannot read the gold, its
// db_id is not in ss, the schema is unusable), nil where labelled. Each
// database's schema is built once.
func SpiderHardness(ss schema.Schemas, items []bench.Item) (labels []string, errs []error) {
	labels, errs = make([]string, len(items)), make([]error, len(items))
	type built struct {
		s   *spider.Schema
		err error
	}
	cache := map[string]built{}
	// Spider dev asks most questions twice with the same gold query: each
	// (database, gold) pair is labelled once.
	type label struct {
		l   string
		err error
	}
	done := map[[2]string]label{}
	for i := range items {
		it := &items[i]
		b, seen := cache[it.DBID]
		if !seen {
			if db, ok := ss[it.DBID]; ok {
				b.s, b.err = spider.NewSchema(db)
			} else {
				b.err = fmt.Errorf("no schema for database %q in tables.json", it.DBID)
			}
			cache[it.DBID] = b
		}
		switch {
		case b.err != nil:
			errs[i] = b.err
		case len(it.Gold) == 0:
			errs[i] = errors.New("no gold query")
		default:
			k := [2]string{it.DBID, it.Gold[0]}
			lb, ok := done[k]
			if !ok {
				lb.l, lb.err = b.s.Hardness(it.Gold[0])
				done[k] = lb
			}
			labels[i], errs[i] = lb.l, lb.err
		}
	}
	return labels, errs
}
