package sqlite_test

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	_ "github.com/mattn/go-sqlite3"

	"github.com/sqljudge/sqljudge/internal/engine"
	"github.com/sqljudge/sqljudge/internal/engine/sqlite"
	"github.com/sqljudge/sqljudge/internal/result"
	"github.com/sqljudge/sqljudge/internal/shareddata"
)

// copyDB copies a Spider database into a temporary folder laid out as
// DIR/<db_id>/<db_id>.sqlite and returns DIR.
func copyDB(t *testing.T, dbID string) string {
	t.Helper()
	src := shareddata.SubsetPath(t, "spider", "database", dbID, dbID+".sqlite")
	dir := t.TempDir()
	dst := filepath.Join(dir, dbID, dbID+".sqlite")
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		t.Fatal(err)
	}
	in, err := os.Open(src)
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	out, err := os.Create(dst)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.Copy(out, in); err != nil {
		t.Fatal(err)
	}
	if err := out.Close(); err != nil {
		t.Fatal(err)
	}
	return dir
}

// hashTree returns the SHA-256 of every file under dir.
func hashTree(t *testing.T, dir string) map[string][32]byte {
	t.Helper()
	m := map[string][32]byte{}
	err := filepath.Walk(dir, func(p string, info os.FileInfo, err error) error {
		if err != nil || info.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		m[p] = sha256.Sum256(b)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func TestHostilePredictionsLeaveDatabaseByteIdentical(t *testing.T) {
	dir := copyDB(t, "concert_singer")
	before := hashTree(t, dir)
	e := sqlite.New(dir, sqlite.Options{})
	defer e.Close()
	hostile := []string{
		"DROP TABLE singer",
		"DELETE FROM singer",
		"UPDATE singer SET Name = 'x'",
		"INSERT INTO singer (Singer_ID) VALUES (999)",
		"CREATE TABLE evil (x)",
		"CREATE TEMP TABLE evil (x)",
		"CREATE INDEX evil ON singer(Name)",
		"ALTER TABLE singer ADD COLUMN evil",
		"ATTACH DATABASE '" + filepath.Join(dir, "evil.sqlite") + "' AS evil",
		"ATTACH DATABASE 'file:" + filepath.Join(dir, "evil2.sqlite") + "?mode=rwc' AS evil",
		"PRAGMA query_only = 0",
		"PRAGMA journal_mode = WAL",
		"PRAGMA user_version = 7",
		"VACUUM",
		"VACUUM INTO '" + filepath.Join(dir, "copy.sqlite") + "'",
		"REINDEX",
		"ANALYZE",
		"SELECT count(*) FROM singer; DROP TABLE singer",
		"SELECT 1; DELETE FROM singer;",
		"WITH x AS (SELECT 1) DELETE FROM singer",
		"REPLACE INTO singer (Singer_ID) VALUES (1)",
		"BEGIN; DELETE FROM singer; COMMIT",
	}
	for _, q := range hostile {
		_, err := e.Query(context.Background(), "concert_singer", q)
		if err == nil {
			t.Errorf("%q ran without error", q)
			continue
		}
		var qe *engine.QueryError
		if !errors.As(err, &qe) {
			t.Errorf("%q: error %T is not a *engine.QueryError: %v", q, err, err)
		}
		t.Logf("%-60.60q %v", q, err)
	}
	// The data is still there and reads as before.
	set, err := e.Query(context.Background(), "concert_singer", "SELECT count(*) FROM singer")
	if err != nil || len(set.Rows) != 1 || set.Rows[0][0].I != 6 {
		t.Fatalf("after hostile queries: %v %v", set, err)
	}
	after := hashTree(t, dir)
	if len(after) != len(before) {
		t.Errorf("files under the database folder: %d before, %d after: %v", len(before), len(after), after)
	}
	for p, h := range before {
		if after[p] != h {
			t.Errorf("%s changed", p)
		}
	}
}

func TestNeverEndingQueryTimesOut(t *testing.T) {
	dir := copyDB(t, "concert_singer")
	e := sqlite.New(dir, sqlite.Options{})
	defer e.Close()
	for _, q := range []string{
		"WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r) SELECT count(*) FROM r",
		"WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r) SELECT n FROM r WHERE n < 0",
	} {
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		start := time.Now()
		_, err := e.Query(ctx, "concert_singer", q)
		cancel()
		// The query never ends on its own: returning at all means SQLite
		// was interrupted.
		if !errors.Is(err, engine.ErrTimeout) {
			t.Fatalf("%s: err = %v, want ErrTimeout", q, err)
		}
		t.Logf("interrupted after %s", time.Since(start).Round(time.Millisecond))
		// The connection is usable again.
		if _, err := e.Query(context.Background(), "concert_singer", "SELECT 1"); err != nil {
			t.Fatalf("after timeout: %v", err)
		}
	}
}

func TestRowCap(t *testing.T) {
	dir := copyDB(t, "concert_singer")
	e := sqlite.New(dir, sqlite.Options{MaxRows: 10})
	defer e.Close()
	q := "WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r WHERE n < %d) SELECT n FROM r"
	if _, err := e.Query(context.Background(), "concert_singer", sprintf(q, 10)); err != nil {
		t.Fatalf("10 rows under a cap of 10: %v", err)
	}
	if _, err := e.Query(context.Background(), "concert_singer", sprintf(q, 11)); !errors.Is(err, engine.ErrTooLarge) {
		t.Fatalf("11 rows under a cap of 10: err = %v, want ErrTooLarge", err)
	}
	// An endless result stops at the cap instead of running on.
	if _, err := e.Query(context.Background(), "concert_singer", "WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r) SELECT n FROM r"); !errors.Is(err, engine.ErrTooLarge) {
		t.Fatalf("endless result: err = %v, want ErrTooLarge", err)
	}
}

// TestValuesAreStorageClasses checks that values come back as SQLite
// stores them, as Python's sqlite3 returns them: no conversion by declared
// type, invalid UTF-8 bytes dropped.
func TestValuesAreStorageClasses(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "types.sqlite")
	db, err := sql.Open("sqlite3", path)
	if err != nil {
		t.Fatal(err)
	}
	_, err = db.Exec(`CREATE TABLE t (d DATE, ts TIMESTAMP, dt DATETIME, b BOOLEAN, i INTEGER, f REAL, s TEXT, x BLOB, n);
		INSERT INTO t VALUES ('2020-01-02', '2020-01-02 03:04:05', 'not a date', 7, 12, 1.5, CAST(X'6361666ff0' AS TEXT), X'00ff', NULL);
		INSERT INTO t VALUES (20200102, 1577934245, '', 0, -1, 2.0, '', X'', NULL);`)
	if err != nil {
		t.Fatal(err)
	}
	db.Close()
	e := sqlite.New("", sqlite.Options{})
	defer e.Close()
	set, err := e.Query(context.Background(), path, "SELECT * FROM t")
	if err != nil {
		t.Fatal(err)
	}
	want := [][]result.Value{
		{result.TextValue("2020-01-02"), result.TextValue("2020-01-02 03:04:05"), result.TextValue("not a date"), result.IntValue(7), result.IntValue(12), result.FloatValue(1.5), result.TextValue("cafo"), result.BlobValue([]byte{0, 0xff}), result.NullValue()},
		{result.IntValue(20200102), result.IntValue(1577934245), result.TextValue(""), result.IntValue(0), result.IntValue(-1), result.FloatValue(2), result.TextValue(""), result.BlobValue(nil), result.NullValue()},
	}
	if len(set.Rows) != 2 {
		t.Fatalf("got %d rows", len(set.Rows))
	}
	for i := range want {
		for j := range want[i] {
			if got := set.Rows[i][j]; got != want[i][j] {
				t.Errorf("row %d column %s: got %#v, want %#v", i, set.Columns[j], got, want[i][j])
			}
		}
	}
	if !set.InvalidUTF8 {
		t.Error("InvalidUTF8 not set for a text cell with an invalid byte")
	}
	if got := set.Columns; len(got) != 9 || got[0] != "d" || got[8] != "n" {
		t.Errorf("columns %v", got)
	}
}

func TestBlankAndErroneousQueries(t *testing.T) {
	dir := copyDB(t, "concert_singer")
	e := sqlite.New(dir, sqlite.Options{})
	defer e.Close()
	ctx := context.Background()
	for _, q := range []string{"", "  ", "-- nothing", ";"} {
		set, err := e.Query(ctx, "concert_singer", q)
		if err != nil || len(set.Rows) != 0 {
			t.Errorf("%q: %v, %v; want no rows, as Python's sqlite3 runs it", q, set, err)
		}
	}
	if _, err := e.Query(ctx, "concert_singer", "SELECT count(*) FROM singer; -- trailing comment\n"); err != nil {
		t.Errorf("trailing semicolon and comment: %v", err)
	}
	if _, err := e.Query(ctx, "concert_singer", "SELEC 1"); err == nil || errors.Is(err, engine.ErrTimeout) {
		t.Errorf("syntax error: %v", err)
	}
	if _, err := e.Query(ctx, "no_such_db", "SELECT 1"); !errors.Is(err, engine.ErrNoDatabase) {
		t.Errorf("unknown database: %v", err)
	}
	if err := e.Check(ctx, "concert_singer"); err != nil {
		t.Errorf("Check: %v", err)
	}
}

func TestConcurrentQueriesShareThePool(t *testing.T) {
	dir := copyDB(t, "concert_singer")
	e := sqlite.New(dir, sqlite.Options{MaxConns: 2})
	defer e.Close()
	var wg sync.WaitGroup
	errs := make(chan error, 64)
	for i := 0; i < 64; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			set, err := e.Query(context.Background(), "concert_singer", "SELECT Name FROM singer ORDER BY Singer_ID")
			if err == nil && len(set.Rows) != 6 {
				err = errors.New("wrong row count")
			}
			errs <- err
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
}

func sprintf(format string, n int) string { return fmt.Sprintf(format, n) }

// TestByteCap is issue 10.2: 400 rows of randomblob(1000000) grew the
// process to 483 MiB and ended as a timeout; a result past MaxBytes is now
// ErrTooLarge, read no further than the cap.
func TestByteCap(t *testing.T) {
	dir := copyDB(t, "concert_singer")
	e := sqlite.New(dir, sqlite.Options{MaxBytes: 32 << 20})
	defer e.Close()
	q := "WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r WHERE n < %d) SELECT randomblob(1000000) FROM r"
	if s, err := e.Query(context.Background(), "concert_singer", sprintf(q, 20)); err != nil || len(s.Rows) != 20 {
		t.Fatalf("20 MB under a 32 MiB cap: %v", err)
	}
	_, err := e.Query(context.Background(), "concert_singer", sprintf(q, 400))
	if !errors.Is(err, engine.ErrTooLarge) || !strings.Contains(err.Error(), "33554432 bytes") {
		t.Fatalf("400 MB under a 32 MiB cap: err = %v, want ErrTooLarge naming the cap", err)
	}
}

// TestLongFunctionIsBounded is issue 10.2: one SQLite call that builds a
// 480 MB string ran past the timeout (1.4 s at 1 s, 9.7 s and 2.6 GB on an
// earlier build). SQLITE_LIMIT_LENGTH, a quarter of the byte cap (64 MiB by
// default), stops it as too large: no value that large can be built.
func TestLongFunctionIsBounded(t *testing.T) {
	dir := copyDB(t, "concert_singer")
	e := sqlite.New(dir, sqlite.Options{})
	defer e.Close()
	for _, q := range []string{
		"SELECT length(replace(zeroblob(240000000), x'00', 'ab'))",
		"SELECT length(zeroblob(70000000))",
		"SELECT length(printf('%.*c', 70000000, 'x'))",
	} {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		_, err := e.Query(ctx, "concert_singer", q)
		cancel()
		if !errors.Is(err, engine.ErrTooLarge) {
			t.Errorf("%s: err = %v, want ErrTooLarge", q, err)
		}
	}
	// Values under the cap still work.
	s, err := e.Query(context.Background(), "concert_singer", "SELECT length(zeroblob(1000000))")
	if err != nil || len(s.Rows) != 1 || s.Rows[0][0] != result.IntValue(1000000) {
		t.Fatalf("a 1 MB value: %v %v", s, err)
	}
}

// TestTempStoreIsBounded: a sort bigger than SQLite's heap limit (its temp
// store is in memory, under the limit) fails as too large instead of
// filling the disk or the memory.
func TestTempStoreIsBounded(t *testing.T) {
	dir := copyDB(t, "concert_singer")
	e := sqlite.New(dir, sqlite.Options{})
	defer e.Close()
	q := "WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r WHERE n < 1200) SELECT count(*) FROM (SELECT n || zeroblob(1000000) AS b FROM r ORDER BY b)"
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	_, err := e.Query(ctx, "concert_singer", q)
	if !errors.Is(err, engine.ErrTooLarge) {
		t.Fatalf("a 1.2 GB sort: err = %v, want ErrTooLarge", err)
	}
}

// escapeLayout builds a --db folder holding concert_singer beside a secret
// database outside it (base/secret.sqlite, table creds), and two symlinks
// inside --db that reach the secret: leak/leak.sqlite (a file link) and
// leakdir (a folder link). It returns --db and the secret's path.
func escapeLayout(t *testing.T) (root, secret string) {
	t.Helper()
	base := t.TempDir()
	root = copyDB(t, "concert_singer")
	secret = filepath.Join(base, "secret.sqlite")
	db, err := sql.Open("sqlite3", secret)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec("CREATE TABLE creds(user TEXT, password TEXT); INSERT INTO creds VALUES ('admin', 'hunter2-TOPSECRET')"); err != nil {
		t.Fatal(err)
	}
	db.Close()
	if err := os.MkdirAll(filepath.Join(root, "leak"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(secret, filepath.Join(root, "leak", "leak.sqlite")); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(filepath.Join(base, "leakdir"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(secret, filepath.Join(base, "leakdir", "leakdir.sqlite")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(base, "leakdir"), filepath.Join(root, "leakdir")); err != nil {
		t.Fatal(err)
	}
	// A relative path from root to base/secret: "../<base name>/secret".
	return root, secret
}

// TestDBIDCannotLeaveRoot: a db_id that is a path, or that names a file
// symlinked from outside the root, is refused (engine.ErrBadDBID) before
// anything opens it, and the secret's data never reaches an error.
func TestDBIDCannotLeaveRoot(t *testing.T) {
	root, secret := escapeLayout(t)
	rel, err := filepath.Rel(root, strings.TrimSuffix(secret, ".sqlite"))
	if err != nil {
		t.Fatal(err)
	}
	e := sqlite.New(root, sqlite.Options{})
	defer e.Close()
	ctx := context.Background()
	for _, db := range []string{rel, "leak", "leakdir", "..", "", "concert_singer/../concert_singer", "concert_singer\x00", `..\x`, strings.TrimSuffix(secret, ".sqlite")} {
		err := e.Check(ctx, db)
		if !errors.Is(err, engine.ErrBadDBID) {
			t.Errorf("Check(%q) = %v, want ErrBadDBID", db, err)
		}
		set, err := e.Query(ctx, db, "SELECT json_extract('{}', user||':'||password) FROM creds")
		if !errors.Is(err, engine.ErrBadDBID) || set != nil {
			t.Errorf("Query(%q) = %v, %v; want ErrBadDBID", db, set, err)
		}
		if err != nil && (strings.Contains(err.Error(), "hunter2") || strings.Contains(err.Error(), root)) {
			t.Errorf("Query(%q): the error shows the secret or a server path: %v", db, err)
		}
	}
	if set, err := e.Query(ctx, "concert_singer", "SELECT count(*) FROM singer"); err != nil || set.Len() != 1 {
		t.Errorf("concert_singer: %v %v", set, err)
	}
}

// TestPoolsKeyedByFileAndBounded: 200 db_ids that are symlinks (inside
// the root) to one database share one pool, and with MaxPools 2 no more
// than two databases stay open while five are queried in turn.
func TestPoolsKeyedByFileAndBounded(t *testing.T) {
	root := copyDB(t, "concert_singer")
	for k := range 200 {
		name := fmt.Sprintf("alias%d", k)
		if err := os.Symlink(filepath.Join(root, "concert_singer", "concert_singer.sqlite"), filepath.Join(root, name+".sqlite")); err != nil {
			t.Fatal(err)
		}
	}
	e := sqlite.New(root, sqlite.Options{})
	defer e.Close()
	ctx := context.Background()
	for k := range 200 {
		if _, err := e.Query(ctx, fmt.Sprintf("alias%d", k), "SELECT count(*) FROM singer"); err != nil {
			t.Fatal(err)
		}
	}
	if n := e.OpenPools(); n != 1 {
		t.Errorf("200 aliases of one file opened %d pools, want 1", n)
	}
	spider := shareddata.Path(t, "spider", "database")
	b := sqlite.New(spider, sqlite.Options{MaxPools: 2})
	defer b.Close()
	for round := range 2 {
		for _, db := range []string{"concert_singer", "pets_1", "car_1", "flight_2", "employee_hire_evaluation"} {
			if set, err := b.Query(ctx, db, "SELECT count(*) FROM sqlite_master"); err != nil || set.Len() != 1 {
				t.Fatalf("round %d, %s: %v %v", round, db, set, err)
			}
			if n := b.OpenPools(); n > 2 {
				t.Fatalf("%d databases open, bound 2", n)
			}
		}
	}
}

// TestTransactionControlRefused: BEGIN, SAVEPOINT and the others are
// refused (ErrRejected, a pred_error) and leave the connection usable: on
// a one-connection engine, every later query still runs.
func TestTransactionControlRefused(t *testing.T) {
	e := sqlite.New(shareddata.Path(t, "spider", "database"), sqlite.Options{MaxConns: 1})
	defer e.Close()
	ctx := context.Background()
	for _, q := range []string{"BEGIN", "begin immediate transaction", "SAVEPOINT a", "/* x */ BEGIN DEFERRED", "COMMIT", "END", "ROLLBACK", "RELEASE a", "BEGIN;"} {
		if _, err := e.Query(ctx, "concert_singer", q); !errors.Is(err, engine.ErrRejected) {
			t.Errorf("%q: %v, want ErrRejected", q, err)
		}
		if set, err := e.Query(ctx, "concert_singer", "SELECT count(*) FROM singer"); err != nil || set.Len() != 1 {
			t.Fatalf("after %q: %v %v", q, set, err)
		}
	}
}

// TestFilePathEngineForgetsReleasedFiles: an engine over file paths (root
// "", ts's) remembers a file it found, and forgets it on Release, so that
// a database moved away is no longer found and one put back is.
func TestFilePathEngineForgetsReleasedFiles(t *testing.T) {
	root := copyDB(t, "concert_singer")
	path := filepath.Join(root, "concert_singer", "concert_singer.sqlite")
	moved := path + ".moved"
	e := sqlite.New("", sqlite.Options{})
	defer e.Close()
	ctx := context.Background()
	q := "SELECT count(*) FROM singer"
	if _, err := e.Query(ctx, path, q); err != nil {
		t.Fatal(err)
	}
	if err := e.Release(path); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(path, moved); err != nil {
		t.Fatal(err)
	}
	if _, err := e.Query(ctx, path, q); !errors.Is(err, engine.ErrNoDatabase) {
		t.Fatalf("released and moved away: err = %v, want ErrNoDatabase", err)
	}
	if err := os.Rename(moved, path); err != nil {
		t.Fatal(err)
	}
	if set, err := e.Query(ctx, path, q); err != nil || set.Len() != 1 {
		t.Fatalf("put back: %v, %v", set, err)
	}
}

// TestNoQueryReadsTheFilePath: a query cannot learn where the database
// lies (issue 41: the path in pragma_database_list told equiv's scratch
// files from the item's database, and showed the server's folders in a
// witness or an error message). PRAGMA database_list, in both spellings,
// is refused; the schema's introspection pragmas still run.
func TestNoQueryReadsTheFilePath(t *testing.T) {
	dir := copyDB(t, "concert_singer")
	e := sqlite.New(dir, sqlite.Options{})
	defer e.Close()
	for _, q := range []string{
		"PRAGMA database_list",
		"SELECT file FROM pragma_database_list",
		"SELECT * FROM pragma_database_list()",
		"SELECT (SELECT file FROM pragma_database_list WHERE name = 'main') AS f",
	} {
		set, err := e.Query(context.Background(), "concert_singer", q)
		if err == nil {
			t.Errorf("%q ran: %v", q, set)
			continue
		}
		if !errors.Is(err, engine.ErrRejected) || strings.Contains(err.Error(), dir) {
			t.Errorf("%q: want a refusal that names no path, got %v", q, err)
		}
	}
	set, err := e.Query(context.Background(), "concert_singer", "SELECT name FROM pragma_table_info('singer') ORDER BY cid LIMIT 1")
	if err != nil || len(set.Rows) != 1 || set.Rows[0][0].S != "Singer_ID" {
		t.Fatalf("pragma_table_info: %v %v", set, err)
	}
}
