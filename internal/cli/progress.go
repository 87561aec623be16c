package cli

import (
	"io"
	"os"

	"github.com/schollz/progressbar/v3"
	"golang.org/x/term"

	"github.com/sqljudge/sqljudge/internal/run"
)

// barProgress shows a progress bar of graded items on stderr.
type barProgress struct {
	w   io.Writer
	bar *progressbar.ProgressBar
}

// newProgress returns a progress bar on w for mode "always", or "auto" when
// w is a terminal; nil otherwise.
func newProgress(mode string, w io.Writer) run.Progress {
	switch mode {
	case "never":
		return nil
	case "always":
	default:
		f, ok := w.(*os.File)
		if !ok || !term.IsTerminal(int(f.Fd())) {
			return nil
		}
	}
	return &barProgress{w: w}
}

func (p *barProgress) Start(total int) {
	p.bar = progressbar.NewOptions(total,
		progressbar.OptionSetWriter(p.w),
		progressbar.OptionSetDescription("grading"),
		progressbar.OptionShowCount(),
		progressbar.OptionShowIts(),
		progressbar.OptionSetItsString("items"),
		progressbar.OptionThrottle(100_000_000),
		progressbar.OptionClearOnFinish(),
	)
}

func (p *barProgress) Done() { _ = p.bar.Add(1) }

func (p *barProgress) Finish() { _ = p.bar.Finish() }
