package mysql

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	mysqldrv "github.com/go-sql-driver/mysql"

	"github.com/sqljudge/sqljudge/internal/engine"
	"github.com/sqljudge/sqljudge/internal/result"
	"github.com/sqljudge/sqljudge/internal/sandbox"
	"github.com/sqljudge/sqljudge/internal/sandbox/sandboxtest"
	"github.com/sqljudge/sqljudge/internal/status"
	"github.com/sqljudge/sqljudge/internal/testserver"
)

// suiteConfig runs the shared sandbox suite with sandboxes of the account
// of dsn on the MariaDB test server.
func suiteConfig(server, dsn string, allowSuperuser bool) sandboxtest.Config {
	return sandboxtest.Config{
		New: func(t *testing.T) sandbox.Sandbox {
			sb, err := New(context.Background(), dsn, allowSuperuser)
			if err != nil {
				t.Fatal(err)
			}
			return sb
		},
		Fresh: sandboxtest.FreshMySQL,
		Leftovers: func(t *testing.T, sb sandbox.Sandbox) []string {
			return testserver.MySQLDatabases(t, server, sb.(*Sandbox).Prefix()+"_")
		},
	}
}

// TestSandboxSuite runs the shared sandbox suite on scratch databases of
// the MariaDB test server.
func TestSandboxSuite(t *testing.T) {
	server := testserver.MySQL(t)
	sandboxtest.Run(t, suiteConfig(server, server, true))
}

// TestMySQLLimitedAccount runs the shared suite as an account that holds
// only the privileges the sandbox documents, on the scratch databases'
// names: it is not refused, and its scratch databases are made, filled,
// read and dropped. (The CI account may not GRANT, so the grant is written
// into mysql.db as GRANT would write it.)
func TestMySQLLimitedAccount(t *testing.T) {
	server := testserver.MySQL(t)
	dsn := testserver.MySQLAccount(t, server, map[string][]string{scratchPattern: documentedGrant})
	sandboxtest.Run(t, suiteConfig(server, dsn, false))
}

