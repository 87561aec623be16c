package check

import (
	"errors"
	"slices"
	"testing"
)

// TestGroupDetermined reads which outputs of an aggregate SELECT its
// groups determine: a GROUP BY on a NOT NULL key determines every column
// of its table (and, through an equality, of a joined one); a non-key
// GROUP BY determines only itself; a literal fixes a column; one group
// (no GROUP BY) determines only what is fixed.
func TestGroupDetermined(t *testing.T) {
	s := ruleSchema()
	cases := []struct {
		q     string
		want  []bool
		facts []string // of the first output
	}{
		{"SELECT name, count(*) FROM singer GROUP BY singer_id", []bool{true, true}, []string{"key(singer(Singer_ID))", "not_null(singer.Singer_ID)"}},
		{"SELECT singer_id, country FROM singer GROUP BY country HAVING count(*) > 2", []bool{false, true}, nil},
		{"SELECT s.name, m.club, count(*) FROM member m JOIN singer s ON m.singer_id = s.singer_id GROUP BY m.singer_id", []bool{true, false, true},
			// no not_null(singer.Singer_ID): the join's ON keeps it from NULL (closure.go's keyIn, issue 37's R15)
			[]string{"family(member.singer_id = int)", "family(singer.Singer_ID = int)", "key(singer(Singer_ID))"}},
		{"SELECT name, max(age) FROM singer WHERE country = 'France'", []bool{false, true}, nil},
		{"SELECT country, max(age) FROM singer WHERE country = 'France'", []bool{true, true}, []string{"family(singer.Country = text)"}},
		{"SELECT b, count(*) FROM log GROUP BY a", []bool{false, true}, nil},
		{"SELECT name, count(*) FROM u GROUP BY id", []bool{false, true}, nil}, // a UNIQUE column that may be NULL is no key
	}
	for _, c := range cases {
		ds, err := GroupDetermined(c.q, s)
		if err != nil {
			t.Errorf("%s: %v", c.q, err)
			continue
		}
		var got []bool
		for _, d := range ds {
			got = append(got, d.Determined)
		}
		var facts []string
		for _, f := range ds[0].Facts {
			facts = append(facts, f.String())
		}
		if !slices.Equal(got, c.want) || !slices.Equal(facts, c.facts) {
			t.Errorf("%s: determined %v facts %v, want %v %v", c.q, got, facts, c.want, c.facts)
		}
	}
	for _, q := range []string{"SELECT name FROM singer", "SELECT name FROM singer UNION SELECT country FROM singer GROUP BY country",
		"SELECT x.n FROM (SELECT name AS n FROM singer) AS x GROUP BY x.n"} {
		var r *Refusal
		if _, err := GroupDetermined(q, s); !errors.As(err, &r) {
			t.Errorf("%s: want a refusal, got %v", q, err)
		}
	}
}
