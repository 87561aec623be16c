package llmtest

import (
	"encoding/json"
	"fmt"
	"strings"
)

// Question returns the question of a judge prompt: the line after
// "## Question" in the user message of every template of
// internal/judge/prompts, or "" when there is none.
func Question(user string) string {
	_, rest, ok := strings.Cut(user, "## Question\n")
	if !ok {
		return ""
	}
	q, _, _ := strings.Cut(rest, "\n")
	return q
}

// JudgeKind names the judge prompt a request carries, read from its system
// message: "rose_prover", "rose_refuter", "xscore", "flex" (strict and
// loose), or "" for any other prompt.
func JudgeKind(r *Request) string {
	sys := r.System()
	switch {
	case strings.Contains(sys, "You are a **SQL Prover**"):
		return "rose_prover"
	case strings.Contains(sys, "You are a **SQL Refuter**"):
		return "rose_refuter"
	case strings.Contains(sys, "You review SQL"):
		return "xscore"
	case strings.Contains(sys, `"correct"`):
		return "flex"
	}
	return ""
}

// Judges returns a script that plays every LLM judge of internal/judge
// (xscore, the ROSE prover and refuter, FLEX) as a model whose opinion of
// a prediction is verdict(kind, question): kind is JudgeKind's name, the
// question is read from the prompt. Each reply is the JSON object the
// judge's template asks for: xscore scores 3 when verdict says correct and
// 1 otherwise, the prover votes verdict, the refuter overturns when verdict
// says wrong, FLEX answers "correct": verdict. A question verdict does not
// know (known false) gets a 400 reply, so a test notices a prompt it did
// not expect; so does a request that is no judge prompt.
func Judges(verdict func(kind, question string) (correct, known bool)) Script {
	return func(r *Request) Reply {
		kind := JudgeKind(r)
		q := Question(r.User())
		ok, known := verdict(kind, q)
		if kind == "" || !known {
			return Reply{Status: 400, Body: `{"error":{"message":"scripted judge: unknown prompt or question"}}`}
		}
		switch kind {
		case "rose_prover":
			qj, _ := json.Marshal("the answer to " + q)
			return Reply{Content: fmt.Sprintf(`{"expected_answer": %s, "sql_description": "it selects", "reason": "because", "verdict": %v, "evidence": "col 1"}`, qj, ok)}
		case "rose_refuter":
			return Reply{Content: fmt.Sprintf(`{"judgement": "compared", "verdict": %v, "ambiguity": "na", "gold_correct": true}`, !ok)}
		case "xscore":
			s := 1
			if ok {
				s = 3
			}
			return Reply{Content: fmt.Sprintf(`{"E": "Reviewed the query against the schema.", "S": %d}`, s)}
		default: // flex
			return Reply{Content: fmt.Sprintf(`{"analysis": "compared", "correct": %v}`, ok)}
		}
	}
}
