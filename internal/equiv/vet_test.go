package equiv

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/sqljudge/sqljudge/internal/engine"
	"github.com/sqljudge/sqljudge/internal/testserver"
	"github.com/sqljudge/sqljudge/internal/usage"
)

// pgRole creates a login role with the given attributes, dropped (with
// what it owns) when the test ends, and returns its DSN.
func pgRole(t *testing.T, server, attrs string) (string, string) {
	t.Helper()
	ctx := context.Background()
	admin := testserver.ConnectPostgres(t, server, "")
	role := strings.TrimSuffix(testserver.Name("sjv_"), "_")
	if _, err := admin.Exec(ctx, "CREATE ROLE "+role+" LOGIN "+attrs); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		ctx := context.Background()
		rows, _ := admin.Query(ctx, "SELECT datname FROM pg_database WHERE datdba = (SELECT oid FROM pg_roles WHERE rolname = $1)", role)
		var dbs []string
		for rows.Next() {
			var d string
			_ = rows.Scan(&d)
			dbs = append(dbs, d)
		}
		rows.Close()
		for _, d := range dbs {
			if _, err := admin.Exec(ctx, "DROP DATABASE "+engine.Postgres.QuoteIdent(d)+" WITH (FORCE)"); err != nil {
				t.Error(err)
			}
		}
		if _, err := admin.Exec(ctx, "DROP ROLE "+role); err != nil {
			t.Error(err)
		}
	})
	u, err := url.Parse(server)
	if err != nil {
		t.Fatal(err)
	}
	u.User = url.User(role)
	return u.String(), role
}

