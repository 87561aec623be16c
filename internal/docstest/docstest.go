// Package docstest runs the documentation's commands: every fenced block
// opened with "```sh runnable" in README.md and docs/*.md is a shell script
// that must run on a bare clone, and TestRunnableBlocks runs each with the
// sqljudge binary built from the checkout. A plain "```sh" block is shown,
// never run (it needs data or a server the repository does not hold).
package docstest

import "strings"

// Fence opens a block that the tests run.
const Fence = "```sh runnable"

// Block is one runnable block: its text (without the fences) and the
// 1-based line of its opening fence.
type Block struct {
	Text string
	Line int
}

// Extract returns the runnable blocks of a Markdown text in order. A block
// runs from a line that is exactly Fence (leading spaces allowed) to the
// next line that is exactly "```"; an unclosed block runs to the end.
func Extract(md string) []Block {
	var out []Block
	var cur *Block
	var body []string
	for i, l := range strings.Split(md, "\n") {
		trim := strings.TrimSpace(l)
		switch {
		case cur == nil && trim == Fence:
			cur = &Block{Line: i + 1}
			body = nil
		case cur != nil && trim == "```":
			cur.Text = strings.Join(body, "\n") + "\n"
			out = append(out, *cur)
			cur = nil
		case cur != nil:
			body = append(body, l)
		}
	}
	if cur != nil {
		cur.Text = strings.Join(body, "\n") + "\n"
		out = append(out, *cur)
	}
	return out
}

// Commands counts the commands of a block: its lines, with a line ending
// in "\" joined to the next, less blank lines and "#" comments.
func (b Block) Commands() int {
	n := 0
	cont := false
	for _, l := range strings.Split(b.Text, "\n") {
		t := strings.TrimSpace(l)
		if !cont && (t == "" || strings.HasPrefix(t, "#")) {
			continue
		}
		if !cont {
			n++
		}
		cont = strings.HasSuffix(t, "\\")
	}
	return n
}
