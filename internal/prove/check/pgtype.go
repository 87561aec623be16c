package check

import (
	"fmt"
	"math"
	"regexp"
	"slices"
	"strconv"
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
	ClassDecimal            // numeric
	ClassText               // char, varchar, text
	ClassBool               // boolean
	ClassTemporal           // date, timestamp (with or without time zone)
	// ClassOpaque is a column of a type the kernel does not model (uuid,
	// json, an enum, bytea, an array…): PostgreSQL types its operators and
	// literals by rules of its own, so TypeRisk refuses any comparison,
	// arithmetic or LIKE that reads one.
	ClassOpaque
	// ClassFloat is real or double precision: it compares and computes
	// with the other numbers, but PostgreSQL converts a numeric it meets
	// to double precision, which fails on a value beyond its range
	// (floatRisk).
	ClassFloat
)

func (c TypeClass) String() string {
	return [...]string{"unknown", "integer", "numeric", "text", "boolean", "date/time", "a type the kernel does not model", "floating point"}[c]
}

// number reports whether c is a numeric class: integer, numeric or
// floating point.
func (c TypeClass) number() bool {
	return c == ClassInteger || c == ClassDecimal || c == ClassFloat
}

// unknownLiteral reports whether e is a string literal or NULL, of
// unknown type until PostgreSQL resolves it against what it meets.
func unknownLiteral(e sqlast.Expr) bool {
	l, ok := stripParens(e).(*sqlast.Literal)
	return ok && (l.Kind == sqlast.LitString || l.Kind == sqlast.LitNull)
}

// safeFloat reports whether a number's text converts to double precision
// and to real without leaving their ranges: zero, or a magnitude between
// 1e-30 and 1e30 ('1e400' and '1e-400' fail as double precision, '1e39'
// as real).
func safeFloat(text string) bool {
	v, err := strconv.ParseFloat(strings.TrimSpace(text), 64)
	if err != nil {
		return false
	}
	a := math.Abs(v)
	if a == 0 {
		// zero itself, not a magnitude below the smallest double
		// ('1e-400' fails: "out of range for type double precision")
		m := strings.TrimLeft(strings.TrimSpace(text), "+-")
		if i := strings.IndexAny(m, "eE"); i >= 0 {
			m = m[:i]
		}
		return strings.Trim(m, "0.") == ""
	}
	return a > 1e-30 && a < 1e30
}

