package sqlast_test

import (
	"bufio"
	"context"
	"errors"
	"os"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/sqljudge/sqljudge/internal/engine"
	"github.com/sqljudge/sqljudge/internal/engine/sqlite"
	"github.com/sqljudge/sqljudge/internal/result"
	"github.com/sqljudge/sqljudge/internal/shareddata"
	"github.com/sqljudge/sqljudge/internal/sqlast"
)

type goldLine struct {
	file string
	line int
	sql  string
	db   string
}

// readGold reads a Spider gold file (SQL<TAB>db_id per line) of the full data.
func readGold(t testing.TB, name string) []goldLine {
	t.Helper()
	path := shareddata.Path(t, "spider", name)
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []goldLine
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	n := 0
	for sc.Scan() {
		n++
		l := strings.TrimSpace(sc.Text())
		if l == "" {
			continue
		}
		i := strings.LastIndexByte(l, '\t')
		if i < 0 {
			t.Fatalf("%s:%d: no tab", name, n)
		}
		out = append(out, goldLine{name, n, strings.TrimSpace(l[:i]), strings.TrimSpace(l[i+1:])})
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// sameResult compares two results exactly: columns count, rows in order,
// values under Python == (result.RowKey).
func sameResult(a, b *result.Set) bool {
	if a.Len() != b.Len() || a.NumCols() != b.NumCols() {
		return false
	}
	for i := range a.Rows {
		if result.RowKey(a.Rows[i]) != result.RowKey(b.Rows[i]) {
			return false
		}
	}
	return true
}

// TestRoundTripSpiderGold asserts that each of the 8659 train and 1034 dev
// gold queries of Spider parses, and that its printed form runs on SQLite
// with exactly the result of the original (same rows in the same order, or
// the same failure), on every database present under database/. Queries
// whose database is absent are only parsed and printed, and counted.
func TestRoundTripSpiderGold(t *testing.T) {
	train, dev := readGold(t, "train_gold.sql"), readGold(t, "dev_gold.sql")
	if len(train) != 8659 || len(dev) != 1034 {
		t.Fatalf("%d train and %d dev gold queries; want 8659 and 1034", len(train), len(dev))
	}
	eng := sqlite.New(shareddata.Path(t, "spider", "database"), sqlite.Options{})
	defer eng.Close()
	all := append(train, dev...)
	var ran, bothFail, noDB atomic.Int64
	missing := map[string]bool{}
	for _, g := range all {
		if eng.Check(context.Background(), g.db) != nil {
			missing[g.db] = true
		}
	}
	var g errgroup.Group
	g.SetLimit(runtime.NumCPU())
	for _, q := range all {
		g.Go(func() error {
			p, err := sqlast.Parse(q.sql)
			if err != nil {
				t.Errorf("%s:%d: does not parse: %v\n  %s", q.file, q.line, err, q.sql)
				return nil
			}
			printed := p.String()
			again, err := sqlast.Parse(printed)
			if err != nil || again.String() != printed {
				t.Errorf("%s:%d: printed form does not parse back to itself (%v)\n  %s\n  %s", q.file, q.line, err, q.sql, printed)
				return nil
			}
			if missing[q.db] {
				noDB.Add(1)
				return nil
			}
			ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
			defer cancel()
			want, werr := eng.Query(ctx, q.db, q.sql)
			got, gerr := eng.Query(ctx, q.db, printed)
			switch {
			case werr != nil && gerr != nil:
				var we, ge *engine.QueryError
				if errors.As(werr, &we) && errors.As(gerr, &ge) && we.Err.Error() == ge.Err.Error() {
					bothFail.Add(1)
					return nil
				}
				t.Errorf("%s:%d: original and printed fail differently: %v / %v\n  %s\n  %s", q.file, q.line, werr, gerr, q.sql, printed)
			case werr != nil || gerr != nil:
				t.Errorf("%s:%d: original error %v, printed error %v\n  %s\n  %s", q.file, q.line, werr, gerr, q.sql, printed)
			case !sameResult(want, got):
				t.Errorf("%s:%d: printed query gives another result: %s vs %s\n  %s\n  %s", q.file, q.line, want, got, q.sql, printed)
			default:
				ran.Add(1)
			}
			return nil
		})
	}
	_ = g.Wait()
	t.Logf("%d gold queries: %d same result on SQLite, %d fail identically as written and printed, %d not run (database absent: %d of the train databases)",
		len(all), ran.Load(), bothFail.Load(), noDB.Load(), len(missing))
	if ran.Load() == 0 {
		t.Fatal("no query ran")
	}
}
