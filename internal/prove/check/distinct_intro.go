package check

import (
	"slices"

	"github.com/sqljudge/sqljudge/internal/sqlast"
)

// RuleDistinctIntro: SELECT … FROM … returns no duplicate row when its
// outputs determine a key of every FROM item, so SELECT DISTINCT … is the
// same query: distinct_key read backwards, where FROM subqueries have
// keys. A FROM subquery's key (distinctIntroKey):
//
//   - one that groups, its GROUP BY terms when each is a column of the
//     schema that the subquery also outputs as it is: one row per group,
//     groups told apart by the terms under their columns' own
//     comparison, NULL a value like any other (GROUP BY puts the NULLs
//     in one group);
//   - one that is SELECT DISTINCT, all its outputs, each a column of
//     the schema: DISTINCT told its rows apart under the same
//     comparisons;
//   - one that aggregates without GROUP BY, the empty key: at most one
//     row.
//
// Such a key needs no NOT NULL and no fact: it is what the subquery's
// text says, re-read when the step is checked. The FROM subquery is read
// as a table whose columns carry the schema columns' kinds (as
// opaqueTable reads it for a comparison); facts of those columns (their
// family, for the equalities that determine a key) are listed as facts
// of the schema's columns. A base table needs a NOT NULL key, as for
// distinct_key. Then a rule that merges FROM subqueries under DISTINCT
// (group_derived, distinct_derived) may apply: Calcite's
// AggregateJoinTransposeRule writes `(SELECT a FROM t GROUP BY a) AS x
// JOIN (SELECT b FROM u GROUP BY b) AS y ON x.a = y.b` for `SELECT t.a,
// u.b FROM t JOIN u ON t.a = u.b GROUP BY t.a, u.b`. Not: a SELECT that
// is DISTINCT, groups, aggregates, has a window, an ORDER BY or a LIMIT,
// or reads no FROM subquery; an outer join (the block refuses it). At:
// the SELECT.
const RuleDistinctIntro = "distinct_intro"

func init() { rules[RuleDistinctIntro] = distinctIntro }

func distinctIntro(c *Canon, at int, facts *factSet) error {
	sq, ok := nodeAt[*sqlast.SelectQuery](c, at)
	if !ok || sq.Distinct != sqlast.DistinctNone {
		return refuse("rule", "no SELECT without DISTINCT at %d", at)
	}
	if len(sq.GroupBy) > 0 || sq.Having != nil || len(sq.Windows) > 0 || len(sq.OrderBy) > 0 || sq.Limit != nil {
		return refuse("rule", "the SELECT groups, has a window, an ORDER BY or a LIMIT")
	}
	var derived []*occurrence
	for _, t := range sq.From {
		if t.Alias == nil {
			return refuse("FROM item", "%s", sqlast.Format(t))
		}
		o := c.byAlias[lowerASCII(t.Alias.Name)]
		if o == nil {
			return refuse("FROM item", "%s", sqlast.Format(t))
		}
		if o.derived != nil && o.table == nil {
			derived = append(derived, o)
		}
	}
	if len(derived) == 0 {
		return refuse("rule", "no FROM subquery")
	}
	k := &kernel{c1: c, synth: map[string]synthTable{}}
	// The subqueries are read as tables for this step only.
	defer func() {
		for _, o := range derived {
			o.table = nil
		}
	}()
	for _, o := range derived {
		name := "(subquery " + o.alias + ")"
		if c.s.Table(name) != nil {
			return refuse("derived table", "the schema has a table named %s", name)
		}
		t, src, err := c.opaqueTable(o, name)
		if err != nil {
			return err
		}
		key, ok := distinctIntroKey(c, o, src)
		if !ok {
			return refuse("rule", "the FROM subquery %s has no key: it neither groups by columns it outputs, nor is DISTINCT over columns, nor aggregates without GROUP BY", o.alias)
		}
		t.Keys = []Key{key}
		k.synth[name] = synthTable{table: t, src: src}
		o.table = t
	}
	b, err := blockOfCore(c, sq)
	if err != nil {
		return err
	}
	if b.aggregate || b.scalarAggregate() {
		return refuse("rule", "the SELECT aggregates")
	}
	d := newDeps(c, b)
	in := d.closure(d.plainColumns(b.outputs))
	for _, o := range b.occs {
		if !d.keyed(o, in) {
			return refuse("rule", "the outputs do not determine a key of %s", o.table.Name)
		}
	}
	fs, err := k.baseFacts(d.facts.list)
	if err != nil {
		return err
	}
	facts.addAll(fs)
	sq.Distinct = sqlast.DistinctDistinct
	return nil
}

// distinctIntroKey is the key of FROM subquery o (RuleDistinctIntro), src
// the schema columns each of its columns shows (opaqueTable): false for
// none.
func distinctIntroKey(c *Canon, o *occurrence, src [][]colSource) (Key, bool) {
	if len(o.derived.Cores) != 1 || o.derived.With != nil {
		return Key{}, false
	}
	body, ok := o.derived.Cores[0].(*sqlast.SelectQuery)
	if !ok {
		return Key{}, false
	}
	switch {
	case body.Distinct == sqlast.DistinctDistinct:
		var cols []int
		for i := range src {
			if len(src[i]) == 0 {
				return Key{}, false
			}
			cols = append(cols, i)
		}
		return Key{Cols: cols, Groups: true}, true
	case len(body.GroupBy) > 0:
		var cols []int
		for _, g := range body.GroupBy {
			gOcc, gi, isCol := c.colOf(stripParens(g))
			if !isCol || gOcc.derived != nil {
				return Key{}, false
			}
			j := -1
			for i, col := range body.Columns {
				if so, si, isCol := c.colOf(stripParens(col.Expr)); isCol && so == gOcc && si == gi && len(src[i]) > 0 {
					j = i
					break
				}
			}
			if j < 0 {
				return Key{}, false
			}
			if !slices.Contains(cols, j) {
				cols = append(cols, j)
			}
		}
		return Key{Cols: cols, Groups: true}, true
	case scalarAggregateCore(body):
		return Key{Cols: []int{}, Groups: true}, true
	}
	return Key{}, false
}
