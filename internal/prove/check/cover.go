package check

import (
	"fmt"
	"slices"
	"strings"

	"github.com/sqljudge/sqljudge/internal/sqlast"
)

// Condition coverage for the counterexample search (issue 38): the
// conditions of one query (the conjuncts of its ON clauses and WHERE, in
// every SELECT of a compound) encoded by this package's encoder (encode.go:
// three-valued logic, SQLite's affinities and storage classes) over a few
// symbolic copies of the query's FROM row, and one SMT-LIB script per goal
// asking for a model in which the goal holds: every condition TRUE, one
// FALSE or NULL with the others TRUE (XData's condition coverage, Chandra
// et al., VLDB J. 2015), two copies meeting every condition that share the
// row of one table (duplicates through a join), LIMIT n + 1 copies that
// meet them, one group on its HAVING's boundaries (cover_group.go), and
// the rows a subquery conjunct reads (cover_sub.go, cover_scalar.go). A
// model is a database in waiting: the search (package
// equiv) concretises its rows, repairs them to the schema and runs both
// queries on them; whatever the encoding leaves uninterpreted (a function,
// a subquery it does not model) the engine decides there. Nothing here proves
// anything: a model that is no witness is simply not one.

// CoverOptions bounds the goals of ConditionCover.
type CoverOptions struct {
	// Copies is the number of symbolic copies of the FROM row (default
	// 2, at least 2, at most 4); a LIMIT n goal uses n + 1 when n + 1 <= MaxLimitRows.
	Copies int
	// MaxGoals bounds the scripts returned (default 12).
	MaxGoals int
	// MaxLimitRows bounds the copies of a LIMIT goal (default 12: LIMIT 10,
	// common in BIRD, gets its 11 rows).
	MaxLimitRows int
}

// CoverColumn is one column of a symbolic row: the SMT constants of its
// value and null flag and the value's sort (Int, Real, String or V, the
// uninterpreted sort of a family the encoding does not model; Date and
// Timestamp for an Int that is the date YYYYMMDD, written 'YYYY-MM-DD',
// a timestamp's followed by ' 00:00:00': cover_date.go).
type CoverColumn struct {
	Value, Null, Sort string
	// Read: a condition reads the column (else it is declared only for
	// the table's keys).
	Read bool
	// NullRead: an aggregate reads the column, and only whether it is
	// NULL is the model's to say (its value is left to the search, where
	// a solver would put 0).
	NullRead bool
}

// CoverRow is a symbolic row of a base table: the table's name, the
// copy it belongs to (1, 2, ...), and its columns in the table's order.
type CoverRow struct {
	Table   string
	Copy    int
	Columns []CoverColumn
	// Present is the SMT Bool constant that puts the row in the database
	// ("": always; a group goal's copies after the first: cover_group.go).
	Present string
}

// CoverGoal is one script: its name ("holds", "false 2", "null 2",
// "duplicate t1", "limit 6"), its SMT-LIB text (ending in check-sat and
// get-value of every constant of its rows), and the rows (indexes into
// Cover.Rows) a model of it puts in the database.
type CoverGoal struct {
	Name string
	SMT  string
	Rows []int
}

// Cover is the condition coverage of one query: its symbolic rows and
// its goals.
type Cover struct {
	Rows  []CoverRow
	Goals []CoverGoal
}

// coverEnv names a column of the canonical form in one copy: "t1.age#2"
// (pin's copy for an occurrence pinned);
// a text column in dated is a date text (a query reads it with STRFTIME
// or DATE).
type coverEnv struct {
	c     *Canon
	copy  int
	dated map[colKey]bool
	// pin: occurrences read in a fixed copy (a correlated subquery's
	// outer row, cover_scalar.go), whatever copy the rest reads.
	pin map[*occurrence]int
}

func (v coverEnv) column(r *sqlast.QualifiedRef) (string, string, Column, error) {
	o, i, ok := v.c.colOf(r)
	if !ok {
		return "", "", Column{}, refuse("column", "%s is not a column of a table", sqlast.Format(r))
	}
	col := o.table.Columns[i]
	if col.Temporal == TemporalNone && col.family(v.c.d) == Text && v.dated[keyOf(o, i)] {
		col.Temporal = TemporalDate
	}
	k := v.copy
	if p, ok := v.pin[o]; ok {
		k = p
	}
	return o.alias + "." + o.colName(i) + "#" + itoa(k), o.table.Name, col, nil
}

