package check

import (
	"testing"

	"github.com/sqljudge/sqljudge/internal/sqlast"
)

// spiderSchema is a two-table schema in Spider's style.
func testSchema() *MapSchema {
	return &MapSchema{D: SQLite, Tables: []*Table{
		{Name: "singer", Columns: []Column{{Name: "Singer_ID", Family: Int, NotNull: true}, {Name: "Name", Family: Text}, {Name: "Country", Family: Text}, {Name: "Age", Family: Int}},
			Keys: []Key{{Cols: []int{0}, Primary: true}}},
		{Name: "concert", Columns: []Column{{Name: "concert_ID", Family: Int, NotNull: true}, {Name: "Stadium_ID", Family: Int}, {Name: "Year", Family: Int}},
			Keys: []Key{{Cols: []int{0}, Primary: true}}},
		{Name: "singer_in_concert", Columns: []Column{{Name: "concert_ID", Family: Int, NotNull: true}, {Name: "Singer_ID", Family: Int, NotNull: true}},
			Keys: []Key{{Cols: []int{0, 1}, Primary: true}},
			FKs:  []ForeignKey{{Cols: []int{0}, RefTable: "concert", RefCols: []int{0}}, {Cols: []int{1}, RefTable: "singer", RefCols: []int{0}}}},
	}}
}

func TestCanonicalize(t *testing.T) {
	s := testSchema()
	cases := []struct{ q, want string }{
		{"SELECT count(*) FROM singer", "SELECT count(*) FROM singer AS a1"},
		{"select COUNT(*) from SINGER;", "SELECT count(*) FROM singer AS a1"},
		{`SELECT T1.Name FROM singer AS T1 WHERE T1.Country = "France" ORDER BY age ASC`, "SELECT a1.name FROM singer AS a1 WHERE a1.country = 'France' ORDER BY a1.age"},
		{`SELECT name AS n, count(*) AS c FROM singer GROUP BY 1 ORDER BY c DESC LIMIT 1`, "SELECT a1.name, count(*) FROM singer AS a1 GROUP BY a1.name ORDER BY count(*) DESC LIMIT 1"},
		{`SELECT name FROM singer WHERE singer_id IN (SELECT singer_id FROM singer_in_concert WHERE concert_id = singer.age)`,
			"SELECT a1.name FROM singer AS a1 WHERE a1.singer_id IN (SELECT a2.singer_id FROM singer_in_concert AS a2 WHERE a2.concert_id = a1.age)"},
		{`SELECT T2.n FROM singer AS T1 JOIN (SELECT name AS n, singer_id FROM singer) AS T2 ON T1.singer_id = T2.singer_id`,
			"SELECT a2.c1 FROM singer AS a1 JOIN (SELECT a3.name AS c1, a3.singer_id AS c2 FROM singer AS a3) AS a2 ON a1.singer_id = a2.c2"},
	}
	for _, c := range cases {
		got, err := Canonicalize(c.q, s, "a")
		if err != nil {
			t.Errorf("%s: %v", c.q, err)
			continue
		}
		if got.SQL() != c.want {
			t.Errorf("%s:\n got %s\nwant %s", c.q, got.SQL(), c.want)
		}
	}
	for _, q := range []string{
		"SELECT nosuch FROM singer",
		"SELECT singer_id FROM singer, singer_in_concert",
		"SELECT random() FROM singer",
		"SELECT date('now') FROM singer",
		"WITH x AS (SELECT 1) SELECT * FROM x",
		"SELECT singer.name FROM singer AS s",
	} {
		if _, err := Canonicalize(q, s, "a"); err == nil {
			t.Errorf("%s: canonicalized, want a refusal", q)
		}
	}
}

