package prove

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/sqljudge/sqljudge/internal/prove/check"
)

// leftOnDDL: two tables with an INTEGER key, a nullable and a NOT NULL
// INTEGER column, a NOCASE and a BINARY text column.
const leftOnDDL = "CREATE TABLE p(k INTEGER PRIMARY KEY, a INTEGER, b INTEGER NOT NULL, c TEXT COLLATE NOCASE, s TEXT); " +
	"CREATE TABLE q(k INTEGER PRIMARY KEY, a INTEGER, b INTEGER NOT NULL, c TEXT COLLATE NOCASE, s TEXT)"

func leftOnSchema() *check.MapSchema {
	cols := func() []check.Column {
		return []check.Column{
			{Name: "k", Family: check.Int, Affinity: check.AffinityInteger, NotNull: true},
			{Name: "a", Family: check.Int, Affinity: check.AffinityInteger},
			{Name: "b", Family: check.Int, Affinity: check.AffinityInteger, NotNull: true},
			{Name: "c", Family: check.Text, Affinity: check.AffinityText, Collation: "nocase"},
			{Name: "s", Family: check.Text, Affinity: check.AffinityText},
		}
	}
	key := []check.Key{{Cols: []int{0}, Primary: true}}
	return &check.MapSchema{D: check.SQLite, Tables: []*check.Table{{Name: "p", Columns: cols(), Keys: key}, {Name: "q", Columns: cols(), Keys: key}}}
}

// leftOnRows draws rows for p and q: few values, so that matches, NULLs
// and texts equal under NOCASE meet.
func leftOnRows(r *rand.Rand) string {
	pick := func(xs ...string) string { return xs[r.IntN(len(xs))] }
	var b strings.Builder
	for _, table := range []string{"p", "q"} {
		for k := range r.IntN(5) {
			fmt.Fprintf(&b, "INSERT INTO %s VALUES (%d, %s, %s, %s, %s);", table, k+1,
				pick("1", "2", "NULL"), pick("1", "2"), pick("'a'", "'A'", "'b'", "NULL"), pick("'a'", "'A'", "'1'", "NULL"))
		}
	}
	return b.String()
}

// leftOnPairs are LEFT JOIN ONs two queries may write: equivalent ones
// the prover proves (want 1) or may leave (0: the kernel does not model
// NOCASE or a comparison that converts a column's values), and traps it
// must refuse (-1); where is a WHERE both queries have.
var leftOnPairs = []struct {
	on1, on2, where string
	want            int
}{
	{"p.a = q.a", "q.a = p.a", "", 1},
	{"p.a = q.a AND q.b = p.b", "q.b = p.b AND p.a = q.a", "", 1},
	{"p.a = q.a AND q.a = q.b", "p.a = q.a AND p.a = q.b", "", 1},
	{"p.c = q.c", "q.c = p.c", "", 0},
	{"p.a = q.s", "q.s = p.a", "", 0},
	{"p.a = q.a", "p.a = q.a AND q.a IS NOT NULL", "", 1},
	{"q.a = p.a", "q.a = 1", "p.a = 1", 1},
	{"q.a = p.a AND q.b > p.b", "q.a = 2 AND q.b > 1", "p.a = 2 AND p.b = 1", 1},
	// BINARY against NOCASE: the left column's collation decides.
	{"p.s = q.c", "q.c = p.s", "", -1},
	{"p.a = q.a", "p.a = q.a OR p.a IS NULL", "", -1},
	{"p.a = q.a", "p.a IS q.a", "", -1},
	// A WHERE that reads the joined side says nothing of the pairs.
	{"q.a = p.a", "q.a = p.a AND q.a = 1", "q.a = 1 OR q.a IS NULL", -1},
	{"q.a = p.a", "q.a = 1", "p.a = 1 OR p.a IS NULL", -1},
}

