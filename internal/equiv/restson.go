package equiv

import (
	"context"
	"fmt"
	"strings"

	"github.com/sqljudge/sqljudge/internal/catalog"
	"github.com/sqljudge/sqljudge/internal/engine"
	"github.com/sqljudge/sqljudge/internal/result"
	"github.com/sqljudge/sqljudge/internal/sqllex"
)

// RestsOn is what a witness's difference rests on, a closed set. Each is
// found by re-running the queries on the witness changed one way, not
// guessed from the SQL: the kind applies when that change makes the
// difference disappear.
type RestsOn string

// The kinds, in the order the checks run.
const (
	// RestsArity: the queries return different numbers of columns (no
	// change to the data can make them agree).
	RestsArity RestsOn = "arity"
	// RestsNull: the difference disappears when the witness's NULLs are
	// replaced by values their columns allow.
	RestsNull RestsOn = "null"
	// RestsEmptyTable: it disappears when each empty table the queries
	// read gets one row.
	RestsEmptyTable RestsOn = "empty_table"
	// RestsDuplicates: it disappears when repeated rows are removed from
	// the witness's tables, or the two results hold the same rows in
	// different numbers (DISTINCT, bag against set).
	RestsDuplicates RestsOn = "duplicates"
	// RestsValue: none of the above: a difference on ordinary data.
	RestsValue RestsOn = "value"
)

// RestsOnKinds lists every kind, in the order summaries show them. (A
// kind "tie", a difference that rests on which of tied rows an ORDER BY …
// LIMIT keeps, never occurs: the search discards such differences before
// they become witnesses; see robust.)
var RestsOnKinds = []RestsOn{RestsArity, RestsNull, RestsEmptyTable, RestsDuplicates, RestsValue}

// RestsCheck is one check run on a witness: the Kind it tests, what it
// changed (Check), and whether the difference disappeared (Removed); a
// check that could not be made (no NULL to replace, a replacement that
// breaks a constraint) says why in Check and removes nothing.
type RestsCheck struct {
	Kind    RestsOn `json:"kind"`
	Check   string  `json:"check"`
	Removed bool    `json:"removed"`
}

// explain runs the checks on the witness db (on which the queries gave r)
// and returns the kinds that removed the difference (RestsValue when none
// did; RestsArity first when the column counts differ) with every check
// made.
func (s *searcher) explain(ctx context.Context, db Data, r [2]*result.Set) ([]RestsOn, []RestsCheck) {
	var kinds []RestsOn
	var checks []RestsCheck
	if a, b := len(r[0].Columns), len(r[1].Columns); a != b {
		// No change to the data makes the column counts agree.
		return []RestsOn{RestsArity}, []RestsCheck{{RestsArity, fmt.Sprintf("q1 returns %d column(s), q2 %d", a, b), true}}
	}
	add := func(kind RestsOn, check string, removed bool) {
		checks = append(checks, RestsCheck{kind, check, removed})
		if removed {
			kinds = append(kinds, kind)
		}
	}
	for _, c := range s.nullChecks(db) {
		add(RestsNull, c.desc, c.db != nil && s.disappears(ctx, c.db))
	}
	if cand, desc := s.fillEmpty(db); desc != "" {
		add(RestsEmptyTable, desc, cand != nil && s.disappears(ctx, cand))
	}
	if cand, desc := s.dedupe(db); cand != nil {
		add(RestsDuplicates, desc, s.disappears(ctx, cand))
	}
	if sameRows(r[0], r[1]) && !sameBag(r[0], r[1]) {
		add(RestsDuplicates, "the two results hold the same rows, in different numbers", true)
	}
	kinds = uniqueKinds(kinds)
	if len(kinds) == 0 {
		kinds = []RestsOn{RestsValue}
		if len(checks) == 0 {
			checks = append(checks, RestsCheck{RestsValue, "no NULL to replace, no empty table the queries read, no repeated row: the difference is on ordinary data", true})
		}
	}
	return kinds, checks
}

func uniqueKinds(ks []RestsOn) []RestsOn {
	var out []RestsOn
	for _, k := range RestsOnKinds {
		for _, x := range ks {
			if x == k {
				out = append(out, k)
				break
			}
		}
	}
	return out
}

