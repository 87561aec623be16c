package fuzz

import (
	"encoding/hex"
	"math"
	"strconv"
	"strings"

	"github.com/sqljudge/sqljudge/internal/engine"
)

// kind is a value's storage class as written into an INSERT: SQLite's
// five (https://sqlite.org/datatype3.html, section 2), which the column's
// affinity may then convert.
type kind uint8

const (
	kNull kind = iota
	kInt
	kReal
	kText
	kBlob
)

// value is one value the fuzzer writes: a literal of a storage class.
type value struct {
	k kind
	i int64
	f float64
	s string // text, or the bytes of a blob
}

func intVal(i int64) value    { return value{k: kInt, i: i} }
func realVal(f float64) value { return value{k: kReal, f: f} }
func textVal(s string) value  { return value{k: kText, s: s} }
func blobVal(b string) value  { return value{k: kBlob, s: b} }

// literal prints v as an SQL literal of dialect d: an integer, a real
// that reads back as the same double (always with a '.' or an exponent,
// so that SQLite reads it as REAL), a quoted string, X'…' for a blob on
// SQLite ('\x…'::bytea on PostgreSQL).
func (v value) literal(d engine.Dialect) string {
	switch v.k {
	case kInt:
		return strconv.FormatInt(v.i, 10)
	case kReal:
		return realText(v.f)
	case kText:
		return quoteString(v.s)
	case kBlob:
		if d == engine.Postgres {
			return `'\x` + hex.EncodeToString([]byte(v.s)) + `'::bytea`
		}
		return "X'" + strings.ToUpper(hex.EncodeToString([]byte(v.s))) + "'"
	}
	return "NULL"
}

// realText prints a finite double so that SQL reads it back exactly and
// as a real: the shortest round-trip form, with ".0" added to a whole
// number.
func realText(f float64) string {
	if math.IsInf(f, 0) || math.IsNaN(f) {
		return "NULL"
	}
	s := strconv.FormatFloat(f, 'g', -1, 64)
	if !strings.ContainsAny(s, ".eEn") {
		s += ".0"
	}
	return s
}

// quoteString writes s as a single-quoted SQL string.
func quoteString(s string) string { return "'" + strings.ReplaceAll(s, "'", "''") + "'" }

// key identifies a value with its storage class (5, 5.0, '5' and x'35'
// are four keys).
func (v value) key() string {
	switch v.k {
	case kInt:
		return "i" + strconv.FormatInt(v.i, 10)
	case kReal:
		return "r" + strconv.FormatFloat(v.f, 'g', -1, 64)
	case kText:
		return "t" + v.s
	case kBlob:
		return "b" + v.s
	}
	return "n"
}

// numeric reports whether v is an integer or a real, and its value.
func (v value) numeric() (float64, bool) {
	switch v.k {
	case kInt:
		return float64(v.i), true
	case kReal:
		return v.f, true
	}
	return 0, false
}

// spellings returns v and the other storage classes that spell the same
// number or text: 5 gives 5, 5.0, '5', '05', ' 5'; 'a' gives 'a', 'A',
// 'a ' (the variants a NOCASE or RTRIM collation ties, and affinities
// convert).
func (v value) spellings() []value {
	out := []value{v}
	switch v.k {
	case kInt:
		out = append(out, realVal(float64(v.i)), textVal(strconv.FormatInt(v.i, 10)))
		if v.i >= 0 && v.i < 100 {
			out = append(out, textVal("0"+strconv.FormatInt(v.i, 10)))
		}
	case kReal:
		out = append(out, textVal(realText(v.f)))
		if v.f == math.Trunc(v.f) && math.Abs(v.f) < 1e15 {
			out = append(out, intVal(int64(v.f)))
		}
	case kText:
		if u := strings.ToUpper(v.s); u != v.s {
			out = append(out, textVal(u))
		} else if l := strings.ToLower(v.s); l != v.s {
			out = append(out, textVal(l))
		}
		out = append(out, textVal(v.s+" "))
		if i, err := strconv.ParseInt(strings.TrimSpace(v.s), 10, 64); err == nil {
			out = append(out, intVal(i))
		}
	}
	return out
}
