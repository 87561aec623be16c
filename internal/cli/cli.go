// Package cli holds sqljudge's commands and flags, and nothing else: each
// command parses its flags and calls the packages that do the work.
package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"runtime/debug"
	"syscall"

	"github.com/spf13/cobra"

	"github.com/sqljudge/sqljudge/internal/bench"
	"github.com/sqljudge/sqljudge/internal/usage"
)

// Version is the release version, set at build time with
// -ldflags "-X github.com/sqljudge/sqljudge/internal/cli.Version=v1.2.3".
var Version = ""

// Exit codes of Main.
const (
	ExitOK    = 0 // the command completed (whatever the verdicts)
	ExitError = 1 // the command failed while running
	ExitUsage = 2 // bad flags or bad input files
)

// Main runs sqljudge with args (without the program name) and returns the
// exit code. It is the whole program: cmd/sqljudge only calls it.
func Main(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	root := newRoot(stdin, stdout, stderr)
	root.SetArgs(args)
	err := root.ExecuteContext(ctx)
	if err == nil {
		return ExitOK
	}
	fmt.Fprintln(stderr, "sqljudge:", err)
	if isUsage(err) {
		return ExitUsage
	}
	return ExitError
}

// isUsage reports whether err is the user's input: a usage.Error (a flag
// error, or a library's input error: agree.InputError, eval.InputError,
// generate.InputError and index.InputError are that type) or a bad input
// file (bench.ErrFormat).
func isUsage(err error) bool {
	var ue usage.Error
	return errors.As(err, &ue) || errors.Is(err, bench.ErrFormat)
}

func newRoot(stdin io.Reader, stdout, stderr io.Writer) *cobra.Command {
	root := &cobra.Command{
		Use:   "sqljudge",
		Short: "Grade text-to-SQL predictions every way the field knows",
		Long: `sqljudge grades the SQL that text-to-SQL systems generate.

It runs gold and predicted queries on the benchmark's databases and reports
execution accuracy as Spider's and BIRD's official scripts compute it, and
Defog SQL-Eval's relaxed match — per item, with parity to the official
evaluators, in parallel, and without letting a prediction hang the run or
change a database.

Start with the demo, which needs no files:

  sqljudge eval --demo

then grade your own predictions, for example on Spider:

  sqljudge eval --gold dev_gold.sql --pred pred.sql --db database/ --out out/`,
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	// --version prints what the version command prints.
	root.Version = version()
	root.SetVersionTemplate("sqljudge {{.Version}}\n")
	root.SetIn(stdin)
	root.SetOut(stdout)
	root.SetErr(stderr)
	root.SetFlagErrorFunc(func(c *cobra.Command, err error) error {
		return usage.Errorf("%w (see %s --help)", err, c.CommandPath())
	})
	root.AddCommand(newEvalCmd(), newTestsuiteCmd(), newAgreeCmd(), newDBCmd(), newIndexCmd(), newMergeCmd(), newServeCmd(), newReportCmd(), newVersionCmd())
	root.AddCommand(newGenerateCmd())
	root.AddCommand(newEquivCmd())
	return root
}

func newVersionCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Print the version of sqljudge",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			fmt.Fprintln(cmd.OutOrStdout(), "sqljudge", version())
			return nil
		},
	}
}

// version returns the release version set at build time, else what
// runtime/debug.ReadBuildInfo recorded: the module version ("(devel)" for
// a build inside the repository, shown as "devel") and the VCS revision,
// with "-dirty" when the work tree had changes and the commit time, e.g.
// "devel (345df72abcde-dirty, 2026-11-23T09:30:00Z)". Without build
// information (go test binaries) it is "devel".
func version() string {
	if Version != "" {
		return Version
	}
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return "devel"
	}
	v := bi.Main.Version
	if v == "" || v == "(devel)" {
		v = "devel"
	}
	var rev, when string
	dirty := false
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.time":
			when = s.Value
		case "vcs.modified":
			dirty = s.Value == "true"
		}
	}
	if rev == "" {
		return v
	}
	if len(rev) > 12 {
		rev = rev[:12]
	}
	if dirty {
		rev += "-dirty"
	}
	if when != "" {
		rev += ", " + when
	}
	return v + " (" + rev + ")"
}
