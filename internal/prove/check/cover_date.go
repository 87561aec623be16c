package check

import (
	"strconv"
	"strings"

	"github.com/sqljudge/sqljudge/internal/sqlast"
)

// Dates in ConditionCover's encoding (SQLite): a date column (DATE,
// DATETIME, or a text column the query reads with STRFTIME or DATE:
// Column.Temporal, coverEnv) holds, on the models, a text 'YYYY-MM-DD'
// (a timestamp's followed by ' 00:00:00'), which is what the search
// writes there. Such a text is a number in the script: YYYYMMDD, its
// month 1 to 12 and its day 1 to 28, so that every model is a date that
// exists; no affinity turns it into a number (it holds '-'). STRFTIME's
// '%Y', '%m', '%d', '%Y-%m', '%Y-%m-%d', DATE and SUBSTR of its fields
// are texts of some of its fields (textNum); one compares with a string
// literal of the same fields as their numbers do (fixed widths: the order
// of the texts is the order of the numbers), with a literal of its first
// fields as a longer text does (after it when they agree), and with a
// number as a text does (after it); arithmetic reads a text of one field
// as its number. Anything else of a date is uninterpreted.

// textNum is a text of fixed-width decimal fields joined by '-', whose
// number (the fields' digits run together) is the term's value; longer:
// more text follows (a timestamp's time).
type textNum struct {
	widths []int
	longer bool
}

// dateWidths are the fields of a date: year, month, day.
var dateWidths = []int{4, 2, 2}

// declareDate asserts that a date column's value v is a date that exists
// (day at most 28) when it is not NULL.
func (e *encoder) declareDate(v string) {
	m, d := "(mod (div "+v+" 100) 100)", "(mod "+v+" 100)"
	e.s.assert("(and (<= 0 " + v + ") (<= " + v + " 99991228) (<= 1 " + m + ") (<= " + m + " 12) (<= 1 " + d + ") (<= " + d + " 28))")
}

// coverShape is the shape ConditionCover's encoding gives the texts of
// column c: its Temporal on SQLite under the BINARY collation, else none.
func (e *encoder) coverShape(c Column) Temporal {
	if !e.cover || e.s.d != SQLite || !c.binary(e.s.d) {
		return TemporalNone
	}
	return c.Temporal
}

// datePart is the fields from..to (0: year, 1: month, 2: day) of a
// date text x, as a text of its own.
func datePart(x term, from, to int) term {
	div := 1
	for _, w := range dateWidths[to+1:] {
		div *= pow10(w)
	}
	v := x.v
	if div > 1 {
		v = "(div " + v + " " + itoa(div) + ")"
	}
	if from > 0 {
		mod := 1
		for _, w := range dateWidths[from : to+1] {
			mod *= pow10(w)
		}
		v = "(mod " + v + " " + itoa(mod) + ")"
	}
	return term{n: x.n, v: v, srt: "Int", fam: Other, tn: &textNum{widths: dateWidths[from : to+1]}, tag: "date part"}
}

func pow10(n int) int {
	p := 1
	for range n {
		p *= 10
	}
	return p
}

// isDate: t is a whole date's text (maybe a timestamp's).
func (t term) isDate() bool { return t.tn != nil && len(t.tn.widths) == 3 }

// strftimeFields are the formats dateFunc models: the fields they keep.
var strftimeFields = map[string][2]int{"%Y": {0, 0}, "%m": {1, 1}, "%d": {2, 2}, "%Y-%m": {0, 1}, "%Y-%m-%d": {0, 2}}

// dateFunc encodes DATE(d) and STRFTIME(f, d) of a date text d (one
// argument after the format, no modifier).
func (e *encoder) dateFunc(f *sqlast.FuncCall, x term) (term, bool, error) {
	if !x.isDate() {
		return term{}, false, nil
	}
	if lowerASCII(f.Name.Name) == "date" {
		if len(f.Args) != 1 {
			return term{}, false, nil
		}
		return datePart(x, 0, 2), true, nil
	}
	l, ok := stripParens(f.Args[0]).(*sqlast.Literal)
	if !ok || l.Kind != sqlast.LitString || len(f.Args) != 2 {
		return term{}, false, nil
	}
	fields, ok := strftimeFields[l.Value]
	if !ok {
		return term{}, false, nil
	}
	return datePart(x, fields[0], fields[1]), true, nil
}

