package equiv

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/sqljudge/sqljudge/internal/result"
	"github.com/sqljudge/sqljudge/internal/sandbox/sandboxtest"
	"github.com/sqljudge/sqljudge/internal/strictjson"
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

// reverify re-runs a witness from its SQL alone in a database built
// outside any sandbox (sandboxtest.Reverify with fresh: the script through
// the engine's driver, both queries through an engine of the test's own)
// and requires the recorded results and a difference (Witness.Recheck).
func reverify(t testing.TB, fresh sandboxtest.Fresh, w *Witness, q1, q2 string) {
	t.Helper()
	r := sandboxtest.Reverify(t, fresh, w.SQL, q1, q2)
	if err := w.Recheck(r[0], r[1]); err != nil {
		t.Fatalf("%v\n%s", err, w.SQL)
	}
}

// reverifySQLite re-runs a witness on a SQLite file (reverify).
func reverifySQLite(t testing.TB, w *Witness, q1, q2 string) {
	t.Helper()
	reverify(t, sandboxtest.FreshSQLite, w, q1, q2)
}

// reverifyPostgres re-runs a witness on a database of the PostgreSQL test
// server (reverify).
func reverifyPostgres(t testing.TB, w *Witness, q1, q2 string) {
	t.Helper()
	reverify(t, sandboxtest.FreshPostgres, w, q1, q2)
}

// reverifyMySQL re-runs a witness on a database of the MariaDB test server
// (reverify), whose SQL quotes names as MySQL does.
func reverifyMySQL(t testing.TB, w *Witness, q1, q2 string) {
	t.Helper()
	reverify(t, sandboxtest.FreshMySQL, w, q1, q2)
	if !strings.Contains(w.SQL, "`") {
		t.Errorf("the witness SQL does not quote names as MySQL does:\n%s", w.SQL)
	}
}

// readJSONL reads a committed JSONL file strictly
// (strictjson.DecodeLines), failing the test on a malformed line.
func readJSONL[T any](t testing.TB, path string) []T {
	t.Helper()
	out, err := strictjson.DecodeLines[T](path)
	if err != nil {
		t.Fatal(err)
	}
	return out
}
