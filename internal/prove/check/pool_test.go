package check

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"
)

// TestZ3PoolRestarts: a pooled process that has answered restartAfter
// scripts is replaced by a fresh one before the next call, and the fresh
// one answers as the first did; a script declaring what an earlier one
// declared is answered (the (reset) between Check's scripts).
func TestZ3PoolRestarts(t *testing.T) {
	z, err := FindZ3()
	if err != nil {
		t.Skipf("skipped: %v", err)
	}
	scripts := []string{
		"(declare-const x Int)\n(assert (> x 2))\n(check-sat)\n",
		"(declare-const x Int)\n(assert (and (> x 2) (< x 1)))\n(check-sat)\n",
	}
	p := NewZ3Pool(z, 1)
	defer p.Close()
	first, err := p.Check(context.Background(), scripts)
	if err != nil || !slices.Equal(first, []string{"sat", "unsat"}) {
		t.Fatalf("first call: %v, %v", first, err)
	}
	zp := p.all[0]
	pid := zp.cmd.Process.Pid
	zp.used = restartAfter
	again, err := p.Check(context.Background(), scripts)
	if err != nil || !slices.Equal(again, first) {
		t.Fatalf("after the restart: %v, %v", again, err)
	}
	if zp.cmd.Process.Pid == pid || zp.used != len(scripts) {
		t.Fatalf("process %d (was %d) has answered %d scripts: not restarted", zp.cmd.Process.Pid, pid, zp.used)
	}
}

// TestZ3PoolModelsAfterUnknown: a goal whose check or get-value runs past
// its rlimit leaves Z3 unable to pop, and every later goal of the batch
// used to fail with it: BIRD pair 1521's gold query has such goals; after
// each goal of it, in one batch, a trivial script still gets its model.
func TestZ3PoolModelsAfterUnknown(t *testing.T) {
	z, err := FindZ3()
	if err != nil {
		t.Skipf("skipped: %v", err)
	}
	z.RLimit = 2_000_000 // the search's coverRLimit
	// One batch holds every goal twice, each bounded by the rlimit (work,
	// not time): the wall-clock safety net must not decide the test on a
	// loaded machine (at 20 s it did, beside a CI run).
	z.Timeout = 10 * time.Minute
	s := &MapSchema{D: SQLite, Tables: []*Table{
		{Name: "gasstations", Columns: []Column{{Name: "GasStationID", Family: Int}, {Name: "ChainID", Family: Int}, {Name: "Country", Family: Text}, {Name: "Segment", Family: Text}},
			Keys: []Key{{Cols: []int{0}, Primary: true}}},
		{Name: "transactions_1k", Columns: []Column{{Name: "TransactionID", Family: Int}, {Name: "Date", Family: Other, Affinity: AffinityNumeric, Temporal: TemporalDate},
			{Name: "Time", Family: Text}, {Name: "CustomerID", Family: Int}, {Name: "CardID", Family: Int}, {Name: "GasStationID", Family: Int},
			{Name: "ProductID", Family: Int}, {Name: "Amount", Family: Int}, {Name: "Price", Family: Real}},
			Keys: []Key{{Cols: []int{0}, Primary: true}}},
	}}
	q := "SELECT COUNT(T1.TransactionID) FROM transactions_1k AS T1 INNER JOIN gasstations AS T2 ON T1.GasStationID = T2.GasStationID WHERE T1.Date = '2012-08-26' AND T1.Time BETWEEN '08:00:00' AND '09:00:00' AND T2.Country = 'CZE'"
	cv, err := ConditionCover(q, s, CoverOptions{})
	if err != nil {
		t.Fatal(err)
	}
	const trivial = "(declare-const x Int)\n(assert (= x 7))\n(check-sat)\n(get-value (x))\n"
	var scripts []string
	for _, g := range cv.Goals {
		scripts = append(scripts, g.SMT, trivial)
	}
	p := NewZ3Pool(z, 1)
	defer p.Close()
	models, err := p.Models(context.Background(), scripts)
	if err != nil {
		t.Fatal(err)
	}
	unknown := 0
	for i, g := range cv.Goals {
		answer, err := p.Check(context.Background(), []string{strings.Replace(g.SMT, "(check-sat)\n(get-value", "(check-sat)\n; (get-value", 1)})
		if err != nil {
			t.Fatal(err)
		}
		if answer[0] == "unknown" {
			unknown++
		}
		if m := models[2*i+1]; m == nil || m["x"] != "7" {
			t.Errorf("the trivial script after goal %s: model %v", g.Name, m)
		}
	}
	if unknown == 0 {
		t.Errorf("no goal runs past the rlimit: the test no longer tests one")
	}
}

// TestZ3PoolBatchRLimit: once a Models call's scripts have used
// BatchRLimit units of Z3's work, the rest are not sent and get no model;
// the scripts before answer as without the bound.
func TestZ3PoolBatchRLimit(t *testing.T) {
	z, err := FindZ3()
	if err != nil {
		t.Skipf("skipped: %v", err)
	}
	easy := func(v int) string {
		return "(declare-const x Int)\n(declare-const y Int)\n(assert (and (= x " + itoa(v) + ") (> y x)))\n(check-sat)\n(get-value (x))\n"
	}
	scripts := []string{easy(1), easy(2), easy(3), easy(4)}
	p := NewZ3Pool(z, 1)
	defer p.Close()
	all, err := p.Models(context.Background(), scripts)
	if err != nil {
		t.Fatal(err)
	}
	for i, m := range all {
		if m == nil || m["x"] != itoa(i+1) {
			t.Fatalf("without a bound, script %d: %v", i+1, m)
		}
	}
	p.BatchRLimit = 1 // the first script's work passes it
	bounded, err := p.Models(context.Background(), scripts)
	if err != nil {
		t.Fatal(err)
	}
	if len(bounded) != len(scripts) || bounded[0]["x"] != "1" || bounded[1] != nil || bounded[3] != nil {
		t.Fatalf("with BatchRLimit 1: %v", bounded)
	}
	p.BatchRLimit = 0
	if again, err := p.Models(context.Background(), scripts); err != nil || again[3]["x"] != "4" {
		t.Fatalf("the next call, without the bound: %v, %v", again, err)
	}
}
