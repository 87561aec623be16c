package equiv

import (
	"fmt"
	"strings"
	"testing"

	"github.com/sqljudge/sqljudge/internal/catalog"
	"github.com/sqljudge/sqljudge/internal/result"
)

func TestCoerceKeepsEveryEngineSRange(t *testing.T) {
	cases := []struct {
		col  catalog.Column
		v    result.Value
		want bool
	}{
		{catalog.Column{Type: "INTEGER", Family: catalog.Integer}, result.IntValue(1 << 31), false},
		{catalog.Column{Type: "INTEGER", Family: catalog.Integer}, result.IntValue(1<<31 - 1), true},
		{catalog.Column{Type: "BIGINT", Family: catalog.Integer}, result.IntValue(1 << 40), true},
		{catalog.Column{Type: "SMALLINT", Family: catalog.Integer}, result.IntValue(40000), false},
		{catalog.Column{Type: "DECIMAL(5, 2)", Family: catalog.Decimal}, result.FloatValue(999.5), true},
		{catalog.Column{Type: "DECIMAL(5, 2)", Family: catalog.Decimal}, result.FloatValue(1000), false},
		{catalog.Column{Type: "INT", Family: catalog.Integer}, result.TextValue("12"), true},
		{catalog.Column{Type: "INT", Family: catalog.Integer}, result.TextValue("1.5"), false},
		{catalog.Column{Type: "DATE", Family: catalog.Date}, result.TextValue("2020-02-30"), false},
		{catalog.Column{Type: "DATE", Family: catalog.Date}, result.TextValue("2020-02-29"), true},
	}
	for _, c := range cases {
		if _, ok := coerce(c.v, c.col); ok != c.want {
			t.Errorf("coerce(%v, %s) = %v, want %v", c.v, c.col.Type, ok, c.want)
		}
	}
	if v, _ := coerce(result.TextValue("abcdef"), catalog.Column{Type: "VARCHAR(3)", Family: catalog.Text, Len: 3}); v.S != "abc" {
		t.Errorf("VARCHAR(3) keeps %q", v.S)
	}
}

// TestPoolsTakeTheFirstLiterals (issue 41): a prediction padded with an
// IN list of 20,000 values puts at most MaxPoolLiterals of them in a
// column's pool (each column of the schema had all of them: 18 million
// values, 1.1 GB, for a list of 300,000).
func TestPoolsTakeTheFirstLiterals(t *testing.T) {
	db, err := catalog.ParseDDL("CREATE TABLE singer (singer_id INTEGER PRIMARY KEY, name TEXT, age INTEGER)")
	if err != nil {
		t.Fatal(err)
	}
	var in strings.Builder
	for i := range 20_000 {
		fmt.Fprintf(&in, "%d,", i)
	}
	q := "SELECT name FROM singer WHERE singer_id IN (" + strings.TrimSuffix(in.String(), ",") + ")"
	for ti, cols := range newSchema(db).pools([]string{"SELECT name FROM singer", q}, nil) {
		for ci, pool := range cols {
			if len(pool) > MaxPoolLiterals+64 {
				t.Errorf("table %d column %d: %d values in its pool", ti, ci, len(pool))
			}
		}
	}
}
