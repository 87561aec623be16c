package check

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os/exec"
	"strings"
	"time"
)

// Solver answers SMT-LIB 2 scripts: "unsat", "sat" or "unknown" for
// each, in order.
type Solver interface {
	Check(ctx context.Context, scripts []string) ([]string, error)
	// Name says which solver answers, for records ("z3").
	Name() string
}

// ErrNoSolver is the error of FindZ3 when no z3 executable is on PATH.
var ErrNoSolver = errors.New("no SMT solver: the z3 executable is not on PATH (Debian: apt-get install z3)")

// Z3 is Z3's executable run on SMT-LIB 2 text (no cgo), one process per
// call: every script, then (echo "@end") and (reset), on stdin.
type Z3 struct {
	// Path of the executable.
	Path string
	// RLimit bounds the work of each check-sat in Z3's own deterministic
	// unit (its rlimit): a script that needs more is "unknown", on every
	// machine alike (default DefaultRLimit).
	RLimit int
	// Timeout bounds a call's wall time (default 20s): a safety net only;
	// a call it stops is an error.
	Timeout time.Duration
}

// DefaultRLimit is Z3's default resource limit per check: far above what
// the kernel's obligations need (a few thousand units each), so that only
// a runaway script reaches it.
const DefaultRLimit = 20_000_000

// FindZ3 returns the z3 executable on PATH, or ErrNoSolver.
func FindZ3() (*Z3, error) {
	p, err := exec.LookPath("z3")
	if err != nil {
		return nil, ErrNoSolver
	}
	return &Z3{Path: p}, nil
}

// Name returns "z3".
func (z *Z3) Name() string { return "z3" }

// Version returns the solver's version line ("Z3 version 4.8.12 - 64 bit").
func (z *Z3) Version(ctx context.Context) (string, error) {
	out, err := exec.CommandContext(ctx, z.Path, "-version").Output()
	return strings.TrimSpace(string(out)), err
}

// Check runs the scripts and returns each one's answer. An error is a
// failure of the solver (it could not run, printed an error, or ran past
// Timeout), never an answer.
func (z *Z3) Check(ctx context.Context, scripts []string) ([]string, error) {
	if len(scripts) == 0 {
		return nil, nil
	}
	out, errOut, err := z.run(ctx, checkBatch(scripts))
	if errors.Is(err, errNoAnswer) {
		return nil, err
	}
	answers, perr := parseAnswers(out, len(scripts))
	if perr != nil {
		if err != nil {
			return nil, fmt.Errorf("z3: %v (%s)", err, strings.TrimSpace(errOut))
		}
		return nil, perr
	}
	return answers, nil
}

// checkBatch is the text Z3 reads for Check's scripts: each followed by
// (echo "@end") and (reset), so that no script sees another's
// declarations.
func checkBatch(scripts []string) string {
	var b strings.Builder
	for _, s := range scripts {
		b.WriteString(s)
		b.WriteString("\n(echo \"@end\")\n(reset)\n")
	}
	return b.String()
}

// errNoAnswer wraps the error of a Z3 run that passed its Timeout.
var errNoAnswer = errors.New("z3: no answer")

// limits returns z's Timeout and RLimit, each defaulted when unset (20 s;
// DefaultRLimit).
func (z Z3) limits() (time.Duration, int) {
	timeout, rlimit := z.Timeout, z.RLimit
	if timeout <= 0 {
		timeout = 20 * time.Second
	}
	if rlimit <= 0 {
		rlimit = DefaultRLimit
	}
	return timeout, rlimit
}

// command is the Z3 process reading SMT-LIB 2 on its standard input with
// each check bounded by z's rlimit (Z3's deterministic unit of work).
func (z Z3) command(ctx context.Context) *exec.Cmd {
	_, rlimit := z.limits()
	return exec.CommandContext(ctx, z.Path, "-in", "-smt2", fmt.Sprintf("rlimit=%d", rlimit))
}

// run feeds input to one Z3 process (Check's and Models' batches) and
// returns what it printed on standard output and error, with the run's
// error; a run past z's Timeout is an error wrapping errNoAnswer.
func (z *Z3) run(ctx context.Context, input string) (stdout, stderr string, err error) {
	timeout, _ := z.limits()
	cctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	cmd := z.command(cctx)
	cmd.Stdin = strings.NewReader(input)
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	err = cmd.Run()
	if cctx.Err() != nil {
		return "", "", fmt.Errorf("%w within %v", errNoAnswer, timeout)
	}
	return out.String(), errOut.String(), err
}

// parseAnswers reads one answer per "@end"-terminated section.
func parseAnswers(out string, n int) ([]string, error) {
	var answers []string
	answer := ""
	for _, line := range strings.Split(out, "\n") {
		line = strings.TrimSpace(line)
		switch {
		case line == "@end":
			if answer == "" {
				return nil, fmt.Errorf("z3: script %d gave no answer", len(answers)+1)
			}
			answers = append(answers, answer)
			answer = ""
		case line == "sat" || line == "unsat" || line == "unknown":
			if answer != "" {
				return nil, fmt.Errorf("z3: script %d gave two answers", len(answers)+1)
			}
			answer = line
		case line == "" || line == "success":
		default:
			return nil, fmt.Errorf("z3: script %d: %s", len(answers)+1, line)
		}
	}
	if len(answers) != n {
		return nil, fmt.Errorf("z3: %d answers for %d scripts", len(answers), n)
	}
	return answers, nil
}