// TestExcessGrant holds SHOW GRANTS lines to the documented grant: only
// USAGE on *.*, the six privileges on the scratch databases, SELECT and
// SHOW VIEW elsewhere; a role is returned to be judged by its own grants.
func TestExcessGrant(t *testing.T) {
	cases := map[string][2]string{
		"GRANT ALL PRIVILEGES ON *.* TO `u`@`h` IDENTIFIED BY PASSWORD '*09'":                                   {"ALL PRIVILEGES ON *.*", ""},
		"GRANT SELECT, FILE ON *.* TO `u`@`h`":                                                                  {"SELECT ON *.*", ""},
		"GRANT USAGE ON *.* TO `u`@`h` WITH GRANT OPTION":                                                       {"GRANT OPTION", ""},
		"GRANT USAGE ON *.* TO `u`@`h`":                                                                         {"", ""},
		"GRANT USAGE ON *.* TO `u`@`h` IDENTIFIED BY PASSWORD '*0A1B'":                                          {"", ""},
		"GRANT CREATE, DROP ON *.* TO `u`@`h`":                                                                  {"CREATE ON *.*", ""},
		"GRANT ALL PRIVILEGES ON `sqljudge\\_equiv\\_%`.* TO `u`@`h`":                                           {"ALL PRIVILEGES ON `sqljudge\\_equiv\\_%`.*", ""},
		"GRANT SELECT, INSERT, DELETE, CREATE, DROP, REFERENCES ON `sqljudge\\_equiv\\_%`.* TO `u`@`h`":         {"", ""},
		"GRANT SELECT, INSERT, UPDATE, DELETE, CREATE, DROP, REFERENCES ON `sqljudge\\_equiv\\_%`.* TO `u`@`h`": {"UPDATE ON `sqljudge\\_equiv\\_%`.*", ""},
		"GRANT SELECT ON `concert_singer`.* TO `u`@`h`":                                                         {"", ""},
		"GRANT SELECT (`a`, `b`) ON `db`.`t` TO `u`@`h`":                                                        {"", ""},
		"GRANT SELECT, INSERT ON `db`.* TO `u`@`h`":                                                             {"INSERT ON `db`.*", ""},
		"GRANT SELECT ON `db`.* TO `u`@`h` WITH GRANT OPTION":                                                   {"GRANT OPTION", ""},
		"GRANT EXECUTE ON PROCEDURE `db`.`p` TO `u`@`h`":                                                        {"EXECUTE ON PROCEDURE `db`.`p`", ""},
		"GRANT `r` TO `u`@`h`":                                                                                  {"", "`r`"},
		"GRANT PROXY ON ''@'%' TO 'root'@'localhost' WITH GRANT OPTION":                                         {"GRANT OPTION", ""},
		"GRANT PROXY ON ''@'%' TO 'root'@'localhost'":                                                           {"PROXY", ""},
		"GRANT SELECT (a), SUPER ON *.* TO `u`@`h`":                                                             {"SELECT ON *.*", ""},
		"GRANT BINLOG MONITOR ON *.* TO `u`@`h`":                                                                {"BINLOG MONITOR ON *.*", ""},
		"SET DEFAULT ROLE `r` FOR `u`@`h`":                                                                      {"", ""},
		"REVOKE SELECT ON `db`.* FROM `u`@`h`":                                                                  {"an unknown grant (REVOKE SELECT ON `db`.* FROM `u`@`h`)", ""},
		// The server's own databases: password hashes, other sessions'
		// statements (issue 41).
		"GRANT SELECT ON `mysql`.* TO `u`@`h`":                   {"SELECT ON `mysql`.*", ""},
		"GRANT SELECT ON `mysql`.`user` TO `u`@`h`":              {"SELECT ON `mysql`.`user`", ""},
		"GRANT SELECT (`Password`) ON `mysql`.`user` TO `u`@`h`": {"SELECT ON `mysql`.`user`", ""},
		"GRANT SELECT ON `MySQL`.`global_priv` TO `u`@`h`":       {"SELECT ON `MySQL`.`global_priv`", ""},
		"GRANT SELECT ON `performance_schema`.* TO `u`@`h`":      {"SELECT ON `performance_schema`.*", ""},
		"GRANT SELECT, SHOW VIEW ON `sys`.* TO `u`@`h`":          {"SELECT, SHOW VIEW ON `sys`.*", ""},
		"GRANT SELECT ON `%`.* TO `u`@`h`":                       {"SELECT ON `%`.*", ""},
		"GRANT SELECT ON `m_sql`.* TO `u`@`h`":                   {"SELECT ON `m_sql`.*", ""},
		"GRANT SELECT ON `performance\\_schema`.* TO `u`@`h`":    {"SELECT ON `performance\\_schema`.*", ""},
		"GRANT SELECT ON `m\\_sql`.* TO `u`@`h`":                 {"", ""},
		"GRANT SELECT ON `mysql_extra`.* TO `u`@`h`":             {"", ""},
		"GRANT SELECT ON `mysqlx`.`t` TO `u`@`h`":                {"", ""},
		"GRANT USAGE ON `mysql`.* TO `u`@`h`":                    {"", ""},
		// Grants to PUBLIC: every account holds them.
		"GRANT SELECT ON `spider_dev`.* TO PUBLIC":                             {"", ""},
		"GRANT INSERT ON `spider_dev`.* TO PUBLIC":                             {"INSERT ON `spider_dev`.* TO PUBLIC", ""},
		"GRANT SELECT ON `mysql`.`user` TO PUBLIC":                             {"SELECT ON `mysql`.`user` TO PUBLIC", ""},
		"GRANT SELECT ON `sqljudge\\_equiv\\_%`.* TO PUBLIC":                   {"SELECT ON `sqljudge\\_equiv\\_%`.* TO PUBLIC", ""},
		"GRANT SELECT ON `sqljudge%`.* TO PUBLIC":                              {"SELECT ON `sqljudge%`.* TO PUBLIC", ""},
		"GRANT SELECT ON `sqljudge\\_equiv\\_sjv\\_%`.* TO PUBLIC":             {"SELECT ON `sqljudge\\_equiv\\_sjv\\_%`.* TO PUBLIC", ""},
		"GRANT SELECT ON `sqljudge_equiv_1700000000_deadbeef_1`.`t` TO PUBLIC": {"SELECT ON `sqljudge_equiv_1700000000_deadbeef_1`.`t` TO PUBLIC", ""},
		"GRANT SELECT ON `sqljudge\\_other`.* TO PUBLIC":                       {"", ""},
		"GRANT CREATE, DROP ON `sqljudge\\_equiv\\_%`.* TO PUBLIC":             {"CREATE ON `sqljudge\\_equiv\\_%`.* TO PUBLIC", ""},
		"GRANT SELECT ON `db`.* TO `to`@`h`":                                   {"", ""},
	}
	for g, want := range cases {
		excess, role := excessGrant(g)
		if excess != want[0] || role != want[1] {
			t.Errorf("excessGrant(%q) = %q, %q; want %q, %q", g, excess, role, want[0], want[1])
		}
	}
}

