package check

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"math/big"
	"os/exec"
	"strconv"
	"strings"
	"time"
)

// Models of satisfiable scripts, for the search (ConditionCover's goals):
// Z3's answer to (check-sat) and, when sat, its answer to the script's
// (get-value (...)).

// Model is a satisfying assignment read from Z3's get-value: each
// constant's name (as the script spells it, bars included) and its value
// as SMT-LIB text ("5", "(- 3)", "(/ 1.0 3.0)", "\"ab\"", "true",
// "V!val!0").
type Model map[string]string

// Modeler answers scripts that end in (check-sat) and (get-value ...)
// with a model for each satisfiable one (nil for unsat or unknown).
type Modeler interface {
	Models(ctx context.Context, scripts []string) ([]Model, error)
}

// Models runs the scripts in one Z3 process (checkBatch: each followed
// by (reset), each check-sat under z.RLimit, Z3's deterministic unit of
// work) and returns a model for each that is sat, nil for one that is
// unsat or unknown. The error is a failure of the solver (it could not
// run, or ran past Timeout).
func (z *Z3) Models(ctx context.Context, scripts []string) ([]Model, error) {
	if len(scripts) == 0 {
		return nil, nil
	}
	out, _, err := z.run(ctx, checkBatch(scripts))
	// A run error alone is no failure: an error line answers an unsat
	// script's get-value.
	if errors.Is(err, errNoAnswer) {
		return nil, err
	}
	return parseModels(out, len(scripts))
}

// parseModels reads one section per script, each ending in "@end": its
// first line is the answer, and after "sat" the get-value list.
func parseModels(out string, n int) ([]Model, error) {
	sections := strings.Split(out, "@end")
	if len(sections) < n+1 {
		return nil, fmt.Errorf("z3: %d answers for %d scripts", len(sections)-1, n)
	}
	models := make([]Model, n)
	for i := range n {
		sec := strings.TrimSpace(sections[i])
		answer, rest, _ := strings.Cut(sec, "\n")
		if strings.TrimSpace(answer) != "sat" {
			continue
		}
		m, err := parseValues(dropInfo(rest))
		if err != nil {
			return nil, fmt.Errorf("z3: script %d: %v", i+1, err)
		}
		models[i] = m
	}
	return models, nil
}

// dropInfo removes the lines of (get-info :rlimit)'s answer.
func dropInfo(text string) string {
	var keep []string
	for _, line := range strings.Split(text, "\n") {
		if !strings.HasPrefix(strings.TrimSpace(line), "(:rlimit ") {
			keep = append(keep, line)
		}
	}
	return strings.Join(keep, "\n")
}

// parseValues reads ((name value) ...).
func parseValues(text string) (Model, error) {
	toks, err := sexpTokens(text)
	if err != nil {
		return nil, err
	}
	m := Model{}
	if len(toks) < 2 || toks[0] != "(" {
		return nil, fmt.Errorf("no value list: %.80s", text)
	}
	i := 1
	for i < len(toks) && toks[i] == "(" {
		if i+1 >= len(toks) {
			return nil, fmt.Errorf("truncated value list")
		}
		name := toks[i+1]
		j, val := sexpAt(toks, i+2)
		if j >= len(toks) || toks[j] != ")" {
			return nil, fmt.Errorf("malformed value of %s", name)
		}
		m[name] = val
		i = j + 1
	}
	return m, nil
}

// sexpTokens splits SMT-LIB text into parentheses, strings, |symbols|
// and atoms.
func sexpTokens(s string) ([]string, error) {
	var out []string
	for i := 0; i < len(s); {
		switch c := s[i]; {
		case c == ' ' || c == '\n' || c == '\t' || c == '\r':
			i++
		case c == '(' || c == ')':
			out = append(out, string(c))
			i++
		case c == '"':
			j := i + 1
			for ; j < len(s); j++ {
				if s[j] == '"' {
					if j+1 < len(s) && s[j+1] == '"' {
						j++
						continue
					}
					break
				}
			}
			if j >= len(s) {
				return nil, fmt.Errorf("unterminated string")
			}
			out = append(out, s[i:j+1])
			i = j + 1
		case c == '|':
			j := strings.IndexByte(s[i+1:], '|')
			if j < 0 {
				return nil, fmt.Errorf("unterminated symbol")
			}
			out = append(out, s[i:i+j+2])
			i += j + 2
		default:
			j := i
			for j < len(s) && !strings.ContainsRune(" \n\t\r()\"|", rune(s[j])) {
				j++
			}
			out = append(out, s[i:j])
			i = j
		}
	}
	return out, nil
}

