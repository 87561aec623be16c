package dbload

import (
	"encoding/hex"
	"fmt"
	"math"
	"math/big"
	"strconv"
	"strings"
	"time"
)

// family returns the value type a column type stores, or false when the
// type is not supported.
func family(typ string) (vtype, bool) {
	switch typ {
	case "smallint", "integer", "bigint", "oid":
		return vInt, true
	case "numeric":
		return vNumeric, true
	case "real", "double precision":
		return vFloat, true
	case "text", "character varying", "character", "name", "citext", "uuid", "json", "jsonb", "xml":
		return vText, true
	case "boolean":
		return vBool, true
	case "date":
		return vDate, true
	case "time without time zone":
		return vTime, true
	case "timestamp without time zone":
		return vTimestamp, true
	case "timestamp with time zone":
		return vTimestampTZ, true
	case "interval":
		return vInterval, true
	case "bytea":
		return vBytes, true
	}
	return vNull, false
}

// cast converts v to a column or cast type (an explicit cast, or the
// assignment of INSERT: see assign).
func (p *exprParser) cast(v value, typ string, mods []int) (value, error) {
	out, err := castValue(p.env, v, typ, mods, true)
	if err != nil {
		return value{}, p.errf("%v", err)
	}
	return out, nil
}

// assign converts v to the type of column c as INSERT stores it.
func (env *evalEnv) assign(v value, c *Column) (value, error) {
	if c.Array {
		return value{}, fmt.Errorf("column %s: array columns are not supported", c.Name)
	}
	return castValue(env, v, c.Type, c.Mods, false)
}

func castValue(env *evalEnv, v value, typ string, mods []int, explicit bool) (value, error) {
	if v.t == vNull {
		return v, nil
	}
	fam, ok := family(typ)
	if !ok {
		return value{}, fmt.Errorf("type %s is not supported", typ)
	}
	if v.t == vUnknown {
		if fam == vText {
			return charValue(v.s, typ, mods, explicit)
		}
		return inputValue(env, v.s, typ, mods)
	}
	switch fam {
	case vText:
		s := textOf(v)
		if v.t == vBool {
			s = strconv.FormatBool(v.b) // boolean's cast to text
		}
		if v.bpchar && typ == "character" {
			s = v.s
		}
		return charValue(s, typ, mods, explicit)
	case vInt:
		return toInt(v, typ, explicit)
	case vNumeric:
		if v.t == vNumeric && len(mods) == 0 {
			return v, nil // unconstrained: the value keeps its scale
		}
		r, err := toRat(v, explicit)
		if err != nil {
			return value{}, err
		}
		return numericValue(r, mods)
	case vFloat:
		if !isNum(v.t) {
			return value{}, fmt.Errorf("cannot cast %s to %s", v.t, typ)
		}
		f := floatOf(v)
		if typ == "real" {
			return realValue(f, textOut(v))
		}
		return value{t: vFloat, f: f}, nil
	case vBool:
		switch {
		case v.t == vBool:
			return v, nil
		case v.t == vInt && explicit:
			return value{t: vBool, b: v.i != 0}, nil
		}
	case vDate:
		switch v.t {
		case vDate, vTimestamp, vTimestampTZ:
			return value{t: vDate, tm: dateOf(v.tm)}, nil
		}
	case vTime:
		switch v.t {
		case vTime:
			return v, nil
		case vTimestamp, vTimestampTZ:
			h, m, s := v.tm.Clock()
			return value{t: vTime, tm: time.Date(2000, 1, 1, h, m, s, v.tm.Nanosecond(), time.UTC)}, nil
		}
	case vTimestamp, vTimestampTZ:
		switch v.t {
		case vDate, vTimestamp, vTimestampTZ:
			return value{t: fam, tm: v.tm}, nil
		}
	case vInterval:
		if v.t == vInterval {
			return v, nil
		}
	case vBytes:
		if v.t == vBytes {
			return v, nil
		}
	}
	return value{}, fmt.Errorf("cannot store a %s as %s", v.t, typ)
}

