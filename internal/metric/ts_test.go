package metric

import (
	"slices"
	"testing"
)

func TestPlugValues(t *testing.T) {
	got, n := PlugValues(`SELECT name FROM t WHERE a = 'x' AND b > 3`, `SELECT name FROM t WHERE a = "y" AND b > 4`, 100)
	want := []string{
		`SELECT name FROM t WHERE a = 'x' AND b > 'x'`,
		`SELECT name FROM t WHERE a = 'x' AND b > 3`,
		`SELECT name FROM t WHERE a = 3 AND b > 'x'`,
		`SELECT name FROM t WHERE a = 3 AND b > 3`,
	}
	if n != 4 || !slices.Equal(got, want) {
		t.Errorf("PlugValues = %d %q", n, got)
	}
	if got, n := PlugValues(`SELECT 1, 2, 3, 4`, `SELECT 5, 6, 7, 8, 9`, 100); got != nil || n <= 100 {
		t.Errorf("over the bound: %d predictions, n=%d", len(got), n)
	}
	if got, _ := PlugValues(`SELECT a FROM t`, `SELECT a FROM t WHERE b = 1`, 100); got != nil {
		t.Errorf("a gold without values plugs nothing: %q", got)
	}
}