// sexpAt reads one s-expression at toks[i] and returns the index after
// it and its text (tokens joined by spaces, parentheses tight).
func sexpAt(toks []string, i int) (int, string) {
	if i >= len(toks) {
		return i, ""
	}
	if toks[i] != "(" {
		return i + 1, toks[i]
	}
	var parts []string
	j := i + 1
	for j < len(toks) && toks[j] != ")" {
		var p string
		j, p = sexpAt(toks, j)
		parts = append(parts, p)
	}
	return j + 1, "(" + strings.Join(parts, " ") + ")"
}

// ModelBool reads a Boolean value.
func ModelBool(v string) (bool, bool) {
	switch v {
	case "true":
		return true, true
	case "false":
		return false, true
	}
	return false, false
}

// ModelInt reads an integer value: "5" or "(- 5)"; false when it is
// none or out of int64's range.
func ModelInt(v string) (int64, bool) {
	neg := false
	if strings.HasPrefix(v, "(- ") && strings.HasSuffix(v, ")") {
		neg, v = true, v[3:len(v)-1]
	}
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil {
		return 0, false
	}
	if neg {
		n = -n
	}
	return n, true
}

// ModelReal reads a real value ("2.0", "(- 2.0)", "(/ 1.0 3.0)", "(- (/
// 1.0 3.0))") as the nearest float64.
func ModelReal(v string) (float64, bool) {
	r, ok := modelRat(v)
	if !ok {
		return 0, false
	}
	f, _ := r.Float64()
	return f, true
}

func modelRat(v string) (*big.Rat, bool) {
	if strings.HasPrefix(v, "(- ") && strings.HasSuffix(v, ")") {
		r, ok := modelRat(v[3 : len(v)-1])
		if !ok {
			return nil, false
		}
		return r.Neg(r), true
	}
	if strings.HasPrefix(v, "(/ ") && strings.HasSuffix(v, ")") {
		toks, err := sexpTokens(v)
		if err != nil || len(toks) < 4 {
			return nil, false
		}
		j, a := sexpAt(toks, 2)
		_, b := sexpAt(toks, j)
		x, okx := modelRat(a)
		y, oky := modelRat(b)
		if !okx || !oky || y.Sign() == 0 {
			return nil, false
		}
		return x.Quo(x, y), true
	}
	r, ok := new(big.Rat).SetString(v)
	return r, ok
}

// ModelString reads a string value: "ab", with "" for a double quote and
// \u{…} (or \uXXXX, \x..) escapes as SMT-LIB 2.6 and Z3 print them.
func ModelString(v string) (string, bool) {
	if len(v) < 2 || v[0] != '"' || v[len(v)-1] != '"' {
		return "", false
	}
	s := strings.ReplaceAll(v[1:len(v)-1], `""`, `"`)
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] != '\\' || i+1 >= len(s) {
			b.WriteByte(s[i])
			continue
		}
		var hex string
		next := i + 1
		switch {
		case s[i+1] == 'u' && i+2 < len(s) && s[i+2] == '{':
			end := strings.IndexByte(s[i:], '}')
			if end < 0 {
				return "", false
			}
			hex, next = s[i+3:i+end], i+end
		case s[i+1] == 'u' && i+6 <= len(s):
			hex, next = s[i+2:i+6], i+5
		case s[i+1] == 'x' && i+4 <= len(s):
			hex, next = s[i+2:i+4], i+3
		default:
			b.WriteByte(s[i])
			continue
		}
		r, err := strconv.ParseUint(hex, 16, 32)
		if err != nil {
			return "", false
		}
		b.WriteRune(rune(r))
		i = next
	}
	return b.String(), true
}

