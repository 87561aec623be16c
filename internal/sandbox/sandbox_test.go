package sandbox

import (
	"testing"

	"github.com/sqljudge/sqljudge/internal/engine"
)

// TestInsertRowsSQL: the multi-row INSERT numbers PostgreSQL's parameters
// across the rows, writes ? elsewhere, and is InsertSQL for one row.
func TestInsertRowsSQL(t *testing.T) {
	for _, c := range []struct {
		d          engine.Dialect
		cols, rows int
		want       string
	}{
		{engine.Postgres, 2, 3, `INSERT INTO "t" VALUES ($1, $2), ($3, $4), ($5, $6)`},
		{engine.Postgres, 1, 1, `INSERT INTO "t" VALUES ($1)`},
		{engine.MySQL, 2, 2, `INSERT INTO "t" VALUES (?, ?), (?, ?)`},
		{engine.MySQL, 3, 1, `INSERT INTO "t" VALUES (?, ?, ?)`},
		{engine.MySQL, 0, 2, `INSERT INTO "t" VALUES (), ()`},
	} {
		if got := InsertRowsSQL(c.d, `"t"`, c.cols, c.rows); got != c.want {
			t.Errorf("InsertRowsSQL(%v, %d cols, %d rows) = %s, want %s", c.d, c.cols, c.rows, got, c.want)
		}
		if c.rows == 1 {
			if got := InsertSQL(c.d, `"t"`, c.cols); got != c.want {
				t.Errorf("InsertSQL(%v, %d cols) = %s, want %s", c.d, c.cols, got, c.want)
			}
		}
	}
}
