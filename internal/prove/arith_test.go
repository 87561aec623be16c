package prove

import (
	"context"
	"database/sql"
	"fmt"
	"slices"
	"strings"
	"testing"

	_ "github.com/mattn/go-sqlite3"

	"github.com/sqljudge/sqljudge/internal/prove/check"
)

// arithDDL is the table of TestProveCaseArith, as SQLite reads it.
const arithDDL = "CREATE TABLE t(i INTEGER NOT NULL, j INTEGER, a TEXT, c TEXT COLLATE NOCASE)"

func arithSchema() *check.MapSchema {
	return &check.MapSchema{D: check.SQLite, Tables: []*check.Table{
		{Name: "t", Columns: []check.Column{
			{Name: "i", Family: check.Int, NotNull: true, Affinity: check.AffinityInteger},
			{Name: "j", Family: check.Int, Affinity: check.AffinityInteger},
			{Name: "a", Family: check.Text, Affinity: check.AffinityText},
			{Name: "c", Family: check.Text, Affinity: check.AffinityText, Collation: "nocase"},
		}},
	}}
}

// sqliteBag runs q on a fresh in-memory SQLite database holding rows
// (INSERT statements into arithDDL's t) and returns its rows, each
// printed with its values' storage classes, sorted.
func sqliteBag(t *testing.T, rows, q string) []string {
	t.Helper()
	return sqliteBagOf(t, arithDDL, rows, q)
}

// sqliteRun runs q on a fresh in-memory database of ddl and rows and
// returns its rows, each printed with its storage class, sorted unless
// ordered; an error of q is returned (the database's own are fatal).
func sqliteRun(t *testing.T, ddl, rows, q string, ordered bool) ([]string, error) {
	t.Helper()
	db, err := sql.Open("sqlite3", ":memory:")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	db.SetMaxOpenConns(1)
	for _, st := range []string{ddl, rows} {
		if _, err := db.Exec(st); err != nil {
			t.Fatalf("%s: %v", st, err)
		}
	}
	res, err := db.Query(q)
	if err != nil {
		return nil, err
	}
	defer res.Close()
	cols, _ := res.Columns()
	var out []string
	for res.Next() {
		vals := make([]any, len(cols))
		ptrs := make([]any, len(cols))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		if err := res.Scan(ptrs...); err != nil {
			return nil, err
		}
		out = append(out, fmt.Sprintf("%#v", vals))
	}
	if err := res.Err(); err != nil {
		return nil, err
	}
	if !ordered {
		slices.Sort(out)
	}
	return out, nil
}

// sqliteBagOf is sqliteBag over the tables of ddl.
func sqliteBagOf(t *testing.T, ddl, rows, q string) []string {
	t.Helper()
	out, err := sqliteRun(t, ddl, rows, q, false)
	if err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	return out
}

