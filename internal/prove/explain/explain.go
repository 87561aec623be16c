package explain

import (
	"context"
	"database/sql"
	"fmt"
	"sync/atomic"

	sqlite3 "github.com/mattn/go-sqlite3"

	"github.com/sqljudge/sqljudge/internal/prove/check"
	"github.com/sqljudge/sqljudge/internal/sqllex"
)

// driverName is the SQLite driver of scratch databases (harden).
const driverName = "sqljudge-sqlite3-explain"

func init() {
	sql.Register(driverName, &sqlite3.SQLiteDriver{ConnectHook: harden})
}

// maxQueryBytes bounds the text SQLite is asked to compile (1 MiB).
const maxQueryBytes = 1 << 20

// harden lets a scratch connection create its tables and compile
// statements, and nothing else: no ATTACH, no PRAGMA. EXPLAIN lists a
// program without running it, so no function of a query is called.
func harden(c *sqlite3.SQLiteConn) error {
	c.SetLimit(sqlite3.SQLITE_LIMIT_ATTACHED, 0)
	c.SetLimit(sqlite3.SQLITE_LIMIT_LENGTH, maxQueryBytes)
	c.RegisterAuthorizer(func(op int, _, _, _ string) int {
		switch op {
		case sqlite3.SQLITE_ATTACH, sqlite3.SQLITE_DETACH, sqlite3.SQLITE_PRAGMA:
			return sqlite3.SQLITE_DENY
		}
		return sqlite3.SQLITE_OK
	})
	return nil
}

// scratchCount names each scratch database apart (a private in-memory
// database per name).
var scratchCount atomic.Int64

// Scratch is an empty in-memory SQLite database holding a pair's tables,
// whose compiler reads the queries of a proof.
type Scratch struct {
	db *sql.DB
}

// NewScratch creates the tables of ddl (CREATE TABLE statements, each
// one statement, run in order) in a new private in-memory SQLite
// database. The error names the statement SQLite refuses.
func NewScratch(ctx context.Context, ddl []string) (*Scratch, error) {
	name := fmt.Sprintf("file:sqljudge-explain-%d?mode=memory&cache=private", scratchCount.Add(1))
	db, err := sql.Open(driverName, name)
	if err != nil {
		return nil, err
	}
	db.SetMaxOpenConns(1) // one connection: one in-memory database
	for _, st := range ddl {
		err := oneStatement(st)
		if err == nil {
			_, err = db.ExecContext(ctx, st)
		}
		if err != nil {
			db.Close()
			return nil, fmt.Errorf("the scratch database refuses %s: %w", st, err)
		}
	}
	return &Scratch{db: db}, nil
}

// Close frees the scratch database.
func (s *Scratch) Close() error { return s.db.Close() }

// oneStatement refuses a text of more than one statement (the driver
// would run the second).
func oneStatement(q string) error {
	if end, more := sqllex.FirstStatement(q); more {
		return fmt.Errorf("more than one statement (a second starts at byte %d)", end)
	}
	return nil
}

// Instruction is one instruction of a SQLite program (a row of EXPLAIN):
// its opcode and operands. P4 of an Explain instruction (the text of a
// query plan's line, which names table aliases) is left out: it only
// labels the plan.
type Instruction struct {
	Addr           int64
	Opcode         string
	P1, P2, P3, P5 int64
	P4             string
}

// String prints the instruction as EXPLAIN lists it.
func (in Instruction) String() string {
	return fmt.Sprintf("%d %s %d %d %d %q %d", in.Addr, in.Opcode, in.P1, in.P2, in.P3, in.P4, in.P5)
}

// Program returns SQLite's program of q (one statement), compiled
// against the scratch database's tables and not run. The error is
// SQLite's when it refuses q (a name that does not resolve).
func (s *Scratch) Program(ctx context.Context, q string) ([]Instruction, error) {
	if err := oneStatement(q); err != nil {
		return nil, err
	}
	rows, err := s.db.QueryContext(ctx, "EXPLAIN "+q)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []Instruction
	for rows.Next() {
		var in Instruction
		var p4, comment sql.NullString
		if err := rows.Scan(&in.Addr, &in.Opcode, &in.P1, &in.P2, &in.P3, &p4, &in.P5, &comment); err != nil {
			return nil, err
		}
		if in.Opcode != "Explain" {
			in.P4 = p4.String
		}
		out = append(out, in)
	}
	return out, rows.Err()
}

// Mismatch is a renaming SQLite reads otherwise than the kernel: the two
// texts compile to different programs (At is the first instruction that
// differs, nil when a program is shorter), or SQLite refuses one of them.
type Mismatch struct {
	// Where names the step ("q1 step 1 (rename)").
	Where         string
	Before, After string
	// At is the offset of the first differing instruction; Want and Got
	// are Before's and After's instruction there ("" past a program's
	// end).
	At        int
	Want, Got string
	// Err is SQLite's error when it refuses a text.
	Err error
}

// Error says which step SQLite reads otherwise, and how.
func (m *Mismatch) Error() string {
	if m.Err != nil {
		return fmt.Sprintf("%s: SQLite does not compile the renaming: %v", m.Where, m.Err)
	}
	return fmt.Sprintf("%s: SQLite reads the query and its renaming otherwise: instruction %d is %s before, %s after (%s / %s)",
		m.Where, m.At, orEnd(m.Want), orEnd(m.Got), m.Before, m.After)
}

func orEnd(s string) string {
	if s == "" {
		return "the program's end"
	}
	return "«" + s + "»"
}

// SameReading compares SQLite's programs of before and after: nil when
// they are the same instruction for instruction, else a *Mismatch (Where
// left empty) or the context's error.
func (s *Scratch) SameReading(ctx context.Context, before, after string) error {
	pb, err := s.Program(ctx, before)
	if err == nil {
		var pa []Instruction
		if pa, err = s.Program(ctx, after); err == nil {
			return compare(pb, pa, before, after)
		}
	}
	if ctx.Err() != nil {
		return ctx.Err()
	}
	return &Mismatch{Before: before, After: after, Err: err}
}

// compare returns the first instruction at which a and b differ, as a
// *Mismatch, or nil.
func compare(a, b []Instruction, before, after string) error {
	for i := 0; i < len(a) || i < len(b); i++ {
		var x, y string
		if i < len(a) {
			x = a[i].String()
		}
		if i < len(b) {
			y = b[i].String()
		}
		if x != y {
			return &Mismatch{Before: before, After: after, At: i, Want: x, Got: y}
		}
	}
	return nil
}

// Validate checks every renaming step of c (rule check.RuleRename, in
// Q1Steps and Q2Steps) on SQLite: its Before and After must compile to
// the same program on s (SameReading). The other steps start from
// canonical text (check.Check refuses any other), which names every
// column by its table's alias. The error is a *Mismatch naming the step,
// or the context's error.
func Validate(ctx context.Context, s *Scratch, c *check.Certificate) error {
	for qi, steps := range [2][]check.Step{c.Q1Steps, c.Q2Steps} {
		for i, st := range steps {
			if st.Rule != check.RuleRename {
				continue
			}
			if err := s.SameReading(ctx, st.Before, st.After); err != nil {
				if m, ok := err.(*Mismatch); ok {
					m.Where = fmt.Sprintf("q%d step %d (%s)", qi+1, i+1, st.Rule)
				}
				return err
			}
		}
	}
	return nil
}
