package engine

import (
	"context"
	"database/sql/driver"
	"errors"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/sqljudge/sqljudge/internal/result"
)

func TestCollectorCaps(t *testing.T) {
	// Two cells of 10 letters cost 2*(40+10) = 100 bytes a row.
	row := func() []result.Value {
		return []result.Value{result.TextValue("abcdefghij"), result.TextValue("klmnopqrst")}
	}
	c := NewCollector("db", []string{"a", "b"}, Limits{MaxRows: 3, MaxBytes: 250})
	for i := range 2 {
		if err := c.Add(row()); err != nil {
			t.Fatalf("row %d: %v", i, err)
		}
	}
	err := c.Add(row()) // 300 bytes > 250
	if !errors.Is(err, ErrTooLarge) || !strings.Contains(err.Error(), "more than 250 bytes") {
		t.Fatalf("third row past 250 bytes: err = %v", err)
	}
	if len(c.Set.Rows) != 2 {
		t.Errorf("rows after the byte cap = %d, want 2", len(c.Set.Rows))
	}

	c = NewCollector("db", []string{"a"}, Limits{MaxRows: 2, MaxBytes: 1 << 20})
	for range 2 {
		if err := c.Add([]result.Value{result.IntValue(1)}); err != nil {
			t.Fatal(err)
		}
	}
	if !c.Full() {
		t.Error("Full() = false with MaxRows rows")
	}
	if err := c.Add([]result.Value{result.IntValue(1)}); !errors.Is(err, ErrTooLarge) || !strings.Contains(err.Error(), "more than 2 rows") {
		t.Errorf("third row past 2 rows: err = %v", err)
	}
}

func TestAddRaw(t *testing.T) {
	text := func(b []byte) (result.Value, error) { return result.TextValue(string(b)), nil }
	bad := func([]byte) (result.Value, error) { return result.Value{}, errors.New("not a number") }
	c := NewCollector("db", []string{"t", "n"}, Limits{}.WithDefaults())
	if err := AddRaw(c, [][]byte{[]byte("ok"), nil}, []RawDecoder{text, bad}, []string{`"t"`, `"n"`}); err != nil {
		t.Fatal(err)
	}
	if got := c.Set.Rows[0]; got[0] != result.TextValue("ok") || got[1].K != result.Null || c.Set.InvalidUTF8 {
		t.Errorf("row = %v, InvalidUTF8 = %v", got, c.Set.InvalidUTF8)
	}
	if err := AddRaw(c, [][]byte{[]byte("a\xffb"), nil}, []RawDecoder{text, bad}, []string{`"t"`, `"n"`}); err != nil || !c.Set.InvalidUTF8 {
		t.Errorf("invalid UTF-8: err = %v, InvalidUTF8 = %v", err, c.Set.InvalidUTF8)
	}
	err := AddRaw(c, [][]byte{nil, []byte("x")}, []RawDecoder{text, bad}, []string{`"t"`, `"n" (NUMERIC)`})
	if err == nil || err.Error() != `column "n" (NUMERIC): not a number` {
		t.Errorf("decoder error = %v", err)
	}
}

func TestStatementTimeout(t *testing.T) {
	if d := StatementTimeout(context.Background(), 0); d != 0 {
		t.Errorf("no deadline, no fallback: %v", d)
	}
	if d := StatementTimeout(context.Background(), 1500*time.Microsecond); d != 2*time.Millisecond {
		t.Errorf("fallback 1.5ms: %v, want 2ms", d)
	}
	ctx, cancel := context.WithTimeout(context.Background(), -time.Second)
	defer cancel()
	if d := StatementTimeout(ctx, time.Hour); d != time.Millisecond {
		t.Errorf("passed deadline: %v, want 1ms", d)
	}
	ctx, cancel = context.WithTimeout(context.Background(), time.Hour)
	defer cancel()
	if d := StatementTimeout(ctx, time.Second); d <= 59*time.Minute || d > time.Hour || d%time.Millisecond != 0 {
		t.Errorf("an hour's deadline: %v", d)
	}
}

func TestPools(t *testing.T) {
	closed := map[string]int{}
	closeErr := errors.New("closed")
	ps := NewPools(func(p string) error { closed[p]++; return nil }, closeErr)
	opens := 0
	open := func(key string) func() (string, error) {
		return func() (string, error) { opens++; return key, nil }
	}
	for range 2 {
		if p, err := ps.Get("a", open("a")); err != nil || p != "a" {
			t.Fatalf("Get(a) = %q, %v", p, err)
		}
	}
	if opens != 1 {
		t.Errorf("opened %d times, want once", opens)
	}
	if err := ps.Release("a"); err != nil || closed["a"] != 1 {
		t.Errorf("Release: %v, closed %d", err, closed["a"])
	}
	if _, err := ps.Get("a", open("a")); err != nil || opens != 2 {
		t.Errorf("Get after Release: %v, opens %d", err, opens)
	}
	if err := ps.Close(); err != nil || closed["a"] != 2 {
		t.Errorf("Close: %v, closed %d", err, closed["a"])
	}
	if _, err := ps.Get("a", open("a")); !errors.Is(err, closeErr) {
		t.Errorf("Get after Close: %v, want %v", err, closeErr)
	}
}

// fakeRows is a driver.Rows over fixed integer rows.
type fakeRows struct {
	cols []string
	rows [][]int64
}

func (f *fakeRows) Columns() []string { return f.cols }
func (f *fakeRows) Close() error      { return nil }
func (f *fakeRows) Next(dest []driver.Value) error {
	if len(f.rows) == 0 {
		return io.EOF
	}
	for i, v := range f.rows[0] {
		dest[i] = v
	}
	f.rows = f.rows[1:]
	return nil
}

// TestReadRowsKeepsRowsApart reads 200 rows (more than one block of
// cells) and checks every row's values, and that growing one row never
// writes into the next.
func TestReadRowsKeepsRowsApart(t *testing.T) {
	src := &fakeRows{cols: []string{"a", "b"}}
	for i := range int64(200) {
		src.rows = append(src.rows, []int64{i, -i})
	}
	set, err := ReadRows("db", src, Limits{}.WithDefaults(), func(c *Collector, _ int, v driver.Value) result.Value { return c.Value(v) })
	if err != nil {
		t.Fatal(err)
	}
	if len(set.Rows) != 200 {
		t.Fatalf("%d rows, want 200", len(set.Rows))
	}
	for i, r := range set.Rows {
		if len(r) != 2 || cap(r) != 2 || r[0] != result.IntValue(int64(i)) || r[1] != result.IntValue(-int64(i)) {
			t.Fatalf("row %d = %v (cap %d)", i, r, cap(r))
		}
	}
	_ = append(set.Rows[10], result.TextValue("x"))
	if set.Rows[11][0] != result.IntValue(11) {
		t.Errorf("appending to row 10 changed row 11: %v", set.Rows[11])
	}
}
