package check

import (
	"slices"

	"github.com/sqljudge/sqljudge/internal/sqlast"
)

// Scalar subquery goals of ConditionCover (issue 38): a conjunct that
// compares a value with an uncorrelated scalar subquery that aggregates
// one base table without GROUP BY (`amount < (SELECT AVG(amount) FROM
// trans WHERE year = '1998')`, BIRD's most common subquery) is left out
// of the other goals, so the rows that decide it are the draws'. Here
// the subquery's value is its aggregates' definitions (cover_group.go)
// over the rows of its table the goal puts in the database: the core's
// own rows of that table (copy 1; "mirrors", present always) and up to
// scalarRows - mirrors more, each present when the model says so and
// distinct from the others by key, each counted when it meets the
// subquery's WHERE. Goals: the conjunct TRUE ("scalar 1 holds"), TRUE
// with a NULL where the aggregate reads ("… null": AVG(x) against
// SUM(x) / COUNT(*)), the two sides equal ("… boundary"), and both.

// scalarRows is the number of rows of the subquery's table a scalar goal
// models, mirrors included.
const scalarRows = 4

// scalarGoals adds the scalar subquery goals of each such conjunct of cc
// and returns their flips (coverFlip), for goals to use in place of the
// core's own "false j" and "null j", which leave the scalar conjunct to
// the draws (a LEFT JOIN whose ON is NULL beside `amount < (SELECT
// AVG(amount) …)`: BIRD 145), and their duplicates (coverDup: two outer
// rows sharing one table's row, the comparison TRUE for each, COUNT
// against COUNT(DISTINCT) over a join beside it).
func (cv *Cover) scalarGoals(c *Canon, cc coverCore) ([]coverFlip, []coverDup) {
	var flips []coverFlip
	var dups []coverDup
	for i, x := range cc.conds {
		b, st, sq := scalarComparison(c, x, cc.occs)
		if sq == nil {
			continue
		}
		merged := scalarMerged(c, cc, i, sq, false)
		if f := cv.scalarGoalsOf(c, merged, b, st, sq, "scalar "+itoa(i+1)); f != nil {
			flips = append(flips, f)
			if d := cv.scalarDup(c, merged, b, st, sq, "scalar "+itoa(i+1)); d != nil {
				dups = append(dups, d)
			}
		}
	}
	return flips, dups
}

// scalarMerged is cc with its i-th condition, a scalar comparison whose
// subquery's SELECT is sq, left out and sq's table added last; with
// outputs, cc's outputs, aggregates, HAVING and GROUP BY kept (the
// frame's goals read them), else only its occurrences and conditions.
func scalarMerged(c *Canon, cc coverCore, i int, sq *sqlast.SelectQuery, outputs bool) coverCore {
	sub := c.byAlias[lowerASCII(sq.From[0].Alias.Name)]
	merged := coverCore{}
	if outputs {
		merged = cc
	}
	merged.occs = append(append([]*occurrence{}, cc.occs...), sub)
	merged.conds = append(append([]sqlast.Expr{}, cc.conds[:i]...), cc.conds[i+1:]...)
	return merged
}

// scalarFrame is the encoding of one scalar conjunct b with the core's
// rows of its first outer copies in the database: cs, over merged (the
// core's occurrences and, last, the subquery's) in max(scalarRows,
// mirrors + 2, outer) copies, the subquery's occurrence of copy k being the k-th
// row of its table the goal models — the core's own rows of that table
// first ("mirrors", present always, so counted), then rows present when
// the model says so, distinct by key, each counted when it meets the
// subquery's WHERE; base, the formulas every goal holds (copy 1's
// conditions, the mirrors, the keys of the modelled rows, the
// aggregates' definitions: cover_group.go); cmp[k], for k < outer, the
// comparison TRUE in copy k; rows, the rows a goal reads back; value and
// otherTerm, the subquery's term and the term of the side it is compared
// with (other); null, the formula that some counted row has
// the column the aggregate reads NULL ("" when it cannot be).
type scalarFrame struct {
	cs               *coverScript
	base, cmp        []string
	rows             []int
	other            sqlast.Expr
	value, otherTerm term
	oe               *encoder // copy 1's, the subquery's value in place
	null             string
}

