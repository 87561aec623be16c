package check

import (
	"fmt"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/sqljudge/sqljudge/internal/sqlast"
)

// Conditions that may fail. The encoding reads a condition as a truth
// value of its row and nothing else: an operand it leaves uninterpreted
// (a function, PostgreSQL's arithmetic) never fails there. The engines
// do fail on some rows (SQLite's abs of the smallest integer: "integer
// overflow"; PostgreSQL's division by zero, a cast of bad input, a scalar
// subquery of two rows), and whether they reach the failing operand at
// all depends on the order they evaluate the condition in: SQLite stops
// an AND at its first FALSE operand and an OR at its first TRUE one, in
// the order written, and PostgreSQL may reorder them. So `x > 0 AND
// abs(c) > 1` fails where `abs(c) > 1 AND x > 0` runs (a row with x = 0
// and the smallest c), and `abs(c) > 1 OR a = a` fails where `a = a`
// runs; the kernel proved both pairs, whose normal forms agree. Until the
// encoding models failure (a flag per operand that may fail, reached
// under each engine's order of evaluation), the prover and the checker
// refuse a pair whose conditions hold such an operand (ConditionRisk),
// unless its two queries are one text.

// ConditionRisk returns the first operand of a condition of q (a WHERE,
// an ON or a HAVING of any SELECT of q, a subquery inside one wholly)
// that may fail on some row on dialect d, as SQL text; "" when there is
// none or q does not parse (the canonical form then refuses it). What
// never fails: columns, literals, TRUE and FALSE; comparisons, AND, OR,
// NOT, IS, IS NULL, BETWEEN, IN, EXISTS, CASE; COUNT, MIN, MAX, AVG of
// such operands (SUM on PostgreSQL, TOTAL on SQLite); a LIKE or GLOB
// against a string pattern without ESCAPE (on PostgreSQL without a
// backslash, whose escape at a pattern's end fails); on SQLite also + - *
// / %, CAST, a scalar subquery (SQLite takes its first row), and the
// functions of sqliteNeverFails. On SQLite a double-quoted pattern that
// names no column of a table q reads (over s) is the string it spells.
func ConditionRisk(q string, s Schema) string {
	pq, err := sqlast.Parse(q)
	if err != nil {
		return ""
	}
	d := s.Dialect()
	isColumn := namesColumn(pq, s)
	risk := ""
	sqlast.Walk(pq.Stmt, func(n sqlast.Node) bool {
		sq, ok := n.(*sqlast.SelectQuery)
		if !ok || risk != "" {
			return risk == ""
		}
		conds := []sqlast.Expr{sq.Where, sq.Having}
		for _, f := range sq.From {
			conds = append(conds, f.On)
		}
		for _, c := range conds {
			if c != nil && risk == "" {
				risk = exprRisk(c, d, isColumn)
			}
		}
		return risk == ""
	})
	return risk
}

// DerivedRisk returns the first output of a FROM subquery or a WITH
// query of q that may fail on q's dialect (by neverFailsNode, its
// subqueries included) and that q does not read (below), as SQL text;
// "" when there is none or q does not parse. Rules drop an output the
// query around does not read (derived_merge, WITH inlined), but the
// engines may evaluate it all the same. PostgreSQL types it, and folds
// its constants, before it runs the query, on every database: `SELECT
// d.i FROM (SELECT i, a + 1 AS z FROM t) AS d` (a text) fails there
// ("operator does not exist"), and so does a CAST('x' AS INTEGER)
// output; the kernel proved both equal to `SELECT i FROM t`. SQLite
// computes every column of a WITH query (MATERIALIZED, or one it does not
// flatten: a compound, an ORDER BY read by an aggregate) and of a FROM
// subquery it does not flatten (a correlated one with an ORDER BY), on
// every row: `WITH c AS MATERIALIZED (SELECT i, abs(x) AS y FROM t)
// SELECT i FROM c` fails where x holds -2^63 ("integer overflow"), and
// the kernel proved it equal to `SELECT i FROM t`. The prover stops on
// such an output (`may fail`) and the checker refuses the pair.
//
// An output the query reads on every row the engine computes it on is
// left to the checks of the canonical form, where it stands where it is
// read (FormRisk, TypeRisk): an output of the statement's own SELECT, or
// an aggregate's argument there, when that SELECT reads the subquery
// alone, without WHERE or LIMIT; on PostgreSQL also an output of a
// simple subquery, which PostgreSQL pulls up (readOutputs).
func DerivedRisk(q string, s Schema) string {
	pq, err := sqlast.Parse(q)
	if err != nil {
		return ""
	}
	d := s.Dialect()
	isColumn := namesColumn(pq, s)
	read := readOutputs(pq.Select(), d)
	risk := ""
	outputs := func(st *sqlast.SelectStmt) {
		for _, core := range st.Cores {
			sq, ok := core.(*sqlast.SelectQuery)
			if !ok {
				continue
			}
			for _, col := range sq.Columns {
				if col.Expr != nil && risk == "" && !read[col] {
					risk = exprRisk(col.Expr, d, isColumn)
				}
			}
		}
	}
	sqlast.Walk(pq.Stmt, func(n sqlast.Node) bool {
		switch t := n.(type) {
		case *sqlast.TableRef:
			if t.Select != nil {
				outputs(t.Select)
			}
		case *sqlast.CTE:
			if t.Select != nil {
				outputs(t.Select)
			}
		}
		return risk == ""
	})
	return risk
}

