package check

import (
	"context"
	"slices"
	"testing"
)

// TestZ3PoolRestarts: a pooled process that has answered restartAfter
// scripts is replaced by a fresh one before the next call, and the fresh
// one answers as the first did; a script declaring what an earlier one
// declared is answered (the (reset) between Check's scripts).
func TestZ3PoolRestarts(t *testing.T) {
	z, err := FindZ3()
	if err != nil {
		t.Skipf("skipped: %v", err)
	}
	scripts := []string{
		"(declare-const x Int)\n(assert (> x 2))\n(check-sat)\n",
		"(declare-const x Int)\n(assert (and (> x 2) (< x 1)))\n(check-sat)\n",
	}
	p := NewZ3Pool(z, 1)
	defer p.Close()
	first, err := p.Check(context.Background(), scripts)
	if err != nil || !slices.Equal(first, []string{"sat", "unsat"}) {
		t.Fatalf("first call: %v, %v", first, err)
	}
	zp := p.all[0]
	pid := zp.cmd.Process.Pid
	zp.used = restartAfter
	again, err := p.Check(context.Background(), scripts)
	if err != nil || !slices.Equal(again, first) {
		t.Fatalf("after the restart: %v, %v", again, err)
	}
	if zp.cmd.Process.Pid == pid || zp.used != len(scripts) {
		t.Fatalf("process %d (was %d) has answered %d scripts: not restarted", zp.cmd.Process.Pid, pid, zp.used)
	}
}
