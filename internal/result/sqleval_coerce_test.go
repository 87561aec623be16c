package result

import "testing"

// TestSQLEvalCoerceDecimals: PostgreSQL's NUMERIC 0.1 equals the float 0.1
// once read as SQL-Eval's PostgreSQL runner reads it (coerce_float), and
// not as exact decimals.
func TestSQLEvalCoerceDecimals(t *testing.T) {
	d, _ := DecimalValue("0.1")
	avg, _ := DecimalValue("5.1666666666666667")
	gold := &Set{Columns: []string{"x", "a"}, Rows: [][]Value{{d, avg}, {IntValue(2), FloatValue(1)}}}
	pred := &Set{Columns: []string{"x", "a"}, Rows: [][]Value{{FloatValue(0.1), FloatValue(5.166666666666667)}, {FloatValue(2), IntValue(1)}}}
	for _, coerce := range []bool{true, false} {
		c := SQLEvalContext{CoerceDecimals: coerce}
		exact, _, err := SQLEvalCompare(gold, pred, c)
		if err != nil {
			t.Fatal(err)
		}
		if exact != coerce {
			t.Errorf("coerce %v: exact = %v", coerce, exact)
		}
	}
	// The sets themselves are left unchanged.
	if gold.Rows[0][0].K != Decimal {
		t.Errorf("the gold set was modified")
	}
}
