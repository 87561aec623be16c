package metric

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/sqljudge/sqljudge/internal/bench"
	"github.com/sqljudge/sqljudge/internal/engine"
	"github.com/sqljudge/sqljudge/internal/engine/sqlite"
	"github.com/sqljudge/sqljudge/internal/result"
	"github.com/sqljudge/sqljudge/internal/shareddata"
)

// TestSamePredIsNotRun: ex and ts grade a prediction that is the gold
// query written differently by the gold's result, without running it, on
// SQLite only, and never for a query whose result may change between runs.
// The counting engine answers each query with its own text, so a
// prediction that ran would be told apart from its gold.
func TestSamePredIsNotRun(t *testing.T) {
	ctx := context.Background()
	const gold, pred = "SELECT name FROM singer WHERE age  >  30", "select Name\nfrom SINGER where AGE > 30 -- older"
	suite := t.TempDir()
	for _, f := range []string{"db/db.sqlite", "db/db_1.sqlite", "db/db_2.sqlite"} {
		if err := os.MkdirAll(filepath.Dir(filepath.Join(suite, f)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(suite, f), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, c := range []struct {
		name    string
		dialect engine.Dialect
		gold    string
		pred    string
		skipped bool
	}{
		{"sqlite", engine.SQLite, gold, pred, true},
		{"postgres", engine.Postgres, gold, pred, false},
		{"volatile", engine.SQLite, "SELECT random()", "select RANDOM()", false},
		{"another query", engine.SQLite, gold, "SELECT name FROM singer WHERE age > 31", false},
	} {
		it := &bench.Item{DBID: "db", Gold: []string{c.gold}, Pred: c.pred}
		eng := &countingEngine{dialect: c.dialect, runs: map[string]int{}}
		v := NewEX(EXOptions{}).Grade(ctx, (&Env{Engine: eng, SharePreds: true}).NewExec(), it)
		if ran := eng.ran("db", c.pred); v.Correct != c.skipped || (ran == 0) != c.skipped {
			t.Errorf("ex, %s: correct %v, prediction ran %d times; want it skipped: %v", c.name, v.Correct, ran, c.skipped)
		}
		// An Env that shares no result (serve's) runs every prediction.
		NewEX(EXOptions{}).Grade(ctx, (&Env{Engine: eng}).NewExec(), it)
		if ran := eng.ran("db", c.pred); ran == 0 || c.skipped && ran != 1 {
			t.Errorf("ex without SharePreds, %s: prediction ran %d times in all, want it run", c.name, ran)
		}
		if c.dialect != engine.SQLite {
			continue // ts runs on SQLite only
		}
		eng = &countingEngine{dialect: engine.SQLite, runs: map[string]int{}}
		ts, err := NewTS(TSOptions{Dir: suite, Engine: eng}, EXOptions{})
		if err != nil {
			t.Fatal(err)
		}
		v = ts.Grade(ctx, (&Env{Engine: eng, SharePreds: true}).NewExec(), it)
		ran, golds := 0, 0 // runs of the prediction on any suite database, of the gold on all
		for _, f := range []string{"db.sqlite", "db_1.sqlite", "db_2.sqlite"} {
			ran += eng.ran(filepath.Join(suite, "db", f), c.pred)
			golds += min(eng.ran(filepath.Join(suite, "db", f), c.gold), 1)
		}
		if v.Correct != c.skipped || (ran == 0) != c.skipped || c.skipped && golds != 3 {
			t.Errorf("ts, %s: correct %v, prediction ran %d times, gold on %d databases; want the prediction skipped: %v", c.name, v.Correct, ran, golds, c.skipped)
		}
		if d, _ := v.Details.(TSDetails); c.skipped && d.Databases != 3 {
			t.Errorf("ts, %s: details %+v, want 3 databases", c.name, v.Details)
		}
	}
}

// TestSampleRunsASkippedPred: an item's sample shows the prediction's own
// result, columns as it names them, also when ex skipped it.
func TestSampleRunsASkippedPred(t *testing.T) {
	ctx := context.Background()
	e := sqlite.New(shareddata.SubsetPath(t, "spider", "database"), sqlite.Options{})
	defer e.Close()
	x := (&Env{Engine: e, SharePreds: true}).NewExec()
	it := &bench.Item{DBID: "concert_singer", Gold: []string{"SELECT count(*) FROM singer"}, Pred: "select COUNT(*) from SINGER"}
	if v := NewEX(EXOptions{}).Grade(ctx, x, it); !v.Correct {
		t.Fatalf("verdict %+v", v)
	}
	s := x.Sample(ctx)
	if s == nil || !slices.Equal(s.GoldColumns, []string{"count(*)"}) || !slices.Equal(s.PredColumns, []string{"COUNT(*)"}) {
		t.Fatalf("sample %+v, want gold column count(*) and predicted COUNT(*)", s)
	}
}

// TestSamePredOnSpiderDev: every prediction of the four published systems
// that SamePred grades by its gold's result returns that result, row for
// row, on the Spider dev database.
func TestSamePredOnSpiderDev(t *testing.T) {
	ctx := context.Background()
	spider := shareddata.Path(t, "spider")
	e := sqlite.New(filepath.Join(spider, "database"), sqlite.Options{})
	defer e.Close()
	env := &Env{Engine: e, SharePreds: true}
	ex := NewEX(EXOptions{})
	same := 0
	for _, sys := range []string{"din_sql", "c3", "dail_sql_gpt35", "resdsql"} {
		items, err := bench.Load(bench.Options{Gold: filepath.Join(spider, "dev_gold.sql"), Pred: filepath.Join(spider, "predictions", sys+".sql")})
		if err != nil {
			t.Fatal(err)
		}
		for _, it := range items {
			p, g, _ := ex.Prepare(it.Pred, it.Gold[0])
			if !env.SamePred(p, g) {
				continue
			}
			same++
			gs, gerr := e.Query(ctx, it.DBID, g)
			ps, perr := e.Query(ctx, it.DBID, p)
			if gerr != nil || perr != nil || !slices.EqualFunc(gs.Rows, ps.Rows, slices.Equal[[]result.Value]) {
				t.Errorf("%s item %d: %q and %q: errors %v, %v; results differ", sys, it.Index, g, p, gerr, perr)
			}
		}
	}
	t.Logf("%d predictions graded by their gold's result", same)
	if same < 500 {
		t.Errorf("only %d predictions are their gold written differently; want the several hundred of DIN-SQL and DAIL-SQL", same)
	}
}
