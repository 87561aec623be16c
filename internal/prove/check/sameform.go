package check

import (
	"errors"
	"slices"

	"github.com/sqljudge/sqljudge/internal/sqlast"
)

// Two normal forms that are one query up to the renaming of the
// bijection give the same rows on every database, whatever they hold:
// the engine runs the same query. What the steps to them claim is less:
// each rule keeps the multiset of rows a FROM, WHERE and join produce,
// not the order the engine meets them in (right_to_left, left_join_elim,
// left_join_copies and join_elim change it). So the original queries give the rows of
// their normal forms only where nothing reads that order; sameForm
// accepts such a pair when the comparison does not read the forms (an
// outer join it does not model) and orderFreeForm finds nothing that
// reads the order: then neither original query reads it either, since no
// rule removes a LIMIT, an aggregate, a GROUP BY that keeps a bare column,
// a DISTINCT or a scalar subquery it would need.

// sameForm accepts two normal forms that compile refused with cause
// (only an outer join qualifies) when they are one query up to the
// bijection's renaming and the ON conditions of their LEFT JOINs, under
// the identity column map, without a row order to keep (ordered false),
// and free of the scan order (orderFreeForm). Each pair of LEFT JOIN ON
// conditions (the i-th of each, in the order of the text) whose texts
// differ becomes an obligation (onObligation): then every LEFT JOIN keeps
// the same pairs of rows, and the queries are one query. same reports
// whether the forms are one query up to those ONs (the shortcut
// applies); err is then why it does not prove them, nil when it does,
// with the facts that freedom relies on.
func (k *kernel) sameForm(cols []int, ordered bool, cause error) (facts []Fact, same bool, err error) {
	var r *Refusal
	if !errors.As(cause, &r) || r.Construct != "outer join" {
		return nil, false, nil
	}
	q1, ons1 := k.formWithoutOns(k.c1, k.side(0))
	q2, ons2 := k.formWithoutOns(k.c2, k.side(1))
	if q1 != q2 || len(ons1) != len(ons2) || !slices.Equal(cols, identity(len(cols))) {
		return nil, false, nil
	}
	if ordered {
		return nil, true, refuse("order", "the same query up to renaming, with an outer join, where rows must come in order: a rule may have changed the order the engine meets them in")
	}
	facts, err = k.c1.orderFreeForm()
	if err != nil {
		return nil, true, err
	}
	for i := range ons1 {
		if k.mappedText(ons1[i].on, k.side(0), nil) == k.mappedText(ons2[i].on, k.side(1), nil) {
			continue
		}
		if err := k.onObligation(ons1[i], ons2[i]); err != nil {
			return nil, true, err
		}
	}
	return facts, true, nil
}

// leftOn is the ON condition of a LEFT JOIN of a canonical form, with the
// conditions that hold on every row of its left side: the ONs of the
// inner joins before it and the WHERE conjuncts of its SELECT that read
// only columns of tables before it (a WHERE that reads the left side alone
// filters the left rows before the join as after it: σp(L ⟕ R) = σp(L) ⟕
// R, so the ON is never decisive on a left row p rejects).
type leftOn struct {
	on    sqlast.Expr
	holds []sqlast.Expr
}

// formWithoutOns prints c (renamed by sd, as mappedText) with the ON of
// every LEFT JOIN replaced by TRUE, and returns those ONs in the order of
// the text.
func (k *kernel) formWithoutOns(c *Canon, sd side) (string, []leftOn) {
	var ons []leftOn
	cores := coresOf(c.Stmt)
	for _, sq := range cores {
		var before []sqlast.Expr // inner ONs before the join
		seen := map[string]bool{}
		for _, t := range sq.From {
			if leftJoinOn(t) {
				on := leftOn{on: t.On, holds: slices.Clone(before)}
				for _, w := range optConjuncts(sq.Where) {
					if readsOnlyTables(c, w, seen) {
						on.holds = append(on.holds, w)
					}
				}
				ons = append(ons, on)
			} else if t.On != nil {
				before = append(before, conjuncts(t.On)...)
			}
			if t.Alias != nil {
				seen[lowerASCII(t.Alias.Name)] = true
			}
		}
	}
	clone := cloneExpr(&sqlast.SubqueryExpr{Select: c.Stmt})
	i := 0
	sqlast.Walk(clone, func(n sqlast.Node) bool {
		switch t := n.(type) {
		case *sqlast.TableRef:
			if leftJoinOn(t) {
				t.On = sqlast.NumberLiteral("1")
			}
		case *sqlast.SelectQuery:
			// * spelled out (the clone walks its cores in the order of
			// the original's), but not beside USING or NATURAL, whose
			// * shows a merged column once.
			if i < len(cores) && !mergesColumns(t) {
				spellStars(c.scopes[cores[i]], t)
			}
			i++
		}
		return true
	})
	return k.mappedText(clone, sd, nil), ons
}

