package index

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"flag"
	"fmt"
	"math/rand"
	"os"
	"slices"
	"strings"
	"testing"
)

// writeEntityCases regenerates testdata/entity_cases.json, the input of
// testdata/oracle/retrieve_entity.py.
var writeEntityCases = flag.Bool("write-entity-cases", false, "write testdata/entity_cases.json for the retrieve_entity oracle")

// lshCandidate is one LSH candidate of a search string, as the oracle's
// stand-in for datasketch returns it.
type lshCandidate struct {
	Key        string  `json:"key"`
	Table      string  `json:"table"`
	Column     string  `json:"column"`
	Value      string  `json:"value"`
	Similarity float64 `json:"similarity"`
}

// entityCase is one call of retrieve_entity: the keywords, the schema, and
// for each string searched, the LSH's candidates (in index order) with
// their estimated Jaccard similarity; candidates that cannot enter the top
// LSHTopN are left out.
type entityCase struct {
	DBID     string                    `json:"db_id"`
	Question string                    `json:"question"`
	Keywords []string                  `json:"keywords"`
	Schema   [][2]any                  `json:"schema"` // [table, [columns]] in order
	LSH      map[string][]lshCandidate `json:"lsh"`
}

// entityExpected is the oracle's answer for one case.
type entityExpected struct {
	SimilarColumns map[string][]string            `json:"similar_columns"`
	SimilarValues  map[string]map[string][]string `json:"similar_values"`
}

// candidates returns every LSH candidate of s with a similarity at least
// that of the LSHTopN-th best, in index order.
func (ix *Index) candidates(s string) []lshCandidate {
	q := ix.hash.signature(ix.fold(s))
	ids := ix.lsh.query(q)
	sims := make([]float64, len(ids))
	for i, id := range ids {
		sims[i] = jaccard(q, ix.sigs[id])
	}
	sorted := slices.Clone(sims)
	slices.Sort(sorted)
	slices.Reverse(sorted)
	floor := 0.0
	if len(sorted) > LSHTopN {
		floor = sorted[LSHTopN-1]
	}
	var out []lshCandidate
	for i, id := range ids {
		if sims[i] < floor {
			continue
		}
		r := ix.refs[id]
		t := ix.data.Tables[r.t]
		out = append(out, lshCandidate{
			Key: fmt.Sprintf("%d_%d_%d", r.t, r.c, r.v), Table: t.Name, Column: t.Columns[r.c].Name,
			Value: t.Columns[r.c].Values[r.v], Similarity: sims[i],
		})
	}
	return out
}

// entityCases makes retrieve_entity calls from the first 80 misspelled
// literals of the recall test: the misspelled mention, "column = value",
// the question's first two words of four letters or more, and
// "column (table)".
func entityCases(t *testing.T, idx map[string]*Index) []entityCase {
	dev := readDev(t)
	cases := recallCases(t, idx)
	r := rand.New(rand.NewSource(7))
	var out []entityCase
	for _, c := range cases[:80] {
		ix := idx[c.db]
		table, column := "", ""
		for _, tb := range ix.data.Tables {
			for _, col := range tb.Columns {
				if _, ok := slices.BinarySearch(col.Values, c.value); ok && table == "" {
					table, column = tb.Name, col.Name
				}
			}
		}
		var words []string
		for _, w := range strings.Fields(dev[c.item].Question) {
			if len(w) >= 4 && len(words) < 2 {
				words = append(words, strings.Trim(w, "?,.'\""))
			}
		}
		kw := []string{c.typed, column + " = " + c.value, strings.Join(words, " "), strings.ToLower(column) + " (" + table + ")"}
		if r.Intn(2) == 0 {
			kw = append(kw, c.typed) // a repeated keyword
		}
		ec := entityCase{DBID: c.db, Question: dev[c.item].Question, Keywords: kw, LSH: map[string][]lshCandidate{}}
		for _, st := range ix.data.Schema {
			ec.Schema = append(ec.Schema, [2]any{st.Name, st.Columns})
		}
		for _, s := range searchStrings(kw) {
			ec.LSH[s.substring] = ix.candidates(s.substring)
		}
		out = append(out, ec)
	}
	return out
}

