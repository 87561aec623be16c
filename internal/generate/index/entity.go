package index

import (
	"cmp"
	"context"
	"fmt"
	"math"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/pmezard/go-difflib/difflib"
)

// Entities is what CHESS's retrieve_entity tool adds to the system state.
type Entities struct {
	// SimilarColumns maps a table to its columns whose names match a
	// keyword (state.similar_columns), columns in schema order.
	SimilarColumns map[string][]string `json:"similar_columns"`
	// SimilarValues maps a table and a column to the database values
	// similar to a keyword (state.schema_with_examples), in retrieval
	// order, each once.
	SimilarValues map[string]map[string][]string `json:"similar_values"`
}

// ratio is Python's difflib.SequenceMatcher(None, a, b).ratio() over code
// points (github.com/pmezard/go-difflib, a port of difflib that keeps its
// junk heuristic for sequences of 200 elements or more).
func ratio(a, b string) float64 {
	return difflib.NewMatcher(splitRunes(a), splitRunes(b)).Ratio()
}

func splitRunes(s string) []string {
	out := make([]string, 0, len(s))
	for _, r := range s {
		out = append(out, string(r))
	}
	return out
}

// columnValue splits "column = value" at its first "=" (CHESS's
// _column_value); ok is false without one.
func columnValue(s string) (column, value string, ok bool) {
	i := strings.IndexByte(s, '=')
	if i < 0 {
		return "", "", false
	}
	return strings.TrimSpace(s[:i]), strings.TrimSpace(s[i+1:]), true
}

// parentheses returns every balanced "(...)" of s, parentheses included,
// innermost first (CHESS's _extract_paranthesis).
func parentheses(s string) []string {
	var out []string
	var open []int
	for i, r := range s {
		switch {
		case r == '(':
			open = append(open, i)
		case r == ')' && len(open) > 0:
			start := open[len(open)-1]
			open = open[:len(open)-1]
			out = append(out, s[start:i+1])
		}
	}
	return out
}

// normColumn is CHESS's normalisation for matching keywords and column
// names: lower-cased, spaces and underscores removed, trailing "s" removed.
func normColumn(s string) string {
	s = strings.ToLower(s)
	s = strings.ReplaceAll(strings.ReplaceAll(s, " ", ""), "_", "")
	return strings.TrimRight(s, "s")
}

// similarColumns is CHESS's _get_similar_columns without the embedding
// request (whose order list(set(...)) discards): every column of the
// schema whose normalised name has a difflib ratio of at least
// ColumnMatchThreshold with a normalised candidate name, where the
// candidates of a keyword are the keyword, the column part of
// "column = value", its parenthesised parts and, if it has spaces, its
// words.
func (ix *Index) similarColumns(keywords []string) map[string][]string {
	var cands []string
	for _, k := range keywords {
		k = strings.TrimSpace(k)
		cands = append(cands, k)
		if c, _, ok := columnValue(k); ok && c != "" {
			cands = append(cands, c)
		}
		cands = append(cands, parentheses(k)...)
		if strings.Contains(k, " ") {
			cands = append(cands, strings.Fields(k)...)
		}
	}
	norm := make([]string, len(cands))
	for i, c := range cands {
		norm[i] = normColumn(c)
	}
	out := map[string][]string{}
	for _, t := range ix.data.Schema {
		for _, col := range t.Columns {
			nc := normColumn(col)
			for _, k := range norm {
				if ratio(nc, k) >= ColumnMatchThreshold {
					if !slices.Contains(out[t.Name], col) {
						out[t.Name] = append(out[t.Name], col)
					}
					break
				}
			}
		}
	}
	return out
}

// searchString is one string searched for a keyword.
type searchString struct{ keyword, substring string }