// leftJoinOn reports whether t is a LEFT JOIN with an ON: not a FULL
// JOIN, whose unmatched right rows depend on the left rows a WHERE
// rejects (the canonical form refuses RIGHT and FULL JOINs anyway).
func leftJoinOn(t *sqlast.TableRef) bool {
	return t.Join != nil && t.Join.Type&sqlast.JoinLeft != 0 && t.Join.Type&sqlast.JoinRight == 0 && t.On != nil
}

// coresOf lists the SELECT cores of st in the order a walk meets them.
func coresOf(st *sqlast.SelectStmt) []*sqlast.SelectQuery {
	var out []*sqlast.SelectQuery
	sqlast.Walk(st, func(n sqlast.Node) bool {
		if sq, ok := n.(*sqlast.SelectQuery); ok {
			out = append(out, sq)
		}
		return true
	})
	return out
}

// mergesColumns reports whether a FROM item of sq is NATURAL or USING.
func mergesColumns(sq *sqlast.SelectQuery) bool {
	for _, t := range sq.From {
		if len(t.Using) > 0 || t.Join != nil && t.Join.Type&sqlast.JoinNatural != 0 {
			return true
		}
	}
	return false
}

// readsOnlyTables reports whether e reads columns of tables among the
// occurrences aliases names, and nothing else (no subquery).
func readsOnlyTables(c *Canon, e sqlast.Expr, aliases map[string]bool) bool {
	if holdsSubquery(e) {
		return false
	}
	ok := true
	sqlast.Walk(e, func(n sqlast.Node) bool {
		if r, isRef := n.(*sqlast.QualifiedRef); isRef {
			o, _, isCol := c.colOf(r)
			ok = ok && isCol && aliases[o.alias]
		}
		return ok
	})
	return ok
}

// onObligation adds the obligation that two LEFT JOIN ONs keep the same
// pairs of rows: TRUE on the same rows where what holds on the first's
// left side holds. Every column is read as nullable (a column of a table
// an earlier outer join extends is NULL on its added rows, NOT NULL or
// not). Both ONs must not fail (failFree): the engine evaluates an ON on
// pairs of rows in an order of its own, so a failure of one would not be
// the other's.
func (k *kernel) onObligation(a, b leftOn) error {
	if !failFree(a.on, k.d) || !failFree(b.on, k.d) {
		return refuse("outer join", "the ONs of a LEFT JOIN differ and one may fail (arithmetic on PostgreSQL, a function, LIKE, CASE or a subquery): the engine may evaluate it on pairs the other never fails on")
	}
	s := newScript(k.d)
	e1 := &encoder{s: s, env: kernelEnv{k: k, sd: k.side(0), nullable: true}}
	for _, h := range a.holds {
		if p, err := e1.cond(h); err == nil {
			s.assert(p.t)
		}
	}
	p1, err := e1.cond(a.on)
	if err != nil {
		return err
	}
	e2 := &encoder{s: s, env: kernelEnv{k: k, sd: k.side(1), nullable: true}}
	p2, err := e2.cond(b.on)
	if err != nil {
		return err
	}
	k.obligation(s, "the ON of a LEFT JOIN keeps the same pairs of rows: "+k.mappedText(a.on, k.side(0), nil), "(= "+p1.t+" "+p2.t+")")
	return nil
}

// orderFreeForm refuses a canonical form whose rows, as a multiset, may
// depend on the order the engine meets its FROM rows in: a LIMIT or
// OFFSET anywhere; an aggregate whose value depends on it (orderFree:
// group_concat, floating point sums, MIN or MAX of values equal but
// different); a window function, FILTER or an aggregate's ORDER BY; an
// aggregate SELECT that reads a column of its own FROM outside its
// aggregates other than a GROUP BY term, or groups by anything but a
// tie-safe column (the value of a group shown is that of a row the
// engine picks); DISTINCT or a set operation without ALL over an output
// that is not tie-safe (it keeps the first of values it takes for
// equal); a scalar subquery that is not an aggregate without GROUP BY
// (the engine takes its first row); an aggregate of an outer query
// written in a subquery. It returns the facts that freedom relies on
// (orderFacts).
func (c *Canon) orderFreeForm() ([]Fact, error) {
	if err := c.outerAggregate(); err != nil {
		return nil, err
	}
	if err := c.orderFreeNode(c.Stmt); err != nil {
		return nil, err
	}
	return c.orderFacts(), nil
}

