package llm

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
)

// ErrNoJSON is wrapped by ExtractObject's error when a reply holds no JSON
// object with the required keys.
var ErrNoJSON = errors.New("no JSON object in the reply")

// ExtractObject finds the JSON object a model meant as its answer in a
// reply that may wrap it in a code fence (```json ... ```) or in prose, and
// returns it decoded. Candidates are the whole reply, the body of every
// code fence, and every top-level balanced {...} span of the text (braces
// inside JSON strings are skipped); the last candidate in the text that
// decodes to an object holding every required key wins, since models
// explain first and answer last. The error wraps ErrNoJSON and quotes the
// start of the reply.
//
// This is the tolerant counterpart of ROSE's extract_json_from_response
// (evaluators/utils.py) and FLEX's split on "```json" (utils/judge/base.py).
func ExtractObject(reply string, required ...string) (map[string]any, error) {
	text := strings.TrimSpace(reply)
	var best map[string]any
	try := func(s string) {
		var m map[string]any
		if json.Unmarshal([]byte(strings.TrimSpace(s)), &m) != nil || m == nil {
			return
		}
		for _, k := range required {
			if _, ok := m[k]; !ok {
				return
			}
		}
		best = m
	}
	try(text)
	if best != nil {
		return best, nil
	}
	// Spans in text order: fences and braces are collected, then tried in
	// order of their start so that the last good one wins.
	type span struct {
		start int
		body  string
	}
	var spans []span
	for i := 0; ; {
		j := strings.Index(text[i:], "```")
		if j < 0 {
			break
		}
		open := i + j
		bodyStart := open + 3
		// Skip an info string (json, JSON, js, ...) up to the newline.
		if nl := strings.IndexByte(text[bodyStart:], '\n'); nl >= 0 && !strings.ContainsAny(text[bodyStart:bodyStart+nl], "{}") {
			bodyStart += nl + 1
		}
		k := strings.Index(text[bodyStart:], "```")
		if k < 0 {
			spans = append(spans, span{open, text[bodyStart:]}) // an unclosed fence
			break
		}
		spans = append(spans, span{open, text[bodyStart : bodyStart+k]})
		i = bodyStart + k + 3
	}
	for _, sp := range braceSpans(text) {
		spans = append(spans, span{sp[0], text[sp[0]:sp[1]]})
	}
	// Stable order by start; fences and brace spans interleave.
	for a := 1; a < len(spans); a++ {
		for b := a; b > 0 && spans[b].start < spans[b-1].start; b-- {
			spans[b], spans[b-1] = spans[b-1], spans[b]
		}
	}
	for _, sp := range spans {
		try(sp.body)
	}
	if best != nil {
		return best, nil
	}
	head := text
	if len(head) > 120 {
		head = head[:120] + "…"
	}
	if len(required) > 0 {
		return nil, fmt.Errorf("%w with keys %s: %q", ErrNoJSON, strings.Join(required, ", "), head)
	}
	return nil, fmt.Errorf("%w: %q", ErrNoJSON, head)
}

// braceSpans returns the [start, end) of every top-level balanced {...}
// span, skipping braces inside double-quoted strings.
func braceSpans(s string) [][2]int {
	var out [][2]int
	depth, start := 0, -1
	inStr, esc := false, false
	for i := 0; i < len(s); i++ {
		c := s[i]
		if inStr {
			switch {
			case esc:
				esc = false
			case c == '\\':
				esc = true
			case c == '"':
				inStr = false
			}
			continue
		}
		switch c {
		case '"':
			if depth > 0 {
				inStr = true
			}
		case '{':
			if depth == 0 {
				start = i
			}
			depth++
		case '}':
			if depth > 0 {
				depth--
				if depth == 0 {
					out = append(out, [2]int{start, i + 1})
				}
			}
		}
	}
	return out
}

// Bool reads a boolean field tolerantly: a JSON boolean, or the strings
// "true"/"false"/"yes"/"no" in any case, or the numbers 1 and 0.
func Bool(m map[string]any, key string) (bool, bool) {
	switch v := m[key].(type) {
	case bool:
		return v, true
	case string:
		switch strings.ToLower(strings.TrimSpace(v)) {
		case "true", "yes":
			return true, true
		case "false", "no":
			return false, true
		}
	case float64:
		if v == 1 {
			return true, true
		}
		if v == 0 {
			return false, true
		}
	}
	return false, false
}

// Int reads an integer field tolerantly: a JSON number with no fraction,
// or a string holding one.
func Int(m map[string]any, key string) (int, bool) {
	switch v := m[key].(type) {
	case float64:
		if v == float64(int(v)) {
			return int(v), true
		}
	case string:
		var n int
		if _, err := fmt.Sscanf(strings.TrimSpace(v), "%d", &n); err == nil && fmt.Sprint(n) == strings.TrimSpace(v) {
			return n, true
		}
	}
	return 0, false
}

// String reads a string field; other JSON values are rendered as JSON.
func String(m map[string]any, key string) string {
	switch v := m[key].(type) {
	case nil:
		return ""
	case string:
		return v
	default:
		b, _ := json.Marshal(v)
		return string(b)
	}
}
