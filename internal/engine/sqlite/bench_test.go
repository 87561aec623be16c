package sqlite_test

import (
	"context"
	"testing"

	"github.com/sqljudge/sqljudge/internal/engine/sqlite"
	"github.com/sqljudge/sqljudge/internal/shareddata"
)

// BenchmarkQueryRows reads 50,000 rows of an integer, a text and a float
// through the engine's row loop (on Spider's concert_singer database).
func BenchmarkQueryRows(b *testing.B) {
	e := sqlite.New(shareddata.SubsetPath(b, "spider", "database"), sqlite.Options{})
	defer e.Close()
	const q = `WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 50000)
		SELECT x, 'singer ' || x, x * 0.5 FROM c`
	for b.Loop() {
		s, err := e.Query(context.Background(), "concert_singer", q)
		if err != nil || len(s.Rows) != 50000 {
			b.Fatalf("%v, %d rows", err, len(s.Rows))
		}
	}
}
