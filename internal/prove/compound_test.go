package prove

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/sqljudge/sqljudge/internal/prove/check"
)

// compoundDDL holds two tables of every kind of value the compound rule
// must carry as it is: integers, text that looks like a number, NOCASE
// text, an untyped column keeping 1, 1.0 and '1' apart, and reals.
const compoundDDL = "CREATE TABLE t(i INTEGER, a TEXT, c TEXT COLLATE NOCASE, x, r REAL); CREATE TABLE u(i INTEGER, a TEXT, c TEXT COLLATE NOCASE, x, r REAL)"

func compoundSchema() *check.MapSchema {
	cols := func() []check.Column {
		return []check.Column{
			{Name: "i", Family: check.Int, Affinity: check.AffinityInteger},
			{Name: "a", Family: check.Text, Affinity: check.AffinityText},
			{Name: "c", Family: check.Text, Affinity: check.AffinityText, Collation: "nocase"},
			{Name: "x", Family: check.Other, Affinity: check.AffinityBlob},
			{Name: "r", Family: check.Real, Affinity: check.AffinityReal},
		}
	}
	return &check.MapSchema{D: check.SQLite, Tables: []*check.Table{{Name: "t", Columns: cols()}, {Name: "u", Columns: cols()}}}
}

// compoundRows draws rows for t and u: few distinct values, so that
// duplicates, NULLs and values equal under NOCASE or affinity meet.
func compoundRows(r *rand.Rand) string {
	pick := func(xs ...string) string { return xs[r.IntN(len(xs))] }
	var b strings.Builder
	for _, table := range []string{"t", "u"} {
		for range r.IntN(6) {
			fmt.Fprintf(&b, "INSERT INTO %s VALUES (%s, %s, %s, %s, %s);", table,
				pick("1", "2", "NULL"), pick("'1'", "'a'", "'A'", "NULL"), pick("'a'", "'A'", "'b'", "NULL"), pick("1", "1.0", "'1'", "'a'", "NULL"), pick("1.5", "2", "NULL"))
		}
	}
	return b.String()
}

// compoundQuery draws a statement that reads a compound FROM subquery:
// SELECT * FROM (B1 op B2) AS d op C, or a projection (columns of d,
// constants) of a UNION ALL, alone or beside another branch, or DISTINCT;
// at times one the rule refuses.
func compoundQuery(r *rand.Rand) string {
	pick := func(xs ...string) string { return xs[r.IntN(len(xs))] }
	// A branch's output is at times a literal of another kind than the
	// column above it: SQLite converts it to the FROM subquery's column
	// affinity (an integer past 2^53 under REAL's loses its last digits).
	col := func(name string) string {
		if r.IntN(8) == 0 {
			return pick("9223372036854775807", "'1'", "1.0", "1.5", "'a'", "2")
		}
		return name
	}
	// At times every branch is a SELECT DISTINCT, or an aggregate of one
	// row whose only aggregate is its last output (a projection that drops
	// it turns the one row into a row for each row of the FROM).
	shape := r.IntN(8)
	branch := func() string {
		where := pick("t", "u") + " WHERE " + pick("1 = 1", "i = 1", "x = 1", "c = 'a'", "a = 1", "x IS NOT NULL")
		switch shape {
		case 0:
			return "SELECT 2, 'a', 'b', 1, count(*) FROM " + where
		case 1:
			return "SELECT DISTINCT i, a, c, x, r FROM " + where
		}
		return fmt.Sprintf("SELECT %s, %s, %s, %s, %s FROM %s", col("i"), col("a"), col("c"), col("x"), col("r"), where)
	}
	op := func() string { return pick("UNION ALL", "UNION", "EXCEPT", "INTERSECT") }
	if r.IntN(2) == 0 {
		inner := branch() + " " + op() + " " + branch()
		if r.IntN(3) == 0 {
			inner += " " + op() + " " + branch()
		}
		last := branch()
		if r.IntN(2) == 0 {
			last = "SELECT * FROM " + pick("t", "u")
		}
		return fmt.Sprintf("SELECT * FROM (%s) AS d %s %s", inner, op(), last)
	}
	if r.IntN(5) == 0 {
		// Refused: d read whole as the second branch of a UNION, or a
		// projection of an EXCEPT ((B1 EXCEPT B2) keeps one copy of a
		// row that projects to two).
		if r.IntN(2) == 0 {
			return fmt.Sprintf("SELECT * FROM t UNION SELECT * FROM (%s UNION ALL %s) AS d", branch(), branch())
		}
		return fmt.Sprintf("SELECT d.c FROM (%s EXCEPT %s) AS d", branch(), branch())
	}
	inner := branch() + " UNION ALL " + branch()
	var outs []string
	for range 1 + r.IntN(4) {
		// Constants, CASTs of literals among them (Calcite's spelling),
		// and at times a CAST of a column, which the rule refuses.
		outs = append(outs, pick("d.i", "d.a", "d.c", "d.x", "d.r", "7", "'z'", "CAST(1 AS INTEGER)", "CAST('1.0' AS REAL)", "CAST(2.5 AS TEXT)", "CAST(d.i AS TEXT)"))
	}
	q := fmt.Sprintf("SELECT %s FROM (%s) AS d", strings.Join(outs, ", "), inner)
	if r.IntN(3) == 0 {
		// SELECT DISTINCT: a UNION of the projections where the columns
		// are tie-safe (i, a), refused where they are not (c NOCASE, x
		// untyped).
		return "SELECT DISTINCT" + strings.TrimPrefix(q, "SELECT")
	}
	if r.IntN(2) == 0 {
		cols := []string{"i", "a", "c", "x", "r", "7"}
		var other []string
		for range outs {
			other = append(other, cols[r.IntN(len(cols))])
		}
		q += fmt.Sprintf(" UNION ALL SELECT %s FROM %s", strings.Join(other, ", "), pick("t", "u"))
	}
	return q
}

// TestDerivedCompoundOnSQLite: derived_compound keeps the result of every
// statement it rewrites, on SQLite, value by value and storage class by
// storage class: 500 statements of compoundQuery, each where the rule
// applies run before and after it on 30 databases of compoundRows. The
// soundness fuzzer writes no compound query, so this is the rule's
// differential test.
func TestDerivedCompoundOnSQLite(t *testing.T) {
	s := compoundSchema()
	r := rand.New(rand.NewPCG(7, 7))
	applied, refused, unread := 0, 0, 0
	for range 500 {
		q := compoundQuery(r)
		after, readErr, err := applyAtSubquery(check.RuleDerivedCompound, q, s)
		if readErr != nil {
			unread++ // the canonical form counts SELECT * as written
			continue
		}
		if err != nil {
			refused++
			continue
		}
		applied++
		if sameOnDatabases(t, r, check.RuleDerivedCompound, q, after, false) > 0 {
			t.Fatalf("%s fails on a database: the generator writes statements SQLite refuses", q)
		}
	}
	if applied < 120 || refused == 0 {
		t.Errorf("the rule applied to %d statements and refused %d: the generator no longer reaches both", applied, refused)
	}
	t.Logf("derived_compound: %d statements rewritten (each on 30 databases), %d refused, %d not read by the canonical form", applied, refused, unread)
}
