package fuzz

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os/exec"
	"strings"
	"time"

	"github.com/sqljudge/sqljudge/internal/prove/check"
)

// PersistentZ3 is a check.Solver that keeps Z3's executable running and
// feeds it one script after another, as check.Z3 does within one call
// (each script, then (echo "@end") and (reset), with the same rlimit),
// instead of starting a process per call: the fuzzer's prover calls are
// many and small, and a process start costs more than most obligations.
// The process is restarted every restartAfter scripts and after any
// error. Safe for concurrent use: it keeps one process per concurrent
// caller, up to the number it was made with. The answers are Z3's own;
// `equiv check` (CheckProofs) re-runs every obligation of the proofs the
// fuzzer keeps with check.Z3.
type PersistentZ3 struct {
	procs chan *z3proc
	all   []*z3proc
}

// z3proc is one Z3 process.
type z3proc struct {
	path   string
	rlimit int
	cmd    *exec.Cmd
	in     io.WriteCloser
	out    *bufio.Reader
	used   int
}

// restartAfter bounds the scripts one Z3 process answers.
const restartAfter = 500

// NewPersistentZ3 returns a persistent solver on Z3's executable (on
// PATH) answering up to n callers at once, or check.ErrNoSolver.
func NewPersistentZ3(n int) (*PersistentZ3, error) {
	z, err := check.FindZ3()
	if err != nil {
		return nil, err
	}
	p := &PersistentZ3{procs: make(chan *z3proc, max(n, 1))}
	for range max(n, 1) {
		zp := &z3proc{path: z.Path, rlimit: check.DefaultRLimit}
		p.all = append(p.all, zp)
		p.procs <- zp
	}
	return p, nil
}

// Name returns "z3".
func (p *PersistentZ3) Name() string { return "z3" }

// Check answers each script in order: "unsat", "sat" or "unknown".
func (p *PersistentZ3) Check(ctx context.Context, scripts []string) ([]string, error) {
	zp := <-p.procs
	defer func() { p.procs <- zp }()
	return zp.check(ctx, scripts)
}

// Close stops the processes (none may be answering).
func (p *PersistentZ3) Close() {
	for _, zp := range p.all {
		zp.stop()
	}
}

func (p *z3proc) check(ctx context.Context, scripts []string) ([]string, error) {
	out := make([]string, 0, len(scripts))
	for _, s := range scripts {
		a, err := p.one(ctx, s)
		if err != nil {
			p.stop()
			return nil, err
		}
		out = append(out, a)
	}
	return out, nil
}

func (p *z3proc) start() error {
	cmd := exec.Command(p.path, "-in", "-smt2", fmt.Sprintf("rlimit=%d", p.rlimit))
	in, err := cmd.StdinPipe()
	if err != nil {
		return err
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return err
	}
	if err := cmd.Start(); err != nil {
		return err
	}
	p.cmd, p.in, p.out, p.used = cmd, in, bufio.NewReader(out), 0
	return nil
}

func (p *z3proc) stop() {
	if p.cmd == nil {
		return
	}
	p.in.Close()
	_ = p.cmd.Process.Kill()
	_ = p.cmd.Wait()
	p.cmd = nil
}

// one answers one script, within 20 seconds.
func (p *z3proc) one(ctx context.Context, script string) (string, error) {
	if p.cmd == nil || p.used >= restartAfter {
		p.stop()
		if err := p.start(); err != nil {
			return "", err
		}
	}
	p.used++
	if _, err := io.WriteString(p.in, script+"\n(echo \"@end\")\n(reset)\n"); err != nil {
		return "", err
	}
	type reply struct {
		answer string
		err    error
	}
	ch := make(chan reply, 1)
	go func() {
		answer := ""
		for {
			line, err := p.out.ReadString('\n')
			if err != nil {
				ch <- reply{err: fmt.Errorf("z3: %v", err)}
				return
			}
			switch line = strings.TrimSpace(line); line {
			case "@end":
				if answer == "" {
					ch <- reply{err: fmt.Errorf("z3: a script gave no answer")}
				} else {
					ch <- reply{answer: answer}
				}
				return
			case "sat", "unsat", "unknown":
				answer = line
			case "", "success":
			default:
				ch <- reply{err: fmt.Errorf("z3: %s", line)}
				return
			}
		}
	}()
	select {
	case r := <-ch:
		return r.answer, r.err
	case <-ctx.Done():
		p.stop()
		<-ch
		return "", ctx.Err()
	case <-time.After(20 * time.Second):
		p.stop()
		<-ch
		return "", fmt.Errorf("z3: no answer within 20s")
	}
}
