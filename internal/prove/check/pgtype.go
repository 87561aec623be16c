package check

import (
	"fmt"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/sqljudge/sqljudge/internal/sqlast"
)

// Types on PostgreSQL. PostgreSQL types a query before it runs it and
// refuses one whose operands do not match (text > integer: "operator does
// not exist"; an integer against 'abc': "invalid input syntax for type
// integer", the literal being coerced to the column's type), on every
// database, empty ones included. The encoding reads SQLite's comparisons
// across storage classes and so proved `WHERE a > 1 AND 1 = 0` (a text)
// equal to `WHERE 1 = 0`, which PostgreSQL runs while it fails the first.
// TypeRisk finds such operands where it can tell their types (columns,
// literals); the prover and the checker refuse the pair. It does not
// infer the types of other expressions.

// TypeClass is a column's type as TypeRisk compares it on PostgreSQL.
type TypeClass uint8

// The classes of Column.Class. ClassNone is an unknown type (or a
// column on SQLite, which types nothing), compatible with anything.
const (
	ClassNone     TypeClass = iota
	ClassInteger            // smallint, integer, bigint
	ClassDecimal            // real, double precision, numeric
	ClassText               // char, varchar, text
	ClassBool               // boolean
	ClassTemporal           // date, timestamp, time
	// ClassOpaque is a column of a type the kernel does not model (uuid,
	// json, an enum, bytea, an array…): PostgreSQL types its operators and
	// literals by rules of its own, so TypeRisk refuses any comparison,
	// arithmetic or LIKE that reads one.
	ClassOpaque
)

func (c TypeClass) String() string {
	return [...]string{"unknown", "integer", "numeric", "text", "boolean", "date/time", "a type the kernel does not model"}[c]
}

