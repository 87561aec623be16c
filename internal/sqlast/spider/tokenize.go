package spider

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// pyWS is the class of characters Python's str.isspace() and re's \s (for
// str patterns) accept.
const pyWS = `[\t\n\v\f\r \x1c-\x1f\x{85}\x{a0}\x{1680}\x{2000}-\x{200a}\x{2028}\x{2029}\x{202f}\x{205f}\x{3000}]`

type subst struct {
	re   *regexp.Regexp
	repl string
}

// The substitutions of nltk's NLTKWordTokenizer.tokenize (nltk 3.8,
// nltk/tokenize/destructive.py), in its order. Those that need a ' or "
// are left out: Tokenize has replaced every quote before the word
// tokenizer runs, so they never match (see wordTokenize).
var (
	startingQuotes = []subst{
		{regexp.MustCompile("([«“‘„]|[`]+)"), " $1 "},
		{regexp.MustCompile("(``)"), " $1 "},
	}
	punctuation = []subst{
		{regexp.MustCompile(`([^.])(\.)([\])}>"'»”’ ]*)` + pyWS + `*$`), "$1 $2 $3 "},
		{regexp.MustCompile(`([:,])([^\p{Nd}])`), " $1 $2"},
		{regexp.MustCompile(`([:,])$`), " $1 "},
		{regexp.MustCompile(`\.{2,}`), " $0 "},
		{regexp.MustCompile(`[;@#$%&]`), " $0 "},
		{regexp.MustCompile(`([^.])(\.)([\])}>"']*)` + pyWS + `*$`), "$1 $2$3 "},
		{regexp.MustCompile(`[?!]`), " $0 "},
		{regexp.MustCompile(`[*]`), " $0 "},
	}
	parensBrackets = subst{regexp.MustCompile(`[\]\[(){}<>]`), " $0 "}
	doubleDashes   = subst{regexp.MustCompile(`--`), " -- "}
	endingQuotes   = subst{regexp.MustCompile("([»”’])"), " $1 "}
	// contractions are MacIntyre's CONTRACTIONS2 that need no apostrophe:
	// (?i)\b(can)(not)\b and the like; wanna needs whitespace after it.
	contractions = []struct {
		re        *regexp.Regexp
		needSpace bool
	}{
		{regexp.MustCompile(`(?i)(can)(not)`), false},
		{regexp.MustCompile(`(?i)(gim)(me)`), false},
		{regexp.MustCompile(`(?i)(gon)(na)`), false},
		{regexp.MustCompile(`(?i)(got)(ta)`), false},
		{regexp.MustCompile(`(?i)(lem)(me)`), false},
		{regexp.MustCompile(`(?i)(wan)(na)`), true},
	}
	pySpace = regexp.MustCompile(pyWS + `+`)
)

// wordTokenize splits text as nltk's NLTKWordTokenizer().tokenize does
// (the punkt-free word tokenizer the oracle used in place of
// nltk.word_tokenize). text never holds ' or " here.
func wordTokenize(text string) []string {
	for _, s := range startingQuotes {
		text = s.re.ReplaceAllString(text, s.repl)
	}
	for _, s := range punctuation {
		text = s.re.ReplaceAllString(text, s.repl)
	}
	text = parensBrackets.re.ReplaceAllString(text, parensBrackets.repl)
	text = doubleDashes.re.ReplaceAllString(text, doubleDashes.repl)
	text = " " + text + " "
	text = endingQuotes.re.ReplaceAllString(text, endingQuotes.repl)
	for _, c := range contractions {
		text = splitContraction(text, c.re, c.needSpace)
	}
	var out []string
	for _, f := range pySpace.Split(text, -1) {
		if f != "" {
			out = append(out, f)
		}
	}
	return out
}

// isWordRune is Python re's \w for str patterns.
func isWordRune(r rune) bool {
	return r == '_' || unicode.IsLetter(r) || unicode.IsNumber(r)
}

func isPySpace(r rune) bool {
	switch r {
	case '\t', '\n', '\v', '\f', '\r', ' ', 0x1c, 0x1d, 0x1e, 0x1f, 0x85, 0xa0, 0x1680, 0x2028, 0x2029, 0x202f, 0x205f, 0x3000:
		return true
	}
	return r >= 0x2000 && r <= 0x200a
}

