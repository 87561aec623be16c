package docstest

import "testing"

// TestExtract: only "```sh runnable" blocks are taken, with their line,
// and commands are counted with continuations joined.
func TestExtract(t *testing.T) {
	md := "# t\n```sh\nnot run\n```\ntext\n```sh runnable\n# a comment\nsqljudge eval --demo \\\n    --out x\n\necho ok\n```\n"
	bs := Extract(md)
	if len(bs) != 1 || bs[0].Line != 6 {
		t.Fatalf("blocks %+v; want one at line 6", bs)
	}
	if got := bs[0].Commands(); got != 2 {
		t.Errorf("%d commands; want 2", got)
	}
}
