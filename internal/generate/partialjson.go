package generate

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
)

// parseJSONStripped is langchain's _parse_json: the text stripped of
// spaces, newlines, tabs and backquotes at both ends, then
// parsePartialJSON. (Its _custom_parser escapes the value of an
// "action_input" key, which no CHESS reply has; it is left out.)
func parseJSONStripped(s string) (any, error) {
	return parsePartialJSON(strings.Trim(s, " \n\r\t`"))
}

// parsePartialJSON is langchain's parse_partial_json (langchain_core/
// utils/json.py, adapted there from open-interpreter): s as JSON (Python's
// json.loads with strict=False, pyJSONLoads); failing that, s walked code
// point by code point, a raw newline inside a string escaped, a closing
// bracket that matches no open one returning nil (Python's None), an
// unterminated string closed (a trailing lone backslash dropped), then the
// longest prefix that parses once the brackets still open are closed in
// order. If no prefix parses, the error of s itself.
func parsePartialJSON(s string) (any, error) {
	if v, err := pyJSONLoads(s); err == nil {
		return v, nil
	}
	var chars []string
	var stack []string
	inString, escaped := false, false
	for _, r := range s {
		c := string(r)
		switch {
		case inString:
			switch {
			case r == '"' && !escaped:
				inString = false
			case r == '\n' && !escaped:
				c = `\n`
			case r == '\\':
				escaped = !escaped
			default:
				escaped = false
			}
		case r == '"':
			inString, escaped = true, false
		case r == '{':
			stack = append(stack, "}")
		case r == '[':
			stack = append(stack, "]")
		case r == '}' || r == ']':
			if len(stack) == 0 || stack[len(stack)-1] != c {
				return nil, nil
			}
			stack = stack[:len(stack)-1]
		}
		chars = append(chars, c)
	}
	if inString {
		if escaped {
			chars = chars[:len(chars)-1]
		}
		chars = append(chars, `"`)
	}
	var closing strings.Builder
	for i := len(stack) - 1; i >= 0; i-- {
		closing.WriteString(stack[i])
	}
	for len(chars) > 0 {
		if v, err := pyJSONLoads(strings.Join(chars, "") + closing.String()); err == nil {
			return v, nil
		}
		chars = chars[:len(chars)-1]
	}
	return pyJSONLoads(s)
}

// errJSON is a text pyJSONLoads cannot read.
var errJSON = errors.New("JSON decode error")

// pyJSONLoads reads s as Python's json.loads(s, strict=False) does: raw
// control characters are allowed inside strings (they are escaped before
// Go's decoder sees them). Numbers are kept as json.Number. NaN and
// Infinity, which Python also reads, are refused.
func pyJSONLoads(s string) (any, error) {
	var b strings.Builder
	inString, escaped := false, false
	for _, r := range s {
		switch {
		case inString && escaped:
			escaped = false
		case inString && r == '\\':
			escaped = true
		case inString && r == '"':
			inString = false
		case inString && r < 0x20:
			fmt.Fprintf(&b, `\u%04x`, r)
			continue
		case !inString && r == '"':
			inString = true
		}
		b.WriteRune(r)
	}
	dec := json.NewDecoder(strings.NewReader(b.String()))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, fmt.Errorf("%w: %v", errJSON, err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, fmt.Errorf("%w: extra data after the JSON value", errJSON)
	}
	return v, nil
}
