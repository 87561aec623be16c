package cli

import (
	"errors"
	"slices"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/sqljudge/sqljudge/internal/usage"
)

// guardGroups makes every command that only groups others (sqljudge, db,
// index, ...) refuse an unknown subcommand as a usage error naming the
// likely one: cobra's own check exits 1 on the root and lets any other
// group print its help and exit 0. A group given no subcommand prints its
// help.
func guardGroups(c *cobra.Command) {
	if !c.HasSubCommands() {
		return
	}
	if !c.Runnable() {
		c.Args = cobra.ArbitraryArgs
		c.RunE = runGroup
		if c.Annotations == nil {
			c.Annotations = map[string]string{}
		}
		c.Annotations[groupKey] = "1"
	}
	for _, sub := range c.Commands() {
		guardGroups(sub)
	}
}

// guardArgs makes a wrong number of arguments to c or any command below
// it the user's input (exit 2) with the command's usage line, as a bad
// flag is ("accepts 1 arg(s), received 0" alone was exit 1).
func guardArgs(c *cobra.Command) {
	if check := c.Args; check != nil && !isGroup(c) {
		c.Args = func(cmd *cobra.Command, args []string) error {
			if err := check(cmd, args); err != nil {
				return usage.Errorf("%v\nusage: %s (see %s --help)", err, cmd.UseLine(), cmd.CommandPath())
			}
			return nil
		}
	}
	for _, sub := range c.Commands() {
		guardArgs(sub)
	}
}

// groupKey marks, in a command's Annotations, a command guardGroups set
// up.
const groupKey = "sqljudge-group"

// isGroup reports whether c only groups others (guardGroups set it up).
func isGroup(c *cobra.Command) bool { return c.Annotations[groupKey] == "1" }

func runGroup(cmd *cobra.Command, args []string) error {
	if len(args) == 0 {
		return cmd.Help()
	}
	return usage.Errorf("unknown command %q for %q%s (see %s --help)", args[0], cmd.CommandPath(), commandSuggestion(cmd, args[0]), cmd.CommandPath())
}

// commandSuggestion is "; did you mean eval?" for a subcommand of cmd
// within two edits of typed, starting with it, or whose name typed starts
// with ("evaluate" for eval); "" for none.
func commandSuggestion(cmd *cobra.Command, typed string) string {
	cmd.SuggestionsMinimumDistance = 2
	names := cmd.SuggestionsFor(typed)
	for _, sub := range cmd.Commands() {
		n := sub.Name()
		if sub.IsAvailableCommand() && len(n) >= 3 && strings.HasPrefix(strings.ToLower(typed), n) && !slices.Contains(names, n) {
			names = append(names, n)
		}
	}
	return didYouMean(names)
}

// flagSuggestion is "; did you mean --metrics?" for an unknown flag err of
// c within two edits of a flag of c, or a prefix of one (--pair for
// --pairs), or one's name with more after it; "" otherwise.
func flagSuggestion(c *cobra.Command, err error) string {
	var ne *pflag.NotExistError
	if !errors.As(err, &ne) || ne.GetSpecifiedShortnames() != "" {
		return ""
	}
	typed := ne.GetSpecifiedName()
	var names []string
	c.Flags().VisitAll(func(f *pflag.Flag) {
		close := levenshtein(typed, f.Name) <= 2 && len(typed) > 2
		prefix := len(typed) >= 3 && (strings.HasPrefix(f.Name, typed) || strings.HasPrefix(typed, f.Name))
		if !f.Hidden && (close || prefix) {
			names = append(names, "--"+f.Name)
		}
	})
	return didYouMean(names)
}

func didYouMean(names []string) string {
	if len(names) == 0 {
		return ""
	}
	return "; did you mean " + strings.Join(names, " or ") + "?"
}

// levenshtein is the edit distance between a and b (bytes).
func levenshtein(a, b string) int {
	prev := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur := make([]int, len(b)+1)
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev = cur
	}
	return prev[len(b)]
}