// disappears loads db and reports whether both queries run on it and
// agree. It counts nothing in the search's figures.
func (s *searcher) disappears(ctx context.Context, db Data) bool {
	if !s.schema.admits(db) || db.Rows() != s.schema.repair(db).Rows() {
		return false
	}
	if err := s.sc.Load(ctx, s.schema.tableRows(s.o.Sandbox.Dialect(), db)); err != nil {
		return false
	}
	var r [2]*result.Set
	for i, q := range []string{s.p.Q1, s.p.Q2} {
		qctx, cancel := context.WithTimeout(ctx, s.o.QueryTimeout)
		set, err := s.sc.Query(qctx, q)
		cancel()
		if err != nil {
			return false
		}
		r[i] = set
	}
	return s.cmp.equal(ctx, r[0], r[1])
}

// candidate is a changed witness and what was changed (db nil: the change
// could not be made, desc says why).
type candidate struct {
	db   Data
	desc string
}

// nullChecks returns the witness with its NULLs replaced, two ways: by
// fresh values (each unlike every value of its column) and by values its
// column already holds; a foreign key column takes a value of a parent
// row. None when the witness has no NULL.
func (s *searcher) nullChecks(db Data) []candidate {
	nulls := 0
	for _, rows := range db {
		for _, r := range rows {
			for _, v := range r {
				if v.IsNull() {
					nulls++
				}
			}
		}
	}
	if nulls == 0 {
		return nil
	}
	var out []candidate
	noun := "NULLs"
	if nulls == 1 {
		noun = "NULL"
	}
	for _, fresh := range []bool{true, false} {
		cand := db.clone()
		var set []string
		ok, held := true, false
		for ti, t := range s.schema.Tables {
			for ri := range cand[ti] {
				for ci, c := range t.Columns {
					if !cand[ti][ri][ci].IsNull() {
						continue
					}
					v, found, wasHeld := s.replacement(cand, ti, ci, fresh)
					if !found {
						ok = false
						continue
					}
					held = held || wasHeld
					cand[ti][ri][ci] = v
					set = append(set, fmt.Sprintf("%s.%s = %s", t.Name, c.Name, catalog.Literal(engine.SQLite, v)))
				}
			}
		}
		how := "values their columns already hold"
		if fresh {
			how = "fresh values"
		} else if !held {
			break // no column holds another value: the same as fresh
		}
		switch {
		case !ok:
			out = append(out, candidate{nil, fmt.Sprintf("the %d %s replaced by %s: not every NULL has one (a foreign key without a parent row)", nulls, noun, how)})
		case cand.Rows() != s.schema.repair(cand).Rows():
			out = append(out, candidate{nil, fmt.Sprintf("the %d %s replaced by %s (%s): a constraint refuses it", nulls, noun, how, strings.Join(set, ", "))})
		default:
			desc := fmt.Sprintf("the %d %s replaced by %s (%s)", nulls, noun, how, strings.Join(set, ", "))
			if added := cand.Rows() - db.Rows(); added > 0 {
				desc += fmt.Sprintf(", with %d parent row(s) of fresh values for the foreign keys", added)
			}
			out = append(out, candidate{cand, desc})
		}
	}
	return out
}

// replacement returns a non-NULL value for column ci of table ti of db: a
// parent's value for a foreign key column (a parent row of fresh values is
// added to db when there is none), else a fresh value (fresh) or one the
// column already holds (held: it was one).
func (s *searcher) replacement(db Data, ti, ci int, fresh bool) (v result.Value, found, held bool) {
	return s.replacementAt(db, ti, ci, fresh, 0)
}

