package prove

import (
	"errors"
	"fmt"
	"slices"
	"sort"

	"github.com/sqljudge/sqljudge/internal/prove/check"
	"github.com/sqljudge/sqljudge/internal/sqlast"
)

// normalForm proves the pair by comparing normal forms: the queries
// renamed (aliases a1, ... and b1, ...), rewritten by the normalizing
// rules, then paired under bijections of their occurrences until one
// comparison's obligations are all proved.
func (p *prover) normalForm() Attempt {
	if err := p.rename(0, "a"); err != nil {
		return stop(err)
	}
	if err := p.rename(1, "b"); err != nil {
		return stop(err)
	}
	renamed := *p
	for i := range 2 {
		p.normalize(i)
	}
	a := p.pair()
	if a.Proved() || p.ctx.Err() != nil {
		return a
	}
	if p.used(check.RuleGroupDistinct) {
		// One query's GROUP BY became DISTINCT and the other's did not
		// (it aggregates: HAVING count(*) >= 1): compare the groups.
		normal := *p
		p.steps, p.cur, p.keepGroups = renamed.steps, renamed.cur, true
		for i := range 2 {
			p.normalize(i)
		}
		if b := p.pair(); b.Proved() || p.ctx.Err() != nil {
			return b
		}
		p.steps, p.cur, p.keepGroups = normal.steps, normal.cur, false
	}
	// Subqueries as joins, then tables joined for nothing removed.
	base := *p
	for _, variant := range []func(){
		func() {
			p.applyAll(0, check.RuleInToExists, inAnySites)
			p.applyAll(1, check.RuleInToExists, inAnySites)
		},
		func() {
			for i := range 2 {
				p.applyAll(i, check.RuleInToJoin, inSites)
				p.applyAll(i, check.RuleGroupSemijoin, inSites)
			}
		},
		func() { p.eliminate() },
		func() {
			// A join of grouped FROM subqueries on their keys made
			// DISTINCT, so that they merge under it.
			p.applyAll(0, check.RuleDistinctIntro, introSites)
			p.applyAll(1, check.RuleDistinctIntro, introSites)
		},
		func() {
			p.applyAll(0, check.RuleInToJoin, inSites)
			p.applyAll(1, check.RuleInToJoin, inSites)
			p.eliminate()
		},
		func() {
			// Semi-joins as joins: EXISTS on a key as IN, then as a
			// join.
			for i := range 2 {
				p.applyAll(i, check.RuleExistsToIn, existsSites)
				p.applyAll(i, check.RuleInToJoin, inSites)
			}
		},
	} {
		p.steps, p.cur = base.steps, base.cur
		before := p.cur
		variant()
		if p.cur == before {
			continue
		}
		for i := range 2 {
			p.normalize(i)
		}
		if b := p.pair(); b.Proved() || p.ctx.Err() != nil {
			return b
		}
	}
	return a
}