// datedColumns are the columns the statement reads with STRFTIME or
// DATE.
func datedColumns(c *Canon) map[colKey]bool {
	out := map[colKey]bool{}
	visit := func(x sqlast.Expr) {
		f, ok := x.(*sqlast.FuncCall)
		if !ok || len(f.Args) == 0 {
			return
		}
		arg := f.Args[0]
		switch lowerASCII(f.Name.Name) {
		case "strftime":
			if len(f.Args) < 2 {
				return
			}
			arg = f.Args[1]
		case "date":
		default:
			return
		}
		if r, ok := stripParens(arg).(*sqlast.QualifiedRef); ok {
			if o, i, ok := c.colOf(r); ok {
				out[keyOf(o, i)] = true
			}
		}
	}
	for _, core := range c.Stmt.Cores {
		sq, ok := core.(*sqlast.SelectQuery)
		if !ok {
			continue
		}
		exprs := []sqlast.Expr{sq.Where, sq.Having}
		for _, rc := range sq.Columns {
			exprs = append(exprs, rc.Expr)
		}
		for _, t := range sq.From {
			exprs = append(exprs, t.On)
		}
		for _, o := range sq.OrderBy {
			exprs = append(exprs, o.Expr)
		}
		for _, x := range exprs {
			walkExpr(x, func(y sqlast.Expr) bool { visit(y); return true })
		}
	}
	return out
}

func (v coverEnv) aggregateKey(f *sqlast.FuncCall) string { return sqlast.Format(f) }

// subquery: a subquery has no symbol here; a condition holding one is
// left out (unconstrained) of the goals but those of cover_sub.go and
// cover_scalar.go, and the engine decides it.
func (v coverEnv) subquery(*sqlast.SelectStmt) (*subSym, encodeEnv) { return nil, nil }

// coverCore is one SELECT's base-table occurrences and conditions, the
// conditions its outputs test (a CASE's WHEN, an IIF's first argument:
// outConds) and the columns its aggregates read (aggCols: COUNT(x),
// SUM(x), AVG(x) ...).
type coverCore struct {
	occs     []*occurrence
	conds    []sqlast.Expr
	outConds []sqlast.Expr
	aggCols  []*sqlast.QualifiedRef
	outCols  []*sqlast.QualifiedRef // the outputs that are columns
	// having: the conjuncts of HAVING; groupBy: the GROUP BY terms.
	having  []sqlast.Expr
	groupBy []sqlast.Expr
}

// ConditionCover encodes the conditions of sql (one SELECT, read as
// Canonicalize reads it over s, aliases t1, t2, ...) and returns its
// goals; an error when the query has no canonical form (a *Refusal) or
// reads no base table. A condition the encoder refuses (a subquery) is
// left out of every goal but the subquery goals of its own (cover_sub.go,
// cover_scalar.go).
func ConditionCover(sql string, s Schema, o CoverOptions) (*Cover, error) {
	o.defaults()
	c, err := coverReading(sql, s)
	if err != nil {
		return nil, err
	}
	cores := coverCores(c)
	if len(cores) == 0 {
		return nil, refuse("FROM", "no base table")
	}
	cv := &Cover{}
	for _, cc := range cores {
		cv.goals(c, cc, o, limitOf(c.Stmt))
	}
	if len(cv.Goals) > o.MaxGoals {
		cv.Goals = cv.Goals[:o.MaxGoals]
	}
	return cv, nil
}

func (o *CoverOptions) defaults() {
	if o.Copies <= 0 {
		o.Copies = 2
	}
	o.Copies = max(2, min(o.Copies, 4))
	if o.MaxGoals <= 0 {
		o.MaxGoals = 12
	}
	if o.MaxLimitRows <= 0 {
		o.MaxLimitRows = 12
	}
}

