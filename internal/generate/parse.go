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

// errOfficialFail marks a reply on which the official code fails the step
// outright, with no new request: an exception other than
// OutputParserException (the keywords' eval raising SyntaxError or
// NameError), or a parser result the tool cannot use (None from
// parse_partial_json on a mismatched bracket, a JSON array where an object
// is read). Such errors also wrap errParse: the pipeline asks again, which
// the official code does not; the ledger marks the call (Call.OfficialFail)
// and the summary counts it.
var errOfficialFail = errors.New("the official code fails the step here")

func officialFailf(format string, args ...any) error {
	return fmt.Errorf("%w: %w: %s", errParse, errOfficialFail, fmt.Sprintf(format, args...))
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

// pySplitBetween is Python's s.split(open)[1].split(close)[0], guarded as
// the official parsers guard it (both markers anywhere in s): the text
// after the first open marker up to the next open marker, cut at its
// first close marker.
func pySplitBetween(s, open, close string) (string, bool) {
	if !strings.Contains(s, open) || !strings.Contains(s, close) {
		return "", false
	}
	seg := strings.SplitN(s, open, 3)[1]
	return strings.SplitN(seg, close, 2)[0], true
}

// ParseKeywords reads extract_keywords' reply as the official
// PythonListOutputParser does: the text between the first "```python" and
// the next "```" when there is one, its leading whitespace removed, then
// eval'd, here read by parsePyLiteral (Python literals only). A list or a
// tuple of strings, numbers, booleans and None is accepted, its items as
// Python's str() renders them. What eval refuses (text around the list,
// another fence, bare names) fails the step officially (a SyntaxError or
// NameError is not an OutputParserException): the error wraps
// errOfficialFail. A string or a nested list, which eval accepts and the
// official retrieval then iterates or cannot use, is refused here the same
// way.
func ParseKeywords(reply string) ([]string, error) {
	s := reply
	if strings.Contains(s, "```python") {
		s = strings.SplitN(strings.SplitN(s, "```python", 3)[1], "```", 2)[0]
	}
	s = strings.TrimLeft(s, " \t\n\r\f\v")
	v, err := parsePyLiteral(s)
	if err != nil {
		return nil, officialFailf("keywords: %v", err)
	}
	out, err := pyStrings(v)
	if err != nil {
		return nil, officialFailf("keywords: %v", err)
	}
	return out, nil
}

// pyStrings returns the items of a Python list or tuple of scalars as
// Python's str() renders them.
func pyStrings(v any) ([]string, error) {
	var items []any
	switch x := v.(type) {
	case []any:
		items = x
	case pyTup:
		items = x
	default:
		return nil, fmt.Errorf("not a list but %T", v)
	}
	out := make([]string, 0, len(items))
	for _, it := range items {
		s, ok := pyStr(it)
		if !ok {
			return nil, fmt.Errorf("item %v is not a string or a number", it)
		}
		out = append(out, s)
	}
	return out, nil
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
// (both required; pySplitBetween) read by ast.literal_eval, here
// parsePyLiteral; either failing is an OutputParserException officially,
// so a new request (errParse). A result that is not a list or tuple of
// strings wraps errOfficialFail.
func ParseUnitTests(reply string) ([]string, error) {
	in, ok := pySplitBetween(reply, "<Answer>", "</Answer>")
	if !ok {
		return nil, parseErrorf("no <Answer>...</Answer> in the unit-test reply")
	}
	v, err := parsePyLiteral(in)
	if err != nil {
		return nil, parseErrorf("unit tests: %v", err)
	}
	out, err := pyStrings(v)
	if err != nil {
		return nil, officialFailf("unit tests: %v", err)
	}
	return out, nil
}

// ParseEvaluation reads an evaluate reply as the official
// UnitTestEvaluationOutput does: inside <Answer>...</Answer> (both
// required; pySplitBetween), stripped, every line with a colon is one
// verdict, 1 when the text after the colon contains "passed" (any case),
// else 0. A line with more than one colon is an error there (a Python
// unpacking error turned into an OutputParserException) and here.
func ParseEvaluation(reply string) ([]int, error) {
	in, ok := pySplitBetween(reply, "<Answer>", "</Answer>")
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
// JsonOutputParser does (parse_result: the reply stripped, then
// parse_json_markdown, langchain_core/utils/json.py): the reply, stripped
// of spaces, newlines and backquotes, read by parse_partial_json
// (parsePartialJSON); if that fails, the text after the first "```" (and
// an optional "json") read the same way. A decoding failure is an
// OutputParserException officially (errParse); a None result (a
// mismatched bracket) or a value that is not an object makes the official
// tool fail (errOfficialFail).
func ParseJSONObject(reply string) (map[string]json.RawMessage, error) {
	text := strings.TrimSpace(reply)
	v, err := parseJSONStripped(text)
	if err != nil {
		after := text
		if _, rest, ok := strings.Cut(text, "```"); ok {
			after = strings.TrimPrefix(rest, "json")
		}
		v, err = parseJSONStripped(after)
	}
	if err != nil {
		return nil, parseErrorf("invalid JSON output: %v", err)
	}
	obj, ok := v.(map[string]any)
	if !ok {
		return nil, officialFailf("the JSON reply is %s, not an object", jsonKind(v))
	}
	m := make(map[string]json.RawMessage, len(obj))
	for k, x := range obj {
		b, err := json.Marshal(x)
		if err != nil {
			return nil, parseErrorf("JSON object: %v", err)
		}
		m[k] = b
	}
	return m, nil
}

func jsonKind(v any) string {
	switch v.(type) {
	case nil:
		return "None (a mismatched bracket)"
	case []any:
		return "an array"
	}
	return fmt.Sprintf("a %T", v)
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
