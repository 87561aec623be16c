package fuzz

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/jackc/pgx/v5/pgconn"
	sqlite3 "github.com/mattn/go-sqlite3"

	"github.com/sqljudge/sqljudge/internal/result"
	"github.com/sqljudge/sqljudge/internal/sandbox"
)

// session is one pair's scratch database on the engine: the schema's
// DDL as the fuzzer wrote it (never sqljudge's rendering of it: the
// point is the engine's reading of the DDL), then databases loaded one
// after another, each queried.
type session interface {
	// load empties the tables and inserts db's rows one by one; the
	// engine refuses some (a key, NOT NULL, a foreign key): the result
	// holds those it took, in order.
	load(ctx context.Context, db *database) (*database, error)
	// query runs a query on the rows loaded last.
	query(ctx context.Context, q string) (*result.Set, error)
	// storage returns the storage classes (typeof) column i of t holds,
	// on an engine where a column may hold several; nil elsewhere.
	storage(ctx context.Context, t *table, i int) ([]string, error)
	// sumInRange reports whether the magnitudes of column i of t sum
	// below 2^63 (the kernel's sum_in_range fact: on SQLite AVG and TOTAL
	// of integers are then exact, in any order); true on an engine that
	// sums integers exactly.
	sumInRange(ctx context.Context, t *table, i int) (bool, error)
	// stored returns the rows loaded last as the engine stores them (the
	// INSERTs of kept may leave it to the engine to fill a value: SQLite
	// numbers the rowid of an INTEGER PRIMARY KEY given NULL), in scan
	// order: the database to insert again in another order.
	stored(ctx context.Context, kept *database) (*database, error)
	close()
}

// maxRows caps a query's result: a query past it is skipped on that
// database, as one that fails.
const maxRows = 10_000

// errManyRows is a SQLite query's error past maxRows: the harness's
// limit, not the engine's failure.
var errManyRows = fmt.Errorf("more than %d rows", maxRows)

// engineFailure reports whether err, a query's error on a database, is
// the engine's failure on its data or types (what a proof must see
// alike in both queries: SQLite's integer overflow, a string too big;
// PostgreSQL's data exceptions, class 22, a subquery of more than one
// row, 21000, and its typing errors, class 42) rather than the
// harness's limit (maxRows, the time limit, a lost connection).
func engineFailure(ctx context.Context, err error) bool {
	if err == nil || ctx.Err() != nil || errors.Is(err, errManyRows) || errors.Is(err, context.DeadlineExceeded) || errors.Is(err, context.Canceled) {
		return false
	}
	var se sqlite3.Error
	if errors.As(err, &se) {
		return se.Code != sqlite3.ErrInterrupt && se.Code != sqlite3.ErrBusy && se.Code != sqlite3.ErrLocked && se.Code != sqlite3.ErrNomem
	}
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		return strings.HasPrefix(pe.Code, "22") || strings.HasPrefix(pe.Code, "42") || pe.Code == "21000"
	}
	return false
}

// sqliteSession is an in-memory SQLite database on one connection, with
// foreign keys enforced.
type sqliteSession struct {
	s    *schema
	db   *sql.DB
	conn *sql.Conn
}

func openSQLite(ctx context.Context, s *schema) (session, error) {
	db, err := sql.Open("sqlite3", ":memory:")
	if err != nil {
		return nil, err
	}
	db.SetMaxOpenConns(1)
	conn, err := db.Conn(ctx)
	if err != nil {
		db.Close()
		return nil, err
	}
	ss := &sqliteSession{s: s, db: db, conn: conn}
	for _, st := range append([]string{"PRAGMA foreign_keys = ON"}, s.ddl()...) {
		if _, err := conn.ExecContext(ctx, st); err != nil {
			ss.close()
			return nil, fmt.Errorf("%s: %w", st, err)
		}
	}
	return ss, nil
}

func (ss *sqliteSession) close() {
	ss.conn.Close()
	ss.db.Close()
}

func (ss *sqliteSession) load(ctx context.Context, db *database) (*database, error) {
	for i := len(ss.s.tables) - 1; i >= 0; i-- {
		if _, err := ss.conn.ExecContext(ctx, "DELETE FROM "+ident(ss.s.tables[i].name)); err != nil {
			return nil, err
		}
	}
	kept := &database{s: db.s, rows: make([][][]value, len(db.rows))}
	for ti, t := range ss.s.tables {
		for _, r := range db.rows[ti] {
			if _, err := ss.conn.ExecContext(ctx, insertSQL(ss.s.d, t, r)); err == nil {
				kept.rows[ti] = append(kept.rows[ti], r)
			} else if ctx.Err() != nil {
				return nil, ctx.Err()
			}
		}
	}
	return kept, nil
}

// query reads the result through the driver with the declared types'
// conversions off, as sqljudge's SQLite engine does: each cell keeps its
// storage class.
func (ss *sqliteSession) query(ctx context.Context, q string) (*result.Set, error) {
	var set *result.Set
	err := ss.conn.Raw(func(dc any) error {
		c, ok := dc.(*sqlite3.SQLiteConn)
		if !ok {
			return errors.New("fuzz: not a SQLite connection")
		}
		rows, err := c.QueryContext(ctx, q, nil)
		if err != nil {
			return err
		}
		defer rows.Close()
		sr := rows.(*sqlite3.SQLiteRows)
		dt := sr.DeclTypes()
		for i := range dt {
			dt[i] = ""
		}
		set = &result.Set{Columns: sr.Columns()}
		dest := make([]driver.Value, len(set.Columns))
		for {
			if err := sr.Next(dest); err == io.EOF {
				return nil
			} else if err != nil {
				return err
			}
			if len(set.Rows) == maxRows {
				return errManyRows
			}
			row := make([]result.Value, len(dest))
			for i, v := range dest {
				row[i] = cell(v)
			}
			set.Rows = append(set.Rows, row)
		}
	})
	return set, err
}

