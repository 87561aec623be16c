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

// subst is one substitution of the word tokenizer. can, when set, is a
// cheap necessary condition for re to match: when it is false the
// substitution is skipped, which leaves the text as re.ReplaceAllString
// would (no match, no change) without running the regexp.
//
// pad, when set, says that re is a class of ASCII characters replaced by
// " $0 ": apply then pads each of them with a space on both sides itself,
// which is what the regexp would do.
type subst struct {
	re   *regexp.Regexp
	repl string
	can  func(string) bool
	pad  string
}

// apply runs the substitution on text unless its guard rules a match out.
func (s subst) apply(text string) string {
	if s.can != nil && !s.can(text) {
		return text
	}
	if s.pad != "" {
		return padChars(text, s.pad)
	}
	return s.re.ReplaceAllString(text, s.repl)
}

// padChars puts a space before and after every byte of text that is one of
// the ASCII characters chars (a byte below 0x80 is always a whole UTF-8
// character).
func padChars(text, chars string) string {
	var b strings.Builder
	b.Grow(len(text) + 16)
	for i := 0; i < len(text); i++ {
		if c := text[i]; c < utf8.RuneSelf && strings.IndexByte(chars, c) >= 0 {
			b.WriteByte(' ')
			b.WriteByte(c)
			b.WriteByte(' ')
			continue
		}
		b.WriteByte(text[i])
	}
	return b.String()
}

// anyOf returns a guard true when text holds one of chars: a pattern
// that must match one of them cannot match otherwise.
func anyOf(chars string) func(string) bool {
	return func(text string) bool { return strings.ContainsAny(text, chars) }
}

// has returns a guard true when text holds sub.
func has(sub string) func(string) bool {
	return func(text string) bool { return strings.Contains(text, sub) }
}

// finalPeriod guards the two patterns ([^.])(\.)(closers*)\s*$: a match
// needs a period followed only by closing characters and whitespace up to
// the end, so the last character that is neither of those must be a period
// (the stripped set is a superset of what may follow the period).
func finalPeriod(text string) bool {
	t := strings.TrimRightFunc(text, func(r rune) bool {
		return isPySpace(r) || strings.ContainsRune(`])}>"'»”’ `, r)
	})
	return strings.HasSuffix(t, ".")
}

// The substitutions of nltk's NLTKWordTokenizer.tokenize (nltk 3.8,
// nltk/tokenize/destructive.py), in its order. Those that need a ' or "
// are left out: Tokenize has replaced every quote before the word
// tokenizer runs, so they never match (see wordTokenize).
var (
	startingQuotes = []subst{
		{regexp.MustCompile("([«“‘„]|[`]+)"), " $1 ", anyOf("«“‘„`"), ""},
		{regexp.MustCompile("(``)"), " $1 ", has("``"), ""},
	}
	punctuation = []subst{
		{regexp.MustCompile(`([^.])(\.)([\])}>"'»”’ ]*)` + pyWS + `*$`), "$1 $2 $3 ", finalPeriod, ""},
		{regexp.MustCompile(`([:,])([^\p{Nd}])`), " $1 $2", anyOf(":,"), ""},
		{regexp.MustCompile(`([:,])$`), " $1 ", anyOf(":,"), ""},
		{regexp.MustCompile(`\.{2,}`), " $0 ", has(".."), ""},
		{regexp.MustCompile(`[;@#$%&]`), " $0 ", anyOf(";@#$%&"), ";@#$%&"},
		{regexp.MustCompile(`([^.])(\.)([\])}>"']*)` + pyWS + `*$`), "$1 $2$3 ", finalPeriod, ""},
		{regexp.MustCompile(`[?!]`), " $0 ", anyOf("?!"), "?!"},
		{regexp.MustCompile(`[*]`), " $0 ", anyOf("*"), "*"},
	}
	parensBrackets = subst{regexp.MustCompile(`[\]\[(){}<>]`), " $0 ", anyOf("[](){}<>"), "[](){}<>"}
	doubleDashes   = subst{regexp.MustCompile(`--`), " -- ", has("--"), ""}
	endingQuotes   = subst{regexp.MustCompile("([»”’])"), " $1 ", anyOf("»”’"), ""}
	// contractions are MacIntyre's CONTRACTIONS2 that need no apostrophe:
	// (?i)\b(can)(not)\b and the like; wanna needs whitespace after it.
	// word is the pattern's text in lower case: on ASCII text (where
	// (?i) folds only A-Z onto a-z) no match is possible unless the
	// lower-cased text holds it.
	contractions = []struct {
		re        *regexp.Regexp
		word      string
		needSpace bool
	}{
		{regexp.MustCompile(`(?i)(can)(not)`), "cannot", false},
		{regexp.MustCompile(`(?i)(gim)(me)`), "gimme", false},
		{regexp.MustCompile(`(?i)(gon)(na)`), "gonna", false},
		{regexp.MustCompile(`(?i)(got)(ta)`), "gotta", false},
		{regexp.MustCompile(`(?i)(lem)(me)`), "lemme", false},
		{regexp.MustCompile(`(?i)(wan)(na)`), "wanna", true},
	}
)

// wordTokenize splits text as nltk's NLTKWordTokenizer().tokenize does
// (the punkt-free word tokenizer the oracle used in place of
// nltk.word_tokenize). text never holds ' or " here.
func wordTokenize(text string) []string {
	for _, s := range startingQuotes {
		text = s.apply(text)
	}
	for _, s := range punctuation {
		text = s.apply(text)
	}
	text = parensBrackets.apply(text)
	text = doubleDashes.apply(text)
	text = " " + text + " "
	text = endingQuotes.apply(text)
	ascii, lower := isASCII(text), strings.ToLower(text)
	for _, c := range contractions {
		if ascii && !strings.Contains(lower, c.word) {
			continue
		}
		text = splitContraction(text, c.re, c.needSpace)
		ascii, lower = isASCII(text), strings.ToLower(text)
	}
	// re.split(pyWS+, text) without its empty strings.
	return strings.FieldsFunc(text, isPySpace)
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
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
