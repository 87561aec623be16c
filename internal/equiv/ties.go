package equiv

import (
	"context"
	"strconv"
	"strings"

	"github.com/sqljudge/sqljudge/internal/prove/check"
	"github.com/sqljudge/sqljudge/internal/result"
	"github.com/sqljudge/sqljudge/internal/sqllex"
)

// withTiebreak returns q with every output column appended to its
// top-level ORDER BY by position (", 1, 2, …, ncols", before a top-level
// LIMIT, OFFSET or FETCH), so that rows tying on q's own sort keys come
// out in one order fixed by their values, not by the engine's scan or hash
// order. The result is one of the results q allows: the same rows in an
// order q accepts, or under a LIMIT the rows of one of its valid choices
// among ties. ok is false when q has no top-level ORDER BY, uses TOP, or
// has no columns.
func withTiebreak(q string, ncols int) (string, bool) {
	return withTiebreakOrder(q, positions(ncols, nil))
}

// Tiebroken returns q1 and q2 as the soundness fuzzer runs a pair proved
// up to ties (cert.Ties): each with every output column appended to its
// top-level ORDER BY (withTiebreak), q2's in the order of cert.Columns,
// so that both sort the rows that tie on their keys by the same values
// and give one result each, which the proof says are equal. ok is false
// when a query has no top-level ORDER BY or uses TOP (docs/equiv.md,
// "Order, ties and LIMIT").
func Tiebroken(q1, q2 string, cert *check.Certificate) (string, string, bool) {
	n := len(cert.Columns)
	a, ok1 := withTiebreak(q1, n)
	b, ok2 := withTiebreakOrder(q2, positions(n, cert.Columns))
	return a, b, ok1 && ok2
}

// positions returns the 1-based output positions a tiebreak appends:
// 1, 2, …, ncols, or, under a proof's column map (Certificate.Columns:
// output i of q1 is output perm[i] of q2), perm[0]+1, perm[1]+1, … for
// q2, so that q2's tied rows sort by the same values in the same order as
// q1's.
func positions(ncols int, perm []int) []int {
	out := make([]int, ncols)
	for i := range out {
		out[i] = i + 1
		if len(perm) == ncols {
			out[i] = perm[i] + 1
		}
	}
	return out
}

// withTiebreakOrder is withTiebreak appending the positions pos, in that
// order.
func withTiebreakOrder(q string, pos []int) (string, bool) {
	if len(pos) == 0 || !sqllex.TopLevelOrderBy(q) {
		return "", false
	}
	word, at := firstRowBound(q)
	if word == "TOP" {
		return "", false
	}
	cut := significantEnd(q)
	if word != "" {
		cut = significantEnd(q[:at])
	}
	var b strings.Builder
	b.WriteString(q[:cut])
	for _, i := range pos {
		b.WriteString(", ")
		b.WriteString(strconv.Itoa(i))
	}
	b.WriteString(q[cut:significantEnd(q)])
	return b.String(), true
}

// tiebreakAll returns q with a tiebreak (withTiebreak) on every ORDER BY
// that decides which rows are kept or in what order they come: each
// parenthesised SELECT that has its own ORDER BY and LIMIT, OFFSET, FETCH
// or TOP (its column count read by running it alone, cols), innermost
// first, and q's top-level ORDER BY (ncols columns). ok is false when such
// a subquery cannot be run alone (it is correlated, say) or uses TOP.
// The operand of EXISTS keeps its own ORDER BY … LIMIT as written (its
// subqueries are still tiebroken): EXISTS reads only whether a row is
// kept, and how many rows LIMIT and OFFSET keep does not depend on which.
func tiebreakAll(q string, ncols int, cols func(string) (int, error)) (string, bool) {
	return tiebreakAllOrder(q, positions(ncols, nil), cols)
}