// coverCores lists the SELECTs of the top-level statement with a base
// table in FROM.
func coverCores(c *Canon) []coverCore {
	var out []coverCore
	for _, core := range c.Stmt.Cores {
		sq, ok := core.(*sqlast.SelectQuery)
		if !ok {
			continue
		}
		var cc coverCore
		for _, t := range sq.From {
			if t.Alias == nil {
				continue
			}
			oc := c.byAlias[lowerASCII(t.Alias.Name)]
			if oc == nil || oc.table == nil {
				continue
			}
			cc.occs = append(cc.occs, oc)
			if t.On != nil {
				cc.conds = append(cc.conds, conjuncts(t.On)...)
			}
		}
		if sq.Where != nil {
			cc.conds = append(cc.conds, conjuncts(sq.Where)...)
		}
		cc.outputs(sq)
		if sq.Having != nil {
			cc.having = conjuncts(sq.Having)
		}
		cc.groupBy = sq.GroupBy
		if len(cc.occs) > 0 {
			out = append(out, cc)
		}
	}
	return out
}

// outputs collects the conditions the SELECT's outputs, HAVING and ORDER
// BY test inside a CASE or an IIF or count in an aggregate (SUM(g = 'M')),
// and the columns its aggregates read,
// each once (by its text).
func (cc *coverCore) outputs(sq *sqlast.SelectQuery) {
	exprs := aggregateTerms(sq)
	for _, rc := range sq.Columns {
		if r, ok := stripParens(rc.Expr).(*sqlast.QualifiedRef); ok {
			cc.outCols = append(cc.outCols, r)
		}
	}
	seen := map[string]bool{}
	once := func(x sqlast.Expr) bool {
		k := sqlast.Format(x)
		if seen[k] {
			return false
		}
		seen[k] = true
		return true
	}
	for _, x := range exprs {
		walkExpr(x, func(y sqlast.Expr) bool {
			switch t := y.(type) {
			case *sqlast.SubqueryExpr, *sqlast.ExistsExpr:
				return false
			case *sqlast.CaseExpr:
				if t.Operand == nil {
					for _, w := range t.Whens {
						if once(w.When) {
							cc.outConds = append(cc.outConds, w.When)
						}
					}
				}
			case *sqlast.FuncCall:
				name := lowerASCII(t.Name.Name)
				if name == "iif" && len(t.Args) == 3 && once(t.Args[0]) {
					cc.outConds = append(cc.outConds, t.Args[0])
				}
				if isAggregateCall(t) && len(t.Args) == 1 {
					if r, ok := stripParens(t.Args[0]).(*sqlast.QualifiedRef); ok && once(r) {
						cc.aggCols = append(cc.aggCols, r)
					}
					if comparison(t.Args[0]) && once(t.Args[0]) {
						cc.outConds = append(cc.outConds, t.Args[0]) // SUM(g = 'M') counts the rows where it holds
					}
				}
			}
			return true
		})
	}
}

// comparison reports whether x (parentheses aside) compares two values
// (= <> < <= > >=): a condition an aggregate reads as 1, 0 or NULL.
func comparison(x sqlast.Expr) bool {
	b, ok := stripParens(x).(*sqlast.BinaryExpr)
	if !ok {
		return false
	}
	switch b.Op {
	case sqlast.OpEq, sqlast.OpNe, sqlast.OpLt, sqlast.OpLe, sqlast.OpGt, sqlast.OpGe:
		return true
	}
	return false
}

// limitOf is the statement's LIMIT when it is a whole number literal
// (without OFFSET), else -1.
func limitOf(st *sqlast.SelectStmt) int {
	last, ok := st.Cores[len(st.Cores)-1].(*sqlast.SelectQuery)
	if !ok || last.Limit == nil || last.Limit.Offset != nil {
		return -1
	}
	l, ok := stripParens(last.Limit.Count).(*sqlast.Literal)
	if !ok || l.Kind != sqlast.LitInteger {
		return -1
	}
	n := 0
	for _, ch := range l.Value {
		if n > 1000 {
			return -1
		}
		n = n*10 + int(ch-'0')
	}
	return n
}

// coverScript is the script of one core under construction: the
// conditions of each copy, encoded.
type coverScript struct {
	s     *script
	dated map[colKey]bool
	occs  []*occurrence
	rows  []int         // the rows of each (copy, occurrence): copy*len(occs)+i
	preds [][]pred      // per copy, per encoded condition
	src   []sqlast.Expr // the condition each of preds[k] encodes
	cols  [][]colConsts // per row, per column
	// outs: per copy, per encoded condition an output tests; nulls: per
	// copy, the null flag of each column an aggregate reads.
	outs  [][]pred
	nulls [][]string
	// bounds: the boundary of each comparison with a literal, in copy 1.
	bounds []coverBound
}

