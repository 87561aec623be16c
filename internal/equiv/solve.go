package equiv

import (
	"math"
	"math/rand/v2"
	"strconv"
	"strings"

	"github.com/sqljudge/sqljudge/internal/catalog"
	"github.com/sqljudge/sqljudge/internal/result"
	"github.com/sqljudge/sqljudge/internal/sqllex"
)

// Values a condition needs. A comparison of a column's arithmetic with a
// literal (x * 3 = 122883, 2 + x > 9, 100 <= x / 4) holds on values that
// neither the literals nor their neighbours are (40961), so random rows
// never meet it and a difference hiding behind it is never seen (issue
// 37: a wrong proof whose ORDER BY read such a condition passed the
// tripwire). solvedValues solves the linear ones, one column and one
// literal on each side of the operator, for the column; the values join
// the pools (schema.pools) and a phase of their own (PhaseConditions)
// puts each in one row of a small database. This is the small first step
// of a solver-directed search: issue 38 replaces it by models of the
// prover's SMT encoding of the conditions (prove/check), which cover
// conditions over several columns, functions and subqueries.

// maxConditionDatabases bounds the databases of PhaseConditions.
const maxConditionDatabases = 12

// solved is a value that meets a condition on the column named col (lower
// case, any table).
type solved struct {
	col string
	v   result.Value
}

// solvedValues returns, for the queries (and a proof's normal forms, which
// read the same conditions as the kernel does), the values that meet
// their linear comparisons of one column with literals, without repeats,
// in the order found: the solution of col op k = n, and the two whole
// numbers around it when it is not one (the boundary of <, <=, >, >=).
// With plain, a comparison of a bare column with a number (age > 40)
// gives the number too: the boundary where <, <=, >, >= and = part, for
// an engine whose conditions the solver phase does not model (MariaDB
// and MySQL), where only a random draw would otherwise put it in a row.
func (s *schema) solvedValues(plain bool, queries ...string) []solved {
	var out []solved
	seen := map[string]bool{}
	for _, q := range queries {
		toks := significant(q)
		for i := range toks {
			col, f, ok := s.linearAt(toks, i, plain)
			if !ok {
				continue
			}
			for _, x := range solutions(f) {
				v := numberValue(x)
				if k := col + "\x00" + string(result.AppendKey(nil, v)); !seen[k] {
					seen[k] = true
					out = append(out, solved{col, v})
				}
			}
		}
	}
	return out
}

// solutions are x and, when x is not whole, the whole numbers around it.
func solutions(x float64) []float64 {
	if math.IsNaN(x) || math.IsInf(x, 0) || math.Abs(x) > 1<<53 {
		return nil
	}
	if x == math.Trunc(x) {
		return []float64{x}
	}
	return []float64{x, math.Floor(x), math.Ceil(x)}
}

// linearAt reads a comparison that starts at toks[i] and solves it for its
// column: [t.]col op k cmp n, k op [t.]col cmp n, n cmp [t.]col op k or n
// cmp k op [t.]col, with op one of + - * / and cmp a comparison; the
// column's name (lower case) and the value of col where both sides are
// equal. ok is false when toks[i] starts no such comparison, or op is
// the identity (col + 0, col * 1: the literal is the value, already in
// the pools). With plain, a bare column ([t.]col cmp n, n cmp [t.]col)
// is read too, its value n.
func (s *schema) linearAt(toks []sqllex.Token, i int, plain bool) (string, float64, bool) {
	left, j, ok := s.term(toks, i, plain)
	if !ok {
		return "", 0, false
	}
	cmp, k := operatorAt(toks, j)
	if cmp == "" {
		return "", 0, false
	}
	right, end, ok := s.term(toks, k, plain)
	if !ok || left.col == "" == (right.col == "") || end < len(toks) && isArith(toks[end].Text) {
		return "", 0, false
	}
	if i > 0 && isArith(toks[i-1].Text) {
		return "", 0, false // the comparison's left side is longer
	}
	t, n := left, right
	if t.col == "" {
		t, n = right, left
	}
	if n.arith || !t.arith && !t.bare {
		return "", 0, false
	}
	if t.bare {
		return t.col, n.k, true
	}
	x, ok := t.solve(n.k)
	return t.col, x, ok
}

// linear is one side of a comparison: a number k, or a column col
// combined with a number k by op (arith), with the column on the left
// unless colRight.
type linear struct {
	col      string
	op       string
	k        float64
	colRight bool
	arith    bool
	// bare: the column alone, without op and k (read only when asked).
	bare bool
}