// namesColumn returns whether a name is a column of a table q reads
// (over s): on SQLite a double-quoted name that is none is the string it
// spells (neverFailsNode's isColumn).
func namesColumn(q *sqlast.Query, s Schema) func(string) bool {
	return func(name string) bool {
		for _, u := range q.Tables() {
			if t := s.Table(u.Name); t != nil && t.Col(name) >= 0 {
				return true
			}
		}
		return false
	}
}

// readOutputs returns the outputs of FROM subqueries that a SELECT of
// st itself (each SELECT of its compound, not a subquery's) reads on
// every row the engine computes them on, whether it merges the subquery
// into the SELECT or computes the subquery's rows first (DerivedRisk):
//   - the subquery is the SELECT's only FROM item, the SELECT has no
//     WHERE and no LIMIT, and one of its outputs is the subquery's
//     output (`d.z` or `z`) or, in a SELECT that groups, an aggregate of
//     it alone (`sum(z)`, no FILTER) stands anywhere in its outputs,
//     HAVING or ORDER BY: every row of the subquery reaches it (a
//     WHERE, a join or a LIMIT would skip rows a computed subquery has
//     already evaluated it on: SQLite computes a subquery it does not
//     flatten, PostgreSQL one it does not pull up);
//   - on PostgreSQL also: the subquery is simple, which PostgreSQL pulls
//     up into the SELECT (one SELECT with a FROM, no GROUP BY, HAVING,
//     aggregate, DISTINCT, ORDER BY, LIMIT or WITH), the SELECT has no
//     outer join, and an output of the SELECT is `d.z`: PostgreSQL
//     evaluates it there, on the rows the canonical form evaluates it on
//     (under an outer join it computes a CASE output at the subquery's
//     scan, on every row: `SELECT d.z FROM t AS u LEFT JOIN (SELECT a,
//     CASE WHEN a > 0 THEN a + 1 END AS z FROM t) AS d ON …` fails on
//     the largest INTEGER whether or not it finds a match).
//
// The subquery is one SELECT with an alias, the name its output's alias
// or column name, and no other of its outputs has that name (PostgreSQL
// would fail the reference as ambiguous; SQLite would read the first).
// Names compare as dialect d resolves them: folded as PostgreSQL folds
// identifiers, or, on SQLite, without regard to ASCII case, quoted or
// not. nil for a nil st.
func readOutputs(st *sqlast.SelectStmt, d Dialect) map[*sqlast.ResultColumn]bool {
	if st == nil {
		return nil
	}
	fold := pgFold
	if d != Postgres {
		fold = func(id *sqlast.Ident) string { return lowerASCII(id.Name) }
	}
	read := map[*sqlast.ResultColumn]bool{}
	for _, core := range st.Cores {
		sq, ok := core.(*sqlast.SelectQuery)
		if !ok {
			continue
		}
		grouped := groups(sq)
		whole := len(sq.From) == 1 && sq.Where == nil && sq.Limit == nil && len(sq.Windows) == 0
		for _, tr := range sq.From {
			if tr.Select == nil || tr.Alias == nil || len(tr.Select.Cores) != 1 {
				continue
			}
			inner, ok := tr.Select.Cores[0].(*sqlast.SelectQuery)
			if !ok {
				continue
			}
			// Not on the side of an outer join that may lack a match:
			// PostgreSQL computes an output there that is not strict (a
			// CASE) at the subquery's scan, for every row of it, and so
			// where the join then finds no match.
			simple := d == Postgres && !outerJoined(sq) && tr.Select.With == nil && len(inner.From) > 0 && !groups(inner) &&
				inner.Distinct != sqlast.DistinctDistinct && len(inner.OrderBy) == 0 && inner.Limit == nil && len(inner.Windows) == 0
			byName := map[string][]*sqlast.ResultColumn{}
			for _, col := range inner.Columns {
				name := ""
				switch e := col.Expr.(type) {
				case *sqlast.Ident:
					name = fold(e)
				case *sqlast.QualifiedRef:
					name = fold(e.Parts[len(e.Parts)-1])
				}
				if col.Alias != nil {
					name = fold(col.Alias)
				}
				if name != "" {
					byName[name] = append(byName[name], col)
				}
			}
			alias := fold(tr.Alias)
			// output is the subquery's output e names, if any; qualified
			// tells `d.z` from `z`.
			output := func(e sqlast.Expr) (*sqlast.ResultColumn, bool) {
				var name string
				qualified := false
				switch r := e.(type) {
				case *sqlast.QualifiedRef:
					if len(r.Parts) != 2 || fold(r.Parts[0]) != alias {
						return nil, false
					}
					name, qualified = fold(r.Parts[1]), true
				case *sqlast.Ident:
					if r.Quote == sqlast.QuoteDouble && d == SQLite || !whole {
						return nil, false
					}
					name = fold(r)
				default:
					return nil, false
				}
				if cols := byName[name]; len(cols) == 1 {
					return cols[0], qualified
				}
				return nil, false
			}
			if grouped && whole {
				// An aggregate's argument is computed on every row of
				// its group wherever the aggregate stands (an output, the
				// HAVING, an ORDER BY term; inside a CAST or a CASE).
				for _, e := range aggregateTerms(sq) {
					if e == nil {
						continue
					}
					sqlast.Walk(e, func(n sqlast.Node) bool {
						switch f := n.(type) {
						case *sqlast.SelectStmt:
							return false
						case *sqlast.FuncCall:
							if isAggregateCall(f) && len(f.Args) == 1 && f.Filter == nil && f.Over == nil {
								if col, _ := output(f.Args[0]); col != nil {
									read[col] = true
								}
							}
						}
						return true
					})
				}
			}
			for _, out := range sq.Columns {
				col, qualified := output(out.Expr)
				switch {
				case col == nil:
				case whole && !grouped, simple && qualified:
					read[col] = true
				}
			}
		}
	}
	return read
}

