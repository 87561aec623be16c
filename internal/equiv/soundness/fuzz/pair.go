package fuzz

import (
	"slices"

	"github.com/sqljudge/sqljudge/internal/equiv"
)

// pairSpec is a generated pair: the two queries (printed), the
// rewrites that made the second from the first (in order; the two are
// swapped half the time, so that every rewrite is tried both ways), and
// the comparison rule.
type pairSpec struct {
	q1, q2   *sel
	sql1     string
	sql2     string
	rewrites []string
	swapped  bool
	rule     equiv.Rule
}

// pair draws a query and rewrites a copy of it one to three times.
func (g *gen) pair() *pairSpec {
	var p *pairSpec
	for range 10 {
		q1 := g.query()
		cl := newCloner()
		q2 := cl.sel(q1)
		tw := twinOf(cl)
		p = &pairSpec{q1: q1, q2: q2}
		for range pick(g.r, []weighted[int]{{1, 65}, {2, 28}, {3, 7}}) {
			if name := g.rewrite(q2, tw); name != "" {
				p.rewrites = append(p.rewrites, name)
			}
		}
		if g.deriveBoth {
			m := &mutator{g: g, twin: tw}
			if m.deriveBoth(q2) {
				p.rewrites = append(p.rewrites, "derive_both:"+m.detail)
			}
		}
		p.sql1, p.sql2 = sqlOf(q1), sqlOf(q2)
		if p.sql1 != p.sql2 {
			break
		}
	}
	if chance(g.r, 0.5) {
		p.q1, p.q2, p.sql1, p.sql2, p.swapped = p.q2, p.q1, p.sql2, p.sql1, true
	}
	p.rule = equiv.RuleBag
	if chance(g.r, 0.25) {
		p.rule = equiv.RuleSpider
	}
	return p
}

// twin maps the SELECTs and FROM items of the copy a pair's rewrites
// change back to the first query's, for a rewrite that adds the same
// conjunct to both (join_fk: a nullable foreign key's IS NOT NULL).
// What a rewrite creates has no twin.
type twin struct {
	sels  map[*sel]*sel
	froms map[*fromItem]*fromItem
}

// twinOf inverts the maps of the cloner that made the copy.
func twinOf(cl *cloner) *twin {
	tw := &twin{sels: map[*sel]*sel{}, froms: map[*fromItem]*fromItem{}}
	for a, b := range cl.sels {
		tw.sels[b] = a
	}
	for a, b := range cl.froms {
		tw.froms[b] = a
	}
	return tw
}

// rewrite applies a rewrite drawn by weight that finds a place in q
// (twelve draws at most), and returns its name ("" when none did). tw
// leads back to the first query (nil: none).
func (g *gen) rewrite(q *sel, tw *twin) string {
	ws := make([]weighted[int], len(rewrites))
	for i, rw := range rewrites {
		ws[i] = weighted[int]{i, rw.weight}
		if g.strict() {
			ws[i].w = rw.pgWeight
		}
		if len(g.focusRewrites) > 0 && !slices.Contains(g.focusRewrites, rw.name) {
			ws[i].w = 0
		} else if len(g.focusRewrites) > 0 {
			ws[i].w = max(ws[i].w, 1)
		}
	}
	m := &mutator{g: g, twin: tw}
	for range 12 {
		rw := rewrites[pick(g.r, ws)]
		m.detail = ""
		if rw.apply(m, q) {
			if m.detail != "" {
				return rw.name + ":" + m.detail
			}
			return rw.name
		}
	}
	return ""
}