// substr encodes SUBSTR of a date text that cuts whole fields: (1, 4)
// the year, (1, 7) year and month, (1, 10) the date, (6, 2) the month,
// (9, 2) the day.
func (x term) substr(args []sqlast.Expr) (term, bool, error) {
	if !x.isDate() || len(args) != 2 {
		return term{}, false, nil
	}
	i, ok1 := intLiteralValue(args[0])
	j, ok2 := intLiteralValue(args[1])
	if !ok1 || !ok2 {
		return term{}, false, nil
	}
	fields, ok := map[[2]int64][2]int{{1, 4}: {0, 0}, {1, 7}: {0, 1}, {1, 10}: {0, 2}, {6, 2}: {1, 1}, {9, 2}: {2, 2}}[[2]int64{i, j}]
	if !ok {
		return term{}, false, nil
	}
	return datePart(x, fields[0], fields[1]), true, nil
}

// number is the value arithmetic reads from t: a text of one field (a
// year) is its number; any other value is itself.
func (t term) number() term {
	if t.tn == nil || len(t.tn.widths) != 1 || t.tn.longer {
		return t
	}
	return term{n: t.n, v: t.v, srt: "Int", fam: Int, tag: "field"}
}

// relateTextNum writes a op b when either is a textNum (after the
// comparison's conversions); false when it is not modelled.
func relateTextNum(op sqlast.Operator, a, b term) (string, bool) {
	switch {
	case a.tn != nil && b.tn != nil:
		if !slicesEqual(a.tn.widths, b.tn.widths) || a.tn.longer != b.tn.longer {
			return "", false
		}
		return relation(op, a.v, b.v, "Int", SQLite)
	case a.tn != nil && b.fam.numeric():
		return classOrder(op, 1), true // a text sorts after any number
	case b.tn != nil && a.fam.numeric():
		return classOrder(op, -1), true
	case a.tn != nil && b.lit != nil && b.lit.Kind == sqlast.LitString:
		return textNumLiteral(op, a, b.lit.Value)
	case b.tn != nil && a.lit != nil && a.lit.Kind == sqlast.LitString:
		return textNumLiteral(flipOp(op), b, a.lit.Value)
	}
	return "", false
}

// textNumLiteral writes t op 'lit' for a literal made of t's first
// fields (same widths, '-' between): compared as numbers when it has all
// of them and t no more text, else t is the longer text, after the
// literal when their fields agree.
func textNumLiteral(op sqlast.Operator, t term, lit string) (string, bool) {
	parts := strings.Split(lit, "-")
	if len(parts) > len(t.tn.widths) {
		return "", false
	}
	k := int64(0)
	for i, p := range parts {
		if len(p) != t.tn.widths[i] || strings.Trim(p, "0123456789") != "" {
			return "", false
		}
		n, _ := strconv.ParseInt(p, 10, 64)
		k = k*int64(pow10(len(p))) + n
	}
	v := t.v
	div := 1
	for _, w := range t.tn.widths[len(parts):] {
		div *= pow10(w)
	}
	if div > 1 {
		v = "(div " + v + " " + itoa(div) + ")"
	}
	lv := strconv.FormatInt(k, 10)
	if len(parts) == len(t.tn.widths) && !t.tn.longer {
		return relation(op, v, lv, "Int", SQLite)
	}
	switch op {
	case sqlast.OpEq:
		return "false", true
	case sqlast.OpNe:
		return "true", true
	case sqlast.OpLt, sqlast.OpLe:
		return "(< " + v + " " + lv + ")", true
	case sqlast.OpGt, sqlast.OpGe:
		return "(>= " + v + " " + lv + ")", true
	}
	return "", false
}

// flipOp is op with its operands swapped: a < b is b > a.
func flipOp(op sqlast.Operator) sqlast.Operator {
	switch op {
	case sqlast.OpLt:
		return sqlast.OpGt
	case sqlast.OpLe:
		return sqlast.OpGe
	case sqlast.OpGt:
		return sqlast.OpLt
	case sqlast.OpGe:
		return sqlast.OpLe
	}
	return op
}

func slicesEqual(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
