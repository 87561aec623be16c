package check

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/sqljudge/sqljudge/internal/sqlast"
)

// Obligation is a claim the SMT solver must prove, as an SMT-LIB 2
// script asserting its negation: the expected answer is unsat. Facts are
// the schema facts the script assumes (NOT NULL columns, the families of
// the columns it reads).
type Obligation struct {
	Name   string `json:"name"`
	SMT    string `json:"smt"`
	Expect string `json:"expect"`
	Facts  []Fact `json:"facts,omitempty"`
}

// Pairing says how the normal forms correspond: Bijection maps each
// table occurrence of the first (its alias) to one of the second, of the
// same table; Columns maps output column i of the first to output column
// Columns[i] of the second (the identity under the bag rule).
type Pairing struct {
	Bijection map[string]string
	Columns   []int
}

// kernel compares two normal forms.
type kernel struct {
	d Dialect
	// spider: the result is compared by Spider's execution match, which
	// tells a row's values apart by their Python type (pyType).
	spider bool
	c1, c2 *Canon
	bij    map[string]string // first alias → second
	inv    map[string]string // second alias → first
	subs   map[*sqlast.SelectStmt]*subSym
	obls   []Obligation
	facts  factSet
	// ties: the statement's ORDER BY keys do not determine its rows, so
	// the proof holds up to the engine's choice among rows that tie
	// (Certificate.Ties).
	ties bool
	// synth: each FROM subquery compared as a table, by that table's
	// name (opaqueDerived).
	synth map[string]synthTable
	// rowConds: a condition TRUE on every row of such a FROM subquery of
	// the first query (rowInvariant), asserted where conditions compare.
	rowConds map[*occurrence]sqlast.Expr
}

// kernelEnv is the encoding's view of one side of the comparison: its
// columns named in the first query's aliases, its aggregates by their
// text with each column replaced by its class's representative (deps),
// its subqueries by the symbols of the pairs the comparison proved.
//
// nullable reads every column as one that may be NULL, NOT NULL or not
// (the ON of a LEFT JOIN reads columns an earlier outer join may extend).
type kernelEnv struct {
	k        *kernel
	sd       side
	deps     *deps
	nullable bool
}

func (v kernelEnv) column(r *sqlast.QualifiedRef) (string, string, Column, error) {
	o, i, ok := v.sd.c.colOf(r)
	if !ok {
		return "", "", Column{}, refuse("column", "%s is not a column of a table", sqlast.Format(r))
	}
	col := o.table.Columns[i]
	if v.nullable {
		col.NotNull = false
	}
	return v.sd.alias(o.alias) + "." + o.colName(i), o.table.Name, col, nil
}

func (v kernelEnv) aggregateKey(f *sqlast.FuncCall) string { return v.k.mappedText(f, v.sd, v.deps) }

// subquery returns the symbol of a subquery and the first query's side,
// in whose names its outer columns are recorded.
func (v kernelEnv) subquery(st *sqlast.SelectStmt) (*subSym, encodeEnv) {
	return v.k.subs[st], kernelEnv{k: v.k, sd: side{c: v.k.c1}}
}

// Comparison is what a comparison of two normal forms needs and claims:
// the Obligations (SMT-LIB 2 scripts, unproved: the caller runs them),
// the Facts it relied on itself (functional dependencies, sorted), and
// Ties: the statement's ORDER BY keys do not determine its rows, so the
// forms are equal up to the engine's choice among rows that tie
// (Certificate.Ties).
type Comparison struct {
	Obligations []Obligation
	Facts       []Fact
	Ties        bool
}

