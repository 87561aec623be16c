package spider

import (
	"fmt"

	"github.com/sqljudge/sqljudge/internal/schema"
)

// Hardness levels of evaluation.Evaluator.eval_hardness, easiest first.
const (
	Easy   = "easy"
	Medium = "medium"
	Hard   = "hard"
	Extra  = "extra"
)

// Levels are the hardness levels in the order of the official table.
var Levels = []string{Easy, Medium, Hard, Extra}

// nested is evaluation.get_nestedSQL: the queries nested in FROM, WHERE
// and HAVING conditions, then INTERSECT, EXCEPT and UNION. An "and"/"or" at
// an even position of a condition makes the official code raise.
func nested(sql *SQL) ([]*SQL, error) {
	var out []*SQL
	for _, c := range []Condition{sql.From.Conds, sql.Where, sql.Having} {
		for _, it := range c.Units() {
			if it.Unit == nil {
				return nil, crash("IndexError: string index out of range (get_nestedSQL on %q)", it.Conj)
			}
			if it.Unit.Val1.Kind == ValSQL {
				out = append(out, it.Unit.Val1.SQL)
			}
			if it.Unit.Val2.Kind == ValSQL {
				out = append(out, it.Unit.Val2.SQL)
			}
		}
	}
	for _, s := range []*SQL{sql.Intersect, sql.Except, sql.Union} {
		if s != nil {
			out = append(out, s)
		}
	}
	return out, nil
}

// countComponent1 is evaluation.count_component1: WHERE, GROUP BY, ORDER
// BY, LIMIT, one per joined table, one per OR and per LIKE in FROM, WHERE
// and HAVING conditions.
func countComponent1(sql *SQL) int {
	n := 0
	if len(sql.Where) > 0 {
		n++
	}
	if len(sql.GroupBy) > 0 {
		n++
	}
	if sql.OrderBy != nil {
		n++
	}
	if sql.HasLimit {
		n++
	}
	if len(sql.From.TableUnits) > 0 {
		n += len(sql.From.TableUnits) - 1
	}
	for _, c := range []Condition{sql.From.Conds, sql.Where, sql.Having} {
		for _, it := range c.Conjs() {
			if it.Unit == nil && it.Conj == "or" {
				n++
			}
		}
		for _, it := range c.Units() {
			if it.Unit != nil && it.Unit.Op == OpLike {
				n++
			}
		}
	}
	return n
}

// truthyFirst is Python's unit[0] != 0 for count_agg over condition items:
// not_op for a cond_unit, always true for a conjunction string.
func truthyFirst(it CondItem) bool { return it.Unit == nil || it.Unit.Not }

// countOthers is evaluation.count_others: more than one "aggregate", more
// than one select column, more than one WHERE condition, more than one
// GROUP BY column. The official aggregate count is kept as written: select
// items with an aggregate, WHERE conditions with NOT, GROUP BY columns
// with an aggregate, ORDER BY columns with an aggregate, and every HAVING
// item that is a NOT condition or a conjunction.
func countOthers(sql *SQL) int {
	agg := 0
	for _, it := range sql.Select.Items {
		if it.Agg != AggNone {
			agg++
		}
	}
	for _, it := range sql.Where.Units() {
		if truthyFirst(it) {
			agg++
		}
	}
	for _, c := range sql.GroupBy {
		if c.Agg != AggNone {
			agg++
		}
	}
	if sql.OrderBy != nil {
		for _, v := range sql.OrderBy.Items {
			if v.Col1.Agg != AggNone {
				agg++
			}
		}
		for _, v := range sql.OrderBy.Items {
			if v.Col2 != nil && v.Col2.Agg != AggNone {
				agg++
			}
		}
	}
	for _, it := range sql.Having {
		if truthyFirst(it) {
			agg++
		}
	}
	n := 0
	if agg > 1 {
		n++
	}
	if len(sql.Select.Items) > 1 {
		n++
	}
	if len(sql.Where) > 1 {
		n++
	}
	if len(sql.GroupBy) > 1 {
		n++
	}
	return n
}

// HardnessOf is evaluation.Evaluator.eval_hardness on a structure as
// parsed (before Rebuild): easy, medium, hard or extra from the counts of
// component1 (clauses, joins, OR, LIKE), component2 (nested queries and
// set operations) and others (aggregates, several select columns, WHERE
// conditions or GROUP BY columns). The error wraps ErrOfficialCrash
// where the official code raises.
func HardnessOf(sql *SQL) (string, error) {
	if sql == nil {
		return "", fmt.Errorf("spider hardness: no query")
	}
	nest, err := nested(sql)
	if err != nil {
		return "", err
	}
	c1, c2, others := countComponent1(sql), len(nest), countOthers(sql)
	switch {
	case c1 <= 1 && others == 0 && c2 == 0:
		return Easy, nil
	case (others <= 2 && c1 <= 1 && c2 == 0) || (c1 <= 2 && others < 2 && c2 == 0):
		return Medium, nil
	case (others > 2 && c1 <= 2 && c2 == 0) || (2 < c1 && c1 <= 3 && others <= 2 && c2 == 0) || (c1 <= 1 && others == 0 && c2 <= 1):
		return Hard, nil
	}
	return Extra, nil
}

// Hardness returns the Spider hardness level (easy, medium, hard, extra)
// of a gold query on its database, as the official evaluator computes it
// for its per-level table: process_sql.get_sql on the query, then
// Evaluator.eval_hardness. It fails where the official parser fails on the
// query (an error wrapping ErrUnparsed) or on a database without a usable
// schema.
func Hardness(db *schema.Database, gold string) (string, error) {
	s, err := NewSchema(db)
	if err != nil {
		return "", err
	}
	return s.Hardness(gold)
}

// Hardness is the package function Hardness on an already built schema
// (cheaper when labelling many queries of one database).
func (s *Schema) Hardness(gold string) (string, error) {
	sql, err := ParseOfficial(s, gold)
	if err != nil {
		return "", fmt.Errorf("spider hardness of %q: %w", gold, err)
	}
	return HardnessOf(sql)
}
