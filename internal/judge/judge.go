// Package judge holds sqljudge's LLM judges: Snowflake's Execution Score,
// ROSE's prover/refuter cascade and FLEX's strict/loose review. Each
// prompt is an embedded, versioned template; its hash goes into every
// verdict. ROSE's two prompts are its own, word for word, with their
// source noted in the template files (prompts/rose_*.v2.tmpl, from
// CedricPei/ROSE prompts/prompt_prover.py and prompt_refuter.py; leading
// and trailing white space of each message trimmed); the Execution Score
// and FLEX prompts are written for sqljudge after the published structure.
//
// A judge takes what the metric layer computed (results, the schema) and
// returns an Outcome; it never panics and never fails the run: a model
// that cannot be reached is status judge_error, a reply that holds no
// usable JSON after ParseRetries corrected requests is judge_unparseable, and
// both are recorded with the keys of the raw replies.
//
// Sampling: with Samples = k the whole judgement (for ROSE, the whole
// cascade) is drawn k times, sample s with llm.Request.Sample = s (its own
// cache entry and seed). Each sample votes (a boolean, or Execution
// Score's 0-3 score); the verdict is the most frequent vote, a tie going
// to the lower vote (incorrect, or the lower score), and the record keeps
// every vote and the agreement rate (the share of samples that voted with
// the majority). Snowflake found a quarter of items disagreeing across
// five runs at temperature 0: one sample is not a stable measurement.
package judge

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/sqljudge/sqljudge/internal/llm"
	"github.com/sqljudge/sqljudge/internal/result"
	"github.com/sqljudge/sqljudge/internal/status"
)

// Defaults of a Judge's settings: the defaults of `sqljudge eval`'s
// --samples, --llm-parse-retries and --xscore-min, and what New sets.
const (
	// DefaultSamples: one judgement per item.
	DefaultSamples = 1
	// DefaultParseRetries: a step whose reply cannot be parsed is asked
	// twice more.
	DefaultParseRetries = 2
	// DefaultXScoreMin: an Execution Score of 2 ("answers the question,
	// perhaps with a harmless flaw") or more is correct.
	DefaultXScoreMin = 2
)

// Judge runs LLM judgements through one client. Every setting means what
// it says (no zero stands for a default): build it with New for the
// defaults, then change what differs.
type Judge struct {
	// Client makes the requests.
	Client *llm.Client
	// Samples is the number of judgements per item, at least 1 (a judge
	// with fewer gives every item judge_error).
	Samples int
	// ParseRetries is how many times a step whose reply cannot be parsed
	// is asked again (as llm.Request.Attempt 1, 2, ...); 0 asks once.
	ParseRetries int
	// XScoreMin is the least Execution Score (0-3) counted correct.
	XScoreMin int
}

// New returns a judge over c with the default settings (DefaultSamples,
// DefaultParseRetries, DefaultXScoreMin).
func New(c *llm.Client) *Judge {
	return &Judge{Client: c, Samples: DefaultSamples, ParseRetries: DefaultParseRetries, XScoreMin: DefaultXScoreMin}
}

// Input is one item as a judge sees it.
type Input struct {
	// Question and Evidence come from the benchmark.
	Question, Evidence string
	// Schema is the database's DDL (SchemaDDL).
	Schema string
	// Pred and Gold are the predicted and gold SQL.
	Pred, Gold string
	// PredResult and GoldResult are their results (ROSE, FLEX).
	PredResult, GoldResult *result.Set
	// DBInfo is the database as ROSE shows it (LoadDBInfo); ROSE renders
	// it for the SQL of each prompt. When nil, ROSE shows Schema instead.
	DBInfo *DBInfo
}

// Outcome is a judge's verdict on one item; the metric layer turns it into
// a metric.Verdict.
type Outcome struct {
	Correct bool
	// Status is status.OK (at least one sample was judged),
	// status.JudgeUnparseable or status.JudgeError.
	Status status.Status
	// Detail says why a judgement failed.
	Detail string
	// Details go into the record: Calls and Run, set by every judge that
	// drew samples, and the judge's own fields (documented on each
	// judge). nil when no sample could be drawn (Samples < 1).
	Details *Details
}

var (
	errUnparseable = errors.New("unparseable reply")
)

// trace accumulates what one item's calls cost.
type trace struct {
	calls       int
	ptok, ctok  int64
	replies     []string
	templates   []string
	retries     int
	parseErrors []string
}

// retryID names the correction sent after an unparseable reply; a changed
// wording is a new version. Its hash goes into "templates" like a prompt's.
const retryID = "parse_retry.v1"

// retryText is the correction: %s is what was wrong, %s the keys asked for.
const retryText = "Your reply above could not be used: %s. Answer again with only one JSON object, no other text, with the keys %s in this order."

var retryRef = retryID + "@" + shortHash([]byte(retryText))

// retryMessages is the conversation of a parse retry: the prompt, the
// reply that could not be used, and the correction.
func retryMessages(base []llm.Message, bad string, err error, keys []string) []llm.Message {
	q := make([]string, len(keys))
	for i, k := range keys {
		q[i] = strconv.Quote(k)
	}
	why := err.Error()
	if len(why) > 300 {
		why = why[:300] + "..."
	}
	return append(slices.Clip(base),
		llm.Message{Role: "assistant", Content: bad},
		llm.Message{Role: "user", Content: fmt.Sprintf(retryText, why, strings.Join(q, ", "))})
}

func (j *Judge) parseRetries() int { return max(j.ParseRetries, 0) }