// coverBound is the boundary of a condition (its index in preds): the
// formula that its column equals its literal.
type coverBound struct {
	cond int
	at   string
}

type colConsts struct{ v, n string }

// goals adds the goals of one core, those most likely to tell two
// near-equal queries apart first (the goals of a query are cut at
// CoverOptions.MaxGoals): every condition TRUE; the rows a subquery
// conjunct reads (cover_sub.go) and the rows a scalar subquery
// aggregates (cover_scalar.go); duplicates through a
// join; two rows with the same output; LIMIT n + 1 rows; one group on
// its HAVING's boundaries (cover_group.go); a NULL where an aggregate reads; each condition
// an output tests TRUE in one row and not in another; each comparison
// with a literal on its boundary; then each condition FALSE and NULL.
func (cv *Cover) goals(c *Canon, cc coverCore, o CoverOptions, limit int) {
	copies := o.Copies
	if limit >= 0 && limit+1 <= o.MaxLimitRows {
		copies = max(copies, limit+1)
	}
	base := cv.encode(c, cc, o.Copies)
	first := base.rows[:len(cc.occs)]
	two := base.rows[:2*len(cc.occs)]
	cv.add("holds", base, []string{base.all(0), base.known(0)}, first)
	flips, dups := cv.scalarGoals(c, cc)
	subFlips, subDups := cv.subqueryGoals(c, cc)
	flips, dups = append(flips, subFlips...), append(dups, subDups...)
	cv.duplicates(base, cc, two, dups)
	// The goals from here to the flips: over an encoding that models the
	// rows of a subquery conjunct and holds it TRUE in each copy when cc
	// has one (frameBuild), else over cc's own.
	build := cv.frameBuild(c, cc)
	f1, f2 := frameScript{base, first}, frameScript{base, two}
	if build != nil {
		f1, f2 = build(1), build(2)
	} else {
		build = func(n int) frameScript {
			cs := cv.encode(c, cc, n)
			return frameScript{cs, cs.rows}
		}
	}
	if len(cc.outCols) > 0 {
		// Its own rows: only here do the output columns take the model's
		// values (elsewhere they are drawn, more varied than Z3's).
		so := build(2)
		if same := cv.sameOutputs(so.cs, c, cc, 2); same != "" {
			var differ []string
			for j := range cc.occs {
				differ = append(differ, not(so.cs.sameRow(j, 0, 1, len(so.cs.occs))))
			}
			cv.add("same output", so.cs, []string{so.cs.all(0), so.cs.all(1), same, or(differ...)}, so.rows)
		}
	}
	if limit >= 0 && limit+1 <= o.MaxLimitRows {
		lim := build(copies)
		goal := []string{}
		for k := range limit + 1 {
			goal = append(goal, lim.cs.all(k))
			for j := range k {
				goal = append(goal, not(lim.cs.sameRow(0, j, k, len(lim.cs.occs))))
			}
		}
		cv.add("limit "+itoa(limit+1), lim.cs, goal, lim.rows)
	}
	cv.groupGoals(c, cc, o)
	for i, n := range f1.cs.nulls[0] {
		cv.add("null aggregate "+itoa(i+1), f1.cs, []string{f1.cs.all(0), n}, f1.rows)
		cv.add("null aggregate "+itoa(i+1)+" of 2", f2.cs, []string{f2.cs.all(0), f2.cs.all(1), f2.cs.nulls[0][i], not(f2.cs.nulls[1][i])}, f2.rows)
	}
	fb := f2.cs
	for i := range fb.outs[0] {
		cv.add("output condition "+itoa(i+1), fb, []string{fb.all(0), fb.all(1), fb.known(0), fb.known(1), fb.outs[0][i].t, not(fb.outs[1][i].t)}, f2.rows)
	}
	cv.duplicatesUnder(f2.cs, cc, f2.rows)
	for i, b := range f1.cs.bounds {
		cv.add("boundary "+itoa(i+1), f1.cs, append(f1.cs.allBut(0, b.cond), b.at), f1.rows)
	}
	// With a scalar subquery or a positive IN / EXISTS conjunct, each flip
	// holds the first such conjunct TRUE too (its rows modelled:
	// cover_scalar.go, cover_sub.go), in place of the plain flip, which
	// leaves it to the draws.
	for i, p := range base.preds[0] {
		others := base.allBut(0, i)
		if !flipWith(flips, base.src[i], i, false) {
			cv.add("false "+itoa(i+1), base, append(others, p.f), first)
		}
		if p.t != "false" && p.f != "false" && !flipWith(flips, base.src[i], i, true) {
			cv.add("null "+itoa(i+1), base, append(others, not(p.t), not(p.f)), first)
		}
	}
}