// orderFreeNode checks what orderFreeForm checks of the statement n and
// the statements and expressions in it: nothing there reads the order
// the engine meets rows in.
func (c *Canon) orderFreeNode(n sqlast.Node) error {
	var err error
	sqlast.Walk(n, func(n sqlast.Node) bool {
		if err != nil {
			return false
		}
		switch t := n.(type) {
		case *sqlast.SelectStmt:
			err = c.orderFreeStmt(t)
		case *sqlast.SubqueryExpr:
			err = oneRow(t.Select)
		case *sqlast.FuncCall:
			switch {
			case t.Over != nil:
				err = refuse("window", "%s", sqlast.Format(t))
			case t.Filter != nil:
				err = refuse("FILTER", "%s", sqlast.Format(t))
			case len(t.OrderBy) > 0:
				err = refuse("aggregate order", "%s orders its rows", sqlast.Format(t))
			case isAggregateCall(t):
				err = c.orderFree(t)
			}
		}
		return err == nil
	})
	return err
}

// orderFreeStmt checks the SELECTs of one statement (not its
// subqueries, which orderFreeForm's walk reaches on its own).
func (c *Canon) orderFreeStmt(st *sqlast.SelectStmt) error {
	setOp := false
	for _, op := range st.Ops {
		setOp = setOp || !op.All
	}
	for _, core := range st.Cores {
		sq, ok := core.(*sqlast.SelectQuery)
		if !ok {
			return refuse("VALUES", "")
		}
		if sq.Limit != nil {
			return refuse("LIMIT", "a LIMIT keeps the rows the engine meets first")
		}
		if err := c.groupsFree(sq); err != nil {
			return err
		}
		if sq.Distinct == sqlast.DistinctDistinct || setOp {
			for _, col := range sq.Columns {
				if col.Expr == nil || !c.tieSafe(col.Expr, false) {
					return refuse("DISTINCT", "duplicates removed on %s, whose values the engine may take for equal while they differ: it keeps the first it meets", sqlast.Format(col))
				}
			}
		}
	}
	return nil
}

// groupsFree refuses an aggregate SELECT whose groups show a value of a
// row the engine picks: a GROUP BY term that is not a tie-safe column, or
// a column of its own FROM read outside its aggregates (in an output,
// HAVING, ORDER BY, or a subquery of these) that is not a GROUP BY term.
func (c *Canon) groupsFree(sq *sqlast.SelectQuery) error {
	var es []sqlast.Expr
	for _, col := range sq.Columns {
		if _, star := col.Expr.(*sqlast.Star); star {
			es = append(es, nil)
			continue
		}
		es = append(es, col.Expr)
	}
	if sq.Having != nil {
		es = append(es, sq.Having)
	}
	for _, o := range sq.OrderBy {
		es = append(es, o.Expr)
	}
	if !groups(sq) {
		return nil
	}
	terms := map[string]bool{}
	for _, g := range sq.GroupBy {
		o, i, ok := c.colOf(stripParens(g))
		if !ok || o.table == nil || !o.table.Columns[i].tieSafe(c.d) {
			return refuse("GROUP BY", "grouped by %s, which is not a tie-safe column: a group shows the value of a row the engine picks", sqlast.Format(g))
		}
		terms[sqlast.Format(stripParens(g))] = true
	}
	var err error
	check := func(r *sqlast.QualifiedRef) {
		if o, _, ok := c.colOf(r); ok && o.core == sq && !terms[sqlast.Format(r)] && err == nil {
			err = refuse("bare column", "%s is read outside an aggregate and grouped by no term: a group shows the value of a row the engine picks", sqlast.Format(r))
		}
	}
	for _, e := range es {
		if e == nil {
			return refuse("bare column", "* in an aggregate SELECT")
		}
		walkExpr(e, func(x sqlast.Expr) bool {
			switch t := x.(type) {
			case *sqlast.FuncCall:
				return !isAggregateCall(t)
			case *sqlast.QualifiedRef:
				check(t)
			case *sqlast.InExpr, *sqlast.ExistsExpr, *sqlast.SubqueryExpr:
				sqlast.Walk(t, func(n sqlast.Node) bool {
					if r, ok := n.(*sqlast.QualifiedRef); ok {
						check(r)
					}
					return err == nil
				})
			}
			return err == nil
		})
		if err != nil {
			return err
		}
	}
	return nil
}

// oneRow refuses a scalar subquery that may return several rows: one
// that is not a single SELECT aggregating without GROUP BY or LIMIT.
func oneRow(st *sqlast.SelectStmt) error {
	if len(st.Cores) == 1 {
		if sq, ok := st.Cores[0].(*sqlast.SelectQuery); ok && len(sq.GroupBy) == 0 && sq.Limit == nil {
			for _, col := range sq.Columns {
				if col.Expr != nil && containsAggregate(col.Expr) {
					return nil
				}
			}
		}
	}
	return refuse("scalar subquery", "a scalar subquery that is no aggregate may return several rows (the engine takes the first)")
}