// compareForms checks that the canonical forms c1 and c2 return the same
// result on every database under the pairing: ordered says whether rows
// must come in the same order. An error says why the forms do not match.
func compareForms(d Dialect, c1, c2 *Canon, p Pairing, ordered, spider bool) (*Comparison, error) {
	k := &kernel{d: d, spider: spider, c1: c1, c2: c2, bij: map[string]string{}, inv: map[string]string{}, subs: map[*sqlast.SelectStmt]*subSym{}}
	if len(p.Bijection) != len(c1.Occs) || len(c1.Occs) != len(c2.Occs) {
		return nil, refuse("bijection", "the bijection pairs %d of %d and %d occurrences", len(p.Bijection), len(c1.Occs), len(c2.Occs))
	}
	for a, b := range p.Bijection {
		o1, o2 := c1.byAlias[a], c2.byAlias[b]
		if !pairsOccurrences(o1, o2) {
			return nil, refuse("bijection", "%s -> %s pairs no two occurrences of one table", a, b)
		}
		if _, dup := k.inv[b]; dup {
			return nil, refuse("bijection", "%s is paired twice", b)
		}
		k.bij[a], k.inv[b] = b, a
	}
	if err := k.opaqueDerived(); err != nil {
		return nil, err
	}
	b1, _, err := compile(c1)
	var b2 *block
	if err == nil {
		b2, _, err = compile(c2)
	}
	if err != nil {
		if facts, same, serr := k.sameForm(p.Columns, ordered, err); same {
			if serr != nil {
				return nil, serr
			}
			return k.comparison(facts, false)
		}
		return nil, err
	}
	n1, n2 := outputCount(b1), outputCount(b2)
	perm := p.Columns
	if len(perm) != n1 || n1 != n2 || !isPermutation(perm) {
		return nil, refuse("columns", "the column map %v does not pair %d and %d output columns", perm, n1, n2)
	}
	if err := k.compare(b1, b2, mode{top: true, ordered: ordered, perm: perm}); err != nil {
		return nil, err
	}
	k.facts.addAll(c1.orderFacts())
	k.facts.addAll(c2.orderFacts())
	return k.comparison(k.facts.list, k.ties)
}

// comparison is what compareForms returns: the obligations and facts,
// each fact of a FROM subquery's column stated of the schema's columns
// (baseFacts).
func (k *kernel) comparison(facts []Fact, ties bool) (*Comparison, error) {
	fs, err := k.baseFacts(sortedFacts(facts))
	if err != nil {
		return nil, err
	}
	obls := k.obls
	if len(k.synth) > 0 {
		obls = slices.Clone(k.obls)
		for i := range obls {
			if obls[i].Facts, err = k.baseFacts(obls[i].Facts); err != nil {
				return nil, err
			}
		}
	}
	return &Comparison{Obligations: obls, Facts: fs, Ties: ties}, nil
}

// pairsOccurrences reports whether o1 and o2 may be paired: two
// occurrences of one table, or two FROM subqueries (opaqueDerived
// decides whether they compare).
func pairsOccurrences(o1, o2 *occurrence) bool {
	switch {
	case o1 == nil || o2 == nil:
		return false
	case o1.table == nil || o2.table == nil:
		return o1.table == nil && o2.table == nil && o1.derived != nil && o2.derived != nil
	}
	return equalFold(o1.table.Name, o2.table.Name)
}

func outputCount(b *block) int {
	if !b.simple() {
		return outputCount(b.branches[0])
	}
	return len(b.outputs)
}

func isPermutation(p []int) bool {
	seen := make([]bool, len(p))
	for _, x := range p {
		if x < 0 || x >= len(p) || seen[x] {
			return false
		}
		seen[x] = true
	}
	return true
}

// mode is how two blocks are compared.
type mode struct {
	top     bool
	ordered bool    // rows in order (the top level only)
	perm    []int   // output i of the first is output perm[i] of the second
	kind    subKind // for a subquery: how it is used
	sub     bool
	branch  bool // a branch of a compound
}

func (k *kernel) side(i int) side {
	if i == 0 {
		return side{c: k.c1}
	}
	return side{c: k.c2, rename: k.inv}
}

