package check

import (
	"strconv"

	"github.com/sqljudge/sqljudge/internal/sqlast"
)

// CASE in the encoding: a searched CASE (CASE WHEN c1 THEN r1 ... [ELSE
// e] END) is the result of the first WHEN whose condition is TRUE (one
// that is FALSE or NULL passes on), else the ELSE, else NULL (SQLite's
// OP_If chain in sqlite3ExprCodeTarget, TK_CASE; PostgreSQL's
// ExecEvalCase). As a value it has no affinity (sqlite3ExprAffinity gives
// none for TK_CASE: CASE WHEN 1 THEN a END = 1 is false for a TEXT column
// a holding '1', while a = 1 is true) and no collation unless a COLLATE
// inside lends one, which is not modelled. A CASE with an operand (CASE
// x WHEN ...) is not modelled: the comparison holding it stays
// uninterpreted.

// funcCase is a call that is a CASE, as that CASE, nil for any other:
// SQLite's iif(c, a, b) is CASE WHEN c THEN a ELSE b END (SQLite compiles
// it to the same bytecode, since 3.32); coalesce(a, b, …), and SQLite's
// ifnull(a, b), is CASE WHEN a IS NOT NULL THEN a WHEN b IS NOT NULL
// THEN b … ELSE the last END (the first argument that is not NULL, each
// evaluated in turn; like a CASE, no affinity, and a collation only from
// a COLLATE inside, which caseValue refuses, or on PostgreSQL from a
// result's, which it refuses too).
func funcCase(d Dialect, f *sqlast.FuncCall) *sqlast.CaseExpr {
	if f.Star || f.Distinct || f.Filter != nil || f.Over != nil {
		return nil
	}
	switch name := lowerASCII(f.Name.Name); {
	case name == "iif" && d == SQLite && len(f.Args) == 3:
		return &sqlast.CaseExpr{Whens: []*sqlast.CaseWhen{{When: f.Args[0], Then: f.Args[1]}}, Else: f.Args[2]}
	case name == "coalesce" && len(f.Args) >= 2, name == "ifnull" && d == SQLite && len(f.Args) == 2:
		c := &sqlast.CaseExpr{Else: f.Args[len(f.Args)-1]}
		for _, a := range f.Args[:len(f.Args)-1] {
			c.Whens = append(c.Whens, &sqlast.CaseWhen{When: &sqlast.NullCheckExpr{Test: sqlast.TestNotNullWords, X: a}, Then: a})
		}
		return c
	}
	return nil
}

// truthWord is "true" or "false" for the keyword TRUE or FALSE written
// bare: on SQLite (the canonical form keeps it only as the right operand
// of IS, where no column has the name) and on PostgreSQL (a boolean
// literal wherever it stands, which the canonical form keeps as it is);
// "" for anything else.
func truthWord(d Dialect, e sqlast.Expr) string {
	id, ok := e.(*sqlast.Ident)
	if !ok || d != SQLite && d != Postgres || id.Quote != sqlast.QuoteNone {
		return ""
	}
	switch w := lowerASCII(id.Name); w {
	case "true", "false":
		return w
	}
	return ""
}

// constWhen reports, for a WHEN condition that is a literal on SQLite,
// whether the CASE takes it (known true): NULL never, a number when it is
// not zero (sqlite3VdbeBooleanValue). Anything else, and any condition on
// PostgreSQL (which wants a boolean there), is not known.
func constWhen(d Dialect, w sqlast.Expr) (taken, known bool) {
	l, ok := stripParens(w).(*sqlast.Literal)
	if !ok || d != SQLite {
		return false, false
	}
	switch l.Kind {
	case sqlast.LitNull:
		return false, true
	case sqlast.LitInteger:
		if i, err := strconv.ParseInt(l.Value, 10, 64); err == nil {
			return i != 0, true
		}
	case sqlast.LitFloat:
		if f, err := strconv.ParseFloat(l.Value, 64); err == nil {
			return f != 0, true
		}
	}
	return false, false
}

// ite is SMT-LIB's if-then-else.
func ite(c, a, b string) string { return "(ite " + c + " " + a + " " + b + ")" }

