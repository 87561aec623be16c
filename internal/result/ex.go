package result

import (
	"hash/fnv"
	"slices"
	"strings"
)

// SpiderEqual reports whether the predicted result equals the gold result
// under the execution-match semantics of Spider's official test-suite
// evaluator (taoyds/test-suite-sql-eval, exec_eval.py, result_eq(gold, pred,
// order_matters)):
//
//   - both results empty: equal;
//   - different row counts, or different column counts of the first rows:
//     not equal;
//   - the quick rejection of exec_eval.quick_rej: each row's cells sorted by
//     str(x)+str(type(x)) (unorder_row); with order_matters the sorted rows
//     must be equal as lists, otherwise as sets. This keeps the official
//     quirk that int and float cells can sort differently ("1.5" sorts
//     before "1", "1.0" after), so (1, 1.5) and (1.0, 1.5) are rejected;
//   - then some permutation of the predicted columns must make the rows
//     equal: as lists when order matters, as multisets (bags) otherwise.
//
// Cells compare with Python ==: 1 == 1.0, '1' != 1, None == None, no float
// tolerance. The official code narrows the permutations with 20 random rows
// (get_constraint_permutation); that pruning is sound, so the verdict is the
// same as the exhaustive search done here, which prunes with the multiset of
// each column instead (also sound) and is deterministic.
func SpiderEqual(gold, pred *Set, orderMatters bool) bool {
	g, p := gold.Rows, pred.Rows
	if len(g) == 0 && len(p) == 0 {
		return true
	}
	if len(g) != len(p) {
		return false
	}
	n := len(g[0])
	if len(p[0]) != n {
		return false
	}
	if !quickRej(g, p, orderMatters) {
		return false
	}
	if n == 1 {
		return rowsEqual(g, p, []int{0}, orderMatters)
	}
	return findPermutation(g, p, orderMatters)
}

// unorderRow returns the row with its cells sorted by Python's
// str(x) + str(type(x)) (exec_eval.unorder_row). The sort is stable, as
// Python's sorted.
func unorderRow(row []Value) []Value {
	if len(row) < 2 {
		return row
	}
	type keyed struct {
		k string
		v Value
	}
	ks := make([]keyed, len(row))
	for i, v := range row {
		ks[i] = keyed{PyStr(v) + PyTypeStr(v), v}
	}
	slices.SortStableFunc(ks, func(a, b keyed) int { return strings.Compare(a.k, b.k) })
	out := make([]Value, len(row))
	for i := range ks {
		out[i] = ks[i].v
	}
	return out
}

// quickRej is exec_eval.quick_rej: a necessary condition for equality.
// It returns false when the results are certainly different.
func quickRej(g, p [][]Value, orderMatters bool) bool {
	if orderMatters {
		for i := range g {
			if RowKey(unorderRow(g[i])) != RowKey(unorderRow(p[i])) {
				return false
			}
		}
		return true
	}
	gs := make(map[string]struct{}, len(g))
	for _, r := range g {
		gs[RowKey(unorderRow(r))] = struct{}{}
	}
	ps := make(map[string]struct{}, len(p))
	for _, r := range p {
		k := RowKey(unorderRow(r))
		if _, ok := gs[k]; !ok {
			return false
		}
		ps[k] = struct{}{}
	}
	return len(gs) == len(ps)
}

// columnSignature hashes the multiset of a column's values: the sum of the
// values' hashes, which does not depend on row order. Equal multisets have
// equal signatures; a collision only lets an impossible permutation be
// tried, never rules a possible one out.
func columnSignature(rows [][]Value, col int) uint64 {
	var sum uint64
	var buf [32]byte
	for _, r := range rows {
		h := fnv.New64a()
		h.Write(AppendKey(buf[:0], r[col]))
		sum += h.Sum64()
	}
	return sum
}

// findPermutation searches for a permutation perm of the predicted columns
// (gold column i <- predicted column perm[i]) that makes the results equal.
func findPermutation(g, p [][]Value, orderMatters bool) bool {
	n := len(g[0])
	gsig := make([]uint64, n)
	psig := make([]uint64, n)
	for i := 0; i < n; i++ {
		gsig[i] = columnSignature(g, i)
		psig[i] = columnSignature(p, i)
	}
	// Predicted columns identical to an earlier one are interchangeable:
	// try them in index order only.
	sameAs := make([]int, n)
	for j := 0; j < n; j++ {
		sameAs[j] = -1
		for k := 0; k < j; k++ {
			if psig[k] == psig[j] && columnsIdentical(p, k, j) {
				sameAs[j] = k
				break
			}
		}
	}
	var goldBag map[string]int
	if !orderMatters {
		goldBag = make(map[string]int, len(g))
		for _, r := range g {
			goldBag[RowKey(r)]++
		}
	}
	perm := make([]int, n)
	used := make([]bool, n)
	var try func(i int) bool
	try = func(i int) bool {
		if i == n {
			if orderMatters {
				return rowsEqual(g, p, perm, true)
			}
			return bagEqual(goldBag, p, perm)
		}
		for j := 0; j < n; j++ {
			if used[j] || psig[j] != gsig[i] {
				continue
			}
			if s := sameAs[j]; s >= 0 && !used[s] {
				continue
			}
			used[j] = true
			perm[i] = j
			if try(i + 1) {
				return true
			}
			used[j] = false
		}
		return false
	}
	return try(0)
}

func columnsIdentical(rows [][]Value, a, b int) bool {
	for _, r := range rows {
		if r[a].Key() != r[b].Key() {
			return false
		}
	}
	return true
}

func permuted(row []Value, perm []int) []Value {
	out := make([]Value, len(perm))
	for i, j := range perm {
		out[i] = row[j]
	}
	return out
}

// rowsEqual compares gold rows with permuted predicted rows, position by
// position when ordered, else as multisets.
func rowsEqual(g, p [][]Value, perm []int, ordered bool) bool {
	if !ordered {
		bag := make(map[string]int, len(g))
		for _, r := range g {
			bag[RowKey(r)]++
		}
		return bagEqual(bag, p, perm)
	}
	for r := range g {
		for i, j := range perm {
			if !Equal(g[r][i], p[r][j]) {
				return false
			}
		}
	}
	return true
}

func bagEqual(goldBag map[string]int, p [][]Value, perm []int) bool {
	left := make(map[string]int, len(goldBag))
	for k, c := range goldBag {
		left[k] = c
	}
	for _, r := range p {
		k := RowKey(permuted(r, perm))
		c := left[k]
		if c == 0 {
			return false
		}
		left[k] = c - 1
	}
	return true
}
