package sqlast

import (
	"fmt"
	"math/big"
	"strconv"
	"strings"
)

// MutationKind names a kind of one-step change to a query, the neighbour
// queries of test-suite distillation (Zhong, Yu, Klein, "Semantic
// Evaluation for Text-to-SQL with Distilled Test Suites", EMNLP 2020,
// section 3.2: drop a clause or a predicate or a select item, swap an
// aggregate, a comparison, ASC/DESC, AND/OR, LIKE/NOT LIKE, IN/NOT IN, a
// column, perturb a literal, drop DISTINCT or LIMIT).
type MutationKind string

// The kinds of mutations Mutants produces.
const (
	DropWhere       MutationKind = "drop_where"
	DropGroupBy     MutationKind = "drop_group_by" // with its HAVING
	DropHaving      MutationKind = "drop_having"
	DropOrderBy     MutationKind = "drop_order_by"
	DropLimit       MutationKind = "drop_limit"
	DropDistinct    MutationKind = "drop_distinct" // SELECT DISTINCT or agg(DISTINCT x)
	DropPredicate   MutationKind = "drop_predicate"
	DropSelectItem  MutationKind = "drop_select_item"
	SwapAggregate   MutationKind = "swap_aggregate"
	SwapComparison  MutationKind = "swap_comparison"
	FlipOrder       MutationKind = "flip_order"
	SwapAndOr       MutationKind = "swap_and_or"
	ToggleNotLike   MutationKind = "toggle_not_like"
	ToggleNotIn     MutationKind = "toggle_not_in"
	ReplaceColumn   MutationKind = "replace_column"
	PerturbLiteral  MutationKind = "perturb_literal"
	SwapSetOperator MutationKind = "swap_set_operator"
)

// Mutant is one neighbour query.
type Mutant struct {
	// Kind is the kind of change.
	Kind MutationKind
	// Pos is the byte offset in the parsed text of the node changed.
	Pos int
	// Desc says what changed, e.g. `count -> max`.
	Desc string
	// SQL is the changed query, printed.
	SQL string
}

// MutateOptions configure Mutants.
type MutateOptions struct {
	// Columns, if set, gives for a column reference the names it may be
	// replaced with (ReplaceColumn; names equal to the current one are
	// skipped). Without it no column is replaced.
	Columns func(ColumnRef) []string
}

// site is one place a mutation applies: apply changes the tree it was
// enumerated on.
type site struct {
	kind  MutationKind
	pos   int
	desc  string
	apply func()
}

// Mutants returns every one-step neighbour of q, in a deterministic order
// (clause-level changes core by core in source order, then expression
// changes in Rewrite order). q itself is not changed: each mutant is made
// on a fresh copy.
func (q *Query) Mutants(o MutateOptions) []Mutant {
	all := sites(q.Clone(), o, Format)
	out := make([]Mutant, 0, len(all))
	for k, s := range all {
		c := q.Clone()
		// Descriptions are only rendered once: enumerating the copy's
		// sites without them keeps each mutant linear in the query size.
		sites(c, o, noFormat)[k].apply()
		out = append(out, Mutant{Kind: s.kind, Pos: s.pos, Desc: s.desc, SQL: c.String()})
	}
	return out
}

var comparisons = []Operator{OpEq, OpNe, OpLt, OpLe, OpGt, OpGe}

var aggregates = []string{"max", "min", "count", "sum", "avg"}

func isComparison(op Operator) bool {
	for _, c := range comparisons {
		if c == op {
			return true
		}
	}
	return false
}

func noFormat(Node) string { return "" }

