package cli

import (
	"strings"
	"testing"
)

// TestUnknownCommandAndFlag: an unknown command is a usage error (exit 2,
// as every other; it exited 1, and "sqljudge db lod" printed db's help
// and exited 0) and, like an unknown flag, names what was probably meant.
func TestUnknownCommandAndFlag(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"evaluate"}, `unknown command "evaluate" for "sqljudge"; did you mean eval?`},
		{[]string{"evl", "--demo"}, `unknown command "evl" for "sqljudge"; did you mean eval?`},
		{[]string{"db", "lod"}, `unknown command "lod" for "sqljudge db"; did you mean load?`},
		{[]string{"nothing-like-it"}, `unknown command "nothing-like-it" for "sqljudge" (see sqljudge --help)`},
		{[]string{"eval", "--metric", "ex"}, `unknown flag: --metric; did you mean --metrics? (see sqljudge eval --help)`},
		{[]string{"equiv", "--pair", "p.jsonl"}, `unknown flag: --pair; did you mean --pairs? (see sqljudge equiv --help)`},
		{[]string{"eval", "--zzzzzz"}, `unknown flag: --zzzzzz (see sqljudge eval --help)`},
	} {
		code, _, stderr := runMain(t, c.args...)
		if code != ExitUsage || !strings.Contains(stderr, c.want) {
			t.Errorf("%v: exit %d, stderr %q; want exit 2 with %q", c.args, code, stderr, c.want)
		}
	}
	if code, stdout, _ := runMain(t); code != ExitOK || !strings.Contains(stdout, "Available Commands") {
		t.Errorf("no command: exit %d\n%s", code, stdout)
	}
}