// TestProveCaseArith: integer arithmetic and searched CASE are encoded as
// SQLite computes them (issue 40): proved where they agree on every
// database; never where a real past 64 bits, truncated division, a NULL
// WHEN, or a CASE's missing affinity or collation tells them apart. Each
// refused pair is run on SQLite with the rows that separate it, so the
// trap is a real one.
func TestProveCaseArith(t *testing.T) {
	s := arithSchema()
	z := solver(t)
	for _, c := range [][2]string{
		{"SELECT i FROM t WHERE i + 5 > 20", "SELECT i FROM t WHERE i > 15"},
		{"SELECT i FROM t WHERE i * 2 = 6", "SELECT i FROM t WHERE i = 3"},
		{"SELECT i FROM t WHERE i / 2 = -2", "SELECT i FROM t WHERE i IN (-4, -5)"}, // truncated: -5 / 2 = -2
		{"SELECT i FROM t WHERE j / i IS NULL", "SELECT i FROM t WHERE i = 0 OR j IS NULL"},
		{"SELECT i + 1 FROM t WHERE i = 10", "SELECT 11 FROM t WHERE i = 10"},
		{"SELECT i + 10 / 2 FROM t", "SELECT i + 5 FROM t"},
		{"SELECT i FROM t WHERE CAST(i + 1 AS INTEGER) = 11", "SELECT i FROM t WHERE i = 10"},
		{"SELECT i FROM t WHERE CASE WHEN j > 10 THEN i ELSE j END = 1", "SELECT i FROM t WHERE j > 10 AND i = 1 OR j = 1"},
		{"SELECT i FROM t WHERE CASE WHEN j = 1 THEN 2 WHEN j = 2 THEN 1 ELSE 3 END = 1", "SELECT i FROM t WHERE j = 2"},
		{"SELECT i FROM t WHERE CASE WHEN j = 1 THEN NULL ELSE 1 END IS NULL", "SELECT i FROM t WHERE j = 1"},
		{"SELECT i FROM t WHERE CASE WHEN j < 10 THEN 1 ELSE 0 END", "SELECT i FROM t WHERE j < 10"},
		{"SELECT i FROM t WHERE j > 0 AND CASE WHEN j > 0 THEN i / j ELSE NULL END > 1", "SELECT i FROM t WHERE j > 0 AND CASE WHEN j > 0 THEN i / j > 1 ELSE 0 END"},
		{"SELECT CASE WHEN i = 1 THEN 1 WHEN 1 IS NOT NULL THEN 2 END FROM t", "SELECT CAST(CASE WHEN i = 1 THEN 1 ELSE 2 END AS INTEGER) FROM t"},
		{"SELECT i + CASE WHEN 'a' = 'a' THEN 1 END FROM t", "SELECT i + 1 FROM t"},
		{"SELECT CAST(NULL AS INTEGER) FROM t", "SELECT NULL FROM t"},
		{"SELECT i FROM t WHERE iif(j > 0, 1, 0)", "SELECT i FROM t WHERE j > 0"},
		{"SELECT i FROM t WHERE (j = 1) IS TRUE", "SELECT i FROM t WHERE j = 1"},
		{"SELECT coalesce(j, 0) FROM t", "SELECT CASE WHEN j IS NOT NULL THEN j ELSE 0 END FROM t"},
		{"SELECT i FROM t WHERE ifnull(j, i) = 3", "SELECT i FROM t WHERE j = 3 OR j IS NULL AND i = 3"},
		{"SELECT i FROM t WHERE j IS NULL OR (j = 10) IS TRUE", "SELECT i FROM t WHERE j IS NULL OR j = 10"},
		{"SELECT i FROM t WHERE (j > 1) IS NOT FALSE", "SELECT i FROM t WHERE j IS NULL OR j > 1"},
		{"SELECT iif(j IS NULL, NULL, j + 1) FROM t WHERE j = 1", "SELECT 2 FROM t WHERE j = 1"},
		// A literal WHEN is taken always or never, whatever the types
		// of the results it skips (VeriEQL's calcite-15).
		{"SELECT CASE WHEN 0 THEN 2.1 ELSE 1 END FROM t", "SELECT 1 FROM t"},
		{"SELECT CASE WHEN NULL THEN a WHEN 2.5 THEN i ELSE 'x' END FROM t", "SELECT i FROM t"},
	} {
		a := Prove(context.Background(), c[0], c[1], s, Options{Rule: "bag", Solver: z})
		if !a.Proved() {
			t.Errorf("%s | %s: not proved: %s: %s", c[0], c[1], a.Stopped, a.Detail)
		}
	}
	max := "9223372036854775807"
	for _, c := range []struct{ q1, q2, rows string }{
		// Past 64 bits i + 1 is the real 2^63, which CAST clamps to the
		// largest integer: minus one, not i.
		{"SELECT CAST(i + 1 AS INTEGER) - 1 FROM t", "SELECT i FROM t", "INSERT INTO t VALUES (" + max + ", 1, 'x', 'x')"},
		{"SELECT i FROM t WHERE CAST(i + 1 AS INTEGER) - 1 = i", "SELECT i FROM t", "INSERT INTO t VALUES (" + max + ", 1, 'x', 'x')"},
		// Past 64 bits SQLite computes in doubles, which round: the
		// largest integer and the one below it double to one real.
		{"SELECT i FROM t WHERE i * 2 = j * 2", "SELECT i FROM t WHERE i = j", "INSERT INTO t VALUES (" + max + ", " + max + " - 1, 'x', 'x')"},
		{"SELECT i FROM t WHERE i + 2 > j + 2", "SELECT i FROM t WHERE i > j", "INSERT INTO t VALUES (" + max + ", " + max + " - 1, 'x', 'x')"},
		// i * 2 past 64 bits is a real: its type shows.
		{"SELECT typeof(i * 2) FROM t", "SELECT 'integer' FROM t", "INSERT INTO t VALUES (" + max + ", 1, 'x', 'x')"},
		// Division truncates toward zero: -3 / 2 is -1, not -2.
		{"SELECT i FROM t WHERE i / 2 = -2", "SELECT i FROM t WHERE i IN (-3, -4)", "INSERT INTO t VALUES (-3, 1, 'x', 'x')"},
		{"SELECT i FROM t WHERE i / 2 = 3", "SELECT i FROM t WHERE i = 6", "INSERT INTO t VALUES (7, 1, 'x', 'x')"},
		// A NULL WHEN is not taken: the ELSE is.
		{"SELECT i FROM t WHERE CASE WHEN j > 0 THEN 1 ELSE 0 END = 0", "SELECT i FROM t WHERE j <= 0", "INSERT INTO t VALUES (1, NULL, 'x', 'x')"},
		{"SELECT i FROM t WHERE NOT CASE WHEN j > 0 THEN 1 ELSE 0 END", "SELECT i FROM t WHERE NOT j > 0", "INSERT INTO t VALUES (1, NULL, 'x', 'x')"},
		// A CASE has no affinity: '1' of a TEXT column is no 1.
		{"SELECT i FROM t WHERE CASE WHEN 1 THEN a END = 1", "SELECT i FROM t WHERE a = 1", "INSERT INTO t VALUES (1, 1, '1', 'x')"},
		// A CASE has no collation: 'a' of a NOCASE column is no 'A'.
		{"SELECT i FROM t WHERE CASE WHEN 1 THEN c END = 'A'", "SELECT i FROM t WHERE c = 'A'", "INSERT INTO t VALUES (1, 1, 'x', 'a')"},
		// iif is that CASE: a NULL condition takes the ELSE, and the
		// value has no affinity.
		{"SELECT i FROM t WHERE iif(j > 0, 0, 1) = 1", "SELECT i FROM t WHERE NOT j > 0", "INSERT INTO t VALUES (1, NULL, 'x', 'x')"},
		{"SELECT i FROM t WHERE iif(1, a, a) = 1", "SELECT i FROM t WHERE a = 1", "INSERT INTO t VALUES (1, 1, '1', 'x')"},
		// x IS TRUE is SQLite's truth test, not x IS 1; a NULL x is
		// NOT TRUE.
		{"SELECT i FROM t WHERE j IS TRUE", "SELECT i FROM t WHERE j IS 1", "INSERT INTO t VALUES (1, 2, 'x', 'x')"},
		{"SELECT i FROM t WHERE j IS NOT TRUE", "SELECT i FROM t WHERE NOT j", "INSERT INTO t VALUES (1, NULL, 'x', 'x')"},
		// coalesce has no affinity either; its first argument that is
		// not NULL wins.
		{"SELECT i FROM t WHERE coalesce(a, 'z') = 1", "SELECT i FROM t WHERE a = 1", "INSERT INTO t VALUES (1, 1, '1', 'x')"},
		{"SELECT coalesce(j, i) FROM t", "SELECT coalesce(i, j) FROM t", "INSERT INTO t VALUES (1, 2, 'x', 'x')"},
		// A literal WHEN: 0.0 is false; the result taken has no
		// affinity still.
		{"SELECT CASE WHEN 0.0 THEN 1 ELSE 2 END FROM t", "SELECT 1 FROM t", "INSERT INTO t VALUES (1, 1, 'x', 'x')"},
		{"SELECT i FROM t WHERE CASE WHEN 0 THEN 2 ELSE a END = 1", "SELECT i FROM t WHERE a = 1", "INSERT INTO t VALUES (1, 1, '1', 'x')"},
		// Division by zero is NULL.
		{"SELECT i FROM t WHERE j / i IS NULL", "SELECT i FROM t WHERE j IS NULL", "INSERT INTO t VALUES (0, 1, 'x', 'x')"},
	} {
		if r1, r2 := sqliteBag(t, c.rows, c.q1), sqliteBag(t, c.rows, c.q2); slices.Equal(r1, r2) {
			t.Errorf("%s | %s: the same rows on %s (%s): not a trap", c.q1, c.q2, c.rows, strings.Join(r1, " "))
		}
		for _, q := range [][2]string{{c.q1, c.q2}, {c.q2, c.q1}} {
			if a := Prove(context.Background(), q[0], q[1], s, Options{Rule: "bag", Solver: z}); a.Proved() {
				t.Errorf("%s | %s: proved, want refused", q[0], q[1])
			}
		}
	}
}
