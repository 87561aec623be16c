package equiv

import (
	"context"
	"database/sql"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/sqljudge/sqljudge/internal/bench"
	"github.com/sqljudge/sqljudge/internal/engine"
	"github.com/sqljudge/sqljudge/internal/engine/sqlite"
	"github.com/sqljudge/sqljudge/internal/metric"
	"github.com/sqljudge/sqljudge/internal/prove/check"
	"github.com/sqljudge/sqljudge/internal/result"
	"github.com/sqljudge/sqljudge/internal/shareddata"
)

// TestProofFactsCheckedOnSpiderRows: Spider's soccer_1.Player.height,
// bike_1.weather.precipitation_inches and
// university_basketball.basketball_match.All_Games_Percent are INTEGER
// columns holding REALs, so "x <= n" and "x < n+1", proved for integer
// columns, differ there (issue 37, R18: 9727 against 10379 players). With
// the db_id, the proof's family fact is checked on the rows and broken:
// no proof, and the record names the fact and a row that breaks it.
// Before, all three were equivalent_proved.
func TestProofFactsCheckedOnSpiderRows(t *testing.T) {
	solver := z3Solver(t)
	sb := newSQLite(t)
	eng := sqlite.New(shareddata.Path(t, "spider", "database"), sqlite.Options{})
	defer eng.Close()
	for _, c := range []struct{ db, table, col string }{
		{"soccer_1", "Player", "height"},
		{"bike_1", "weather", "precipitation_inches"},
		{"university_basketball", "basketball_match", "All_Games_Percent"},
	} {
		path, err := eng.Path(c.db)
		if err != nil {
			t.Fatal(err)
		}
		p := Pair{ID: c.db, DB: path,
			Q1: "SELECT count(*) FROM " + c.table + " WHERE " + c.col + " <= 190",
			Q2: "SELECT count(*) FROM " + c.table + " WHERE " + c.col + " < 191"}
		out, err := Decide(context.Background(), p, Options{Sandbox: sb, Seed: 1, Budget: 20 * time.Second, MaxDatabases: 60, Solver: solver})
		if err != nil {
			t.Fatal(err)
		}
		b := out.Prover.BrokenFact
		if out.Verdict == EquivalentProved || out.Proof != nil || out.Prover.StoppedBy != StoppedByData || b == nil {
			t.Fatalf("%s: proved on a fact the rows break: %s %+v", c.db, out.Verdict, out.Prover)
		}
		if b.Fact.Fact != check.FactFamily || b.Fact.Column != c.col || b.Row["typeof"] != "real" || !strings.Contains(out.Prover.Detail, "family("+c.table+"."+c.col+" = int)") {
			t.Errorf("%s: broken fact %+v, detail %q", c.db, b, out.Prover.Detail)
		}
	}
	// The metric: graded wrong (the item's database separates the pair),
	// never with a proof.
	ms, err := metric.New([]string{"equiv"}, metric.Options{Equiv: metric.EquivOptions{Seed: 1, Budget: 20 * time.Second, MaxDatabases: 60}})
	if err != nil {
		t.Fatal(err)
	}
	defer metric.Close(ms)
	env := &metric.Env{Engine: eng, Timeout: 20 * time.Second}
	v := ms[0].Grade(context.Background(), env.NewExec(), &bench.Item{DBID: "soccer_1", Gold: []string{"SELECT count(*) FROM Player WHERE height <= 190"}, Pred: "SELECT count(*) FROM Player WHERE height < 191"})
	if d := v.Details.(Details); v.Correct || d.Proof != nil || d.Prover == nil || d.Prover.BrokenFact == nil {
		t.Errorf("metric: %+v %+v", v, d.Prover)
	}
}

// factDB writes a SQLite database at dir/name/name.sqlite from stmts
// (run as given, through the read-write driver) and returns its path.
func factDB(t *testing.T, dir, name string, stmts ...string) string {
	t.Helper()
	if err := os.MkdirAll(filepath.Join(dir, name), 0o755); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, name, name+".sqlite")
	db, err := sql.Open("sqlite3", path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for _, s := range stmts {
		if _, err := db.Exec(s); err != nil {
			t.Fatalf("%s: %v", s, err)
		}
	}
	return path
}