// sites enumerates the mutation sites of q's tree; format renders nodes
// for the descriptions.
func sites(q *Query, o MutateOptions, format func(Node) string) []site {
	var out []site
	add := func(k MutationKind, pos int, desc string, f func()) {
		out = append(out, site{k, pos, desc, f})
	}
	// Clause-level sites, core by core.
	Walk(q.Stmt, func(n Node) bool {
		switch t := n.(type) {
		case *SelectStmt:
			for i := range t.Ops {
				op := &t.Ops[i]
				for _, alt := range []string{"UNION", "INTERSECT", "EXCEPT"} {
					if alt != op.Op {
						add(SwapSetOperator, op.Pos(), op.Op+" -> "+alt, func() { op.Op, op.All = alt, false })
					}
				}
			}
		case *SelectQuery:
			coreSites(t, add, format)
		}
		return true
	})
	// Expression-level sites.
	q.exprs(func(e Expr) {
		switch t := e.(type) {
		case *FuncCall:
			name, ok := IsAggregate(t)
			if !ok {
				return
			}
			for _, alt := range aggregates {
				if alt == name || (t.Star && alt != "count") {
					continue
				}
				add(SwapAggregate, t.Pos(), name+" -> "+alt, func() { t.Name = Name(alt) })
			}
			if t.Distinct {
				add(DropDistinct, t.Pos(), name+"(DISTINCT ...) -> "+name+"(...)", func() { t.Distinct = false })
			}
		case *BinaryExpr:
			if isComparison(t.Op) {
				for _, alt := range comparisons {
					if alt != t.Op {
						add(SwapComparison, t.Pos(), t.Op.String()+" -> "+alt.String(), func() { t.Op = alt })
					}
				}
			}
		case *LikeExpr:
			if strings.EqualFold(t.Op.Name, "like") {
				add(ToggleNotLike, t.Pos(), notDesc(t.Not, "LIKE"), func() { t.Not = !t.Not })
			}
		case *InExpr:
			add(ToggleNotIn, t.Pos(), notDesc(t.Not, "IN"), func() { t.Not = !t.Not })
		case *Literal:
			for _, alt := range perturb(t) {
				add(PerturbLiteral, t.Pos(), t.Raw+" -> "+alt.Raw, func() { t.Kind, t.Value, t.Raw = alt.Kind, alt.Value, alt.Raw })
			}
		case *Ident, *QualifiedRef:
			if o.Columns == nil {
				return
			}
			ref, _ := columnRef(e)
			for _, name := range o.Columns(ref) {
				if name == ref.Name {
					continue
				}
				add(ReplaceColumn, ref.Pos, ref.Name+" -> "+name, func() { renameColumn(e, name) })
			}
		}
	})
	return out
}

func notDesc(not bool, op string) string {
	if not {
		return "NOT " + op + " -> " + op
	}
	return op + " -> NOT " + op
}

func renameColumn(e Expr, name string) {
	id := Name(name)
	switch t := e.(type) {
	case *Ident:
		t.Name, t.Raw, t.Quote = id.Name, id.Raw, id.Quote
	case *QualifiedRef:
		p := t.Parts[len(t.Parts)-1]
		p.Name, p.Raw, p.Quote = id.Name, id.Raw, id.Quote
	}
}

// perturb returns the replacements of a literal: n+1 and n-1 for a
// number, the string with "x" appended and the empty string for a string.
func perturb(l *Literal) []*Literal {
	switch l.Kind {
	case LitInteger:
		n, ok := new(big.Int).SetString(l.Value, 0)
		if !ok {
			return nil
		}
		var out []*Literal
		for _, d := range []int64{1, -1} {
			m := new(big.Int).Add(n, big.NewInt(d))
			if m.Sign() >= 0 { // a negative literal would print as a unary minus
				out = append(out, NumberLiteral(m.String()))
			}
		}
		return out
	case LitFloat:
		f, err := strconv.ParseFloat(l.Value, 64)
		if err != nil {
			return nil
		}
		var out []*Literal
		for _, d := range []float64{1, -1} {
			if g := f + d; g >= 0 {
				s := strconv.FormatFloat(g, 'f', -1, 64)
				if !strings.ContainsAny(s, ".eE") {
					s += ".0"
				}
				out = append(out, NumberLiteral(s))
			}
		}
		return out
	case LitString:
		out := []*Literal{StringLiteral(l.Value + "x")}
		if l.Value != "" {
			out = append(out, StringLiteral(""))
		}
		return out
	}
	return nil
}

