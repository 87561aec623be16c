package generate

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
)

// errParse is wrapped by every reply a parser cannot read; the official
// call_llm_chain (src/llm/models.py) asks again on an
// OutputParserException, and so does the pipeline (Options.ParseAttempts).
var errParse = errors.New("unparseable reply")

func parseErrorf(format string, args ...any) error {
	return fmt.Errorf("%w: %s", errParse, fmt.Sprintf(format, args...))
}

// between returns the text between the first open and the following close
// marker, and whether both were found.
func between(s, open, close string) (string, bool) {
	i := strings.Index(s, open)
	if i < 0 {
		return "", false
	}
	rest := s[i+len(open):]
	j := strings.Index(rest, close)
	if j < 0 {
		return "", false
	}
	return rest[:j], true
}

// ParseKeywords reads extract_keywords' reply as the official
// PythonListOutputParser does: the text inside a ```python fence when there
// is one, else the whole reply, read as a Python list of strings. Where the
// official parser calls eval, this reads a list literal only, and it is
// tolerant of other fences and of text around the list (the outermost
// brackets are taken).
func ParseKeywords(reply string) ([]string, error) {
	s := reply
	if in, ok := between(s, "```python", "```"); ok {
		s = in
	} else if strings.Contains(s, "```python") {
		s = strings.SplitN(s, "```python", 2)[1]
	}
	return parsePyList(s)
}

// parsePyList reads the first Python list literal of s: its string items
// (single, double or triple quoted, with backslash escapes) and its bare
// items (numbers, names) as text.
func parsePyList(s string) ([]string, error) {
	start := strings.IndexByte(s, '[')
	if start < 0 {
		return nil, parseErrorf("no Python list in the reply")
	}
	var out []string
	i := start + 1
	for i < len(s) {
		c := s[i]
		switch {
		case c == ']':
			return out, nil
		case c == ',' || c == ' ' || c == '\n' || c == '\t' || c == '\r':
			i++
		case c == '\'' || c == '"':
			str, n, err := pyString(s[i:])
			if err != nil {
				return nil, err
			}
			out = append(out, str)
			i += n
		default:
			j := i
			for j < len(s) && s[j] != ',' && s[j] != ']' {
				j++
			}
			if item := strings.TrimSpace(s[i:j]); item != "" {
				out = append(out, item)
			}
			i = j
		}
	}
	return nil, parseErrorf("the Python list is not closed")
}

// pyString reads one Python string literal at the start of s and returns
// its value and length.
func pyString(s string) (string, int, error) {
	q := s[:1]
	if strings.HasPrefix(s, q+q+q) {
		q = q + q + q
	}
	var b strings.Builder
	for i := len(q); i < len(s); i++ {
		if strings.HasPrefix(s[i:], q) {
			return b.String(), i + len(q), nil
		}
		c := s[i]
		if c == '\\' && i+1 < len(s) {
			i++
			switch s[i] {
			case 'n':
				b.WriteByte('\n')
			case 't':
				b.WriteByte('\t')
			default:
				b.WriteByte(s[i])
			}
			continue
		}
		b.WriteByte(c)
	}
	return "", 0, parseErrorf("unterminated string in the Python list")
}

// ParseCandidate reads a generate_candidate reply as the official
// GenerateCandidateGeminiMarkDownParserCOT does: with both
// <FINAL_ANSWER> tags the plan is the text before the first and the query
// the text between them, else the query is the whole reply; then "```sql"
// and "```" are removed and newlines become spaces. Like the official
// parser it never fails; the SQL is trimmed of surrounding spaces.
func ParseCandidate(reply string) (sql, plan string) {
	out := reply
	if strings.Contains(out, "<FINAL_ANSWER>") && strings.Contains(out, "</FINAL_ANSWER>") {
		parts := strings.SplitN(out, "<FINAL_ANSWER>", 2)
		plan = parts[0]
		out = strings.SplitN(parts[1], "</FINAL_ANSWER>", 2)[0]
	}
	return cleanSQL(out), plan
}