// exprRisk returns the first node under e (subqueries included) that
// may fail on dialect d, as SQL text, "" when none does; isColumn tells
// a double-quoted column name from a string.
func exprRisk(e sqlast.Expr, d Dialect, isColumn func(string) bool) string {
	risk := ""
	sqlast.Walk(e, func(n sqlast.Node) bool {
		if risk != "" {
			return false
		}
		x, ok := n.(sqlast.Expr)
		if ok && !neverFailsNode(x, d, isColumn) {
			risk = clip(sqlast.Format(x))
		}
		return risk == ""
	})
	return risk
}

// sqliteNeverFails are SQLite's functions that return a value (NULL at
// worst) for any arguments of the sizes a database holds: none of them
// makes a string longer than its arguments, and each reads what it
// cannot parse as NULL (the date functions) or 0.
var sqliteNeverFails = map[string]bool{
	"lower": true, "upper": true, "length": true, "coalesce": true, "ifnull": true, "nullif": true,
	"iif": true, "typeof": true, "trim": true, "ltrim": true, "rtrim": true, "substr": true,
	"substring": true, "instr": true, "date": true, "time": true, "datetime": true,
	"julianday": true, "strftime": true, "min": true, "max": true, "count": true, "avg": true,
	"total": true,
}

// pgNeverFails are PostgreSQL's functions that fail on no row: the
// aggregates COUNT, MIN, MAX, and AVG and SUM of an integer (a bigint or
// numeric there, never an overflow); TypeRisk refuses AVG and SUM of
// anything else (a double precision overflows where two values near
// 1e308 meet, a numeric beyond its format), which this reading, without
// types, takes as an integer. Scalar functions are left out:
// beside their own errors, one given an argument of a type it does not
// take (lower of an integer, coalesce of an integer and a string) fails
// at planning, on every database, and the kernel does not type queries.
var pgNeverFails = map[string]bool{
	"count": true, "min": true, "max": true, "avg": true, "sum": true,
}

