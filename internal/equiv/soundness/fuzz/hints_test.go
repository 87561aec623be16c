package fuzz

import (
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/sqljudge/sqljudge/internal/engine"
)

// hasHint reports whether hints h give column i of t the value v.
func hasHint(h hints, t *table, i int, v value) bool {
	return slices.ContainsFunc(h[colKey{t, i}], func(x value) bool { return x.key() == v.key() })
}

// TestAliasHintsReachInputColumn: a value an alias calls for inside an
// ORDER BY expression (b AS a ... ORDER BY a * 3 = 122883) reaches both
// readings of the name: the output's column b (the kernel's reading of
// a bare alias) and the input column a (SQLite's reading inside an
// expression, issue 37 R1). Without the second, no database holds a =
// 40961 and a kernel that reads the alias there goes unseen.
func TestAliasHintsReachInputColumn(t *testing.T) {
	tb := tab("t", "a INT NOT NULL", "b INT NOT NULL")
	mkSchema(engine.SQLite, tb)
	f := fr(tb, "")
	q := query([]*item{it(bare(f, "b"), "a")}, []*fromItem{f}, nil)
	q.orderBy = []*orderTerm{{x: bin("=", bin("*", &aliasRef{it: q.items[0]}, num(3)), num(122883))}}
	h := gatherHints(q)
	for i, name := range []string{"a", "b"} {
		if !hasHint(h, tb, i, intVal(40961)) {
			t.Errorf("column %s has no hint 40961 (hints %v)", name, h[colKey{tb, i}])
		}
	}
}

// TestInSubqueryWithEquality: the generator writes col = v AND col IN
// (SELECT …) (the shape of issue 37 R7, which eq_propagate then turns
// into v IN (SELECT …)) in some of the pairs of seed 1.
func TestInSubqueryWithEquality(t *testing.T) {
	n := 0
	for i := range 400 {
		r := rand.New(rand.NewPCG(1, uint64(i)))
		g := &gen{r: r, s: genSchema(r, engine.SQLite), d: engine.SQLite}
		p := g.pair()
		walk(p.q1, func(st site) {
			if b, ok := (*st.slot).(*binary); ok && b.op == "AND" {
				if eq, ok := b.l.(*binary); ok && eq.op == "=" {
					if in, ok := b.r.(*inSub); ok && sameColumn(eq.l, in.x) {
						n++
					}
				}
			}
		})
	}
	if n == 0 {
		t.Fatal("no query of 400 holds col = v AND col IN (SELECT …)")
	}
	t.Logf("%d of 400 pairs", n)
}

// sameColumn reports whether a and b read the same column of the same
// FROM item.
func sameColumn(a, b expr) bool {
	ra, ok1 := a.(*colRef)
	rb, ok2 := b.(*colRef)
	return ok1 && ok2 && ra.f == rb.f && ra.col == rb.col
}

// TestEqPropagateFromChar: on PostgreSQL, eq_propagate prefers a
// conjunct c = v whose c is a CHAR(n) column (bpchar's = ignores the
// padding its values keep, issue 37 R16), so that the 400 pairs of the
// CI run replace such a column by its equal often enough to meet a
// kernel that takes that = for identity.
func TestEqPropagateFromChar(t *testing.T) {
	n := 0
	for i := range 400 {
		r := rand.New(rand.NewPCG(1, uint64(i)))
		g := &gen{r: r, s: genSchema(r, engine.Postgres), d: engine.Postgres}
		for _, rw := range g.pair().rewrites {
			if strings.HasPrefix(rw, "eq_propagate:char~") {
				n++
			}
		}
	}
	if n < 20 {
		t.Fatalf("%d of 400 PostgreSQL pairs propagate an equality from a CHAR(n) column, want 20 at least", n)
	}
	t.Logf("%d of 400 pairs", n)
}

// TestLiftOnLeftJoin: lift moves an expression into a FROM subquery on
// the right side of a LEFT JOIN (derived_merge's trap: the row of NULLs
// the join adds) in some of the pairs of seed 1 on SQLite, among them
// expressions that are not NULL there (typeof, coalesce, IS NULL).
func TestLiftOnLeftJoin(t *testing.T) {
	n, all := 0, 0
	for i := range 2000 {
		r := rand.New(rand.NewPCG(1, uint64(i)))
		g := &gen{r: r, s: genSchema(r, engine.SQLite), d: engine.SQLite}
		for _, rw := range g.pair().rewrites {
			if strings.HasPrefix(rw, "lift") {
				all++
			}
			if strings.HasPrefix(rw, "lift:LEFT JOIN") {
				n++
			}
		}
	}
	if n < 10 {
		t.Fatalf("%d of 2000 pairs lift an expression to the right side of a LEFT JOIN (lift in %d), want 10 at least", n, all)
	}
	t.Logf("%d of 2000 pairs (lift in %d)", n, all)
}

// TestHavingMoveDrawn: having_move puts a conjunct on grouped columns in
// the HAVING of one query and the WHERE of the other in some of the
// pairs of seed 1 on SQLite (having_to_where's rewrite and its traps).
func TestHavingMoveDrawn(t *testing.T) {
	n := 0
	for i := range 2000 {
		r := rand.New(rand.NewPCG(1, uint64(i)))
		g := &gen{r: r, s: genSchema(r, engine.SQLite), d: engine.SQLite}
		if slices.ContainsFunc(g.pair().rewrites, func(rw string) bool { return strings.HasPrefix(rw, "having_move") }) {
			n++
		}
	}
	if n < 10 {
		t.Fatalf("%d of 2000 pairs move a WHERE conjunct to the HAVING, want 10 at least", n)
	}
	t.Logf("%d of 2000 pairs", n)
}
