package fuzz

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/sqljudge/sqljudge/internal/equiv"
)

// EquivReport is what `sqljudge equiv` and `sqljudge equiv check` made of
// proved pairs: each pair's verdict (by id "pair-N"), and the lines equiv
// check printed for the certificates it rejected.
type EquivReport struct {
	Verdicts map[string]string
	// Rejected are equiv check's lines for the proofs that do not check.
	Rejected []string
	// Checked is equiv check's count line.
	Checked string
}

// Count returns how many of the pairs got verdict v.
func (r *EquivReport) Count(v equiv.Verdict) int {
	n := 0
	for _, x := range r.Verdicts {
		if x == string(v) {
			n++
		}
	}
	return n
}

// EquivCheck runs proved pairs through the commands a user runs: it
// writes them as a pairs file (one per rule) in dir, decides them with
// `sqljudge equiv` (equiv.RunCommand: prover, then the search capped at
// maxDatabases, the tripwire's 60 at most; db "" for scratch SQLite
// files, or a server DSN, whose account may be a superuser: the tests'
// servers are theirs) and re-checks the run with `sqljudge equiv check`
// (equiv.RunCheck). A proof equiv check rejects is in Rejected; the
// error is the commands' own failure.
func EquivCheck(ctx context.Context, dir string, proofs []Proof, db string, maxDatabases int) (*EquivReport, error) {
	rep := &EquivReport{Verdicts: map[string]string{}}
	byRule := map[equiv.Rule][]Proof{}
	for _, p := range proofs {
		byRule[p.Rule] = append(byRule[p.Rule], p)
	}
	for _, rule := range []equiv.Rule{equiv.RuleBag, equiv.RuleSpider} {
		ps := byRule[rule]
		if len(ps) == 0 {
			continue
		}
		pairs := filepath.Join(dir, "pairs-"+string(rule)+".jsonl")
		if err := writePairs(pairs, ps); err != nil {
			return nil, err
		}
		out := filepath.Join(dir, "out-"+string(rule))
		o := equiv.CommandOptions{Pairs: pairs, Out: out, DB: db, AllowSuperuser: true, Seed: 1, MaxDatabases: maxDatabases, Rule: rule, Workers: 2}
		var log bytes.Buffer
		if err := equiv.RunCommand(ctx, o, &log); err != nil {
			return nil, fmt.Errorf("sqljudge equiv: %w\n%s", err, log.String())
		}
		if err := readVerdicts(filepath.Join(out, equiv.ResultsFile), rep.Verdicts); err != nil {
			return nil, err
		}
		var chk bytes.Buffer
		err := equiv.RunCheck(ctx, equiv.CheckOptions{Out: out, Pairs: pairs, DB: checkDB(db), AllowSuperuser: true}, &chk)
		for _, l := range strings.Split(strings.TrimSpace(chk.String()), "\n") {
			if strings.HasPrefix(l, "pair ") {
				rep.Rejected = append(rep.Rejected, l)
			} else if l != "" {
				rep.Checked += l + "\n"
			}
		}
		if err != nil && !errors.Is(err, equiv.ErrCheckFailed) {
			return nil, fmt.Errorf("sqljudge equiv check: %w", err)
		}
	}
	return rep, nil
}

// writePairs writes proofs as a pairs file: {"id": "pair-N", "q1", "q2",
// "schema"}.
func writePairs(path string, ps []Proof) error {
	var b bytes.Buffer
	for _, p := range ps {
		line, err := json.Marshal(equiv.PairLine{ID: fmt.Sprintf("pair-%d", p.Pair), Q1: p.Q1, Q2: p.Q2, Schema: p.Schema})
		if err != nil {
			return err
		}
		b.Write(line)
		b.WriteByte('\n')
	}
	return os.WriteFile(path, b.Bytes(), 0o644)
}

// readVerdicts adds each record's verdict of results.jsonl to into.
func readVerdicts(path string, into map[string]string) error {
	b, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	for _, l := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		var r struct {
			ID      string `json:"id"`
			Verdict string `json:"verdict"`
		}
		if err := json.Unmarshal([]byte(l), &r); err != nil {
			return fmt.Errorf("%s: %w", path, err)
		}
		into[r.ID] = r.Verdict
	}
	return nil
}

// checkDB is the --db of equiv check for a run on db: a server's DSN
// (the PostgreSQL proofs' renamings are planned there), "" for SQLite's
// scratch files.
func checkDB(db string) string {
	if strings.HasPrefix(db, "postgres") {
		return db
	}
	return ""
}
