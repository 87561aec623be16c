package result

import "testing"

// df builds a result with named columns from column-major data.
func df(names []string, cols ...[]any) *Set {
	s := &Set{Columns: names}
	n := 0
	if len(cols) > 0 {
		n = len(cols[0])
	}
	for i := 0; i < n; i++ {
		var r []any
		for _, c := range cols {
			r = append(r, c[i])
		}
		s.Rows = append(s.Rows, row(r...))
	}
	return s
}

func ints(xs ...int) []any {
	out := make([]any, len(xs))
	for i, x := range xs {
		out[i] = x
	}
	return out
}

func strs(xs ...string) []any {
	out := make([]any, len(xs))
	for i, x := range xs {
		out[i] = x
	}
	return out
}

// The frames and expectations below are those of Defog SQL-Eval's own
// tests of compare_df and subset_df (tests/test_eval.py).
var (
	df0                  = df([]string{"A", "B"}, []any{}, []any{})
	df1                  = df([]string{"A", "B"}, ints(1, 2, 3), ints(4, 5, 6))
	df2                  = df([]string{"A", "B"}, ints(1, 2, 3, 4), ints(4, 5, 5, 6))
	df1ValueDiff         = df([]string{"A", "B"}, ints(1, 2, 3), ints(4, 5, 7))
	df1ColsReordered     = df([]string{"B", "A"}, ints(4, 5, 6), ints(1, 2, 3))
	df1ColsDiffCase      = df([]string{"a", "b"}, ints(1, 2, 3), ints(4, 5, 6))
	df1ColsRenamed       = df([]string{"C", "D"}, ints(1, 2, 3), ints(4, 5, 6))
	df1RowsReordered     = df([]string{"A", "B"}, ints(2, 1, 3), ints(5, 4, 6))
	df1RowsReorderedRen  = df([]string{"X", "Y"}, ints(2, 1, 3), ints(5, 4, 6))
	df1RowsReorderedMore = df([]string{"X", "Y", "Z"}, ints(2, 1, 3), ints(5, 4, 6), ints(7, 8, 9))
	df2RowsReordered     = df([]string{"A", "B"}, ints(2, 1, 4, 3), ints(5, 4, 6, 5))
	df2SortB             = df([]string{"A", "B"}, ints(1, 3, 2, 4), ints(4, 5, 5, 6))
	df2SortBRenamed      = df([]string{"X", "Y"}, ints(1, 3, 2, 4), ints(4, 5, 5, 6))
	df2SortBMore         = df([]string{"X", "Y", "Z"}, ints(1, 3, 2, 4), ints(4, 5, 5, 6), strs("e", "b", "c", "d"))
)

const (
	question     = "Here is a random question"
	questionSort = "Here is a random question that has a sort by instruction."
)

func TestSQLEvalCompare(t *testing.T) {
	sortB := "SELECT * FROM table_name ORDER BY B DESC"
	cases := []struct {
		name           string
		g, p           *Set
		category, q    string
		goldSQL, genSQ string
		want           bool
	}{
		{"empty frames", df0, df0, "", question, "", "", true},
		{"identical", df1, df1, "", question, "", "", true},
		{"value differs", df1, df1ValueDiff, "", question, "", "", false},
		{"columns reordered", df1, df1ColsReordered, "", question, "", "", true},
		{"column names in other case", df1, df1ColsDiffCase, "", question, "", "", true},
		{"columns renamed", df1, df1ColsRenamed, "", question, "", "", true},
		{"rows reordered", df1, df1RowsReordered, "", question, "", "", true},
		{"rows reordered, order asked", df1, df1RowsReordered, "order_by", questionSort, "", "", false},
		{"rows reordered, renamed", df1, df1RowsReorderedRen, "", question, "", "", true},
		{"extra column", df1, df1RowsReorderedMore, "", question, "", "", false},
		{"rows reordered 2", df2, df2RowsReordered, "", question, "", "", true},
		{"rows reordered 2, order asked", df2, df2RowsReordered, "order_by", questionSort, "", "", false},
		{"sorted by B desc", df2, df2SortB, "order_by", questionSort, sortB, sortB, true},
		{"sorted by B desc, renamed", df2, df2SortBRenamed, "order_by", questionSort, sortB, sortB, true},
		{"sorted by B, extra column", df2, df2SortBMore, "order_by", questionSort, "", "", false},
		// numpy broadcasting in the first check: a one-row gold matches an
		// empty prediction (an official quirk, kept).
		{"broadcast: one gold row, empty prediction", df([]string{"A"}, ints(1)), df([]string{"A"}, []any{}), "", question, "", "", true},
		{"NULL equals -99999 after fillna", df([]string{"A"}, []any{nil}), df([]string{"A"}, ints(-99999)), "", question, "", "", true},
	}
	for _, c := range cases {
		got, _, err := SQLEvalCompare(c.g, c.p, SQLEvalContext{Category: c.category, Question: c.q, GoldSQL: c.goldSQL, PredSQL: c.genSQ})
		if err != nil {
			t.Errorf("%s: %v", c.name, err)
			continue
		}
		if got != c.want {
			t.Errorf("%s: compare_df = %v, want %v", c.name, got, c.want)
		}
	}
}

