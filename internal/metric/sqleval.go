package metric

import (
	"context"
	"strings"

	"github.com/sqljudge/sqljudge/internal/bench"
	"github.com/sqljudge/sqljudge/internal/engine"
	"github.com/sqljudge/sqljudge/internal/result"
	"github.com/sqljudge/sqljudge/internal/sqllex"
	"github.com/sqljudge/sqljudge/internal/status"
)

func init() {
	Register("sqleval", "Defog SQL-Eval relaxed match: exact (compare_df) or correct (subset_df), gold alternatives and {a,b} columns; --sqleval-fixed grades what it means", func(o Options) (Metric, error) {
		return NewSQLEval(o.SQLEval), nil
	})
	RegisterSetting(Setting{
		Flag: "sqleval-fixed", Metrics: []string{"sqleval"}, Default: false,
		Help:        "sqleval: grade what SQL-Eval's comparison means (columns by name on every engine, no runner artefacts) instead of the official runners' verdict",
		Field:       func(o *Options) any { return &o.SQLEval.Fixed },
		Fingerprint: "sqleval_fixed", Record: Always, RequiresMetric: true,
		// The run block says which mode ran, when sqleval did.
		RunInfo: "sqleval_mode", RunInfoRecord: WhenUsed,
		RunInfoValue: func(o *Options) any {
			if o.SQLEval.Fixed {
				return "fixed"
			}
			return "official"
		},
	})
}

// SQLEvalOptions are sqleval's options.
type SQLEvalOptions struct {
	// Fixed grades what SQL-Eval's comparison means rather than what its
	// runners do (eval's --sqleval-fixed); see SQLEval.
	Fixed bool
}

// NewSQLEval returns sqleval with options o.
func NewSQLEval(o SQLEvalOptions) *SQLEval { return &SQLEval{Fixed: o.Fixed} }

// SQLEval is Defog SQL-Eval's grading (defog-ai/sql-eval, eval/eval.py,
// compare_query_results, as runners/api_runner.py calls it): the
// prediction runs first, then the gold queries in order. The first gold
// query whose result compare_df-matches the prediction's makes the item
// exact (and correct); a gold query whose result is a subset_df of the
// prediction's makes it correct. The verdict carries both:
// {"correct": ..., "exact": ...} (SQLEvalDetails).
//
// By default (Fixed false) the verdict is the official one on SQLite,
// PostgreSQL and MySQL/MariaDB, runner artefacts included:
//
//   - the gold queries are get_all_minimal_queries(query) of the whole gold
//     field (sqllex.OfficialMinimalQueries: split on every ';', only the
//     first {a,b} group expanded);
//   - an error of the prediction, or of any gold query tried before an
//     exact match, makes the item wrong (pred_error, gold_error), even when
//     an earlier alternative made it correct: compare_query_results raises
//     and the runner counts the item wrong;
//   - on MySQL/MariaDB the comparison is positional (query_mysql_db builds
//     its DataFrame without column names; result.SQLEvalContext.Positional);
//   - on PostgreSQL NUMERIC cells are floats (read_sql_query's
//     coerce_float), and a query is sent as psycopg2 interpolates it
//     (sqllex.PostgresOfficialText): a '%' outside LIKE ... ' makes it
//     fail;
//   - where pandas raises inside the comparison (duplicate column names;
//     fillna(-99999) on an interval column) the item is wrong with status
//     ok and the reason in detail.
//
// With Fixed (--sqleval-fixed) columns are matched by name on every engine,
// the gold alternatives are those of bench.Item.Gold (split outside string
// literals) with every {a,b} group expanded (sqllex.ExpandColumnChoices), a
// gold alternative that fails is skipped (gold_error only when none runs),
// and interval columns are compared instead of raising.
type SQLEval struct {
	// Fixed selects --sqleval-fixed.
	Fixed bool
}

// Name returns "sqleval".
func (m *SQLEval) Name() string { return "sqleval" }

// goldQueries lists the gold queries of it in the order they are tried.
func (m *SQLEval) goldQueries(it *bench.Item) []string {
	var qs []string
	if !m.Fixed && it.GoldText != "" {
		return sqllex.OfficialMinimalQueries(it.GoldText)
	}
	for _, alt := range it.Gold {
		if m.Fixed {
			qs = append(qs, sqllex.ExpandColumnChoices(alt)...)
		} else {
			qs = append(qs, sqllex.OfficialMinimalQueries(alt)...)
		}
	}
	return qs
}

// Grade runs the prediction and the gold queries and compares them.
func (m *SQLEval) Grade(ctx context.Context, x *Exec, it *bench.Item) Verdict {
	var dialect engine.Dialect
	if e := x.Env().Engine; e != nil {
		dialect = e.Dialect()
	}
	// The text the official runner sends: on PostgreSQL, through psycopg2's
	// parameter interpolation (sqllex.PostgresOfficialText).
	sent := func(q string) (string, error) {
		if m.Fixed || dialect != engine.Postgres {
			return q, nil
		}
		return sqllex.PostgresOfficialText(q)
	}
	pq, perr := sent(it.Pred)
	var ps *result.Set
	if perr == nil {
		ps, perr = x.Pred(ctx, it.DBID, pq)
	}
	if v, bad := failed(nil, perr); bad {
		v.Details = SQLEvalDetails{}
		return v
	}
	c := result.SQLEvalContext{Category: it.Category, Question: it.Question, GoldSQL: it.GoldText, PredSQL: it.Pred,
		CoerceDecimals: dialect == engine.Postgres, Positional: !m.Fixed && dialect == engine.MySQL, Fixed: m.Fixed}
	correct := false
	detail := ""
	ran := 0
	var firstErr Verdict
	for _, q := range m.goldQueries(it) {
		gq, gerr := sent(q)
		var gs *result.Set
		if gerr == nil {
			gs, gerr = x.Gold(ctx, it.DBID, gq)
		}
		if v, bad := failed(gerr, nil); bad {
			v.Details = SQLEvalDetails{}
			if !m.Fixed {
				v.Detail += " (the official script raises and counts the item wrong)"
				return v
			}
			if firstErr.Status == "" {
				firstErr = v
			}
			continue
		}
		ran++
		exact, note, err := result.SQLEvalCompare(gs, ps, c)
		if err != nil {
			return Verdict{Status: status.OK, Detail: "sqleval comparison: " + err.Error() + " (the official script raises and counts the item wrong)", Details: SQLEvalDetails{}}
		}
		if exact {
			return Verdict{Correct: true, Status: status.OK, Detail: note, Details: SQLEvalDetails{Exact: true}}
		}
		sub, err := result.SQLEvalSubset(gs, ps, c)
		if err != nil {
			return Verdict{Status: status.OK, Detail: "sqleval comparison: " + err.Error() + " (the official script raises and counts the item wrong)", Details: SQLEvalDetails{}}
		}
		if sub {
			correct = true
			detail = "correct as a subset: the prediction has every gold column, and more"
		}
	}
	if m.Fixed && ran == 0 && firstErr.Status != "" {
		return firstErr
	}
	if m.Fixed && firstErr.Status != "" {
		detail = strings.TrimPrefix(detail+"; a gold alternative failed and was skipped ("+firstErr.Detail+")", "; ")
	}
	return Verdict{Correct: correct, Status: status.OK, Detail: detail, Details: SQLEvalDetails{}}
}