// TestCanonicalizeDoubleQuotesPostgres: a double-quoted token naming no
// column is a string on SQLite, an unknown column on PostgreSQL.
func TestCanonicalizeDoubleQuotesPostgres(t *testing.T) {
	s := testSchema()
	if c, err := Canonicalize(`SELECT name FROM singer WHERE country = "France"`, s, "a"); err != nil || c.SQL() != "SELECT a1.name FROM singer AS a1 WHERE a1.country = 'France'" {
		t.Fatalf("SQLite: %v %v", c, err)
	}
	s.D = Postgres
	if _, err := Canonicalize(`SELECT name FROM singer WHERE country = "France"`, s, "a"); err == nil {
		t.Fatal("PostgreSQL: a double-quoted string resolved")
	}
}

// namesSchema is t(a, b), s(c), all integers.
func namesSchema(d Dialect) *MapSchema {
	return &MapSchema{D: d, Tables: []*Table{
		{Name: "t", Columns: []Column{{Name: "a", Family: Int}, {Name: "b", Family: Int}}},
		{Name: "s", Columns: []Column{{Name: "c", Family: Int}}},
	}}
}

// TestCanonicalNames: names resolve as SQLite's lookupName and
// resolveOrderGroupBy resolve them (issue 37, R1-R4): a bare ORDER BY
// name is an output alias, a name inside an ORDER BY expression the
// input column; ON, WHERE, GROUP BY and HAVING read an input column
// first, then an output alias, and so do the subqueries there (but not
// those of the result list); a rowid name is refused. On PostgreSQL only
// a bare ORDER BY or GROUP BY name may be an output column.
func TestCanonicalNames(t *testing.T) {
	cases := []struct {
		d       Dialect
		q, want string // want "" for a refusal
	}{
		{SQLite, "SELECT b AS a FROM t ORDER BY a * 3 = 122883, a", "SELECT a1.b FROM t AS a1 ORDER BY a1.a * 3 = 122883, a1.b"},
		{SQLite, "SELECT b AS a FROM t ORDER BY abs(a)", "SELECT a1.b FROM t AS a1 ORDER BY abs(a1.a)"},
		{SQLite, `SELECT b AS "a" FROM t ORDER BY ("a") COLLATE NOCASE DESC`, "SELECT a1.b FROM t AS a1 ORDER BY a1.b COLLATE nocase DESC"},
		{SQLite, `SELECT t.a AS z FROM t JOIN s ON "z" = s.c`, "SELECT a1.a FROM t AS a1 JOIN s AS a2 ON a1.a = a2.c"},
		{SQLite, "SELECT t.b FROM t WHERE EXISTS (SELECT s.c AS a FROM s JOIN s AS u ON a = u.c)", "SELECT a1.b FROM t AS a1 WHERE EXISTS (SELECT a2.c FROM s AS a2 JOIN s AS a3 ON a2.c = a3.c)"},
		{SQLite, "SELECT t.b FROM t WHERE EXISTS (SELECT s.c AS a FROM s JOIN t AS u ON a = u.b)", "SELECT a1.b FROM t AS a1 WHERE EXISTS (SELECT a2.c FROM s AS a2 JOIN t AS a3 ON a3.a = a3.b)"},
		{SQLite, `SELECT t.a AS z FROM t WHERE EXISTS (SELECT s.c FROM s WHERE s.c = "z")`, "SELECT a1.a FROM t AS a1 WHERE EXISTS (SELECT a2.c FROM s AS a2 WHERE a2.c = a1.a)"},
		{SQLite, `SELECT t.a AS z, (SELECT count(*) FROM s WHERE s.c = "z") FROM t`, "SELECT a1.a, (SELECT count(*) FROM s AS a2 WHERE a2.c = 'z') FROM t AS a1"},
		{SQLite, "SELECT b AS a FROM t GROUP BY a", "SELECT a1.b FROM t AS a1 GROUP BY a1.a"},
		{SQLite, "SELECT b AS x FROM t WHERE x > 1 GROUP BY x HAVING x < 9", "SELECT a1.b FROM t AS a1 WHERE a1.b > 1 GROUP BY a1.b HAVING a1.b < 9"},
		{SQLite, `SELECT "rowid", a FROM t`, ""},
		{SQLite, "SELECT a FROM t WHERE oid = 1", ""},
		{SQLite, "SELECT t._rowid_ FROM t", ""},
		{SQLite, "SELECT a FROM t ORDER BY +1", ""},
		{SQLite, "SELECT a FROM t GROUP BY 1 COLLATE nocase", ""},
		{SQLite, "SELECT a FROM t AS x, s AS x", "SELECT a1.a FROM t AS a1, s AS a2"},
		{SQLite, "SELECT x.a FROM t AS x, s AS x", ""},
		{SQLite, "SELECT t.a FROM t JOIN s ON s.c = u.b JOIN t AS u", ""},
		{SQLite, `SELECT 'x' FROM t WHERE "q" = 'q'`, "SELECT 'x' FROM t AS a1 WHERE 'q' = 'q'"},
		{SQLite, "SELECT a, b FROM t JOIN t AS u USING (a)", ""},
		{SQLite, "SELECT a, u.b FROM t JOIN t AS u USING (a) WHERE a > 1", "SELECT a1.a, a2.b FROM t AS a1 JOIN t AS a2 ON a1.a = a2.a WHERE a1.a > 1"},
		{SQLite, "SELECT a, b FROM t NATURAL LEFT JOIN t AS u", "SELECT a1.a, a1.b FROM t AS a1 LEFT JOIN t AS a2 ON a1.a = a2.a AND a1.b = a2.b"},
		{SQLite, "SELECT c FROM s JOIN (SELECT b AS c FROM t) AS d USING (c)", "SELECT a1.c FROM s AS a1 JOIN (SELECT a3.b AS c1 FROM t AS a3) AS a2 ON a1.c = a2.c1"},
		{SQLite, "SELECT c FROM t NATURAL JOIN s", ""},
		{SQLite, "SELECT c FROM s JOIN s AS u USING (c) JOIN s AS w USING (c)", ""},
		{Postgres, "SELECT c FROM s JOIN s AS u USING (c)", ""},
		{Postgres, "SELECT b AS x FROM t WHERE x > 1", ""},
		{Postgres, "SELECT b AS x FROM t ORDER BY x", "SELECT a1.b FROM t AS a1 ORDER BY a1.b"},
		{Postgres, "SELECT b AS a FROM t ORDER BY a * 3", "SELECT a1.b FROM t AS a1 ORDER BY a1.a * 3"},
		{Postgres, "SELECT b AS x FROM t GROUP BY x", "SELECT a1.b FROM t AS a1 GROUP BY a1.b"},
		{Postgres, "SELECT b AS a FROM t GROUP BY a", "SELECT a1.b FROM t AS a1 GROUP BY a1.a"},
		{Postgres, "SELECT count(*) FROM t ORDER BY count", ""},
		{Postgres, `SELECT b AS "X" FROM t ORDER BY x`, ""},
		{Postgres, `SELECT "A" FROM t`, ""},
		{Postgres, `SELECT A FROM T`, "SELECT a1.a FROM t AS a1"},
	}
	for _, c := range cases {
		got, err := Canonicalize(c.q, namesSchema(c.d), "a")
		switch {
		case c.want == "" && err == nil:
			t.Errorf("%s %s: canonicalized as %s, want a refusal", c.d, c.q, got.SQL())
		case c.want == "":
		case err != nil:
			t.Errorf("%s %s: %v", c.d, c.q, err)
		case got.SQL() != c.want:
			t.Errorf("%s %s:\n got %s\nwant %s", c.d, c.q, got.SQL(), c.want)
		}
	}
}