// Z3Pool is a Modeler and a Solver that keeps up to n Z3 processes
// running (the same executable, options and rlimit as z) and feeds each
// call's scripts to one of them, one script at a time: Check's each
// followed by (reset), Models' each between (push) and (pop) — a script
// costs Z3 far less so than after a reset — but for one Z3 did not answer
// sat or unsat (a check past its rlimit leaves Z3 unable to pop: every
// later command of the batch would fail), which a (reset) follows, as
// the last script. Starting Z3 costs more than the small goals of the
// search's solver phase (ConditionCover) and the soundness fuzzer's many
// small obligations. A process is restarted after restartAfter scripts, and
// one that fails or runs past z.Timeout is stopped and replaced on the next
// call. Safe for concurrent use; Close stops the processes.
type Z3Pool struct {
	z     Z3
	procs chan *z3proc
	all   []*z3proc
	// BatchRLimit bounds the work of one Models call in Z3's rlimit units
	// (0: no bound): once its scripts have used that many, the rest are
	// not sent and get no model, so that a batch of hard goals costs a few
	// goals' limit, not each goal's. Set it before the pool is used.
	BatchRLimit int
}

// z3proc is one running Z3 process of a pool (cmd nil until started) and
// the number of scripts it has answered.
type z3proc struct {
	cmd  *exec.Cmd
	in   io.WriteCloser
	out  *bufio.Reader
	used int
}

// restartAfter bounds the scripts one pooled Z3 process answers before a
// fresh one replaces it (its memory grows with the declarations it saw).
const restartAfter = 500

// NewZ3Pool returns a pool of at most n processes of z's executable.
func NewZ3Pool(z *Z3, n int) *Z3Pool {
	p := &Z3Pool{z: *z, procs: make(chan *z3proc, max(n, 1))}
	for range max(n, 1) {
		zp := &z3proc{}
		p.all = append(p.all, zp)
		p.procs <- zp
	}
	return p
}

// Name returns "z3".
func (p *Z3Pool) Name() string { return "z3" }

// Check answers the scripts as Z3.Check does ("unsat", "sat" or "unknown"
// for each, in order), in one exchange with one process. An error is a
// failure of the solver (an error line, a dead process, a run past
// Timeout), never an answer.
func (p *Z3Pool) Check(ctx context.Context, scripts []string) ([]string, error) {
	if len(scripts) == 0 {
		return nil, nil
	}
	zp := <-p.procs
	defer func() { p.procs <- zp }()
	text, err := p.exchange(ctx, zp, scripts, "", "", func(string, bool) (string, bool) { return "(reset)\n", false })
	if err == nil {
		var answers []string
		if answers, err = parseAnswers(text, len(scripts)); err == nil {
			return answers, nil
		}
	}
	zp.stop()
	return nil, err
}

// Close stops the pool's processes; none may be answering.
func (p *Z3Pool) Close() {
	for _, zp := range p.all {
		zp.stop()
	}
}

// Models answers the scripts as Z3.Models does, in one exchange with
// one process, each script's work read after it ((get-info :rlimit)):
// once the call's scripts have used BatchRLimit, the others get no model.
func (p *Z3Pool) Models(ctx context.Context, scripts []string) ([]Model, error) {
	if len(scripts) == 0 {
		return nil, nil
	}
	zp := <-p.procs
	defer func() { p.procs <- zp }()
	var w batchWork
	text, err := p.exchange(ctx, zp, scripts, "(push)\n", "(get-info :rlimit)\n", func(section string, last bool) (string, bool) {
		next := afterModel(section, last)
		return next, w.add(section, next, p.BatchRLimit)
	})
	if err != nil {
		zp.stop()
		return nil, err
	}
	models, err := parseModels(text, strings.Count(text, "@end"))
	return append(models, make([]Model, len(scripts)-len(models))...), err
}

// batchWork is the rlimit units a Models call's scripts have used: Z3's
// count ((get-info :rlimit)) runs on across (pop) and starts again after
// (reset).
type batchWork struct{ spent, base int }

// add counts the work of the script whose answer is section, after which
// next is written, and reports whether the call has used limit (> 0).
func (w *batchWork) add(section, next string, limit int) bool {
	count := 0
	if i := strings.LastIndex(section, "(:rlimit "); i >= 0 {
		if f := strings.Fields(section[i+len("(:rlimit "):]); len(f) > 0 {
			count, _ = strconv.Atoi(strings.TrimSuffix(f[0], ")"))
		}
	}
	w.spent += max(count-w.base, 0)
	w.base = count
	if next != "(pop)\n" {
		w.base = 0
	}
	return limit > 0 && w.spent >= limit
}