// TypeRisk returns why PostgreSQL would refuse q whatever the database
// (an operator or a literal of the wrong type, naming both), "" when it
// sees no such operand, when q does not parse, and on any dialect other
// than PostgreSQL. It reads comparisons (=, <>, <, <=, >, >=, IS [NOT]
// DISTINCT FROM), BETWEEN, IN lists, IS [NOT] TRUE/FALSE, LIKE and ILIKE,
// the results of a CASE, the arguments of SUM, AVG, MIN and MAX, and
// the columns of a compound SELECT's terms, and the operand of a COLLATE
// (which must be a text column or a string literal), wherever they stand (typing
// happens before evaluation): a column, a number, a string literal (of
// unknown type: PostgreSQL coerces it to the other side's type, and it
// must then read as a value of that type), TRUE or FALSE. Integer and
// numeric mix; any other two classes do not.
func TypeRisk(q string, s Schema) string {
	if s.Dialect() != Postgres {
		return ""
	}
	// Names are read on the canonical form, where every column names its
	// FROM item (a base table or a derived table) without ambiguity.
	c, err := Canonicalize(q, s, "a")
	if err != nil {
		// A WITH or a RIGHT or FULL JOIN: the prover inlines or turns
		// it before the canonical form (as Prove's rename does), and so
		// does TypeRisk; the types are the same.
		cur := q
		for _, rule := range []string{RuleInlineCTE, RuleFullToOuter, RuleRightToLeft} {
			if after, _, err := Apply(rule, cur, -1, s); err == nil {
				cur = after
			}
		}
		if c, err = Canonicalize(cur, s, "a"); err != nil {
			return "" // the canonical form refuses q
		}
	}
	var kind func(e sqlast.Expr) (TypeClass, *sqlast.Literal)
	// classOf is the class of the canonical column reference r: a base
	// table's column's, or that of a derived table's output in each of
	// its SELECTs (a string literal there is text: PostgreSQL resolves a
	// subquery's outputs of unknown type to text).
	classOf := func(r *sqlast.QualifiedRef) TypeClass {
		if len(r.Parts) != 2 {
			return ClassNone
		}
		o := c.byAlias[lowerASCII(r.Parts[0].Name)]
		switch {
		case o == nil:
			return ClassNone
		case o.table != nil:
			i := o.table.Col(r.Parts[1].Name)
			if i < 0 {
				return ClassNone
			}
			return o.table.Columns[i].Class
		case o.derived != nil:
			k := slices.Index(o.cols, lowerASCII(r.Parts[1].Name))
			cls, seen := ClassNone, false
			for _, core := range o.derived.Cores {
				sq, ok := core.(*sqlast.SelectQuery)
				if !ok || k < 0 || k >= len(sq.Columns) {
					return ClassNone
				}
				ck, l := kind(sq.Columns[k].Expr)
				if l != nil {
					ck = ClassText
				}
				if seen && ck != cls {
					return ClassNone
				}
				cls, seen = ck, true
			}
			return cls
		}
		return ClassNone
	}
	// kind is an operand's class, or lit the string literal it is.
	kind = func(e sqlast.Expr) (TypeClass, *sqlast.Literal) {
		switch t := stripParens(e).(type) {
		case *sqlast.CollateExpr:
			return kind(t.X)
		case *sqlast.IsExpr, *sqlast.NullCheckExpr, *sqlast.BetweenExpr, *sqlast.InExpr,
			*sqlast.ExistsExpr, *sqlast.LikeExpr:
			return ClassBool, nil
		case *sqlast.BinaryExpr:
			switch t.Op {
			case sqlast.OpEq, sqlast.OpNe, sqlast.OpLt, sqlast.OpLe, sqlast.OpGt, sqlast.OpGe, sqlast.OpAnd, sqlast.OpOr:
				return ClassBool, nil
			case sqlast.OpAdd, sqlast.OpSub, sqlast.OpMul, sqlast.OpDiv, sqlast.OpMod:
				// Integer with integer is an integer, with a numeric a
				// numeric; anything else (a date plus an integer is a
				// date) is not told.
				a, _ := kind(t.X)
				b, _ := kind(t.Y)
				switch {
				case a == ClassInteger && b == ClassInteger:
					return ClassInteger, nil
				case (a == ClassInteger || a == ClassDecimal) && (b == ClassInteger || b == ClassDecimal):
					return ClassDecimal, nil
				}
			case sqlast.OpConcat:
				// text || anything is text (anything || text too).
				a, la := kind(t.X)
				b, lb := kind(t.Y)
				if a == ClassText || b == ClassText || la != nil && lb != nil {
					return ClassText, nil
				}
			}
		case *sqlast.CastExpr:
			if t.Type != nil {
				return castClass(t.Type.Name), nil
			}
		case *sqlast.FuncCall:
			if t.Over != nil || t.Filter != nil {
				break
			}
			switch lowerASCII(t.Name.Name) {
			case "count":
				return ClassInteger, nil
			case "min", "max":
				if len(t.Args) == 1 {
					if c, l := kind(t.Args[0]); l == nil {
						return c, nil
					}
				}
			case "sum", "avg":
				// bigint or numeric of integers, numeric or double of
				// numerics: a number either way.
				if len(t.Args) == 1 {
					if c, _ := kind(t.Args[0]); c == ClassInteger || c == ClassDecimal {
						return ClassDecimal, nil
					}
				}
			}
		case *sqlast.Literal:
			switch t.Kind {
			case sqlast.LitInteger:
				return ClassInteger, nil
			case sqlast.LitFloat:
				return ClassDecimal, nil
			case sqlast.LitString:
				return ClassNone, t
			}
		case *sqlast.UnaryExpr:
			if t.Op == sqlast.OpNot {
				return ClassBool, nil
			}
			if l, ok := stripParens(t.X).(*sqlast.Literal); ok && (t.Op == sqlast.OpMinus || t.Op == sqlast.OpPlus) {
				switch l.Kind {
				case sqlast.LitInteger:
					return ClassInteger, nil
				case sqlast.LitFloat:
					return ClassDecimal, nil
				}
			}
		case *sqlast.Ident:
			if truthWord(Postgres, t) != "" {
				return ClassBool, nil
			}
		case *sqlast.QualifiedRef:
			return classOf(t), nil
		}
		return ClassNone, nil
	}
	risk := ""
	pair := func(a, b sqlast.Expr) {
		if risk != "" {
			return
		}
		ca, la := kind(a)
		cb, lb := kind(b)
		if r := mismatch(ca, la, cb, lb); r != "" {
			risk = fmt.Sprintf("%s against %s: %s", clip(sqlast.Format(a)), clip(sqlast.Format(b)), r)
		}
	}
	sqlast.Walk(c.Stmt, func(n sqlast.Node) bool {
		switch t := n.(type) {
		case *sqlast.BinaryExpr:
			switch t.Op {
			case sqlast.OpEq, sqlast.OpNe, sqlast.OpLt, sqlast.OpLe, sqlast.OpGt, sqlast.OpGe:
				pair(t.X, t.Y)
			case sqlast.OpAdd, sqlast.OpSub, sqlast.OpMul, sqlast.OpDiv, sqlast.OpMod:
				// Arithmetic on a string, a boolean or a type the kernel
				// does not model: "operator does not exist" (a string
				// literal is coerced to the other side's type).
				for _, x := range []sqlast.Expr{t.X, t.Y} {
					if c, _ := kind(x); (c == ClassText || c == ClassBool || c == ClassOpaque) && risk == "" {
						risk = fmt.Sprintf("%s: arithmetic on %s", clip(sqlast.Format(t)), c)
					}
				}
			}
		case *sqlast.IsExpr:
			if truthWord(Postgres, stripParens(t.Y)) != "" {
				if c, l := kind(t.X); c != ClassNone && c != ClassBool || l != nil && !boolText(l.Value) {
					risk = fmt.Sprintf("%s IS TRUE or FALSE: not a boolean", clip(sqlast.Format(t.X)))
				}
			} else {
				pair(t.X, t.Y)
			}
		case *sqlast.BetweenExpr:
			pair(t.X, t.Lo)
			pair(t.X, t.Hi)
		case *sqlast.InExpr:
			for _, v := range t.List {
				pair(t.X, v)
			}
		case *sqlast.UnaryExpr:
			if t.Op == sqlast.OpMinus || t.Op == sqlast.OpPlus {
				if c, _ := kind(t.X); (c == ClassText || c == ClassBool || c == ClassOpaque) && risk == "" {
					risk = fmt.Sprintf("%s: a sign on %s", clip(sqlast.Format(t)), c)
				}
			}
		case *sqlast.CollateExpr:
			if c, l := kind(t.X); l == nil && c != ClassText && risk == "" {
				risk = fmt.Sprintf("%s under COLLATE: %s, not known to be text (collations are not supported by other types)", clip(sqlast.Format(t.X)), c)
			}
		case *sqlast.LikeExpr:
			for _, x := range []sqlast.Expr{t.X, t.Y} {
				if c, _ := kind(x); c != ClassNone && c != ClassText && risk == "" {
					risk = fmt.Sprintf("%s in a %s: %s, not text", clip(sqlast.Format(x)), strings.ToUpper(t.Op.Name), c)
				}
			}
		case *sqlast.CaseExpr:
			var rs []sqlast.Expr
			for _, w := range t.Whens {
				rs = append(rs, w.Then)
			}
			if t.Else != nil {
				rs = append(rs, t.Else)
			}
			for i := 1; i < len(rs); i++ {
				for j := 0; j < i; j++ {
					pair(rs[j], rs[i])
				}
			}
		case *sqlast.FuncCall:
			if len(t.Args) == 1 && isAggregateCall(t) {
				c, l := kind(t.Args[0])
				switch lowerASCII(t.Name.Name) {
				case "sum", "avg":
					if c != ClassNone && c != ClassInteger && c != ClassDecimal || l != nil {
						risk = fmt.Sprintf("%s of %s", strings.ToLower(t.Name.Name), c)
					}
				case "min", "max":
					if c == ClassBool {
						risk = fmt.Sprintf("%s of %s", strings.ToLower(t.Name.Name), c)
					}
				}
			}
		case *sqlast.SelectQuery:
			if r := c.groupingRisk(t); r != "" && risk == "" {
				risk = r
			}
		case *sqlast.SelectStmt:
			var first *sqlast.SelectQuery
			for _, c := range t.Cores {
				q, ok := c.(*sqlast.SelectQuery)
				if !ok {
					continue
				}
				if first == nil {
					first = q
					continue
				}
				for i := range min(len(first.Columns), len(q.Columns)) {
					if first.Columns[i].Expr != nil && q.Columns[i].Expr != nil {
						pair(first.Columns[i].Expr, q.Columns[i].Expr)
					}
				}
			}
		}
		return risk == ""
	})
	return risk
}