// normalize applies the normalizing rules to query i until none applies:
// GROUP BY without aggregates as DISTINCT, DISTINCT dropped in FROM
// subqueries whose rows the query around them only tests for presence,
// joins with a FROM subquery of distinct rows pinned by equalities as
// EXISTS, a SELECT DISTINCT FROM subquery shown whole (beside LEFT JOINs
// that meet one row) made the query's DISTINCT, a compound FROM subquery
// of the statement spliced into it, FROM subqueries merged (first: the
// LEFT JOIN rules read tables), a grouped FROM subquery read alone merged
// into the query around it, LEFT JOINs nothing reads removed under
// DISTINCT, EXISTS or IN, or on the key or the groups of what they join
// (and the loop again: what is left may merge), LEFT JOINs whose NULL
// rows the WHERE rejects as JOINs, LEFT JOINs on a key nothing else reads
// removed, anti-joins as NOT EXISTS, EXCEPT as NOT IN, COUNT of
// a NOT NULL column as COUNT(*), DISTINCT dropped in IN and EXISTS
// subqueries, IS NOT NULL of an IN subquery's output dropped, HAVING
// conjuncts on GROUP BY columns moved to the WHERE, an aggregate of a
// grouped FROM subquery's aggregates merged into one, GROUP BY terms
// determined by the others dropped, EXISTS of an aggregate's one row or
// of a row the FROM already holds dropped, DISTINCT dropped where the outputs
// determine a key, last a WHERE's x IS NOT NULL that only aggregates of x
// would read.
func (p *prover) normalize(i int) {
	for range 5 {
		before := p.cur[i]
		if !p.keepGroups {
			p.applyAll(i, check.RuleGroupDistinct, groupSites)
		}
		p.applyAll(i, check.RuleDistinctDerived, derivedSites)
		p.applyAll(i, check.RuleGroupDerived, derivedSites)
		p.applyAll(i, check.RuleDistinctSemijoin, derivedSites)
		p.applyAll(i, check.RuleDistinctLift, derivedSites)
		p.applyAll(i, check.RuleDerivedCompound, derivedSites)
		p.applyAll(i, check.RuleDerivedMerge, derivedSites)
		p.applyAll(i, check.RuleGroupedMerge, derivedSites)
		p.applyAll(i, check.RuleLeftJoinCopies, leftJoinSites)
		p.applyAll(i, check.RuleLeftJoinElim, leftJoinSites)
		if p.cur[i] == before {
			break
		}
	}
	p.applyAll(i, check.RuleLeftToInner, leftJoinSites)
	p.applyAll(i, check.RuleLeftJoinElim, leftJoinSites)
	p.applyAll(i, check.RuleAntiJoin, leftJoinSites)
	p.applyAll(i, check.RuleExceptToNotIn, compoundSites)
	p.applyAll(i, check.RuleCountStar, countSites)
	p.applyAll(i, check.RuleInDistinct, subquerySites)
	p.applyAll(i, check.RuleInNotNull, inSites)
	p.applyAll(i, check.RuleSetOpDistinct, distinctSites)
	p.applyAll(i, check.RuleHavingToWhere, havingSites)
	p.applyAll(i, check.RuleAggMerge, derivedSites)
	p.applyAll(i, check.RuleGroupByFD, groupBySites)
	// Once HAVING went to the WHERE and determined terms left the GROUP
	// BY, a GROUP BY may be DISTINCT after all (and its FROM subqueries
	// then merge).
	grouped := p.cur[i]
	if !p.keepGroups {
		p.applyAll(i, check.RuleGroupDistinct, groupSites)
	}
	if p.cur[i] != grouped {
		p.applyAll(i, check.RuleDistinctDerived, derivedSites)
		p.applyAll(i, check.RuleDistinctSemijoin, derivedSites)
		p.applyAll(i, check.RuleDerivedMerge, derivedSites)
	}
	p.applyAll(i, check.RuleExistsOneRow, existsSites)
	p.applyAll(i, check.RuleExistsSelf, existsSites)
	p.applyAll(i, check.RuleCountDistinctKey, countDistinctSites)
	p.applyAll(i, check.RuleDistinctKey, distinctSites)
	p.applyAll(i, check.RuleAggNotNull, notNullSites)
}

// applyAll applies rule at the sites sites finds in query i, again and
// again until it applies nowhere.
func (p *prover) applyAll(i int, rule string, sites func(*sqlast.Query) []int) {
	for range 100 {
		if p.ctx.Err() != nil {
			return
		}
		q, err := sqlast.Parse(p.cur[i])
		if err != nil {
			return
		}
		applied := false
		for _, at := range sites(q) {
			after, facts, err := check.Apply(rule, p.cur[i], at, p.s)
			if err != nil {
				continue
			}
			p.steps[i] = append(slices.Clone(p.steps[i]), check.Step{Rule: rule, At: at, Node: check.NodeText(p.cur[i], at), Before: p.cur[i], After: after, Facts: facts})
			p.cur[i] = after
			applied = true
			break
		}
		if !applied {
			return
		}
	}
}