// tiebreakAllOrder is tiebreakAll with the top-level ORDER BY's appended
// positions given (positions).
func tiebreakAllOrder(q string, top []int, cols func(string) (int, error)) (string, bool) {
	var b strings.Builder
	toks := sqllex.Tokenize(q)
	for i := 0; i < len(toks); i++ {
		b.WriteString(toks[i].Text)
		if toks[i].Text != "(" || !startsSelect(toks[i+1:]) {
			continue
		}
		j := closing(toks, i)
		var inner strings.Builder
		for _, t := range toks[i+1 : j] {
			inner.WriteString(t.Text)
		}
		sub := inner.String()
		n := 0
		if keepsRows(sub) && !existsOperand(toks[:i]) {
			var err error
			if n, err = cols(sub); err != nil {
				return "", false
			}
		}
		tb, ok := tiebreakAll(sub, n, cols)
		if !ok {
			return "", false
		}
		b.WriteString(tb)
		i = j - 1
	}
	out := b.String()
	if len(top) == 0 || !sqllex.TopLevelOrderBy(out) {
		return out, true
	}
	return withTiebreakOrder(out, top)
}

// existsOperand reports whether the last significant token of before
// (the tokens ahead of a "(") is EXISTS: the parenthesis opens EXISTS's
// operand.
func existsOperand(before []sqllex.Token) bool {
	for i := len(before) - 1; i >= 0; i-- {
		t := before[i]
		if t.Kind == sqllex.Space || t.Kind == sqllex.Comment {
			continue
		}
		return t.Kind == sqllex.Word && strings.EqualFold(t.Text, "EXISTS")
	}
	return false
}

// startsSelect reports whether the first significant token of toks is
// SELECT or WITH.
func startsSelect(toks []sqllex.Token) bool {
	for _, t := range toks {
		if t.Kind == sqllex.Space || t.Kind == sqllex.Comment {
			continue
		}
		return t.Kind == sqllex.Word && (strings.EqualFold(t.Text, "SELECT") || strings.EqualFold(t.Text, "WITH"))
	}
	return false
}

// closing returns the index of the ")" that closes the "(" at toks[i], or
// len(toks) when it is never closed.
func closing(toks []sqllex.Token, i int) int {
	depth := 0
	for j := i; j < len(toks); j++ {
		switch toks[j].Text {
		case "(":
			depth++
		case ")":
			depth--
			if depth == 0 {
				return j
			}
		}
	}
	return len(toks)
}

// keepsRows reports whether q orders its output at its own level and keeps
// only some rows (LIMIT, OFFSET, FETCH or TOP at that level): which rows it
// keeps among ties is then the engine's choice.
func keepsRows(q string) bool {
	if !sqllex.TopLevelOrderBy(q) {
		return false
	}
	word, _ := firstRowBound(q)
	return word != ""
}

// firstRowBound returns the first of LIMIT, OFFSET, FETCH and TOP that
// stands at q's own level (outside parentheses), upper-cased, and its byte
// offset in q; "" and -1 when there is none.
func firstRowBound(q string) (string, int) {
	depth, pos := 0, 0
	for _, t := range sqllex.Tokenize(q) {
		switch {
		case t.Text == "(":
			depth++
		case t.Text == ")":
			depth--
		case depth == 0 && t.Kind == sqllex.Word:
			switch w := strings.ToUpper(t.Text); w {
			case "LIMIT", "OFFSET", "FETCH", "TOP":
				return w, pos
			}
		}
		pos += len(t.Text)
	}
	return "", -1
}

// significantEnd returns the byte offset just past q's last token that is
// neither space, a comment nor ';'.
func significantEnd(q string) int {
	end, cut := 0, 0
	for _, t := range sqllex.Tokenize(q) {
		end += len(t.Text)
		if t.Kind != sqllex.Space && t.Kind != sqllex.Comment && t.Text != ";" {
			cut = end
		}
	}
	return cut
}

