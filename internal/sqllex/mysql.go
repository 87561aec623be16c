package sqllex

import "strings"

// MySQLMode is how a MySQL or MariaDB session reads quotes, which its
// sql_mode decides: with NoBackslashEscapes (NO_BACKSLASH_ESCAPES) a
// backslash in a string is an ordinary character, and with ANSIQuotes
// (ANSI_QUOTES) "…" is an identifier (without backslash escapes) rather
// than a string. Nothing else of the sql_mode changes where a string, a
// quoted identifier or a comment ends.
type MySQLMode struct {
	NoBackslashEscapes bool
	ANSIQuotes         bool
}

// MySQLModes lists the readings of q that can differ: the four modes when
// q holds a backslash or a double quote, else the default one only (the
// others read q the same way).
func MySQLModes(q string) []MySQLMode {
	if !strings.ContainsAny(q, "\\\"") {
		return []MySQLMode{{}}
	}
	return []MySQLMode{{}, {NoBackslashEscapes: true}, {ANSIQuotes: true}, {NoBackslashEscapes: true, ANSIQuotes: true}}
}

// NextMySQL returns the token of q that starts at byte offset i (0 <= i <
// len(q)) as MySQL and MariaDB read it under mode m, and the offset just
// past it. It follows the servers' lexer (MariaDB's sql_lex.cc, for a
// client character set whose multi-byte characters hold no ASCII byte:
// utf8mb4, utf8, latin1 and the like), not SQLite's:
//
//   - '…' is a string (so is "…" unless m.ANSIQuotes), where a doubled
//     quote and, unless m.NoBackslashEscapes, a backslash followed by any
//     byte are escapes; `…` (and "…" under m.ANSIQuotes) is an identifier
//     where only a doubled quote escapes; [ is an ordinary character;
//   - # starts a comment to the end of the line, and so does -- when the
//     byte after it is a space or a control character (0x00-0x20, 0x7f) or
//     the text ends there ("1--1" is 1 - -1);
//   - /* starts a comment to the first */ (comments do not nest);
//     MySQLCodeComment tells those the servers run as code;
//   - an unterminated string, identifier or comment runs to the end (the
//     server then refuses the statement).
//
// Bytes from 0x80 up are word bytes, as in the servers' identifiers.
func NextMySQL(q string, i int, m MySQLMode) (Token, int) {
	j, k := scanMySQL(q, i, m)
	return Token{k, q[i:j]}, j
}

// TokenizeMySQL splits q into tokens as NextMySQL reads them under mode m;
// their texts concatenated give q back.
func TokenizeMySQL(q string, m MySQLMode) []Token {
	var toks []Token
	for i := 0; i < len(q); {
		t, j := NextMySQL(q, i, m)
		toks = append(toks, t)
		i = j
	}
	return toks
}

// MySQLCodeComment reports whether comment, a Comment token of NextMySQL,
// is one the servers run rather than skip: /*! … */ (optionally with a
// version number; MySQL and MariaDB run its inside as part of the
// statement), /*M! … */ (MariaDB's), or /*+ … */ (MySQL's optimizer hints,
// which set session variables and time limits for the statement). The M
// is matched in either case.
func MySQLCodeComment(comment string) bool {
	rest, ok := strings.CutPrefix(comment, "/*")
	if !ok {
		return false
	}
	if strings.HasPrefix(rest, "M") || strings.HasPrefix(rest, "m") {
		rest = rest[1:]
	}
	return strings.HasPrefix(rest, "!") || strings.HasPrefix(comment, "/*+")
}

// scanMySQL returns the end of the token of q starting at i under mode m,
// and its kind.
func scanMySQL(q string, i int, m MySQLMode) (int, Kind) {
	c := q[i]
	switch {
	case isSpace(c):
		return spaceEnd(q, i), Space
	case c == '#' || c == '-' && i+1 < len(q) && q[i+1] == '-' && (i+2 == len(q) || q[i+2] <= ' ' || q[i+2] == 0x7f):
		return lineEnd(q, i), Comment
	case c == '/' && i+1 < len(q) && q[i+1] == '*':
		return blockCommentEnd(q, i), Comment
	case c == '\'' || c == '"' && !m.ANSIQuotes:
		return mysqlString(q, i, !m.NoBackslashEscapes), String
	case c == '`' || c == '"':
		return QuotedEnd(q, i, c), Quoted
	case c >= '0' && c <= '9':
		j := i + 1
		for j < len(q) && isMySQLWordByte(q[j]) {
			j++
		}
		return j, Number
	case isMySQLWordByte(c):
		j := i + 1
		for j < len(q) && isMySQLWordByte(q[j]) {
			j++
		}
		return j, Word
	}
	return i + 1, Punct
}

// isMySQLWordByte reports whether c may be part of an unquoted identifier
// (or a number, which may run into one: 1e3, 2abc).
func isMySQLWordByte(c byte) bool {
	return c == '_' || c == '$' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || isDigit(c) || c >= 0x80
}

// mysqlString returns the end of the string starting with the quote at
// i: a doubled quote escapes it, and with backslash a backslash escapes
// the byte after it.
func mysqlString(q string, i int, backslash bool) int {
	quote := q[i]
	for j := i + 1; j < len(q); j++ {
		switch q[j] {
		case '\\':
			if backslash {
				j++
			}
		case quote:
			if j+1 < len(q) && q[j+1] == quote {
				j++
				continue
			}
			return j + 1
		}
	}
	return len(q)
}
