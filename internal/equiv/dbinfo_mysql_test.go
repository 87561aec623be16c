package equiv

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/sqljudge/sqljudge/internal/catalog"
	"github.com/sqljudge/sqljudge/internal/engine"
	"github.com/sqljudge/sqljudge/internal/engine/sqlite"
	"github.com/sqljudge/sqljudge/internal/sandbox"
	mysqlsb "github.com/sqljudge/sqljudge/internal/sandbox/mysql"
	"github.com/sqljudge/sqljudge/internal/shareddata"
	"github.com/sqljudge/sqljudge/internal/testserver"
)

// loadSpiderIntoMySQL copies Spider database dbID (its schema with keys
// and foreign keys, and every row) into a new MariaDB database, statement
// by statement, and returns that database's name and a pool on it.
func loadSpiderIntoMySQL(t testing.TB, server, dbID string) (string, *sql.DB) {
	t.Helper()
	ctx := context.Background()
	path := shareddata.SubsetPath(t, "spider", "database", dbID, dbID+".sqlite")
	sch, _, err := inspectSQLite(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	eng := sqlite.New("", sqlite.Options{})
	defer eng.Close()
	data, err := readSQLiteData(ctx, eng, path, sch)
	if err != nil {
		t.Fatal(err)
	}
	name := testserver.Name("sjt_spider_") + dbID
	db := testserver.CreateMySQLDB(t, server, name)
	for _, st := range sandbox.SplitScript(sch.Script(engine.MySQL, data)) {
		if _, err := db.ExecContext(ctx, st); err != nil {
			t.Fatalf("%s: %v", st, err)
		}
	}
	return name, db
}

// mysqlFingerprint is every table of the database with its CHECKSUM TABLE
// (a checksum of every row): a database that equiv only reads keeps it.
func mysqlFingerprint(t *testing.T, db *sql.DB) string {
	t.Helper()
	rows, err := db.Query("SHOW TABLES")
	if err != nil {
		t.Fatal(err)
	}
	var tables []string
	for rows.Next() {
		var n string
		if err := rows.Scan(&n); err != nil {
			t.Fatal(err)
		}
		tables = append(tables, engine.MySQL.QuoteIdent(n))
	}
	rows.Close()
	var out strings.Builder
	for _, tb := range tables {
		var name string
		var sum sql.NullInt64
		if err := db.QueryRow("CHECKSUM TABLE "+tb+" EXTENDED").Scan(&name, &sum); err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(&out, "%s:%d;", name, sum.Int64)
	}
	return out.String()
}

// mysqlReaderDSN creates an account that may read database db (SELECT on
// it) and hold the privileges the sandbox documents on the scratch
// databases, and nothing else; it returns the server DSN with that
// account (testserver.MySQLAccount).
func mysqlReaderDSN(t *testing.T, server, db string) string {
	t.Helper()
	return testserver.MySQLAccount(t, server, map[string][]string{
		`sqljudge\\_equiv\\_%`: {"Select_priv", "Insert_priv", "Delete_priv", "Create_priv", "Drop_priv", "References_priv"},
		db:                     {"Select_priv"},
	})
}

// TestMySQLDBIDSpider decides db_id pairs over Spider's concert_singer
// loaded into MariaDB, read under an account that may only SELECT from
// it: its composite primary key and foreign keys, read from
// information_schema, and a CHECK and a unique index added to it make
// five pairs equivalent that are inequivalent on the same tables without
// them; a witness re-verifies; the database is
// unchanged and no scratch database is left.
func TestMySQLDBIDSpider(t *testing.T) {
	server := testserver.MySQL(t)
	ctx := context.Background()
	db, conn := loadSpiderIntoMySQL(t, server, "concert_singer")
	for _, q := range []string{"ALTER TABLE singer ADD CONSTRAINT age_positive CHECK (Age > 0)", "CREATE UNIQUE INDEX stadium_name ON stadium (Name)"} {
		if _, err := conn.ExecContext(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	before := mysqlFingerprint(t, conn)
	sb, err := mysqlsb.New(ctx, mysqlReaderDSN(t, server, db), false)
	if err != nil {
		t.Fatal(err)
	}
	sch, err := readServerSchema(ctx, sb, db)
	if err != nil {
		t.Fatal(err)
	}
	sic := sch.Table("singer_in_concert")
	if sic == nil || len(sic.PK) != 2 || len(sic.FKs) != 2 || slices.Index(sch.Tables, sic) < slices.Index(sch.Tables, sch.Table("concert")) {
		t.Fatalf("singer_in_concert: %+v (tables %d)", sic, len(sch.Tables))
	}
	singer := sch.Table("singer")
	if ci := singer.Col("name"); ci < 0 || len(singer.Columns[ci].Values) == 0 {
		t.Fatalf("no sample of singer.name: %+v", singer.Columns)
	}
	if st := sch.Table("stadium"); len(singer.Checks) != 1 || !strings.Contains(singer.Checks[0].String(), "> 0") || len(st.Uniques) != 1 || st.Columns[st.Uniques[0][0]].Name != "Name" {
		t.Fatalf("the CHECK or the unique index was not read: singer %+v, stadium %+v", singer, st)
	}
	bare := keyless(sch)
	cases := []struct {
		q1, q2 string
		want   Verdict
		keyed  bool // inequivalent without the keys read
	}{
		{"SELECT T1.concert_ID FROM singer_in_concert AS T1 JOIN singer AS T2 ON T1.Singer_ID = T2.Singer_ID", "SELECT concert_ID FROM singer_in_concert", EquivalentBounded, true},
		{"SELECT DISTINCT concert_ID, Singer_ID FROM singer_in_concert", "SELECT concert_ID, Singer_ID FROM singer_in_concert", EquivalentBounded, true},
		{"SELECT count(*) FROM singer", "SELECT count(Singer_ID) FROM singer", EquivalentBounded, true},
		{"SELECT Name FROM singer WHERE Age > 0 OR Age IS NULL", "SELECT Name FROM singer", EquivalentBounded, true},
		{"SELECT DISTINCT Name FROM stadium WHERE Name IS NOT NULL", "SELECT Name FROM stadium WHERE Name IS NOT NULL", EquivalentBounded, true},
		{"SELECT name FROM singer WHERE age > 40", "SELECT name FROM singer WHERE age >= 40", Inequivalent, false},
		{"SELECT count(*) FROM singer", "SELECT count(Country) FROM singer", Inequivalent, false},
	}
	for _, c := range cases {
		out, err := Decide(ctx, Pair{Q1: c.q1, Q2: c.q2, DBID: db}, Options{Sandbox: sb, Seed: 1, Budget: 20 * time.Second, MaxDatabases: 150})
		if err != nil {
			t.Fatal(err)
		}
		if out.Verdict != c.want {
			t.Errorf("%s / %s: %s (%s), want %s; %+v; search %+v", c.q1, c.q2, out.Verdict, out.Reason, c.want, out.Witness, out.Search)
			continue
		}
		// No solver phase runs on MariaDB: the boundary 40 gets a row of
		// its own in the conditions phase, on any seed and any name of the
		// database, rather than by a lucky draw of the small phase.
		if strings.Contains(c.q1, "> 40") && (out.Witness.Phase != PhaseConditions || out.Search.Databases > 12) {
			t.Errorf("%s / %s: found by %s after %d databases, want the conditions phase", c.q1, c.q2, out.Witness.Phase, out.Search.Databases)
		}
		if out.Witness != nil {
			reverifyMySQL(t, out.Witness, c.q1, c.q2)
		}
		if !c.keyed {
			continue
		}
		out, err = Decide(ctx, Pair{Q1: c.q1, Q2: c.q2, Schema: bare}, Options{Sandbox: sb, Seed: 1, Budget: 20 * time.Second, MaxDatabases: 150})
		if err != nil || out.Verdict != Inequivalent {
			t.Errorf("%s / %s without keys: %s (%s, %v), want inequivalent", c.q1, c.q2, out.Verdict, out.Reason, err)
		}
	}
	if err := sb.Close(); err != nil {
		t.Fatal(err)
	}
	if after := mysqlFingerprint(t, conn); after != before {
		t.Fatalf("the db_id database changed:\n%s\n%s", before, after)
	}
	for _, d := range testserver.MySQLDatabases(t, server, "") {
		if strings.HasPrefix(d, sb.Prefix()) {
			t.Fatalf("scratch database %s left", d)
		}
	}
}

// keyless returns sch's tables as MySQL DDL without their keys, foreign
// keys, UNIQUEs and NOT NULLs.
func keyless(sch *catalog.Database) string {
	bare := &catalog.Database{}
	for _, t := range sch.Tables {
		nt := &catalog.Table{Name: t.Name, Columns: slices.Clone(t.Columns)}
		for i := range nt.Columns {
			nt.Columns[i].NotNull = false
		}
		bare.Tables = append(bare.Tables, nt)
	}
	return strings.Join(bare.CreateStatements(engine.MySQL), ";\n")
}

// TestMySQLDBIDCommand runs `equiv` (RunCommand, what the CLI calls) on
// db_id pairs with a mysql:// --db: the database's keys decide a pair, its
// values seed a witness, which re-verifies; a database the server lacks
// and a db_id that is a path give unknown with the reason; the database is
// unchanged and no scratch database is left.
func TestMySQLDBIDCommand(t *testing.T) {
	server := testserver.MySQL(t)
	ctx := context.Background()
	db, conn := loadSpiderIntoMySQL(t, server, "concert_singer")
	before, scratchBefore := mysqlFingerprint(t, conn), scratchDatabases(t, server)
	const q1, q2 = "SELECT count(*) FROM singer WHERE Country = 'France'", "SELECT count(*) FROM singer WHERE Country LIKE 'France%'"
	pairs := `{"id": "fk", "q1": "SELECT T1.concert_ID FROM singer_in_concert AS T1 JOIN concert AS T2 ON T1.concert_ID = T2.concert_ID", "q2": "SELECT concert_ID FROM singer_in_concert", "db_id": "` + db + `"}
{"id": "country", "q1": "` + q1 + `", "q2": "` + q2 + `", "db_id": "` + db + `"}
{"id": "missing", "q1": "SELECT 1", "q2": "SELECT 1", "db_id": "sjt_no_such_database"}
{"id": "path", "q1": "SELECT 1", "q2": "SELECT 1", "db_id": "../` + db + `"}
`
	dir := t.TempDir()
	file := filepath.Join(dir, "pairs.jsonl")
	if err := os.WriteFile(file, []byte(pairs), 0o644); err != nil {
		t.Fatal(err)
	}
	var console strings.Builder
	opts := CommandOptions{Pairs: file, Out: filepath.Join(dir, "out"), DB: mysqlReaderDSN(t, server, db), Seed: 1, Budget: 20 * time.Second, MaxDatabases: 150}
	if err := RunCommand(ctx, opts, &console); err != nil {
		t.Fatal(err)
	}
	recs, err := readRecords(filepath.Join(dir, "out", ResultsFile))
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]Verdict{"fk": EquivalentBounded, "country": Inequivalent, "missing": Unknown, "path": Unknown}
	for id, v := range want {
		if recs[id].Verdict != v {
			t.Errorf("%s: %s (%s), want %s", id, recs[id].Verdict, recs[id].Reason, v)
		}
	}
	if r := recs["path"].Reason; !strings.Contains(r, "not a path") {
		t.Errorf("path: reason %q does not say the db_id must be a name", r)
	}
	if w := recs["country"].Witness; w != nil {
		if !strings.Contains(w.SQL, "'France") {
			t.Errorf("the country witness does not use the database's or the query's value:\n%s", w.SQL)
		}
		reverifyMySQL(t, w, q1, q2)
	}
	if after := mysqlFingerprint(t, conn); after != before {
		t.Fatalf("the db_id database changed:\n%s\n%s", before, after)
	}
	if after := scratchDatabases(t, server); !slices.Equal(scratchBefore, after) {
		t.Fatalf("scratch databases before %v, after %v", scratchBefore, after)
	}
}

// scratchDatabases lists the server's scratch databases made by this
// process's sandboxes (other test binaries make theirs on the same
// server at the same time).
func scratchDatabases(t *testing.T, server string) []string {
	t.Helper()
	var out []string
	for _, d := range testserver.MySQLDatabases(t, server, "sqljudge_equiv_") {
		if sandbox.IsMadeHere(d) {
			out = append(out, d)
		}
	}
	return out
}

// BenchmarkMySQLReadDB measures what reading a db_id database costs on
// MariaDB (Spider's concert_singer: 4 tables, 21 columns): the
// information_schema queries and one sample query a column.
func BenchmarkMySQLReadDB(b *testing.B) {
	server := testserver.MySQL(b)
	ctx := context.Background()
	db, _ := loadSpiderIntoMySQL(b, server, "concert_singer")
	sb, err := mysqlsb.New(ctx, server, true)
	if err != nil {
		b.Fatal(err)
	}
	defer sb.Close()
	for b.Loop() {
		if _, err := readServerSchema(ctx, sb, db); err != nil {
			b.Fatal(err)
		}
	}
}

// TestMySQLDBIDExoticTypes decides db_id pairs over a MariaDB database
// with columns the search's databases cannot declare as they are: a
// TINYINT (declared SMALLINT, where 200 fits and `x > 127` holds) and a
// VARCHAR under utf8mb4_bin (declared under utf8mb4's case-insensitive
// default, where 'A' = 'a'). A pair reading one is unknown with the column
// named, where the search reported witnesses the database cannot hold;
// a pair over INT, TEXT and VARCHAR columns of the default collation is
// searched and refuted.
func TestMySQLDBIDExoticTypes(t *testing.T) {
	server := testserver.MySQL(t)
	ctx := context.Background()
	name := strings.TrimSuffix(testserver.Name("sjt_exotic_"), "_")
	db := testserver.CreateMySQLDB(t, server, name)
	for _, st := range []string{
		"CREATE TABLE t (id INT PRIMARY KEY, x TINYINT, s VARCHAR(20) COLLATE utf8mb4_bin, note TEXT, name VARCHAR(20))",
		"INSERT INTO t VALUES (1, 5, 'a', 'n', 'x')",
	} {
		if _, err := db.ExecContext(ctx, st); err != nil {
			t.Fatal(err)
		}
	}
	sb, err := mysqlsb.New(ctx, mysqlReaderDSN(t, server, name), false)
	if err != nil {
		t.Fatal(err)
	}
	defer sb.Close()
	checkVerdicts(t, Pair{DBID: name}, Options{Sandbox: sb, Seed: 1, Budget: time.Minute, MaxDatabases: 100}, []verdictCase{
		{"SELECT id FROM t WHERE x > 127", "SELECT id FROM t WHERE 1 = 0", Unknown, "t.x: its type TINYINT(4) is declared SMALLINT"},
		{"SELECT id FROM t WHERE s = 'a'", "SELECT id FROM t WHERE s = 'a' AND BINARY s = 'a'", Unknown, "t.s: its collation utf8mb4_bin"},
		{"SELECT id FROM t WHERE note = 'n' AND name = 'v'", "SELECT id FROM t WHERE note = 'n'", Inequivalent, ""},
	})
}

// TestMySQLDBIDUnmodelled reads a MariaDB database whose tables hold what
// the model leaves out — a generated column (declared plain, the search
// set it to NULL), an INVISIBLE one (declared visible: SELECT * returned
// it), a unique index on a prefix (read as a key of the whole column, the
// search held two values of one prefix) — and refuses the pairs that read
// them; a pair over the plain table is still refuted.
func TestMySQLDBIDUnmodelled(t *testing.T) {
	server := testserver.MySQL(t)
	ctx := context.Background()
	name := strings.TrimSuffix(testserver.Name("sjt_unmod_"), "_")
	db := testserver.CreateMySQLDB(t, server, name)
	for _, st := range []string{
		"CREATE TABLE gen (id INT PRIMARY KEY, x INT, g INT AS (x * 2) VIRTUAL)",
		"CREATE TABLE inv (id INT PRIMARY KEY, x INT, h INT INVISIBLE)",
		"CREATE TABLE pre (id INT PRIMARY KEY, s VARCHAR(20), UNIQUE KEY s3 (s(3)))",
		"CREATE TABLE plain (id INT PRIMARY KEY, x INT)",
		"CREATE TABLE `g``x` (id INT PRIMARY KEY, x INT, g INT AS (x + 1) VIRTUAL)",
		"INSERT INTO gen (id, x) VALUES (1, 2)", "INSERT INTO inv (id, x, h) VALUES (1, 2, 3)",
		"INSERT INTO pre VALUES (1, 'abcd')", "INSERT INTO plain VALUES (1, 3)",
	} {
		if _, err := db.ExecContext(ctx, st); err != nil {
			t.Fatal(err)
		}
	}
	sb, err := mysqlsb.New(ctx, mysqlReaderDSN(t, server, name), false)
	if err != nil {
		t.Fatal(err)
	}
	defer sb.Close()
	checkVerdicts(t, Pair{DBID: name}, Options{Sandbox: sb, Seed: 1, Budget: time.Minute, MaxDatabases: 100}, []verdictCase{
		{"SELECT g FROM gen", "SELECT x * 2 FROM gen", Unknown, "table gen: column g: virtual generated"},
		{"SELECT * FROM inv", "SELECT id, x FROM inv", Unknown, "table inv: column h: invisible"},
		// Spellings a lexical reading of names once missed.
		{"SELECT DISTINCTROW * FROM inv", "SELECT id, x FROM inv", Unknown, "table inv: column h: invisible"},
		{"SELECT g FROM `g``x`", "SELECT x + 1 FROM `g``x`", Unknown, "table g`x: column g: virtual generated"},
		{"SELECT count(*) FROM pre WHERE s LIKE 'abc%'", "SELECT count(*) FROM pre WHERE s = 'abcd'", Unknown, "table pre: unique index s3 on a prefix"},
		{"SELECT x FROM plain WHERE x > 1", "SELECT x FROM plain WHERE x > 2", Inequivalent, ""},
	})
}
