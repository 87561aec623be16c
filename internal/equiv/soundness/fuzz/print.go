package fuzz

import (
	"strconv"
	"strings"
)

// sqlOf prints a query: its common table expressions in a WITH, then
// the SELECT.
func sqlOf(s *sel) string {
	var b strings.Builder
	printWith(&b, s)
	printSel(&b, s)
	return b.String()
}

// printWith prints WITH and the bodies of the common table expressions
// q's FROM items refer to, each name once (its first reference's body).
func printWith(b *strings.Builder, q *sel) {
	// A body that refers to another CTE comes after it: inner references
	// (found later by sels) print first.
	var defs []*fromItem
	done := map[string]bool{}
	for _, s := range sels(q) {
		for _, f := range s.from {
			if f.cte != "" && !done[f.cte] {
				done[f.cte] = true
				defs = append(defs, f)
			}
		}
	}
	for i := len(defs) - 1; i >= 0; i-- {
		f := defs[i]
		if i == len(defs)-1 {
			b.WriteString("WITH ")
		} else {
			b.WriteString(", ")
		}
		b.WriteString(ident(f.cte) + " AS ")
		if f.materialized != "" {
			b.WriteString(f.materialized + " ")
		}
		b.WriteString("(")
		printSel(b, f.sub)
		b.WriteString(")")
	}
	if len(defs) > 0 {
		b.WriteString(" ")
	}
}

func printSel(b *strings.Builder, s *sel) {
	b.WriteString("SELECT ")
	if s.distinct {
		b.WriteString("DISTINCT ")
	}
	for i, it := range s.items {
		if i > 0 {
			b.WriteString(", ")
		}
		switch {
		case it.star && it.starOf != nil:
			b.WriteString(ident(it.starOf.ref()) + ".*")
		case it.star:
			b.WriteString("*")
		default:
			printExpr(b, it.x)
			if it.alias != "" {
				b.WriteString(" AS " + nameText(it.alias, it.aliasQuote, false))
			}
		}
	}
	if len(s.from) > 0 {
		b.WriteString(" FROM ")
	}
	for i, f := range s.from {
		if i > 0 {
			switch {
			case f.join == ",":
				b.WriteString(", ")
			case f.natural:
				b.WriteString(" NATURAL " + f.join + " ")
			default:
				b.WriteString(" " + f.join + " ")
			}
		}
		switch {
		case f.cte != "":
			b.WriteString(ident(f.cte))
		case f.table != nil:
			b.WriteString(ident(f.table.name))
		default:
			b.WriteString("(")
			printSel(b, f.sub)
			b.WriteString(")")
		}
		if f.alias != "" {
			b.WriteString(" AS " + ident(f.alias))
		}
		if f.on != nil {
			b.WriteString(" ON ")
			printExpr(b, f.on)
		}
		if len(f.using) > 0 {
			var names []string
			for _, n := range f.using {
				names = append(names, ident(n))
			}
			b.WriteString(" USING (" + strings.Join(names, ", ") + ")")
		}
	}
	if s.where != nil {
		b.WriteString(" WHERE ")
		printExpr(b, s.where)
	}
	if len(s.groupBy) > 0 {
		b.WriteString(" GROUP BY ")
		for i, g := range s.groupBy {
			if i > 0 {
				b.WriteString(", ")
			}
			printExpr(b, g)
		}
	}
	if s.having != nil {
		b.WriteString(" HAVING ")
		printExpr(b, s.having)
	}
	for _, a := range s.arms {
		b.WriteString(" " + a.op + " ")
		printSel(b, a.s)
	}
	if len(s.orderBy) > 0 {
		b.WriteString(" ORDER BY ")
		for i, o := range s.orderBy {
			if i > 0 {
				b.WriteString(", ")
			}
			printExpr(b, o.x)
			if o.desc {
				b.WriteString(" DESC")
			}
		}
	}
	if s.limit >= 0 {
		b.WriteString(" LIMIT " + strconv.Itoa(s.limit))
		if s.offset >= 0 {
			b.WriteString(" OFFSET " + strconv.Itoa(s.offset))
		}
	}
}

// nameText prints a name: quoted when asked or needed, upper-cased when
// asked (SQLite's names ignore the case of ASCII letters).
func nameText(name string, quote, upper bool) string {
	if upper {
		name = strings.ToUpper(name)
	}
	if quote {
		return `"` + strings.ReplaceAll(name, `"`, `""`) + `"`
	}
	return ident(name)
}

