package result

import (
	"math"
	"strconv"
	"strings"
)

// PyStr returns Python's str(v) for the value the official evaluators see
// (sqlite3 returns int, float, str, bytes or None). Spider's
// exec_eval.unorder_row sorts the cells of a row by str(x) + str(type(x)), so
// reproducing its verdicts needs Python's exact text: "1.0" for a float,
// "1e+16" past 1e16, "None", "b'..'" for bytes.
func PyStr(v Value) string {
	switch v.K {
	case Null:
		return "None"
	case Int:
		return strconv.FormatInt(v.I, 10)
	case Float:
		return PyFloatRepr(v.F)
	case Text, Date, Time, Timestamp, TimestampTZ, Decimal:
		return v.S
	case Blob:
		return pyBytesRepr(v.S)
	case Bool:
		if v.I != 0 {
			return "True"
		}
		return "False"
	case Interval:
		return pyTimedeltaStr(v.I)
	}
	return v.S
}

// pyTimedeltaStr returns Python's str(timedelta(microseconds=us)):
// "[-]D day[s], H:MM:SS[.ffffff]", the days floored so that the time part
// is never negative ("-1 day, 23:59:59" for minus one second).
func pyTimedeltaStr(us int64) string {
	const day = 86400 * 1000000
	days := us / day
	rem := us % day
	if rem < 0 {
		rem += day
		days--
	}
	secs := rem / 1000000
	b := make([]byte, 0, 32)
	if days != 0 {
		b = strconv.AppendInt(b, days, 10)
		if days == 1 || days == -1 {
			b = append(b, " day, "...)
		} else {
			b = append(b, " days, "...)
		}
	}
	b = strconv.AppendInt(b, secs/3600, 10)
	b = append(b, ':', byte('0'+secs%3600/60/10), byte('0'+secs%3600/60%10), ':', byte('0'+secs%60/10), byte('0'+secs%60%10))
	if f := rem % 1000000; f != 0 {
		d := strconv.FormatInt(f, 10)
		b = append(b, '.')
		b = append(b, strings.Repeat("0", 6-len(d))...)
		b = append(b, d...)
	}
	return string(b)
}

// PyTypeStr returns Python's str(type(x)) for the value's Python type.
func PyTypeStr(v Value) string {
	switch v.K {
	case Null:
		return "<class 'NoneType'>"
	case Int:
		return "<class 'int'>"
	case Float:
		return "<class 'float'>"
	case Text:
		return "<class 'str'>"
	case Blob:
		return "<class 'bytes'>"
	case Bool:
		return "<class 'bool'>"
	case Decimal:
		return "<class 'decimal.Decimal'>"
	case Date:
		return "<class 'datetime.date'>"
	case Time:
		return "<class 'datetime.time'>"
	case Interval:
		return "<class 'datetime.timedelta'>"
	default:
		return "<class 'datetime.datetime'>"
	}
}

// PyFloatRepr returns Python 3's repr(f) (also its str(f)): the shortest
// digits that round-trip, in fixed notation when the decimal exponent is in
// [-4, 16), else in scientific notation with a signed two-digit exponent;
// "inf", "-inf", "nan"; always a ".0" on integral fixed values.
func PyFloatRepr(f float64) string {
	switch {
	case math.IsNaN(f):
		return "nan"
	case math.IsInf(f, 1):
		return "inf"
	case math.IsInf(f, -1):
		return "-inf"
	}
	// 'e' with -1 precision yields the shortest round-trip digits d.ddde±XX.
	e := strconv.FormatFloat(f, 'e', -1, 64)
	sign := ""
	if e[0] == '-' {
		sign = "-"
		e = e[1:]
	}
	mant, expStr, _ := strings.Cut(e, "e")
	exp, _ := strconv.Atoi(expStr)
	digits := strings.Replace(mant, ".", "", 1)
	// decpt is the position of the decimal point relative to the digits,
	// as in CPython's format_float_short.
	decpt := exp + 1
	if decpt > -4 && decpt <= 16 {
		var b strings.Builder
		b.WriteString(sign)
		switch {
		case decpt <= 0:
			b.WriteString("0.")
			b.WriteString(strings.Repeat("0", -decpt))
			b.WriteString(digits)
		case decpt >= len(digits):
			b.WriteString(digits)
			b.WriteString(strings.Repeat("0", decpt-len(digits)))
			b.WriteString(".0")
		default:
			b.WriteString(digits[:decpt])
			b.WriteString(".")
			b.WriteString(digits[decpt:])
		}
		return b.String()
	}
	m := digits[:1]
	if len(digits) > 1 {
		m += "." + digits[1:]
	}
	x := exp
	xs := "+"
	if x < 0 {
		xs = "-"
		x = -x
	}
	xd := strconv.Itoa(x)
	if len(xd) < 2 {
		xd = "0" + xd
	}
	return sign + m + "e" + xs + xd
}

// pyBytesRepr returns Python's repr of a bytes object: b'...' (or b"..." when
// the bytes hold a single quote and no double quote), with \t \n \r \\ and
// the quote escaped and other bytes outside printable ASCII as \xNN.
func pyBytesRepr(s string) string {
	quote := byte('\'')
	if strings.IndexByte(s, '\'') >= 0 && strings.IndexByte(s, '"') < 0 {
		quote = '"'
	}
	var b strings.Builder
	b.WriteString("b")
	b.WriteByte(quote)
	const hex = "0123456789abcdef"
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == quote || c == '\\':
			b.WriteByte('\\')
			b.WriteByte(c)
		case c == '\t':
			b.WriteString(`\t`)
		case c == '\n':
			b.WriteString(`\n`)
		case c == '\r':
			b.WriteString(`\r`)
		case c < ' ' || c >= 0x7f:
			b.WriteString(`\x`)
			b.WriteByte(hex[c>>4])
			b.WriteByte(hex[c&15])
		default:
			b.WriteByte(c)
		}
	}
	b.WriteByte(quote)
	return b.String()
}
