package engine

import (
	"database/sql/driver"
	"fmt"
	"io"
	"runtime"
	"unicode/utf8"

	"github.com/sqljudge/sqljudge/internal/membudget"
	"github.com/sqljudge/sqljudge/internal/result"
)

// Limits are the caps every engine puts on one query's result.
type Limits struct {
	// MaxRows is the row cap: a result with more rows is ErrTooLarge.
	MaxRows int
	// MaxBytes is the byte cap, the sum of CellBytes over the result: a
	// larger result is ErrTooLarge.
	MaxBytes int64
	// Ledger, if set, is the memory budget's account a result is charged
	// to as it is read (serve's --max-memory): a row that does not fit
	// is ErrTooLarge wrapping membudget.ErrFull or membudget.ErrTooLarge.
	// An engine sets it per query from its context (membudget.From).
	Ledger *membudget.Ledger
}

// chargeStep is the granularity of a result's charges to a Ledger: a
// result is charged ahead, in steps of 16 KiB.
const chargeStep = 16 << 10

// WithDefaults returns l with DefaultMaxRows for a MaxRows <= 0 and
// DefaultMaxBytes for a MaxBytes <= 0.
func (l Limits) WithDefaults() Limits {
	if l.MaxRows <= 0 {
		l.MaxRows = DefaultMaxRows
	}
	if l.MaxBytes <= 0 {
		l.MaxBytes = DefaultMaxBytes
	}
	return l
}

// Collector builds the result of one query on database db row by row under
// Limits: the one place every engine counts rows and bytes.
type Collector struct {
	// Set is the result so far.
	Set  *result.Set
	db   string
	lim  Limits
	size int64

	charge  *membudget.Charge // the result's charge to lim.Ledger
	charged int64             // its bytes
}

// NewCollector returns a collector of a result with the given column names
// (copied) for a query on database db.
func NewCollector(db string, columns []string, lim Limits) *Collector {
	return &Collector{Set: &result.Set{Columns: append([]string(nil), columns...)}, db: db, lim: lim}
}

// Full reports whether the result already holds MaxRows rows, so that one
// more row makes it ErrTooLarge; an engine that can stop the query before
// reading that row asks first.
func (c *Collector) Full() bool { return len(c.Set.Rows) >= c.lim.MaxRows }

// Add appends row. It returns TooLarge when the result already holds
// MaxRows rows, and TooLargeBytes when row brings its size (CellBytes)
// past MaxBytes; the row is not added then.
func (c *Collector) Add(row []result.Value) error {
	if c.Full() {
		return TooLarge(c.db, c.lim.MaxRows)
	}
	for _, v := range row {
		c.size += CellBytes(v)
	}
	if c.size > c.lim.MaxBytes {
		return TooLargeBytes(c.db, c.lim.MaxBytes)
	}
	if c.lim.Ledger != nil {
		if err := c.chargeRow(); err != nil {
			return err
		}
	}
	c.Set.Rows = append(c.Set.Rows, row)
	return nil
}

// chargeRow charges the result, one more row included (SetBytes: its
// cells and a row header of 24 bytes each), to the Ledger, ahead in steps
// of chargeStep. The first charge registers a cleanup that frees it when
// the garbage collector finds the set unreachable, and names it by the
// set (membudget.Ledger.ChargeOf: the gold cache keeps it). A charge that
// does not fit drops the result's (the query fails).
func (c *Collector) chargeRow() error {
	want := c.size + 24*int64(len(c.Set.Rows)+1) + 64
	if want <= c.charged {
		return nil
	}
	want = (want + chargeStep - 1) / chargeStep * chargeStep
	var err error
	if c.charge == nil {
		if c.charge, err = c.lim.Ledger.Charge(want); err == nil {
			c.lim.Ledger.Name(c.Set, c.charge)
			runtime.AddCleanup(c.Set, (*membudget.Charge).Free, c.charge)
		}
	} else {
		err = c.lim.Ledger.Grow(c.charge, want-c.charged)
	}
	if err != nil {
		c.Drop()
		return &QueryError{DB: c.db, Err: fmt.Errorf("%w: %w", ErrTooLarge, err)}
	}
	c.charged = want
	return nil
}

