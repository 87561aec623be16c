package dbload

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// dchKeywords are PostgreSQL's to_char datetime template patterns
// (formatting.c, DCH_keywords), in its order: at each position the first
// keyword that prefixes the rest of the format wins, case-sensitively (so
// "Month" and "month" differ, and a lone "m" is literal text).
var dchKeywords = []string{
	"A.D.", "A.M.", "AD", "AM", "B.C.", "BC", "CC", "DAY", "DDD", "DD", "DY", "Day", "Dy", "D",
	"FF1", "FF2", "FF3", "FF4", "FF5", "FF6", "FX", "HH24", "HH12", "HH", "IDDD", "ID", "IW",
	"IYYY", "IYY", "IY", "I", "J", "MI", "MM", "MONTH", "MON", "MS", "Month", "Mon", "OF",
	"P.M.", "PM", "Q", "RM", "SSSSS", "SSSS", "SS", "TZH", "TZM", "TZ", "US", "WW", "W",
	"Y,YYY", "YYYY", "YYY", "YY", "Y",
	"a.d.", "a.m.", "ad", "am", "b.c.", "bc", "cc", "day", "ddd", "dd", "dy", "d",
	"ff1", "ff2", "ff3", "ff4", "ff5", "ff6", "fx", "hh24", "hh12", "hh", "iddd", "id", "iw",
	"iyyy", "iyy", "iy", "i", "j", "mi", "mm", "month", "mon", "ms", "of",
	"p.m.", "pm", "q", "rm", "sssss", "ssss", "ss", "tzh", "tzm", "tz", "us", "ww", "w",
	"y,yyy", "yyyy", "yyy", "yy", "y",
}

var romanMonths = []string{"I", "II", "III", "IV", "V", "VI", "VII", "VIII", "IX", "X", "XI", "XII"}

// toChar is PostgreSQL's to_char(timestamp[tz], text) for session zone UTC
// and the C locale: template patterns, the FM (fill mode) and TM prefixes,
// the TH/th ordinal suffixes, "quoted text" and \" for a double quote;
// other characters (a lone backslash too) are copied.
func toChar(t time.Time, withZone bool, format string) string {
	var b strings.Builder
	f := format
	for len(f) > 0 {
		if f[0] == '"' {
			j := 1
			for j < len(f) && f[j] != '"' {
				if f[j] == '\\' && j+1 < len(f) {
					j++
				}
				b.WriteByte(f[j])
				j++
			}
			f = f[min(j+1, len(f)):]
			continue
		}
		if f[0] == '\\' && len(f) > 1 && f[1] == '"' {
			b.WriteByte('"')
			f = f[2:]
			continue
		}
		fm := false
		rest := f
		for {
			switch {
			case strings.HasPrefix(rest, "FM") || strings.HasPrefix(rest, "fm"):
				fm, rest = true, rest[2:]
				continue
			case strings.HasPrefix(rest, "TM") || strings.HasPrefix(rest, "tm"):
				rest = rest[2:]
				continue
			}
			break
		}
		kw := ""
		for _, k := range dchKeywords {
			if strings.HasPrefix(rest, k) {
				kw = k
				break
			}
		}
		if kw == "" {
			// not a pattern: copy one character (prefixes included)
			b.WriteByte(f[0])
			f = f[1:]
			continue
		}
		rest = rest[len(kw):]
		th := ""
		if strings.HasPrefix(rest, "TH") || strings.HasPrefix(rest, "th") {
			th, rest = rest[:2], rest[2:]
		}
		b.WriteString(dchField(t, withZone, kw, fm, th))
		f = rest
	}
	return b.String()
}

func ordinal(n int, th string) string {
	if th == "" {
		return ""
	}
	s := "th"
	if n%100 < 11 || n%100 > 13 {
		switch n % 10 {
		case 1:
			s = "st"
		case 2:
			s = "nd"
		case 3:
			s = "rd"
		}
	}
	if th == "TH" {
		s = strings.ToUpper(s)
	}
	return s
}

func casing(s, kw string) string {
	switch {
	case kw == strings.ToUpper(kw):
		return strings.ToUpper(s)
	case kw == strings.ToLower(kw):
		return strings.ToLower(s)
	}
	return s // Month, Day: as written
}