// searchStrings is CHESS's _get_to_search_values: each keyword (trimmed),
// for each space in it the parts before and after that space, and the
// value part of "column = value"; sorted by keyword, length in code points
// and substring, all descending.
func searchStrings(keywords []string) []searchString {
	var out []searchString
	for _, k := range keywords {
		k = strings.TrimSpace(k)
		out = append(out, searchString{k, k})
		if strings.Contains(k, " ") {
			for i := 0; i < len(k); i++ {
				if k[i] == ' ' {
					out = append(out, searchString{k, k[:i]}, searchString{k, k[i+1:]})
				}
			}
		}
		if _, v, ok := columnValue(k); ok && v != "" {
			out = append(out, searchString{k, v})
		}
	}
	slices.SortStableFunc(out, func(a, b searchString) int {
		if c := cmp.Compare(b.keyword, a.keyword); c != 0 {
			return c
		}
		if c := cmp.Compare(utf8.RuneCountInString(b.substring), utf8.RuneCountInString(a.substring)); c != 0 {
			return c
		}
		return cmp.Compare(b.substring, a.substring)
	})
	return out
}

// entity is one candidate value for a searched string.
type entity struct {
	searchString
	value      string
	editSim    float64
	embedSim   float64
	table, col string
}

// RetrieveEntities is CHESS's retrieve_entity tool for keywords extracted
// from a question and its hint:
//
//   - SimilarColumns: see similarColumns (no request);
//   - SimilarValues: for each search string of the keywords (each keyword,
//     its parts around each space, the value of "column = value"), the
//     LSHTopN values of the LSH by estimated Jaccard similarity of
//     character 3-grams; of those, the ones whose difflib ratio with the
//     search string (both lower-cased) is at least EditDistanceThreshold;
//     of those, the ones whose embedding has a cosine similarity with the
//     search string's of at least EmbeddingSimilarityThreshold; then, per
//     column, the values within 90% of the column's best ratio, and of
//     those the ones within 90% of the best embedding similarity.
//
// The embeddings are one emb.Embed call with the distinct search strings
// and values (none when no value passes the ratio filter; CHESS sends
// one request with repeats). emb may be nil only when no embedding is
// needed. Errors are emb's or ctx's.
func (ix *Index) RetrieveEntities(ctx context.Context, keywords []string, emb Embedder) (Entities, error) {
	ents := Entities{SimilarColumns: ix.similarColumns(keywords), SimilarValues: map[string]map[string][]string{}}
	cands, err := ix.valueCandidates(ctx, keywords)
	if err != nil {
		return Entities{}, err
	}
	if len(cands) == 0 {
		return ents, nil
	}
	if emb == nil {
		return Entities{}, fmt.Errorf("%w: no embedder for entity retrieval", ErrIndex)
	}
	kept, err := keepEmbedSimilar(ctx, emb, cands)
	if err != nil {
		return Entities{}, err
	}
	// group by table and column in order of first appearance
	type tc struct{ t, c string }
	var order []tc
	byCol := map[tc][]entity{}
	for _, e := range kept {
		k := tc{e.table, e.col}
		if _, ok := byCol[k]; !ok {
			order = append(order, k)
		}
		byCol[k] = append(byCol[k], e)
	}
	for _, k := range order {
		if ents.SimilarValues[k.t] == nil {
			ents.SimilarValues[k.t] = map[string][]string{}
		}
		ents.SimilarValues[k.t][k.c] = bestOfColumn(byCol[k])
	}
	return ents, nil
}

// valueCandidates returns, for each search string of keywords in order,
// the values the LSH (and the short-value scan) finds for it, grouped as
// CHESS's query_lsh returns them, whose difflib ratio with the search
// string (both lower-cased) is at least EditDistanceThreshold. Errors are
// ctx's.
func (ix *Index) valueCandidates(ctx context.Context, keywords []string) ([]entity, error) {
	var cands []entity
	for _, s := range searchStrings(keywords) {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		hits := ix.queryLSH(s.substring)
		for _, h := range ix.scanShort(s.substring) {
			if !slices.ContainsFunc(hits, func(x lshHit) bool { return x.ref == h.ref }) {
				hits = append(hits, h)
			}
		}
		// CHESS groups the top hits by table, then column, in order of
		// first appearance (query_lsh's dict), and reads them back so.
		groups := groupHits(ix, hits)
		lowSub := strings.ToLower(s.substring)
		for _, h := range groups {
			t := ix.data.Tables[h.ref.t]
			c := t.Columns[h.ref.c]
			v := c.Values[h.ref.v]
			r := ratio(lowSub, strings.ToLower(v))
			if r >= EditDistanceThreshold {
				cands = append(cands, entity{searchString: s, value: v, editSim: r, table: t.Name, col: c.Name})
			}
		}
	}
	return cands, nil
}

