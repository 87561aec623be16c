package equiv

import (
	"context"
	"fmt"
	"strings"

	"github.com/sqljudge/sqljudge/internal/catalog"
	"github.com/sqljudge/sqljudge/internal/engine"
	"github.com/sqljudge/sqljudge/internal/result"
)

// Assume says which constraints a database of the search must satisfy, a
// closed set.
type Assume string

// The assumption modes.
const (
	// AssumeDeclared: the schema's declared constraints only (keys,
	// UNIQUE, NOT NULL, foreign keys, CHECKs). The default: a witness is a
	// database the schema admits.
	AssumeDeclared Assume = "declared"
	// AssumeObserved: for a pair with a database (db_id, or the item's
	// database under the equiv metric), also what that database's own data
	// satisfies: NOT NULL for every column that holds no NULL, at least
	// one row in every table that has rows, and UNIQUE for every column
	// whose values are distinct (two values at least). A witness then
	// cannot rest on a NULL, an empty table or a repeated value that the
	// benchmark's data never has. A pair with only DDL has no data: it is
	// searched as under AssumeDeclared, and its record says so.
	AssumeObserved Assume = "observed"
)

// Valid reports whether a is a known mode ("" counts as AssumeDeclared).
func (a Assume) Valid() bool { return a == "" || a == AssumeDeclared || a == AssumeObserved }

// observedQuery reads, for one table, its row count and, per column, how
// many values are not NULL and how many are distinct.
func observedQuery(d engine.Dialect, t *catalog.Table) string {
	parts := []string{"count(*)"}
	for _, c := range t.Columns {
		q := catalog.Ident(d, c.Name, c.Unquoted)
		parts = append(parts, "count("+q+")", "count(DISTINCT "+q+")")
	}
	return "SELECT " + strings.Join(parts, ", ") + " FROM " + catalog.Ident(d, t.Name, t.Unquoted)
}

// observe adds to the schema what the pair's database satisfies
// (AssumeObserved) and returns the assumptions, one string each
// ("not_null singer.Country", "non_empty singer", "unique singer.Name"),
// in table and column order. q runs a read-only query on the database.
func (s *schema) observe(q func(string) (*result.Set, error), d engine.Dialect) ([]string, error) {
	var out []string
	for ti, t := range s.Tables {
		set, err := q(observedQuery(d, t))
		if err != nil {
			return nil, fmt.Errorf("observing table %s: %w", t.Name, err)
		}
		if len(set.Rows) != 1 || len(set.Rows[0]) != 1+2*len(t.Columns) {
			return nil, fmt.Errorf("observing table %s: unexpected result shape", t.Name)
		}
		row := set.Rows[0]
		n := row[0].I
		if n == 0 {
			continue
		}
		s.minRows[ti] = 1
		out = append(out, "non_empty "+t.Name)
		for ci := range t.Columns {
			c := &t.Columns[ci]
			nonNull, distinct := row[1+2*ci].I, row[2+2*ci].I
			if nonNull == n && !c.NotNull {
				c.NotNull = true
				out = append(out, "not_null "+t.Name+"."+c.Name)
			}
			if distinct == nonNull && nonNull >= 2 && !t.IsKey([]int{ci}) {
				t.Uniques = append(t.Uniques, []int{ci})
				out = append(out, "unique "+t.Name+"."+c.Name)
			}
		}
	}
	return out, nil
}

// assume applies o.Assume to the schema read for the pair, and records
// the assumptions in the outcome. Only a pair with a database has
// observed facts.
func (s *searcher) assume(ctx context.Context) error {
	if s.o.Assume != AssumeObserved {
		return nil
	}
	q, d, _, done, err := s.pairDB(ctx)
	if err != nil {
		return err
	}
	if q == nil {
		s.out.Assumptions = []string{}
		s.out.AssumeNote = "the pair has no database: only its declared constraints apply"
		return nil
	}
	defer done()
	facts, err := s.schema.observe(q, d)
	if err != nil {
		return err
	}
	s.out.Assumptions = append([]string{}, facts...)
	return nil
}

// admits reports whether db satisfies the schema's assumed row counts
// (minRows); repair has made it satisfy the rest.
func (s *schema) admits(db Data) bool {
	for ti := range s.Tables {
		if len(db[ti]) < s.minRows[ti] {
			return false
		}
	}
	return true
}
