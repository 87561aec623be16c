package testsuite

import (
	"math"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/sqljudge/sqljudge/internal/catalog"
	"github.com/sqljudge/sqljudge/internal/result"
	"github.com/sqljudge/sqljudge/internal/sqllex"
)

// Literal is a constant of a gold query with the columns it is likely
// compared with.
type Literal struct {
	Value result.Value
	// Columns are "table.column" keys (lower case) of the columns the
	// literal may meet: those named in the same query with a compatible
	// type.
	Columns []string
}

// queryLiterals returns the literals of q: numbers, '...' strings, and
// "..." strings that do not name a column (SQLite reads a double-quoted
// word that is no identifier as a string, and Spider's queries use it so).
func queryLiterals(q string, isColumn func(string) bool) []result.Value {
	var out []result.Value
	for _, t := range sqllex.Tokenize(q) {
		switch t.Kind {
		case sqllex.Number:
			if i, err := strconv.ParseInt(t.Text, 10, 64); err == nil {
				out = append(out, result.IntValue(i))
			} else if f, err := strconv.ParseFloat(t.Text, 64); err == nil {
				out = append(out, result.FloatValue(f))
			}
		case sqllex.String:
			out = append(out, result.TextValue(unquote(t.Text)))
		case sqllex.Quoted:
			if strings.HasPrefix(t.Text, `"`) && !isColumn(unquote(t.Text)) {
				out = append(out, result.TextValue(unquote(t.Text)))
			}
		}
	}
	return out
}

// unquote removes the quotes of a '...' or "..." token and undoubles
// embedded quotes.
func unquote(s string) string {
	if len(s) >= 2 && (s[0] == '\'' || s[0] == '"' || s[0] == '`') && s[len(s)-1] == s[0] {
		q := string(s[0])
		return strings.ReplaceAll(s[1:len(s)-1], q+q, q)
	}
	if len(s) >= 2 && s[0] == '[' && s[len(s)-1] == ']' {
		return s[1 : len(s)-1]
	}
	return s
}

var dateRe = regexp.MustCompile(`^(\d{4})-(\d{2})-(\d{2})`)

// literalVariants returns the values near a literal that help tell a
// query from its neighbours: integers ±1, floats ±0.5, a LIKE pattern's
// core with and without text around it, case variants, strings one
// character shorter, dates a day apart.
func literalVariants(v result.Value) []result.Value {
	out := []result.Value{v}
	switch v.K {
	case result.Int:
		out = append(out, result.IntValue(v.I-1), result.IntValue(v.I+1))
	case result.Float:
		out = append(out, result.FloatValue(v.F-0.5), result.FloatValue(v.F+0.5), result.FloatValue(math.Round(v.F)))
	case result.Text:
		s := v.S
		if strings.ContainsAny(s, "%_") {
			core := strings.Trim(s, "%")
			core = strings.ReplaceAll(core, "%", "")
			out = append(out, result.TextValue(core), result.TextValue("x"+core), result.TextValue(core+" x"), result.TextValue("a "+core+" z"))
			if up := strings.ToUpper(core); up != core {
				out = append(out, result.TextValue(up))
			}
			break
		}
		if n, err := strconv.ParseFloat(s, 64); err == nil && !math.IsInf(n, 0) {
			if i, err := strconv.ParseInt(s, 10, 64); err == nil {
				out = append(out, result.TextValue(strconv.FormatInt(i-1, 10)), result.TextValue(strconv.FormatInt(i+1, 10)), result.IntValue(i))
			} else {
				out = append(out, result.FloatValue(n))
			}
		}
		if m := dateRe.FindString(s); m != "" {
			if d, err := time.Parse("2006-01-02", m); err == nil {
				out = append(out, result.TextValue(d.AddDate(0, 0, -1).Format("2006-01-02")+s[len(m):]),
					result.TextValue(d.AddDate(0, 0, 1).Format("2006-01-02")+s[len(m):]))
			}
		}
		if lo := strings.ToLower(s); lo != s {
			out = append(out, result.TextValue(lo))
		}
		if len(s) > 1 {
			out = append(out, result.TextValue(s[:len(s)-1]), result.TextValue(s+" "))
		}
	}
	return out
}

// compatible reports whether a literal can meet a column: numbers meet
// numeric columns and text columns holding numbers; text meets text,
// dates, blobs and columns holding text.
func compatible(v result.Value, c *catalog.Column) bool {
	num := v.K == result.Int || v.K == result.Float
	switch aff := affinityOf(c); aff {
	case affInteger, affReal, affNumeric, affBool:
		if num {
			return true
		}
		_, err := strconv.ParseFloat(v.S, 64)
		return err == nil || holdsText(c)
	default:
		return !num || holdsNumbers(c) || aff == affDate || aff == affBlob
	}
}

func holdsText(c *catalog.Column) bool {
	for _, v := range c.Values {
		if v.K == result.Text {
			return true
		}
	}
	return false
}

func holdsNumbers(c *catalog.Column) bool {
	for _, v := range c.Values {
		if v.K == result.Int || v.K == result.Float {
			return true
		}
		if v.K == result.Text {
			if _, err := strconv.ParseFloat(v.S, 64); err == nil {
				return true
			}
		}
	}
	return false
}

// QueryLiterals returns the literals of query q (numbers, '…' strings, and
// "…" strings that isColumn does not call a column name), in order: the
// literals the fuzzer and package equiv draw values from.
func QueryLiterals(q string, isColumn func(string) bool) []result.Value {
	return queryLiterals(q, isColumn)
}

// LiteralVariants returns v and the values near it that tell a query from
// its neighbours (see literalVariants): ±1, a LIKE pattern's instances,
// case variants, a day apart.
func LiteralVariants(v result.Value) []result.Value { return literalVariants(v) }