// compare checks that b1 and b2 give the same result (under m).
func (k *kernel) compare(b1, b2 *block, m mode) error {
	if b1.simple() != b2.simple() {
		return refuse("compound", "a compound query against a simple one")
	}
	if !b1.simple() {
		return k.compound(b1, b2, m)
	}
	if err := k.occurrences(b1, b2); err != nil {
		return err
	}
	if err := k.subqueries(b1, b2); err != nil {
		return err
	}
	d := newDeps(k.c1, b1)
	defer func() { k.facts.addAll(d.facts.list) }()
	where := fmt.Sprintf("block %s", b1.firstOcc().alias)
	if err := k.conditions(b1, b2, d, where); err != nil {
		return err
	}
	if b1.distinct != b2.distinct {
		return refuse("DISTINCT", "DISTINCT on one side only (%s)", where)
	}
	if b1.distinct && !(m.sub && m.kind == subExists) {
		if err := k.distinctOutputs(k.c1, b1, m.top, where); err != nil {
			return err
		}
		if err := k.distinctOutputs(k.c2, b2, m.top, where); err != nil {
			return err
		}
	}
	if b1.aggregate != b2.aggregate {
		return refuse("aggregate", "an aggregate query against a plain one (%s)", where)
	}
	if b1.aggregate {
		if err := k.grouping(b1, b2, d, where); err != nil {
			return err
		}
	}
	if !(m.sub && m.kind == subExists) {
		if err := k.outputs(b1, b2, d, m, where); err != nil {
			return err
		}
	}
	return k.order(b1, b2, d, m, where)
}

// occurrences checks that the bijection pairs the FROM items of b1 with
// those of b2.
func (k *kernel) occurrences(b1, b2 *block) error {
	if len(b1.occs) != len(b2.occs) || len(b1.occs) == 0 {
		return refuse("bijection", "blocks with %d and %d tables", len(b1.occs), len(b2.occs))
	}
	for _, o := range b1.occs {
		partner := k.c2.byAlias[k.bij[o.alias]]
		if !slices.Contains(b2.occs, partner) {
			return refuse("bijection", "%s is paired with %s, outside the corresponding block", o.alias, k.bij[o.alias])
		}
	}
	return nil
}

// subqueries pairs the subqueries of b1 and b2 (by their first
// occurrences), compares each pair and names it.
func (k *kernel) subqueries(b1, b2 *block) error {
	if len(b1.subs) != len(b2.subs) {
		return refuse("subquery", "%d subqueries against %d", len(b1.subs), len(b2.subs))
	}
	for _, s1 := range b1.subs {
		f1 := s1.block.firstOcc()
		if f1 == nil {
			return refuse("subquery", "a subquery without FROM")
		}
		var s2 *subq
		for _, s := range b2.subs {
			if s.block.owns(k.c2.byAlias[k.bij[f1.alias]]) {
				s2 = s
			}
		}
		if s2 == nil || s2.kind != s1.kind {
			return refuse("subquery", "the %s subquery of %s has no partner of its kind", s1.kind, f1.alias)
		}
		if s1.kind == subScalar && !(s1.block.scalarAggregate() && s2.block.scalarAggregate()) {
			return refuse("scalar subquery", "a scalar subquery that is no aggregate may return several rows (the engine takes the first)")
		}
		if err := k.compare(s1.block, s2.block, mode{sub: true, kind: s1.kind, perm: identity(outputCount(s1.block))}); err != nil {
			return err
		}
		if s1.kind != subExists {
			if err := k.sameKinds(s1.block, s2.block); err != nil {
				return err
			}
		}
		sym := &subSym{name: "sub " + f1.alias, cols: map[colKey]*sqlast.QualifiedRef{}}
		k.freeVars(s1.block, k.side(0), sym)
		k.freeVars(s2.block, k.side(1), sym)
		sort.Slice(sym.args, func(i, j int) bool { return sym.args[i] < sym.args[j] })
		k.subs[s1.block.stmt], k.subs[s2.block.stmt] = sym, sym
	}
	return nil
}

func identity(n int) []int {
	p := make([]int, n)
	for i := range p {
		p[i] = i
	}
	return p
}

// freeVars adds to sym the columns of outer occurrences that sub (and
// the subqueries in it) read, named as in the first query.
func (k *kernel) freeVars(sub *block, sd side, sym *subSym) {
	inside := map[*occurrence]bool{}
	sqlast.Walk(sub.stmt, func(n sqlast.Node) bool {
		if t, ok := n.(*sqlast.TableRef); ok && t.Alias != nil {
			inside[sd.c.byAlias[lowerASCII(t.Alias.Name)]] = true
		}
		return true
	})
	sqlast.Walk(sub.stmt, func(n sqlast.Node) bool {
		r, ok := n.(*sqlast.QualifiedRef)
		if !ok {
			return true
		}
		o, i, ok := sd.c.colOf(r)
		if !ok || inside[o] {
			return true
		}
		o1 := k.c1.byAlias[sd.alias(o.alias)]
		if o1 == nil {
			return true
		}
		key := keyOf(o1, i)
		if _, seen := sym.cols[key]; !seen {
			sym.cols[key] = qualified(o1, i)
			sym.args = append(sym.args, key)
		}
		return true
	})
}

