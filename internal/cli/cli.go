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
	"strings"
	"syscall"

	"github.com/spf13/cobra"
	"golang.org/x/mod/module"

	"github.com/sqljudge/sqljudge/internal/bench"
	"github.com/sqljudge/sqljudge/internal/serve"
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
	// ExitDrainCut: serve stopped with requests in flight (--drain ran
	// out, or a second signal); they were answered with their unfinished
	// items as errors (serve.ErrDrainCut).
	ExitDrainCut = 3
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
	if errors.Is(err, serve.ErrDrainCut) {
		return ExitDrainCut
	}
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

// Command returns the sqljudge command tree as Main builds it, reading an
// empty stdin and writing nowhere: for tests that check a command line
// against the CLI's own commands and flags (internal/deploytest checks
// the Kubernetes manifests with it). Run nothing through it.
func Command() *cobra.Command {
	return newRoot(eofReader{}, io.Discard, io.Discard)
}

// eofReader is an empty stdin.
type eofReader struct{}

func (eofReader) Read([]byte) (int, error) { return 0, io.EOF }

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
		if isGroup(c) && c.Flags().NArg() > 0 {
			// "sqljudge evl --demo": the command is what is wrong.
			return runGroup(c, c.Flags().Args())
		}
		return usage.Errorf("%w%s (see %s --help)", err, flagSuggestion(c, err), c.CommandPath())
	})
	root.AddCommand(newEvalCmd(), newTestsuiteCmd(), newAgreeCmd(), newDBCmd(), newIndexCmd(), newMergeCmd(), newServeCmd(), newReportCmd(), newVersionCmd())
	root.AddCommand(newGenerateCmd())
	root.AddCommand(newEquivCmd())
	root.AddCommand(newAuditCmd())
	guardGroups(root)
	guardArgs(root)
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
// runtime/debug.ReadBuildInfo recorded (see formatVersion). Without build
// information (go test binaries) it is "devel".
func version() string {
	if Version != "" {
		return Version
	}
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return "devel"
	}
	return formatVersion(bi.Main.Version, bi.Settings)
}

// formatVersion renders the main module's version and the VCS settings of
// a build. A build from the module proxy (`go install
// github.com/sqljudge/sqljudge/cmd/sqljudge@v1.2.3`) has no VCS settings
// and prints its module version ("v1.2.3"). A build inside a checkout
// records the commit: at a tag with a clean work tree it prints the tag;
// otherwise (Go stamps a pseudo-version such as
// v0.0.0-20261126120000-36fdd6f01234, with "+dirty" for a changed work
// tree) "devel (commit <12 hex digits>[-dirty], <commit time>)". Without
// either it is "devel" (a -buildvcs=false build).
func formatVersion(mod string, settings []debug.BuildSetting) string {
	var rev, when string
	dirty := false
	for _, s := range settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.time":
			when = s.Value
		case "vcs.modified":
			dirty = s.Value == "true"
		}
	}
	known := mod != "" && mod != "(devel)"
	switch {
	case rev == "" && known:
		return mod
	case rev == "":
		return "devel"
	case known && !dirty && !strings.HasSuffix(mod, "+dirty") && !module.IsPseudoVersion(mod):
		return mod
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
	return "devel (commit " + rev + ")"
}
