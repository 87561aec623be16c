package metric

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/sqljudge/sqljudge/internal/bench"
	"github.com/sqljudge/sqljudge/internal/engine"
	"github.com/sqljudge/sqljudge/internal/engine/sqlite"
	"github.com/sqljudge/sqljudge/internal/sqllex"
	"github.com/sqljudge/sqljudge/internal/status"
)

func init() {
	Register("ts", "test-suite accuracy: ex on every database of the item's suite (--suite DIR)", func(o Options) (Metric, error) {
		return NewTS(o.TS, o.EX)
	})
	RegisterSetting(Setting{
		Flag: "plug-value", Metrics: []string{"ts"}, Default: false,
		Help:        "ts: also try the gold's values in the prediction's value slots (the official --plug_value)",
		Field:       func(o *Options) any { return &o.TS.PlugValue },
		Fingerprint: "plug_value", Record: Always, RunInfo: "plug_value",
	})
	RegisterSetting(Setting{
		Flag: "max-plug", Metrics: []string{"ts"}, Default: DefaultMaxPlug,
		Help:        "ts: most predictions --plug-value tries per item",
		Field:       func(o *Options) any { return &o.TS.MaxPlug },
		Fingerprint: "max_plug", Record: Always,
		Check: func(o *Options) error {
			if o.TS.MaxPlug < 1 {
				return errors.New("--max-plug must be at least 1")
			}
			return nil
		},
	})
}

// TSOptions are ts's options.
type TSOptions struct {
	// Dir is the test-suite folder, DIR/<db_id>/*.sqlite (eval's --suite).
	Dir string
	// PlugValue also tries the gold's values in the prediction's value
	// slots (the official --plug_value), at most MaxPlug predictions per
	// item; MaxPlug is at least 1 when PlugValue is set (eval's
	// --max-plug, DefaultMaxPlug unless given).
	PlugValue bool
	MaxPlug   int
	// Timeout bounds each query ts runs on a suite database (0: no bound);
	// MaxRows and MaxBytes are the row and byte caps of the SQLite engine
	// ts opens over the suite (sqlite.Options, where 0 is the engine's
	// default cap).
	Timeout  time.Duration
	MaxRows  int
	MaxBytes int64
	// Engine, if set, runs ts's queries (a database is named by its file
	// path) instead of the SQLite engine NewTS opens, and MaxRows and
	// MaxBytes are its own: benchmarks wrap the engine to see every query
	// ts runs. ts closes it.
	Engine engine.Engine
}

// NewTS opens ts over the suite o.Dir, with ex's options ex for the
// comparison on each database. It fails when o.Dir is empty or not a
// folder, or when o.PlugValue is set with o.MaxPlug below 1. The caller
// closes it (Close).
func NewTS(o TSOptions, ex EXOptions) (*TS, error) {
	if o.Dir == "" {
		return nil, errors.New("needs --suite DIR (DIR/<db_id>/*.sqlite; build one with `sqljudge testsuite build`)")
	}
	st, err := os.Stat(o.Dir)
	if err != nil || !st.IsDir() {
		return nil, fmt.Errorf("--suite %s is not a folder", o.Dir)
	}
	if o.PlugValue && o.MaxPlug < 1 {
		return nil, fmt.Errorf("--max-plug %d: ts with --plug-value tries at least 1 prediction", o.MaxPlug)
	}
	eng := o.Engine
	if eng == nil {
		eng = sqlite.New("", sqlite.Options{MaxRows: o.MaxRows, MaxBytes: o.MaxBytes})
	}
	return &TS{
		Dir: o.Dir, PlugValue: o.PlugValue, MaxPlug: o.MaxPlug,
		ex:  NewEX(ex),
		env: &Env{Engine: eng, Timeout: o.Timeout, SharePreds: true},
	}, nil
}

// Close closes the SQLite engine ts opened over the suite databases: every
// suite file it holds. Whoever built the metric closes it (see Close).
func (m *TS) Close() error { return m.env.Engine.Close() }

