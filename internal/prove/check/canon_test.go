package check

import (
	"testing"
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