// charValue applies varchar(n) / char(n): an explicit cast truncates, an
// assignment fails when the text is too long (trailing spaces aside); char
// pads with spaces.
func charValue(s, typ string, mods []int, explicit bool) (value, error) {
	if typ == "character" && len(mods) == 0 {
		mods = []int{1}
	}
	if (typ == "character varying" || typ == "character") && len(mods) == 1 {
		n := mods[0]
		if r := []rune(s); len(r) > n {
			if !explicit && strings.TrimRight(string(r[n:]), " ") != "" {
				return value{}, fmt.Errorf("value too long for type %s(%d): %q", typ, n, s)
			}
			s = string(r[:n])
		}
		if typ == "character" {
			if k := len([]rune(s)); k < n {
				s += strings.Repeat(" ", n-k)
			}
		}
	}
	return value{t: vText, s: s, bpchar: typ == "character"}, nil
}

func toRat(v value, explicit bool) (*big.Rat, error) {
	switch v.t {
	case vInt, vNumeric:
		return ratOf(v), nil
	case vFloat:
		if math.IsNaN(v.f) || math.IsInf(v.f, 0) {
			return nil, fmt.Errorf("cannot store %v as numeric", v.f)
		}
		// float8 -> numeric goes through its shortest text
		r, _ := new(big.Rat).SetString(strconv.FormatFloat(v.f, 'g', 15, 64))
		return r, nil
	}
	return nil, fmt.Errorf("cannot store a %s as numeric", v.t)
}

// roundHalfAway rounds r to scale decimal places, halves away from zero
// (numeric's rounding).
func roundHalfAway(r *big.Rat, scale int) *big.Rat {
	m := new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(scale)), nil)
	x := new(big.Rat).Mul(r, new(big.Rat).SetInt(m))
	num, den := x.Num(), x.Denom()
	q, rem := new(big.Int).QuoRem(num, den, new(big.Int))
	rem.Abs(rem)
	rem.Mul(rem, big.NewInt(2))
	if rem.Cmp(den) >= 0 {
		if num.Sign() < 0 {
			q.Sub(q, big.NewInt(1))
		} else {
			q.Add(q, big.NewInt(1))
		}
	}
	return new(big.Rat).SetFrac(q, m)
}

func numericValue(r *big.Rat, mods []int) (value, error) {
	v := value{t: vNumeric, num: r}
	if len(mods) >= 1 {
		scale := 0
		if len(mods) == 2 {
			scale = mods[1]
		}
		v.num = roundHalfAway(r, scale)
		v.scale, v.scaled = scale, true
		lim := new(big.Rat).SetFrac(new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(mods[0]-scale)), nil), big.NewInt(1))
		if new(big.Rat).Abs(v.num).Cmp(lim) >= 0 {
			return value{}, fmt.Errorf("numeric field overflow: %s does not fit numeric(%d,%d)", v.num.FloatString(scale), mods[0], scale)
		}
		return v, nil
	}
	return v, nil
}

func toInt(v value, typ string, explicit bool) (value, error) {
	var i int64
	switch v.t {
	case vInt:
		i = v.i
	case vNumeric:
		r := roundHalfAway(v.num, 0)
		if !r.Num().IsInt64() {
			return value{}, fmt.Errorf("%s out of range for %s", r.FloatString(0), typ)
		}
		i = r.Num().Int64()
	case vFloat:
		f := math.RoundToEven(v.f)
		if math.IsNaN(f) || f < -9.2e18 || f > 9.2e18 {
			return value{}, fmt.Errorf("%v out of range for %s", v.f, typ)
		}
		i = int64(f)
	case vBool:
		if !explicit {
			return value{}, fmt.Errorf("cannot store a boolean as %s", typ)
		}
		if v.b {
			i = 1
		}
	default:
		return value{}, fmt.Errorf("cannot store a %s as %s", v.t, typ)
	}
	lim := map[string]int64{"smallint": math.MaxInt16, "integer": math.MaxInt32, "oid": math.MaxUint32}[typ]
	if lim != 0 && (i > lim || i < -lim-1) && typ != "oid" {
		return value{}, fmt.Errorf("%d out of range for %s", i, typ)
	}
	return value{t: vInt, i: i}, nil
}