func (s *searcher) replacementAt(db Data, ti, ci int, fresh bool, depth int) (v result.Value, found, held bool) {
	t := s.schema.Tables[ti]
	for _, fk := range t.FKs {
		for k, c := range fk.Cols {
			if c != ci {
				continue
			}
			pi := s.schema.refIndex(fk)
			for _, p := range db[pi] {
				if v := p[fk.RefCols[k]]; !v.IsNull() {
					return v, true, false
				}
			}
			if depth >= 3 || pi == ti {
				return result.Value{}, false, false
			}
			row, ok := s.freshRow(db, pi, depth+1)
			if !ok {
				return result.Value{}, false, false
			}
			db[pi] = append(db[pi], row)
			return row[fk.RefCols[k]], true, false
		}
	}
	inColumn := map[string]bool{}
	var first result.Value
	for _, r := range db[ti] {
		if v := r[ci]; !v.IsNull() {
			if first.IsNull() {
				first = v
			}
			inColumn[result.RowKey([]result.Value{v})] = true
		}
	}
	if !fresh && !first.IsNull() {
		return first, true, true
	}
	cands := append(append([]result.Value{}, baseValues(t.Columns[ci].Family)...), s.gen.pools[ti][ci]...)
	for _, v := range cands {
		if cv, ok := coerce(v, t.Columns[ci]); ok && !cv.IsNull() && !inColumn[result.RowKey([]result.Value{cv})] {
			return cv, true, false
		}
	}
	return first, !first.IsNull(), !first.IsNull()
}

// freshRow returns a row of table ti of fresh values (replacement),
// adding the parent rows its foreign keys need to db; false when a column
// has none.
func (s *searcher) freshRow(db Data, ti, depth int) ([]result.Value, bool) {
	t := s.schema.Tables[ti]
	row := make([]result.Value, len(t.Columns))
	for ci := range t.Columns {
		v, ok, _ := s.replacementAt(db, ti, ci, true, depth)
		if !ok {
			return nil, false
		}
		row[ci] = v
	}
	return row, true
}

// fillEmpty returns the witness with one row added to each empty table
// that either query names (a parent table first, so that the row's foreign
// keys find it), and what was added; desc is "" when no such table is
// empty.
func (s *searcher) fillEmpty(db Data) (Data, string) {
	named := map[string]bool{}
	for _, q := range []string{s.p.Q1, s.p.Q2} {
		for _, tk := range sqllex.Tokenize(q) {
			if tk.Kind == sqllex.Word || tk.Kind == sqllex.Quoted {
				named[strings.ToLower(catalog.UnquoteIdent(tk.Text))] = true
			}
		}
	}
	cand := db.clone()
	var filled []string
	for ti, t := range s.schema.Tables {
		if len(db[ti]) > 0 || !named[strings.ToLower(t.Name)] {
			continue
		}
		row := make([]result.Value, len(t.Columns))
		for ci := range t.Columns {
			if v, ok, _ := s.replacement(cand, ti, ci, true); ok {
				row[ci] = v
			}
		}
		cand[ti] = append(cand[ti], row)
		filled = append(filled, t.Name)
	}
	if len(filled) == 0 {
		return nil, ""
	}
	desc := "one row added to each empty table the queries read: " + strings.Join(filled, ", ")
	if cand.Rows() != s.schema.repair(cand).Rows() {
		return nil, desc + " (a constraint refuses it)"
	}
	return cand, desc
}

// dedupe returns the witness with its tables' repeated rows removed, or
// nil when no table repeats a row.
func (s *searcher) dedupe(db Data) (Data, string) {
	cand := make(Data, len(db))
	var tables []string
	for ti, rows := range db {
		seen := map[string]bool{}
		for _, r := range rows {
			k := result.RowKey(r)
			if seen[k] {
				continue
			}
			seen[k] = true
			cand[ti] = append(cand[ti], r)
		}
		if len(cand[ti]) != len(rows) {
			tables = append(tables, s.schema.Tables[ti].Name)
		}
	}
	if len(tables) == 0 {
		return nil, ""
	}
	return cand, "repeated rows removed from " + strings.Join(tables, ", ")
}

// sameRows reports whether a and b hold the same distinct rows (columns by
// position).
func sameRows(a, b *result.Set) bool {
	if len(a.Columns) != len(b.Columns) {
		return false
	}
	set := func(s *result.Set) map[string]bool {
		m := map[string]bool{}
		for _, r := range s.Rows {
			m[result.RowKey(r)] = true
		}
		return m
	}
	x, y := set(a), set(b)
	if len(x) != len(y) {
		return false
	}
	for k := range x {
		if !y[k] {
			return false
		}
	}
	return true
}
