// Package usage marks the errors that are the caller's input (a missing or
// bad option, a file that cannot be read, an output folder in use), not a
// failure of the work. The CLI exits 2 on them.
package usage

import "fmt"

// Error marks Err as the caller's input. Its message is Err's.
type Error struct{ Err error }

// Error returns Err's message.
func (e Error) Error() string { return e.Err.Error() }

// Unwrap returns Err.
func (e Error) Unwrap() error { return e.Err }

// Errorf returns an Error wrapping fmt.Errorf(format, args...).
func Errorf(format string, args ...any) error {
	return Error{fmt.Errorf(format, args...)}
}