// smallInteger reports whether x is an integer literal below 46341 in
// magnitude, so that a sum, a difference or a product of two never leaves
// PostgreSQL's INTEGER.
func smallInteger(x sqlast.Expr) bool {
	l, ok := stripParens(x).(*sqlast.Literal)
	if !ok || l.Kind != sqlast.LitInteger || len(l.Value) > 5 {
		return false
	}
	n := 0
	for _, c := range l.Value {
		if c < '0' || c > '9' {
			return false
		}
		n = n*10 + int(c-'0')
	}
	return n < 46341
}

// neverFailsNode reports whether the node x itself (its operands are
// visited on their own) raises no error on any row on dialect d;
// isColumn (nil: none) tells a double-quoted column name from a string.
func neverFailsNode(x sqlast.Expr, d Dialect, isColumn func(string) bool) bool {
	switch t := x.(type) {
	case *sqlast.Ident, *sqlast.QualifiedRef, *sqlast.Literal, *sqlast.ParenExpr, *sqlast.CollateExpr,
		*sqlast.IsExpr, *sqlast.NullCheckExpr, *sqlast.BetweenExpr, *sqlast.InExpr, *sqlast.ExistsExpr,
		*sqlast.CaseExpr, *sqlast.Star:
		return true
	case *sqlast.BinaryExpr:
		switch t.Op {
		case sqlast.OpAnd, sqlast.OpOr, sqlast.OpEq, sqlast.OpNe, sqlast.OpLt, sqlast.OpLe, sqlast.OpGt, sqlast.OpGe:
			return true
		case sqlast.OpAdd, sqlast.OpSub, sqlast.OpMul:
			return d == SQLite || smallInteger(t.X) && smallInteger(t.Y)
		case sqlast.OpDiv, sqlast.OpMod:
			return d == SQLite
		}
	case *sqlast.UnaryExpr:
		if t.Op == sqlast.OpMinus || t.Op == sqlast.OpPlus {
			l, ok := stripParens(t.X).(*sqlast.Literal)
			return d == SQLite || ok && (l.Kind == sqlast.LitInteger || l.Kind == sqlast.LitFloat)
		}
		return t.Op == sqlast.OpNot
	case *sqlast.CastExpr:
		return d == SQLite
	case *sqlast.SubqueryExpr:
		return d == SQLite
	case *sqlast.LikeExpr:
		p, ok := stripParens(t.Y).(*sqlast.Literal)
		if id, quoted := stripParens(t.Y).(*sqlast.Ident); quoted && d == SQLite && id.Quote == sqlast.QuoteDouble && isColumn != nil && !isColumn(id.Name) {
			p, ok = sqlast.StringLiteral(id.Name), true
		}
		if t.Escape != nil || !ok || p.Kind != sqlast.LitString || len(p.Value) > 10000 {
			return false
		}
		switch strings.ToUpper(t.Op.Name) {
		case "LIKE":
			return d == SQLite || !strings.Contains(p.Value, "\\")
		case "GLOB":
			return d == SQLite
		case "ILIKE":
			return d == Postgres && !strings.Contains(p.Value, "\\")
		}
	case *sqlast.FuncCall:
		if t.Over != nil || t.Filter != nil {
			return false
		}
		name := lowerASCII(t.Name.Name)
		if d == Postgres {
			return pgNeverFails[name]
		}
		return sqliteNeverFails[name]
	}
	return false
}

// Operands that may fail outside conditions. Two normal forms the
// encoding finds equal produce the same rows where no operand fails; an
// output, a GROUP BY or ORDER BY term, an aggregate or a LIMIT that may
// fail must also fail on the same databases. FormRisk asks for that
// syntactically, block by block: each SELECT of the two normal forms
// (paired by its FROM's occurrences under the bijection) evaluates the
// same set of operands that may fail, in the same context, on rows the
// comparison has shown to be the same. What the engines do not evaluate
// on every row, or evaluate on rows of their own choosing, is refused.