// inputValue is the type's input function applied to literal text s.
func inputValue(env *evalEnv, s, typ string, mods []int) (value, error) {
	fam, _ := family(typ)
	t := strings.TrimSpace(s)
	var (
		v  value
		ok bool
	)
	switch fam {
	case vText:
		return charValue(s, typ, mods, false)
	case vInt:
		i, err := strconv.ParseInt(strings.TrimPrefix(t, "+"), 10, 64)
		if err != nil {
			break
		}
		return toInt(value{t: vInt, i: i}, typ, false)
	case vNumeric:
		if strings.EqualFold(t, "nan") {
			return value{}, fmt.Errorf("numeric NaN is not supported")
		}
		if r, rok := new(big.Rat).SetString(t); rok {
			return numericInput(r, t, mods)
		}
	case vFloat:
		f, fok := floatInput(t)
		if !fok {
			break
		}
		if typ == "real" {
			return realValue(f, t)
		}
		return value{t: vFloat, f: f}, nil
	case vBool:
		v, ok = boolInput(t)
	case vDate, vTimestamp, vTimestampTZ:
		var tm time.Time
		if tm, ok = parseDateTime(env, t, fam); ok && fam == vDate {
			tm = dateOf(tm)
		}
		v = value{t: fam, tm: tm}
	case vTime:
		return timeInput(s, t, typ)
	case vInterval:
		iv, err := parseInterval(t)
		if err != nil {
			return value{}, err
		}
		return value{t: vInterval, iv: iv}, nil
	case vBytes:
		v, ok = bytesInput(s)
	}
	if !ok {
		return value{}, fmt.Errorf("invalid input syntax for type %s: %q", typ, s)
	}
	return v, nil
}

// numericInput is numeric(mods) read from text t: rounded to the scale of
// mods, or keeping the literal's own scale when there are none.
func numericInput(r *big.Rat, t string, mods []int) (value, error) {
	v, err := numericValue(r, mods)
	if err == nil && len(mods) == 0 && !strings.ContainsAny(t, "eE") {
		v.scale, v.scaled = literalScale(t), true
	}
	return v, err
}

// floatInput reads a float8 text: a number, NaN or [+-]Infinity.
func floatInput(t string) (float64, bool) {
	switch strings.ToLower(t) {
	case "nan":
		return math.NaN(), true
	case "infinity", "inf", "+infinity":
		return math.Inf(1), true
	case "-infinity", "-inf":
		return math.Inf(-1), true
	}
	f, err := strconv.ParseFloat(t, 64)
	return f, err == nil
}

// boolInput reads boolean text as boolin does: a prefix of true, yes,
// false or no, on, off, 1 or 0, in any case.
func boolInput(t string) (value, bool) {
	l := strings.ToLower(t)
	switch {
	case l == "":
		return value{}, false
	case strings.HasPrefix("true", l) || strings.HasPrefix("yes", l) || l == "on" || l == "1":
		return value{t: vBool, b: true}, true
	case strings.HasPrefix("false", l) || strings.HasPrefix("no", l) || l == "off" || l == "of" || l == "0":
		return value{t: vBool, b: false}, true
	}
	return value{}, false
}

// timeInput reads a time of day of type typ (s as written, t trimmed); 24:00:00,
// which PostgreSQL reads, is refused.
func timeInput(s, t, typ string) (value, error) {
	h, m, sec, us, ok := parseClockText(t)
	if !ok {
		return value{}, fmt.Errorf("invalid input syntax for type %s: %q", typ, s)
	}
	if h == 24 {
		return value{}, fmt.Errorf("time %q: 24:00:00 is not supported", s)
	}
	return value{t: vTime, tm: time.Date(2000, 1, 1, h, m, sec, us*1000, time.UTC)}, nil
}

// bytesInput reads bytea text: \x and hex digits, or the bytes as written.
func bytesInput(s string) (value, bool) {
	if strings.HasPrefix(s, `\x`) {
		b, err := hex.DecodeString(s[2:])
		if err != nil {
			return value{}, false
		}
		return value{t: vBytes, s: string(b)}, true
	}
	return value{t: vBytes, s: s}, true
}

func literalScale(s string) int {
	if i := strings.IndexByte(s, '.'); i >= 0 {
		j := i + 1
		for j < len(s) && isDigit(s[j]) {
			j++
		}
		return j - i - 1
	}
	return 0
}