// TestCanonicalDerivedLinks checks that every occurrence of a FROM
// subquery holds the subquery its alias names in the canonical text, where
// the walk meets FROM subqueries in another order than the canonicalizer
// makes occurrences: inside a subquery of the SELECT list, of a WHERE, of
// an ON, and nested. It failed when relink paired them by
// creation order: a rule then read another subquery's outputs for one
// (tie-safety looped on a column that named itself).
func TestCanonicalDerivedLinks(t *testing.T) {
	s := testSchema()
	for _, q := range []string{
		"SELECT DISTINCT (SELECT max(d.n) FROM (SELECT name AS n FROM singer) AS d), e.n FROM (SELECT f.n FROM (SELECT name AS n, age FROM singer) AS f GROUP BY f.n) AS e",
		"SELECT (SELECT count(*) FROM (SELECT year FROM concert) AS x), y.a FROM (SELECT age AS a FROM singer) AS y WHERE y.a IN (SELECT z.i FROM (SELECT concert_id AS i FROM concert) AS z)",
		"SELECT g.n FROM singer AS s JOIN (SELECT name AS n, singer_id FROM singer) AS g ON g.singer_id = s.singer_id AND EXISTS (SELECT 1 FROM (SELECT 1 AS one) AS h)",
	} {
		c, err := Canonicalize(q, s, "a")
		if err != nil {
			t.Errorf("%s: %v", q, err)
			continue
		}
		linked := 0
		sqlast.Walk(c.Stmt, func(n sqlast.Node) bool {
			if r, ok := n.(*sqlast.TableRef); ok && r.Select != nil && r.Alias != nil {
				o := c.byAlias[lowerASCII(r.Alias.Name)]
				if o == nil || o.derived != r.Select {
					t.Errorf("%s: occurrence %s does not hold its FROM subquery in %s", q, r.Alias.Name, c.SQL())
				}
				linked++
			}
			return true
		})
		if linked < 2 {
			t.Errorf("%s: %d FROM subqueries in the canonical form %s, want 2 or more", q, linked, c.SQL())
		}
	}
}

