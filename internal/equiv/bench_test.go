package equiv

import (
	"context"
	"testing"

	"github.com/sqljudge/sqljudge/internal/catalog"
	"github.com/sqljudge/sqljudge/internal/engine"
	"github.com/sqljudge/sqljudge/internal/prove/check"
)

// BenchmarkDecideSpider decides every 40th EX-correct DIN-SQL prediction
// of Spider dev against its gold (Spider's rule, the item's database
// seeding the values, eval's equiv defaults: DefaultMetricMaxDatabases,
// DefaultMetricBudget);
// one op is one item. Report: go test -bench DecideSpider -benchtime 20x.
func BenchmarkDecideSpider(b *testing.B) {
	ids, pairs := spiderDIN(b)
	sb := newSQLite(b)
	var sample []Pair
	for k := 0; k < len(ids); k += 40 {
		sample = append(sample, pairs[ids[k]])
	}
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		p := sample[i%len(sample)]
		if _, err := Decide(context.Background(), p, Options{NoProof: true, Sandbox: sb, Seed: 1, Rule: RuleSpider, Budget: DefaultMetricBudget, MaxDatabases: DefaultMetricMaxDatabases}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkDecideHandPairs decides the hand-written pairs (DDL schemas,
// the `sqljudge equiv` defaults: 600 databases, 1m budget); one op is one
// pair.
func BenchmarkDecideHandPairs(b *testing.B) {
	sb := newSQLite(b)
	for i := 0; b.Loop(); i++ {
		c := handPairs[i%len(handPairs)]
		if _, err := Decide(context.Background(), Pair{Q1: c.q1, Q2: c.q2, Schema: c.ddl}, Options{NoProof: true, Sandbox: sb, Seed: 1}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkDecideSpiderProver is BenchmarkDecideSpider with the prover
// (Z3 when found): a proved item's search stops at TripwireDatabases.
func BenchmarkDecideSpiderProver(b *testing.B) {
	ids, pairs := spiderDIN(b)
	sb := newSQLite(b)
	var solver check.Solver
	if z, err := check.FindZ3(); err == nil {
		solver = z
	}
	var sample []Pair
	for k := 0; k < len(ids); k += 40 {
		sample = append(sample, pairs[ids[k]])
	}
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		p := sample[i%len(sample)]
		if _, err := Decide(context.Background(), p, Options{Sandbox: sb, Seed: 1, Rule: RuleSpider, Budget: DefaultMetricBudget, MaxDatabases: DefaultMetricMaxDatabases, Solver: solver}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkProveSpider runs the prover alone (Z3 when found) on every
// 10th EX-correct DIN-SQL prediction of Spider dev against its gold; one
// op is one item.
func BenchmarkProveSpider(b *testing.B) {
	ids, pairs := spiderDIN(b)
	var solver check.Solver
	if z, err := check.FindZ3(); err == nil {
		solver = z
	}
	type item struct {
		p Pair
		s *catalog.Database
	}
	var sample []item
	for k := 0; k < len(ids); k += 10 {
		p := pairs[ids[k]]
		s, err := ReadSchema(context.Background(), p)
		if err != nil {
			b.Fatal(err)
		}
		sample = append(sample, item{p, s})
	}
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		it := sample[i%len(sample)]
		ProveQueries(context.Background(), it.p.Q1, it.p.Q2, it.s, engine.SQLite, RuleSpider, solver)
	}
}
