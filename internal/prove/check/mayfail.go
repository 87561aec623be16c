package check

import (
	"strings"

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
	isColumn := func(name string) bool {
		for _, u := range pq.Tables() {
			if t := s.Table(u.Name); t != nil && t.Col(name) >= 0 {
				return true
			}
		}
		return false
	}
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
			risk = sqlast.Format(x)
			if len(risk) > 200 {
				risk = risk[:200] + "…"
			}
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

// neverFailsNode reports whether the node x itself (its operands are
// visited on their own) raises no error on any row on dialect d.
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
		case sqlast.OpAdd, sqlast.OpSub, sqlast.OpMul, sqlast.OpDiv, sqlast.OpMod:
			return d == SQLite
		}
	case *sqlast.UnaryExpr:
		return t.Op == sqlast.OpNot || d == SQLite && (t.Op == sqlast.OpMinus || t.Op == sqlast.OpPlus)
	case *sqlast.CastExpr:
		return d == SQLite
	case *sqlast.SubqueryExpr:
		return d == SQLite
	case *sqlast.LikeExpr:
		p, ok := stripParens(t.Y).(*sqlast.Literal)
		if id, quoted := stripParens(t.Y).(*sqlast.Ident); quoted && d == SQLite && id.Quote == sqlast.QuoteDouble && !isColumn(id.Name) {
			p, ok = sqlast.StringLiteral(id.Name), true
		}
		if t.Escape != nil || !ok || p.Kind != sqlast.LitString || len(p.Value) > 10000 {
			return false
		}
		switch strings.ToUpper(t.Op.Name) {
		case "LIKE", "GLOB":
			return d == SQLite || !strings.Contains(p.Value, "\\")
		case "ILIKE":
			return d == Postgres && !strings.Contains(p.Value, "\\")
		}
	case *sqlast.FuncCall:
		if t.Over != nil || t.Filter != nil {
			return false
		}
		name := lowerASCII(t.Name.Name)
		if d == Postgres {
			switch name {
			case "count", "min", "max", "avg", "sum":
				return true
			}
			return false
		}
		return sqliteNeverFails[name]
	}
	return false
}