// scratchPattern is the scratch databases' name pattern as mysql.db keeps it.
const scratchPattern = `sqljudge\\_equiv\\_%`

var documentedGrant = []string{"Select_priv", "Insert_priv", "Delete_priv", "Create_priv", "Drop_priv", "References_priv"}

// TestMySQLAccountVetting: an account with a privilege beyond the
// documented grant (UPDATE on another database) is refused as privileged;
// one with no privilege on the scratch databases is refused before any
// pair (ErrSetup); SELECT on a db_id database is allowed.
func TestMySQLAccountVetting(t *testing.T) {
	server := testserver.MySQL(t)
	ctx := context.Background()
	extra := testserver.MySQLAccount(t, server, map[string][]string{scratchPattern: documentedGrant, "sjv_other": {"Select_priv", "Update_priv"}})
	if _, err := New(ctx, extra, false); !errors.Is(err, engine.ErrPrivileged) || !strings.Contains(err.Error(), "UPDATE ON `sjv_other`.*") {
		t.Errorf("an account with UPDATE on another database: %v, want ErrPrivileged naming it", err)
	}
	none := testserver.MySQLAccount(t, server, nil)
	if _, err := New(ctx, none, false); !errors.Is(err, sandbox.ErrSetup) {
		t.Errorf("an account without the grant: %v, want ErrSetup", err)
	}
	reader := testserver.MySQLAccount(t, server, map[string][]string{scratchPattern: documentedGrant, "sjv_dbid": {"Select_priv"}})
	sb, err := New(ctx, reader, false)
	if err != nil {
		t.Fatalf("the documented grant and SELECT on a db_id database: %v", err)
	}
	sb.Close()
}

