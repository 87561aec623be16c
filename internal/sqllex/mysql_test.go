package sqllex

import (
	"math/rand/v2"
	"strings"
	"testing"
)

// TestTokenizeMySQL: MySQL's reading of quotes and comments, which
// differs from SQLite's: backslash escapes (unless NO_BACKSLASH_ESCAPES),
// "…" a string (unless ANSI_QUOTES), # comments, -- a comment only before
// a space or a control character, [ an ordinary character.
func TestTokenizeMySQL(t *testing.T) {
	def, nbe, ansi := MySQLMode{}, MySQLMode{NoBackslashEscapes: true}, MySQLMode{ANSIQuotes: true}
	cases := []struct {
		q    string
		m    MySQLMode
		want []string // the tokens that are not spaces, "kind:text"
	}{
		{`SELECT 'a\'b' x`, def, []string{"w:SELECT", "s:'a\\'b'", "w:x"}},
		{`SELECT 'a\'b' x`, nbe, []string{"w:SELECT", "s:'a\\'", "w:b", "s:' x"}},
		{`SELECT 'it''s'`, nbe, []string{"w:SELECT", "s:'it''s'"}},
		{`SELECT "a\"b"`, def, []string{"w:SELECT", "s:\"a\\\"b\""}},
		{`SELECT "a\"b"`, ansi, []string{"w:SELECT", "q:\"a\\\"", "w:b", "q:\""}},
		{"SELECT `a\\`b`", def, []string{"w:SELECT", "q:`a\\`", "w:b", "q:`"}},
		{"SELECT 1--1", def, []string{"w:SELECT", "n:1", "p:-", "p:-", "n:1"}},
		{"SELECT 1-- 1\nx", def, []string{"w:SELECT", "n:1", "c:-- 1", "w:x"}},
		{"SELECT 1--\tx\ny", def, []string{"w:SELECT", "n:1", "c:--\tx", "w:y"}},
		{"SELECT 1--", def, []string{"w:SELECT", "n:1", "c:--"}},
		{"SELECT 1 # c\nx", def, []string{"w:SELECT", "n:1", "c:# c", "w:x"}},
		{"SELECT [a] /* b */ x", def, []string{"w:SELECT", "p:[", "w:a", "p:]", "c:/* b */", "w:x"}},
		{"SELECT /* a /* b */ c */", def, []string{"w:SELECT", "c:/* a /* b */", "w:c", "p:*", "p:/"}},
		{"SELECT 'open", def, []string{"w:SELECT", "s:'open"}},
		{"SELECT café", def, []string{"w:SELECT", "w:café"}},
	}
	for _, c := range cases {
		var got []string
		for _, tok := range TokenizeMySQL(c.q, c.m) {
			if tok.Kind != Space {
				got = append(got, string("swqnpc"[map[Kind]int{String: 0, Word: 1, Quoted: 2, Number: 3, Punct: 4, Comment: 5}[tok.Kind]])+":"+tok.Text)
			}
		}
		if strings.Join(got, " | ") != strings.Join(c.want, " | ") {
			t.Errorf("TokenizeMySQL(%q, %+v) =\n  %q\nwant\n  %q", c.q, c.m, got, c.want)
		}
	}
}

// TestMySQLCodeComment: the comments MySQL and MariaDB run as code.
func TestMySQLCodeComment(t *testing.T) {
	for c, want := range map[string]bool{
		"/*!SET x */": true, "/*!50000 x */": true, "/*M!x*/": true, "/*m!100000 x*/": true, "/*+ HINT */": true,
		"/* ! x */": false, "/*M x*/": false, "/**/": false, "-- /*!x */": false, "# /*!": false, "/*x!*/": false,
	} {
		if got := MySQLCodeComment(c); got != want {
			t.Errorf("MySQLCodeComment(%q) = %v, want %v", c, got, want)
		}
	}
}

// TestTokenizeMySQLRoundTrips: the tokens of any text, under any mode,
// give the text back, one at a time as all at once.
func TestTokenizeMySQLRoundTrips(t *testing.T) {
	r := rand.New(rand.NewPCG(41, 2))
	const alphabet = "ab1 '\"`\\#-/*!+M;\n\t[]é"
	chars := []rune(alphabet)
	for range 2000 {
		var b strings.Builder
		for range r.IntN(30) {
			b.WriteRune(chars[r.IntN(len(chars))])
		}
		q := b.String()
		for _, m := range MySQLModes(q) {
			var got strings.Builder
			for _, tok := range TokenizeMySQL(q, m) {
				if tok.Text == "" {
					t.Fatalf("an empty token in %q", q)
				}
				got.WriteString(tok.Text)
			}
			if got.String() != q {
				t.Fatalf("tokens of %q under %+v rebuild %q", q, m, got.String())
			}
		}
	}
}