// Drop lets the result's charge go (the query failed and its rows are
// dropped); nothing without a Ledger.
func (c *Collector) Drop() {
	if c.charge != nil {
		c.lim.Ledger.Drop(c.charge)
		c.charge.Free()
		c.charge = nil
	}
}

// Text returns the text value of s (result.TextValue drops invalid UTF-8),
// and marks the result InvalidUTF8 when s was not valid UTF-8.
func (c *Collector) Text(s string) result.Value {
	if utf8.ValidString(s) {
		return result.Value{K: result.Text, S: s} // TextValue would check again
	}
	c.Set.InvalidUTF8 = true
	return result.TextValue(s)
}

// Value maps a driver value of the basic kinds database/sql/driver defines
// (nil, int64, float64, bool, string, []byte: SQLite's storage classes) onto
// the typed value model: Null, Int, Float, Bool, Text (see Text), Blob (b
// copied). Any other value becomes the Text of fmt.Sprint.
func (c *Collector) Value(v driver.Value) result.Value {
	switch x := v.(type) {
	case nil:
		return result.NullValue()
	case int64:
		return result.IntValue(x)
	case float64:
		return result.FloatValue(x)
	case bool:
		return result.BoolValue(x)
	case string:
		return c.Text(x)
	case []byte:
		return result.BlobValue(x)
	}
	return result.TextValue(fmt.Sprint(v))
}

// ReadRows reads rows, a driver's own result (read below database/sql, so
// that no conversion of database/sql applies), into a result under lim;
// value maps the driver value of column i (see Collector.Value for the
// basic kinds). It stops at the first error: the driver's, or ErrTooLarge
// from Collector.Add.
func ReadRows(db string, rows driver.Rows, lim Limits, value func(c *Collector, i int, v driver.Value) result.Value) (*result.Set, error) {
	c := NewCollector(db, rows.Columns(), lim)
	dest := make([]driver.Value, len(c.Set.Columns))
	var slab RowSlab
	for {
		if err := rows.Next(dest); err != nil {
			if err == io.EOF {
				return c.Set, nil
			}
			c.Drop()
			return nil, err
		}
		if c.Full() {
			c.Drop()
			return nil, TooLarge(db, lim.MaxRows)
		}
		row := slab.Next(len(dest))
		for i, v := range dest {
			row[i] = value(c, i, v)
		}
		if err := c.Add(row); err != nil {
			c.Drop()
			return nil, err
		}
	}
}

// RowSlab hands out rows cut from shared blocks of cells, one allocation
// per block instead of one per row. A block holds up to slabRows rows,
// fewer for the first blocks (so a one-row result allocates one row); a
// row's capacity is its length, so an append to it copies instead of
// running into the next row. The zero RowSlab is ready to use.
type RowSlab struct {
	cells []result.Value
	rows  int // rows handed out so far
}

// slabRows is the most rows one block holds.
const slabRows = 64

// Next returns a new row of n cells.
func (s *RowSlab) Next(n int) []result.Value {
	if n == 0 {
		return []result.Value{}
	}
	if len(s.cells) < n {
		s.cells = make([]result.Value, n*min(max(s.rows, 1), slabRows))
	}
	s.rows++
	row := s.cells[:n:n]
	s.cells = s.cells[n:]
	return row
}

// RawDecoder decodes one non-NULL cell of a text-protocol result (MySQL's
// and PostgreSQL's) from its bytes.
type RawDecoder func([]byte) (result.Value, error)

// AddRaw decodes one row of a text-protocol result, raw (a nil cell is
// NULL), with the column decoders decs, and adds it (Collector.Add; a row
// past MaxRows is ErrTooLarge before it is decoded). A Text value whose bytes were not valid UTF-8 marks the result InvalidUTF8. A
// decoder's error is returned as "column <desc[i]>: <error>".
func AddRaw[B ~[]byte](c *Collector, raw []B, decs []RawDecoder, desc []string) error {
	if c.Full() {
		return TooLarge(c.db, c.lim.MaxRows)
	}
	row := make([]result.Value, len(raw))
	for i, b := range raw {
		if b == nil {
			row[i] = result.NullValue()
			continue
		}
		v, err := decs[i](b)
		if err != nil {
			return fmt.Errorf("column %s: %w", desc[i], err)
		}
		if v.K == result.Text && !utf8.Valid(b) {
			c.Set.InvalidUTF8 = true
		}
		row[i] = v
	}
	return c.Add(row)
}
