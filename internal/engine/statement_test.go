package engine

import "testing"

func TestFirstKeyword(t *testing.T) {
	for q, want := range map[string]string{
		"select 1":                      "SELECT",
		"  \n-- note\n/* c */ ((With x": "WITH",
		"(select 1)":                    "SELECT",
		"":                              "",
		"  -- only a comment":           "",
		"'text' select":                 "",
		"; select 1":                    "",
		"begin":                         "BEGIN",
		"\tsavepoint a":                 "SAVEPOINT",
		"[select] from":                 "",
		"1 select":                      "",
	} {
		if got := FirstKeyword(q); got != want {
			t.Errorf("FirstKeyword(%q) = %q; want %q", q, got, want)
		}
	}
}
