package generate

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"

	"github.com/sqljudge/sqljudge/internal/llm"
)

// ErrQuestionsFailed is wrapped by RunCommand's error when some questions
// got no prediction (Summary.Failed > 0): the run finished, its files are
// written, but predictions.sql holds placeholders for those questions.
// RunCommand returns the summary with it.
var ErrQuestionsFailed = errors.New("questions failed")

// checkEndpoint asks the generating endpoint (llm.Client.Check: GET
// /models) before any question is sent, as eval does before grading with
// a judge: an endpoint that does not answer is an error naming its URL,
// instead of a run that fills predictions.sql with placeholders. check
// false (--llm-check=false, to re-run from the reply cache) skips it.
func checkEndpoint(ctx context.Context, lc llm.Config, check bool) error {
	if !check {
		return nil
	}
	c, err := llm.New(lc)
	if err != nil {
		return InputError{Err: err}
	}
	if err := c.Check(ctx); err != nil {
		return fmt.Errorf("%w (nothing generated; --llm-check=false skips this check, e.g. to re-run from --llm-cache)", err)
	}
	return nil
}

// failedError is the error of a finished run in which sum.Failed
// questions got no prediction, nil when none failed.
func failedError(sum *Summary, out string) error {
	if sum == nil || sum.Failed == 0 {
		return nil
	}
	return fmt.Errorf("%w: %d of %d questions have no prediction (placeholders in %s; their errors are in %s); --resume asks again for them",
		ErrQuestionsFailed, sum.Failed, sum.Questions, filepath.Join(out, PredictionsFile), filepath.Join(out, LedgerFile))
}