// splitContraction rewrites each match of re bounded by Python's Unicode
// \b on both sides (or followed by whitespace, for needSpace) to
// " $1 $2 ", scanning left to right as re.sub does.
func splitContraction(text string, re *regexp.Regexp, needSpace bool) string {
	var b strings.Builder
	pos := 0
	from := 0
	for from <= len(text) {
		m := re.FindStringSubmatchIndex(text[from:])
		if m == nil {
			break
		}
		s, e := from+m[0], from+m[1]
		before, _ := utf8.DecodeLastRuneInString(text[:s])
		after, _ := utf8.DecodeRuneInString(text[e:])
		ok := s == 0 || !isWordRune(before)
		if needSpace {
			ok = ok && e < len(text) && isPySpace(after)
		} else {
			ok = ok && (e == len(text) || !isWordRune(after))
		}
		if !ok {
			_, n := utf8.DecodeRuneInString(text[s:])
			from = s + max(n, 1)
			continue
		}
		b.WriteString(text[pos:s])
		b.WriteString(" " + text[from+m[2]:from+m[3]] + " " + text[from+m[4]:from+m[5]] + " ")
		pos, from = e, e
	}
	if pos == 0 {
		return text
	}
	b.WriteString(text[pos:])
	return b.String()
}

// TokenizeError is what Tokenize returns for a query process_sql.tokenize
// rejects: an odd number of quote characters.
type TokenizeError struct{ Quotes int }

// Error renders the official assertion message.
func (e *TokenizeError) Error() string {
	return fmt.Sprintf("Unexpected quote (%d quote characters; process_sql.tokenize needs an even number)", e.Quotes)
}

// Tokenize splits a query into the tokens process_sql.tokenize produces:
// every ' becomes ", each pair of quotes (first with second, third with
// fourth, ...) is kept as one token with its quotes and original case, the
// rest is split by nltk's word tokenizer and lower-cased, and "!", ">",
// "<" before "=" are merged into one token. It fails where the official
// function asserts: an odd number of quote characters.
func Tokenize(q string) ([]string, error) {
	s := strings.ReplaceAll(q, "'", `"`)
	var quotes []int
	for i := 0; i < len(s); i++ {
		if s[i] == '"' {
			quotes = append(quotes, i)
		}
	}
	if len(quotes)%2 != 0 {
		return nil, &TokenizeError{Quotes: len(quotes)}
	}
	vals := map[string]string{}
	if len(quotes) > 0 {
		// Python slices by code point; the keys carry code-point offsets.
		cp := make([]int, len(s)+1)
		n := 0
		for i := range s {
			cp[i] = n
			n++
		}
		var b strings.Builder
		prev := 0
		for k := 0; k < len(quotes); k += 2 {
			q1, q2 := quotes[k], quotes[k+1]
			key := "__val_" + strconv.Itoa(cp[q1]) + "_" + strconv.Itoa(cp[q2]) + "__"
			vals[key] = s[q1 : q2+1]
			b.WriteString(s[prev:q1])
			b.WriteString(key)
			prev = q2 + 1
		}
		b.WriteString(s[prev:])
		s = b.String()
	}
	toks := wordTokenize(s)
	for i, t := range toks {
		t = pyLower(t)
		if v, ok := vals[t]; ok {
			t = v
		}
		toks[i] = t
	}
	// Merge "!", ">", "<" with a following "=", from the last "=" back;
	// the official code reads toks[eq_idx-1], which for an "=" in first
	// place is the last token (Python's negative index).
	for i := len(toks) - 1; i >= 0; i-- {
		if toks[i] != "=" {
			continue
		}
		prevIdx := i - 1
		if prevIdx < 0 {
			prevIdx += len(toks)
		}
		pre := toks[prevIdx]
		if pre != "!" && pre != ">" && pre != "<" {
			continue
		}
		// toks[:i-1] + [pre+"="] + toks[i+1:], with Python slice rules.
		head := toks[:pySliceEnd(i-1, len(toks))]
		out := make([]string, 0, len(toks))
		out = append(out, head...)
		out = append(out, pre+"=")
		out = append(out, toks[i+1:]...)
		toks = out
	}
	return toks, nil
}

// pySliceEnd resolves a Python slice end index.
func pySliceEnd(e, n int) int {
	if e < 0 {
		e += n
		if e < 0 {
			e = 0
		}
	}
	if e > n {
		e = n
	}
	return e
}

// pyLower lower-cases as Python's str.lower does, including its one
// multi-rune mapping (U+0130 to "i̇").
func pyLower(s string) string {
	if !strings.ContainsRune(s, 'İ') {
		return strings.ToLower(s)
	}
	return strings.ToLower(strings.ReplaceAll(s, "İ", "i\u0307"))
}