// conditions checks that the conditions of b1 and b2 keep the same rows:
// the same conjuncts (renamed), or an obligation.
func (k *kernel) conditions(b1, b2 *block, d *deps, where string) error {
	t1 := k.texts(b1.conds, k.side(0), nil)
	t2 := k.texts(b2.conds, k.side(1), nil)
	sort.Strings(t1)
	sort.Strings(t2)
	if slices.Equal(t1, t2) {
		return nil
	}
	s := newScript(k.d)
	for _, o := range b1.occs {
		if inv := k.rowConds[o]; inv != nil {
			p, err := k.encodeAll(s, []sqlast.Expr{inv}, k.side(0), false, nil)
			if err != nil {
				return err
			}
			s.assert(p.t)
		}
	}
	p1, err := k.encodeAll(s, b1.conds, k.side(0), false, nil)
	if err != nil {
		return err
	}
	p2, err := k.encodeAll(s, b2.conds, k.side(1), false, nil)
	if err != nil {
		return err
	}
	k.obligation(s, "the conditions (ON and WHERE) keep the same rows, "+where, "(= "+p1.t+" "+p2.t+")")
	return nil
}

// encodeAll encodes the conjunction of conds.
func (k *kernel) encodeAll(s *script, conds []sqlast.Expr, sd side, agg bool, d *deps) (pred, error) {
	e := &encoder{s: s, env: kernelEnv{k: k, sd: sd, deps: d}, agg: agg, grouped: d != nil && len(d.b.groupBy) > 0}
	p := pred{"true", "false"}
	for i, c := range conds {
		q, err := e.cond(c)
		if err != nil {
			return pred{}, err
		}
		if i == 0 {
			p = q
			continue
		}
		p = pred{and(p.t, q.t), or(p.f, q.f)}
	}
	return p, nil
}

func (k *kernel) obligation(s *script, name, claim string) {
	k.obls = append(k.obls, Obligation{Name: name, SMT: s.text(name, claim), Expect: "unsat", Facts: sortedFacts(s.facts.list)})
}

// texts returns the texts of es renamed into the first query's aliases
// (and with each column replaced by its representative when d is given).
func (k *kernel) texts(es []sqlast.Expr, sd side, d *deps) []string {
	out := make([]string, len(es))
	for i, e := range es {
		out[i] = k.mappedText(e, sd, d)
	}
	return out
}

// mappedText prints e with the aliases of sd renamed into the first
// query's (subqueries included) and, with d, each column of an equality
// of d replaced by its class's representative.
func (k *kernel) mappedText(e sqlast.Expr, sd side, d *deps) string {
	c := cloneExpr(e)
	sqlast.Walk(c, func(n sqlast.Node) bool {
		switch t := n.(type) {
		case *sqlast.QualifiedRef:
			if len(t.Parts) == 2 {
				a := sd.alias(lowerASCII(t.Parts[0].Name))
				key := colKey(a + "." + t.Parts[1].Name)
				if d != nil {
					key = d.rep(key)
				}
				alias, col, _ := strings.Cut(string(key), ".")
				t.Parts = []*sqlast.Ident{sqlast.Name(alias), sqlast.Name(col)}
			}
		case *sqlast.TableRef:
			if t.Alias != nil {
				t.Alias = sqlast.Name(sd.alias(lowerASCII(t.Alias.Name)))
			}
		case *sqlast.Star:
			if t.Table != nil {
				t.Table = sqlast.Name(sd.alias(lowerASCII(t.Table.Name)))
			}
		}
		return true
	})
	return sqlast.Format(c)
}

