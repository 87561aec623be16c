package fuzz

import (
	"slices"
	"strings"

	"github.com/sqljudge/sqljudge/internal/engine"
)

// suspect guesses which root cause of issue 37 (R1…R17), or a later one
// named in words, a counterexample shows, from the rewrites that made the pair, the
// constructs the two queries hold and the schema. It is a guess for the
// report's tally, which a reader confirms on the printed pair: "other"
// (with the rewrites) when no rule fits. The rules are tried in order,
// the most specific first.
func suspect(c *Counterexample, p *pairSpec, s *schema, db *database) string {
	f := featuresOf(p, s)
	dataFeatures(db, f)
	rw := func(names ...string) bool {
		for _, n := range names {
			for _, r := range p.rewrites {
				if r == n || strings.HasPrefix(r, n+":") {
					return true
				}
			}
		}
		return false
	}
	switch {
	case c.Failed != "":
		return "failure: one query fails on the database, the other runs"
	case s.d == engine.Postgres && f["char"]:
		return "R16 CHAR(n)"
	case rw("alias_subst") && f["order_alias_expr"]:
		return "R1 ORDER BY alias in an expression"
	case f["dq_rowid"], f["rowid_alias"]:
		return "R4 rowid names"
	case rw("quote_string") && f["dq_alias_on"]:
		return "R2 alias in ON"
	case rw("quote_string") && f["dq_alias_sub"]:
		return "R3 outer alias in a subquery"
	case rw("quote_string") && f["dq_alias"]:
		return "R2/R3 a double-quoted alias"
	case f["outer_agg"]:
		return "R10 outer aggregate in a subquery"
	case rw("group_order:distinct"):
		// Before R13: an INTEGER PRIMARY KEY DESC in the schema of such a
		// pair does not make its order.
		return "SELECT DISTINCT over groups sorted outside its output (found 2026-12-07)"
	case f["pk_desc_null"]:
		return "R13 INTEGER PRIMARY KEY DESC"
	case c.Database2 != "" && f["sub_term"]:
		return "R11 ties through subqueries"
	case c.Database2 != "" && (f["query_collate"] || f["nocase_col"]):
		return "R12 collation ties"
	case c.Database2 != "":
		return "ties: " + strings.Join(p.rewrites, "+")
	case rw("left_inner", "join_kind"):
		return "outer join as inner: a WHERE TRUE on the NULL row"
	case rw("left_add"):
		return "outer join removed: its ON binds no key"
	case rw("with_cte"):
		return "WITH inlined: " + strings.Join(p.rewrites, "+")
	case rw("case_wrap", "arith_shift") || f["query_case"]:
		return "CASE or arithmetic: " + strings.Join(p.rewrites, "+")
	case f["in_list_lit"]:
		return "R5 IN list without affinity" + collated(f)
	case f["in_list_cols"] && f["nocase_col"]:
		return "R6/R17 IN list of collated columns"
	case f["in_list_cols"]:
		return "R6 IN list of columns"
	case rw("eq_propagate", "literal_form") && f["in_sub_lit"]:
		return "R7 IN subquery affinities"
	case rw("eq_propagate:real~numeric", "eq_propagate:numeric~real"):
		return "R8 REAL against NUMERIC"
	case rw("eq_propagate:text~blob", "eq_propagate:blob~text"):
		return "R9 TEXT against untyped"
	case rw("group_term", "distinct_toggle", "limit_change", "add_true") && f["sub_term"]:
		return "R11 dependencies through subqueries"
	case rw("distinct_toggle") && f["partial_index"]:
		return "R14 partial unique index"
	case rw("derive") && f["derived_order"] && f["sum"]:
		return "R15 FROM subquery's ORDER BY"
	case f["query_collate"] && c.Database2 != "":
		return "R12 collation ties"
	case f["nocase_col"]:
		return "R17 column COLLATE"
	case f["real_numeric"]:
		return "R8 REAL against NUMERIC"
	case f["text_untyped"]:
		return "R9 TEXT against untyped"
	case f["query_collate"]:
		return "R12 collation"
	}
	return "other: " + strings.Join(p.rewrites, "+")
}

// collated notes a collated column among those a pair reads.
func collated(f map[string]bool) string {
	if f["nocase_col"] {
		return " (with a column COLLATE: R17)"
	}
	return ""
}

// dataFeatures adds what the counterexample's database holds: a NULL in
// an INTEGER PRIMARY KEY DESC column.
func dataFeatures(db *database, f map[string]bool) {
	for ti, t := range db.s.tables {
		if t.pkForm != pkIntegerDesc || len(t.pk) != 1 {
			continue
		}
		for _, r := range db.rows[ti] {
			if r[t.pk[0]].k == kNull {
				f["pk_desc_null"] = true
			}
		}
	}
}

