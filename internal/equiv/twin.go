package equiv

import (
	"strings"

	"github.com/sqljudge/sqljudge/internal/result"
)

// The twin phase doubles the entities of a database the queries return
// rows on: every row of one table gets a twin, equal in every column but
// its keys (fresh values), and every row that references it by a foreign
// key gets a copy that references the twin. Two stadiums of one name and
// location, each with its concerts; two director rows of one movie; two
// students named alike with the same pets. Queries that agree on such a
// database only by accident of its rows being distinct (INTERSECT against
// IN, COUNT against COUNT(DISTINCT), DISTINCT against a semi-join, GROUP
// BY a name against GROUP BY a key) disagree on its double, and random
// rows, which must repeat every compared value at once, almost never
// are one. A sibling is one such twin whose foreign key points at another
// parent: two counts of one group then differ by one. It draws nothing:
// the databases follow from the productive ones (the first on which a
// query returned rows and the two agreed).

// maxProductive bounds the databases the twin phase doubles.
const maxProductive = 3

// keepProductive records db as productive when the queries, agreeing
// there, returned rows other than what they return on empty tables (an
// aggregate's row over nothing is not rows met), up to maxProductive.
func (s *searcher) keepProductive(db Data, r [2]*result.Set) {
	switch {
	case s.phase == PhaseEmpty:
		s.emptyResult = resultKey(r[0])
	case len(s.productive) < maxProductive && r[0].Len() > 0 && resultKey(r[0]) != s.emptyResult:
		s.productive = append(s.productive, db)
	}
}

// resultKey is a text that tells result sets apart by their rows in
// order (result.RowKey of each).
func resultKey(r *result.Set) string {
	var b strings.Builder
	for _, row := range r.Rows {
		b.WriteByte('|')
		b.WriteString(result.RowKey(row))
	}
	return b.String()
}

// twinDatabases returns, for each productive database and each table the
// queries name that has rows there, the database with that table
// doubled (double), then one with a sibling of its first row for each of
// its foreign keys (sibling), repaired; those the repair leaves as they
// were are left out.
func (s *searcher) twinDatabases() []Data {
	c := s.schema.readConditions(s.p.Q1, s.p.Q2)
	var out []Data
	for _, db := range s.productive {
		for _, ti := range c.tables {
			if len(db[ti]) == 0 {
				continue
			}
			if d := s.double(db, ti); d != nil {
				out = append(out, d)
			}
			for fk := range s.schema.Tables[ti].FKs {
				if d := s.sibling(db, ti, fk); d != nil {
					out = append(out, d)
				}
			}
		}
	}
	return out
}

// twinner makes rows under fresh keys in out, a copy of a database:
// used holds, by table and column, the values (result.RowKey) a column
// holds there.
type twinner struct {
	s    *searcher
	out  Data
	used map[[2]int]map[string]bool
}

func (s *searcher) newTwinner(db Data) *twinner {
	return &twinner{s: s, out: db.clone(), used: map[[2]int]map[string]bool{}}
}

// fresh returns a value column ci of table tj holds nowhere in w.out.
func (w *twinner) fresh(tj, ci int) (result.Value, bool) {
	k := [2]int{tj, ci}
	if w.used[k] == nil {
		w.used[k] = map[string]bool{}
		for _, r := range w.out[tj] {
			w.used[k][result.RowKey(r[ci:ci+1])] = true
		}
	}
	col := w.s.schema.Tables[tj].Columns[ci]
	for n := 0; n < 1000; n++ {
		cv, ok := coerce(distinctKey(col, n), col)
		if !ok {
			return result.Value{}, false
		}
		if key := result.RowKey([]result.Value{cv}); !w.used[k][key] {
			w.used[k][key] = true
			return cv, true
		}
	}
	return result.Value{}, false
}