// grouping checks that b1 and b2 form the same groups: the same GROUP BY
// keys (up to the equalities of the conditions), and that every column
// read outside an aggregate is determined by the keys (else its value is
// any row's of the group, which the engine picks).
func (k *kernel) grouping(b1, b2 *block, d *deps, where string) error {
	g1 := setOf(k.texts(b1.groupBy, k.side(0), d))
	g2 := setOf(k.texts(b2.groupBy, k.side(1), d))
	if !slices.Equal(g1, g2) {
		return refuse("GROUP BY", "different groups (%s): %s against %s", where, strings.Join(g1, ", "), strings.Join(g2, ", "))
	}
	for i, b := range []*block{b1, b2} {
		es := append([]sqlast.Expr{}, b.outputs...)
		if b.having != nil {
			es = append(es, b.having)
		}
		for _, o := range b.orderBy {
			es = append(es, o.Expr)
		}
		if !k.determinedBy(d, k.side(i), b.groupBy, es) {
			return refuse("bare column", "a column neither grouped nor aggregated nor determined by the groups (%s): the engine returns any row's value", where)
		}
	}
	if b1.having == nil && b2.having == nil {
		return nil
	}
	if b1.having != nil && b2.having != nil && k.mappedText(b1.having, k.side(0), d) == k.mappedText(b2.having, k.side(1), d) {
		return nil
	}
	if len(b1.groupBy) == 0 {
		return refuse("HAVING", "HAVING without GROUP BY (%s)", where)
	}
	s := newScript(k.d)
	if err := k.assumeGroup(s, b1, d); err != nil {
		return err
	}
	having := func(b *block, i int) (pred, error) {
		if b.having == nil {
			return pred{"true", "false"}, nil // a group is kept
		}
		return k.encodeAll(s, []sqlast.Expr{b.having}, k.side(i), true, d)
	}
	h1, err := having(b1, 0)
	if err != nil {
		return err
	}
	h2, err := having(b2, 1)
	if err != nil {
		return err
	}
	k.obligation(s, "HAVING keeps the same groups, "+where, "(= "+h1.t+" "+h2.t+")")
	return nil
}

// determinedBy reports whether the values es read (of sd's block,
// outside aggregates) are determined by identity by the keys, both read
// through sd and renamed into the first query: every column of the block
// they read, those a subquery in them reads included (a correlated
// subquery is a function of them), is in the identity closure of the
// plain-column keys, or is read inside an expression that is itself a
// key whose equal values are the same (tieSafeKey).
func (k *kernel) determinedBy(d *deps, sd side, keys, es []sqlast.Expr) bool {
	var start []colKey
	var grouped []string
	for _, g := range keys {
		if o, i, ok := sd.c.colOf(g); ok {
			if o1 := k.c1.byAlias[sd.alias(o.alias)]; o1 != nil {
				start = append(start, keyOf(o1, i))
			}
		} else if tieSafeKey(g) {
			grouped = append(grouped, k.mappedText(g, sd, nil))
		}
	}
	_, in := d.closures(start)
	local := func(r *sqlast.QualifiedRef) bool {
		o, i, found := sd.c.colOf(r)
		if !found {
			return false
		}
		o1 := k.c1.byAlias[sd.alias(o.alias)]
		return o1 == nil || !d.local(o1) || in[keyOf(o1, i)]
	}
	ok := true
	for _, e := range es {
		walkExpr(e, func(x sqlast.Expr) bool {
			if !ok {
				return false
			}
			if f, isCall := x.(*sqlast.FuncCall); isCall && isAggregateCall(f) {
				return false
			}
			if slices.Contains(grouped, k.mappedText(x, sd, nil)) {
				return false
			}
			switch t := x.(type) {
			case *sqlast.QualifiedRef:
				ok = local(t)
			case *sqlast.SubqueryExpr, *sqlast.ExistsExpr, *sqlast.InExpr:
				sqlast.Walk(t, func(n sqlast.Node) bool {
					if r, isRef := n.(*sqlast.QualifiedRef); isRef && ok {
						ok = local(r)
					}
					return ok
				})
				return false
			}
			return ok
		})
	}
	return ok
}

// textFuncs are functions whose result is a string or NULL, without a
// collation of its own: two equal results are the same value.
var textFuncs = map[string]bool{
	"lower": true, "upper": true, "substr": true, "substring": true, "trim": true, "ltrim": true, "rtrim": true,
	"replace": true, "strftime": true, "date": true, "time": true, "datetime": true, "typeof": true, "hex": true, "quote": true,
}