// caseValue encodes a searched CASE as a value: its results must be of
// one sort and family (NULL goes with any); ok is false otherwise, for a
// CASE with an operand or a COLLATE, and for a result the kernel does not
// model. A result that may leave the integers (ovf) makes the CASE one
// too.
func (e *encoder) caseValue(c *sqlast.CaseExpr) (term, bool, error) {
	if c.Operand != nil || len(c.Whens) == 0 || holdsCollate(c) {
		return term{}, false, nil
	}
	var whens []pred
	var rs []term
	var always sqlast.Expr // the result of a WHEN always taken
	for _, w := range c.Whens {
		// A WHEN that is a literal is taken always or never (SQLite,
		// whose CASE is evaluated lazily and whose results keep their
		// own types: one never taken has no part in the value).
		if taken, known := constWhen(e.s.d, w.When); known {
			if !taken {
				continue
			}
			always = w.Then
			break
		}
		p, err := e.cond(w.When)
		if err != nil {
			return term{}, false, err
		}
		r, ok, err := e.value(w.Then)
		if err != nil || !ok {
			return term{}, false, err
		}
		whens, rs = append(whens, p), append(rs, r)
	}
	if always == nil {
		always = c.Else
	}
	els := nullTerm
	if always != nil {
		var ok bool
		var err error
		if els, ok, err = e.value(always); err != nil || !ok {
			return term{}, false, err
		}
	}
	rs = append(rs, els)
	var kind *term
	overflows := false
	for i := range rs {
		r := &rs[i]
		if r.srt == "" {
			continue
		}
		// On PostgreSQL a CASE takes its results' collation (the
		// implicit one of a column): not modelled.
		if r.tn != nil || r.coll != "" && e.s.d != SQLite || kind != nil && (r.srt != kind.srt || r.fam != kind.fam) {
			return term{}, false, nil
		}
		if kind == nil {
			kind = r
		}
		overflows = overflows || r.ovf != ""
	}
	if kind == nil {
		return nullTerm, true, nil
	}
	// A NULL result's value is never read (its null flag holds): any
	// value of the sort stands in.
	val := func(r term) string {
		if r.srt == "" {
			return kind.v
		}
		return r.v
	}
	ovf := func(r term) string {
		if r.ovf == "" {
			return "false"
		}
		return r.ovf
	}
	rv := func(r term) string {
		if r.ovf == "" {
			return "0.0"
		}
		return r.rv
	}
	t := term{n: els.n, v: val(els), srt: kind.srt, fam: kind.fam, tag: "case " + kind.fam.String()}
	if overflows {
		t.ovf, t.rv = ovf(els), rv(els)
	}
	for i := len(whens) - 1; i >= 0; i-- {
		w, r := whens[i].t, rs[i]
		t.n, t.v = ite(w, r.n, t.n), ite(w, val(r), t.v)
		if overflows {
			t.ovf, t.rv = ite(w, ovf(r), t.ovf), ite(w, rv(r), t.rv)
		}
	}
	return t, true, nil
}

// caseCond encodes a searched CASE as a condition: the truth of the
// result it picks, each result read as a condition (cond), which is the
// truth of its value. ok is false for a CASE with an operand or a
// COLLATE.
func (e *encoder) caseCond(c *sqlast.CaseExpr) (pred, bool, error) {
	if c.Operand != nil || len(c.Whens) == 0 || holdsCollate(c) {
		return pred{}, false, nil
	}
	p := pred{"false", "false"} // no ELSE: NULL
	if c.Else != nil {
		var err error
		if p, err = e.cond(c.Else); err != nil {
			return pred{}, false, err
		}
	}
	for i := len(c.Whens) - 1; i >= 0; i-- {
		w, err := e.cond(c.Whens[i].When)
		if err != nil {
			return pred{}, false, err
		}
		r, err := e.cond(c.Whens[i].Then)
		if err != nil {
			return pred{}, false, err
		}
		p = pred{ite(w.t, r.t, p.t), ite(w.t, r.f, p.f)}
	}
	return p, true, nil
}

// past is t as the number the engine holds: where t may leave the
// integers (ovf), the real it is then, else its integer, as a real; any
// other term as it is. A comparison of it is exact: SQLite compares an
// integer with a real by their values (sqlite3IntFloatCompare), as the
// solver compares rationals.
func past(t term) term {
	if t.ovf == "" {
		return t
	}
	return term{n: t.n, v: ite(t.ovf, t.rv, "(to_real "+t.v+")"), srt: "Real", fam: Real, aff: t.aff, coll: t.coll, tag: "past " + t.tag}
}