// TestRetrieveEntitiesMatchesOfficial compares RetrieveEntities with the
// official retrieve_entity.py (ShayanTalaei/CHESS, RetrieveEntity's
// _get_similar_columns and _get_similar_entities, run unmodified by
// testdata/oracle/retrieve_entity.py) on 80 calls over Spider dev
// databases, given the same LSH candidates and the same embeddings
// (llmtest.Embedding, ported to Python in the oracle). Values are compared
// as sets per column (we list a value once, CHESS once per substring that
// found it); columns as sets (CHESS's order is a set's).
func TestRetrieveEntitiesMatchesOfficial(t *testing.T) {
	idx := openDevIndexes(t, Options{TextAffinity: true})
	cases := entityCases(t, idx)
	if *writeEntityCases {
		b, err := json.Marshal(cases)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile("testdata/entity_cases.json", append(b, '\n'), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	b, err := os.ReadFile("testdata/entity_expected.json")
	if err != nil {
		t.Fatal(err)
	}
	var want []entityExpected
	if err := json.Unmarshal(b, &want); err != nil {
		t.Fatal(err)
	}
	if len(want) != len(cases) {
		t.Fatalf("%d expected answers for %d cases", len(want), len(cases))
	}
	emb := &localEmbedder{}
	nonEmpty := 0
	for i, c := range cases {
		got, err := idx[c.DBID].RetrieveEntities(context.Background(), c.Keywords, emb)
		if err != nil {
			t.Fatal(err)
		}
		w := want[i]
		for tb, cols := range w.SimilarColumns {
			slices.Sort(cols)
			g := slices.Clone(got.SimilarColumns[tb])
			slices.Sort(g)
			if !slices.Equal(g, cols) {
				t.Errorf("case %d %v: similar columns of %s = %v, official %v", i, c.Keywords, tb, g, cols)
			}
		}
		if len(got.SimilarColumns) != len(w.SimilarColumns) {
			t.Errorf("case %d %v: similar columns %v, official %v", i, c.Keywords, got.SimilarColumns, w.SimilarColumns)
		}
		if len(got.SimilarValues) != len(w.SimilarValues) {
			t.Errorf("case %d %v: values %v, official %v", i, c.Keywords, got.SimilarValues, w.SimilarValues)
			continue
		}
		for tb, cols := range w.SimilarValues {
			if len(got.SimilarValues[tb]) != len(cols) {
				t.Errorf("case %d %v: values of %s %v, official %v", i, c.Keywords, tb, got.SimilarValues[tb], cols)
				continue
			}
			for col, vals := range cols {
				vals = slices.Compact(slices.Sorted(slices.Values(vals)))
				g := slices.Sorted(slices.Values(got.SimilarValues[tb][col]))
				if !slices.Equal(g, vals) {
					t.Errorf("case %d %v: values of %s.%s = %q, official %q", i, c.Keywords, tb, col, g, vals)
				}
				nonEmpty++
			}
		}
	}
	if nonEmpty < 80 {
		t.Errorf("only %d columns with values: the comparison is too thin", nonEmpty)
	}
}

// TestValuesMatchOfficial compares the indexed values of the 20 Spider dev
// databases, with the default Options (CHESS's own column rule), with
// those of the official _get_unique_values (testdata/unique_values.json,
// made by testdata/oracle/unique_values.py): the same columns, and per
// column the same count and SHA-256 of the sorted distinct values. It also
// reports how many more columns the default TEXT-affinity rule indexes.
func TestValuesMatchOfficial(t *testing.T) {
	b, err := os.ReadFile("testdata/unique_values.json")
	if err != nil {
		t.Fatal(err)
	}
	var want map[string]map[string]struct {
		Count  int    `json:"count"`
		SHA256 string `json:"sha256"`
	}
	if err := json.Unmarshal(b, &want); err != nil {
		t.Fatal(err)
	}
	literal := openDevIndexes(t, Options{})
	affinity := openDevIndexes(t, Options{TextAffinity: true})
	if len(literal) != len(want) {
		t.Fatalf("%d databases, official %d", len(literal), len(want))
	}
	cols, values, extra, extraValues := 0, 0, 0, 0
	for db, ix := range literal {
		got := map[string]bool{}
		for _, tb := range ix.data.Tables {
			for _, c := range tb.Columns {
				key := tb.Name + "." + c.Name
				got[key] = true
				w, ok := want[db][key]
				if !ok {
					t.Errorf("%s: %s indexed, not by CHESS", db, key)
					continue
				}
				h := sha256.Sum256([]byte(strings.Join(c.Values, "\x00")))
				if len(c.Values) != w.Count || hex.EncodeToString(h[:]) != w.SHA256 {
					t.Errorf("%s: %s has %d values, CHESS %d (or other values)", db, key, len(c.Values), w.Count)
				}
				cols++
				values += len(c.Values)
			}
		}
		for key := range want[db] {
			if !got[key] {
				t.Errorf("%s: %s indexed by CHESS, not by us", db, key)
			}
		}
		extra += affinity[db].Stats().Columns - ix.Stats().Columns
		extraValues += affinity[db].Stats().Values - ix.Stats().Values
	}
	t.Logf("%d columns and %d values as CHESS indexes them; the TEXT-affinity rule adds %d columns and %d values (CHAR, VARCHAR, lower-case text)", cols, values, extra, extraValues)
	if cols < 50 {
		t.Errorf("only %d columns compared", cols)
	}
}