// TestCanonicalPositionNamingAnInteger: a GROUP BY or ORDER BY position
// that names an integer output is refused. Replaced by that output, `GROUP
// BY 2` of `SELECT name, 1` printed `GROUP BY 1`, read back as a group by
// name: the canonical form was not a fixed point and the prover failed
// inside (an adversarial round's `GROUP BY (2)`). Positions naming other
// outputs still resolve, and each canonical form canonicalizes to itself.
func TestCanonicalPositionNamingAnInteger(t *testing.T) {
	s := testSchema()
	for _, q := range []string{
		"SELECT name, 1 FROM singer GROUP BY 2",
		"SELECT name, 1 FROM singer GROUP BY (2)",
		"SELECT name, (1) FROM singer GROUP BY 2",
		"SELECT name, -1 FROM singer GROUP BY 2",
		"SELECT name, 1 COLLATE NOCASE FROM singer GROUP BY 2",
		"SELECT name, 7 FROM singer ORDER BY 2",
		"SELECT name, +7 FROM singer ORDER BY 2 DESC",
	} {
		if got, err := Canonicalize(q, s, "a"); err == nil {
			t.Errorf("%s: canonicalized to %s, want a refusal", q, got.SQL())
		}
	}
	for _, q := range []string{
		"SELECT name, 'x' FROM singer GROUP BY 2",
		"SELECT name, 1.5 FROM singer ORDER BY 2",
		"SELECT name, age + 1 FROM singer GROUP BY 2 ORDER BY 2",
		"SELECT name FROM singer GROUP BY (1)",
	} {
		got, err := Canonicalize(q, s, "a")
		if err != nil {
			t.Errorf("%s: %v", q, err)
			continue
		}
		again, err := Canonicalize(got.SQL(), s, "a")
		if err != nil {
			t.Errorf("%s: its canonical form %s is refused: %v", q, got.SQL(), err)
			continue
		}
		if again.SQL() != got.SQL() {
			t.Errorf("%s: canonical form %s canonicalizes to %s", q, got.SQL(), again.SQL())
		}
	}
}