// tieSafeKey reports whether a GROUP BY or ORDER BY key that is no plain
// column has equal values only when they are the same: a call of a
// function of textFuncs without COLLATE or a subquery in it.
func tieSafeKey(e sqlast.Expr) bool {
	f, ok := stripParens(e).(*sqlast.FuncCall)
	if !ok || !textFuncs[lowerASCII(f.Name.Name)] || holdsSubquery(f) {
		return false
	}
	return !holdsCollate(f)
}

// tieSafe reports whether two values of output e that the engine takes
// for equal (DISTINCT, a set operation) are indistinguishable where the
// output goes: at the top level on SQLite, where the result is compared
// with 1 equal to 1.0, any output without a collation of its own; else
// a tie-safe column (Column.tieSafe), a literal, COUNT, or MIN or MAX of
// a tie-safe column.
func (c *Canon) tieSafe(e sqlast.Expr, top bool) bool {
	if top && c.d == SQLite {
		_, coll, ok := c.exprKind(e)
		return ok && coll == "" && !holdsSubquery(e) && !holdsCollate(e)
	}
	switch t := stripParens(e).(type) {
	case *sqlast.QualifiedRef:
		o, i, ok := c.colOf(t)
		return ok && o.table.Columns[i].tieSafe(c.d)
	case *sqlast.Literal:
		return true
	case *sqlast.FuncCall:
		switch lowerASCII(t.Name.Name) {
		case "count":
			return true
		case "min", "max":
			return len(t.Args) == 1 && c.tieSafe(t.Args[0], false)
		}
	}
	return false
}

// distinctOutputs refuses a block that removes duplicates (DISTINCT, or
// a set operation without ALL) while an output is not tie-safe: the
// engine keeps one of the rows it takes for equal, whichever it meets
// first.
//
// Under the spider rule the top level is no exception: Spider's match
// tells 1 from 1.0 (it sorts a row's values by str(x) + str(type(x))),
// so the value DISTINCT keeps of 1 and 1.0 shows.
func (k *kernel) distinctOutputs(c *Canon, b *block, top bool, where string) error {
	top = top && !k.spider
	for _, e := range b.outputs {
		if !c.tieSafe(e, top) {
			return refuse("DISTINCT", "duplicates removed on %s, whose values the engine may take for equal while they differ: it keeps the first it meets (%s)", sqlast.Format(e), where)
		}
	}
	return nil
}

// assumeGroup asserts what holds of a group's representative row: the
// conditions of b1 (a grouped block's groups are never empty; a scalar
// aggregate reads no column outside its aggregates).
func (k *kernel) assumeGroup(s *script, b1 *block, d *deps) error {
	if len(b1.groupBy) == 0 {
		return nil
	}
	p, err := k.encodeAll(s, b1.conds, k.side(0), false, nil)
	if err != nil {
		return err
	}
	s.assert(p.t)
	return nil
}