// TestProveLeftJoinOns: pairs of queries that differ only in the ON of a
// LEFT JOIN are proved when the ONs agree on every pair of rows (where the
// WHERE keeps the left row), and refused otherwise; every proved pair is
// run on 20 SQLite databases of leftOnRows (rows as a bag, values and
// storage classes compared), and each trap is shown different on one of
// them.
func TestProveLeftJoinOns(t *testing.T) {
	s := leftOnSchema()
	z := solver(t)
	r := rand.New(rand.NewPCG(31, 5))
	pick := func(xs ...string) string { return xs[r.IntN(len(xs))] }
	proved := map[int]int{}
	shown := map[int]bool{}
	for range 120 {
		n := r.IntN(len(leftOnPairs))
		c := leftOnPairs[n]
		outs := pick("p.k, q.k", "p.s, q.a, q.c", "DISTINCT p.k, q.b", "q.k")
		build := func(on string) string {
			q := fmt.Sprintf("SELECT %s FROM p LEFT JOIN q ON %s", outs, on)
			if c.where != "" {
				q += " WHERE " + c.where
			}
			return q
		}
		q1, q2 := build(c.on1), build(c.on2)
		if r.IntN(2) == 0 {
			q1, q2 = q2, q1
		}
		a := Prove(context.Background(), q1, q2, s, Options{Rule: "bag", Solver: z})
		for range 20 {
			rows := leftOnRows(r)
			b1, b2 := sqliteBagOf(t, leftOnDDL, rows, q1), sqliteBagOf(t, leftOnDDL, rows, q2)
			if !slices.Equal(b1, b2) {
				shown[n] = true
				if a.Proved() {
					t.Fatalf("proved, but they differ:\n%s\n%s\nrows %s\n%v\n%v", q1, q2, rows, b1, b2)
				}
			}
		}
		if a.Proved() {
			proved[n]++
			if c.want < 0 {
				t.Errorf("trap proved: %s | %s", q1, q2)
			}
		} else if c.want > 0 {
			t.Errorf("not proved: %s | %s: %s: %s", q1, q2, a.Stopped, a.Detail)
		}
	}
	for n, c := range leftOnPairs {
		if c.want < 0 && !shown[n] {
			t.Errorf("trap %s | %s (WHERE %s): no database showed a difference", c.on1, c.on2, c.where)
		}
	}
	t.Logf("LEFT JOIN ONs: proved %v of %d templates", proved, len(leftOnPairs))
}

