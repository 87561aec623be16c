// Package engine defines the small interface every database engine of
// sqljudge implements (SQLite, PostgreSQL, MySQL/MariaDB, DuckDB) and the
// errors by which a failed query becomes a verdict rather than a crash.
package engine

import (
	"context"
	"errors"
	"fmt"

	"github.com/sqljudge/sqljudge/internal/result"
	"github.com/sqljudge/sqljudge/internal/status"
)

// DefaultMaxRows is the row cap of a query when none is configured: a
// result with more rows is ErrTooLarge.
const DefaultMaxRows = 100_000

// DefaultMaxBytes is the byte cap of a query result when none is
// configured (256 MiB, see CellBytes): a larger result is ErrTooLarge.
const DefaultMaxBytes = 256 << 20

// cellOverhead is the in-memory size of a result.Value without its text.
const cellOverhead = 40

// CellBytes is what one cell adds to a result's size: the in-memory size of
// a result.Value (40 bytes) plus the length of its text or blob. The byte
// cap of an engine bounds the sum over a result (Collector.Add), so it bounds
// the memory a result holds.
func CellBytes(v result.Value) int64 { return cellOverhead + int64(len(v.S)) }

// SetBytes is the memory a result holds, about: CellBytes for each cell, a
// slice header per row, and the column names. Caches of results bound
// themselves with it.
func SetBytes(s *result.Set) int64 {
	if s == nil {
		return 0
	}
	n := int64(64)
	for _, c := range s.Columns {
		n += 16 + int64(len(c))
	}
	for _, row := range s.Rows {
		n += 24
		for _, v := range row {
			n += CellBytes(v)
		}
	}
	return n
}

// TooLargeBytes returns the error of a result past maxBytes bytes (see
// CellBytes). A single value SQLite refuses to build past its length
// limit gets an error of its own (package sqlite).
func TooLargeBytes(db string, maxBytes int64) error {
	return &QueryError{DB: db, Err: fmt.Errorf("%w: more than %d bytes (--max-bytes)", ErrTooLarge, maxBytes)}
}

// Engine runs read-only queries against named databases.
//
// Implementations open every database read-only (a query can never change a
// byte of it), run one statement per call (a string with a second statement
// is ErrRejected, as Python's sqlite3 refuses it), stop a query when ctx is
// done (ErrTimeout when its deadline passed; the query is interrupted in the
// database, not only abandoned in Go), read at most a configured number of
// rows (ErrTooLarge beyond), and are safe for concurrent use.
type Engine interface {
	// Dialect returns the SQL dialect the engine speaks (see Dialect).
	Dialect() Dialect
	// Check returns nil when database db exists, else an error wrapping
	// ErrNoDatabase that says where it was looked for.
	Check(ctx context.Context, db string) error
	// Query runs sql on database db and returns its rows as typed values.
	// A failing query returns a *QueryError.
	Query(ctx context.Context, db, sql string) (*result.Set, error)
	// Close releases every connection.
	Close() error
}

// Errors a *QueryError wraps, by which a caller tells the verdict status.
var (
	// ErrTimeout: the query ran past its deadline and was interrupted.
	ErrTimeout = errors.New("query timed out")
	// ErrTooLarge: the result has more rows than the row cap or more
	// bytes than the byte cap, or the database ran out of the memory it
	// is allowed.
	ErrTooLarge = errors.New("result too large")
	// ErrRejected: the statement is not allowed (it writes, attaches, sets
	// a pragma, or holds more than one statement).
	ErrRejected = errors.New("statement not allowed")
	// ErrNoDatabase: the named database does not exist.
	ErrNoDatabase = errors.New("database not found")
	// ErrPrivileged: the DSN's role may administer the server (a
	// PostgreSQL superuser, or a member at any depth of a superuser or of
	// pg_read_server_files, pg_signal_backend, pg_monitor and the like:
	// postgres.VetRole), so a prediction could read server files or other
	// sessions' queries, or end them; the engine refuses it unless told
	// otherwise.
	ErrPrivileged = errors.New("the database role may administer the server")
)

// QueryError is the error of a query that did not produce a result: the
// database's own message (a syntax error, a missing column), or one of the
// sentinel errors above.
type QueryError struct {
	// DB is the database the query ran on.
	DB string
	// Err is the cause.
	Err error
}

// Error returns the cause's message.
func (e *QueryError) Error() string { return e.Err.Error() }

// Unwrap returns the cause.
func (e *QueryError) Unwrap() error { return e.Err }

// Classify maps a query error into the verdict vocabulary (package
// status): status.OK for nil, status.Timeout for ErrTimeout,
// status.TooLarge for ErrTooLarge, or the given status for any other
// failure (status.PredError for a predicted query, status.GoldError for a
// gold one).
func Classify(err error, other status.Status) status.Status {
	switch {
	case err == nil:
		return status.OK
	case errors.Is(err, ErrTimeout):
		return status.Timeout
	case errors.Is(err, ErrTooLarge):
		return status.TooLarge
	}
	return other
}

// TimeoutError returns the error a query gets when ctx ended it: ErrTimeout
// when the deadline passed, else ctx's own error (cancellation by the user
// is not a verdict).
func TimeoutError(ctx context.Context, db string) error {
	if errors.Is(ctx.Err(), context.DeadlineExceeded) {
		return &QueryError{DB: db, Err: ErrTimeout}
	}
	return ctx.Err()
}

// TooLarge returns the error of a result past maxRows rows.
func TooLarge(db string, maxRows int) error {
	return &QueryError{DB: db, Err: fmt.Errorf("%w: more than %d rows", ErrTooLarge, maxRows)}
}

// Deterministic reports whether a query's failure err is a property of the
// query and the database, which running it again would give again: a
// syntax error, an unknown column, a refused statement. Timeouts,
// cancellations, results past a cap (SQLite's heap limit is shared by every
// query running at the time), a missing database (it may be added) and
// errors that are not a *QueryError are not; nil is not a failure and
// reports false.
func Deterministic(err error) bool {
	var qe *QueryError
	switch {
	case err == nil, !errors.As(err, &qe):
		return false
	case errors.Is(err, ErrTimeout), errors.Is(err, ErrTooLarge), errors.Is(err, ErrNoDatabase),
		errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded):
		return false
	}
	return true
}