// featuresOf lists the constructs of a pair the rules of suspect read.
func featuresOf(p *pairSpec, s *schema) map[string]bool {
	f := map[string]bool{}
	for _, t := range s.tables {
		if t.pkForm == pkIntegerDesc && len(t.pk) == 1 {
			f["pk_desc"] = true
		}
		for _, ix := range t.indexes {
			if ix.where != "" {
				f["partial_index"] = true
			}
		}
		for _, c := range t.cols {
			if strings.Contains(strings.ToLower(c.typ), "char(") {
				f["char"] = true
			}
		}
	}
	for _, q := range []*sel{p.q1, p.q2} {
		queryFeatures(q, f)
	}
	return f
}

// queryFeatures adds the constructs of q to f.
func queryFeatures(q *sel, f map[string]bool) {
	for _, o := range q.orderBy {
		if _, bare := o.x.(*aliasRef); !bare && holdsAliasRef(o.x) {
			f["order_alias_expr"] = true
		}
	}
	walk(q, func(st site) {
		// An output alias that spells a rowid's name, named in WHERE (an
		// input column there: the rowid).
		if a, ok := (*st.slot).(*aliasRef); ok && st.cl != inOrderBy {
			switch strings.ToLower(a.it.alias) {
			case "rowid", "oid", "_rowid_":
				f["rowid_alias"] = true
			}
		}
	})
	var cols []*colRef
	for _, s := range sels(q) {
		for _, fr := range s.from {
			if fr.sub != nil && len(fr.sub.orderBy) > 0 {
				f["derived_order"] = true
			}
		}
		if s.distinct || len(s.groupBy) > 0 || len(s.orderBy) > 0 {
			for _, e := range append(append(itemExprs(s), s.groupBy...), orderExprs(s)...) {
				if holdsSub(e) {
					f["sub_term"] = true
				}
			}
		}
	}
	walk(q, func(st site) {
		switch t := (*st.slot).(type) {
		case *lit:
			if strings.HasPrefix(t.text, `"`) {
				dqFeatures(t, st, f)
			}
		case *colRef:
			cols = append(cols, t)
			if st.inAgg && !ownedBy(t.f, st.s) {
				f["outer_agg"] = true
			}
		case *call:
			if t.name == "sum" || t.name == "total" || t.name == "avg" {
				f["sum"] = true
			}
		case *inList:
			if _, ok := t.x.(*lit); ok {
				f["in_list_lit"] = true
			}
			for _, y := range t.list {
				if _, ok := y.(*colRef); ok {
					if _, ok := t.x.(*colRef); ok {
						f["in_list_cols"] = true
					}
				}
			}
		case *inSub:
			if _, ok := t.x.(*lit); ok {
				f["in_sub_lit"] = true
			}
		case *collate:
			f["query_collate"] = true
		case *caseExpr:
			f["query_case"] = true
		}
	})
	affs := map[affinity]bool{}
	for _, c := range cols {
		if t, i, ok := baseColumn(c); ok {
			affs[t.cols[i].affinity()] = true
			if t.cols[i].collate != "" {
				f["nocase_col"] = true
			}
		}
	}
	f["real_numeric"] = f["real_numeric"] || affs[affReal] && affs[affNumeric]
	f["text_untyped"] = f["text_untyped"] || affs[affText] && affs[affBlob]
}

// dqFeatures reads a double-quoted literal: a rowid name, or an output
// alias of its SELECT (in ON) or of an enclosing one (in a subquery).
func dqFeatures(l *lit, st site, f map[string]bool) {
	switch strings.ToLower(l.v.s) {
	case "rowid", "oid", "_rowid_":
		f["dq_rowid"] = true
		return
	}
	for s := st.s; s != nil; s = s.outer {
		for _, it := range s.items {
			if strings.EqualFold(it.alias, l.v.s) {
				f["dq_alias"] = true
				switch {
				case s == st.s && st.cl == inOn:
					f["dq_alias_on"] = true
				case s != st.s:
					f["dq_alias_sub"] = true
				}
			}
		}
	}
}

// ownedBy reports whether f is a FROM item of s.
func ownedBy(f *fromItem, s *sel) bool { return slices.Contains(s.from, f) }

func itemExprs(s *sel) []expr {
	var out []expr
	for _, it := range s.items {
		if !it.star {
			out = append(out, it.x)
		}
	}
	return out
}

func orderExprs(s *sel) []expr {
	var out []expr
	for _, o := range s.orderBy {
		out = append(out, o.x)
	}
	return out
}

// holdsAliasRef reports whether e names an output alias somewhere.
func holdsAliasRef(e expr) bool {
	found := false
	slot := e
	walkExprTree(&slot, func(x expr) {
		if _, ok := x.(*aliasRef); ok {
			found = true
		}
	})
	return found
}

// holdsSub reports whether e holds a subquery.
func holdsSub(e expr) bool {
	found := false
	slot := e
	walkExprTree(&slot, func(x expr) {
		if subOf(x) != nil {
			found = true
		}
	})
	return found
}