// numberLiteral returns the text of e when it is a number literal,
// signed or not.
func numberLiteral(e sqlast.Expr) (string, bool) {
	e = stripParens(e)
	sign := ""
	if u, ok := e.(*sqlast.UnaryExpr); ok && (u.Op == sqlast.OpMinus || u.Op == sqlast.OpPlus) {
		e = stripParens(u.X)
		if u.Op == sqlast.OpMinus {
			sign = "-"
		}
	}
	if l, ok := e.(*sqlast.Literal); ok && (l.Kind == sqlast.LitInteger || l.Kind == sqlast.LitFloat) {
		return sign + l.Value, true
	}
	return "", false
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
// must then read as a value of that type), TRUE or FALSE. Integer,
// numeric and floating point mix; any other two classes do not. It also
// refuses what may fail on some row for the same reasons: a floating
// point operand against a numeric one (floatRisk), two operands under
// two collations (both explicit, or both their columns' own); and, on
// every database, an operand of NOT, AND, OR or a CASE's WHEN that is
// no boolean, and a compound whose column types do not resolve two
// SELECTs at a time (compoundRisk).
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
				ck, _ := kind(sq.Columns[k].Expr)
				if unknownLiteral(sq.Columns[k].Expr) {
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
				case a == ClassFloat && b.number() || b == ClassFloat && a.number():
					return ClassFloat, nil
				case a.number() && b.number():
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
		case *sqlast.CaseExpr:
			// Its results' class, as PostgreSQL resolves them: unknown
			// literals take the others' class, and are text alone
			// (`CASE WHEN b THEN s END = 1` compares text with an
			// integer); results of two classes leave it untold.
			var rs []sqlast.Expr
			for _, w := range t.Whens {
				rs = append(rs, w.Then)
			}
			if t.Else != nil {
				rs = append(rs, t.Else)
			}
			cls, told, known := ClassNone, true, false
			for _, r := range rs {
				if unknownLiteral(r) {
					continue
				}
				rc, _ := kind(r)
				switch {
				case !known:
					cls, known = rc, true
				case rc != cls:
					told = false
				}
			}
			switch {
			case !known:
				return ClassText, nil
			case told:
				return cls, nil
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
					// Of integers (or of their sums and counts) a
					// bigint or numeric that never overflows, which the
					// checks below read as an integer.
					if c, _ := kind(t.Args[0]); c == ClassFloat {
						return ClassFloat, nil
					} else if c == ClassInteger {
						return ClassInteger, nil
					} else if c.number() {
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
	// collation is the collation an operand compares under and whether
	// a COLLATE names it (explicit), else its base column's declared one
	// ("" for the default).
	collation := func(e sqlast.Expr) (string, bool) {
		switch t := stripParens(e).(type) {
		case *sqlast.CollateExpr:
			return lowerASCII(t.Name.Name), true
		case *sqlast.QualifiedRef:
			if len(t.Parts) == 2 {
				if o := c.byAlias[lowerASCII(t.Parts[0].Name)]; o != nil && o.table != nil {
					if i := o.table.Col(t.Parts[1].Name); i >= 0 {
						return o.table.Columns[i].Collation, false
					}
				}
			}
		}
		return "", false
	}
	risk := ""
	// conflict refuses two operands under two collations that differ:
	// both named by COLLATE ("collation mismatch between explicit
	// collations", on every database), or both columns' own (compared,
	// concatenated, or merged by coalesce and then hashed or compared:
	// "could not determine which collation to use", on the first row).
	conflict := func(a, b sqlast.Expr) {
		na, ea := collation(a)
		nb, eb := collation(b)
		if na != "" && nb != "" && na != nb && ea == eb && risk == "" {
			risk = fmt.Sprintf("%s against %s: collations %s and %s conflict", clip(sqlast.Format(a)), clip(sqlast.Format(b)), na, nb)
		}
	}
	pair := func(a, b sqlast.Expr) {
		if risk != "" {
			return
		}
		ca, la := kind(a)
		cb, lb := kind(b)
		if r := mismatch(ca, la, cb, lb); r != "" {
			risk = fmt.Sprintf("%s against %s: %s", clip(sqlast.Format(a)), clip(sqlast.Format(b)), r)
			return
		}
		if r := floatRisk(a, ca, b, cb); r != "" {
			risk = r
			return
		}
		conflict(a, b)
	}
	// truth asks that e be a boolean: an operand of NOT, AND, OR or a
	// CASE's WHEN ("argument of NOT must be type boolean").
	truth := func(e sqlast.Expr) {
		if risk != "" || e == nil {
			return
		}
		if c, l := kind(e); c != ClassNone && c != ClassBool || l != nil && l.Kind == sqlast.LitString && !boolText(l.Value) {
			risk = fmt.Sprintf("%s: %s where a boolean is wanted", clip(sqlast.Format(e)), c)
		}
	}
	sqlast.Walk(c.Stmt, func(n sqlast.Node) bool {
		switch t := n.(type) {
		case *sqlast.BinaryExpr:
			switch t.Op {
			case sqlast.OpEq, sqlast.OpNe, sqlast.OpLt, sqlast.OpLe, sqlast.OpGt, sqlast.OpGe:
				pair(t.X, t.Y)
			case sqlast.OpAnd, sqlast.OpOr:
				truth(t.X)
				truth(t.Y)
			case sqlast.OpConcat:
				conflict(t.X, t.Y)
			case sqlast.OpAdd, sqlast.OpSub, sqlast.OpMul, sqlast.OpDiv, sqlast.OpMod:
				if risk == "" {
					ca, _ := kind(t.X)
					cb, _ := kind(t.Y)
					risk = floatRisk(t.X, ca, t.Y, cb)
				}
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
			if t.Select != nil && len(t.Select.Cores) == 1 {
				if sq, ok := t.Select.Cores[0].(*sqlast.SelectQuery); ok && len(sq.Columns) == 1 && sq.Columns[0].Expr != nil {
					pair(t.X, sq.Columns[0].Expr)
				}
			}
		case *sqlast.UnaryExpr:
			if t.Op == sqlast.OpNot {
				truth(t.X)
			}
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
				if t.Operand == nil {
					truth(w.When)
				} else {
					pair(t.Operand, w.When)
				}
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
			for i := range t.Args {
				for j := 0; j < i; j++ {
					conflict(t.Args[j], t.Args[i])
				}
			}
			if len(t.Args) == 1 && isAggregateCall(t) {
				c, l := kind(t.Args[0])
				switch lowerASCII(t.Name.Name) {
				case "sum", "avg":
					// Of an integer, a bigint or numeric that never
					// overflows; of a double precision, real or numeric
					// it overflows at run time ("value out of range:
					// overflow" where two values near 1e308 meet), and
					// rules drop unread ones PostgreSQL computes.
					if c != ClassInteger || l != nil {
						risk = fmt.Sprintf("%s of %s, which may fail at run time (only an integer's never overflows)", strings.ToLower(t.Name.Name), c)
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
			// A WHERE, HAVING or ON must be a boolean ("argument of
			// WHERE must be type boolean": a CASE of NULLs is text).
			truth(t.Where)
			truth(t.Having)
			for _, f := range t.From {
				truth(f.On)
			}
			// DISTINCT, GROUP BY and ORDER BY need an equality or an
			// order of the type: json and point have neither ("could not
			// identify an equality operator for type json").
			var keyed []sqlast.Expr
			if t.Distinct == sqlast.DistinctDistinct {
				for _, col := range t.Columns {
					keyed = append(keyed, col.Expr)
				}
			}
			keyed = append(keyed, t.GroupBy...)
			for _, o := range t.OrderBy {
				keyed = append(keyed, o.Expr)
			}
			for _, e := range keyed {
				if e == nil {
					continue
				}
				if k, _ := kind(e); k == ClassOpaque && risk == "" {
					risk = fmt.Sprintf("%s: a type the kernel does not model, under DISTINCT, GROUP BY or ORDER BY", clip(sqlast.Format(e)))
				}
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
			if risk == "" {
				risk = compoundRisk(t, kind)
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
	case "numeric", "decimal":
		return ClassDecimal
	case "real", "float", "float4", "float8", "double precision":
		return ClassFloat
	case "text", "varchar", "character varying", "char", "character", "bpchar":
		return ClassText
	case "bool", "boolean":
		return ClassBool
	case "date", "timestamp", "timestamptz", "timestamp without time zone", "timestamp with time zone":
		return ClassTemporal
	}
	return ClassNone
}

// floatRisk says why a comparison or arithmetic of a (class ca) and b
// (class cb) may fail on PostgreSQL, "" when it sees no reason: a
// floating point operand meets a numeric one, which PostgreSQL converts
// to double precision on every row (`f > n` fails where n holds 1e400:
// "value out of range for type double precision"), unless the numeric
// is a number literal safely inside the range (safeFloat).
func floatRisk(a sqlast.Expr, ca TypeClass, b sqlast.Expr, cb TypeClass) string {
	f, n := a, b
	switch {
	case ca == ClassFloat && cb == ClassDecimal:
	case cb == ClassFloat && ca == ClassDecimal:
		f, n = b, a
	default:
		return ""
	}
	if text, ok := numberLiteral(n); ok && safeFloat(text) {
		return ""
	}
	return fmt.Sprintf("%s against %s: a numeric converted to double precision, which fails on a value beyond its range", clip(sqlast.Format(f)), clip(sqlast.Format(n)))
}

// compoundRisk says why PostgreSQL cannot resolve the column types of
// compound st, "" when it sees no reason. It resolves them as
// PostgreSQL does, two SELECTs at a time from the left: two operands of
// unknown type (a string literal or NULL) resolve to text, one to the
// other's type (its string must read as a value of it), and two
// classes must compare (mismatch). `SELECT NULL … UNION SELECT NULL …
// UNION SELECT a …` fails ("UNION types text and integer cannot be
// matched"), where `SELECT NULL … UNION SELECT a … UNION SELECT NULL …`
// runs.
func compoundRisk(st *sqlast.SelectStmt, kind func(sqlast.Expr) (TypeClass, *sqlast.Literal)) string {
	var cols [][]sqlast.Expr
	for _, core := range st.Cores {
		q, ok := core.(*sqlast.SelectQuery)
		if !ok {
			return ""
		}
		var es []sqlast.Expr
		for _, c := range q.Columns {
			if c.Expr == nil {
				return "" // a star: its columns are not told here
			}
			es = append(es, c.Expr)
		}
		cols = append(cols, es)
	}
	if len(cols) < 2 {
		return ""
	}
	for i := range cols[0] {
		cur := cols[0][i]
		unknown := unknownLiteral(cur)
		cls, _ := kind(cur)
		for _, es := range cols[1:] {
			if i >= len(es) {
				return ""
			}
			next := es[i]
			nc, nl := kind(next)
			switch {
			case unknown && unknownLiteral(next):
				cls, unknown = ClassText, false
			case unknown:
				if _, l := kind(cur); l != nil {
					if r := mismatch(ClassNone, l, nc, nil); r != "" {
						return fmt.Sprintf("%s against %s: %s", clip(sqlast.Format(cur)), clip(sqlast.Format(next)), r)
					}
				}
				cls, unknown = nc, false
			case unknownLiteral(next):
				if r := mismatch(cls, nil, ClassNone, nl); r != "" {
					return fmt.Sprintf("%s against %s: %s", clip(sqlast.Format(cur)), clip(sqlast.Format(next)), r)
				}
			default:
				if r := mismatch(cls, nil, nc, nil); r != "" {
					return fmt.Sprintf("%s against %s: %s", clip(sqlast.Format(cur)), clip(sqlast.Format(next)), r)
				}
				switch {
				case cls == ClassNone || nc == ClassNone:
					cls = ClassNone
				case cls != nc && cls.number() && nc.number():
					if cls == ClassFloat || nc == ClassFloat {
						cls = ClassFloat
					} else {
						cls = ClassDecimal
					}
				}
			}
			cur = next
		}
	}
	return ""
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
		case ClassFloat:
			ok = decimalText.MatchString(l.Value) && safeFloat(l.Value)
		case ClassBool:
			ok = boolText(l.Value)
		case ClassTemporal:
			ok = false
			// A date, or a date and a time of day (a time alone is
			// no date: '10:00' against a DATE fails); year 0 is none.
			for _, f := range []string{"2006-01-02", "2006-01-02 15:04:05", "2006-01-02T15:04:05"} {
				if v, err := time.Parse(f, strings.TrimSpace(l.Value)); err == nil && v.Year() >= 1 {
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
	if a.number() && b.number() {
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
