package engine

import (
	"fmt"
	"slices"
	"strings"

	"github.com/sqljudge/sqljudge/internal/sqllex"
)

// QueryKeywords are the first keywords a query may start with on the
// server engines (PostgreSQL, MySQL/MariaDB): the statements that only read
// and return rows. Anything else (INSERT, SET, COPY, CALL, LOCK, DO, ...) is
// rejected before it reaches the server, on top of the read-only
// transaction every query runs in.
var QueryKeywords = []string{"SELECT", "WITH", "VALUES", "TABLE", "SHOW"}

// FirstKeyword returns the first word of q, upper-cased, skipping
// whitespace, comments and opening parentheses; "" when q has none (it is
// blank or starts with something else, such as a string).
func FirstKeyword(q string) string {
	for i := 0; i < len(q); {
		t, next := sqllex.Next(q, i)
		i = next
		switch t.Kind {
		case sqllex.Space, sqllex.Comment:
			continue
		case sqllex.Punct:
			if t.Text == "(" {
				continue
			}
			return ""
		case sqllex.Word:
			return strings.ToUpper(t.Text)
		default:
			return ""
		}
	}
	return ""
}

// CheckStatement applies the statement rules every engine shares before a
// query runs on database db: a NUL character anywhere is ErrRejected (as
// Python's sqlite3 raises "the query contains a null character"; SQLite
// itself would stop reading at the NUL and run what precedes it), more
// than one statement is ErrRejected (as Python's sqlite3 refuses it), and
// so is a statement whose first keyword is
// not one of allowed (compared upper-case; no check when allowed is empty).
// blank is true when q holds no statement at all (only whitespace, comments
// and semicolons): the engine then returns an empty result without running
// anything, as Python's sqlite3 does. A rejection is a *QueryError.
func CheckStatement(db, q string, allowed []string) (blank bool, err error) {
	if strings.ContainsRune(q, 0) {
		return false, &QueryError{DB: db, Err: fmt.Errorf("%w: the query contains a null character", ErrRejected)}
	}
	if _, more := sqllex.FirstStatement(q); more {
		return false, &QueryError{DB: db, Err: fmt.Errorf("%w: you can only execute one statement at a time", ErrRejected)}
	}
	if sqllex.IsBlank(q) {
		return true, nil
	}
	if len(allowed) == 0 {
		return false, nil
	}
	kw := FirstKeyword(q)
	if !slices.Contains(allowed, kw) {
		if kw == "" {
			kw = "something else"
		}
		return false, &QueryError{DB: db, Err: fmt.Errorf("%w: only queries run here (%s), not %s", ErrRejected, strings.Join(allowed, ", "), kw)}
	}
	return false, nil
}