// eliminate removes, from the query with more occurrences of a table,
// the occurrences of that table a foreign key join makes redundant.
func (p *prover) eliminate() {
	count := func(i int) map[string]int {
		m := map[string]int{}
		occs, _ := check.Occurrences(p.cur[i], p.s, prefixes[i])
		for _, o := range occs {
			m[lower(o.Table)]++
		}
		return m
	}
	for i := range 2 {
		mine, theirs := count(i), count(1-i)
		extra := func(table string) bool { return mine[table] > theirs[table] }
		p.applyAll(i, check.RuleJoinElim, func(q *sqlast.Query) []int {
			var out []int
			sqlast.Walk(q.Stmt, func(n sqlast.Node) bool {
				if t, ok := n.(*sqlast.TableRef); ok && t.Name != nil && extra(lower(t.Name.Name.Name)) {
					out = append(out, t.Pos())
				}
				return true
			})
			return out
		})
	}
}

var prefixes = [2]string{"a", "b"}

// pair tries the bijections of the normal forms.
func (p *prover) pair() Attempt {
	if err := p.ctx.Err(); err != nil {
		return cancelled(err)
	}
	o1, err := check.Occurrences(p.cur[0], p.s, "a")
	if err != nil {
		return stop(err)
	}
	o2, err := check.Occurrences(p.cur[1], p.s, "b")
	if err != nil {
		return stop(err)
	}
	bijs, err := bijections(o1, o2, p.o.MaxBijections)
	if err != nil {
		return stop(err)
	}
	var last error
	for _, bij := range bijs {
		if err := p.ctx.Err(); err != nil {
			return cancelled(err)
		}
		cols, err := p.columns(bij)
		if err != nil {
			return stop(err)
		}
		cmp, err := check.Compare(p.s, p.cur[0], p.cur[1], check.Pairing{Bijection: bij, Columns: cols}, p.ordered, p.o.Rule == "spider")
		if err != nil {
			if last == nil || !check.DifferentSubqueries(err) {
				last = err // a pairing that went further says more
			}
			continue
		}
		obls := cmp.Obligations
		ok, err := p.discharge(obls)
		if err != nil {
			return stop(err)
		}
		if !ok {
			last = &check.Refusal{Construct: "obligation", Detail: "the solver does not prove: " + p.unproved(obls)}
			continue
		}
		return p.finish(p.certificate(bij, cols, cmp, o1))
	}
	if last == nil {
		last = errors.New("no bijection")
	}
	a := stop(last)
	a.SolverCalls = p.calls
	return a
}

// columns returns the column map: the identity under the bag rule, the
// kernel's proposal under the spider rule.
func (p *prover) columns(bij map[string]string) ([]int, error) {
	if p.o.Rule == "spider" {
		return check.MatchColumns(p.s, p.cur[0], p.cur[1], bij)
	}
	n, err := outputCount(p.cur[0], p.s)
	return identity(n), err
}

// discharge runs the obligations on the solver: true when all are unsat.
func (p *prover) discharge(obls []check.Obligation) (bool, error) {
	if len(obls) == 0 {
		return true, nil
	}
	if p.o.Solver == nil {
		return false, &check.Refusal{Construct: "no solver", Detail: fmt.Sprintf("%d obligations and no z3 to run them", len(obls))}
	}
	var scripts []string
	for _, o := range obls {
		scripts = append(scripts, o.SMT)
	}
	p.calls += len(scripts)
	answers, err := p.o.Solver.Check(p.ctx, scripts)
	if err != nil {
		return false, &check.Refusal{Construct: "solver error", Detail: err.Error()}
	}
	ok := true
	for i, a := range answers {
		p.answers[scripts[i]] = a
		ok = ok && a == "unsat"
	}
	return ok, nil
}

// unproved names the first obligation the solver did not answer unsat.
func (p *prover) unproved(obls []check.Obligation) string {
	for _, o := range obls {
		if p.answers[o.SMT] != "unsat" {
			return o.Name
		}
	}
	return "?"
}