// atomicExpr reports whether e prints as one token or a bracketed whole.
func atomicExpr(e expr) bool {
	switch t := e.(type) {
	case *colRef, *aliasRef, *posRef, *call, *scalar, *exists, *caseExpr:
		return true
	case *lit:
		return !strings.HasPrefix(t.text, "-")
	}
	return false
}

// operand prints e, in parentheses unless it is atomic.
func operand(b *strings.Builder, e expr) {
	if atomicExpr(e) {
		printExpr(b, e)
		return
	}
	b.WriteString("(")
	printExpr(b, e)
	b.WriteString(")")
}

func printExpr(b *strings.Builder, e expr) {
	switch t := e.(type) {
	case *colRef:
		if t.qual {
			b.WriteString(ident(t.f.ref()) + ".")
		}
		b.WriteString(nameText(t.f.colName(t.col), t.quote, false))
	case *aliasRef:
		b.WriteString(nameText(t.it.alias, t.quote, false))
	case *posRef:
		b.WriteString(strconv.Itoa(t.n))
	case *lit:
		b.WriteString(t.text)
	case *binary:
		if t.op == "AND" || t.op == "OR" {
			// Conjuncts and disjuncts keep their own parentheses only
			// when they mix the two.
			for i, x := range []expr{t.l, t.r} {
				if i > 0 {
					b.WriteString(" " + t.op + " ")
				}
				if bx, ok := x.(*binary); ok && (bx.op == "AND" || bx.op == "OR") && bx.op != t.op {
					operand(b, x)
				} else {
					printCond(b, x)
				}
			}
			return
		}
		operand(b, t.l)
		b.WriteString(" " + t.op + " ")
		operand(b, t.r)
	case *unary:
		if t.op == "NOT" {
			b.WriteString("NOT ")
		} else {
			b.WriteString(t.op)
		}
		operand(b, t.x)
	case *call:
		b.WriteString(t.name + "(")
		if t.star {
			b.WriteString("*")
		}
		if t.distinct {
			b.WriteString("DISTINCT ")
		}
		for i, a := range t.args {
			if i > 0 {
				b.WriteString(", ")
			}
			printExpr(b, a)
		}
		b.WriteString(")")
	case *inList:
		operand(b, t.x)
		if t.not {
			b.WriteString(" NOT")
		}
		b.WriteString(" IN (")
		for i, x := range t.list {
			if i > 0 {
				b.WriteString(", ")
			}
			printExpr(b, x)
		}
		b.WriteString(")")
	case *inSub:
		operand(b, t.x)
		if t.not {
			b.WriteString(" NOT")
		}
		b.WriteString(" IN (")
		printSel(b, t.sub)
		b.WriteString(")")
	case *exists:
		if t.not {
			b.WriteString("NOT ")
		}
		b.WriteString("EXISTS (")
		printSel(b, t.sub)
		b.WriteString(")")
	case *scalar:
		b.WriteString("(")
		printSel(b, t.sub)
		b.WriteString(")")
	case *collate:
		operand(b, t.x)
		b.WriteString(" COLLATE " + t.name)
	case *isNull:
		operand(b, t.x)
		if t.not {
			b.WriteString(" IS NOT NULL")
		} else {
			b.WriteString(" IS NULL")
		}
	case *caseExpr:
		if t.iif && len(t.whens) == 1 && t.els != nil {
			b.WriteString("iif(")
			printExpr(b, t.whens[0].cond)
			b.WriteString(", ")
			printExpr(b, t.whens[0].then)
			b.WriteString(", ")
			printExpr(b, t.els)
			b.WriteString(")")
			return
		}
		b.WriteString("CASE")
		for _, w := range t.whens {
			b.WriteString(" WHEN ")
			printExpr(b, w.cond)
			b.WriteString(" THEN ")
			printExpr(b, w.then)
		}
		if t.els != nil {
			b.WriteString(" ELSE ")
			printExpr(b, t.els)
		}
		b.WriteString(" END")
	case *between:
		operand(b, t.x)
		if t.not {
			b.WriteString(" NOT")
		}
		b.WriteString(" BETWEEN ")
		operand(b, t.lo)
		b.WriteString(" AND ")
		operand(b, t.hi)
	}
}

// printCond prints a conjunct or disjunct of AND/OR: a comparison as it
// is, anything compound in parentheses.
func printCond(b *strings.Builder, e expr) {
	switch e.(type) {
	case *binary, *inList, *inSub, *exists, *isNull, *between, *unary, *colRef, *lit, *call, *aliasRef, *collate:
		printExpr(b, e)
	default:
		operand(b, e)
	}
}