var (
	// integerText is a string PostgreSQL reads as a value of any integer
	// type: at most 4 digits, inside SMALLINT's range (the class does not
	// tell SMALLINT from INTEGER: '40000' against a SMALLINT fails, "value
	// out of range for type smallint").
	integerText = regexp.MustCompile(`^\s*[+-]?[0-9]{1,4}\s*$`)
	decimalText = regexp.MustCompile(`^\s*[+-]?([0-9]+\.?[0-9]*|\.[0-9]+)([eE][+-]?[0-9]{1,3})?\s*$`)
)

// boolText reports whether PostgreSQL reads s as a boolean (the full
// words and letters; it also takes unique prefixes, left out here).
func boolText(s string) bool {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "t", "true", "f", "false", "y", "yes", "n", "no", "on", "off", "1", "0":
		return true
	}
	return false
}

// castClass is the class of CAST(x AS name) on PostgreSQL: the type's
// class for the names PostgreSQL's grammar and catalog give (integer,
// numeric, text, boolean, date/time families), ClassNone for any other.
func castClass(name string) TypeClass {
	n := strings.ToLower(strings.Join(strings.Fields(name), " "))
	switch n {
	case "int", "integer", "int2", "int4", "int8", "smallint", "bigint":
		return ClassInteger
	case "numeric", "decimal", "real", "float", "float4", "float8", "double precision":
		return ClassDecimal
	case "text", "varchar", "character varying", "char", "character", "bpchar":
		return ClassText
	case "bool", "boolean":
		return ClassBool
	case "date", "timestamp", "time", "timestamptz", "timestamp without time zone", "timestamp with time zone", "time without time zone":
		return ClassTemporal
	}
	return ClassNone
}

