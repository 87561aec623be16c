package metric

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/sqljudge/sqljudge/internal/engine"
	"github.com/sqljudge/sqljudge/internal/result"
)

// countingEngine answers every query with a one-row result naming it, and
// counts how often each (database, SQL) ran.
type countingEngine struct {
	dialect engine.Dialect
	mu      sync.Mutex
	runs    map[string]int
}

func (c *countingEngine) Dialect() engine.Dialect             { return c.dialect }
func (c *countingEngine) Check(context.Context, string) error { return nil }
func (c *countingEngine) Close() error                        { return nil }
func (c *countingEngine) ran(db, sql string) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.runs[db+"|"+sql]
}
func (c *countingEngine) Query(_ context.Context, db, sql string) (*result.Set, error) {
	c.mu.Lock()
	c.runs[db+"|"+sql]++
	c.mu.Unlock()
	if strings.Contains(sql, "big") {
		return &result.Set{Rows: [][]result.Value{{result.TextValue(strings.Repeat("x", predCacheMaxBytes))}}}, nil
	}
	return &result.Set{Rows: [][]result.Value{{result.TextValue(db + ":" + sql)}}}, nil
}

// TestSharePreds checks which predicted queries items share: a repeated
// query on the same database runs once; on another database, with a
// volatile function, too large a result, SharePreds off, or a server
// engine, it runs every time; and only the PredCacheSize most recent
// results are kept.
func TestSharePreds(t *testing.T) {
	ctx := context.Background()
	eng := &countingEngine{dialect: engine.SQLite, runs: map[string]int{}}
	env := &Env{Engine: eng, SharePreds: true}
	pred := func(db, sql string) *result.Set {
		s, err := env.NewExec().Pred(ctx, db, sql) // a new item each time
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	for range 3 {
		if s := pred("a", "SELECT 1"); s.Rows[0][0].S != "a:SELECT 1" {
			t.Fatalf("result %v", s.Rows)
		}
		pred("b", "SELECT 1")
		pred("a", "SELECT random()")
		pred("a", "SELECT date()")
		pred("a", "SELECT big")
	}
	for q, want := range map[string]int{"a|SELECT 1": 1, "b|SELECT 1": 1, "a|SELECT random()": 3, "a|SELECT date()": 3, "a|SELECT big": 3} {
		db, sql, _ := strings.Cut(q, "|")
		if got := eng.ran(db, sql); got != want {
			t.Errorf("%s ran %d times, want %d", q, got, want)
		}
	}
	for i := range PredCacheSize {
		pred("c", fmt.Sprint("SELECT ", i))
	}
	pred("a", "SELECT 1")
	if got := eng.ran("a", "SELECT 1"); got != 2 {
		t.Errorf("after %d other queries, SELECT 1 ran %d times in all, want 2 (evicted)", PredCacheSize, got)
	}
	pred("c", fmt.Sprint("SELECT ", PredCacheSize-1))
	if got := eng.ran("c", fmt.Sprint("SELECT ", PredCacheSize-1)); got != 1 {
		t.Errorf("a recent query ran %d times, want 1", got)
	}

	for _, e := range []*Env{
		{Engine: &countingEngine{dialect: engine.SQLite, runs: map[string]int{}}},
		{Engine: &countingEngine{dialect: engine.Postgres, runs: map[string]int{}}, SharePreds: true},
	} {
		env = e
		pred("a", "SELECT 1")
		pred("a", "SELECT 1")
		if got := e.Engine.(*countingEngine).ran("a", "SELECT 1"); got != 2 {
			t.Errorf("SharePreds %v on %v: ran %d times, want 2", e.SharePreds, e.Engine.Dialect(), got)
		}
	}
}
