package prove

import (
	"context"
	"slices"
	"testing"

	"github.com/sqljudge/sqljudge/internal/prove/check"
)

// outerSchema: singer's Singer_ID a key, concert's Stadium_ID UNIQUE
// but nullable, venue's key on a NOCASE text column (family Other),
// ticket's UNIQUE (a, b) pair.
func outerSchema() *check.MapSchema {
	s := testSchema()
	s.Tables = append(s.Tables,
		&check.Table{Name: "venue", Columns: []check.Column{{Name: "code", Family: check.Text, NotNull: true, Collation: "nocase"}, {Name: "city", Family: check.Text}},
			Keys: []check.Key{{Cols: []int{0}, Primary: true}}},
		&check.Table{Name: "ticket", Columns: []check.Column{{Name: "a", Family: check.Int}, {Name: "b", Family: check.Int}, {Name: "price", Family: check.Int}},
			Keys: []check.Key{{Cols: []int{0, 1}}}},
	)
	s.Tables[1].Keys = append(s.Tables[1].Keys, check.Key{Cols: []int{1}})
	return s
}

// TestProveOuterJoin proves LEFT JOIN pairs by left_to_inner and
// left_join_elim, and refuses the traps: a WHERE that keeps NULL rows,
// a join on part of a key or through a collation.
func TestProveOuterJoin(t *testing.T) {
	s := outerSchema()
	z := solver(t)
	for _, c := range []struct{ q1, q2, rule string }{
		{"SELECT s.name FROM singer_in_concert sc LEFT JOIN singer s ON s.singer_id = sc.singer_id WHERE s.age > 20", "SELECT s.name FROM singer_in_concert sc JOIN singer s ON s.singer_id = sc.singer_id WHERE s.age > 20", check.RuleLeftToInner},
		{"SELECT s.name FROM singer s LEFT JOIN concert c ON c.concert_id = s.age WHERE c.year IN (2014, 2015) AND s.age > 1", "SELECT s.name FROM singer s, concert c WHERE c.concert_id = s.age AND c.year IN (2014, 2015) AND s.age > 1", check.RuleLeftToInner},
		{"SELECT sc.concert_id FROM singer_in_concert sc LEFT JOIN singer s ON s.singer_id = sc.singer_id", "SELECT concert_id FROM singer_in_concert", check.RuleLeftJoinElim},
		// A nullable UNIQUE column: = never matches its NULLs.
		{"SELECT s.name FROM singer s LEFT JOIN concert c ON c.stadium_id = s.age AND c.year > 3", "SELECT name FROM singer", check.RuleLeftJoinElim},
		{"SELECT s.name FROM singer s LEFT JOIN ticket t ON t.a = s.age AND t.b = 3", "SELECT name FROM singer", check.RuleLeftJoinElim},
	} {
		a := Prove(context.Background(), c.q1, c.q2, s, Options{Rule: "bag", Solver: z})
		if !a.Proved() {
			t.Errorf("%s | %s: not proved: %s: %s", c.q1, c.q2, a.Stopped, a.Detail)
			continue
		}
		var rules []string
		for _, st := range a.Certificate.Q1Steps {
			rules = append(rules, st.Rule)
		}
		if !slices.Contains(rules, c.rule) {
			t.Errorf("%s: steps %v, want %s", c.q1, rules, c.rule)
		}
	}
	for _, c := range []struct{ q1, q2 string }{
		// Each WHERE is TRUE on some NULL row of s.
		{"SELECT sc.concert_id FROM singer_in_concert sc LEFT JOIN singer s ON s.singer_id = sc.singer_id WHERE s.age IS NULL OR s.age > 1", "SELECT sc.concert_id FROM singer_in_concert sc JOIN singer s ON s.singer_id = sc.singer_id WHERE s.age IS NULL OR s.age > 1"},
		{"SELECT sc.concert_id FROM singer_in_concert sc LEFT JOIN singer s ON s.singer_id = sc.singer_id WHERE coalesce(s.age, 5) > 1", "SELECT sc.concert_id FROM singer_in_concert sc JOIN singer s ON s.singer_id = sc.singer_id WHERE coalesce(s.age, 5) > 1"},
		{"SELECT sc.concert_id FROM singer_in_concert sc LEFT JOIN singer s ON s.singer_id = sc.singer_id WHERE s.age IS NOT DISTINCT FROM NULL", "SELECT sc.concert_id FROM singer_in_concert sc JOIN singer s ON s.singer_id = sc.singer_id WHERE s.age IS NOT DISTINCT FROM NULL"},
		{"SELECT sc.concert_id FROM singer_in_concert sc LEFT JOIN singer s ON s.singer_id = sc.singer_id WHERE NOT s.age > 1", "SELECT sc.concert_id FROM singer_in_concert sc JOIN singer s ON s.singer_id = sc.singer_id WHERE NOT s.age > 1"},
		// Part of a key: a singer matches several tickets.
		{"SELECT s.name FROM singer s LEFT JOIN ticket t ON t.a = s.age", "SELECT name FROM singer"},
		// Not a key at all.
		{"SELECT s.name FROM singer s LEFT JOIN concert c ON c.year = s.age", "SELECT name FROM singer"},
		// A NOCASE key: 'A' and 'a' are one code, but s.name = 'a' under BINARY... the
		// join compares as the key does only in family Int or Text.
		{"SELECT s.name FROM singer s LEFT JOIN venue v ON v.code = s.name", "SELECT name FROM singer"},
		// The query reads the right side.
		{"SELECT s.name, c.year FROM singer s LEFT JOIN concert c ON c.concert_id = s.age", "SELECT name, NULL FROM singer"},
	} {
		a := Prove(context.Background(), c.q1, c.q2, s, Options{Rule: "bag", Solver: z})
		if a.Proved() {
			t.Errorf("%s | %s: proved, want refused", c.q1, c.q2)
		}
	}
}
