package prove

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/sqljudge/sqljudge/internal/prove/check"
)

// usingDDL: t and u share every column name, v shares a, c and x with
// them under other affinities (a INTEGER against t's TEXT: '1' = 1 holds
// there, and the merged column's storage class tells which side it came
// from) and has a column k of its own.
const usingDDL = compoundDDL + "; CREATE TABLE v(a INTEGER, c TEXT, x TEXT, k INTEGER); CREATE TABLE z(z INTEGER); INSERT INTO z VALUES (1)"

func usingSchema() *check.MapSchema {
	s := compoundSchema()
	s.Tables = append(s.Tables, &check.Table{Name: "v", Columns: []check.Column{
		{Name: "a", Family: check.Int, Affinity: check.AffinityInteger},
		{Name: "c", Family: check.Text, Affinity: check.AffinityText},
		{Name: "x", Family: check.Text, Affinity: check.AffinityText},
		{Name: "k", Family: check.Int, Affinity: check.AffinityInteger},
	}}, &check.Table{Name: "z", Columns: []check.Column{{Name: "z", Family: check.Int, Affinity: check.AffinityInteger}}})
	return s
}

// usingRows draws rows for t, u and v (compoundRows' values; v's a and k
// integers or numeric text, c and x as t's).
func usingRows(r *rand.Rand) string {
	pick := func(xs ...string) string { return xs[r.IntN(len(xs))] }
	var b strings.Builder
	b.WriteString(compoundRows(r))
	for range r.IntN(6) {
		fmt.Fprintf(&b, "INSERT INTO v VALUES (%s, %s, %s, %s);",
			pick("1", "'1'", "2", "NULL"), pick("'a'", "'A'", "'b'", "NULL"), pick("1", "'1'", "'a'", "NULL"), pick("1", "2", "NULL"))
	}
	return b.String()
}

// usingQuery draws a statement with a NATURAL or USING join: its FROM
// one of a list (some the reading refuses), its outputs, WHERE, GROUP BY
// and a correlated subquery reading the merged names unqualified.
func usingQuery(r *rand.Rand) string {
	pick := func(xs ...string) string { return xs[r.IntN(len(xs))] }
	// Each FROM with the names it merges (read unqualified) and whether
	// k is read unqualified there.
	froms := []struct {
		from  string
		names []string
	}{
		{"t NATURAL JOIN u", []string{"i", "a", "c", "x"}}, {"t JOIN u USING (i)", []string{"i"}},
		{"t JOIN u USING (x, c)", []string{"x", "c"}}, {"t NATURAL JOIN v", []string{"a", "c", "x", "k"}},
		{"v NATURAL JOIN t", []string{"a", "c", "x", "i", "k"}}, {"t JOIN v USING (a)", []string{"a", "k", "i"}},
		{"v JOIN t USING (a, x)", []string{"a", "x", "k", "i"}}, {"t LEFT JOIN v USING (c)", []string{"c", "k", "i"}},
		{"t NATURAL LEFT JOIN v", []string{"a", "c", "x", "k", "i"}}, {"v NATURAL LEFT JOIN u", []string{"a", "c", "x", "k", "i"}},
		{"t JOIN v USING (x) JOIN z ON z.z = v.k", []string{"x", "k", "z"}}, {"z, t NATURAL JOIN v", []string{"a", "c", "x", "z"}},
		{"(SELECT i AS a, c FROM t) AS d NATURAL JOIN v", []string{"a", "c", "x", "k"}},
		{"v NATURAL JOIN (SELECT a, x AS c, i FROM u) AS d", []string{"a", "c", "x", "k", "i"}},
		{"t JOIN v USING (a) LEFT JOIN u USING (i)", []string{"a", "i", "k"}},
		// Refused: a name two items to the left have, a USING naming a
		// column one side lacks, a FROM subquery with an unnamed output.
		{"t JOIN u ON t.i = u.i JOIN v USING (a)", []string{"k"}}, {"t NATURAL JOIN u NATURAL JOIN v", []string{"k"}},
		{"t JOIN v USING (i)", []string{"k"}}, {"(SELECT i + 1, a FROM t) AS d NATURAL JOIN v", []string{"k"}},
	}
	f := froms[r.IntN(len(froms))]
	from, names := f.from, f.names
	var outs []string
	for range 1 + r.IntN(3) {
		n := names[r.IntN(len(names))]
		outs = append(outs, pick(n, "typeof("+n+")", n+" || ''", "7"))
	}
	q := "SELECT " + strings.Join(outs, ", ") + " FROM " + from
	switch r.IntN(4) {
	case 0:
		n := names[r.IntN(len(names))]
		q += " WHERE " + pick(n+" = 'a'", n+" = 1", n+" = '1'", n+" IS NULL", n+" > 'A'")
	case 1:
		n := names[r.IntN(len(names))]
		q += " WHERE EXISTS (SELECT 1 FROM z AS w WHERE w.z = " + n + " OR " + n + " = 'a')"
	case 2:
		g := names[r.IntN(len(names))]
		q = "SELECT " + g + ", count(*), typeof(" + g + ") FROM " + from + " GROUP BY " + g
	}
	return q
}