// outputs checks the output columns pairwise (through the column map).
// Two outputs of different text are equal when an obligation says their
// values are; under the spider rule, at the top level, they must also be
// of one Python type, int or str (pyType): Spider's evaluator
// (test-suite-sql-eval, exec_eval.py's unorder_row and quick_rej) sorts
// each row's values by str(x) + str(type(x)) before it compares rows, so
// rows (1.0, 10) and (1, 10), equal value by value, sort to (1.0, 10)
// and (10, 1) and differ; -0.0 and 0.0 too (str "-0.0"). The value
// encoding does not tell 1 from 1.0, nor -0.0 from 0.0.
func (k *kernel) outputs(b1, b2 *block, d *deps, m mode, where string) error {
	if len(b1.outputs) != len(b2.outputs) || len(m.perm) != len(b1.outputs) {
		return refuse("columns", "%d output columns against %d (%s)", len(b1.outputs), len(b2.outputs), where)
	}
	for i, e1 := range b1.outputs {
		e2 := b2.outputs[m.perm[i]]
		if k.mappedText(e1, k.side(0), d) == k.mappedText(e2, k.side(1), d) {
			continue
		}
		if m.top && k.spider {
			if p1, p2 := k.side(0).c.pyType(e1), k.side(1).c.pyType(e2); p1 == "" || p1 != p2 {
				return refuse("output", "output column %d: %s against %s, not both of one Python type (int or str), which Spider's match needs beyond equal values (%s)", i+1, sqlast.Format(e1), sqlast.Format(e2), where)
			}
		}
		s := newScript(k.d)
		enc := func(sd side, e sqlast.Expr) (term, bool, error) {
			en := &encoder{s: s, env: kernelEnv{k: k, sd: sd, deps: d}, agg: b1.aggregate, grouped: len(b1.groupBy) > 0}
			return en.value(e)
		}
		t1, ok1, err := enc(k.side(0), e1)
		if err != nil {
			return err
		}
		t2, ok2, err := enc(k.side(1), e2)
		if err != nil {
			return err
		}
		if !ok1 || !ok2 || t1.srt != t2.srt && t1.srt != "" && t2.srt != "" {
			return refuse("output", "output column %d differs: %s against %s (%s)", i+1, sqlast.Format(e1), sqlast.Format(e2), where)
		}
		if b1.aggregate {
			if err := k.assumeGroup(s, b1, d); err != nil {
				return err
			}
		} else {
			p, err := k.encodeAll(s, b1.conds, k.side(0), false, nil)
			if err != nil {
				return err
			}
			s.assert(p.t)
		}
		same := sameValue(t1, t2)
		k.obligation(s, fmt.Sprintf("output column %d of the first equals column %d of the second, %s", i+1, m.perm[i]+1, where), same)
	}
	return nil
}

// sameValue is the claim that two encoded outputs are the same value:
// both NULL, or neither and equal; the NULL literal (sort "") is NULL.
// Where either may be a real past 64 bits (ovf), both must be, with the
// same real (the same uninterpreted operation of the same integers), or
// neither.
func sameValue(t1, t2 term) string {
	switch {
	case t1.srt == "" && t2.srt == "":
		return "true"
	case t1.srt == "":
		return t2.n
	case t2.srt == "":
		return t1.n
	}
	eq := "(= " + t1.v + " " + t2.v + ")"
	switch {
	case t1.ovf != "" && t2.ovf != "":
		eq = and("(= "+t1.ovf+" "+t2.ovf+")", ite(t1.ovf, "(= "+t1.rv+" "+t2.rv+")", eq))
	case t1.ovf != "":
		eq = and(not(t1.ovf), eq)
	case t2.ovf != "":
		eq = and(not(t2.ovf), eq)
	}
	return and("(= "+t1.n+" "+t2.n+")", or(t1.n, eq))
}

// order checks ORDER BY and LIMIT: when rows must come in order, or a
// LIMIT keeps some of them, both sides must sort by the same keys, in the
// same directions, and the keys must determine the row (ties are then
// rows equal in every column, whose order changes nothing), with the same
// LIMIT and OFFSET. Otherwise ORDER BY changes nothing and is ignored.
func (k *kernel) order(b1, b2 *block, d *deps, m mode, where string) error {
	lim := b1.limit != nil || b2.limit != nil
	if !lim && !(m.top && m.ordered) {
		return nil
	}
	if !lim && b1.scalarAggregate() && b2.scalarAggregate() {
		return nil // one row
	}
	if len(b1.orderBy) == 0 || len(b1.orderBy) != len(b2.orderBy) {
		if lim {
			return refuse("LIMIT", "LIMIT without the same ORDER BY on both sides (%s)", where)
		}
		return refuse("order", "rows must come in order but the ORDER BY clauses differ (%s)", where)
	}
	if limitText(b1.limit) != limitText(b2.limit) {
		return refuse("LIMIT", "%q against %q (%s)", limitText(b1.limit), limitText(b2.limit), where)
	}
	var keys []sqlast.Expr
	for i, o1 := range b1.orderBy {
		o2 := b2.orderBy[i]
		if o1.Order != o2.Order || k.mappedText(o1.Expr, k.side(0), d) != k.mappedText(o2.Expr, k.side(1), d) {
			return refuse("ORDER BY", "ORDER BY terms differ (%s)", where)
		}
		keys = append(keys, o1.Expr)
	}
	if b1.distinct {
		// SELECT DISTINCT ... ORDER BY a column outside the output sorts
		// each distinct row by any of its source rows' values; grouped,
		// by the key of whichever of its groups the engine meets first,
		// which follows how the GROUP BY terms are written (the kernel
		// compares them as a set): GROUP BY a, b against GROUP BY b, a
		// under SELECT DISTINCT count(*) … ORDER BY a sort apart.
		outs := setOf(k.texts(b1.outputs, k.side(0), nil))
		for _, key := range keys {
			if !slices.Contains(outs, k.mappedText(key, k.side(0), nil)) {
				return refuse("ORDER BY", "SELECT DISTINCT sorted by %s, which is no output column (%s)", sqlast.Format(key), where)
			}
		}
	}
	row := b1.outputs
	if b1.aggregate {
		row = b1.groupBy
		if len(row) == 0 {
			return nil // a scalar aggregate: one row
		}
	}
	if !k.determinedBy(d, k.side(0), keys, row) {
		return k.upToTies(b1, b2, m, where)
	}
	return nil
}