// FormRisk returns why the normal forms nf1 and nf2 (canonical SQL;
// bij maps nf1's occurrences to nf2's) may fail on different databases
// on the dialect of s, "" when they fail on the same ones. A unit that
// may fail is an operand of an output, a GROUP BY, ORDER BY or LIMIT
// term that may fail (by neverFailsNode), or an aggregate call that may
// fail or whose arguments may (every aggregate of a SELECT is computed
// over every row of its group, whatever clause it is written in and
// whatever CASE it sits under). Units are keyed by their SELECT (the
// occurrences of its FROM, nf1's renamed by bij), their context (per
// row: GROUP BY terms, aggregate arguments, the outputs and ORDER BY of
// a SELECT that does not group; per group: those of one that does) and
// their text (nf1's renamed by bij); the two sets must be equal. An
// output term with such an operand under a CASE, COALESCE, IFNULL, IIF,
// AND or OR (which the engines evaluate lazily) is one unit as a whole.
// Refused outright: such an operand in a condition (outside an
// aggregate; see ConditionRisk), in a subquery expression, a derived
// table or a WITH (the engines evaluate those on rows of their own
// choosing: SQLite takes a scalar subquery's first row, both may drop a
// derived table's unused outputs), and in an output of a query with a
// LIMIT (computed for the rows kept only). The order in which SQLite's
// SUM adds integers, which decides whether it overflows when a running
// sum leaves 64 bits and the total does not, is the planner's: two
// queries summing the same rows are read as failing together.
func FormRisk(nf1, nf2 string, bij map[string]string, s Schema) string {
	u1, r := formUnits(nf1, bij, s)
	if r != "" {
		return "q1: " + r
	}
	u2, r := formUnits(nf2, nil, s)
	if r != "" {
		return "q2: " + r
	}
	in := func(us []failUnit, u failUnit) bool {
		for _, v := range us {
			if v.key() == u.key() {
				return true
			}
		}
		return false
	}
	for _, u := range u1 {
		if !in(u2, u) {
			return fmt.Sprintf("q1 evaluates %s %s, which may fail, and q2 does not", renamed(u.text, bij), u.ctx)
		}
	}
	for _, u := range u2 {
		if !in(u1, u) {
			return fmt.Sprintf("q2 evaluates %s %s, which may fail, and q1 does not", u.text, u.ctx)
		}
	}
	return ""
}

// renamed gives back the text of an expression of nf1 under its own
// occurrences' names (bij inverted), for a reader.
func renamed(text string, bij map[string]string) string {
	inv := map[string]string{}
	for k, v := range bij {
		inv[v] = k
	}
	pq, err := sqlast.Parse("SELECT " + text)
	if err != nil {
		return text
	}
	sqlast.Walk(pq.Stmt, func(n sqlast.Node) bool {
		if t, ok := n.(*sqlast.QualifiedRef); ok && len(t.Parts) >= 2 {
			if m, ok := inv[t.Parts[0].Name]; ok {
				t.Parts[0] = sqlast.Name(m)
			}
		}
		return true
	})
	if sel := pq.Select(); sel != nil && len(sel.Cores) == 1 {
		if q, ok := sel.Cores[0].(*sqlast.SelectQuery); ok && len(q.Columns) == 1 {
			return sqlast.Format(q.Columns[0].Expr)
		}
	}
	return text
}

// failUnit is one unit that may fail: the SELECT it belongs to (its
// FROM's occurrences), the context it is evaluated in and its text.
type failUnit struct{ block, ctx, text string }

func (u failUnit) key() string { return u.block + "\x00" + u.ctx + "\x00" + u.text }

