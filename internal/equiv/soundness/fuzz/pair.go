package fuzz

import "github.com/sqljudge/sqljudge/internal/equiv"

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
		q2 := cloneQuery(q1)
		p = &pairSpec{q1: q1, q2: q2}
		for range pick(g.r, []weighted[int]{{1, 65}, {2, 28}, {3, 7}}) {
			if name := g.rewrite(q2); name != "" {
				p.rewrites = append(p.rewrites, name)
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

// rewrite applies a rewrite drawn by weight that finds a place in q
// (twelve draws at most), and returns its name ("" when none did).
func (g *gen) rewrite(q *sel) string {
	ws := make([]weighted[int], len(rewrites))
	for i, rw := range rewrites {
		ws[i] = weighted[int]{i, rw.weight}
		if g.strict() {
			ws[i].w = rw.pgWeight
		}
	}
	m := &mutator{g: g}
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
