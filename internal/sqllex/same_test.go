package sqllex

import "testing"

// TestSameQuery: case of keywords and names, whitespace runs and comments
// do not matter; strings, quoted names, numbers, where a separator stands,
// and anything past plain ASCII do.
func TestSameQuery(t *testing.T) {
	for _, c := range []struct {
		a, b string
		same bool
	}{
		{"SELECT count(*) ,  country_code FROM players", "select COUNT(*) , country_code from Players", true},
		{"SELECT T2.name FROM a AS T1 JOIN b AS T2 ON T1.id  =  T2.id", "select t2.NAME\n\tfrom A as t1 join B as t2 on t1.ID = t2.ID", true},
		{"  SELECT 1  ", "SELECT 1", true},
		{"SELECT a FROM t -- all of them", "SELECT a FROM t", true},
		{"SELECT a/*x*/FROM t", "SELECT a FROM t", true},
		{"SELECT a FROM t WHERE b = 'x'", "SELECT a FROM t WHERE b = 'X'", false},                         // string literal
		{`SELECT "Name" FROM t`, `SELECT "name" FROM t`, false},                                           // quoted name
		{"SELECT a FROM t WHERE b = 1.0", "SELECT a FROM t WHERE b = 1.00", false},                        // number text
		{"SELECT x'0a'", "SELECT x '0a'", false},                                                          // blob vs name and string
		{"SELECT a=1 FROM t", "SELECT a = 1 FROM t", false},                                               // separator in one only
		{"SELECT a FROM t", "SELECT a FROM t2", false},                                                    // another name
		{"SELECT a FROM t", "SELECT a FROM t LIMIT 1", false},                                             // a longer query
		{"SELECT a FROM t", "SELECT a, b FROM t", false},                                                  // another token
		{"SELECT\va FROM t", "SELECT a FROM t", false},                                                    // \v is no space to SQLite
		{"SELECT nom FROM t WHERE ville = 'Orléans'", "select nom from t where ville = 'Orléans'", false}, // past ASCII
		{"SELECT nom FROM t WHERE ville = 'Orléans'", "SELECT nom FROM t WHERE ville = 'Orléans'", true},  // equal text
		{"SELECT ÄB FROM t", "SELECT äb FROM t", false},
	} {
		if got := SameQuery(c.a, c.b); got != c.same {
			t.Errorf("SameQuery(%q, %q) = %v, want %v", c.a, c.b, got, c.same)
		}
		if got := SameQuery(c.b, c.a); got != c.same {
			t.Errorf("SameQuery(%q, %q) = %v, want %v (swapped)", c.b, c.a, got, c.same)
		}
	}
}