// DefaultMaxPlug bounds the predictions --plug-value tries per item
// unless --max-plug says otherwise.
const DefaultMaxPlug = 1000

// TS is test-suite accuracy (Zhong, Yu and Klein, EMNLP 2020; the official
// metric of taoyds/test-suite-sql-eval, exec_eval.eval_exec_match with a
// folder of databases): the prediction is correct iff it matches the gold,
// by the ex rules (result.SpiderEqual, DISTINCT removed unless
// --keep-distinct, order by the gold's "order by"), on every database of
// the item's suite, DIR/<db_id>/*.sqlite. The databases are tried in a
// fixed order — the original (<db_id>.sqlite) first, then by name — and the
// first one that tells the prediction apart is the verdict's witness, with
// both results on it. A prediction that is the gold query written
// differently (Env.SamePred) is not run: the gold alone runs on each
// database.
//
// A gold query that fails on a suite database is a defect of the suite: the
// item gets gold_error naming the database (the official script stops with
// an assertion). With PlugValue, as the official --plug_value, the values of
// the gold query are also tried in the value slots of the prediction (every
// assignment, up to MaxPlug predictions), and any assignment that passes
// makes the item correct.
type TS struct {
	// Dir is the suite folder.
	Dir string
	// PlugValue tries the gold's values in the prediction.
	PlugValue bool
	// MaxPlug bounds the predictions tried with PlugValue.
	MaxPlug int

	ex  *EX
	env *Env

	mu  sync.Mutex
	dbs map[string][]string
}

// Name returns "ts".
func (m *TS) Name() string { return "ts" }

// Check returns an error when the suite has no database for db.
func (m *TS) Check(ctx context.Context, db string) error {
	dbs, err := m.databases(db)
	if err == nil && len(dbs) == 0 {
		err = fmt.Errorf("the suite %s has no database for db_id %q", m.Dir, db)
	}
	return err
}

// databases lists the suite's database files for db: the original first,
// then <db>_<k> by k, then the rest by name.
func (m *TS) databases(db string) ([]string, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.dbs == nil {
		m.dbs = map[string][]string{}
	}
	if d, ok := m.dbs[db]; ok {
		return d, nil
	}
	entries, err := os.ReadDir(filepath.Join(m.Dir, db))
	if err != nil && !os.IsNotExist(err) {
		return nil, err
	}
	var files []string
	for _, e := range entries {
		if !e.IsDir() && strings.Contains(e.Name(), ".sqlite") {
			files = append(files, e.Name())
		}
	}
	rank := func(name string) (int, int, string) {
		base := strings.TrimSuffix(name, ".sqlite")
		if base == db {
			return 0, 0, name
		}
		if k, err := strconv.Atoi(strings.TrimPrefix(base, db+"_")); err == nil && strings.HasPrefix(base, db+"_") {
			return 1, k, name
		}
		return 2, 0, name
	}
	sort.Slice(files, func(a, b int) bool {
		ra, ka, na := rank(files[a])
		rb, kb, nb := rank(files[b])
		if ra != rb {
			return ra < rb
		}
		if ka != kb {
			return ka < kb
		}
		return na < nb
	})
	for i, f := range files {
		files[i] = filepath.Join(m.Dir, db, f)
	}
	m.dbs[db] = files
	return files, nil
}

// Grade runs the prediction and the gold on every suite database.
func (m *TS) Grade(ctx context.Context, x *Exec, it *bench.Item) Verdict {
	dbs, err := m.databases(it.DBID)
	if err != nil || len(dbs) == 0 {
		if err == nil {
			err = fmt.Errorf("the suite has no database for db_id %q", it.DBID)
		}
		return Verdict{Status: status.GoldError, Detail: "suite defect: " + err.Error()}
	}
	var last Verdict
	for _, gold := range it.Gold {
		p, g, ordered := m.ex.Prepare(it.Pred, gold)
		preds := []string{p}
		note := ""
		if m.PlugValue {
			plugged, n := PlugValues(g, p, m.MaxPlug)
			preds = append(preds, plugged...)
			if n > m.MaxPlug {
				note = fmt.Sprintf("plug-value: %d assignments, more than --max-plug %d; tried the prediction as is", n, m.MaxPlug)
			}
		}
		for _, pq := range preds {
			v := m.grade(ctx, dbs, pq, g, ordered)
			if v.Correct {
				v.Detail = note
				return v
			}
			if pq == p {
				last = v // the verdict shown is the prediction's own
			}
		}
	}
	return last
}