// frameScript is a script the goals after the duplicates are written on
// and the rows a goal over the copies it holds reads back (frameBuild).
type frameScript struct {
	cs   *coverScript
	rows []int
}

// coverFlip adds the goal "condition x FALSE (NULL when null), every
// other condition and one subquery conjunct TRUE" over an encoding that
// models the conjunct's rows, named after x's place i among the core's
// conditions, and reports whether it could (false when that encoding has
// no formula for x).
type coverFlip func(x sqlast.Expr, i int, null bool) bool

// flipOf is the coverFlip over cs: extra are the formulas that make the
// conjunct TRUE (with its rows' definitions), rows the rows to read back.
func (cv *Cover) flipOf(cs *coverScript, name string, extra []string, rows []int) coverFlip {
	extra = append([]string{}, extra...)
	return func(x sqlast.Expr, i int, null bool) bool {
		j := slices.Index(cs.src, x)
		if j < 0 {
			return false
		}
		q := cs.preds[0][j]
		goal := append(append([]string{}, extra...), cs.allBut(0, j)...)
		if null {
			if q.t == "false" || q.f == "false" {
				return false
			}
			cv.add(name+", null "+itoa(i+1), cs, append(goal, not(q.t), not(q.f)), rows)
			return true
		}
		cv.add(name+", false "+itoa(i+1), cs, append(goal, q.f), rows)
		return true
	}
}

// flipWith adds the flip of condition x (place i) by the first of flips
// that can write it, and reports whether one did.
func flipWith(flips []coverFlip, x sqlast.Expr, i int, null bool) bool {
	for _, f := range flips {
		if f(x, i, null) {
			return true
		}
	}
	return false
}

// duplicates adds, for each occurrence, two copies meeting every
// condition that share its row while another occurrence's rows differ
// (or, for a single table, two distinct rows); by the first of dups that
// can write it when the core has a positive subquery conjunct.
func (cv *Cover) duplicates(base *coverScript, cc coverCore, two []int, dups []coverDup) {
	plain := cv.dupOf(base, "", []string{base.all(0), base.all(1), base.known(0), base.known(1)}, len(cc.occs), two)
	for i := range cc.occs {
		if !slices.ContainsFunc(dups, func(d coverDup) bool { return d(i) }) {
			plain(i)
		}
	}
}

// dupOf is the coverDup over cs whose goal holds goal and, of cs's first
// nOuter occurrences (the core's), i's row shared by copies 0 and 1 while
// another's differs ("duplicate t1"), or two distinct rows when the core
// has no other ("two rows t1"); prefix, when not empty, names the
// conjunct the goal holds ("scalar 3 holds, duplicate t1").
func (cv *Cover) dupOf(cs *coverScript, prefix string, goal []string, nOuter int, rows []int) coverDup {
	if prefix != "" {
		prefix += ", "
	}
	n := len(cs.occs)
	return func(i int) bool {
		alias := cs.occs[i].alias
		if differ := cs.othersDiffer(i, nOuter); len(differ) > 0 {
			cv.add(prefix+"duplicate "+alias, cs, append(goal[:len(goal):len(goal)], cs.sameRow(i, 0, 1, n), or(differ...)), rows)
		} else {
			cv.add(prefix+"two rows "+alias, cs, append(goal[:len(goal):len(goal)], not(cs.sameRow(i, 0, 1, n))), rows)
		}
		return true
	}
}

// coverDup adds the duplicate goal of the core's occurrence i with one
// subquery conjunct TRUE in both copies, over an encoding that models the
// subquery's rows, in place of the plain one, and reports whether it
// could (cover_sub.go).
type coverDup func(i int) bool

