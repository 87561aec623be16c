package mysql

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/sqljudge/sqljudge/internal/engine"
	"github.com/sqljudge/sqljudge/internal/result"
	"github.com/sqljudge/sqljudge/internal/sandbox"
	"github.com/sqljudge/sqljudge/internal/sandbox/sandboxtest"
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

// TestMySQLSweep: a new sandbox drops the scratch databases that are old
// and that no session of the account is connected to, and no other.
func TestMySQLSweep(t *testing.T) {
	server := testserver.MySQL(t)
	ctx := context.Background()
	dsn := testserver.MySQLAccount(t, server, map[string][]string{scratchPattern: documentedGrant})
	old := time.Now().Add(-time.Hour)
	stale, fresh, busy, other := staleName(old, "deadbee4", 1), staleName(time.Now(), "deadbee4", 2), staleName(old, "deadbee4", 3), "sjv_not_scratch"
	admin := testserver.OpenMySQL(t, server, "")
	for _, n := range []string{stale, fresh, busy, other} {
		if _, err := admin.ExecContext(ctx, "CREATE DATABASE "+n); err != nil {
			t.Fatal(err)
		}
	}
	t.Cleanup(func() {
		for _, n := range []string{stale, fresh, busy, other} {
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
	for _, n := range []string{fresh, busy, other} {
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
// MariaDB: a Load of two rows and two queries (each on a fresh session,
// as the MySQL engine runs every query).
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