// scalarFrame builds the frame above; nil when the encoder cannot write
// the comparison, the subquery's value or its WHERE.
func (cv *Cover) scalarFrame(c *Canon, merged coverCore, b *sqlast.BinaryExpr, st *sqlast.SelectStmt, sq *sqlast.SelectQuery, name string, outer int) *scalarFrame {
	n := len(merged.occs)
	s := n - 1
	var mirrors []int // the rows (copy * n + occurrence) of the subquery's table
	for k := range outer {
		for j, oc := range merged.occs[:s] {
			if oc.table == merged.occs[s].table {
				mirrors = append(mirrors, k*n+j)
			}
		}
	}
	nr := max(scalarRows, len(mirrors)+2, outer)
	cs := cv.encode(c, merged, nr)
	base := []string{cs.all(0)}
	var rows []int
	for k := range outer {
		rows = append(rows, cs.rows[k*n:k*n+s]...)
	}
	present := make([]string, nr)
	for k := range nr {
		if k < len(mirrors) {
			present[k] = "true"
			base = append(base, sameConsts(cs.cols[k*n+s], cs.cols[mirrors[k]]))
		} else {
			present[k] = "|" + name + " present#" + itoa(k+1) + "|"
			cs.s.declare(present[k], "(declare-const "+present[k]+" Bool)")
			cv.Rows[cs.rows[k*n+s]].Present = present[k]
			rows = append(rows, cs.rows[k*n+s])
		}
		if len(merged.occs[s].table.Keys) > 0 {
			for j := range k {
				base = append(base, "(=> (and "+present[j]+" "+present[k]+") "+not(cs.sameRow(s, j, k, n))+")")
			}
		}
	}
	// Counted: a row present that meets the subquery's WHERE, which reads
	// a correlated column of the core in copy 1 (one value of the
	// subquery, so one outer row: a correlated frame holds one copy).
	pin := map[*occurrence]int{}
	for _, oc := range merged.occs[:s] {
		pin[oc] = 1
	}
	if outer > 1 && correlated(c, st) {
		return nil
	}
	counted := make([]string, nr)
	for k := range nr {
		w := []string{present[k]}
		if sq.Where != nil {
			for _, x := range conjuncts(sq.Where) {
				e := cs.encoder(c, k+1)
				e.env = coverEnv{c: c, copy: k + 1, dated: cs.dated, pin: pin}
				p, err := e.cond(x)
				if err != nil {
					return nil
				}
				w = append(w, p.t)
			}
		}
		counted[k] = and(w...)
	}
	e := cs.encoder(c, 1)
	e.agg = true
	value, ok, err := e.scalar(sq.Columns[0].Expr)
	if err != nil || !ok || value.srt == "" {
		return nil
	}
	base = append(base, cs.defineAggregates(c, []sqlast.Expr{sq.Columns[0].Expr}, counted)...)
	fr := &scalarFrame{cs: cs, rows: rows, value: value}
	subTerms := map[*sqlast.SelectStmt]term{st: value}
	for k := range outer {
		oe := cs.encoder(c, k+1)
		oe.subTerms = subTerms
		p, err := oe.cond(b)
		if err != nil {
			return nil
		}
		fr.cmp = append(fr.cmp, p.t)
	}
	fr.other = b.X
	if _, ok := stripParens(b.X).(*sqlast.SubqueryExpr); ok {
		fr.other = b.Y
	}
	oe := cs.encoder(c, 1)
	oe.subTerms = subTerms
	o, ok, err := oe.scalar(fr.other)
	if err != nil || !ok || o.srt == "" {
		return nil
	}
	fr.otherTerm, fr.oe = o, oe
	fr.null = cs.nullCounted(c, sq.Columns[0].Expr, counted)
	for _, x := range []sqlast.Expr{sq.Columns[0].Expr, sq.Where, fr.other} {
		walkExpr(x, func(y sqlast.Expr) bool {
			if r, ok := y.(*sqlast.QualifiedRef); ok {
				cv.markRead(cs, c, r, nr)
			}
			return true
		})
	}
	fr.base = base
	return fr
}

// scalarGoalsOf writes the goals of one conjunct b (merged holds the
// core's occurrences and, last, the subquery's; st is the subquery, sq
// its SELECT) over its scalarFrame with one outer row, and returns the
// conjunct's flip; nil when it cannot.
func (cv *Cover) scalarGoalsOf(c *Canon, merged coverCore, b *sqlast.BinaryExpr, st *sqlast.SelectStmt, sq *sqlast.SelectQuery, name string) coverFlip {
	fr := cv.scalarFrame(c, merged, b, st, sq, name, 1)
	if fr == nil {
		return nil
	}
	eq, ok := fr.oe.relate(sqlast.OpEq, fr.otherTerm, fr.value)
	if !ok || eq == "false" {
		return nil
	}
	cs, base, rows, null := fr.cs, fr.base, fr.rows, fr.null
	boundary := and(not(fr.otherTerm.n), not(fr.value.n), eq)
	cv.add(name+" holds", cs, append(base, fr.cmp[0]), rows)
	if null != "" {
		cv.add(name+" null", cs, append(base, fr.cmp[0], null), rows)
	}
	cv.add(name+" boundary", cs, append(base, boundary), rows)
	if null != "" {
		cv.add(name+" null boundary", cs, append(base, boundary, null), rows)
	}
	// base[0] is cs.all(0): the flip writes every condition but one.
	return cv.flipOf(cs, name+" holds", append(base[1:len(base):len(base)], fr.cmp[0]), rows)
}

