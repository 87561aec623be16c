package audit

import (
	"strings"

	"github.com/sqljudge/sqljudge/internal/sqllex"
)

// volatileCalls are functions whose value changes from run to run: random
// numbers and the clock, in SQLite, PostgreSQL, MySQL and DuckDB. age has
// it only with one argument (the other is then the current date).
var volatileCalls = map[string]bool{
	"random": true, "randomblob": true, "rand": true, "uuid": true, "gen_random_uuid": true, "uuid_generate_v4": true,
	"now": true, "clock_timestamp": true, "statement_timestamp": true, "transaction_timestamp": true, "timeofday": true,
	"sysdate": true, "curdate": true, "curtime": true, "utc_date": true, "utc_time": true, "utc_timestamp": true,
	"current_date": true, "current_time": true, "current_timestamp": true, "localtime": true, "localtimestamp": true,
	"unix_timestamp": true, "get_current_time": true, "today": true,
}

// clockKeywords are the clock's value written as a keyword, without
// parentheses (standard SQL).
var clockKeywords = map[string]bool{"current_date": true, "current_time": true, "current_timestamp": true, "localtime": true, "localtimestamp": true}

// zeroArgClock read the clock when called without arguments.
var zeroArgClock = map[string]bool{"unixepoch": true, "unix_timestamp": true}

// volatileFindings returns one Volatile finding per distinct random or
// clock call of sql (not those inside one reported), found by its tokens (so that it works on any dialect,
// parsed or not): a call of a volatileCalls function, a clock keyword,
// unixepoch() without arguments, age(x) with one argument, or the string
// 'now' (SQLite's date('now'), PostgreSQL's 'now'::date).
func volatileFindings(sql string) []Finding {
	toks := sqllex.Tokenize(sql)
	seen := map[string]bool{}
	var out []Finding
	add := func(clause, why string) {
		for c := range seen {
			if strings.Contains(c, clause) {
				return // a call inside one reported already
			}
		}
		seen[clause] = true
		out = append(out, Finding{Kind: Volatile, Clause: clause, Detail: clause + " " + why + ": the result depends on when the query runs"})
	}
	for i, t := range toks {
		w := strings.ToLower(t.Text)
		switch {
		case t.Kind == sqllex.String && strings.EqualFold(strings.Trim(t.Text, "'"), "now"):
			add(enclosingCall(toks, i), "reads the clock")
		case t.Kind != sqllex.Word:
		case isCall(toks, i):
			args, text := callArgs(toks, i)
			switch {
			case volatileCalls[w]:
				add(text, kindOfCall(w))
			case w == "age" && args == 1:
				add(text, "reads the clock")
			case zeroArgClock[w] && args == 0:
				add(text, "reads the clock")
			}
		case clockKeywords[w]:
			add(t.Text, "reads the clock")
		}
	}
	return out
}

// VolatileCalls returns the text of each distinct random or clock call of
// sql (date('now', '-70 days'), CURRENT_DATE, random()), in the order they
// occur, found by its tokens as the audit's volatile finding is, so it works
// on any dialect, parsed or not; nil when the query reads neither. A query
// with any is one whose result, and so whose verdict, depends on when (or
// how often) it runs.
func VolatileCalls(sql string) []string {
	var out []string
	for _, f := range volatileFindings(sql) {
		out = append(out, f.Clause)
	}
	return out
}

// kindOfCall says whether function w draws random numbers or reads the clock.
func kindOfCall(w string) string {
	switch w {
	case "random", "randomblob", "rand", "uuid", "gen_random_uuid", "uuid_generate_v4":
		return "draws random values"
	}
	return "reads the clock"
}

// isCall reports whether the word token i is followed by "(".
func isCall(toks []sqllex.Token, i int) bool {
	j := skipSpace(toks, i+1)
	return j < len(toks) && toks[j].Kind == sqllex.Punct && toks[j].Text == "("
}

// skipSpace returns the first token from i on that is not a space or a
// comment.
func skipSpace(toks []sqllex.Token, i int) int {
	for i < len(toks) && (toks[i].Kind == sqllex.Space || toks[i].Kind == sqllex.Comment) {
		i++
	}
	return i
}

// callArgs returns the number of top-level arguments of the call whose
// name is token i, and the call's text (name to closing parenthesis).
func callArgs(toks []sqllex.Token, i int) (int, string) {
	var b strings.Builder
	b.WriteString(toks[i].Text)
	depth, args, empty := 0, 1, true
	for j := skipSpace(toks, i+1); j < len(toks); j++ {
		t := toks[j]
		b.WriteString(t.Text)
		if t.Kind == sqllex.Punct {
			switch t.Text {
			case "(":
				depth++
				continue
			case ")":
				if depth--; depth == 0 {
					if empty {
						args = 0
					}
					return args, b.String()
				}
			case ",":
				if depth == 1 {
					args++
				}
			}
		}
		if t.Kind != sqllex.Space && t.Kind != sqllex.Comment {
			empty = false
		}
	}
	return args, b.String()
}

// enclosingCall returns the text of the call whose argument list holds
// token i (date('now', '-1 day')), or the token itself when it is in none.
func enclosingCall(toks []sqllex.Token, i int) string {
	depth := 0
	for j := i - 1; j >= 0; j-- {
		if toks[j].Kind != sqllex.Punct {
			continue
		}
		switch toks[j].Text {
		case ")":
			depth++
		case "(":
			if depth > 0 {
				depth--
				continue
			}
			k := j - 1
			for k >= 0 && toks[k].Kind == sqllex.Space {
				k--
			}
			if k >= 0 && toks[k].Kind == sqllex.Word {
				_, text := callArgs(toks, k)
				return text
			}
			return toks[i].Text
		}
	}
	return toks[i].Text
}