// duplicatesUnder adds, for the first condition an output tests (a
// CASE's WHEN, an IIF's test) and each occurrence of a join, the duplicate
// goal with that condition TRUE in both copies: COUNT(CASE WHEN c THEN x
// END) against COUNT(DISTINCT …) differs only on a row the join repeats
// where c holds.
func (cv *Cover) duplicatesUnder(base *coverScript, cc coverCore, two []int) {
	if len(base.outs[0]) == 0 || len(cc.occs) < 2 {
		return
	}
	for i, oc := range cc.occs {
		goal := []string{base.all(0), base.all(1), base.known(0), base.known(1), base.outs[0][0].t, base.outs[1][0].t, base.sameRow(i, 0, 1, len(base.occs)), or(base.othersDiffer(i, len(cc.occs))...)}
		cv.add("duplicate "+oc.alias+" under output condition 1", base, goal, two)
	}
}

// othersDiffer is, for each of the first nOuter occurrences of cs but
// i, the formula that its row differs between copies 0 and 1.
func (cs *coverScript) othersDiffer(i, nOuter int) []string {
	var differ []string
	for j := range nOuter {
		if j != i {
			differ = append(differ, not(cs.sameRow(j, 0, 1, len(cs.occs))))
		}
	}
	return differ
}

// known is the formula: every nullable column an aggregate reads is not
// NULL in copy k (the goals that count rows: a NULL the draws put there
// would hide the count, SUM(x) / COUNT(id) being NULL on both sides; the
// null aggregate goals ask for the NULL).
func (cs *coverScript) known(k int) string {
	var ns []string
	for _, n := range cs.nulls[k] {
		ns = append(ns, not(n))
	}
	if len(ns) == 0 {
		return "true"
	}
	return and(ns...)
}

// all is the formula: every encoded condition is TRUE in copy k.
func (cs *coverScript) all(k int) string {
	return and(cs.allBut(k, -1)...)
}

// allBut lists the TRUE formulas of copy k's conditions but the skip-th
// ("true" when there is none).
func (cs *coverScript) allBut(k, skip int) []string {
	var ts []string
	for j, p := range cs.preds[k] {
		if j != skip {
			ts = append(ts, p.t)
		}
	}
	if len(ts) == 0 {
		return []string{"true"}
	}
	return ts
}

// encode declares every column of each occurrence in n copies, asserts
// the tables' keys across the rows, and encodes each condition in each
// copy (a condition the encoder refuses in copy 1 is left out).
func (cv *Cover) encode(c *Canon, cc coverCore, n int) *coverScript {
	cs := &coverScript{s: newScript(c.d), occs: cc.occs, dated: datedColumns(c)}
	for k := range n {
		e := cs.encoder(c, k+1)
		for _, oc := range cc.occs {
			row := CoverRow{Table: oc.table.Name, Copy: k + 1}
			var consts []colConsts
			for i := range oc.table.Columns {
				t, err := e.column(qualified(oc, i))
				if err != nil {
					t = term{}
				}
				srt := t.srt
				if t.tn != nil {
					srt = map[bool]string{false: "Date", true: "Timestamp"}[t.tn.longer]
				}
				row.Columns = append(row.Columns, CoverColumn{Value: t.v, Null: t.n, Sort: srt})
				consts = append(consts, colConsts{t.v, t.n})
			}
			cs.rows = append(cs.rows, len(cv.Rows))
			cs.cols = append(cs.cols, consts)
			cv.Rows = append(cv.Rows, row)
		}
	}
	cs.keys(cc.occs, n)
	cs.preds, cs.outs, cs.nulls = make([][]pred, n), make([][]pred, n), make([][]string, n)
	for _, x := range cc.conds {
		ps, ok := cv.encodeAll(cs, c, x, n)
		if !ok {
			continue
		}
		for k := range n {
			cs.preds[k] = append(cs.preds[k], ps[k])
		}
		cs.src = append(cs.src, x)
		cs.boundaries(c, x, len(cs.preds[0])-1)
	}
	for _, x := range cc.outConds {
		if ps, ok := cv.encodeAll(cs, c, x, n); ok {
			for k := range n {
				cs.outs[k] = append(cs.outs[k], ps[k])
			}
		}
	}
	for _, r := range cc.aggCols {
		if o, i, ok := c.colOf(r); !ok || o.table.Columns[i].NotNull {
			continue // never NULL
		}
		var ns []string
		for k := range n {
			e := cs.encoder(c, k+1)
			t, err := e.column(r)
			if err != nil {
				break
			}
			ns = append(ns, t.n)
		}
		if len(ns) < n {
			continue
		}
		for k := range n {
			cs.nulls[k] = append(cs.nulls[k], ns[k])
		}
		cv.markNullRead(cs, c, r, n)
	}
	return cs
}

