package serve

import (
	"cmp"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"strings"

	"github.com/sqljudge/sqljudge/internal/strictjson"
)

// Label is what grades one OpenRLHF sample: its database and gold (a
// string or a list of alternatives), and optionally a metric.
//
//	{"db_id": "concert_singer", "gold": "SELECT count(*) FROM singer"}
type Label struct {
	DBID   string `json:"db_id"`
	Gold   Gold   `json:"gold"`
	Metric string `json:"metric,omitempty"`
}

// OpenRLHFRequest is the body OpenRLHF's remote reward client POSTs
// (openrlhf/utils/agent.py, SingleTurnAgentExecutor._fetch_rewards_via_http):
// Query holds the decoded prompt+response of each sample, Prompts the
// prompt texts, Labels the dataset's label field of each sample: a JSON
// string (or object) holding a Label, or null to look the label up by
// prompt in the server's --labels file.
type OpenRLHFRequest struct {
	Query   []string          `json:"query"`
	Prompts []string          `json:"prompts"`
	Labels  []json.RawMessage `json:"labels"`
}

// OpenRLHFResponse is the answer: one entry per query. OpenRLHF uses
// Rewards for advantages and Scores for dynamic filtering, and logs each
// ExtraLogs list (numbers only): "correct" and "executed" as 0/1.
type OpenRLHFResponse struct {
	Rewards   []float64            `json:"rewards"`
	Scores    []float64            `json:"scores"`
	ExtraLogs map[string][]float64 `json:"extra_logs"`
}

func (s *Server) handleOpenRLHF(w http.ResponseWriter, r *http.Request) {
	led, rerr := s.reserveBody(r)
	if rerr != nil {
		writeError(w, rerr.code, rerr.msg)
		return
	}
	defer led.Release()
	req, rerr := s.decodeOpenRLHF(w, r)
	if rerr != nil {
		writeError(w, rerr.code, rerr.msg)
		return
	}
	trust(r) // a complete request, past the token: its connection no longer counts against its address
	if len(req.Query) == 0 {
		writeError(w, http.StatusBadRequest, `no "query" to grade`)
		return
	}
	if len(req.Prompts) > len(req.Query) || len(req.Labels) > len(req.Query) {
		writeError(w, http.StatusBadRequest, fmt.Sprintf(`%d "query" entries but %d "prompts" and %d "labels"`, len(req.Query), len(req.Prompts), len(req.Labels)))
		return
	}
	g := GradeRequest{Preset: cmp.Or(r.URL.Query().Get("preset"), "binary")}
	if _, err := PresetByName(g.Preset); err != nil {
		writeError(w, http.StatusBadRequest, "?preset: "+err.Error())
		return
	}
	for i, q := range req.Query {
		prompt := ""
		if i < len(req.Prompts) {
			prompt = req.Prompts[i]
		}
		completion := strings.TrimPrefix(q, prompt)
		var raw json.RawMessage
		if i < len(req.Labels) {
			raw = req.Labels[i]
		}
		lab, err := s.label(raw, prompt)
		if err != nil {
			writeError(w, http.StatusBadRequest, fmt.Sprintf("labels[%d]: %v", i, err))
			return
		}
		g.Items = append(g.Items, GradeItem{ID: json.RawMessage(fmt.Sprint(i)), Completion: &completion, DBID: lab.DBID, Gold: lab.Gold, Metric: lab.Metric})
	}
	if rerr := s.checkRequest(&g, "labels[%d]"); rerr != nil {
		writeError(w, rerr.code, rerr.msg)
		return
	}
	res := s.Grade(r.Context(), g)
	s.logRequest(r, res)
	out := OpenRLHFResponse{ExtraLogs: map[string][]float64{"correct": nil, "executed": nil}}
	for _, x := range res {
		out.Rewards = append(out.Rewards, x.Reward)
		out.Scores = append(out.Scores, b2f(x.Correct))
		out.ExtraLogs["correct"] = append(out.ExtraLogs["correct"], b2f(x.Correct))
		out.ExtraLogs["executed"] = append(out.ExtraLogs["executed"], b2f(x.Verdict.Executed()))
	}
	writeJSON(w, http.StatusOK, out)
}

// label reads a sample's label: a JSON string holding a Label, a Label
// object, or (null or absent) the --labels entry of the prompt.
func (s *Server) label(raw json.RawMessage, prompt string) (Label, error) {
	var lab Label
	t := strings.TrimSpace(string(raw))
	switch {
	case t == "" || t == "null":
		l, ok := s.cfg.Labels[prompt]
		if !ok {
			l, ok = s.cfg.Labels[strings.TrimSpace(prompt)]
		}
		if !ok {
			if s.cfg.Labels == nil {
				return lab, fmt.Errorf("no label sent and the server has no --labels file")
			}
			return lab, fmt.Errorf("no label sent and the prompt is not in the --labels file")
		}
		return l, nil
	case strings.HasPrefix(t, `"`):
		var text string
		if err := strictjson.Unmarshal(raw, &text); err != nil {
			return lab, fmt.Errorf("label: %v", err)
		}
		if err := strictjson.Unmarshal([]byte(text), &lab); err != nil {
			return lab, fmt.Errorf(`label %q: want JSON {"db_id", "gold"}: %v`, clip(text), err)
		}
	default:
		if err := strictjson.Unmarshal(raw, &lab); err != nil {
			return lab, fmt.Errorf(`label: want {"db_id", "gold"}: %v`, err)
		}
	}
	if lab.DBID == "" || len(lab.Gold) == 0 {
		return lab, fmt.Errorf(`label %s: want {"db_id", "gold"}`, clip(t))
	}
	return lab, nil
}

// ReadLabels reads a --labels file: JSONL, one {"prompt", "db_id", "gold"}
// per line (gold a string or a list), decoded strictly (internal/strictjson;
// a BOM at the start skipped). A malformed line (a key given twice or in
// another case, invalid UTF-8, over 64 MiB), a line without a prompt, db_id
// or gold, or a prompt given twice is an error naming the file and line.
func ReadLabels(path string) (map[string]Label, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	out := map[string]Label{}
	first := map[string]int{}
	err = strictjson.Lines(path, f, func(ln int, line []byte) error {
		var rec struct {
			Prompt *string `json:"prompt"`
			Label
		}
		if err := strictjson.Unmarshal(line, &rec); err != nil {
			return fmt.Errorf("%s:%d: want JSON {\"prompt\", \"db_id\", \"gold\"}: %v", path, ln, err)
		}
		if rec.Prompt == nil || rec.DBID == "" || len(rec.Gold) == 0 {
			return fmt.Errorf("%s:%d: want \"prompt\", \"db_id\" and \"gold\"", path, ln)
		}
		if p, dup := first[*rec.Prompt]; dup {
			return fmt.Errorf("%s:%d: prompt already labelled at line %d", path, ln, p)
		}
		first[*rec.Prompt] = ln
		out[*rec.Prompt] = rec.Label
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

func b2f(b bool) float64 {
	if b {
		return 1
	}
	return 0
}

func clip(s string) string {
	if len(s) > 80 {
		return s[:80] + "..."
	}
	return s
}