// upToTies accepts an ORDER BY whose keys do not determine the row, at
// the statement's own level only: both sides sort the same bag of rows
// (the comparison proved it, keys included) by the same keys with the same
// LIMIT and OFFSET, so they allow the same results, and which of the rows
// that tie each returns is the engine's choice (k.ties, Certificate.Ties).
// Every output must be tie-safe on both sides (Canon.tieSafe), so that
// ordering by the keys and then by every output column (the search's
// tiebreak) gives one result, which the tripwire and the soundness fuzzer
// compare. In a subquery, a derived table or a WITH, the choice among ties
// feeds the rest of the query, and it is refused.
func (k *kernel) upToTies(b1, b2 *block, m mode, where string) error {
	if !m.top || m.sub || m.branch {
		return refuse("ties", "the ORDER BY keys do not determine the row (%s): rows that tie come in the engine's order", where)
	}
	top := !k.spider
	for i, b := range [2]*block{b1, b2} {
		c := k.c1
		if i == 1 {
			c = k.c2
		}
		for _, e := range b.outputs {
			if !c.tieSafe(e, top) {
				return refuse("ties", "the ORDER BY keys do not determine the row (%s), and output %s may hold values the engine takes for equal while they differ, so no tiebreak makes the result one", where, sqlast.Format(e))
			}
		}
	}
	k.ties = true
	return nil
}

// compound compares two compounds branch by branch.
func (k *kernel) compound(b1, b2 *block, m mode) error {
	if len(b1.branches) != len(b2.branches) {
		return refuse("compound", "compounds of %d and %d SELECTs", len(b1.branches), len(b2.branches))
	}
	same := true
	for i, op := range b1.ops {
		if op.Op != b2.ops[i].Op || op.All != b2.ops[i].All {
			return refuse("compound", "different set operators")
		}
		same = same && op.Op == b1.ops[0].Op && op.All == b1.ops[0].All
	}
	if m.top && m.ordered || b1.limit != nil || b2.limit != nil {
		return refuse("compound order", "ORDER BY or LIMIT on a compound query")
	}
	commutative := same && b1.ops[0].Op != "EXCEPT"
	setOp := false
	for _, op := range b1.ops {
		setOp = setOp || !op.All
	}
	used := map[int]bool{}
	for i, br1 := range b1.branches {
		if setOp && !(m.sub && m.kind == subExists) {
			if err := k.distinctOutputs(k.c1, br1, m.top, "compound"); err != nil {
				return err
			}
			if err := k.distinctOutputs(k.c2, b2.branches[i], m.top, "compound"); err != nil {
				return err
			}
		}
		j := -1
		for jj, br2 := range b2.branches {
			if f1 := br1.firstOcc(); f1 != nil && br2.owns(k.c2.byAlias[k.bij[f1.alias]]) {
				j = jj
			}
		}
		if j < 0 || used[j] || (!commutative && j != i) {
			return refuse("compound", "branch %d has no partner", i+1)
		}
		used[j] = true
		bm := m
		bm.ordered, bm.branch = false, true
		if err := k.compare(br1, b2.branches[j], bm); err != nil {
			return err
		}
	}
	return nil
}

// setOf returns the distinct strings of xs, sorted.
func setOf(xs []string) []string {
	out := slices.Clone(xs)
	sort.Strings(out)
	return slices.Compact(out)
}