// tiesExplain reports whether the difference between the two results r
// on db can be the engine's choice among rows that tie on a query's sort
// keys rather than the queries' doing. Each query that orders its output
// at the top level is run with every output column appended to its ORDER
// BY (withTiebreak), which gives one of the results it allows; if the two
// then agree, some valid choice among ties makes them equal and db proves
// nothing. A difference of order alone (the same rows) is also explained
// when either query does not order its output at the top level (its order
// is unspecified), and any difference is when a tiebroken query fails.
// Under a proof up to ties, q2's tiebreak follows the proof's column map
// (positions), so both sort their tied rows by the same values; without
// one, under the spider rule (columns paired in any order), every order of
// q2's columns (at most maxTiePermColumns) is tried as its tiebreak.
// Subqueries that keep some rows of an ordered result (ORDER BY … LIMIT)
// are tiebroken too (tiebreakAll); one that cannot be run alone (a
// correlated one) explains any difference, so no witness rests on it.
func (s *searcher) tiesExplain(ctx context.Context, db Data, r [2]*result.Set) bool {
	orderOnly := sameBag(r[0], r[1])
	d := s.o.Sandbox.Dialect()
	if err := s.sc.Load(ctx, s.schema.tableRows(d, db)); err != nil {
		return true
	}
	// A subquery's column count, run once each: the column orders tried
	// for q2 below tiebreak the same subqueries again.
	ncols := map[string]int{}
	cols := func(sub string) (int, error) {
		if n, ok := ncols[sub]; ok {
			return n, nil
		}
		set, err := s.query(ctx, sub)
		if err != nil {
			return 0, err
		}
		ncols[sub] = len(set.Columns)
		return len(set.Columns), nil
	}
	qs := [2]string{s.p.Q1, s.p.Q2}
	for i := range qs {
		if orderOnly && !sqllex.TopLevelOrderBy(qs[i]) {
			return true
		}
		var perm []int
		if i == 1 && s.proof != nil && s.proof.Ties {
			perm = s.proof.Columns // q2's tied rows sorted as q1's
		}
		tb, ok := tiebreakAllOrder(qs[i], positions(len(r[i].Columns), perm), cols)
		if !ok {
			return true
		}
		qs[i] = tb
	}
	a, err := s.query(ctx, qs[0])
	if err != nil {
		return true
	}
	b, err := s.query(ctx, qs[1])
	if err != nil {
		return true
	}
	if s.cmp.equal(ctx, a, b) {
		return true
	}
	n := len(r[1].Columns)
	if s.o.Rule != RuleSpider || s.proof != nil && s.proof.Ties || n < 2 || n > maxTiePermColumns || !sqllex.TopLevelOrderBy(s.p.Q2) {
		return false
	}
	// Under Spider's match the columns may pair in another order, so q2's
	// positional tiebreak may break a tie on another column than q1's:
	// each other order of q2's columns is one more of its valid choices.
	for _, perm := range permutations(n)[1:] {
		tb, ok := tiebreakAllOrder(s.p.Q2, positions(n, perm), cols)
		if !ok {
			return true
		}
		b, err := s.query(ctx, tb)
		if err != nil {
			return true
		}
		if s.cmp.equal(ctx, a, b) {
			return true
		}
	}
	return false
}

// maxTiePermColumns is the most output columns whose orders tiesExplain
// tries for q2's tiebreak under the spider rule (4! = 24 queries at most,
// run only on a difference the reversed rows confirm); with more, q2 is
// tiebroken by position alone, and a tie it breaks on another column
// than q1 may still count as a difference.
const maxTiePermColumns = 4

// permutations returns every order of 0 … n-1, the identity first, then
// in lexicographic order.
func permutations(n int) [][]int {
	var out [][]int
	cur := make([]int, 0, n)
	used := make([]bool, n)
	var rec func()
	rec = func() {
		if len(cur) == n {
			out = append(out, append([]int(nil), cur...))
			return
		}
		for i := 0; i < n; i++ {
			if !used[i] {
				used[i] = true
				cur = append(cur, i)
				rec()
				cur = cur[:len(cur)-1]
				used[i] = false
			}
		}
	}
	rec()
	return out
}
