package serve

import (
	"fmt"
	"regexp"
	"slices"
	"strings"
	"unicode/utf8"
)

// Verdict is the outcome of grading one item, the vocabulary of /v1/grade.
type Verdict string

// Verdicts. Correct and Wrong mean the predicted SQL executed (Wrong also
// when it returned more rows than --max-rows); Invalid means no SQL was
// found or it failed (syntax, unknown column, a write); Error is not the
// prediction's fault (an unknown db_id, a failing gold query, a bad label).
const (
	Correct Verdict = "correct"
	Wrong   Verdict = "wrong"
	Invalid Verdict = "invalid"
	Timeout Verdict = "timeout"
	Error   Verdict = "error"
)

// Executed reports whether the predicted SQL ran to a result (correct or
// wrong), as the presets' "executes" means it.
func (v Verdict) Executed() bool { return v == Correct || v == Wrong }

// Parsed is what a preset read from a completion.
type Parsed struct {
	// SQL is the query to grade ("" when none was found).
	SQL string
	// Think and Answer are the texts of the reasoning and answer elements
	// where the preset reads them (sql-r1's length reward).
	Think, Answer string
}

// Outcome is a graded item as a preset sees it.
type Outcome struct {
	Verdict Verdict
	Parsed  Parsed
	// FormatOK is false when the completion broke the preset's format (the
	// SQL was then not run and Verdict is Invalid).
	FormatOK bool
}

// Preset turns a graded completion into an RL reward.
type Preset struct {
	// Name is the preset's name in requests (preset, ?preset=).
	Name string
	// Formula says how the reward is computed; Source where it comes
	// from. `sqljudge serve --list-presets` prints both.
	Formula, Source string
	// Metric is the metric the preset grades with when neither the item
	// nor the request names one ("" means ex).
	Metric string
	// Format is true when the preset checks the completion's format: an
	// item must then send a completion, not a bare pred.
	Format bool
	// Extract reads the SQL from a completion; ok is false when the
	// completion breaks the preset's format.
	Extract func(completion string) (p Parsed, ok bool)
	// Reward is the reward of an outcome.
	Reward func(o Outcome) float64
}

// defaultExtract reads the SQL with ExtractSQL; the format is always ok.
func defaultExtract(c string) (Parsed, bool) { return Parsed{SQL: ExtractSQL(c)}, true }

var presets = []*Preset{
	{
		Name:    "binary",
		Formula: "1 if correct, else 0",
		Source:  "execution accuracy as a reward",
		Extract: defaultExtract,
		Reward:  func(o Outcome) float64 { return b2f(o.Verdict == Correct) },
	},
	{
		Name:    "arctic",
		Formula: "1 if the result matches the gold; 0.1 if the SQL executes but is wrong; 0 otherwise (invalid, timeout, error)",
		Source: "Yao et al., \"Arctic-Text2SQL-R1: Simple Rewards, Strong Reasoning in Text-to-SQL\" (arXiv 2505.20315), " +
			"execution-correctness reward with a small credit for valid SQL; the model card in snowflakedb/ArcticTraining " +
			"(projects/arctic_text2sql_r1/modelcard.md) says it \"uses only execution correctness and syntax validity as " +
			"rewards\". The constants 1 / 0.1 / 0 follow the issue's reading of the paper: its reward section could not be read " +
			"here and ArcticTraining publishes no reward code, so they are unverified. \"Valid\" is read as \"executes\". No format term.",
		Extract: defaultExtract,
		Reward: func(o Outcome) float64 {
			switch o.Verdict {
			case Correct:
				return 1
			case Wrong:
				return 0.1
			}
			return 0
		},
	},
	{
		Name: "skyrl-sql",
		Formula: "-1 unless the completion holds exactly one <solution>SQL</solution> with no think/sql/observation tag inside, " +
			"at least one <think>text</think>, and every </observation> before the solution followed by <think>; " +
			"else 1 if the solution's rows equal the gold's as sets (ex_bird by default), 0 otherwise",
		Source: "NovaSky-AI/SkyRL skyrl-gym/skyrl_gym/envs/sql/utils.py: verify_format_and_extract, calculate_reward_single " +
			"(frozenset of rows on both sides; a failing query or gold scores 0). Rewards equal calculate_reward_single's on " +
			"518 Spider dev completions (internal/serve/testdata).",
		Metric:  "ex_bird",
		Format:  true,
		Extract: skyrlExtract,
		Reward: func(o Outcome) float64 {
			switch {
			case !o.FormatOK:
				return -1
			case o.Verdict == Correct:
				return 1
			}
			return 0
		},
	},
	{
		Name: "sql-r1",
		Formula: "format + execution + result + length. Format: +1 if the response (after \"Assistant:\" or " +
			"\"<|im_start|>assistant\") has exactly one <think>, </think>, <answer>, </answer> in that order and a ```sql block " +
			"in the answer, else -1 and nothing more. Execution: -2 if the SQL fails or times out (result 0); +2 if it runs. " +
			"Result: +3 if correct, -3 if wrong; an item that could not be graded (verdict error: a failing gold, --max-item-time) " +
			"scores as a wrong answer (+2 -3). Length (correct only): 0.5*min(L,2048)/2048 + " +
			"len(sql)/len(answer), L = len(think)+len(answer) in characters, the SQL's whitespace collapsed",
		Source: "Ma et al., \"SQL-R1: Training Natural Language to SQL Reasoning Model By Reinforcement Learning\" (arXiv 2504.08600); " +
			"constants from IDEA-FinAI/SQL-R1 verl/utils/reward_score/synsql.py compute_score (FORMAT_REWARD 1, EXEC_REWARD 2, " +
			"RESULT_REWARD 3, LIMIT_LENGTH 2048, length reward v2: only on a match), which grades with exec_eval.eval_exec_match " +
			"(ex here). Rewards equal compute_score's on 346 Spider dev completions (internal/serve/testdata). Known differences: " +
			"its eval_exec_match answers Match when the gold fails (`pred_passes == 3` where `=` was meant), sqljudge scores " +
			"an item it could not grade as a wrong answer, never above one (its intended 0 + 0 would give 1, more than a wrong " +
			"answer's 0: a prediction that made the grader fail would gain by it); it also collapses whitespace in the gold (sqljudge runs the gold as given) and does not " +
			"replace the word value by 1 in the prediction (ex does, as evaluation.py).",
		Metric:  "ex",
		Format:  true,
		Extract: sqlr1Extract,
		Reward:  sqlr1Reward,
	},
}

