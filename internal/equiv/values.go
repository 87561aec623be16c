package equiv

import (
	"math"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/sqljudge/sqljudge/internal/catalog"
	"github.com/sqljudge/sqljudge/internal/result"
	"github.com/sqljudge/sqljudge/internal/sqllex"
	"github.com/sqljudge/sqljudge/internal/testsuite"
)

// baseValues are the values every column of a kind may take: zero, one,
// a negative, a second distinct value, and the kind's boundaries.
func baseValues(k catalog.Family) []result.Value {
	switch k {
	case catalog.Integer:
		return []result.Value{result.IntValue(0), result.IntValue(1), result.IntValue(2), result.IntValue(-1), result.IntValue(3)}
	case catalog.Real, catalog.Decimal:
		return []result.Value{result.FloatValue(0), result.FloatValue(1), result.FloatValue(1.5), result.FloatValue(-1)}
	case catalog.Date:
		return []result.Value{result.TextValue("2000-01-01"), result.TextValue("2000-01-02"), result.TextValue("1999-12-31")}
	case catalog.Timestamp:
		return []result.Value{result.TextValue("2000-01-01 00:00:00"), result.TextValue("2000-01-02 12:00:00")}
	case catalog.Time:
		return []result.Value{result.TextValue("00:00:00"), result.TextValue("12:30:00")}
	case catalog.Boolean:
		return []result.Value{result.BoolValue(false), result.BoolValue(true)}
	}
	return []result.Value{result.TextValue(""), result.TextValue("a"), result.TextValue("b"), result.TextValue("A")}
}

var (
	dateRe      = regexp.MustCompile(`^\d{4}-\d{2}-\d{2}$`)
	timestampRe = regexp.MustCompile(`^\d{4}-\d{2}-\d{2}[ T]\d{2}:\d{2}(:\d{2}(\.\d+)?)?$`)
	timeRe      = regexp.MustCompile(`^\d{2}:\d{2}(:\d{2})?$`)
)

// coerce returns v as a value of column c's kind, and false when it has
// none (text that is no number for a numeric column, a malformed date).
// Text longer than a VARCHAR(n) is cut to n characters.
func coerce(v result.Value, c catalog.Column) (result.Value, bool) {
	if v.IsNull() {
		return v, true
	}
	num, isNum := numberOf(v)
	switch c.Family {
	case catalog.Integer:
		if isNum && num == math.Trunc(num) && math.Abs(num) <= intLimit(c.Type) {
			return result.IntValue(int64(num)), true
		}
		return v, false
	case catalog.Real, catalog.Decimal:
		if isNum && !math.IsInf(num, 0) && !math.IsNaN(num) && math.Abs(num) < decimalLimit(c.Type) {
			return result.FloatValue(num), true
		}
		return v, false
	case catalog.Boolean:
		if isNum && (num == 0 || num == 1) {
			return result.BoolValue(num == 1), true
		}
		return v, false
	case catalog.Date:
		return v, v.K == result.Text && dateRe.MatchString(v.S) && validDate(v.S)
	case catalog.Timestamp:
		if v.K == result.Text && dateRe.MatchString(v.S) && validDate(v.S) {
			return result.TextValue(v.S + " 00:00:00"), true
		}
		return v, v.K == result.Text && timestampRe.MatchString(v.S) && validDate(v.S[:10])
	case catalog.Time:
		return v, v.K == result.Text && timeRe.MatchString(v.S)
	}
	s := v.S
	switch v.K {
	case result.Int, result.Bool:
		s = strconv.FormatInt(v.I, 10)
	case result.Float:
		s = strconv.FormatFloat(v.F, 'f', -1, 64)
	}
	if c.Len > 0 && len([]rune(s)) > c.Len {
		s = string([]rune(s)[:c.Len])
	}
	return result.TextValue(s), !strings.ContainsRune(s, 0)
}

// intLimit is the largest magnitude an integer type holds on every
// engine: SMALLINT's and TINYINT's 32767 (TINYINT is declared SMALLINT off
// MySQL; 127 there is not kept), INTEGER's 2^31-1, BIGINT's 2^53 (exact
// in a float).
func intLimit(t string) float64 {
	switch {
	case strings.Contains(t, "BIG"):
		return 1 << 53
	case strings.Contains(t, "SMALL") || strings.Contains(t, "TINY"):
		return 32767
	}
	return 1<<31 - 1
}

// decimalLimit is the bound on magnitudes a DECIMAL(p, s) holds,
// 10^(p-s), or 1e15 without a precision.
func decimalLimit(t string) float64 {
	args := strings.Trim(catalog.TypeArgs(t), "()")
	if args == "" {
		return 1e15
	}
	ps := strings.Split(args, ",")
	p, err := strconv.Atoi(strings.TrimSpace(ps[0]))
	if err != nil {
		return 1e15
	}
	sc := 0
	if len(ps) > 1 {
		sc, _ = strconv.Atoi(strings.TrimSpace(ps[1]))
	}
	return math.Pow(10, float64(p-sc))
}

func validDate(s string) bool {
	_, err := time.Parse("2006-01-02", s)
	return err == nil
}

// numberOf returns the number v holds or spells.
func numberOf(v result.Value) (float64, bool) {
	switch v.K {
	case result.Int, result.Bool:
		return float64(v.I), true
	case result.Float:
		return v.F, true
	case result.Text, result.Decimal:
		f, err := strconv.ParseFloat(strings.TrimSpace(v.S), 64)
		return f, err == nil
	}
	return 0, false
}