// scalarDup is the duplicate of one conjunct b (as scalarGoalsOf) over
// its scalarFrame with two outer rows, each of the subquery's table
// mirrored (so counted), the comparison TRUE for both; nil when it
// cannot. A duplicate of a row of the subquery's table itself stays with
// the plain goal: one row shared by both copies would be counted twice.
func (cv *Cover) scalarDup(c *Canon, merged coverCore, b *sqlast.BinaryExpr, st *sqlast.SelectStmt, sq *sqlast.SelectQuery, name string) coverDup {
	fr := cv.scalarFrame(c, merged, b, st, sq, name, 2)
	if fr == nil {
		return nil
	}
	if eq, ok := fr.oe.relate(sqlast.OpEq, fr.otherTerm, fr.value); !ok || eq == "false" {
		return nil
	}
	s := len(merged.occs) - 1
	d := cv.dupOf(fr.cs, name+" holds", append(fr.base[:len(fr.base):len(fr.base)], fr.cs.all(1), fr.cmp[0], fr.cmp[1]), s, fr.rows)
	return func(i int) bool {
		return merged.occs[i].table != merged.occs[s].table && d(i)
	}
}

// nullCounted is the formula: some row counted has the first column an
// aggregate of x reads NULL ("" when none is a nullable column).
func (cs *coverScript) nullCounted(c *Canon, x sqlast.Expr, counted []string) string {
	var col *sqlast.QualifiedRef
	walkExpr(x, func(y sqlast.Expr) bool {
		if f, ok := y.(*sqlast.FuncCall); ok && isAggregateCall(f) && len(f.Args) == 1 && col == nil {
			col, _ = stripParens(f.Args[0]).(*sqlast.QualifiedRef)
		}
		return col == nil
	})
	if col == nil {
		return ""
	}
	if o, i, ok := c.colOf(col); !ok || o.table.Columns[i].NotNull {
		return ""
	}
	var some []string
	for k := range counted {
		t, err := cs.encoder(c, k+1).column(col)
		if err != nil {
			return ""
		}
		some = append(some, and(counted[k], t.n))
	}
	return or(some...)
}

// scalarComparison reads x as a comparison (= <> < <= > >=) of a value
// with a scalar subquery over one base table that aggregates without
// GROUP BY, HAVING, LIMIT or a nested subquery, uncorrelated or whose
// WHERE alone reads columns of outer (the core's occurrences: `stars >
// (SELECT AVG(r2.stars) FROM reviews r2 WHERE r2.movie_id = r.movie_id)`):
// the comparison, the subquery and its SELECT; nils otherwise.
func scalarComparison(c *Canon, x sqlast.Expr, outer []*occurrence) (*sqlast.BinaryExpr, *sqlast.SelectStmt, *sqlast.SelectQuery) {
	b, ok := stripParens(x).(*sqlast.BinaryExpr)
	if !ok || !comparison(b) {
		return nil, nil, nil
	}
	var st *sqlast.SelectStmt
	for _, side := range []sqlast.Expr{b.X, b.Y} {
		if s, ok := stripParens(side).(*sqlast.SubqueryExpr); ok {
			if st != nil {
				return nil, nil, nil
			}
			st = s.Select
		}
	}
	sq := simpleSelect(c, st)
	if sq == nil || len(sq.From) != 1 || len(sq.Columns) != 1 || sq.Columns[0].Expr == nil {
		return nil, nil, nil
	}
	sub := c.byAlias[lowerASCII(sq.From[0].Alias.Name)]
	agg, own := false, true
	for i, y := range []sqlast.Expr{sq.Columns[0].Expr, sq.Where} {
		walkExpr(y, func(z sqlast.Expr) bool {
			switch t := z.(type) {
			case *sqlast.FuncCall:
				agg = agg || isAggregateCall(t)
			case *sqlast.QualifiedRef:
				o, _, ok := c.colOf(t)
				if !ok || o != sub && (i == 0 || !slices.Contains(outer, o)) {
					own = false // correlated beyond the WHERE, or not with the core
				}
			case *sqlast.SubqueryExpr, *sqlast.ExistsExpr:
				own = false // nested
			case *sqlast.InExpr:
				own = own && t.Select == nil
			}
			return true
		})
	}
	if !agg || !own {
		return nil, nil, nil
	}
	return b, st, sq
}