func dchField(t time.Time, withZone bool, kw string, fm bool, th string) string {
	num := func(n, width int) string {
		var s string
		if fm || width == 0 {
			s = strconv.Itoa(n)
		} else {
			s = fmt.Sprintf("%0*d", width, n)
		}
		return s + ordinal(n, th)
	}
	pad := func(s string, width int) string {
		if fm {
			return s
		}
		return fmt.Sprintf("%-*s", width, s)
	}
	y := t.Year()
	iy, iw := t.ISOWeek()
	h := t.Hour()
	switch strings.ToUpper(kw) {
	case "A.D.", "B.C.":
		return casing(map[bool]string{true: "A.D.", false: "B.C."}[y > 0], kw)
	case "AD", "BC":
		return casing(map[bool]string{true: "AD", false: "BC"}[y > 0], kw)
	case "A.M.", "P.M.":
		return casing(map[bool]string{true: "A.M.", false: "P.M."}[h < 12], kw)
	case "AM", "PM":
		return casing(map[bool]string{true: "AM", false: "PM"}[h < 12], kw)
	case "CC":
		return num((y+99)/100, 2)
	case "DAY":
		return pad(casing(t.Weekday().String(), kw), 9)
	case "DY":
		return casing(t.Weekday().String()[:3], kw)
	case "DDD":
		return num(t.YearDay(), 3)
	case "DD":
		return num(t.Day(), 2)
	case "D":
		return num(int(t.Weekday())+1, 0)
	case "FF1", "FF2", "FF3", "FF4", "FF5", "FF6":
		n := int(kw[2] - '0')
		us := fmt.Sprintf("%06d", t.Nanosecond()/1000)
		return us[:n]
	case "FX":
		return ""
	case "HH24":
		return num(h, 2)
	case "HH12", "HH":
		h12 := h % 12
		if h12 == 0 {
			h12 = 12
		}
		return num(h12, 2)
	case "IDDD":
		jan4 := time.Date(iy, 1, 4, 0, 0, 0, 0, time.UTC)
		start := jan4.AddDate(0, 0, -((int(jan4.Weekday()) + 6) % 7))
		return num(int(dateOf(t).Sub(start).Hours()/24)+1, 3)
	case "ID":
		return num((int(t.Weekday())+6)%7+1, 0)
	case "IW":
		return num(iw, 2)
	case "IYYY":
		return num(iy, 4)
	case "IYY":
		return num(iy%1000, 3)
	case "IY":
		return num(iy%100, 2)
	case "I":
		return num(iy%10, 1)
	case "J":
		return num(int(julianDay(t)), 0)
	case "MI":
		return num(t.Minute(), 2)
	case "MM":
		return num(int(t.Month()), 2)
	case "MONTH":
		return pad(casing(t.Month().String(), kw), 9)
	case "MON":
		return casing(t.Month().String()[:3], kw)
	case "MS":
		return num(t.Nanosecond()/1000000, 3)
	case "OF", "TZH":
		return "+00" // a timestamp without zone prints offset 0 too
	case "TZM":
		return "00"
	case "TZ":
		if !withZone {
			return ""
		}
		return casing("UTC", kw)
	case "Q":
		return num((int(t.Month())-1)/3+1, 0)
	case "RM":
		return pad(casing(romanMonths[t.Month()-1], kw), 4)
	case "SSSSS", "SSSS":
		return num(h*3600+t.Minute()*60+t.Second(), 0)
	case "SS":
		return num(t.Second(), 2)
	case "US":
		return num(t.Nanosecond()/1000, 6)
	case "WW":
		return num((t.YearDay()-1)/7+1, 2)
	case "W":
		return num((t.Day()-1)/7+1, 0)
	case "Y,YYY":
		return fmt.Sprintf("%d,%03d", y/1000, y%1000) + ordinal(y, th)
	case "YYYY":
		return num(y, 4)
	case "YYY":
		return num(y%1000, 3)
	case "YY":
		return num(y%100, 2)
	case "Y":
		return num(y%10, 1)
	}
	return kw
}