// encoder is ConditionCover's encoder of copy k (1, 2, ...).
func (cs *coverScript) encoder(c *Canon, k int) *encoder {
	return &encoder{s: cs.s, env: coverEnv{c: c, copy: k, dated: cs.dated}, cover: true}
}

// sameOutputs is the formula: copies 1 and 2 output the same values
// (each column's null flags equal, and its values when not NULL); "" when
// an output is not a column or n < 2.
func (cv *Cover) sameOutputs(cs *coverScript, c *Canon, cc coverCore, n int) string {
	if n < 2 || len(cc.outCols) == 0 {
		return ""
	}
	var eq []string
	for _, r := range cc.outCols {
		a, err1 := cs.encoder(c, 1).column(r)
		b, err2 := cs.encoder(c, 2).column(r)
		if err1 != nil || err2 != nil {
			return ""
		}
		eq = append(eq, "(= "+a.n+" "+b.n+")", "(or "+a.n+" (= "+a.v+" "+b.v+"))")
		cv.markRead(cs, c, r, n)
	}
	return and(eq...)
}

// encodeAll encodes the condition x in each of n copies and marks the
// columns it reads; false when the encoder refuses it.
func (cv *Cover) encodeAll(cs *coverScript, c *Canon, x sqlast.Expr, n int) ([]pred, bool) {
	var ps []pred
	for k := range n {
		e := cs.encoder(c, k+1)
		p, err := e.cond(x)
		if err != nil {
			return nil, false
		}
		ps = append(ps, p)
	}
	cv.markReads(cs, c, n, x)
	return ps, true
}

// markReads marks every column xs read, in the first n copies of cs, as
// read by a condition.
func (cv *Cover) markReads(cs *coverScript, c *Canon, n int, xs ...sqlast.Expr) {
	for _, x := range xs {
		for _, l := range leavesOf(x) {
			if r, ok := l.(*sqlast.QualifiedRef); ok {
				cv.markRead(cs, c, r, n)
			}
		}
	}
}

// boundaries adds the boundary of condition i (x) when it compares a
// value with a literal by < <= > >= or BETWEEN: the value equal to the
// literal (each bound of a BETWEEN), where x > 5 and x >= 5 part.
func (cs *coverScript) boundaries(c *Canon, x sqlast.Expr, i int) {
	var pairs [][2]sqlast.Expr
	switch t := stripParens(x).(type) {
	case *sqlast.BetweenExpr:
		pairs = append(pairs, [2]sqlast.Expr{t.X, t.Lo}, [2]sqlast.Expr{t.X, t.Hi})
	case *sqlast.BinaryExpr:
		switch t.Op {
		case sqlast.OpLt, sqlast.OpLe, sqlast.OpGt, sqlast.OpGe:
			pairs = append(pairs, [2]sqlast.Expr{t.X, t.Y})
		}
	}
	for _, p := range pairs {
		if !isLiteralValue(p[1]) && !isLiteralValue(p[0]) {
			continue
		}
		e := cs.encoder(c, 1)
		a, oka, err := e.scalar(p[0])
		if err != nil || !oka || a.srt == "" {
			continue
		}
		b, okb, err := e.scalar(p[1])
		if err != nil || !okb || b.srt == "" {
			continue
		}
		eq, ok := e.relate(sqlast.OpEq, a, b)
		if !ok || eq == "false" {
			continue // uninterpreted, or never equal
		}
		cs.bounds = append(cs.bounds, coverBound{cond: i, at: and(not(a.n), not(b.n), eq)})
	}
}

// isLiteralValue reports whether x is a literal (a number, maybe
// negated, or a string).
func isLiteralValue(x sqlast.Expr) bool {
	x = stripParens(x)
	if u, ok := x.(*sqlast.UnaryExpr); ok && u.Op == sqlast.OpMinus {
		x = stripParens(u.X)
	}
	l, ok := x.(*sqlast.Literal)
	return ok && l.Kind != sqlast.LitNull
}

