package result

import (
	"math"
	"testing"
)

func TestPyFloatRepr(t *testing.T) {
	// Python 3: repr(x) for each x.
	cases := map[float64]string{
		1: "1.0", 0: "0.0", 1.5: "1.5", 0.1: "0.1", 1e16: "1e+16", 1e15: "1000000000000000.0",
		1234567890123456: "1234567890123456.0", 0.0001: "0.0001", 0.00001: "1e-05",
		1.5e-7: "1.5e-07", 123.456: "123.456", -2.5: "-2.5", 1e100: "1e+100", 1.7976931348623157e308: "1.7976931348623157e+308",
		math.Inf(1): "inf", math.Inf(-1): "-inf", 2.5e16: "2.5e+16", 100: "100.0",
	}
	for f, want := range cases {
		if got := PyFloatRepr(f); got != want {
			t.Errorf("PyFloatRepr(%v) = %q, want %q", f, got, want)
		}
	}
	if got := PyFloatRepr(math.Copysign(0, -1)); got != "-0.0" {
		t.Errorf("PyFloatRepr(-0.0) = %q", got)
	}
}

func TestPyStrBytes(t *testing.T) {
	cases := map[string]string{"ab": "b'ab'", "it's": `b"it's"`, "\x00\xff\n": `b'\x00\xff\n'`, `a'"`: `b'a\'"'`}
	for in, want := range cases {
		if got := PyStr(BlobValue([]byte(in))); got != want {
			t.Errorf("PyStr(bytes %q) = %s, want %s", in, got, want)
		}
	}
}

func TestEqualPythonSemantics(t *testing.T) {
	d, _ := DecimalValue("1.50")
	half, _ := DecimalValue("0.5")
	tenthDec, _ := DecimalValue("0.1")
	cases := []struct {
		a, b Value
		want bool
	}{
		{IntValue(1), FloatValue(1), true},
		{IntValue(1), TextValue("1"), false},
		{NullValue(), NullValue(), true},
		{NullValue(), IntValue(0), false},
		{FloatValue(math.NaN()), FloatValue(math.NaN()), false},
		{FloatValue(0), FloatValue(math.Copysign(0, -1)), true},
		{BoolValue(true), IntValue(1), true},
		{d, FloatValue(1.5), true},
		{half, FloatValue(0.5), true},
		{tenthDec, FloatValue(0.1), false}, // Decimal('0.1') != 0.1 in Python
		{IntValue(1 << 53), FloatValue(1 << 53), true},
		{IntValue(1<<53 + 1), FloatValue(1 << 53), false},
		{TextValue("a"), BlobValue([]byte("a")), false},
	}
	for _, c := range cases {
		if got := Equal(c.a, c.b); got != c.want {
			t.Errorf("Equal(%v, %v) = %v, want %v", c.a, c.b, got, c.want)
		}
	}
}

func TestDropInvalidUTF8(t *testing.T) {
	// Python: b"caf\xc3\xa9 \xff\xfeok \xe2\x82A".decode(errors="ignore")
	if got := DropInvalidUTF8("caf\xc3\xa9 \xff\xfeok \xe2\x82A"); got != "café ok A" {
		t.Errorf("DropInvalidUTF8 = %q", got)
	}
}