// TestPostgresRoleVetting: a role that cannot create databases is refused
// before any pair (exit 2, no record written); one with CREATEROLE is
// refused as privileged; one made as docs/equiv.md says is accepted; and a
// role that may signal backends in a database is seen to.
func TestPostgresRoleVetting(t *testing.T) {
	server := testserver.Postgres(t)
	ctx := context.Background()
	noCreate, _ := pgRole(t, server, "")
	if _, err := NewPostgresSandbox(ctx, noCreate, false); !errors.Is(err, ErrSetup) || !strings.Contains(err.Error(), "may not create databases") {
		t.Errorf("a role without CREATEDB: %v, want ErrSetup", err)
	}
	out := filepath.Join(t.TempDir(), "out")
	pairs := filepath.Join(t.TempDir(), "pairs.jsonl")
	if err := os.WriteFile(pairs, []byte(`{"id": "a", "q1": "SELECT x FROM t", "q2": "SELECT x FROM t WHERE x > 0", "schema": "CREATE TABLE t (x INT)"}`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	var ue usage.Error
	if err := RunCommand(ctx, CommandOptions{Pairs: pairs, Out: out, DB: noCreate}, &strings.Builder{}); !errors.As(err, &ue) {
		t.Errorf("equiv with a role that cannot create databases: %v, want a usage error (exit 2)", err)
	}
	if _, err := os.Stat(filepath.Join(out, ResultsFile)); err == nil {
		t.Errorf("a setup failure left records in %s", out)
	}
	createRole, _ := pgRole(t, server, "CREATEDB CREATEROLE")
	if _, err := NewPostgresSandbox(ctx, createRole, false); !errors.Is(err, engine.ErrPrivileged) || !strings.Contains(err.Error(), "CREATEROLE") {
		t.Errorf("a role with CREATEROLE: %v, want ErrPrivileged", err)
	}
	fit, role := pgRole(t, server, "CREATEDB")
	sb, err := NewPostgresSandbox(ctx, fit, false)
	if err != nil {
		t.Fatalf("a role with CREATEDB only (template1 without EXECUTE on pg_terminate_backend for PUBLIC): %v", err)
	}
	sb.Close()
	// A database where PUBLIC may still signal backends: pgSignals names
	// the functions (the probe refuses such a role).
	name := strings.TrimSuffix(testserver.Name("sjv_sig_"), "_")
	conn := testserver.CreatePostgresDB(t, server, name)
	if _, err := conn.Exec(ctx, "GRANT EXECUTE ON FUNCTION pg_terminate_backend(integer, bigint) TO PUBLIC"); err != nil {
		t.Fatal(err)
	}
	u, _ := url.Parse(fit)
	rc := testserver.ConnectPostgres(t, u.String(), name)
	if got, err := pgSignals(ctx, rc); err != nil || got != "pg_terminate_backend" {
		t.Errorf("role %s in a database granting pg_terminate_backend: %q, %v", role, got, err)
	}
}

// staleName is a scratch database name made at t with the random part r.
func staleName(at time.Time, r string, n int) string {
	return fmt.Sprintf("sqljudge_equiv_%d_%s_%d", at.Unix(), r, n)
}

// TestPostgresSweep: a new sandbox drops the role's scratch databases that
// are old and idle, and no other: not a fresh one, not one a session is
// connected to, not another role's, not another name.
func TestPostgresSweep(t *testing.T) {
	server := testserver.Postgres(t)
	ctx := context.Background()
	dsn, _ := pgRole(t, server, "CREATEDB")
	old := time.Now().Add(-time.Hour)
	stale, fresh, busy := staleName(old, "deadbee1", 1), staleName(time.Now(), "deadbee1", 2), staleName(old, "deadbee1", 3)
	legacy, other := "sqljudge_equiv_deadbee2_1", staleName(old, "deadbee3", 1)
	mine := testserver.ConnectPostgres(t, dsn, "postgres")
	for _, n := range []string{stale, fresh, busy, legacy} {
		if _, err := mine.Exec(ctx, "CREATE DATABASE "+n); err != nil {
			t.Fatal(err)
		}
	}
	testserver.CreatePostgresDB(t, server, other) // the superuser's
	hold := testserver.ConnectPostgres(t, dsn, busy)
	sb, err := NewPostgresSandbox(ctx, dsn, false)
	if err != nil {
		t.Fatal(err)
	}
	defer sb.Close()
	if !slices.Equal(sb.Swept, []string{stale, legacy}) {
		t.Errorf("swept %v, want [%s %s]", sb.Swept, stale, legacy)
	}
	var left []string
	rows, err := mine.Query(ctx, "SELECT datname FROM pg_database WHERE datname LIKE 'sqljudge\\_equiv\\_%' ORDER BY 1")
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var n string
		_ = rows.Scan(&n)
		left = append(left, n)
	}
	rows.Close()
	for _, n := range []string{fresh, busy, other} {
		if !slices.Contains(left, n) {
			t.Errorf("%s was dropped", n)
		}
	}
	for _, n := range []string{stale, legacy} {
		if slices.Contains(left, n) {
			t.Errorf("%s was left", n)
		}
	}
	hold.Close(ctx)
}

// mysqlAccount creates an account with rows of mysql.db (each a database
// name pattern and the privileges it holds there, as column=Y lists),
// dropped when the test ends; it returns its DSN. (The CI account may not
// GRANT: the rows are written as GRANT would write them.)
func mysqlAccount(t *testing.T, server string, dbPrivs map[string][]string) string {
	t.Helper()
	ctx := context.Background()
	admin := testserver.OpenMySQL(t, server, "")
	user := strings.TrimSuffix(testserver.Name("sjv_"), "_")
	host, _, _ := strings.Cut(testserver.MySQLConfig(t, server).Addr, ":")
	stmts := []string{"CREATE USER '" + user + "'@'" + host + "' IDENTIFIED BY 'pw'"}
	for db, privs := range dbPrivs {
		cols, ys := "", ""
		for _, p := range privs {
			cols += ", " + p
			ys += ", 'Y'"
		}
		stmts = append(stmts, "INSERT INTO mysql.db (Host, Db, User"+cols+") VALUES ('"+host+"', '"+db+"', '"+user+"'"+ys+")")
	}
	stmts = append(stmts, "FLUSH PRIVILEGES")
	for _, q := range stmts {
		if _, err := admin.ExecContext(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	t.Cleanup(func() {
		for _, q := range []string{"DROP USER '" + user + "'@'" + host + "'", "DELETE FROM mysql.db WHERE User = '" + user + "'", "FLUSH PRIVILEGES"} {
			if _, err := admin.ExecContext(context.Background(), q); err != nil {
				t.Errorf("%s: %v", q, err)
			}
		}
	})
	u, err := url.Parse(server)
	if err != nil {
		t.Fatal(err)
	}
	u.User = url.UserPassword(user, "pw")
	return u.String()
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
	extra := mysqlAccount(t, server, map[string][]string{scratchPattern: documentedGrant, "sjv_other": {"Select_priv", "Update_priv"}})
	if _, err := NewMySQLSandbox(ctx, extra, false); !errors.Is(err, engine.ErrPrivileged) || !strings.Contains(err.Error(), "UPDATE ON `sjv_other`.*") {
		t.Errorf("an account with UPDATE on another database: %v, want ErrPrivileged naming it", err)
	}
	none := mysqlAccount(t, server, nil)
	if _, err := NewMySQLSandbox(ctx, none, false); !errors.Is(err, ErrSetup) {
		t.Errorf("an account without the grant: %v, want ErrSetup", err)
	}
	reader := mysqlAccount(t, server, map[string][]string{scratchPattern: documentedGrant, "sjv_dbid": {"Select_priv"}})
	sb, err := NewMySQLSandbox(ctx, reader, false)
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
	dsn := mysqlAccount(t, server, map[string][]string{scratchPattern: documentedGrant})
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
	sb, err := NewMySQLSandbox(ctx, dsn, false)
	if err != nil {
		t.Fatal(err)
	}
	defer sb.Close()
	// Another test's sandbox under an account that sees every database
	// may have swept the stale one first: it must be gone, and nothing
	// else may have been swept.
	for _, n := range sb.Swept {
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

// setupFailing fails the Open numbered failAt with a *SetupError, as a
// server that refuses CREATE DATABASE mid-run would.
type setupFailing struct {
	Sandbox
	failAt int64
	opens  atomic.Int64
}

func (s *setupFailing) Open(ctx context.Context, ddl []string) (Scratch, error) {
	if s.opens.Add(1) == s.failAt {
		return nil, &SetupError{errors.New("permission denied to create database")}
	}
	return s.Sandbox.Open(ctx, ddl)
}

// TestSetupFailureIsNotAVerdict: a scratch database that cannot be made
// mid-run stops the run with the error; the pairs decided before keep
// their records, the pair that met the failure gets none, and --resume
// decides it once the server is fixed.
func TestSetupFailureIsNotAVerdict(t *testing.T) {
	dir := t.TempDir()
	pairs := filepath.Join(dir, "pairs.jsonl")
	if err := os.WriteFile(pairs, []byte(`{"id": "a", "q1": "SELECT x FROM t", "q2": "SELECT x FROM t WHERE x > 0", "schema": "CREATE TABLE t (x INT)"}
{"id": "b", "q1": "SELECT x FROM t", "q2": "SELECT DISTINCT x FROM t", "schema": "CREATE TABLE t (x INTEGER PRIMARY KEY)"}
`), 0o644); err != nil {
		t.Fatal(err)
	}
	lines, err := ReadPairs(pairs)
	if err != nil {
		t.Fatal(err)
	}
	o := CommandOptions{Pairs: pairs, Out: dir, Workers: 1, MaxDatabases: 50}
	// Pair a opens twice (its search and its witness's re-verification);
	// the third Open is pair b's.
	sb := &setupFailing{Sandbox: newSQLite(t), failAt: 3}
	_, _, err = decideAll(context.Background(), o, sb, "", lines, nil)
	var se *SetupError
	if !errors.As(err, &se) {
		t.Fatalf("decideAll: %v, want the setup error", err)
	}
	recs, err := readRecords(filepath.Join(dir, ResultsFile))
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := recs["a"]; !ok || len(recs) != 1 {
		t.Fatalf("records after the failure: %v, want pair a's only", recs)
	}
	all, _, err := decideAll(context.Background(), o, newSQLite(t), "", lines, recs)
	if err != nil || len(all) != 2 || all[1].Verdict != EquivalentProved {
		t.Fatalf("resumed: %v, %+v", err, all)
	}
}

// TestSandboxSessionsPinned: the writer and reader sessions of both
// server sandboxes read SQL text the same way whatever the role's own
// settings say (a role set to standard_conforming_strings off and another
// search_path still gets on and public), and the writer has a statement
// timeout of its own.
func TestSandboxSessionsPinned(t *testing.T) {
	ctx := context.Background()
	t.Run("postgres", func(t *testing.T) {
		server := testserver.Postgres(t)
		dsn, role := pgRole(t, server, "CREATEDB")
		admin := testserver.ConnectPostgres(t, server, "")
		for _, q := range []string{"ALTER ROLE " + role + " SET standard_conforming_strings = off", "ALTER ROLE " + role + " SET search_path = evil", "ALTER ROLE " + role + " SET statement_timeout = 0"} {
			if _, err := admin.Exec(ctx, q); err != nil {
				t.Fatal(err)
			}
		}
		sb, err := NewPostgresSandbox(ctx, dsn, false)
		if err != nil {
			t.Fatal(err)
		}
		defer sb.Close()
		sc, err := sb.Open(ctx, []string{`CREATE TABLE "t" ("a" TEXT)`})
		if err != nil {
			t.Fatal(err)
		}
		defer sc.Close()
		w := sc.(*pgScratch).conn
		for name, want := range map[string]string{"standard_conforming_strings": "on", "search_path": "public", "statement_timeout": "30s"} {
			var got string
			if err := w.QueryRow(ctx, "SELECT current_setting($1)", name).Scan(&got); err != nil || got != want {
				t.Errorf("writer %s = %q (%v), want %q", name, got, err, want)
			}
			set, err := sc.Query(ctx, "SELECT current_setting('"+name+"')")
			if name != "statement_timeout" && (err != nil || set.Rows[0][0].S != want) {
				t.Errorf("reader %s = %v (%v), want %q", name, set, err, want)
			}
		}
	})
	t.Run("mysql", func(t *testing.T) {
		server := testserver.MySQL(t)
		sb, err := NewMySQLSandbox(ctx, server, true)
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
	})
}
