package check

import (
	"fmt"
	"math/big"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"
)

// The SMT-LIB 2 scripts of the kernel's obligations (theories of
// integers, reals and strings, uninterpreted functions): a script holds
// declarations and assertions and asserts the negation of its claim, so
// that the expected answer is unsat. encode.go writes expressions into
// it.

// script is one obligation being written.
type script struct {
	d        Dialect
	decls    []string
	declared map[string]bool
	asserts  []string
	notes    []string
	facts    factSet
	opaque   map[string]string // key → symbol
	aggs     map[string]*term  // aggregate key → its term
	nAgg     int
}

func newScript(d Dialect) *script {
	return &script{d: d, declared: map[string]bool{}, opaque: map[string]string{}, aggs: map[string]*term{}}
}

func (s *script) declare(name, decl string) {
	if !s.declared[name] {
		s.declared[name] = true
		s.decls = append(s.decls, decl)
	}
}

func (s *script) assert(f string) { s.asserts = append(s.asserts, "(assert "+f+")") }

// text returns the script: the claim is what must hold; the script
// asserts its negation, so the expected answer is unsat.
func (s *script) text(title, claim string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "; %s\n; expected: unsat (the claim holds on every database satisfying the schema)\n", oneLine(title))
	b.WriteString("(set-logic ALL)\n")
	for _, n := range s.notes {
		fmt.Fprintf(&b, "; %s\n", oneLine(n))
	}
	for _, d := range s.decls {
		b.WriteString(d + "\n")
	}
	for _, a := range s.asserts {
		b.WriteString(a + "\n")
	}
	fmt.Fprintf(&b, "(assert (not %s))\n(check-sat)\n", claim)
	return b.String()
}

func oneLine(s string) string { return strings.NewReplacer("\n", " ", "\r", " ").Replace(s) }

// pred is a condition: t when TRUE, f when FALSE.
type pred struct{ t, f string }

func (p pred) not() pred { return pred{p.f, p.t} }

func and(xs ...string) string {
	if len(xs) == 1 {
		return xs[0]
	}
	return "(and " + strings.Join(xs, " ") + ")"
}

func or(xs ...string) string {
	if len(xs) == 1 {
		return xs[0]
	}
	return "(or " + strings.Join(xs, " ") + ")"
}

func not(x string) string { return "(not " + x + ")" }

// sortOf is the SMT sort of a family's values: Int, Real (REAL and
// NUMERIC: a number), String, or the uninterpreted sort V.
func sortOf(f Family) string {
	switch f {
	case Int:
		return "Int"
	case Real, Numeric:
		return "Real"
	case Text:
		return "String"
	}
	return "V"
}

// side is one query of the pair as the encoder reads it: its canonical
// form and the map from its aliases to the first query's (identity for
// the first query).
type side struct {
	c      *Canon
	rename map[string]string
}

func (sd side) alias(a string) string {
	if sd.rename == nil {
		return a
	}
	if r, ok := sd.rename[a]; ok {
		return r
	}
	return a
}

func smtInt(v int64) string {
	if v < 0 {
		return fmt.Sprintf("(- %d)", -v)
	}
	return strconv.FormatInt(v, 10)
}

// smtReal writes the exact value of a double as an SMT real.
func smtReal(f float64) string {
	r := new(big.Rat)
	r.SetFloat64(f)
	neg := r.Sign() < 0
	r.Abs(r)
	s := r.Num().String() + ".0"
	if !r.IsInt() {
		s = "(/ " + r.Num().String() + ".0 " + r.Denom().String() + ".0)"
	}
	if neg {
		return "(- " + s + ")"
	}
	return s
}

// smtString writes a string literal of SMT-LIB 2.6: printable ASCII as
// it is (a double quote doubled), every other code point as \u{…}; false
// for invalid UTF-8 or a code point SMT-LIB's strings do not hold.
func smtString(s string) (string, bool) {
	if !utf8.ValidString(s) {
		return "", false
	}
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		switch {
		case r == '"':
			b.WriteString(`""`)
		case r >= 0x20 && r < 0x7f && r != '\\':
			b.WriteRune(r)
		case r <= 0x2ffff:
			fmt.Fprintf(&b, `\u{%x}`, r)
		default:
			return "", false
		}
	}
	b.WriteByte('"')
	return b.String(), true
}

func app(f string, args []string) string {
	if len(args) == 0 {
		return f
	}
	return "(" + f + " " + strings.Join(args, " ") + ")"
}

// sortedKeys returns the keys of a set in order.
func sortedKeys(m map[colKey]bool) []colKey {
	var out []colKey
	for k := range m {
		out = append(out, k)
	}
	sort.Slice(out, func(i, j int) bool { return out[i] < out[j] })
	return out
}
