package result

import "testing"

// TestSameRows: the bag rule of docs/equiv.md — multisets (a repeated row
// counts), position by position when ordered, Python == on cells (1 and
// 1.0 equal, 1 and '1' not), the number of columns compared but not their
// names.
func TestSameRows(t *testing.T) {
	set := func(cols int, rows ...[]Value) *Set {
		s := &Set{Rows: rows}
		for i := range cols {
			s.Columns = append(s.Columns, string(rune('a'+i)))
		}
		return s
	}
	one, oneF, two, text1 := IntValue(1), FloatValue(1.0), IntValue(2), TextValue("1")
	cases := []struct {
		name         string
		a, b         *Set
		bag, ordered bool
	}{
		{"same rows, same order", set(1, []Value{one}, []Value{two}), set(1, []Value{one}, []Value{two}), true, true},
		{"same rows, other order", set(1, []Value{one}, []Value{two}), set(1, []Value{two}, []Value{one}), true, false},
		{"a repeated row counts", set(1, []Value{one}, []Value{one}, []Value{two}), set(1, []Value{one}, []Value{two}, []Value{two}), false, false},
		{"1 equals 1.0", set(1, []Value{one}), set(1, []Value{oneF}), true, true},
		{"1 is not '1'", set(1, []Value{one}), set(1, []Value{text1}), false, false},
		{"NULL equals NULL", set(1, []Value{NullValue()}), set(1, []Value{NullValue()}), true, true},
		{"column count", set(2), set(1), false, false},
		{"names aside", &Set{Columns: []string{"x"}, Rows: [][]Value{{one}}}, &Set{Columns: []string{"y"}, Rows: [][]Value{{one}}}, true, true},
		{"row count", set(1, []Value{one}), set(1), false, false},
	}
	for _, c := range cases {
		if got := SameRows(c.a, c.b, false); got != c.bag {
			t.Errorf("%s: as bags %v, want %v", c.name, got, c.bag)
		}
		if got := SameRows(c.a, c.b, true); got != c.ordered {
			t.Errorf("%s: in order %v, want %v", c.name, got, c.ordered)
		}
	}
}
