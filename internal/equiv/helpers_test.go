package equiv

import (
	"context"
	"slices"

	"github.com/sqljudge/sqljudge/internal/result"
)

// inspectSQLite reads the SQLite database at path as a db_id pair's search
// does (readSQLiteDB) and returns its schema and each column's sample by
// table and column index.
func inspectSQLite(ctx context.Context, path string) (*schema, [][][]result.Value, error) {
	sch, err := readSQLiteDB(ctx, path)
	if err != nil {
		return nil, nil, err
	}
	samples := make([][][]result.Value, len(sch.Tables))
	for ti, t := range sch.Tables {
		for _, c := range t.Columns {
			samples[ti] = append(samples[ti], c.Values)
		}
	}
	return sch, samples, nil
}

// sameSet reports whether a and b hold the same column indexes.
func sameSet(a, b []int) bool {
	return len(a) == len(b) && !slices.ContainsFunc(a, func(x int) bool { return !slices.Contains(b, x) })
}