// keepEmbedSimilar embeds the distinct search strings and values of cands
// in one emb.Embed call, sets each candidate's embedSim (the cosine
// similarity of its value with its search string), and keeps, in order,
// those at least EmbeddingSimilarityThreshold. Errors are emb's or ctx's.
func keepEmbedSimilar(ctx context.Context, emb Embedder, cands []entity) ([]entity, error) {
	var texts []string
	seen := map[string]int{}
	add := func(s string) {
		if _, ok := seen[s]; !ok {
			seen[s] = len(texts)
			texts = append(texts, s)
		}
	}
	for _, e := range cands {
		add(e.substring)
		add(e.value)
	}
	vecs, err := embedUnit(ctx, emb, texts)
	if err != nil {
		return nil, err
	}
	var kept []entity
	for _, e := range cands {
		e.embedSim = dot(vecs[seen[e.substring]], vecs[seen[e.value]])
		if e.embedSim >= EmbeddingSimilarityThreshold {
			kept = append(kept, e)
		}
	}
	return kept, nil
}

// bestOfColumn returns the distinct values, in order, of one column's
// candidates es within 90% of the best edit ratio and, of those, within
// 90% of the best embedding similarity.
func bestOfColumn(es []entity) []string {
	maxEdit := 0.0
	for _, e := range es {
		maxEdit = math.Max(maxEdit, e.editSim)
	}
	es = slices.DeleteFunc(slices.Clone(es), func(e entity) bool { return e.editSim < 0.9*maxEdit })
	maxEmb := math.Inf(-1)
	for _, e := range es {
		maxEmb = math.Max(maxEmb, e.embedSim)
	}
	var vals []string
	for _, e := range es {
		if e.embedSim >= 0.9*maxEmb && !slices.Contains(vals, e.value) {
			vals = append(vals, e.value)
		}
	}
	return vals
}

// groupHits reorders LSH hits as CHESS's query_lsh returns them: grouped by
// table in order of first appearance, then by column likewise, each
// group's values in similarity order.
func groupHits(ix *Index, hits []lshHit) []lshHit {
	var tables []int
	cols := map[int][]int{}
	vals := map[[2]int][]lshHit{}
	for _, h := range hits {
		if _, ok := cols[h.ref.t]; !ok {
			tables = append(tables, h.ref.t)
			cols[h.ref.t] = nil
		}
		k := [2]int{h.ref.t, h.ref.c}
		if _, ok := vals[k]; !ok {
			cols[h.ref.t] = append(cols[h.ref.t], h.ref.c)
		}
		vals[k] = append(vals[k], h)
	}
	out := make([]lshHit, 0, len(hits))
	for _, t := range tables {
		for _, c := range cols[t] {
			out = append(out, vals[[2]int{t, c}]...)
		}
	}
	return out
}

// embedUnit embeds texts and scales each vector to unit length (a zero
// vector stays zero).
func embedUnit(ctx context.Context, emb Embedder, texts []string) ([][]float32, error) {
	vecs, err := emb.Embed(ctx, texts)
	if err != nil {
		return nil, err
	}
	if len(vecs) != len(texts) {
		return nil, fmt.Errorf("%w: the embedder returned %d vectors for %d texts", ErrIndex, len(vecs), len(texts))
	}
	out := make([][]float32, len(vecs))
	for i, v := range vecs {
		if i > 0 && len(v) != len(vecs[0]) {
			return nil, fmt.Errorf("%w: the embedder returned vectors of lengths %d and %d", ErrIndex, len(vecs[0]), len(v))
		}
		var n float64
		for _, x := range v {
			n += float64(x) * float64(x)
		}
		u := make([]float32, len(v))
		if n > 0 {
			n = math.Sqrt(n)
			for j, x := range v {
				u[j] = float32(float64(x) / n)
			}
		}
		out[i] = u
	}
	return out, nil
}

// dot is the dot product of two vectors of equal length.
func dot(a, b []float32) float64 {
	var s float64
	for i := range a {
		s += float64(a[i]) * float64(b[i])
	}
	return s
}