func TestSQLEvalCompareDuplicateColumnNamesRaise(t *testing.T) {
	g := df([]string{"name", "name"}, strs("a", "b"), strs("c", "d"))
	p := df([]string{"name", "name"}, strs("b", "a"), strs("d", "c"))
	if _, _, err := SQLEvalCompare(g, p, SQLEvalContext{Question: question}); err == nil {
		t.Fatal("want the error pandas raises when sorting duplicate column labels")
	}
}

func TestSQLEvalSubset(t *testing.T) {
	cases := []struct {
		name        string
		g, p        *Set
		category, q string
		want        bool
	}{
		{"empty gold", df0, df0, "", question, false},
		{"identical", df1, df1, "", question, true},
		{"value differs", df1, df1ValueDiff, "", question, false},
		{"columns reordered", df1, df1ColsReordered, "", question, true},
		{"column names in other case", df1, df1ColsDiffCase, "", question, true},
		{"columns renamed", df1, df1ColsRenamed, "", question, true},
		{"rows reordered", df1, df1RowsReordered, "", question, true},
		{"rows reordered, order asked", df1, df1RowsReordered, "order_by", questionSort, false},
		{"rows reordered, renamed", df1, df1RowsReorderedRen, "", question, true},
		{"extra column", df1, df1RowsReorderedMore, "", question, true},
		{"rows reordered 2", df2, df2RowsReordered, "", question, true},
		{"float tolerance", df([]string{"x"}, []any{1.0}), df([]string{"y", "z"}, []any{1.000001}, strs("a")), "", question, true},
		{"a gold column missing", df([]string{"x", "y"}, ints(1), ints(2)), df([]string{"x", "z"}, ints(1), ints(3)), "", question, false},
	}
	for _, c := range cases {
		got, err := SQLEvalSubset(c.g, c.p, SQLEvalContext{Category: c.category, Question: c.q})
		if err != nil {
			t.Errorf("%s: %v", c.name, err)
			continue
		}
		if got != c.want {
			t.Errorf("%s: subset_df = %v, want %v", c.name, got, c.want)
		}
	}
}

func TestOrderByColumns(t *testing.T) {
	cases := []struct {
		sql  string
		cols []string
		asc  bool
	}{
		{"SELECT * FROM t ORDER BY name ASC", []string{"name"}, true},
		{"SELECT * FROM t ORDER BY t.name DESC", []string{"name"}, false},
		{"SELECT * FROM t ORDER BY name", []string{"name"}, false},
		{"SELECT a FROM t ORDER BY a DESC NULLS LAST, b;SELECT b FROM t", []string{"a"}, false},
		{"SELECT count(*) FROM t order by COUNT(x) desc", []string{"COUNTx"}, false},
	}
	for _, c := range cases {
		cols, asc, ok := orderByColumns(c.sql)
		if !ok || asc != c.asc || len(cols) != len(c.cols) || (len(cols) > 0 && cols[0] != c.cols[0]) {
			t.Errorf("orderByColumns(%q) = %q, %v, %v; want %q, %v", c.sql, cols, asc, ok, c.cols, c.asc)
		}
	}
}
