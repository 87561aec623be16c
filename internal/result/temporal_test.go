package result

import (
	"testing"
	"time"
)

func TestTemporalText(t *testing.T) {
	plus2 := time.FixedZone("", 2*3600)
	for _, c := range []struct {
		v    Value
		want string
	}{
		{DateOf(time.Date(2024, 2, 29, 23, 0, 0, 0, plus2)), "2024-02-29"},
		{DateOf(time.Date(999, 1, 2, 0, 0, 0, 0, time.UTC)), "0999-01-02"},
		{TimeOfDay(13, 5, 9, 0), "13:05:09"},
		{TimeOfDay(0, 0, 0, 500000), "00:00:00.500000"},
		{TimestampOf(time.Date(2024, 2, 29, 13, 5, 9, 123456789, plus2)), "2024-02-29 13:05:09.123456"},
		{TimestampOf(time.Date(2024, 2, 29, 13, 5, 9, 0, time.UTC)), "2024-02-29 13:05:09"},
		{TimestampTZOf(time.Date(2024, 2, 29, 23, 30, 0, 0, plus2)), "2024-02-29 21:30:00+00:00"},
		{TimestampTZOf(time.Date(2024, 3, 1, 1, 0, 0, 1000, plus2)), "2024-02-29 23:00:00.000001+00:00"},
	} {
		if c.v.S != c.want || PyStr(c.v) != c.want {
			t.Errorf("%s value: text %q, str %q, want %q", c.v.K, c.v.S, PyStr(c.v), c.want)
		}
	}
	// The same instant in two zones is one TimestampTZ.
	a := TimestampTZOf(time.Date(2024, 2, 29, 23, 30, 0, 0, plus2))
	b := TimestampTZOf(time.Date(2024, 2, 29, 21, 30, 0, 0, time.UTC))
	if !Equal(a, b) {
		t.Errorf("%v != %v", a, b)
	}
	// A date is not the midnight timestamp of that day (Python: date != datetime).
	if Equal(DateOf(time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)), TemporalValue(Timestamp, "2024-01-01")) {
		t.Errorf("a date equals a timestamp")
	}
}

func TestIntervalStr(t *testing.T) {
	const s = int64(1000000)
	for _, c := range []struct {
		us   int64
		want string
	}{
		{0, "0:00:00"},
		{(13*3600 + 5*60 + 9) * s, "13:05:09"},
		{500000, "0:00:00.500000"},
		{-s, "-1 day, 23:59:59"},
		{86400 * s, "1 day, 0:00:00"},
		{428*86400*s + (4*3600+5*60+6)*s + 500000, "428 days, 4:05:06.500000"},
		{-2 * 86400 * s, "-2 days, 0:00:00"},
	} {
		if got := PyStr(IntervalOf(c.us)); got != c.want {
			t.Errorf("str(timedelta(microseconds=%d)) = %q, want %q", c.us, got, c.want)
		}
	}
	if Equal(IntervalOf(5), IntValue(5)) {
		t.Errorf("an interval equals an int")
	}
	if !Equal(IntervalOf(86400*s), IntervalOf(86400*s)) {
		t.Errorf("equal intervals differ")
	}
}