// TestFactChecksFindTheBreakingRow: each kind of fact a proof can rest on
// (factChecks) finds a row that breaks it, and none where it holds.
func TestFactChecksFindTheBreakingRow(t *testing.T) {
	path := factDB(t, t.TempDir(), "facts",
		"CREATE TABLE p (k INTEGER PRIMARY KEY, name TEXT)",
		"CREATE TABLE c (id INTEGER PRIMARY KEY, f INT REFERENCES p(k), code TEXT, n INT)",
		"INSERT INTO p VALUES (1, 'a'), (2, 'b')",
		"INSERT INTO c VALUES (10, 1, 'x', 5), (11, 2, 'x', NULL), (12, 99, 'y', 7), (13, NULL, 'z', 8)",
	)
	sch, err := readSQLiteDB(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	eng := sqlite.New("", sqlite.Options{})
	defer eng.Close()
	q := func(s string) (*result.Set, error) { return eng.QueryFile(context.Background(), path, s) }
	for _, c := range []struct {
		f    check.Fact
		want map[string]any // nil: the fact holds
	}{
		{check.Fact{Fact: check.FactFamily, Table: "c", Column: "n", Family: "int"}, nil},
		{check.Fact{Fact: check.FactFamily, Table: "c", Column: "code", Family: "int"}, map[string]any{"id": int64(10), "code": "x", "typeof": "text"}},
		{check.Fact{Fact: check.FactFamily, Table: "c", Column: "n", Family: "text"}, map[string]any{"id": int64(10), "n": int64(5), "typeof": "integer"}},
		{check.Fact{Fact: check.FactFamily, Table: "c", Column: "code", Family: "other"}, nil},
		{check.Fact{Fact: check.FactNotNull, Table: "c", Column: "code"}, nil},
		{check.Fact{Fact: check.FactNotNull, Table: "c", Column: "n"}, map[string]any{"id": int64(11), "n": nil}},
		{check.Fact{Fact: check.FactKey, Table: "c", Columns: []string{"id"}}, nil},
		{check.Fact{Fact: check.FactKey, Table: "c", Columns: []string{"code"}}, map[string]any{"code": "x", "count": int64(2)}},
		{check.Fact{Fact: check.FactKey, Table: "c", Columns: []string{"code", "f"}}, nil},
		{check.Fact{Fact: check.FactForeignKey, Table: "c", Columns: []string{"f"}, RefTable: "p", RefColumns: []string{"k"}}, map[string]any{"id": int64(12), "f": int64(99)}},
		{check.Fact{Fact: check.FactForeignKey, Table: "c", Columns: []string{"id"}, RefTable: "c", RefColumns: []string{"id"}}, nil},
	} {
		b, err := brokenFact(q, engine.SQLite, sch.Database, c.f)
		if err != nil {
			t.Fatalf("%s: %v", c.f, err)
		}
		switch {
		case c.want == nil && b != nil:
			t.Errorf("%s holds, yet: %+v", c.f, b.Row)
		case c.want != nil && b == nil:
			t.Errorf("%s is broken by %v, not found", c.f, c.want)
		case c.want != nil:
			for k, v := range c.want {
				if b.Row[k] != v {
					t.Errorf("%s: row %v, want %v", c.f, b.Row, c.want)
					break
				}
			}
		}
	}
	if _, err := brokenFact(q, engine.SQLite, sch.Database, check.Fact{Fact: "collation", Table: "c", Column: "code"}); err == nil {
		t.Error("a fact kind without a check on the rows was taken to hold")
	}
}

// TestForeignKeyFactBrokenByAnOrphan: join_elim drops a table joined
// through a foreign key, relying on every child row having a parent;
// SQLite does not enforce foreign keys unless asked, and an orphan row
// separates the two queries on the database. The proof found on the
// schema is refused on the rows; on a database without the orphan it
// stands.
func TestForeignKeyFactBrokenByAnOrphan(t *testing.T) {
	solver := z3Solver(t)
	sb := newSQLite(t)
	ddl := []string{
		"CREATE TABLE p (k INTEGER PRIMARY KEY, name TEXT)",
		"CREATE TABLE c (id INTEGER PRIMARY KEY, f INTEGER NOT NULL REFERENCES p(k))",
		"INSERT INTO p VALUES (1, 'a')",
		"INSERT INTO c VALUES (10, 1)",
	}
	dir := t.TempDir()
	clean := factDB(t, dir, "clean", ddl...)
	orphan := factDB(t, dir, "orphan", append(ddl, "INSERT INTO c VALUES (11, 99)")...)
	q1, q2 := "SELECT c.id FROM c JOIN p ON c.f = p.k", "SELECT c.id FROM c"
	for _, c := range []struct {
		path   string
		proved bool
	}{{clean, true}, {orphan, false}} {
		out, err := Decide(context.Background(), Pair{ID: "fk", DB: c.path, Q1: q1, Q2: q2}, Options{Sandbox: sb, Seed: 1, Budget: 20 * time.Second, Solver: solver})
		if err != nil {
			t.Fatal(err)
		}
		if got := out.Verdict == EquivalentProved; got != c.proved {
			t.Fatalf("%s: %s %+v", filepath.Base(c.path), out.Verdict, out.Prover)
		}
		if !c.proved && (out.Prover.BrokenFact == nil || out.Prover.BrokenFact.Fact.Fact != check.FactForeignKey || out.Prover.BrokenFact.Row["f"] != int64(99)) {
			t.Errorf("orphan: %+v", out.Prover)
		}
	}
}
