package cli

import (
	"io"
	"regexp"
	"strings"
	"testing"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// placeholderRE is what a flag's placeholder in --help may be: pflag
// takes the first `quoted` word of a usage string as the value's name
// (pflag.UnquoteUsage), so a backquoted phrase becomes one.
var placeholderRE = regexp.MustCompile(`^[A-Z][A-Z0-9_]*$`)

// TestHelpPlaceholders is issue 21.12: --help showed "--shard sqljudge
// merge", "--html sqljudge report" and "--html sqljudge report --db"
// because usage strings quoted commands in backquotes. Every flag of every
// command must show no placeholder or an upper-case name, and no
// backquote may be left in its text.
func TestHelpPlaceholders(t *testing.T) {
	root := newRoot(strings.NewReader(""), io.Discard, io.Discard)
	n := 0
	var visit func(c *cobra.Command)
	visit = func(c *cobra.Command) {
		check := func(f *pflag.Flag) {
			n++
			name, text := pflag.UnquoteUsage(f)
			if strings.Contains(text, "`") || (strings.Contains(f.Usage, "`") && !placeholderRE.MatchString(name)) {
				t.Errorf("%s --%s: help shows placeholder %q and text %q", c.CommandPath(), f.Name, name, text)
			}
		}
		c.LocalFlags().VisitAll(check)
		for _, sub := range c.Commands() {
			visit(sub)
		}
	}
	visit(root)
	if n < 100 {
		t.Fatalf("checked %d flags; the walk missed commands", n)
	}
}