// formUnits lists the units of nf that may fail, its occurrences renamed
// by bij (nil: kept), or says why nf is refused.
func formUnits(nf string, bij map[string]string, s Schema) ([]failUnit, string) {
	if bij != nil {
		// Refusals first, under nf's own names, for a reader.
		if _, r := formUnits(nf, nil, s); r != "" {
			return nil, r
		}
	}
	pq, err := sqlast.Parse(nf)
	if err != nil {
		return nil, "does not parse"
	}
	if bij != nil {
		sqlast.Walk(pq.Stmt, func(n sqlast.Node) bool {
			switch t := n.(type) {
			case *sqlast.QualifiedRef:
				if len(t.Parts) >= 2 {
					if m, ok := bij[t.Parts[0].Name]; ok {
						t.Parts[0] = sqlast.Name(m)
					}
				}
			case *sqlast.TableRef:
				if t.Alias != nil {
					if m, ok := bij[t.Alias.Name]; ok {
						t.Alias = sqlast.Name(m)
					}
				}
			}
			return true
		})
	}
	st, ok := pq.Stmt.(*sqlast.SelectStmt)
	if !ok {
		return nil, "not a SELECT"
	}
	w := &unitWalker{d: s.Dialect(), isColumn: namesColumn(pq, s)}
	w.stmt(st)
	return w.units, w.refused
}

// unitWalker collects the units of a normal form (see FormRisk).
type unitWalker struct {
	d        Dialect
	isColumn func(string) bool
	units    []failUnit
	refused  string
}

func (w *unitWalker) risk(n sqlast.Node) string {
	if n == nil {
		return ""
	}
	r := ""
	sqlast.Walk(n, func(x sqlast.Node) bool {
		if e, ok := x.(sqlast.Expr); ok && r == "" && !neverFailsNode(e, w.d, w.isColumn) {
			r = clip(sqlast.Format(e))
		}
		return r == ""
	})
	return r
}

// clip cuts s to its first 200 bytes (on a character boundary) and marks
// the cut with an ellipsis: the length of SQL text a refusal quotes.
func clip(s string) string {
	if len(s) <= 200 {
		return s
	}
	n := 200
	for n > 0 && !utf8.RuneStart(s[n]) {
		n-- // never cut a character in two
	}
	return s[:n] + "…"
}

func (w *unitWalker) refuse(format string, args ...any) {
	if w.refused == "" {
		w.refused = fmt.Sprintf(format, args...)
	}
}

func (w *unitWalker) add(block, ctx string, e sqlast.Node) {
	w.units = append(w.units, failUnit{block: block, ctx: ctx, text: clip(sqlast.Format(e))})
}

func (w *unitWalker) stmt(st *sqlast.SelectStmt) {
	if st.With != nil {
		if r := w.risk(st.With); r != "" {
			w.refuse("%s, in a WITH, may fail", r)
		}
	}
	limited := false
	for _, c := range st.Cores {
		if q, ok := c.(*sqlast.SelectQuery); ok && q.Limit != nil {
			limited = true
		}
	}
	for _, c := range st.Cores {
		q, ok := c.(*sqlast.SelectQuery)
		if !ok {
			if r := w.risk(c); r != "" {
				w.refuse("%s, in a VALUES, may fail", r)
			}
			continue
		}
		w.core(q, limited)
	}
}

// fromAliases lists the occurrences of a FROM (aliases, else table
// names), nested join lists included, sorted: the SELECT's key.
func fromAliases(from []*sqlast.TableRef) []string {
	var out []string
	var visit func(ts []*sqlast.TableRef)
	visit = func(ts []*sqlast.TableRef) {
		for _, t := range ts {
			switch {
			case t.Alias != nil:
				out = append(out, t.Alias.Name)
			case t.Name != nil:
				out = append(out, sqlast.Format(t.Name))
			}
			visit(t.List)
		}
	}
	visit(from)
	sort.Strings(out)
	return out
}

func (w *unitWalker) core(q *sqlast.SelectQuery, limited bool) {
	block := "[" + strings.Join(fromAliases(q.From), ",") + "]"
	var visit func(ts []*sqlast.TableRef)
	visit = func(ts []*sqlast.TableRef) {
		for _, t := range ts {
			if t.Select != nil {
				if r := w.risk(t.Select); r != "" {
					w.refuse("%s, in a derived table, may fail (the engines may drop a derived table's unused outputs)", r)
				}
			}
			for _, a := range t.Args {
				if r := w.risk(a); r != "" {
					w.refuse("%s, an argument of a table function, may fail", r)
				}
			}
			if t.On != nil {
				w.cond(block, t.On)
			}
			visit(t.List)
		}
	}
	visit(q.From)
	if q.Where != nil {
		w.cond(block, q.Where)
	}
	if q.Having != nil {
		w.cond(block, q.Having)
	}
	grouped := groups(q)
	out := "per row"
	if grouped {
		out = "per group"
	}
	for _, g := range q.GroupBy {
		w.term(block, "per row", g, false)
	}
	for _, c := range q.Columns {
		if c.Expr != nil {
			w.term(block, out, c.Expr, limited)
		}
	}
	for _, o := range q.OrderBy {
		w.term(block, out, o.Expr, false)
	}
	if q.Limit != nil {
		w.term(block, "as a LIMIT", q.Limit.Count, false)
		if q.Limit.Offset != nil {
			w.term(block, "as an OFFSET", q.Limit.Offset, false)
		}
	}
}