// freshKeys gives row (of table tj) fresh values in each key's columns
// outside a foreign key, unless the key holds a column of keep (a foreign
// key just re-pointed: the key is new already).
func (w *twinner) freshKeys(tj int, row []result.Value, keep map[int]bool) bool {
	t := w.s.schema.Tables[tj]
	inFK := map[int]bool{}
	for _, fk := range t.FKs {
		for _, c := range fk.Cols {
			inFK[c] = true
		}
	}
keys:
	for _, key := range t.Keys() {
		for _, ci := range key {
			if keep[ci] {
				continue keys
			}
		}
		for _, ci := range key {
			if inFK[ci] {
				continue
			}
			v, ok := w.fresh(tj, ci)
			if !ok {
				return false
			}
			row[ci] = v
		}
	}
	return true
}

// double returns db with every row of table ti twinned: the twin keeps
// every column but those of each key (PRIMARY KEY, UNIQUE) that no
// foreign key holds, which take values the column holds nowhere; each row
// of another table whose foreign key references the original gets a copy
// referencing the twin, with its own keys made fresh the same way (a key
// that holds the changed foreign key stays as it is). Repaired; nil when
// no twin survives the repair.
func (s *searcher) double(db Data, ti int) Data {
	w := s.newTwinner(db)
	out := w.out
	n := len(db[ti])
	added := 0
	for _, r := range db[ti][:n] {
		twin := append([]result.Value(nil), r...)
		if !w.freshKeys(ti, twin, nil) {
			continue
		}
		out[ti] = append(out[ti], twin)
		added++
		for tj, u := range s.schema.Tables {
			if tj == ti {
				continue
			}
			for _, fk := range u.FKs {
				if s.schema.refIndex(fk) != ti {
					continue
				}
				pk, ok := s.schema.keyOf(s.schema.Tables[ti], r, fk.RefCols)
				if !ok {
					continue
				}
				for _, cr := range db[tj] {
					if ck, ok := s.schema.keyOf(u, cr, fk.Cols); !ok || ck != pk {
						continue
					}
					child := append([]result.Value(nil), cr...)
					keep := map[int]bool{}
					for k, c := range fk.Cols {
						child[c] = twin[fk.RefCols[k]]
						keep[c] = true
					}
					if w.freshKeys(tj, child, keep) {
						out[tj] = append(out[tj], child)
					}
				}
			}
		}
	}
	if added == 0 {
		return nil
	}
	fixed := s.schema.repair(out)
	if len(fixed[ti]) == n {
		return nil
	}
	return fixed
}

// sibling returns db with a twin of table ti's first row whose foreign
// key fk points at another row of the referenced table (a superhero of
// the same publisher but another gender): two entities alike but for one
// relationship, which separate counts that should divide unevenly (a
// ratio of COUNT(CASE …) to COUNT(…) in integer against real division).
// Nil when the referenced table holds no other row or the twin does not
// survive the repair.
func (s *searcher) sibling(db Data, ti, fk int) Data {
	t := s.schema.Tables[ti]
	f := t.FKs[fk]
	pi := s.schema.refIndex(f)
	if pi < 0 || len(db[ti]) == 0 {
		return nil
	}
	r := db[ti][0]
	own, _ := s.schema.keyOf(t, r, f.Cols)
	for _, p := range db[pi] {
		pk, ok := s.schema.keyOf(s.schema.Tables[pi], p, f.RefCols)
		if !ok || pk == own {
			continue
		}
		w := s.newTwinner(db)
		twin := append([]result.Value(nil), r...)
		keep := map[int]bool{}
		for k, c := range f.Cols {
			twin[c] = p[f.RefCols[k]]
			keep[c] = true
		}
		if !w.freshKeys(ti, twin, keep) {
			return nil
		}
		w.out[ti] = append(w.out[ti], twin)
		fixed := s.schema.repair(w.out)
		if len(fixed[ti]) == len(db[ti]) {
			return nil
		}
		return fixed
	}
	return nil
}