// mismatch says why two operands of classes a and b (la, lb: the string
// literal an operand is, of unknown type) do not compare on PostgreSQL,
// "" when they may.
func mismatch(a TypeClass, la *sqlast.Literal, b TypeClass, lb *sqlast.Literal) string {
	if la != nil && lb != nil {
		return ""
	}
	if a == ClassOpaque || b == ClassOpaque {
		return "a column of a type the kernel does not model"
	}
	if la != nil || lb != nil {
		l, c := la, b
		if l == nil {
			l, c = lb, a
		}
		ok := true
		switch c {
		case ClassInteger:
			ok = integerText.MatchString(l.Value)
		case ClassDecimal:
			ok = decimalText.MatchString(l.Value)
		case ClassBool:
			ok = boolText(l.Value)
		case ClassTemporal:
			ok = false
			for _, f := range []string{"2006-01-02", "2006-01-02 15:04:05", "2006-01-02T15:04:05", "15:04:05", "15:04"} {
				if _, err := time.Parse(f, strings.TrimSpace(l.Value)); err == nil {
					ok = true
				}
			}
		}
		if !ok {
			return fmt.Sprintf("the string does not read as a value of type %s", c)
		}
		return ""
	}
	if a == ClassNone || b == ClassNone || a == b {
		return ""
	}
	if (a == ClassInteger || a == ClassDecimal) && (b == ClassInteger || b == ClassDecimal) {
		return ""
	}
	return fmt.Sprintf("%s and %s do not compare", a, b)
}