// parseClockText reads HH:MM[:SS[.ffffff]].
func parseClockText(s string) (h, m, sec, us int, ok bool) {
	clock, frac, _ := strings.Cut(s, ".")
	parts := strings.Split(clock, ":")
	if len(parts) < 2 || len(parts) > 3 {
		return 0, 0, 0, 0, false
	}
	nums := make([]int, 3)
	for i, p := range parts {
		n, err := strconv.Atoi(p)
		if err != nil || n < 0 {
			return 0, 0, 0, 0, false
		}
		nums[i] = n
	}
	if nums[0] > 24 || nums[1] > 59 || nums[2] > 60 {
		return 0, 0, 0, 0, false
	}
	if frac != "" {
		if len(frac) > 6 {
			// round to microseconds, as PostgreSQL does
			f, err := strconv.ParseFloat("0."+frac, 64)
			if err != nil {
				return 0, 0, 0, 0, false
			}
			us = int(math.Round(f * 1e6))
		} else {
			n, err := strconv.Atoi(frac + strings.Repeat("0", 6-len(frac)))
			if err != nil {
				return 0, 0, 0, 0, false
			}
			us = n
		}
	}
	return nums[0], nums[1], nums[2], us, true
}

// parseDateTime reads ISO dates and timestamps: YYYY-MM-DD, optionally
// followed by a space or T and a clock, optionally by Z or a numeric zone
// offset (applied for timestamptz, ignored for timestamp, as PostgreSQL
// does), and the special values now, today, yesterday, tomorrow, epoch.
func parseDateTime(env *evalEnv, s string, fam vtype) (time.Time, bool) {
	switch strings.ToLower(s) {
	case "now":
		return env.now, true
	case "today":
		return dateOf(env.now), true
	case "yesterday":
		return dateOf(env.now).AddDate(0, 0, -1), true
	case "tomorrow":
		return dateOf(env.now).AddDate(0, 0, 1), true
	case "epoch":
		return time.Unix(0, 0).UTC(), true
	}
	if len(s) < 10 || s[4] != '-' || s[7] != '-' {
		return time.Time{}, false
	}
	y, e1 := strconv.Atoi(s[:4])
	mo, e2 := strconv.Atoi(s[5:7])
	d, e3 := strconv.Atoi(s[8:10])
	if e1 != nil || e2 != nil || e3 != nil || mo < 1 || mo > 12 || d < 1 || d > daysIn(y, time.Month(mo)) {
		return time.Time{}, false
	}
	rest := strings.TrimSpace(s[10:])
	if rest == "" {
		return time.Date(y, time.Month(mo), d, 0, 0, 0, 0, time.UTC), true
	}
	rest = strings.TrimPrefix(strings.TrimPrefix(rest, "T"), "t")
	rest = strings.TrimSpace(rest)
	// split off a zone: Z, +HH[:MM], -HH[:MM]
	offset, zone := 0, ""
	if strings.HasSuffix(rest, "Z") || strings.HasSuffix(rest, "z") {
		rest, zone = rest[:len(rest)-1], "Z"
	} else if k := strings.LastIndexAny(rest, "+-"); k > 0 {
		rest, zone = rest[:k], rest[k:]
		sign := 1
		if zone[0] == '-' {
			sign = -1
		}
		hh, mm, _ := strings.Cut(zone[1:], ":")
		if len(hh) == 4 && mm == "" {
			hh, mm = hh[:2], hh[2:]
		}
		h, err := strconv.Atoi(hh)
		if err != nil {
			return time.Time{}, false
		}
		m := 0
		if mm != "" {
			if m, err = strconv.Atoi(mm); err != nil {
				return time.Time{}, false
			}
		}
		offset = sign * (h*3600 + m*60)
	}
	h, mi, sec, us, ok := parseClockText(strings.TrimSpace(rest))
	if !ok {
		return time.Time{}, false
	}
	t := time.Date(y, time.Month(mo), d, h, mi, sec, us*1000, time.UTC)
	if fam == vTimestampTZ && zone != "" {
		t = t.Add(-time.Duration(offset) * time.Second)
	}
	return t, true
}