// MaxPoolLiterals is the most literal values (with their variants) of
// the pair's queries the search's value pools take: far more than a
// database of the search holds rows, and a query padded with 300,000
// values in an IN list does not put them all in every column's pool (18
// million values, 1.1 GB, for one item).
const MaxPoolLiterals = 1024

// pools returns, for every column of s (by table and column index), the
// values the search draws from, without repeats, in a fixed order: the
// literals of the queries that name the column and their neighbouring
// values (testsuite.LiteralVariants), the family's base values, every
// other literal the column's family admits, and the column's Values (the
// sample of the pair's database; none for DDL). Of the literals, the
// first MaxPoolLiterals (variants included, in the queries' order) are
// taken; then the values that meet the queries' linear conditions
// (solved: x * 3 = 122883 gives 40961) count as literals too (after the
// cap, so that a padded IN list cannot push them out).
func (s *schema) pools(queries []string, solved []solved) [][][]result.Value {
	words := map[string]bool{}
	var lits []result.Value
	for _, q := range queries {
		for _, t := range sqllex.Tokenize(q) {
			if t.Kind == sqllex.Word || t.Kind == sqllex.Quoted {
				words[strings.ToLower(catalog.UnquoteIdent(t.Text))] = true
			}
		}
		inScope := s.columnsInScope(q)
		for _, v := range testsuite.QueryLiterals(q, func(n string) bool { return inScope[strings.ToLower(n)] }) {
			lits = append(lits, testsuite.LiteralVariants(v)...)
		}
	}
	lits = lits[:min(len(lits), MaxPoolLiterals)]
	for _, sv := range solved {
		lits = append(lits, testsuite.LiteralVariants(sv.v)...)
	}
	out := make([][][]result.Value, len(s.Tables))
	for ti, t := range s.Tables {
		out[ti] = make([][]result.Value, len(t.Columns))
		for ci, c := range t.Columns {
			var cand []result.Value
			if words[strings.ToLower(c.Name)] {
				cand = append(cand, lits...)
			}
			cand = append(cand, baseValues(c.Family)...)
			cand = append(cand, lits...)
			cand = append(cand, c.Values...)
			out[ti][ci] = distinctCoerced(cand, c)
			if c.Family == catalog.Text && words[strings.ToLower(c.Name)] {
				out[ti][ci] = appendDistinctCoerced(out[ti][ci], numberSpellings(out[ti][ci]), c)
			}
		}
	}
	return out
}

// numberSpellings returns, for a text column's pool vs, a second
// spelling of each integer it spells ('5' gives '05') and '01': text equal
// to a number as a number but not as text, which tells apart a comparison
// under NUMERIC or INTEGER affinity (x = i with i INTEGER converts x) from
// one under TEXT affinity (x IN (i) converts i: '05' <> '5'), SQLite's
// rules (https://sqlite.org/datatype3.html, "Type Conversions Prior To
// Comparison"). Only for columns a query names, after every other value,
// so the pool keeps its order.
func numberSpellings(vs []result.Value) []result.Value {
	out := []result.Value{result.TextValue("01")}
	for _, v := range vs {
		if v.K != result.Text {
			continue
		}
		if i, err := strconv.ParseInt(v.S, 10, 64); err == nil && i >= 0 && strconv.FormatInt(i, 10) == v.S {
			out = append(out, result.TextValue("0"+v.S))
		}
	}
	return out
}

// distinctCoerced coerces the values to c's kind and drops repeats and
// those without one, keeping the first occurrence's place.
func distinctCoerced(vs []result.Value, c catalog.Column) []result.Value {
	return appendDistinctCoerced(nil, vs, c)
}

// appendDistinctCoerced appends to dst (values of c's kind without
// repeats, as distinctCoerced returns them) each of vs coerced to c's
// kind that dst does not hold yet, in order; those without one and NULLs
// are dropped. dst's own values are not coerced again.
func appendDistinctCoerced(dst, vs []result.Value, c catalog.Column) []result.Value {
	key := func(v result.Value) string { return string(result.AppendKey(nil, v)) + v.K.String() }
	seen := make(map[string]bool, len(dst)+len(vs))
	for _, v := range dst {
		seen[key(v)] = true
	}
	for _, v := range vs {
		if v.IsNull() {
			continue
		}
		cv, ok := coerce(v, c)
		if !ok {
			continue
		}
		k := key(cv)
		if seen[k] {
			continue
		}
		seen[k] = true
		dst = append(dst, cv)
	}
	return dst
}

// columnsInScope returns the columns (lower case) of the tables q names:
// a double-quoted word is a column only when one of them has it, else
// SQLite reads it as a string (Spider's gold writes "France" for
// 'France'), even when another table of the schema has such a column.
func (s *schema) columnsInScope(q string) map[string]bool {
	named := map[string]bool{}
	for _, t := range sqllex.Tokenize(q) {
		if t.Kind == sqllex.Word || t.Kind == sqllex.Quoted {
			named[strings.ToLower(catalog.UnquoteIdent(t.Text))] = true
		}
	}
	out := map[string]bool{}
	for _, t := range s.Tables {
		if named[strings.ToLower(t.Name)] {
			for _, c := range t.Columns {
				out[strings.ToLower(c.Name)] = true
			}
		}
	}
	return out
}

// isColumn reports whether some table of s has a column named n.
func (s *schema) isColumn(n string) bool {
	for _, t := range s.Tables {
		if t.Col(n) >= 0 {
			return true
		}
	}
	return false
}
