package sqlitefloor_test

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sqljudge/sqljudge/internal/engine/sqlite"
	"github.com/sqljudge/sqljudge/internal/shareddata"
	"github.com/sqljudge/sqljudge/internal/sqlitefloor"
)

// concertSinger is Spider's concert_singer database in the committed subset.
func concertSinger(t *testing.T) string {
	return shareddata.SubsetPath(t, "spider", "database", "concert_singer", "concert_singer.sqlite")
}

// TestRunStepsTheEngineRows: the floor steps through as many rows as the
// engine returns for the same query, on a real Spider database.
func TestRunStepsTheEngineRows(t *testing.T) {
	path := concertSinger(t)
	c, err := sqlitefloor.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	e := sqlite.New("", sqlite.Options{})
	defer e.Close()
	for _, q := range []string{
		"SELECT * FROM singer",
		"SELECT T2.name, count(*) FROM concert AS T1 JOIN stadium AS T2 ON T1.stadium_id = T2.stadium_id GROUP BY T1.stadium_id",
		"SELECT name FROM singer WHERE age > 1000",
		"SELECT * FROM singer, concert, stadium",
	} {
		n, err := c.Run(q)
		if err != nil {
			t.Fatalf("%s: %v", q, err)
		}
		s, err := e.Query(context.Background(), path, q)
		if err != nil {
			t.Fatalf("%s: engine: %v", q, err)
		}
		if n != int64(len(s.Rows)) {
			t.Errorf("%s: floor stepped %d rows, the engine returned %d", q, n, len(s.Rows))
		}
	}
}

// TestRunFailures: SQLite's own message for a query it cannot prepare, and
// no write on the read-only connection.
func TestRunFailures(t *testing.T) {
	path := concertSinger(t)
	c, err := sqlitefloor.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	for q, want := range map[string]string{
		"SELECT nme FROM singer":             "no such column: nme",
		"SELEC 1":                            "syntax error",
		"DELETE FROM singer":                 "readonly",
		"CREATE TABLE x(a)":                  "readonly",
		"SELECT count(*) FROM no_such_table": "no such table",
	} {
		if _, err := c.Run(q); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: got %v, want an error saying %q", q, err, want)
		}
	}
	if n, err := c.Run("SELECT count(*) FROM singer"); err != nil || n != 1 {
		t.Errorf("after the failures: %d rows, %v", n, err)
	}
}

// TestReplay tallies rows and refused queries over two workers, and fails
// on a file that is not there.
func TestReplay(t *testing.T) {
	path := concertSinger(t)
	qs := []sqlitefloor.Query{
		{path, "SELECT * FROM singer"},            // 6 rows
		{path, "SELECT * FROM stadium"},           // 9 rows
		{path, "SELECT nme FROM singer"},          // refused
		{path, "SELECT count(*) FROM concert"},    // 1 row
		{path, ""},                                // nothing
		{path, "SELECT name FROM singer LIMIT 2"}, // 2 rows
	}
	got, err := sqlitefloor.Replay(qs, 2)
	if err != nil {
		t.Fatal(err)
	}
	if want := (sqlitefloor.Tally{Rows: 18, Failed: 1}); got != want {
		t.Errorf("Replay: %+v, want %+v", got, want)
	}
	missing := filepath.Join(t.TempDir(), "none.sqlite")
	if _, err := sqlitefloor.Replay([]sqlitefloor.Query{{missing, "SELECT 1"}}, 1); err == nil || !strings.Contains(err.Error(), "none.sqlite") {
		t.Errorf("a missing file: %v", err)
	}
}