// textOut is PostgreSQL's text output of v (DateStyle ISO, IntervalStyle
// postgres, session zone UTC).
func textOut(v value) string {
	switch v.t {
	case vUnknown, vText, vBytes:
		if v.t == vBytes {
			return `\x` + hex.EncodeToString([]byte(v.s))
		}
		return v.s
	case vInt:
		return strconv.FormatInt(v.i, 10)
	case vNumeric:
		return numericText(v)
	case vFloat:
		return floatText(v.f, v.f32)
	case vBool:
		if v.b {
			return "t"
		}
		return "f"
	case vDate:
		return v.tm.Format("2006-01-02")
	case vTime:
		return clockText(v.tm)
	case vTimestamp:
		return v.tm.Format("2006-01-02 ") + clockText(v.tm)
	case vTimestampTZ:
		return v.tm.Format("2006-01-02 ") + clockText(v.tm) + "+00"
	case vInterval:
		return intervalText(v.iv)
	}
	return ""
}

// numericText writes a numeric with its display scale, or in its shortest
// exact form when it has none.
func numericText(v value) string {
	if v.scaled {
		return v.num.FloatString(v.scale)
	}
	// shortest exact decimal (a terminating fraction), up to 20 digits
	for sc := 0; sc <= 20; sc++ {
		s := v.num.FloatString(sc)
		if r, _ := new(big.Rat).SetString(s); r.Cmp(v.num) == 0 {
			return s
		}
	}
	return v.num.FloatString(20)
}

// floatText is PostgreSQL's float8out/float4out with extra_float_digits
// 1: the shortest text that reads back as the same float, in fixed
// notation for decimal exponents from -4 up to 14 (float8) or 5 (float4),
// else as 1.5e+15.
func floatText(f float64, f32 bool) string {
	switch {
	case math.IsNaN(f):
		return "NaN"
	case math.IsInf(f, 1):
		return "Infinity"
	case math.IsInf(f, -1):
		return "-Infinity"
	}
	bits, limit := 64, 15
	if f32 {
		bits, limit = 32, 6
	}
	e := strconv.FormatFloat(f, 'e', -1, bits)
	exp, _ := strconv.Atoi(e[strings.IndexByte(e, 'e')+1:])
	if exp < -4 || exp >= limit {
		return e
	}
	return strconv.FormatFloat(f, 'f', -1, bits)
}

// clockText writes HH:MM:SS with fractional seconds trimmed of trailing
// zeros, as PostgreSQL prints them.
func clockText(t time.Time) string {
	s := t.Format("15:04:05")
	if us := t.Nanosecond() / 1000; us != 0 {
		s += strings.TrimRight(fmt.Sprintf(".%06d", us), "0")
	}
	return s
}

// intervalText is IntervalStyle postgres: "1 year 2 mons 3 days 04:05:06".
func intervalText(iv interval) string {
	var parts []string
	years, months := iv.months/12, iv.months%12
	unit := func(n int64, one, many string) {
		if n == 0 {
			return
		}
		u := many
		if n == 1 { // PostgreSQL writes "-1 days"
			u = one
		}
		parts = append(parts, fmt.Sprintf("%d %s", n, u))
	}
	unit(years, "year", "years")
	unit(months, "mon", "mons")
	unit(iv.days, "day", "days")
	if iv.us != 0 || len(parts) == 0 {
		us := iv.us
		sign := ""
		if us < 0 {
			sign, us = "-", -us
		}
		h := us / 3600000000
		m := us / 60000000 % 60
		s := us / 1000000 % 60
		frac := us % 1000000
		t := fmt.Sprintf("%s%02d:%02d:%02d", sign, h, m, s)
		if frac != 0 {
			t += strings.TrimRight(fmt.Sprintf(".%06d", frac), "0")
		}
		parts = append(parts, t)
	}
	return strings.Join(parts, " ")
}

// realValue is f stored as a real (float4): rounded to float32, an error
// when a finite f is beyond float4's range (PostgreSQL's float4in and
// float8-to-float4 cast); text is the input, for the message.
func realValue(f float64, text string) (value, error) {
	r := float32(f)
	if math.IsInf(float64(r), 0) && !math.IsInf(f, 0) {
		return value{}, fmt.Errorf("%q is out of range for type real", text)
	}
	return value{t: vFloat, f: float64(r), f32: true}, nil
}