// TestMySQLSweep: a new sandbox drops the scratch databases that are old,
// marked as a sandbox marks them (sandbox.Marker) and that no session of
// the account is connected to, and no other: not a database someone else
// made under a stale scratch name (issue 41: --cleanup dropped one root
// had made).
func TestMySQLSweep(t *testing.T) {
	server := testserver.MySQL(t)
	ctx := context.Background()
	dsn := testserver.MySQLAccount(t, server, map[string][]string{scratchPattern: documentedGrant})
	old := time.Now().Add(-time.Hour)
	stale, fresh, busy, other := staleName(old, "deadbee4", 1), staleName(time.Now(), "deadbee4", 2), staleName(old, "deadbee4", 3), "sjv_not_scratch"
	unmarked := staleName(old, "deadbee4", 4)
	admin := testserver.OpenMySQL(t, server, "")
	for _, n := range []string{stale, fresh, busy, other, unmarked} {
		create := "CREATE DATABASE " + n
		if n != other && n != unmarked {
			create += " COMMENT '" + sandbox.Marker(n) + "'"
		}
		if _, err := admin.ExecContext(ctx, create); err != nil {
			t.Fatal(err)
		}
	}
	t.Cleanup(func() {
		for _, n := range []string{stale, fresh, busy, other, unmarked} {
			_, _ = admin.ExecContext(context.Background(), "DROP DATABASE IF EXISTS "+n)
		}
	})
	cfg := testserver.MySQLConfig(t, dsn).Clone()
	cfg.DBName = busy
	hold, err := openMySQL(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if err := hold.PingContext(ctx); err != nil {
		t.Fatal(err)
	}
	defer hold.Close()
	sb, err := New(ctx, dsn, false)
	if err != nil {
		t.Fatal(err)
	}
	defer sb.Close()
	// Another test's sandbox under an account that sees every database
	// may have swept the stale one first: it must be gone, and nothing
	// else may have been swept.
	for _, n := range sb.Swept() {
		if n != stale {
			t.Errorf("swept %s", n)
		}
	}
	var gone string
	if err := admin.QueryRowContext(ctx, "SELECT SCHEMA_NAME FROM information_schema.SCHEMATA WHERE SCHEMA_NAME = ?", stale).Scan(&gone); err == nil {
		t.Errorf("the stale %s was left", stale)
	}
	for _, n := range []string{fresh, busy, other, unmarked} {
		var got string
		if err := admin.QueryRowContext(ctx, "SELECT SCHEMA_NAME FROM information_schema.SCHEMATA WHERE SCHEMA_NAME = ?", n).Scan(&got); err != nil {
			t.Errorf("%s: %v", n, err)
		}
	}
}

// staleName is a scratch database name made at t with the random part r.
func staleName(at time.Time, r string, n int) string {
	return fmt.Sprintf("sqljudge_equiv_%d_%s_%d", at.Unix(), r, n)
}

// TestSandboxSessionsPinned: the writer and the reader sessions pin
// sql_mode (no ANSI_QUOTES, no NO_BACKSLASH_ESCAPES), and the writer on
// MariaDB a statement timeout of its own.
func TestSandboxSessionsPinned(t *testing.T) {
	ctx := context.Background()
	server := testserver.MySQL(t)
	sb, err := New(ctx, server, true)
	if err != nil {
		t.Fatal(err)
	}
	defer sb.Close()
	sc, err := sb.Open(ctx, []string{"CREATE TABLE `t` (`a` TEXT)"})
	if err != nil {
		t.Fatal(err)
	}
	defer sc.Close()
	want := strings.Trim(mysqlSQLMode, "'")
	var mode string
	var limit float64
	if err := sc.(*mysqlScratch).w.QueryRowContext(ctx, "SELECT @@SESSION.sql_mode, @@SESSION.max_statement_time").Scan(&mode, &limit); err != nil || mode != want || limit != 30 {
		t.Errorf("writer sql_mode %q, max_statement_time %v (%v); want %q, 30", mode, limit, err, want)
	}
	set, err := sc.Query(ctx, "SELECT @@SESSION.sql_mode")
	if err != nil || set.Rows[0][0].S != want {
		t.Errorf("reader sql_mode %v (%v), want %q", set, err, want)
	}
}

// BenchmarkMySQLDatabase measures what one database of the search costs on
// MariaDB: a Load of two rows and two queries (on the scratch's reader
// session, each followed by its reset).
func BenchmarkMySQLDatabase(b *testing.B) {
	server := testserver.MySQL(b)
	ctx := context.Background()
	sb, err := New(ctx, server, true)
	if err != nil {
		b.Fatal(err)
	}
	defer sb.Close()
	sc, err := sb.Open(ctx, []string{"CREATE TABLE t (x INT PRIMARY KEY, y INT)"})
	if err != nil {
		b.Fatal(err)
	}
	defer sc.Close()
	for b.Loop() {
		if err := sc.Load(ctx, []sandbox.TableRows{{Name: "`t`", Cols: 2, Rows: [][]result.Value{{result.IntValue(1), result.IntValue(2)}, {result.IntValue(2), result.IntValue(3)}}}}); err != nil {
			b.Fatal(err)
		}
		for range 2 {
			if _, err := sc.Query(ctx, "SELECT y FROM t WHERE x > 1"); err != nil {
				b.Fatal(err)
			}
		}
	}
}

// openConfined opens a scratch database with table t (a INT PRIMARY KEY)
// holding rows 1 and 2, under an account with only the documented grant.
func openConfined(t *testing.T) (*mysqlScratch, []sandbox.TableRows, string) {
	t.Helper()
	ctx := context.Background()
	server := testserver.MySQL(t)
	dsn := testserver.MySQLAccount(t, server, map[string][]string{scratchPattern: documentedGrant})
	sb, err := New(ctx, dsn, false)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { sb.Close() })
	scr, err := sb.Open(ctx, []string{"CREATE TABLE `t` (`a` INT PRIMARY KEY)"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { scr.Close() })
	rows := []sandbox.TableRows{{Name: "`t`", Cols: 1, Rows: [][]result.Value{{result.IntValue(1)}, {result.IntValue(2)}}}}
	if err := scr.Load(ctx, rows); err != nil {
		t.Fatal(err)
	}
	return scr.(*mysqlScratch), rows, server
}

// one runs q on sc and returns the text of its first cell ("NULL" for
// NULL).
func one(sc *mysqlScratch, q string) (string, error) {
	set, err := sc.Query(context.Background(), q)
	if err != nil {
		return "", err
	}
	if set.Rows[0][0].IsNull() {
		return "NULL", nil
	}
	return result.PyStr(set.Rows[0][0]), nil
}

// TestScratchQueryConfined: a query on the scratch's reader session cannot
// write (refused before it is sent, and refused by the server on the
// session itself, SELECT … FOR UPDATE included), leaves nothing in the
// session for the next query (a user variable, LAST_INSERT_ID, a named
// lock), cannot read a database the account holds no grant on, and
// a query that fails, times out or passes the row cap leaves the loaded
// rows as they were; those rows are never committed (another session sees
// none).
func TestScratchQueryConfined(t *testing.T) {
	ctx := context.Background()
	sc, _, server := openConfined(t)
	count := func() string {
		t.Helper()
		got, err := one(sc, "SELECT count(*) FROM t")
		if err != nil {
			t.Fatalf("count: %v", err)
		}
		return got
	}
	if got := count(); got != "2" {
		t.Fatalf("%s rows loaded, want 2", got)
	}
	other := testserver.OpenMySQL(t, server, sc.name)
	var committed int
	if err := other.QueryRowContext(ctx, "SELECT count(*) FROM t").Scan(&committed); err != nil || committed != 0 {
		t.Errorf("another session sees %d rows (%v): the rows of a database tried were committed", committed, err)
	}
	for _, q := range []string{
		"INSERT INTO t VALUES (7)", "DELETE FROM t", "UPDATE t SET a = a + 10", "SET SESSION TRANSACTION READ WRITE",
		"SET @@session.tx_read_only = 0", "COMMIT", "SELECT 1; COMMIT", "DROP TABLE t", "CREATE TABLE u (x INT)",
		"SELECT a INTO @v FROM t LIMIT 1", "SELECT a FROM t INTO OUTFILE '/tmp/sqljudge_m32_out'",
		"SELECT * FROM t FOR UPDATE", "WITH x AS (SELECT 1) DELETE FROM t", "WITH x AS (SELECT 1) UPDATE t SET a = 5",
		"SELECT * FROM mysql.user", "SELECT LOAD_FILE('/etc/passwd') IS NOT NULL",
	} {
		got, err := one(sc, q)
		if err == nil && !strings.Contains(q, "LOAD_FILE") {
			t.Errorf("%s ran: %s", q, got)
		}
		if strings.Contains(q, "LOAD_FILE") && err == nil && got != "0" {
			t.Errorf("%s read a server file", q)
		}
		t.Logf("%s: %v", q, err)
		if got := count(); got != "2" {
			t.Errorf("after %s, %s rows, want 2", q, got)
		}
	}
	// The session itself refuses writes: what keeps a query from writing
	// is the server, not only the check before it is sent.
	rc, err := sc.reader(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, st := range []string{"INSERT INTO t VALUES (9)", "DELETE FROM t"} {
		if _, err := rc.ExecContext(ctx, st); err == nil {
			t.Errorf("the reader session ran %s", st)
		} else if errNumber(err) != 1792 {
			t.Errorf("the reader session refused %s with %v, want error 1792 (a read-only transaction)", st, err)
		}
	}
	if got := count(); got != "2" {
		t.Errorf("after writes on the reader, %s rows, want 2", got)
	}
	for q, want := range map[string]string{"SELECT @@tx_read_only": "1", "SELECT @@tx_isolation": "READ-UNCOMMITTED", "SELECT @@autocommit": "1", "SELECT @@sql_mode": strings.Trim(mysqlSQLMode, "'"), "SELECT @@time_zone": "+00:00"} {
		if got, err := one(sc, q); err != nil || got != want {
			t.Errorf("%s = %q (%v), want %q", q, got, err, want)
		}
	}
	// Nothing a query leaves in its session reaches the next query.
	for _, c := range [][2]string{
		{"SELECT @v := 5", "SELECT @v"},
		{"SELECT LAST_INSERT_ID(7)", "SELECT LAST_INSERT_ID()"},
		{"SELECT a, @w := a FROM t", "SELECT @w"},
	} {
		if _, err := one(sc, c[0]); err != nil {
			t.Fatalf("%s: %v", c[0], err)
		}
		want := "NULL"
		if strings.Contains(c[1], "LAST_INSERT_ID") {
			want = "0"
		}
		if got, err := one(sc, c[1]); err != nil || got != want {
			t.Errorf("after %s, %s = %q (%v), want %q", c[0], c[1], got, err, want)
		}
	}
	if got, err := one(sc, "SELECT GET_LOCK('sqljudge_m32_lock', 0)"); err != nil || got != "1" {
		t.Fatalf("GET_LOCK: %s (%v)", got, err)
	}
	var free int
	if err := other.QueryRowContext(ctx, "SELECT IS_FREE_LOCK('sqljudge_m32_lock')").Scan(&free); err != nil || free != 1 {
		t.Errorf("a named lock taken by a query outlived it (%v)", err)
	}
	// A locking read of a row the writer holds fails (lock wait timeout
	// of 1s), and the rows stay.
	if _, err := one(sc, "SELECT a FROM t LOCK IN SHARE MODE"); err == nil {
		t.Error("a locking read of the writer's rows ran")
	}
	if got := count(); got != "2" {
		t.Errorf("after a locking read, %s rows, want 2", got)
	}
	// A query stopped by its context: a timeout, the reader is discarded,
	// the rows stay (they are the writer's).
	qctx, cancel := context.WithTimeout(ctx, 300*time.Millisecond)
	_, err = sc.Query(qctx, "SELECT SLEEP(5)")
	cancel()
	if engine.Classify(err, status.OK) != status.Timeout {
		t.Errorf("SLEEP past the deadline: %v, want a timeout", err)
	}
	if got := count(); got != "2" {
		t.Errorf("after a query timed out, %s rows, want 2", got)
	}
	// Past the row cap (10,000) likewise.
	if _, err := sc.Query(ctx, "WITH RECURSIVE g (n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM g WHERE n < 200) SELECT a.n FROM g a, g b"); !errors.Is(err, engine.ErrTooLarge) {
		t.Errorf("40000 rows: %v, want ErrTooLarge", err)
	}
	if got := count(); got != "2" {
		t.Errorf("after the row cap, %s rows, want 2", got)
	}
}

// TestScratchLoadNeverCommits: each Load replaces the rows of the last one
// (rolled back, never committed), a failed Load leaves no row of its own,
// the tables are created once (Load runs no DDL: the table's id stays),
// and an Exec that creates tables commits, after which a Load empties
// them.
func TestScratchLoadNeverCommits(t *testing.T) {
	ctx := context.Background()
	sc, rows, server := openConfined(t)
	other := testserver.OpenMySQL(t, server, sc.name)
	tableID := func() int64 {
		t.Helper()
		var id int64
		if err := other.QueryRowContext(ctx, "SELECT TABLE_ID FROM information_schema.INNODB_SYS_TABLES WHERE NAME = ?", sc.name+"/t").Scan(&id); err != nil {
			t.Fatal(err)
		}
		return id
	}
	before := tableID()
	for i := range 50 {
		r := []sandbox.TableRows{{Name: "`t`", Cols: 1, Rows: [][]result.Value{{result.IntValue(int64(i))}}}}
		if err := sc.Load(ctx, r); err != nil {
			t.Fatal(err)
		}
		if got, err := one(sc, "SELECT group_concat(a) FROM t"); err != nil || got != fmt.Sprint(i) {
			t.Fatalf("after Load %d: %q (%v)", i, got, err)
		}
	}
	dup := []sandbox.TableRows{{Name: "`t`", Cols: 1, Rows: [][]result.Value{{result.IntValue(5)}, {result.IntValue(6)}, {result.IntValue(5)}}}}
	if err := sc.Load(ctx, dup); err == nil {
		t.Error("a Load with a repeated key succeeded")
	}
	if got, err := one(sc, "SELECT count(*) FROM t"); err != nil || got != "0" {
		t.Errorf("after a failed Load, %s rows (%v), want 0", got, err)
	}
	if err := sc.Load(ctx, rows); err != nil {
		t.Fatal(err)
	}
	if after := tableID(); after != before {
		t.Errorf("table t was created again (id %d, then %d): Load ran DDL", before, after)
	}
	var committed int
	if err := other.QueryRowContext(ctx, "SELECT count(*) FROM t").Scan(&committed); err != nil || committed != 0 {
		t.Errorf("another session sees %d rows (%v), want 0", committed, err)
	}
	// An Exec of DDL commits (MySQL commits at each DDL statement).
	if err := sc.Exec(ctx, []string{"CREATE TABLE `u` (`b` INT)", "INSERT INTO `u` VALUES (3)"}); err != nil {
		t.Fatal(err)
	}
	if got, err := one(sc, "SELECT (SELECT count(*) FROM t) * 10 + (SELECT count(*) FROM u)"); err != nil || got != "21" {
		t.Errorf("after the Exec, %s (%v), want 21 (2 rows of t, 1 of u)", got, err)
	}
	u := []sandbox.TableRows{{Name: "`t`", Cols: 1}, {Name: "`u`", Cols: 1, Rows: [][]result.Value{{result.IntValue(4)}}}}
	if err := sc.Load(ctx, u); err != nil {
		t.Fatal(err)
	}
	if got, err := one(sc, "SELECT (SELECT count(*) FROM t) * 10 + (SELECT sum(b) FROM u)"); err != nil || got != "4" {
		t.Errorf("after a Load following a committed Exec, %s (%v), want 4 (t empty, u holding 4)", got, err)
	}
	if err := other.QueryRowContext(ctx, "SELECT (SELECT count(*) FROM t) + (SELECT count(*) FROM u)").Scan(&committed); err != nil || committed != 0 {
		t.Errorf("another session sees %d rows (%v), want 0", committed, err)
	}
}

// errNumber is the MySQL error number of err (0 when it has none).
func errNumber(err error) uint16 {
	var me *mysqldrv.MySQLError
	if errors.As(err, &me) {
		return me.Number
	}
	return 0
}
