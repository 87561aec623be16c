package equiv_test

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/sqljudge/sqljudge/internal/equiv"
	"github.com/sqljudge/sqljudge/internal/strictjson"
	"github.com/sqljudge/sqljudge/internal/testserver"
)

// The development set of issue 19: VeriEQL's Calcite benchmark (397 pairs),
// converted by testdata/oracle/calcite_convert.py; see
// testdata/calcite/README.md.
const (
	calcitePairs   = "testdata/calcite/pairs.jsonl"
	calciteVerieql = "testdata/calcite/verieql.jsonl"
	calciteCount   = 397
)

// calcitePair is one line of testdata/calcite/pairs.jsonl.
type calcitePair struct {
	ID     string `json:"id"`
	Q1     string `json:"q1"`
	Q2     string `json:"q2"`
	Schema string `json:"schema"`
	Note   string `json:"note"`
}

// verieqlResult is one line of testdata/calcite/verieql.jsonl: VeriEQL's
// own verdict on the pair (experiments/2023_03_27/calcite.out).
type verieqlResult struct {
	ID                      string  `json:"id"`
	State                   string  `json:"state"`
	Refuted                 bool    `json:"refuted"`
	CounterexampleRows      *int    `json:"counterexample_rows"`
	CounterexampleRowsQuery *int    `json:"counterexample_rows_queried"`
	Bound                   int     `json:"bound"`
	Err                     *string `json:"err"`
}

// loadCalcite reads calcitePairs strictly (strictjson.DecodeLines).
func loadCalcite(t testing.TB) []calcitePair {
	t.Helper()
	pairs, err := strictjson.DecodeLines[calcitePair](filepath.FromSlash(calcitePairs))
	if err != nil {
		t.Fatal(err)
	}
	return pairs
}

// VeriEQL's result states (constants.py STATE); NEQ is the only refutation.
var verieqlStates = map[string]bool{"NEQ": true, "TMO": true, "NSE": true, "NIE": true, "SYN": true, "UNK": true, "OTE": true, "OOM": true}

func TestCalciteFilesConsistent(t *testing.T) {
	pairs := loadCalcite(t)
	if len(pairs) != calciteCount {
		t.Fatalf("%s: %d pairs, want %d", calcitePairs, len(pairs), calciteCount)
	}
	ids := map[string]bool{}
	for i, p := range pairs {
		if want := fmt.Sprintf("calcite-%d", i+1); p.ID != want {
			t.Errorf("%s:%d: id %q, want %q (VeriEQL's index, in order)", calcitePairs, i+1, p.ID, want)
		}
		if ids[p.ID] {
			t.Errorf("%s:%d: duplicate id %q", calcitePairs, i+1, p.ID)
		}
		ids[p.ID] = true
		if p.Q1 == "" || p.Q2 == "" || p.Schema == "" {
			t.Errorf("%s:%d: empty q1, q2 or schema", calcitePairs, i+1)
		}
	}
	read, err := equiv.ReadPairs(filepath.FromSlash(calcitePairs))
	if err != nil {
		t.Fatalf("sqljudge equiv cannot read the file: %v", err)
	}
	if len(read) != calciteCount {
		t.Fatalf("ReadPairs: %d pairs, want %d", len(read), calciteCount)
	}
	res, err := strictjson.DecodeLines[verieqlResult](filepath.FromSlash(calciteVerieql))
	if err != nil {
		t.Fatal(err)
	}
	if len(res) != calciteCount {
		t.Fatalf("%s: %d records, want %d", calciteVerieql, len(res), calciteCount)
	}
	for i, r := range res {
		where := fmt.Sprintf("%s:%d (%s)", calciteVerieql, i+1, r.ID)
		if !ids[r.ID] || r.ID != pairs[i].ID {
			t.Errorf("%s: no pair with this id at this line", where)
		}
		if !verieqlStates[r.State] {
			t.Errorf("%s: unknown state %q", where, r.State)
		}
		if r.Refuted != (r.State == "NEQ") {
			t.Errorf("%s: refuted=%v with state %s", where, r.Refuted, r.State)
		}
		if r.Refuted != (r.CounterexampleRows != nil) || r.Refuted != (r.CounterexampleRowsQuery != nil) {
			t.Errorf("%s: counterexample rows given iff refuted", where)
		}
		if r.Refuted && *r.CounterexampleRowsQuery > *r.CounterexampleRows {
			t.Errorf("%s: more rows in the queried tables than in all", where)
		}
	}
}

// TestCalciteRunsOnPostgres creates each distinct schema of the Calcite
// pairs in a scratch PostgreSQL database and runs every q1 and q2 on it
// (empty tables): the converted DDL and queries are valid PostgreSQL.
func TestCalciteRunsOnPostgres(t *testing.T) {
	server := testserver.Postgres(t)
	pairs := loadCalcite(t)
	bySchema := map[string][]calcitePair{}
	var order []string
	for _, p := range pairs {
		if bySchema[p.Schema] == nil {
			order = append(order, p.Schema)
		}
		bySchema[p.Schema] = append(bySchema[p.Schema], p)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	for k, schema := range order {
		name := testserver.Name(fmt.Sprintf("sqljudge_calcite%d_", k))
		conn := testserver.CreatePostgresDB(t, server, name)
		if _, err := conn.Exec(ctx, "SET statement_timeout = '10s'"); err != nil {
			t.Fatal(err)
		}
		if _, err := conn.Exec(ctx, schema); err != nil {
			t.Fatalf("schema of %s: %v", bySchema[schema][0].ID, err)
		}
		for _, p := range bySchema[schema] {
			for qi, q := range []string{p.Q1, p.Q2} {
				rows, err := conn.Query(ctx, q)
				if err == nil {
					rows.Close()
					err = rows.Err()
				}
				if err != nil {
					t.Errorf("%s q%d: %v\n%s", p.ID, qi+1, err, q)
				}
			}
		}
	}
}