// groupingRisk returns why PostgreSQL refuses the SELECT sq of a
// canonical form whatever the database, "" when it sees no reason:
//   - in a SELECT that groups (GROUP BY, or an aggregate in its outputs,
//     HAVING or ORDER BY), a column of one of its own FROM items read
//     outside an aggregate in an output, the HAVING or an ORDER BY term
//     (subqueries included) must be a GROUP BY term, or be a column of a
//     base table whose PRIMARY KEY columns are all GROUP BY terms
//     (PostgreSQL's functional dependency: a UNIQUE key, an equality in
//     the WHERE or a derived table's key do not count; "column must
//     appear in the GROUP BY clause or be used in an aggregate function");
//   - in a SELECT DISTINCT, an ORDER BY term that is no output ("for
//     SELECT DISTINCT, ORDER BY expressions must appear in select list").
//
// SQLite runs both; the kernel read the first by SQLite's bare-column
// rules (a column determined by the groups) and proved such a query equal
// to one that groups by the column too.
func (c *Canon) groupingRisk(sq *sqlast.SelectQuery) string {
	if sq.Distinct == sqlast.DistinctDistinct && len(sq.OrderBy) > 0 {
		outs := map[string]bool{}
		for _, col := range sq.Columns {
			if col.Expr != nil {
				outs[sqlast.Format(stripParens(col.Expr))] = true
			}
		}
		for _, o := range sq.OrderBy {
			if x, _, err := skipCollate(o.Expr); err == nil && !outs[sqlast.Format(x)] {
				return fmt.Sprintf("ORDER BY %s in a SELECT DISTINCT that does not output it", clip(sqlast.Format(o.Expr)))
			}
		}
	}
	var terms []sqlast.Expr
	for _, col := range sq.Columns {
		if col.Expr != nil {
			terms = append(terms, col.Expr)
		}
	}
	if sq.Having != nil {
		terms = append(terms, sq.Having)
	}
	for _, o := range sq.OrderBy {
		terms = append(terms, o.Expr)
	}
	if !groups(sq) {
		return ""
	}
	group := map[string]bool{}
	for _, g := range sq.GroupBy {
		group[sqlast.Format(stripParens(g))] = true
	}
	// byKey: the occurrences whose primary key is grouped.
	byKey := map[*occurrence]bool{}
	for _, o := range c.Occs {
		if o.core != sq || o.table == nil {
			continue
		}
		for _, k := range o.table.Keys {
			if !k.Primary || len(k.Cols) == 0 {
				continue
			}
			all := true
			for _, i := range k.Cols {
				all = all && group[sqlast.Format(qualified(o, i))]
			}
			byKey[o] = byKey[o] || all
		}
	}
	risk := ""
	for _, e := range terms {
		sqlast.Walk(e, func(n sqlast.Node) bool {
			if risk != "" {
				return false
			}
			switch t := n.(type) {
			case *sqlast.FuncCall:
				if isAggregateCall(t) {
					return false
				}
			case *sqlast.QualifiedRef:
				o := c.byAlias[lowerASCII(t.Parts[0].Name)]
				if o != nil && o.core == sq && !byKey[o] && !group[sqlast.Format(t)] {
					risk = fmt.Sprintf("%s is neither grouped nor aggregated (PostgreSQL takes a column as determined by the groups only through its table's PRIMARY KEY)", sqlast.Format(t))
				}
				return false
			}
			if x, ok := n.(sqlast.Expr); ok && group[sqlast.Format(stripParens(x))] {
				return false
			}
			return true
		})
	}
	return risk
}