// coreSites adds the clause-level sites of one SELECT core.
func coreSites(t *SelectQuery, add func(MutationKind, int, string, func()), format func(Node) string) {
	if t.Distinct == DistinctDistinct {
		add(DropDistinct, t.Pos(), "SELECT DISTINCT -> SELECT", func() { t.Distinct = DistinctNone })
	}
	if len(t.Columns) > 1 {
		for i, c := range t.Columns {
			add(DropSelectItem, c.Pos(), "drop select item "+strconv.Itoa(i+1)+": "+format(c), func() {
				t.Columns = append(t.Columns[:i:i], t.Columns[i+1:]...)
			})
		}
	}
	for _, f := range t.From {
		if f.On != nil {
			predicateSites(f.On, func(e Expr) { f.On = e }, "ON", add, format)
		}
	}
	if t.Where != nil {
		add(DropWhere, t.Where.Pos(), "drop WHERE "+format(t.Where), func() { t.Where = nil })
		predicateSites(t.Where, func(e Expr) { t.Where = e }, "WHERE", add, format)
	}
	if len(t.GroupBy) > 0 {
		add(DropGroupBy, t.GroupBy[0].Pos(), "drop GROUP BY (and HAVING)", func() { t.GroupBy, t.Having = nil, nil })
	}
	if t.Having != nil {
		add(DropHaving, t.Having.Pos(), "drop HAVING "+format(t.Having), func() { t.Having = nil })
		predicateSites(t.Having, func(e Expr) { t.Having = e }, "HAVING", add, format)
	}
	if len(t.OrderBy) > 0 {
		add(DropOrderBy, t.OrderBy[0].Pos(), "drop ORDER BY", func() { t.OrderBy = nil })
		for _, o := range t.OrderBy {
			to, desc := SortDesc, "ASC -> DESC"
			if o.Order == SortDesc {
				to, desc = SortAsc, "DESC -> ASC"
			}
			add(FlipOrder, o.Pos(), format(o.Expr)+": "+desc, func() { o.Order = to })
		}
	}
	if t.Limit != nil {
		add(DropLimit, t.Limit.Pos(), "drop LIMIT", func() { t.Limit = nil })
	}
}

// predicateSites adds, for every AND/OR of a condition tree (through
// parentheses, not into subqueries), dropping either operand and swapping
// the connective. set replaces the clause's root.
func predicateSites(root Expr, set func(Expr), clause string, add func(MutationKind, int, string, func()), format func(Node) string) {
	var visit func(e Expr, replace func(Expr))
	visit = func(e Expr, replace func(Expr)) {
		switch t := e.(type) {
		case *ParenExpr:
			visit(t.X, func(x Expr) { t.X = x })
		case *BinaryExpr:
			if t.Op != OpAnd && t.Op != OpOr {
				return
			}
			add(DropPredicate, t.X.Pos(), fmt.Sprintf("%s: drop %s", clause, format(t.X)), func() { replace(t.Y) })
			add(DropPredicate, t.Y.Pos(), fmt.Sprintf("%s: drop %s", clause, format(t.Y)), func() { replace(t.X) })
			alt := OpOr
			if t.Op == OpOr {
				alt = OpAnd
			}
			add(SwapAndOr, t.Pos(), clause+": "+t.Op.String()+" -> "+alt.String(), func() {
				t.Op = alt
				// AND binds tighter than OR: keep the tree's grouping in print.
				if l, ok := t.X.(*BinaryExpr); ok && (l.Op == OpAnd || l.Op == OpOr) {
					t.X = &ParenExpr{X: l}
				}
				if r, ok := t.Y.(*BinaryExpr); ok && (r.Op == OpAnd || r.Op == OpOr) {
					t.Y = &ParenExpr{X: r}
				}
			})
			visit(t.X, func(x Expr) { t.X = x })
			visit(t.Y, func(y Expr) { t.Y = y })
		}
	}
	visit(root, set)
}
