package sqllex

// SameQuery reports whether SQLite reads a and b as the same statement:
// equal texts, or texts equal up to the ASCII case of their keywords and
// unquoted identifiers (Word tokens, which SQLite compares without case),
// the length of their whitespace runs and their comments (a comment
// separates tokens as whitespace does). Whitespace or a comment must
// separate the same tokens in both: "x'0a'" (a blob) and "x '0a'" (a name
// and a string) differ. Strings, quoted identifiers, numbers and
// punctuation must be equal byte for byte. A text holding a byte outside
// printable ASCII, tab, newline, carriage return and form feed is only the
// same as an equal text: past ASCII, sqljudge's tokens and SQLite's may
// part (SQLite takes every byte above 0x7f into an identifier, and a
// vertical tab is no whitespace to it).
//
// Same statement, same database, same result: ex and ts use it to skip a
// prediction that is the gold query written differently. It is lexical
// only: queries that differ in any other way (an alias, a redundant
// parenthesis) are not the same.
func SameQuery(a, b string) bool {
	if a == b {
		return true
	}
	if !plainASCII(a) || !plainASCII(b) {
		return false
	}
	i, j := skipGap(a, 0), skipGap(b, 0)
	for i < len(a) && j < len(b) {
		ea, ka := scan(a, i)
		eb, kb := scan(b, j)
		if ka != kb || !sameToken(a[i:ea], b[j:eb], ka) {
			return false
		}
		gi, gj := skipGap(a, ea), skipGap(b, eb)
		if (gi > ea) != (gj > eb) && gi < len(a) && gj < len(b) {
			return false // a separator between two tokens in one text only
		}
		i, j = gi, gj
	}
	return i == len(a) && j == len(b)
}

// skipGap returns the offset of the first token of s at or after i that is
// neither whitespace nor a comment.
func skipGap(s string, i int) int {
	for i < len(s) {
		j, k := scan(s, i)
		if k != Space && k != Comment {
			return i
		}
		i = j
	}
	return i
}

// sameToken reports whether tokens x and y of kind k are the same to
// SQLite: Words equal up to ASCII case, any other kind equal bytes.
func sameToken(x, y string, k Kind) bool {
	if k != Word {
		return x == y
	}
	return EqualFoldASCII(x, y)
}

// EqualFoldASCII reports whether x and y are equal up to the case of ASCII
// letters, as SQLite compares keywords and names (sqlite3StrICmp): É and é
// differ, and so do the Kelvin sign and K (strings.EqualFold folds both).
func EqualFoldASCII(x, y string) bool {
	if len(x) != len(y) {
		return false
	}
	for n := 0; n < len(x); n++ {
		if lowerASCII(x[n]) != lowerASCII(y[n]) {
			return false
		}
	}
	return true
}

func lowerASCII(c byte) byte {
	if c >= 'A' && c <= 'Z' {
		return c + 'a' - 'A'
	}
	return c
}

// plainASCII reports whether every byte of s is printable ASCII, a tab, a
// newline, a carriage return or a form feed.
func plainASCII(s string) bool {
	for n := 0; n < len(s); n++ {
		c := s[n]
		if c >= 0x7f || c < ' ' && c != '\t' && c != '\n' && c != '\r' && c != '\f' {
			return false
		}
	}
	return true
}
