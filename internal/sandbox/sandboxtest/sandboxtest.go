// Package sandboxtest is the suite every sandbox passes (Run), as
// engine/enginetest is the engines' (golang-migrate's database/testing
// and litestream's RunWithReplicaClient are the models): load, exec and
// query; one statement per call; hostile values and names; a witness
// script built in a scratch database reads as in a database built outside
// the sandbox; no scratch database left. Fresh builds that outside
// database for each engine, and Reverify re-runs a witness on it: equiv's
// tests re-check their witnesses with it.
package sandboxtest

import (
	"context"
	"database/sql"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	_ "github.com/mattn/go-sqlite3" // the "sqlite3" driver, to build SQLite files outside a sandbox

	"github.com/sqljudge/sqljudge/internal/catalog"
	"github.com/sqljudge/sqljudge/internal/engine"
	"github.com/sqljudge/sqljudge/internal/engine/mysql"
	"github.com/sqljudge/sqljudge/internal/engine/postgres"
	"github.com/sqljudge/sqljudge/internal/engine/sqlite"
	"github.com/sqljudge/sqljudge/internal/result"
	"github.com/sqljudge/sqljudge/internal/sandbox"
	"github.com/sqljudge/sqljudge/internal/testserver"
)

// Fresh builds a database outside any sandbox from statements (each run
// through the engine's driver as it is), dropped when the test ends, and
// returns the engine and database name that query it read-only.
type Fresh func(t testing.TB, stmts []string) (engine.Engine, string)

// Config is what Run needs of a sandbox.
type Config struct {
	// New returns a new sandbox; Run closes it.
	New func(t *testing.T) sandbox.Sandbox
	// Fresh builds a database of the sandbox's dialect outside it.
	Fresh Fresh
	// Leftovers lists the scratch databases (or files) of sb that exist.
	Leftovers func(t *testing.T, sb sandbox.Sandbox) []string
}

// FreshSQLite builds a SQLite file in the test's temporary folder through
// the "sqlite3" driver.
func FreshSQLite(t testing.TB, stmts []string) (engine.Engine, string) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "fresh.sqlite")
	db, err := sql.Open("sqlite3", path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	execAll(t, db, stmts)
	eng := sqlite.New("", sqlite.Options{})
	t.Cleanup(func() { eng.Close() })
	return eng, path
}

// FreshPostgres builds a database on the PostgreSQL test server.
func FreshPostgres(t testing.TB, stmts []string) (engine.Engine, string) {
	t.Helper()
	server := testserver.Postgres(t)
	name := strings.TrimSuffix(testserver.Name("sjt_fresh_"), "_")
	conn := testserver.CreatePostgresDB(t, server, name)
	for _, st := range stmts {
		if _, err := conn.Exec(context.Background(), st); err != nil {
			t.Fatalf("%s: %v", sandbox.Abbreviate(st), err)
		}
	}
	eng, err := postgres.New(server, postgres.Options{AllowSuperuser: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { eng.Close() })
	return eng, name
}

// FreshMySQL builds a database on the MariaDB test server.
func FreshMySQL(t testing.TB, stmts []string) (engine.Engine, string) {
	t.Helper()
	server := testserver.MySQL(t)
	name := strings.TrimSuffix(testserver.Name("sjt_fresh_"), "_")
	execAll(t, testserver.CreateMySQLDB(t, server, name), stmts)
	eng, err := mysql.New(server, mysql.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { eng.Close() })
	return eng, name
}

func execAll(t testing.TB, db *sql.DB, stmts []string) {
	t.Helper()
	for _, st := range stmts {
		if _, err := db.Exec(st); err != nil {
			t.Fatalf("%s: %v", sandbox.Abbreviate(st), err)
		}
	}
}

// Reverify builds a witness from its script alone in a database of
// fresh's (outside any sandbox) and returns the results of queries there;
// a script or a query that fails fails the test.
func Reverify(t testing.TB, fresh Fresh, script string, queries ...string) []*result.Set {
	t.Helper()
	eng, db := fresh(t, sandbox.SplitScript(script))
	var out []*result.Set
	for i, q := range queries {
		set, err := eng.Query(context.Background(), db, q)
		if err != nil {
			t.Fatalf("query %d fails on the witness: %v\n%s", i+1, err, script)
		}
		out = append(out, set)
	}
	return out
}

// schemaDDL is the suite's schema, rendered for each dialect.
const schemaDDL = `CREATE TABLE dept (id INTEGER PRIMARY KEY, name VARCHAR(40) NOT NULL);
CREATE TABLE emp (id INTEGER PRIMARY KEY, name VARCHAR(200), dept INTEGER REFERENCES dept (id))`

// hostile are texts that would end a literal or a statement if they were
// ever spliced into SQL.
var hostile = []string{"'); DROP TABLE dept; --", `\'); DROP TABLE dept; --`, "$$; DROP TABLE dept; $$", `a"b` + "`c", "two\nlines\ttab", "Ünïcödé ✓"}

// Run runs the suite on the sandbox c makes.
func Run(t *testing.T, c Config) {
	sch, err := catalog.ParseDDL(schemaDDL)
	if err != nil {
		t.Fatal(err)
	}
	sb := c.New(t)
	t.Cleanup(func() { sb.Close() })
	s := &suite{c: c, sb: sb, sch: sch, d: sb.Dialect()}
	t.Run("LoadExecQuery", s.loadExecQuery)
	t.Run("OneStatement", s.oneStatement)
	t.Run("HostileValues", s.hostileValues)
	t.Run("HostileNames", s.hostileNames)
	t.Run("Witness", s.witness)
	t.Run("Cleanup", s.cleanup)
}

type suite struct {
	c   Config
	sb  sandbox.Sandbox
	sch *catalog.Database
	d   engine.Dialect
}

// rows are dept's and emp's rows (emp's names given).
func rows(names ...string) [][][]result.Value {
	dept := [][]result.Value{{result.IntValue(1), result.TextValue("Sales")}, {result.IntValue(2), result.TextValue("R&D")}}
	var emp [][]result.Value
	for i, n := range names {
		name := result.TextValue(n)
		if n == "" {
			name = result.NullValue()
		}
		emp = append(emp, []result.Value{result.IntValue(int64(10 + i)), name, result.IntValue(int64(1 + i%2))})
	}
	return [][][]result.Value{dept, emp}
}

// tableRows are the rows for Scratch.Load.
func (s *suite) tableRows(sch *catalog.Database, data [][][]result.Value) []sandbox.TableRows {
	out := make([]sandbox.TableRows, len(sch.Tables))
	for i, t := range sch.Tables {
		out[i] = sandbox.TableRows{Name: catalog.TableIdent(s.d, t), Cols: len(t.Columns), Rows: data[i]}
	}
	return out
}

// open opens a scratch database with the suite's schema, closed when the
// test ends.
func (s *suite) open(t *testing.T) sandbox.Scratch {
	t.Helper()
	sc, err := s.sb.Open(context.Background(), s.sch.CreateStatements(s.d))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { sc.Close() })
	return sc
}

