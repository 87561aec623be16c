package spider

import (
	"errors"
	"fmt"
)

// ErrOfficialCrash is wrapped by the errors of Rebuild, ExactMatch and
// Hardness where the official evaluator would raise outside its
// try/except (and so stop the whole evaluation): a condition list whose
// even positions hold a conjunction, two different subqueries in one FROM
// that Python's sorted() cannot order, a condition it cannot hash.
var ErrOfficialCrash = errors.New("the official Spider evaluator raises here")

func crash(format string, args ...any) error {
	return fmt.Errorf("%w: %s", ErrOfficialCrash, fmt.Sprintf(format, args...))
}

// Rebuild returns a copy of sql rewritten as the official evaluator does
// before comparing (evaluation.evaluate with the default DISABLE_VALUE and
// DISABLE_DISTINCT): rebuild_sql_val sets every value of FROM, WHERE and
// HAVING conditions to None except nested queries (recursively, including
// INTERSECT/UNION/EXCEPT), then rebuild_sql_col, with the columns of the
// query's FROM tables (build_valid_col_units), maps each column of the
// select, FROM conditions, WHERE, GROUP BY, ORDER BY and HAVING (and of the
// INTERSECT/UNION/EXCEPT parts, with the outer query's FROM tables) to its
// foreign-key representative and sets every DISTINCT flag to None. Nested
// queries in conditions keep their columns and DISTINCT flags, subqueries
// in FROM are left as parsed: the official rewrite does not reach them.
//
// sql is not modified. A nil sql gives nil. The error wraps
// ErrOfficialCrash where a condition holds "and"/"or" at an even position
// (the official rewrite fails to unpack it).
func Rebuild(s *Schema, sql *SQL) (*SQL, error) {
	if sql == nil {
		return nil, nil
	}
	c := sql.Clone()
	if err := rebuildVal(c); err != nil {
		return nil, err
	}
	valid := s.validColUnits(c.From.TableUnits)
	if err := rebuildCol(s, valid, c); err != nil {
		return nil, err
	}
	return c, nil
}

// rebuildVal is rebuild_sql_val, in place.
func rebuildVal(sql *SQL) error {
	if sql == nil {
		return nil
	}
	for _, c := range []Condition{sql.From.Conds, sql.Having, sql.Where} {
		for i := 0; i < len(c); i += 2 {
			u := c[i].Unit
			if u == nil {
				return crash("ValueError: cannot unpack %q as a cond_unit", c[i].Conj)
			}
			for _, v := range []*Value{&u.Val1, &u.Val2} {
				if v.Kind == ValSQL {
					if err := rebuildVal(v.SQL); err != nil {
						return err
					}
				} else {
					*v = Value{}
				}
			}
		}
	}
	for _, sub := range []*SQL{sql.Intersect, sql.Except, sql.Union} {
		if err := rebuildVal(sub); err != nil {
			return err
		}
	}
	return nil
}

// rebuildColUnit is rebuild_col_unit_col.
func rebuildColUnit(s *Schema, valid map[string]bool, c *ColUnit) {
	if k, ok := s.fk[c.Col]; ok && valid[c.Col] {
		c.Col = k
	}
	c.Distinct = None
}

func rebuildValUnit(s *Schema, valid map[string]bool, v *ValUnit) {
	rebuildColUnit(s, valid, &v.Col1)
	if v.Col2 != nil {
		rebuildColUnit(s, valid, v.Col2)
	}
}

func rebuildCondCol(s *Schema, valid map[string]bool, c Condition) error {
	for i := 0; i < len(c); i += 2 {
		if c[i].Unit == nil {
			return crash("ValueError: cannot unpack %q as a cond_unit", c[i].Conj)
		}
		rebuildValUnit(s, valid, &c[i].Unit.Val)
	}
	return nil
}

// rebuildCol is rebuild_sql_col, in place.
func rebuildCol(s *Schema, valid map[string]bool, sql *SQL) error {
	if sql == nil {
		return nil
	}
	for i := range sql.Select.Items {
		rebuildValUnit(s, valid, &sql.Select.Items[i].Val)
	}
	sql.Select.Distinct = None
	if err := rebuildCondCol(s, valid, sql.From.Conds); err != nil {
		return err
	}
	if err := rebuildCondCol(s, valid, sql.Where); err != nil {
		return err
	}
	for i := range sql.GroupBy {
		rebuildColUnit(s, valid, &sql.GroupBy[i])
	}
	if sql.OrderBy != nil {
		for i := range sql.OrderBy.Items {
			rebuildValUnit(s, valid, &sql.OrderBy.Items[i])
		}
	}
	if err := rebuildCondCol(s, valid, sql.Having); err != nil {
		return err
	}
	for _, sub := range []*SQL{sql.Intersect, sql.Except, sql.Union} {
		if err := rebuildCol(s, valid, sub); err != nil {
			return err
		}
	}
	return nil
}

// Clone returns a deep copy of sql.
func (sql *SQL) Clone() *SQL {
	if sql == nil {
		return nil
	}
	c := *sql
	c.Select.Items = make([]SelectItem, len(sql.Select.Items))
	for i, it := range sql.Select.Items {
		c.Select.Items[i] = SelectItem{Agg: it.Agg, Val: it.Val.clone()}
	}
	c.From.TableUnits = make([]TableUnit, len(sql.From.TableUnits))
	for i, u := range sql.From.TableUnits {
		c.From.TableUnits[i] = TableUnit{Table: u.Table, SQL: u.SQL.Clone()}
	}
	c.From.Conds = sql.From.Conds.clone()
	c.Where = sql.Where.clone()
	c.Having = sql.Having.clone()
	c.GroupBy = append([]ColUnit(nil), sql.GroupBy...)
	if sql.OrderBy != nil {
		ob := &OrderBy{Dir: sql.OrderBy.Dir, Items: make([]ValUnit, len(sql.OrderBy.Items))}
		for i, v := range sql.OrderBy.Items {
			ob.Items[i] = v.clone()
		}
		c.OrderBy = ob
	}
	c.Intersect, c.Union, c.Except = sql.Intersect.Clone(), sql.Union.Clone(), sql.Except.Clone()
	return &c
}

func (v ValUnit) clone() ValUnit {
	if v.Col2 != nil {
		c2 := *v.Col2
		v.Col2 = &c2
	}
	return v
}

func (c Condition) clone() Condition {
	if c == nil {
		return nil
	}
	out := make(Condition, len(c))
	for i, it := range c {
		if it.Unit != nil {
			u := *it.Unit
			u.Val = u.Val.clone()
			u.Val1.SQL, u.Val2.SQL = u.Val1.SQL.Clone(), u.Val2.SQL.Clone()
			it.Unit = &u
		}
		out[i] = it
	}
	return out
}