// afterModel is what Models writes after a script's answer (section,
// the text up to its "@end"): (pop) after a clean answer — sat with its
// values, or unsat (whose get-value Z3 refuses: "model is not
// available") — and (reset) after anything else and the last script: a
// check or a get-value past the rlimit leaves Z3 unable to pop.
func afterModel(section string, last bool) string {
	if last {
		return "(reset)\n"
	}
	answer, rest, _ := strings.Cut(strings.TrimSpace(section), "\n")
	clean := true
	for _, line := range strings.Split(rest, "\n") {
		if strings.HasPrefix(strings.TrimSpace(line), "(error") && !strings.Contains(line, "model is not available") {
			clean = false
		}
	}
	switch strings.TrimSpace(answer) {
	case "sat":
		if clean && !strings.Contains(rest, "model is not available") {
			return "(pop)\n"
		}
	case "unsat":
		if clean {
			return "(pop)\n"
		}
	}
	return "(reset)\n"
}

// exchange writes the scripts to zp one at a time (starting it when
// needed, restarting it after restartAfter scripts), each between prefix
// and suffix and followed by (echo "@end"); once Z3 has printed a
// script's answers up to "@end" it writes after(section, last) and the
// next script, or, when after says stop, (reset) and no more. It returns
// everything Z3 printed.
func (p *Z3Pool) exchange(ctx context.Context, zp *z3proc, scripts []string, prefix, suffix string, after func(section string, last bool) (string, bool)) (string, error) {
	if zp.used >= restartAfter {
		zp.stop()
	}
	if zp.cmd == nil {
		if err := zp.start(p.z); err != nil {
			return "", err
		}
	}
	zp.used += len(scripts)
	type reply struct {
		text string
		err  error
	}
	ch := make(chan reply, 1)
	go func() {
		var b strings.Builder
		for i, s := range scripts {
			if _, err := io.WriteString(zp.in, prefix+s+"\n"+suffix+"(echo \"@end\")\n"); err != nil {
				ch <- reply{err: fmt.Errorf("z3: %v", err)}
				return
			}
			section, err := readSection(zp.out)
			if err != nil {
				ch <- reply{err: err}
				return
			}
			b.WriteString(section)
			next, stop := after(section, i == len(scripts)-1)
			if stop {
				next = "(reset)\n"
			}
			if _, err := io.WriteString(zp.in, next); err != nil {
				ch <- reply{err: fmt.Errorf("z3: %v", err)}
				return
			}
			if stop {
				break
			}
		}
		ch <- reply{text: b.String()}
	}()
	timeout, _ := p.z.limits()
	timer := time.NewTimer(timeout)
	defer timer.Stop()
	select {
	case r := <-ch:
		return r.text, r.err
	case <-ctx.Done():
		zp.stop() // ends the writer and reader
		<-ch
		return "", ctx.Err()
	case <-timer.C:
		zp.stop()
		<-ch
		return "", fmt.Errorf("z3: no answer within %v", timeout)
	}
}

// readSection reads Z3's output up to and including a line "@end".
func readSection(r *bufio.Reader) (string, error) {
	var b strings.Builder
	for {
		line, err := r.ReadString('\n')
		if err != nil {
			return "", fmt.Errorf("z3: %v", err)
		}
		b.WriteString(line)
		if strings.TrimSpace(line) == "@end" {
			return b.String(), nil
		}
	}
}

func (zp *z3proc) start(z Z3) error {
	cmd := z.command(context.Background())
	in, err := cmd.StdinPipe()
	if err != nil {
		return err
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return err
	}
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("z3: %v", err)
	}
	zp.cmd, zp.in, zp.out, zp.used = cmd, in, bufio.NewReader(out), 0
	return nil
}

// stop ends the process (a later call starts a fresh one).
func (zp *z3proc) stop() {
	if zp.cmd == nil {
		return
	}
	zp.in.Close()
	_ = zp.cmd.Process.Kill()
	_ = zp.cmd.Wait()
	zp.cmd = nil
}
