package index

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/sqljudge/sqljudge/internal/shareddata"
)

// TestBuildAll builds one Spider database's index through BuildAll, then
// reads it back from the cache, and checks that an unknown db_id is an
// InputError naming it, found before anything is built.
func TestBuildAll(t *testing.T) {
	dir := shareddata.SubsetPath(t, "spider", "database")
	out := t.TempDir()
	t.Setenv("SQLJUDGE_EMBED_MODEL", "")
	o := BuildOptions{DB: dir, Out: out, DBIDs: "concert_singer"}
	for i, wantBuilt := range []bool{true, false} {
		rep, err := BuildAll(context.Background(), o)
		if err != nil {
			t.Fatalf("run %d: %v", i, err)
		}
		if rep.Databases != 1 || len(rep.Rows) != 1 || len(rep.Failed) != 0 || rep.Embedder != nil {
			t.Fatalf("run %d: report %+v, want one indexed database and no embedder", i, rep)
		}
		r := rep.Rows[0]
		if r.DBID != "concert_singer" || r.Built != wantBuilt || r.Stats.Tables != 3 || r.Stats.Columns != 9 || r.Stats.Values != 52 {
			t.Errorf("run %d: row %+v, want concert_singer's 3 tables, 9 text columns, 52 values (as CHESS's _get_unique_values), built=%v", i, r, wantBuilt)
		}
		if rep.Total.Tables != r.Stats.Tables || rep.Total.Values != r.Stats.Values {
			t.Errorf("run %d: total %+v, want the one row's %+v", i, rep.Total, r.Stats)
		}
	}
	o.DBIDs, o.Out = "concert_singer, no_such_db", t.TempDir()
	rep, err := BuildAll(context.Background(), o)
	var ie InputError
	if rep != nil || !errors.As(err, &ie) || !strings.Contains(err.Error(), "no database no_such_db") {
		t.Errorf("unknown db_id: report %v, error %v; want an InputError naming no_such_db", rep, err)
	}
	if _, err := BuildAll(context.Background(), BuildOptions{Out: out}); !errors.As(err, &ie) {
		t.Errorf("no --db: error %v, want an InputError", err)
	}
}