// TestUsingJoinOnSQLite: the kernel's reading of NATURAL JOIN and USING
// (check/using.go) is SQLite's: every statement of usingQuery the
// canonical form reads gives, written as that form prints it (JOIN ... ON
// with every name qualified), the same rows as written, value by value
// and storage class by storage class, on 30 databases of usingRows.
// Reading an unqualified merged name as the right item's column, or the
// comparison the other way round, fails here (v's a is INTEGER, t's TEXT).
func TestUsingJoinOnSQLite(t *testing.T) {
	s := usingSchema()
	r := rand.New(rand.NewPCG(38, 44))
	read, refused := 0, map[string]int{}
	for range 300 {
		q := usingQuery(r)
		c, err := check.Canonicalize(q, s, "a")
		if err != nil {
			refused[q]++
			if testing.Verbose() && refused[q] == 1 {
				t.Logf("refused %s: %v", q, err)
			}
			continue
		}
		read++
		canon := c.SQL()
		if strings.Contains(canon, "USING") || strings.Contains(canon, "NATURAL") {
			t.Fatalf("the canonical form keeps the merging join: %s", canon)
		}
		for range 30 {
			rows := usingRows(r)
			want, got := sqliteBagOf(t, usingDDL, rows, q), sqliteBagOf(t, usingDDL, rows, canon)
			if !slices.Equal(want, got) {
				t.Fatalf("the canonical form reads the join otherwise than SQLite:\n%s\n%s\nrows %s\nas written %v\ncanonical  %v", q, canon, rows, want, got)
			}
		}
	}
	for _, q := range []string{
		"SELECT a FROM t JOIN u ON t.i = u.i JOIN v USING (a)",
		"SELECT a FROM t NATURAL JOIN u NATURAL JOIN v",
		"SELECT a FROM t JOIN v USING (i)",
		"SELECT a FROM (SELECT i + 1, a FROM t) AS d NATURAL JOIN v",
		"SELECT * FROM t NATURAL JOIN v",
		"SELECT v.* FROM t NATURAL JOIN v",
		"SELECT a FROM t JOIN v USING (a, a)",
		"SELECT a FROM t NATURAL JOIN (SELECT k FROM v) AS d",
		// SQLite names d's second a "a:1", and joins on it too.
		`SELECT k FROM (SELECT a, a, i AS k FROM t) AS d NATURAL JOIN (SELECT x AS "a:1", k FROM v) AS e`,
	} {
		if c, err := check.Canonicalize(q, s, "a"); err == nil {
			t.Errorf("%s: read as %s, want a refusal", q, c.SQL())
		}
	}
	pg := usingSchema()
	pg.D = check.Postgres
	if c, err := check.Canonicalize("SELECT a FROM t NATURAL JOIN v", pg, "a"); err == nil {
		t.Errorf("PostgreSQL: NATURAL JOIN read as %s, want a refusal (the merged column takes a common type)", c.SQL())
	}
	if read < 150 || len(refused) < 3 {
		t.Errorf("%d statements read, %d refused: the generator no longer reaches both", read, len(refused))
	}
	t.Logf("%d statements read (each on 30 databases), %d distinct refused", read, len(refused))
}