// TestProveLeftJoinOnsCases: an outer join before the LEFT JOIN extends
// its table with NULLs, NOT NULL columns included, which the ONs read,
// and its ON does not hold on the rows it adds; an inner join's ON holds
// on the left rows; a * is its FROM items' columns in order; an ON that
// may fail is refused on PostgreSQL.
func TestProveLeftJoinOnsCases(t *testing.T) {
	s := leftOnSchema()
	z := solver(t)
	proved := func(q1, q2 string) {
		t.Helper()
		if a := Prove(context.Background(), q1, q2, s, Options{Rule: "bag", Solver: z}); !a.Proved() {
			t.Errorf("not proved %s | %s: %s: %s", q1, q2, a.Stopped, a.Detail)
		}
	}
	// refused: q1 and q2 differ on rows, and the prover refuses them.
	refused := func(q1, q2, rows, why string) {
		t.Helper()
		if rows != "" && slices.Equal(sqliteBagOf(t, leftOnDDL, rows, q1), sqliteBagOf(t, leftOnDDL, rows, q2)) {
			t.Fatalf("%s | %s: the same rows on %s", q1, q2, rows)
		}
		if a := Prove(context.Background(), q1, q2, s, Options{Rule: "bag", Solver: z}); a.Proved() {
			t.Errorf("proved %s | %s: %s", q1, q2, why)
		}
	}
	rows := "INSERT INTO p VALUES (1, 1, 1, 'a', 'a'); INSERT INTO q VALUES (1, 2, 1, 'a', 'a')"
	refused("SELECT p.k, r.k FROM p LEFT JOIN q ON q.a = p.a LEFT JOIN p AS r ON r.b = q.b OR q.b IS NULL",
		"SELECT p.k, r.k FROM p LEFT JOIN q ON q.a = p.a LEFT JOIN p AS r ON r.b = q.b",
		rows, "q.b is NOT NULL, but NULL on the row the first LEFT JOIN adds")
	refused("SELECT p.k, r.k FROM p LEFT JOIN q ON q.a = 1 LEFT JOIN p AS r ON r.a = q.a",
		"SELECT p.k, r.k FROM p LEFT JOIN q ON q.a = 1 LEFT JOIN p AS r ON r.a = 1",
		rows, "the first LEFT JOIN's ON does not hold on the rows it adds")
	// Two LEFT JOINs, the second's ON rewritten through the first's.
	proved("SELECT p.k, q.k, r.k FROM p LEFT JOIN q ON q.a = p.a LEFT JOIN p AS r ON r.a = q.a AND r.a = p.a",
		"SELECT p.k, q.k, r.k FROM p LEFT JOIN q ON p.a = q.a LEFT JOIN p AS r ON r.a = p.a AND q.a = p.a")
	// An inner join before the LEFT JOIN: its ON holds on every left row.
	proved("SELECT p.k, r.k FROM p JOIN q ON q.k = p.k AND q.a = 2 LEFT JOIN p AS r ON r.a = q.a",
		"SELECT p.k, r.k FROM p JOIN q ON q.k = p.k AND q.a = 2 LEFT JOIN p AS r ON r.a = 2")
	// A * spelled out as the columns of its FROM items, in their order.
	spelled := "SELECT p.k, p.a, p.b, p.c, p.s, q.k, q.a, q.b, q.c, q.s FROM p LEFT JOIN q ON q.k = p.k"
	proved("SELECT * FROM p LEFT JOIN q ON p.k = q.k", spelled)
	refused("SELECT q.*, p.* FROM p LEFT JOIN q ON p.k = q.k", spelled, rows, "the columns come in another order")
	// PostgreSQL fails a division by zero in one ON and not in the other.
	pg := leftOnSchema()
	pg.D = check.Postgres
	q1 := "SELECT p.k, q.k FROM p LEFT JOIN q ON q.a = p.a AND (q.b > 0 OR 1 / q.b > 0)"
	q2 := "SELECT p.k, q.k FROM p LEFT JOIN q ON q.a = p.a AND q.b > 0"
	// The same-form comparison refuses its ON (failFree); the prover now
	// stops before it, on the division in a condition (check.ConditionRisk).
	if a := Prove(context.Background(), q1, q2, pg, Options{Rule: "bag", Solver: z}); a.Proved() || a.Stopped != "may fail" {
		t.Errorf("%s | %s on PostgreSQL: %v %s: %s, want refused for its ON", q1, q2, a.Proved(), a.Stopped, a.Detail)
	}
}

// TestPermutationsCapped: bijections makes at most MaxBijections
// permutations of a table's occurrences, in the order it always tried
// them (the identity first), and a pair with twelve occurrences of one
// table is answered (all 12! permutations exhausted the memory).
func TestPermutationsCapped(t *testing.T) {
	want := [][]int{{0, 1, 2, 3}, {0, 1, 3, 2}, {0, 3, 1, 2}, {3, 0, 1, 2}, {0, 2, 1, 3}}
	if got := permutations(4, 5); !slices.EqualFunc(got, want, slices.Equal[[]int]) {
		t.Errorf("permutations(4, 5) = %v, want %v", got, want)
	}
	if got := permutations(4, 100); len(got) != 24 {
		t.Errorf("permutations(4, 100): %d, want all 24", len(got))
	}
	got := permutations(12, 24)
	seen := map[string]bool{}
	for _, p := range got {
		sorted := slices.Sorted(slices.Values(p))
		if !slices.Equal(sorted, identity(12)) || seen[fmt.Sprint(p)] {
			t.Fatalf("permutations(12, 24) gave %v, not a new permutation of 0..11", p)
		}
		seen[fmt.Sprint(p)] = true
	}
	if len(got) != 24 || !slices.Equal(got[0], identity(12)) {
		t.Errorf("permutations(12, 24): %d, first %v; want 24, the identity first", len(got), got[0])
	}
	var from []string
	for i := range 12 {
		from = append(from, fmt.Sprintf("p AS x%d", i))
	}
	q := "SELECT x0.k FROM " + strings.Join(from, ", ") + " WHERE x0.k = x11.k"
	a := Prove(context.Background(), q, q+" AND x1.k = x1.k", leftOnSchema(), Options{Rule: "bag", Solver: solver(t)})
	if a.Stopped == "" && !a.Proved() {
		t.Errorf("twelve occurrences of p: %+v", a)
	}
}