// column returns the text of the first column of q's rows (NULL as
// "NULL").
func column(t *testing.T, sc sandbox.Scratch, q string) []string {
	t.Helper()
	set, err := sc.Query(context.Background(), q)
	if err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	var out []string
	for _, r := range set.Rows {
		if r[0].IsNull() {
			out = append(out, "NULL")
		} else {
			out = append(out, result.PyStr(r[0]))
		}
	}
	return out
}

// loadExecQuery: Load replaces every row, a Load that breaks a key fails
// and the next one succeeds, Exec adds rows, Query reads them.
func (s *suite) loadExecQuery(t *testing.T) {
	ctx := context.Background()
	sc := s.open(t)
	if err := sc.Load(ctx, s.tableRows(s.sch, rows("Ann", "", "Bo"))); err != nil {
		t.Fatal(err)
	}
	if got := column(t, sc, "SELECT name FROM emp ORDER BY id"); !slices.Equal(got, []string{"Ann", "NULL", "Bo"}) {
		t.Errorf("emp names %q", got)
	}
	if err := sc.Load(ctx, s.tableRows(s.sch, rows("Cy"))); err != nil {
		t.Fatal(err)
	}
	if got := column(t, sc, "SELECT count(*) FROM emp"); !slices.Equal(got, []string{"1"}) {
		t.Errorf("after a second Load, %q rows, want 1", got)
	}
	dup := rows("Di", "Ed")
	dup[1][1][0] = dup[1][0][0]
	if err := sc.Load(ctx, s.tableRows(s.sch, dup)); err == nil {
		t.Error("a Load with a repeated key succeeded")
	}
	if err := sc.Load(ctx, s.tableRows(s.sch, rows("Fa", "Gi"))); err != nil {
		t.Fatalf("a Load after a failed one: %v", err)
	}
	more := s.sch.InsertStatements(s.d, [][][]result.Value{nil, {{result.IntValue(20), result.TextValue("Hu"), result.IntValue(2)}}})
	if err := sc.Exec(ctx, more); err != nil {
		t.Fatal(err)
	}
	if got := column(t, sc, "SELECT name FROM emp ORDER BY id"); !slices.Equal(got, []string{"Fa", "Gi", "Hu"}) {
		t.Errorf("after Exec, emp names %q", got)
	}
}

// oneStatement: a text of two statements is refused by Exec and by Open,
// and runs neither.
func (s *suite) oneStatement(t *testing.T) {
	ctx := context.Background()
	sc := s.open(t)
	dept, emp := catalog.TableIdent(s.d, s.sch.Tables[0]), catalog.TableIdent(s.d, s.sch.Tables[1])
	if err := sc.Exec(ctx, []string{"INSERT INTO " + dept + " VALUES (5, 'x'); DROP TABLE " + emp}); err == nil {
		t.Error("Exec ran a text of two statements")
	}
	if got := column(t, sc, "SELECT count(*) FROM emp"); !slices.Equal(got, []string{"0"}) {
		t.Errorf("emp after the refused text: %q", got)
	}
	if got := column(t, sc, "SELECT count(*) FROM dept"); !slices.Equal(got, []string{"0"}) {
		t.Errorf("dept after the refused text: %q rows, want 0", got)
	}
	if sc2, err := s.sb.Open(ctx, []string{"CREATE TABLE a (x INT); CREATE TABLE b (y INT)"}); err == nil {
		sc2.Close()
		t.Error("Open ran a text of two statements")
	}
}

