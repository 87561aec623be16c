package explain

import (
	"context"
	"errors"
	"strings"
	"testing"
)

func scratch(t *testing.T, ddl ...string) *Scratch {
	t.Helper()
	s, err := NewScratch(context.Background(), ddl)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// TestSameReading: a renaming (aliases, qualification, case, an output
// alias replaced by its expression) compiles to the query's program; a
// text that reads another column, a string for a name or the rowid for a
// string does not, and the mismatch names the first differing
// instruction.
func TestSameReading(t *testing.T) {
	s := scratch(t, "CREATE TABLE t (a INT NOT NULL, b INT NOT NULL)", `CREATE TABLE "S" (c TEXT)`)
	ctx := context.Background()
	alike := [][2]string{
		{"SELECT b AS a FROM t ORDER BY a", "SELECT a1.b FROM t AS a1 ORDER BY a1.b"},
		{`SELECT T.a FROM t AS T JOIN S ON "c" = t.b WHERE a > 1`, "SELECT a1.a FROM t AS a1 JOIN s AS a2 ON a2.c = a1.b WHERE a1.a > 1"},
		{"SELECT count(*) AS n FROM t GROUP BY b HAVING n > 1", "SELECT count(*) FROM t AS a1 GROUP BY a1.b HAVING count(*) > 1"},
	}
	for _, p := range alike {
		if err := s.SameReading(ctx, p[0], p[1]); err != nil {
			t.Errorf("%v", err)
		}
	}
	differ := [][2]string{
		{"SELECT b AS a FROM t ORDER BY a * 3", "SELECT a1.b FROM t AS a1 ORDER BY a1.b * 3"},
		{`SELECT "rowid", a FROM t`, "SELECT 'rowid', a1.a FROM t AS a1"},
		{`SELECT a FROM t WHERE "b" = 1`, "SELECT a1.a FROM t AS a1 WHERE 'b' = 1"},
	}
	for _, p := range differ {
		var m *Mismatch
		if err := s.SameReading(ctx, p[0], p[1]); !errors.As(err, &m) || m.Err != nil || m.Want == m.Got {
			t.Errorf("%s / %s: read alike (%v)", p[0], p[1], err)
		}
	}
}

// TestHostileTexts: a second statement is never run, nor compiled; a
// name SQLite does not resolve is a mismatch carrying SQLite's error; a
// scratch database refuses a DDL of two statements.
func TestHostileTexts(t *testing.T) {
	s := scratch(t, "CREATE TABLE t (a INT)")
	ctx := context.Background()
	var m *Mismatch
	err := s.SameReading(ctx, "SELECT a FROM t; DROP TABLE t", "SELECT a1.a FROM t AS a1")
	if !errors.As(err, &m) || m.Err == nil || !strings.Contains(err.Error(), "more than one statement") {
		t.Errorf("two statements: %v", err)
	}
	if _, err := s.Program(ctx, "SELECT a FROM t"); err != nil {
		t.Errorf("the table is gone: %v", err)
	}
	if err := s.SameReading(ctx, "SELECT nope FROM t", "SELECT nope FROM t"); !errors.As(err, &m) || m.Err == nil {
		t.Errorf("an unresolved name: %v", err)
	}
	if _, err := s.Program(ctx, "PRAGMA table_info(t)"); err == nil {
		t.Errorf("a PRAGMA compiles")
	}
	if _, err := NewScratch(ctx, []string{"CREATE TABLE u (a); DROP TABLE u"}); err == nil {
		t.Errorf("a DDL of two statements is run")
	}
}
