package metric_test

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/sqljudge/sqljudge/internal/bench"
	"github.com/sqljudge/sqljudge/internal/engine/sqlite"
	"github.com/sqljudge/sqljudge/internal/metric"
	"github.com/sqljudge/sqljudge/internal/shareddata"
	"github.com/sqljudge/sqljudge/internal/status"
)

// parityQuery returns 12 columns of bits: every 12-bit vector once, and
// those whose parity is p twice. Gold with p=0 against a prediction with
// p=1 defeats every sound pruning of the column-permutation search (see
// result.TestSpiderEqualStopsWithContext).
func parityQuery(p int) string {
	var cols, sum []string
	for c := range 12 {
		cols = append(cols, fmt.Sprintf("(x >> %d) & 1 AS c%d", c, c))
		sum = append(sum, fmt.Sprintf("c%d", c))
	}
	names := strings.Join(sum, ", ")
	return fmt.Sprintf(`WITH RECURSIVE v(x) AS (SELECT 0 UNION ALL SELECT x + 1 FROM v WHERE x < 4095),
b AS (SELECT %s FROM v)
SELECT %s FROM b UNION ALL SELECT %s FROM b WHERE (%s) %% 2 = %d`,
		strings.Join(cols, ", "), names, names, strings.Join(sum, " + "), p)
}

// latinQuery returns a 12x12 Latin square: cell (i, j) = (i + k*j) mod 12
// for the group Z12 (k coprime to 12: a column permutation of k = 1), or
// with k = 0 the table of Z2 x Z6 (no column permutation of Z12's).
func latinQuery(k int) string {
	var cols []string
	for j := range 12 {
		if k == 0 {
			cols = append(cols, fmt.Sprintf("6 * ((i / 6 + %d) %% 2) + (i %% 6 + %d) %% 6", j/6, j%6))
			continue
		}
		cols = append(cols, fmt.Sprintf("(i + %d) %% 12", k*j))
	}
	return `WITH RECURSIVE r(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM r WHERE i < 11) SELECT ` + strings.Join(cols, ", ") + ` FROM r`
}

// TestEXColumnSearchIsBounded is issue 10.1: a comparison whose column
// permutation search cannot finish is a timeout verdict within the
// per-query timeout, and the Latin square is graded at once.
func TestEXColumnSearchIsBounded(t *testing.T) {
	spider := shareddata.SubsetPath(t, "spider")
	eng := sqlite.New(filepath.Join(spider, "database"), sqlite.Options{})
	defer eng.Close()
	env := &metric.Env{Engine: eng, Timeout: 500 * time.Millisecond}
	ex := &metric.EX{}

	it := bench.Item{DBID: "concert_singer", Gold: []string{parityQuery(0)}, Pred: parityQuery(1)}
	start := time.Now()
	v := ex.Grade(context.Background(), env.NewExec(), &it)
	if v.Status != status.Timeout || v.Correct {
		t.Fatalf("parity rows: verdict %+v; want timeout", v)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Fatalf("parity rows graded in %v at a 500ms timeout", d)
	}
	// Cancelling the run (SIGTERM) ends the search too.
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	slow := &metric.Env{Engine: eng, Timeout: time.Hour}
	start = time.Now()
	_ = ex.Grade(ctx, slow.NewExec(), &it)
	if d := time.Since(start); d > 5*time.Second {
		t.Fatalf("a cancelled run kept searching for %v", d)
	}

	// Latin squares, where every column holds 0..11 and every sorted row
	// too: graded at once, right or wrong.
	for _, c := range []struct {
		k    int
		want bool
	}{{5, true}, {7, true}, {0, false}} {
		it = bench.Item{DBID: "concert_singer", Gold: []string{latinQuery(1)}, Pred: latinQuery(c.k)}
		if v := ex.Grade(context.Background(), env.NewExec(), &it); v.Correct != c.want || v.Status != status.OK {
			t.Fatalf("Latin square k=%d: verdict %+v; want correct=%v", c.k, v, c.want)
		}
	}
}