// cell maps a driver value (a storage class) onto sqljudge's values.
func cell(v driver.Value) result.Value {
	switch x := v.(type) {
	case int64:
		return result.IntValue(x)
	case float64:
		return result.FloatValue(x)
	case string:
		return result.TextValue(x)
	case []byte:
		return result.BlobValue(append([]byte(nil), x...))
	}
	return result.NullValue()
}

func (ss *sqliteSession) storage(ctx context.Context, t *table, i int) ([]string, error) {
	q := fmt.Sprintf("SELECT DISTINCT typeof(%s) FROM %s WHERE %s IS NOT NULL", ident(t.cols[i].name), ident(t.name), ident(t.cols[i].name))
	set, err := ss.query(ctx, q)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, r := range set.Rows {
		out = append(out, r[0].S)
	}
	return out, nil
}

func (ss *sqliteSession) sumInRange(ctx context.Context, t *table, i int) (bool, error) {
	c := ident(t.cols[i].name)
	set, err := ss.query(ctx, fmt.Sprintf("SELECT count(*) FROM %s HAVING total(abs(%s)) >= 9.2e18", ident(t.name), c))
	if err != nil {
		return false, err
	}
	return len(set.Rows) == 0, nil
}

func (ss *sqliteSession) stored(ctx context.Context, kept *database) (*database, error) {
	out := &database{s: kept.s, rows: make([][][]value, len(kept.rows))}
	for ti, t := range ss.s.tables {
		set, err := ss.query(ctx, "SELECT * FROM "+ident(t.name))
		if err != nil {
			return nil, err
		}
		for _, r := range set.Rows {
			row := make([]value, len(r))
			for i, v := range r {
				row[i] = valueOf(v)
			}
			out.rows[ti] = append(out.rows[ti], row)
		}
	}
	return out, nil
}

// valueOf is the literal of a stored value.
func valueOf(v result.Value) value {
	switch v.K {
	case result.Int:
		return intVal(v.I)
	case result.Float:
		return realVal(v.F)
	case result.Text:
		return textVal(v.S)
	case result.Blob:
		return blobVal(v.S)
	}
	return value{}
}

// serverSession runs a pair on a server sandbox's scratch database
// (PostgreSQL), one the worker keeps for all its pairs: nothing of a
// pair is ever committed. Each database is an empty Load (the last
// one's transaction rolled back: its tables go with it) then, in one
// Exec, the schema's DDL and every INSERT; when the server refuses a row,
// again with the DDL alone and one Exec a row (a savepoint each: a row
// the server refuses is rolled back alone).
type serverSession struct {
	s  *schema
	sc sandbox.Scratch
}

func openServer(sc sandbox.Scratch, s *schema) session {
	return &serverSession{s: s, sc: sc}
}

// close rolls the last database back (the next Load would too).
func (ss *serverSession) close() { _ = ss.sc.Load(context.Background(), nil) }

func (ss *serverSession) load(ctx context.Context, db *database) (*database, error) {
	all := ss.s.ddl()
	for ti, t := range ss.s.tables {
		for _, r := range db.rows[ti] {
			all = append(all, insertSQL(ss.s.d, t, r))
		}
	}
	if err := ss.sc.Load(ctx, nil); err != nil {
		return nil, err
	}
	err := ss.sc.Exec(ctx, all)
	if err == nil {
		return db, nil
	}
	if ctx.Err() != nil || isSetup(err) {
		return nil, err
	}
	if err := ss.sc.Exec(ctx, ss.s.ddl()); err != nil {
		if ctx.Err() != nil || isSetup(err) {
			return nil, err
		}
		return nil, &ddlError{err}
	}
	kept := &database{s: db.s, rows: make([][][]value, len(db.rows))}
	for ti, t := range ss.s.tables {
		for _, r := range db.rows[ti] {
			if err := ss.sc.Exec(ctx, []string{insertSQL(ss.s.d, t, r)}); err == nil {
				kept.rows[ti] = append(kept.rows[ti], r)
			} else if ctx.Err() != nil || isSetup(err) {
				return nil, err
			}
		}
	}
	return kept, nil
}

// ddlError is the engine's refusal of a schema's DDL (a generator's
// bug: none is expected).
type ddlError struct{ err error }

func (e *ddlError) Error() string { return "the engine refuses the DDL: " + e.err.Error() }

func (e *ddlError) Unwrap() error { return e.err }

// isSetup reports whether err is the sandbox's own failure rather than
// a row the server refused.
func isSetup(err error) bool {
	var se *sandbox.SetupError
	return errors.As(err, &se) || strings.Contains(err.Error(), "conn closed")
}

func (ss *serverSession) query(ctx context.Context, q string) (*result.Set, error) {
	return ss.sc.Query(ctx, q)
}

func (ss *serverSession) storage(context.Context, *table, int) ([]string, error) { return nil, nil }

func (ss *serverSession) sumInRange(context.Context, *table, int) (bool, error) { return true, nil }

// stored is kept: no column of the fuzzer's PostgreSQL schemas is filled
// by the server.
func (ss *serverSession) stored(_ context.Context, kept *database) (*database, error) {
	return kept, nil
}
