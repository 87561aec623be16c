package sqllex

import (
	"errors"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

func TestTokenizeRoundTrips(t *testing.T) {
	for _, q := range []string{
		"SELECT \"a;b\", 'it''s', `x`, [y z] FROM t -- c;\nWHERE x > 1.5e3 /* ; */;",
		"select count(distinct T1.name) from t1 as T1",
		"SELECT 'unterminated",
		"SELECT café FROM naïve",
	} {
		var got string
		for _, tok := range Tokenize(q) {
			got += tok.Text
		}
		if got != q {
			t.Errorf("tokens of %q rebuild %q", q, got)
		}
		var one []Token
		for i := 0; i < len(q); {
			tok, next := Next(q, i)
			one, i = append(one, tok), next
		}
		if !slices.Equal(one, Tokenize(q)) {
			t.Errorf("Next one at a time gives %q; Tokenize %q", one, Tokenize(q))
		}
	}
}

func TestRemoveDistinct(t *testing.T) {
	cases := map[string]string{
		"SELECT DISTINCT name FROM t":                    "SELECT  name FROM t",
		"select count(distinct T1.x) from t1 as T1":      "select count( T1.x) from t1 as T1",
		"SELECT DISTINCT(name) FROM t":                   "SELECT (name) FROM t",
		"SELECT 'distinct', \"distinct\" FROM distincts": "SELECT 'distinct', \"distinct\" FROM distincts",
		"SELECT name FROM t -- distinct":                 "SELECT name FROM t -- distinct",
	}
	for in, want := range cases {
		if got := RemoveDistinct(in); got != want {
			t.Errorf("RemoveDistinct(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestFirstStatement(t *testing.T) {
	cases := []struct {
		q    string
		more bool
	}{
		{"SELECT 1", false},
		{"SELECT 1;", false},
		{"SELECT 1; -- done\n  /* really */ ", false},
		{"SELECT ';' FROM t", false},
		{"SELECT 1; SELECT 2", true},
		{"SELECT 1;;", true},
		{"SELECT \"a;b\" FROM t; DROP TABLE t", true},
	}
	for _, c := range cases {
		if _, more := FirstStatement(c.q); more != c.more {
			t.Errorf("FirstStatement(%q) more = %v", c.q, more)
		}
	}
}

// firstStatementByTokens is FirstStatement as the tokens define it: the
// end of the first ';' token, and whether a token other than whitespace and
// comments follows it.
func firstStatementByTokens(q string) (end int, more bool) {
	pos := 0
	toks := Tokenize(q)
	for i, t := range toks {
		pos += len(t.Text)
		if t.Kind == Punct && t.Text == ";" {
			for _, u := range toks[i+1:] {
				if u.Kind != Space && u.Kind != Comment {
					return pos, true
				}
			}
			return pos, false
		}
	}
	return len(q), false
}

// TestFirstStatementAgreesWithTokens: FirstStatement, which looks only at
// quotes, brackets, comments and ';', finds the ';' token Tokenize finds,
// on a million short strings made of the characters that start or end a
// token (fixed seed).
func TestFirstStatementAgreesWithTokens(t *testing.T) {
	parts := []string{"'", "\"", "`", "[", "]", "-", "/", "*", ";", "\n", " ", "a", "1", ".", "e", "é", "''", "--", "/*", "*/", "SELECT"}
	r := rand.New(rand.NewPCG(1, 2))
	var b strings.Builder
	for range 1_000_000 {
		b.Reset()
		for range r.IntN(12) {
			b.WriteString(parts[r.IntN(len(parts))])
		}
		q := b.String()
		gotEnd, gotMore := FirstStatement(q)
		wantEnd, wantMore := firstStatementByTokens(q)
		if gotEnd != wantEnd || gotMore != wantMore {
			t.Fatalf("FirstStatement(%q) = %d, %v; the tokens say %d, %v", q, gotEnd, gotMore, wantEnd, wantMore)
		}
	}
}

func TestSplitStatements(t *testing.T) {
	got := SplitStatements("SELECT 'a;b' FROM t;\n SELECT \"x;\" FROM u ; ;")
	want := []string{"SELECT 'a;b' FROM t", "SELECT \"x;\" FROM u"}
	if !slices.Equal(got, want) {
		t.Errorf("SplitStatements = %q, want %q", got, want)
	}
}

func TestReplaceCurYearAndPostprocess(t *testing.T) {
	if got := ReplaceCurYear("SELECT year(curdate( )) - born FROM t"); got != "SELECT 2020- born FROM t" {
		t.Errorf("ReplaceCurYear = %q", got)
	}
	if got := Postprocess("a > = 1 and b < = 2 and c ! = 3"); got != "a >= 1 and b <= 2 and c != 3" {
		t.Errorf("Postprocess = %q", got)
	}
	if !ContainsOrderBy("select a from t ORDER BY a") || ContainsOrderBy("select a from t order  by a") {
		t.Error("ContainsOrderBy must be the official substring test")
	}
}

// The expansions below are those of Defog SQL-Eval's own tests of
// get_all_minimal_queries (tests/test_eval.py).
func TestExpandColumnChoices(t *testing.T) {
	q3 := "SELECT {persons.name,persons.id} FROM persons WHERE persons.age > 25"
	want3 := []string{
		"SELECT persons.name FROM persons WHERE persons.age > 25",
		"SELECT persons.id FROM persons WHERE persons.age > 25",
		"SELECT persons.name, persons.id FROM persons WHERE persons.age > 25",
	}
	if got := ExpandColumnChoices(q3); !slices.Equal(got, want3) {
		t.Errorf("got %q", got)
	}
	q4 := "SELECT {persons.name,persons.id} FROM persons WHERE persons.age > 25 GROUP BY {}"
	want4 := []string{
		"SELECT persons.name FROM persons WHERE persons.age > 25 GROUP BY persons.name",
		"SELECT persons.id FROM persons WHERE persons.age > 25 GROUP BY persons.id",
		"SELECT persons.name, persons.id FROM persons WHERE persons.age > 25 GROUP BY persons.name, persons.id",
	}
	if got := ExpandColumnChoices(q4); !slices.Equal(got, want4) {
		t.Errorf("got %q", got)
	}
	if got := ExpandColumnChoices("SELECT a FROM t WHERE x = '{a,b}'"); len(got) != 1 {
		t.Errorf("braces in a literal expanded: %q", got)
	}
	if got := ExpandColumnChoices("SELECT {a,b}, {c,d} FROM t"); len(got) != 9 {
		t.Errorf("two groups: %d queries, want 3x3", len(got))
	}
}

// TestOfficialMinimalQueries: get_all_minimal_queries' own reading, with
// the cases where it differs from ExpandColumnChoices.
func TestOfficialMinimalQueries(t *testing.T) {
	cases := []struct {
		in   string
		want []string
	}{
		{"SELECT 1; ;SELECT 2;", []string{"SELECT 1", "SELECT 2"}},
		// Options keep their spaces; GROUP BY {} follows the choice.
		{"SELECT {a, b}, COUNT(*) FROM t GROUP BY {}", []string{
			"SELECT a, COUNT(*) FROM t GROUP BY a", "SELECT  b, COUNT(*) FROM t GROUP BY  b",
			"SELECT a,  b, COUNT(*) FROM t GROUP BY a,  b"}},
		// A ';' inside a literal splits; only the first group is expanded.
		{"SELECT 'x;y' FROM t", []string{"SELECT 'x", "y' FROM t"}},
		{"SELECT {a,b} FROM t WHERE c = '{z}'", []string{"SELECT a FROM t WHERE c = '{z}'", "SELECT b FROM t WHERE c = '{z}'", "SELECT a, b FROM t WHERE c = '{z}'"}},
		{"SELECT {a,b}, {c} FROM t", []string{"SELECT a, {c} FROM t", "SELECT b, {c} FROM t", "SELECT a, b, {c} FROM t"}},
	}
	for _, c := range cases {
		if got := OfficialMinimalQueries(c.in); !slices.Equal(got, c.want) {
			t.Errorf("%q:\n got %q\nwant %q", c.in, got, c.want)
		}
	}
}

// TestPostgresOfficialText: the text SQL-Eval's PostgreSQL runner sends, or
// its error; each case checked against query_postgres_db (psycopg2 2.9,
// SQLAlchemy 1.4, pandas 1.5.3).
func TestPostgresOfficialText(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"SELECT name FROM author WHERE name LIKE 'A%'", "SELECT name FROM author WHERE name LIKE 'A%'"},
		{"SELECT 1", "SELECT 1"},
		{"SELECT 7 % 3 AS m", ""},
		{"SELECT 'a%' AS x", ""},
		{"SELECT 7 % 3 AS m, name FROM author WHERE name LIKE 'A%' LIMIT 1", ""},
		// Inside the span from LIKE to the last quote, '%' is escaped.
		{"SELECT name FROM author WHERE name LIKE 'A%' AND 7 % 3 = 1 AND x = 'b'", "SELECT name FROM author WHERE name LIKE 'A%' AND 7 % 3 = 1 AND x = 'b'"},
		// A "%%" already there is one '%' to the server.
		{"SELECT name FROM t WHERE name LIKE 'A%%'", "SELECT name FROM t WHERE name LIKE 'A%%'"},
		{"SELECT 7 %% 3", "SELECT 7 % 3"},
	} {
		got, err := PostgresOfficialText(c.in)
		if c.want == "" {
			if !errors.Is(err, ErrPsycopg2Format) {
				t.Errorf("%q: %q, %v; want the runner's error", c.in, got, err)
			}
			continue
		}
		if err != nil || got != c.want {
			t.Errorf("%q: %q, %v; want %q", c.in, got, err, c.want)
		}
	}
}

// TestTopLevelOrderBy: an ORDER BY of the query itself, not one inside
// parentheses (a subquery, a window) or in a string or comment.
func TestTopLevelOrderBy(t *testing.T) {
	for q, want := range map[string]bool{
		"SELECT a FROM t ORDER BY a":                              true,
		"SELECT a FROM t order /* c */ by a":                      true,
		"SELECT a FROM (SELECT a FROM t ORDER BY a) AS s":         false,
		"SELECT rank() OVER (ORDER BY a) FROM t":                  false,
		"SELECT 'order by' FROM t":                                false,
		"SELECT a FROM t -- ORDER BY a":                           false,
		"SELECT a FROM t WHERE a IN (SELECT b FROM u) ORDER BY 1": true,
	} {
		if got := TopLevelOrderBy(q); got != want {
			t.Errorf("TopLevelOrderBy(%q) = %v, want %v", q, got, want)
		}
	}
}