// hostileValues: texts that would end a literal or a statement are
// stored as they are, loaded as parameters and executed as literals.
func (s *suite) hostileValues(t *testing.T) {
	ctx := context.Background()
	sc := s.open(t)
	if err := sc.Load(ctx, s.tableRows(s.sch, rows(hostile...))); err != nil {
		t.Fatal(err)
	}
	if got := column(t, sc, "SELECT name FROM emp ORDER BY id"); !slices.Equal(got, hostile) {
		t.Errorf("loaded as parameters:\n got %q\nwant %q", got, hostile)
	}
	if err := sc.Load(ctx, s.tableRows(s.sch, [][][]result.Value{nil, nil})); err != nil {
		t.Fatal(err)
	}
	if err := sc.Exec(ctx, s.sch.InsertStatements(s.d, rows(hostile...))); err != nil {
		t.Fatal(err)
	}
	if got := column(t, sc, "SELECT name FROM emp ORDER BY id"); !slices.Equal(got, hostile) {
		t.Errorf("executed as literals:\n got %q\nwant %q", got, hostile)
	}
	if got := column(t, sc, "SELECT count(*) FROM dept"); !slices.Equal(got, []string{"2"}) {
		t.Errorf("dept: %q rows", got)
	}
}

// hostileNames: tables and columns named with the engines' quotes are
// created, loaded and read.
func (s *suite) hostileNames(t *testing.T) {
	ctx := context.Background()
	sch, err := catalog.ParseDDL("CREATE TABLE \"we\"\"ird`t\" (\"a`b\"\"c\" INTEGER PRIMARY KEY, [x y] TEXT)")
	if err != nil {
		t.Fatal(err)
	}
	sc, err := s.sb.Open(ctx, sch.CreateStatements(s.d))
	if err != nil {
		t.Fatal(err)
	}
	defer sc.Close()
	data := [][][]result.Value{{{result.IntValue(1), result.TextValue(hostile[0])}}}
	if err := sc.Load(ctx, s.tableRows(sch, data)); err != nil {
		t.Fatal(err)
	}
	q := "SELECT " + catalog.Ident(s.d, "x y", false) + " FROM " + catalog.TableIdent(s.d, sch.Tables[0])
	if got := column(t, sc, q); !slices.Equal(got, hostile[:1]) {
		t.Errorf("%s: %q", q, got)
	}
}

// witness: a script (CREATE TABLE statements and literal INSERTs) built in
// a scratch database from nothing, as equiv re-verifies a witness, reads
// as the same script built outside the sandbox.
func (s *suite) witness(t *testing.T) {
	ctx := context.Background()
	script := s.sch.Script(s.d, rows(append([]string{""}, hostile...)...))
	sc, err := s.sb.Open(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer sc.Close()
	if err := sc.Exec(ctx, sandbox.SplitScript(script)); err != nil {
		t.Fatalf("the script does not run in the sandbox: %v\n%s", err, script)
	}
	queries := []string{
		"SELECT id, name, dept FROM emp ORDER BY id",
		"SELECT d.name, count(e.id) FROM dept d LEFT JOIN emp e ON e.dept = d.id GROUP BY d.name ORDER BY d.name",
	}
	want := Reverify(t, s.c.Fresh, script, queries...)
	for i, q := range queries {
		got, err := sc.Query(ctx, q)
		if err != nil {
			t.Fatal(err)
		}
		if !sameRows(got, want[i]) {
			t.Errorf("%s:\n in the sandbox %v\n outside it    %v", q, got.Rows, want[i].Rows)
		}
	}
}

// sameRows compares two results row by row, cells by result.RowKey.
func sameRows(a, b *result.Set) bool {
	return slices.EqualFunc(a.Rows, b.Rows, func(x, y []result.Value) bool { return result.RowKey(x) == result.RowKey(y) })
}

// cleanup: a scratch database exists from Open to Close, and none is left
// after.
func (s *suite) cleanup(t *testing.T) {
	sc, err := s.sb.Open(context.Background(), s.sch.CreateStatements(s.d))
	if err != nil {
		t.Fatal(err)
	}
	if len(s.c.Leftovers(t, s.sb)) == 0 {
		t.Error("no scratch database while one is open")
	}
	if err := sc.Close(); err != nil {
		t.Fatal(err)
	}
	if left := s.c.Leftovers(t, s.sb); len(left) > 0 {
		t.Errorf("scratch databases left after Close: %v", left)
	}
}