// term reads one side at toks[i]: a number, or a column and a number
// joined by + - * / in either order, or with bare a column alone; it
// returns the index after it.
func (s *schema) term(toks []sqllex.Token, i int, bare bool) (linear, int, bool) {
	if n, j, ok := number(toks, i); ok {
		if j < len(toks) && isArith(toks[j].Text) {
			if col, e := s.columnRef(toks, j+1); col != "" {
				return linear{col: col, op: toks[j].Text, k: n, colRight: true, arith: true}, e, true
			}
		}
		return linear{k: n}, j, true
	}
	col, j := s.columnRef(toks, i)
	if col != "" && bare && (j >= len(toks) || !isArith(toks[j].Text)) {
		return linear{col: col, bare: true}, j, true
	}
	if col == "" || j >= len(toks) || !isArith(toks[j].Text) {
		return linear{}, 0, false
	}
	n, e, ok := number(toks, j+1)
	if !ok {
		return linear{}, 0, false
	}
	return linear{col: col, op: toks[j].Text, k: n, arith: true}, e, true
}

// solve returns the column's value where the term equals n.
func (t linear) solve(n float64) (float64, bool) {
	switch {
	case t.op == "+" && t.k != 0:
		return n - t.k, true
	case t.op == "-" && !t.colRight && t.k != 0:
		return n + t.k, true
	case t.op == "-" && t.colRight:
		return t.k - n, true
	case t.op == "*" && t.k != 0 && t.k != 1:
		return n / t.k, true
	case t.op == "/" && !t.colRight && t.k != 0 && t.k != 1:
		return n * t.k, true
	}
	return 0, false
}

// isArith reports whether w is + - * or /.
func isArith(w string) bool { return w == "+" || w == "-" || w == "*" || w == "/" }

// number reads a numeric literal at toks[i], with a leading minus sign.
func number(toks []sqllex.Token, i int) (float64, int, bool) {
	neg := false
	if i+1 < len(toks) && toks[i].Text == "-" && toks[i+1].Kind == sqllex.Number && (i == 0 || !isValueEnd(toks[i-1])) {
		neg, i = true, i+1
	}
	if i >= len(toks) || toks[i].Kind != sqllex.Number {
		return 0, i, false
	}
	f, err := strconv.ParseFloat(toks[i].Text, 64)
	if err != nil {
		return 0, i, false
	}
	if neg {
		f = -f
	}
	return f, i + 1, true
}

// isValueEnd reports whether t can end a value (so that a "-" after it
// is a minus, not a sign).
func isValueEnd(t sqllex.Token) bool {
	return t.Kind == sqllex.Number || t.Kind == sqllex.Word || t.Kind == sqllex.Quoted || t.Text == ")"
}

// columnRef reads [t.]col at toks[i], a column of some table of s; its
// name in lower case and the index after it ("" when there is none).
func (s *schema) columnRef(toks []sqllex.Token, i int) (string, int) {
	if i+2 < len(toks) && toks[i+1].Text == "." {
		i += 2
	}
	if i >= len(toks) || toks[i].Kind != sqllex.Word && toks[i].Kind != sqllex.Quoted {
		return "", i
	}
	n := catalog.UnquoteIdent(toks[i].Text)
	if !s.isColumn(n) {
		return "", i
	}
	return strings.ToLower(n), i + 1
}

// conditionDatabases returns PhaseConditions' databases, drawn with a
// random stream of their own: for each solved value, small databases in
// which one row of every table with a column of that name holds it in
// that column (the others drawn from the pools), at most
// maxConditionDatabases; none when the queries hold no such condition.
func (s *searcher) conditionDatabases(vals []solved) []Data {
	if len(vals) == 0 {
		return nil
	}
	g := *s.gen
	g.rng = rand.New(rand.NewPCG(uint64(s.o.Seed)^0x2545f4914f6cdd1d, seedOf(s.p)))
	var out []Data
	for round := 0; round < 4 && len(out) < maxConditionDatabases; round++ {
		for _, sv := range vals {
			if len(out) == maxConditionDatabases {
				break
			}
			if db := s.withValue(&g, sv); db != nil {
				out = append(out, db)
			}
		}
	}
	return out
}

// withValue draws a small database (g.small) whose tables with a column
// named sv.col hold at least two rows, the first with sv.v there,
// repaired; nil when the value does not fit the column or repairs drop
// it.
func (s *searcher) withValue(g *generator, sv solved) Data {
	db := g.small(3)
	placed := false
	for ti, t := range s.schema.Tables {
		ci := t.Col(sv.col)
		if ci < 0 {
			continue
		}
		v, ok := coerce(sv.v, t.Columns[ci])
		if !ok {
			continue
		}
		for len(db[ti]) < 2 {
			db[ti] = append(db[ti], g.row(g.newShape(), ti, db, newPlaced(s.schema)))
		}
		row := append([]result.Value(nil), db[ti][0]...)
		row[ci] = v
		db[ti][0] = row
		placed = true
	}
	if !placed {
		return nil
	}
	return s.schema.repair(db)
}