// ask renders t, sends it as sample s, and returns the reply's JSON object
// once check accepts it. A reply that fails extraction or check is asked
// again with the next Attempt, up to parseRetries times, and never as the
// same request: the retry carries the unusable reply as the assistant's
// turn and a correction (retryText) saying what was wrong and which keys
// are wanted, so a deterministic server (temperature 0, fixed seed) does
// not repeat itself. Each failed attempt is recorded in tr. After the last
// one the error wraps errUnparseable. A transport failure is returned as
// is.
func (j *Judge) ask(ctx context.Context, tr *trace, t *Template, d PromptData, schema *llm.Schema, s int, check func(map[string]any) error) (map[string]any, error) {
	msgs, err := t.Messages(d)
	if err != nil {
		return nil, err
	}
	if !slices.Contains(tr.templates, t.Ref()) {
		tr.templates = append(tr.templates, t.Ref())
	}
	var last error
	send := msgs
	for attempt := 0; attempt <= j.parseRetries(); attempt++ {
		if attempt > 0 {
			tr.retries++
			if !slices.Contains(tr.templates, retryRef) {
				tr.templates = append(tr.templates, retryRef)
			}
		}
		rep, err := j.Client.Chat(ctx, llm.Request{Messages: send, Schema: schema, Sample: s, Attempt: attempt})
		if err != nil {
			return nil, err
		}
		tr.calls++
		tr.ptok += rep.PromptTokens
		tr.ctok += rep.CompletionTokens
		tr.replies = append(tr.replies, rep.Key)
		m, err := llm.ExtractObject(rep.Content, schemaRequired(schema)...)
		if err == nil {
			err = check(m)
		}
		if err == nil {
			return m, nil
		}
		last = err
		tr.parseErrors = append(tr.parseErrors, fmt.Sprintf("%s sample %d attempt %d: %v", t.ID, s, attempt, err))
		send = retryMessages(msgs, rep.Content, err, schemaRequired(schema))
	}
	return nil, fmt.Errorf("%w from %s after %d attempts: %v", errUnparseable, t.ID, j.parseRetries()+1, last)
}

func schemaRequired(s *llm.Schema) []string {
	if s == nil {
		return nil
	}
	req, _ := s.Schema["required"].([]string)
	return req
}

// sample is one judgement: its vote, whether that vote means correct, and
// its own fields.
type sample struct {
	vote    int
	correct bool
	fields  Vote
	err     error
}

// run draws the samples of one item and aggregates them.
func (j *Judge) run(ctx context.Context, one func(ctx context.Context, tr *trace, s int) sample) Outcome {
	k := j.Samples
	if k < 1 {
		return Outcome{Status: status.JudgeError, Detail: fmt.Sprintf("the judge draws %d samples: at least 1 is needed", k)}
	}
	tr := &trace{}
	samples := make([]sample, k)
	for s := range k {
		samples[s] = one(ctx, tr, s)
	}
	votes := make([]*int, k)
	counts := map[int]int{}
	judged := 0
	var lastErr error
	unparseable := false
	for s, sm := range samples {
		if sm.err != nil {
			lastErr = sm.err
			if errors.Is(sm.err, errUnparseable) {
				unparseable = true
			}
			continue
		}
		votes[s] = ptr(sm.vote)
		counts[sm.vote]++
		judged++
	}
	r := &Run{
		Samples: k, Votes: votes,
		PromptTokens: tr.ptok, CompletionTokens: tr.ctok,
		Replies: nonNil(tr.replies), Templates: nonNil(tr.templates),
		ParseRetries: tr.retries, ParseErrors: tr.parseErrors,
	}
	o := Outcome{Status: status.OK, Details: &Details{Calls: tr.calls, Run: r}}
	if judged == 0 {
		o.Status = status.JudgeError
		if unparseable {
			o.Status = status.JudgeUnparseable
		}
		if lastErr != nil {
			o.Detail = lastErr.Error()
		}
		return o
	}
	if judged < k {
		r.FailedSamples = k - judged
		o.Detail = fmt.Sprintf("%d of %d samples failed: %v", k-judged, k, lastErr)
	}
	best, bestN := 0, -1
	for _, v := range slices.Sorted(func(yield func(int) bool) {
		for v := range counts {
			if !yield(v) {
				return
			}
		}
	}) {
		if counts[v] > bestN { // ascending order: a tie keeps the lower vote
			best, bestN = v, counts[v]
		}
	}
	r.Agreement = float64(bestN) / float64(judged)
	for _, sm := range samples {
		if sm.err == nil && sm.vote == best {
			o.Correct = sm.correct
			o.Details.Vote = sm.fields
			break
		}
	}
	return o
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

// boolVote is the vote of a boolean judgement.
func boolVote(correct bool) int {
	if correct {
		return 1
	}
	return 0
}

// requireBool checks that m[key] reads as a boolean.
func requireBool(key string) func(map[string]any) error {
	return func(m map[string]any) error {
		if _, ok := llm.Bool(m, key); !ok {
			return fmt.Errorf("%q is not a boolean: %v", key, m[key])
		}
		return nil
	}
}

// objectSchema builds a strict JSON schema of string and boolean/integer
// properties, all required, in the given order: properties go out as an
// llm.Ordered object, so the reasoning a prompt asks for first precedes
// the verdict on the wire too.
func objectSchema(name string, props ...[2]string) *llm.Schema {
	p := make(llm.Ordered, 0, len(props))
	req := make([]string, 0, len(props))
	for _, kv := range props {
		var v any
		switch kv[1] {
		case "score":
			v = map[string]any{"type": "integer", "enum": []int{0, 1, 2, 3}}
		default:
			v = map[string]any{"type": kv[1]}
		}
		p = append(p, llm.Member{Key: kv[0], Value: v})
		req = append(req, kv[0])
	}
	return &llm.Schema{Name: name, Schema: map[string]any{
		"type": "object", "properties": p, "required": req, "additionalProperties": false,
	}}
}