// ParseRevision reads a revise reply as the official ReviseGeminiOutputParser
// ("revise_new") does: the text between the <FINAL_ANSWER> tags, or after an
// opening tag without a closing one, else the whole reply, with "```sql",
// "```" and newlines removed as in ParseCandidate.
func ParseRevision(reply string) string {
	out := reply
	if strings.Contains(out, "<FINAL_ANSWER>") && strings.Contains(out, "</FINAL_ANSWER>") {
		out = strings.SplitN(strings.SplitN(out, "<FINAL_ANSWER>", 2)[1], "</FINAL_ANSWER>", 2)[0]
	}
	if strings.Contains(out, "<FINAL_ANSWER>") {
		out = strings.SplitN(out, "<FINAL_ANSWER>", 2)[1]
	}
	return cleanSQL(out)
}

func cleanSQL(s string) string {
	s = strings.ReplaceAll(s, "```sql", "")
	s = strings.ReplaceAll(s, "```", "")
	s = strings.ReplaceAll(s, "\n", " ")
	return strings.TrimSpace(s)
}

// ParseUnitTests reads a generate_unit_test reply as the official
// TestCaseGenerationOutput does: the text inside <Answer>...</Answer>
// (required) read as a Python list of strings.
func ParseUnitTests(reply string) ([]string, error) {
	in, ok := between(reply, "<Answer>", "</Answer>")
	if !ok {
		return nil, parseErrorf("no <Answer>...</Answer> in the unit-test reply")
	}
	return parsePyList(in)
}

// ParseEvaluation reads an evaluate reply as the official
// UnitTestEvaluationOutput does: inside <Answer>...</Answer> (required),
// every line with a colon is one verdict, 1 when the text after the colon
// contains "passed" (any case), else 0. A line with more than one colon is
// an error there (a Python unpacking error) and here.
func ParseEvaluation(reply string) ([]int, error) {
	in, ok := between(reply, "<Answer>", "</Answer>")
	if !ok {
		return nil, parseErrorf("no <Answer>...</Answer> in the evaluation reply")
	}
	var scores []int
	for _, line := range strings.Split(strings.TrimSpace(in), "\n") {
		if !strings.Contains(line, ":") {
			continue
		}
		parts := strings.Split(line, ":")
		if len(parts) != 2 {
			return nil, parseErrorf("evaluation line %q: want 'Candidate Response #n: [Passed]' or '[Failed]'", line)
		}
		if strings.Contains(strings.ToLower(parts[1]), "passed") {
			scores = append(scores, 1)
		} else {
			scores = append(scores, 0)
		}
	}
	return scores, nil
}

// ParseJSONObject reads a schema-selector reply as langchain's
// JsonOutputParser (parse_json_markdown) does: the content of a ```json
// fence when there is one, else the reply, from its first "{" to its last
// "}", decoded as JSON.
func ParseJSONObject(reply string) (map[string]json.RawMessage, error) {
	s := reply
	if in, ok := between(s, "```json", "```"); ok {
		s = in
	} else if in, ok := between(s, "```", "```"); ok {
		s = in
	}
	i, j := strings.IndexByte(s, '{'), strings.LastIndexByte(s, '}')
	if i < 0 || j < i {
		return nil, parseErrorf("no JSON object in the reply")
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal([]byte(s[i:j+1]), &m); err != nil {
		return nil, parseErrorf("JSON object: %v", err)
	}
	return m, nil
}

// ParseDirect extracts the SQL of a --method direct reply: the first
// ```sql fenced block, else the first ``` fenced block, else the whole
// reply; trimmed, with a trailing semicolon removed and line breaks made
// spaces (predictions.sql holds one query per line).
func ParseDirect(reply string) string {
	s := reply
	if in, ok := between(s, "```sql", "```"); ok {
		s = in
	} else if in, ok := between(s, "```", "```"); ok {
		s = in
	}
	s = strings.TrimSpace(s)
	s = strings.TrimSpace(strings.TrimSuffix(s, ";"))
	return oneLine.Replace(s)
}

// oneLine makes line breaks spaces, for predictions.sql's one query per
// line.
var oneLine = strings.NewReplacer("\r\n", " ", "\n", " ", "\r", " ")
