package result

import (
	"fmt"
	"testing"
)

func TestDiffIsAMultisetDiff(t *testing.T) {
	i := func(n int64) Value { return Value{K: Int, I: n} }
	f := func(x float64) Value { return Value{K: Float, F: x} }
	gold := &Set{Columns: []string{"a"}, Rows: [][]Value{{i(1)}, {i(2)}, {i(2)}, {i(3)}}}
	pred := &Set{Columns: []string{"b"}, Rows: [][]Value{{i(2)}, {f(1)}, {i(4)}}}
	s := Diff(gold, pred)
	// 1 == 1.0 under Python equality; one 2 matched, the other missing; 3
	// missing; 4 extra.
	if got := fmt.Sprint(s.Rows); got != "[{= [1]} {= [2]} {- [2]} {- [3]} {+ [4]}]" || s.GoldRows != 4 || s.PredRows != 3 {
		t.Errorf("Diff = %s (%d, %d rows)", got, s.GoldRows, s.PredRows)
	}
	var many [][]Value
	for k := range 50 {
		many = append(many, []Value{i(int64(k))})
	}
	s = Diff(&Set{Rows: many}, &Set{})
	if len(s.Rows) != SampleRows || s.GoldRows != 50 {
		t.Errorf("%d rows shown of %d, want %d", len(s.Rows), s.GoldRows, SampleRows)
	}
}