// Presets returns the reward presets, sorted by name.
func Presets() []*Preset {
	out := slices.Clone(presets)
	slices.SortFunc(out, func(a, b *Preset) int { return strings.Compare(a.Name, b.Name) })
	return out
}

// PresetByName returns the named preset, or an error listing the known
// ones.
func PresetByName(name string) (*Preset, error) {
	for _, p := range presets {
		if p.Name == name {
			return p, nil
		}
	}
	var names []string
	for _, p := range Presets() {
		names = append(names, p.Name)
	}
	return nil, fmt.Errorf("unknown preset %q (known: %s)", name, strings.Join(names, ", "))
}

var (
	tagInSolution = regexp.MustCompile(`(?i)</?(think|sql|observation)\b`)
	thinkElem     = regexp.MustCompile(`(?s)<think>(.*?)</think>`)
	observeEnd    = regexp.MustCompile(`(?i)</observation>`)
)

// skyrlExtract checks SkyRL-SQL's format (verify_format_and_extract) and
// returns the solution's SQL.
func skyrlExtract(c string) (Parsed, bool) {
	if strings.Count(c, "<solution>") != 1 {
		return Parsed{}, false
	}
	pre, tail, _ := strings.Cut(c, "<solution>")
	if strings.Count(tail, "</solution>") != 1 {
		return Parsed{}, false
	}
	sol, _, _ := strings.Cut(tail, "</solution>")
	if tagInSolution.MatchString(sol) {
		return Parsed{}, false
	}
	thoughts := thinkElem.FindAllStringSubmatch(c, -1)
	if len(thoughts) == 0 {
		return Parsed{}, false
	}
	for _, loc := range observeEnd.FindAllStringIndex(pre, -1) {
		rest := strings.TrimLeft(pre[loc[1]:], " \t\r\n\f\v")
		if !strings.HasPrefix(strings.ToLower(rest), "<think>") {
			return Parsed{}, false
		}
	}
	return Parsed{SQL: strings.TrimSpace(sol), Think: thoughts[len(thoughts)-1][1]}, true
}

var (
	sqlr1Answer = regexp.MustCompile(`(?s)<answer>(.*?)</answer>`)
	sqlr1Fence  = regexp.MustCompile("(?s)```sql(.*?)```")
	spaces      = regexp.MustCompile(`\s+`)
)

// sqlr1Extract checks SQL-R1's format (extract_solution,
// validate_response_structure, parse_sql_from_answer).
func sqlr1Extract(c string) (Parsed, bool) {
	if _, after, ok := strings.Cut(c, "Assistant:"); ok {
		c = after
	} else if _, after, ok := strings.Cut(c, "<|im_start|>assistant"); ok {
		c = after
	}
	var pos [4]int
	for k, tag := range []string{"<think>", "</think>", "<answer>", "</answer>"} {
		if strings.Count(c, tag) != 1 {
			return Parsed{}, false
		}
		pos[k] = strings.Index(c, tag)
	}
	if pos[0] > pos[1] || pos[1] > pos[2] || pos[2] > pos[3] {
		return Parsed{}, false
	}
	p := Parsed{
		Think:  strings.TrimSpace(thinkElem.FindStringSubmatch(c)[1]),
		Answer: strings.TrimSpace(sqlr1Answer.FindStringSubmatch(c)[1]),
	}
	m := sqlr1Fence.FindAllStringSubmatch(p.Answer, -1)
	if len(m) == 0 {
		return Parsed{}, false
	}
	p.SQL = spaces.ReplaceAllString(strings.TrimSpace(m[len(m)-1][1]), " ")
	if p.SQL == "" {
		return Parsed{}, false
	}
	return p, true
}

// sqlr1Reward is compute_score of SQL-R1's synsql.py.
func sqlr1Reward(o Outcome) float64 {
	if !o.FormatOK {
		return -1
	}
	r := 1.0
	switch o.Verdict {
	case Invalid, Timeout:
		r -= 2
	case Wrong, Error:
		// An item that could not be graded (a failing gold, the
		// item's time limit) scores as a wrong answer, never more:
		// no prediction gains by making the grader fail.
		r += 2 - 3
	case Correct:
		r += 2 + 3
		think, answer := utf8.RuneCountInString(o.Parsed.Think), utf8.RuneCountInString(o.Parsed.Answer)
		ratio := float64(utf8.RuneCountInString(o.Parsed.SQL)) / float64(max(answer, 1))
		r += 0.5*float64(min(think+answer, 2048))/2048 + ratio
	}
	return r
}