// certificate assembles the certificate of a successful comparison.
func (p *prover) certificate(bij map[string]string, cols []int, cmp *check.Comparison, occs []check.Occurrence) *Certificate {
	c := &Certificate{Kernel: check.KernelVersion, Method: check.MethodNormalForm,
		Q1Steps: p.steps[0], Q2Steps: p.steps[1], NormalForms: check.NormalForms{Q1: p.cur[0], Q2: p.cur[1]},
		Columns: cols, Facts: cmp.Facts, Obligations: cmp.Obligations, Ties: cmp.Ties}
	for _, o := range occs {
		c.Bijection = append(c.Bijection, check.Match{Q1: o.Alias, Q2: bij[o.Alias], Table: o.Table})
	}
	if c.Q1Steps == nil {
		c.Q1Steps = []check.Step{}
	}
	if c.Q2Steps == nil {
		c.Q2Steps = []check.Step{}
	}
	if c.Obligations == nil {
		c.Obligations = []check.Obligation{}
	}
	return c
}

// bijections enumerates the pairings of o1's occurrences with o2's of the
// same table, the pairing by order of appearance first, at most max.
func bijections(o1, o2 []check.Occurrence, max int) ([]map[string]string, error) {
	by1, by2 := map[string][]string{}, map[string][]string{}
	var tables []string
	for _, o := range o1 {
		t := lower(o.Table)
		if by1[t] == nil {
			tables = append(tables, t)
		}
		by1[t] = append(by1[t], o.Alias)
	}
	for _, o := range o2 {
		by2[lower(o.Table)] = append(by2[lower(o.Table)], o.Alias)
	}
	if d1, d2 := len(by1[lower(check.DerivedTable)]), len(by2[lower(check.DerivedTable)]); d1 != d2 {
		return nil, &check.Refusal{Construct: "derived table", Detail: fmt.Sprintf("%d subqueries in FROM against %d", d1, d2)}
	}
	if len(o1) != len(o2) {
		return nil, &check.Refusal{Construct: "tables", Detail: fmt.Sprintf("%d table occurrences against %d", len(o1), len(o2))}
	}
	for _, t := range tables {
		if len(by1[t]) != len(by2[t]) {
			return nil, &check.Refusal{Construct: "tables", Detail: fmt.Sprintf("table %s occurs %d times against %d", t, len(by1[t]), len(by2[t]))}
		}
	}
	sort.Strings(tables)
	perTable := 1 // the loop below keeps at least one
	if max > 1 {
		perTable = max
	}
	out := []map[string]string{{}}
	for _, t := range tables {
		var next []map[string]string
		for _, perm := range permutations(len(by1[t]), perTable) {
			for _, base := range out {
				m := map[string]string{}
				for k, v := range base {
					m[k] = v
				}
				for i, j := range perm {
					m[by1[t][i]] = by2[t][j]
				}
				next = append(next, m)
				if len(next) >= max {
					break
				}
			}
			if len(next) >= max {
				break
			}
		}
		out = next
	}
	return out, nil
}

// permutations lists the first max permutations of 0..n-1 (max > 0), the
// identity first: each permutation of 0..n-2 with n-1 put at every
// position from the last to the first. Only the first ⌈max/n⌉ of those
// are made, so twelve occurrences of one table cost max permutations, not
// 12! (a pair could exhaust the memory that way).
func permutations(n, max int) [][]int {
	if n == 0 {
		return [][]int{{}}
	}
	var out [][]int
	for _, p := range permutations(n-1, (max+n-1)/n) {
		for pos := len(p); pos >= 0 && len(out) < max; pos-- {
			q := append(append(append([]int{}, p[:pos]...), n-1), p[pos:]...)
			out = append(out, q)
		}
	}
	return out
}

func identity(n int) []int {
	p := make([]int, n)
	for i := range p {
		p[i] = i
	}
	return p
}

func lower(s string) string {
	b := []byte(s)
	for i, c := range b {
		if c >= 'A' && c <= 'Z' {
			b[i] = c + 'a' - 'A'
		}
	}
	return string(b)
}

// outputCount returns the number of top-level output columns of a normal
// form (as the kernel reads it).
func outputCount(nf string, s Schema) (int, error) {
	return check.OutputCount(nf, s)
}

// used reports whether a step of either query applies rule.
func (p *prover) used(rule string) bool {
	for i := range 2 {
		for _, st := range p.steps[i] {
			if st.Rule == rule {
				return true
			}
		}
	}
	return false
}
