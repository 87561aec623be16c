package eval

import "github.com/sqljudge/sqljudge/internal/usage"

// InputError marks an error that is the caller's input (a missing or bad
// option, a db_id without a database, an output folder that cannot be
// written, a results folder of other settings), not a failure of the run.
// The CLI exits 2 on it. Its message names the flag the option comes from.
type InputError = usage.Error