// aggregates visits e's aggregate calls and subqueries: an aggregate
// that may fail is a unit of the block, a subquery that may fail is
// refused; neither is descended into.
func (w *unitWalker) aggregates(block string, e sqlast.Expr) {
	sqlast.Walk(e, func(n sqlast.Node) bool {
		switch t := n.(type) {
		case *sqlast.FuncCall:
			if isAggregateCall(t) {
				if w.risk(t) != "" {
					w.add(block, "as an aggregate", t)
				}
				return false
			}
		case *sqlast.SelectStmt:
			if r := w.risk(t); r != "" {
				w.refuse("%s, in a subquery, may fail (the engines evaluate a subquery on rows of their own choosing)", r)
			}
			return false
		}
		return true
	})
}

// operands lists e's operands that may fail outside its aggregates and
// subqueries, and whether one of them sits where the engines evaluate
// lazily (a CASE's branches, COALESCE, IFNULL or IIF past their first
// argument, AND or OR past their first operand).
func (w *unitWalker) operands(e sqlast.Expr) (ops []sqlast.Expr, lazy bool) {
	var visit func(n sqlast.Node, lz bool)
	visit = func(n sqlast.Node, lz bool) {
		switch t := n.(type) {
		case nil:
			return
		case *sqlast.SelectStmt:
			return
		case *sqlast.FuncCall:
			if isAggregateCall(t) {
				return
			}
			if !neverFailsNode(t, w.d, w.isColumn) {
				ops, lazy = append(ops, t), lazy || lz
			}
			switch lowerASCII(t.Name.Name) {
			case "coalesce", "ifnull", "iif":
				for i, a := range t.Args {
					visit(a, lz || i > 0)
				}
				return
			}
			for _, a := range t.Args {
				visit(a, lz)
			}
			return
		case *sqlast.CaseExpr:
			visit(t.Operand, lz)
			for i, wh := range t.Whens {
				visit(wh.When, lz || i > 0)
				visit(wh.Then, true)
			}
			visit(t.Else, true)
			return
		case *sqlast.BinaryExpr:
			if !neverFailsNode(t, w.d, w.isColumn) {
				ops, lazy = append(ops, t), lazy || lz
			}
			visit(t.X, lz)
			visit(t.Y, lz || t.Op == sqlast.OpAnd || t.Op == sqlast.OpOr)
			return
		}
		if x, ok := n.(sqlast.Expr); ok && !neverFailsNode(x, w.d, w.isColumn) {
			ops, lazy = append(ops, x), lazy || lz
		}
		for _, c := range n.Children() {
			visit(c, lz)
		}
	}
	visit(e, false)
	return ops, lazy
}

// cond reads a condition: its aggregates are units, any other operand
// that may fail is refused (the order of evaluation decides whether the
// engine reaches it).
func (w *unitWalker) cond(block string, e sqlast.Expr) {
	w.aggregates(block, e)
	if ops, _ := w.operands(e); len(ops) > 0 {
		w.refuse("%s, in a condition, may fail on some row, and whether the engine reaches it depends on its order of evaluation", clip(sqlast.Format(ops[0])))
	}
}

// term reads an output, GROUP BY, ORDER BY or LIMIT term evaluated in
// ctx; limited says the query keeps a prefix of its rows.
func (w *unitWalker) term(block, ctx string, e sqlast.Expr, limited bool) {
	w.aggregates(block, e)
	ops, lazy := w.operands(e)
	switch {
	case len(ops) == 0:
	case limited:
		w.refuse("%s, in an output of a query with a LIMIT, may fail (the engines compute outputs for the rows kept only)", clip(sqlast.Format(ops[0])))
	case lazy:
		w.add(block, ctx, e)
	default:
		for _, o := range ops {
			w.add(block, ctx, o)
		}
	}
}