// markNullRead marks the column r in every copy as read by an aggregate.
func (cv *Cover) markNullRead(cs *coverScript, c *Canon, r *sqlast.QualifiedRef, n int) {
	cv.mark(cs, c, r, n, func(col *CoverColumn) { col.NullRead = true })
}

// markRead marks the column r in every copy as read by a condition.
func (cv *Cover) markRead(cs *coverScript, c *Canon, r *sqlast.QualifiedRef, n int) {
	cv.mark(cs, c, r, n, func(col *CoverColumn) { col.Read = true })
}

// mark applies set to the column r in the first n copies of cs (those
// of r's occurrence among cs's).
func (cv *Cover) mark(cs *coverScript, c *Canon, r *sqlast.QualifiedRef, n int, set func(*CoverColumn)) {
	o, i, ok := c.colOf(r)
	if !ok {
		return
	}
	for j, oc := range cs.occs {
		if oc == o {
			for k := range n {
				set(&cv.Rows[cs.rows[k*len(cs.occs)+j]].Columns[i])
			}
		}
	}
}

// keys asserts that two rows of a table that agree on a key (every
// column of it non-NULL) are the same row.
func (cs *coverScript) keys(occs []*occurrence, n int) {
	type inst struct{ occ, row int }
	var list []inst
	for k := range n {
		for i := range occs {
			list = append(list, inst{i, k*len(occs) + i})
		}
	}
	for a := range list {
		for b := a + 1; b < len(list); b++ {
			oa, ob := occs[list[a].occ], occs[list[b].occ]
			if oa.table != ob.table {
				continue
			}
			ca, cb := cs.cols[list[a].row], cs.cols[list[b].row]
			for _, key := range oa.table.Keys {
				var agree []string
				for _, i := range key.Cols {
					agree = append(agree, not(ca[i].n), not(cb[i].n), "(= "+ca[i].v+" "+cb[i].v+")")
				}
				cs.s.assert("(=> " + and(agree...) + " " + sameConsts(ca, cb) + ")")
			}
		}
	}
}

// sameRow is the formula: occurrence i has the same row in copies a and
// b. Two copies of a row of a table without a key are two rows, equal
// or not (a bag may hold a row twice): never the same.
func (cs *coverScript) sameRow(i, a, b, nOcc int) string {
	if len(cs.occs[i].table.Keys) == 0 {
		return "false"
	}
	return sameConsts(cs.cols[a*nOcc+i], cs.cols[b*nOcc+i])
}

func sameConsts(a, b []colConsts) string {
	var eq []string
	for i := range a {
		if a[i].v == "" || b[i].v == "" {
			continue
		}
		eq = append(eq, "(= "+a[i].n+" "+b[i].n+")", "(or "+a[i].n+" (= "+a[i].v+" "+b[i].v+"))")
	}
	if len(eq) == 0 {
		return "true"
	}
	return and(eq...)
}

// add writes one goal's script: the declarations and assertions of cs,
// the goal's formulas, check-sat and get-value of the rows' constants.
func (cv *Cover) add(name string, cs *coverScript, goal []string, rows []int) {
	var b strings.Builder
	fmt.Fprintf(&b, "; condition coverage: %s\n", name)
	for _, n := range cs.s.notes {
		fmt.Fprintf(&b, "; %s\n", oneLine(n))
	}
	for _, d := range cs.s.decls {
		b.WriteString(d + "\n")
	}
	for _, a := range cs.s.asserts {
		b.WriteString(a + "\n")
	}
	for _, g := range goal {
		b.WriteString("(assert " + g + ")\n")
	}
	b.WriteString("(check-sat)\n(get-value (")
	sep := ""
	for _, r := range rows {
		if p := cv.Rows[r].Present; p != "" {
			b.WriteString(sep + p)
			sep = " "
		}
		for _, c := range cv.Rows[r].Columns {
			if c.Value != "" {
				b.WriteString(sep + c.Value + " " + c.Null)
				sep = " "
			}
		}
	}
	b.WriteString("))\n")
	cv.Goals = append(cv.Goals, CoverGoal{Name: name, SMT: b.String(), Rows: rows})
}