func (m *TS) grade(ctx context.Context, dbs []string, p, g string, ordered bool) Verdict {
	same := m.env.SamePred(p, g) // the gold written differently: never told apart
	for _, db := range dbs {
		gs, gerr := m.env.Gold(ctx, db, g)
		if gerr != nil {
			return Verdict{Status: status.GoldError, Detail: fmt.Sprintf("suite defect: the gold query fails on %s: %v", db, gerr),
				Details: TSDetails{Witness: db, Databases: len(dbs)}}
		}
		if same {
			continue
		}
		ps, perr := m.env.Pred(ctx, db, p)
		if perr != nil {
			return Verdict{Status: engine.Classify(perr, status.PredError), Detail: fmt.Sprintf("on %s: %v", filepath.Base(db), perr),
				Details: TSDetails{Witness: db, Databases: len(dbs), WitnessGold: gs.String()}}
		}
		eq, cerr := m.env.SpiderEqual(ctx, gs, ps, ordered)
		if cerr != nil {
			v := failure(cerr, status.PredError)
			v.Detail = fmt.Sprintf("on %s: %v", filepath.Base(db), cerr)
			v.Details = TSDetails{Witness: db, Databases: len(dbs)}
			return v
		}
		if !eq {
			return Verdict{Status: status.OK, Detail: "told apart by " + filepath.Base(db),
				Details: TSDetails{Witness: db, Databases: len(dbs), WitnessGold: gs.String(), WitnessPred: ps.String()}}
		}
	}
	return Verdict{Correct: true, Status: status.OK, Details: TSDetails{Databases: len(dbs)}}
}

// PlugValues returns the prediction with the gold's values in its value
// slots, every assignment, as the official --plug_value
// (test-suite-sql-eval parse.get_all_preds_for_execution): the values are
// the gold's string literals ('...' and "...") and numbers, the slots the
// prediction's. It returns at most max predictions and the number of
// assignments there are; none when that number passes max.
func PlugValues(gold, pred string, max int) ([]string, int) {
	var values []string
	seen := map[string]bool{}
	for _, t := range sqllex.Tokenize(gold) {
		if isValueToken(t) && !seen[t.Text] {
			seen[t.Text] = true
			values = append(values, t.Text)
		}
	}
	toks := sqllex.Tokenize(pred)
	var slots []int
	for i, t := range toks {
		if isValueToken(t) {
			slots = append(slots, i)
		}
	}
	if len(slots) == 0 || len(values) == 0 {
		return nil, 0
	}
	n := 1
	for range slots {
		n *= len(values)
		if n > max {
			return nil, n
		}
	}
	out := make([]string, 0, n)
	idx := make([]int, len(slots))
	for {
		var b strings.Builder
		k := 0
		for i, t := range toks {
			if k < len(slots) && slots[k] == i {
				b.WriteString(values[idx[k]])
				k++
				continue
			}
			b.WriteString(t.Text)
		}
		out = append(out, b.String())
		j := len(idx) - 1
		for j >= 0 {
			idx[j]++
			if idx[j] < len(values) {
				break
			}
			idx[j] = 0
			j--
		}
		if j < 0 {
			return out, n
		}
	}
}

func isValueToken(t sqllex.Token) bool {
	return t.Kind == sqllex.String || t.Kind == sqllex.Number || t.Kind == sqllex.Quoted && strings.HasPrefix(t.Text, `"`)
}
