package testserver

import (
	"context"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// PostgresRole creates a login role (named by Name) with the given
// attributes ("CREATEDB", "CREATEDB CREATEROLE", ...) whose sessions do
// not report their queries (track_activities off, as docs/equiv.md makes
// equiv's role), dropped with the databases it owns when the test ends,
// and returns the server DSN with that role as user (the server must
// trust it, as the CI server trusts loopback logins) and the role's name.
func PostgresRole(tb testing.TB, serverDSN, attrs string) (dsn, role string) {
	tb.Helper()
	ctx := context.Background()
	admin := ConnectPostgres(tb, serverDSN, "")
	role = strings.TrimSuffix(Name("sjv_"), "_")
	for _, q := range []string{"CREATE ROLE " + role + " LOGIN " + attrs, "ALTER ROLE " + role + " SET track_activities = off"} {
		if _, err := admin.Exec(ctx, q); err != nil {
			tb.Fatalf("testserver: %s: %v", q, err)
		}
	}
	tb.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		owned, _ := admin.Query(ctx, "SELECT datname FROM pg_database WHERE datdba = (SELECT oid FROM pg_roles WHERE rolname = $1)", role)
		dbs, err := pgx.CollectRows(owned, pgx.RowTo[string])
		if err != nil {
			tb.Errorf("testserver: databases of %s: %v", role, err)
		}
		for _, d := range dbs {
			if _, err := admin.Exec(ctx, "DROP DATABASE "+pgx.Identifier{d}.Sanitize()+" WITH (FORCE)"); err != nil {
				tb.Errorf("testserver: %v", err)
			}
		}
		if _, err := admin.Exec(ctx, "DROP ROLE "+role); err != nil {
			tb.Errorf("testserver: %v", err)
		}
	})
	u, err := url.Parse(serverDSN)
	if err != nil {
		tb.Fatal(err)
	}
	u.User = url.User(role)
	return u.String(), role
}

// MySQLAccount creates an account (named by Name, password "pw") holding,
// on each database name pattern of privs as mysql.db keeps it
// (`sqljudge\\_equiv\\_%`, a database's name), the privileges listed
// (mysql.db's columns: "Select_priv", "Create_priv", ...), written into
// mysql.db as GRANT would write them (the CI account may not GRANT). It is
// dropped when the test ends; the account's DSN is returned.
func MySQLAccount(tb testing.TB, serverDSN string, privs map[string][]string) string {
	tb.Helper()
	ctx := context.Background()
	admin := OpenMySQL(tb, serverDSN, "")
	user := strings.TrimSuffix(Name("sjv_"), "_")
	host, _, _ := strings.Cut(MySQLConfig(tb, serverDSN).Addr, ":")
	stmts := []string{"CREATE USER '" + user + "'@'" + host + "' IDENTIFIED BY 'pw'"}
	for db, ps := range privs {
		cols, ys := "", ""
		for _, p := range ps {
			cols += ", " + p
			ys += ", 'Y'"
		}
		stmts = append(stmts, "INSERT INTO mysql.db (Host, Db, User"+cols+") VALUES ('"+host+"', '"+db+"', '"+user+"'"+ys+")")
	}
	stmts = append(stmts, "FLUSH PRIVILEGES")
	for _, q := range stmts {
		if _, err := admin.ExecContext(ctx, q); err != nil {
			tb.Fatalf("testserver: %s: %v", q, err)
		}
	}
	tb.Cleanup(func() {
		for _, q := range []string{"DROP USER '" + user + "'@'" + host + "'", "DELETE FROM mysql.db WHERE User = '" + user + "'", "FLUSH PRIVILEGES"} {
			if _, err := admin.ExecContext(context.Background(), q); err != nil {
				tb.Errorf("testserver: %s: %v", q, err)
			}
		}
	})
	u, err := url.Parse(serverDSN)
	if err != nil {
		tb.Fatal(err)
	}
	u.User = url.UserPassword(user, "pw")
	return u.String()
}

// PostgresDatabases lists the server's databases whose name starts with
// prefix, sorted.
func PostgresDatabases(tb testing.TB, serverDSN, prefix string) []string {
	tb.Helper()
	rows, err := ConnectPostgres(tb, serverDSN, "").Query(context.Background(), "SELECT datname FROM pg_database WHERE starts_with(datname, $1) ORDER BY 1", prefix)
	if err != nil {
		tb.Fatal(err)
	}
	names, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		tb.Fatal(err)
	}
	return names
}

// MySQLDatabases lists the server's databases whose name starts with
// prefix, sorted.
func MySQLDatabases(tb testing.TB, serverDSN, prefix string) []string {
	tb.Helper()
	rows, err := OpenMySQL(tb, serverDSN, "").Query("SELECT SCHEMA_NAME FROM information_schema.SCHEMATA WHERE LEFT(SCHEMA_NAME, CHAR_LENGTH(?)) = ? ORDER BY 1", prefix, prefix)
	if err != nil {
		tb.Fatal(err)
	}
	defer rows.Close()
	var names []string
	for rows.Next() {
		var n string
		if err := rows.Scan(&n); err != nil {
			tb.Fatal(err)
		}
		names = append(names, n)
	}
	if err := rows.Err(); err != nil {
		tb.Fatal(err)
	}
	return names
}

// MemberRole is a login role made by PostgresMemberRoles: what makes it
// able to administer the server, its DSN and its name.
type MemberRole struct {
	Why, DSN, Role string
}

// PostgresMemberRoles creates, with the attributes attrs (as PostgresRole
// does), one login role for each way a role reaches a server's
// administration through what it is a member of (issue 41): a member of a
// superuser through a NOINHERIT role between them, a NOINHERIT member of
// pg_signal_backend, members of pg_monitor, pg_read_all_settings and
// pg_read_all_stats, and a member of a role with REPLICATION. It returns
// them, and the name of the superuser role (NOLOGIN) the first reaches;
// every role is dropped when the test ends.
func PostgresMemberRoles(tb testing.TB, serverDSN, attrs string) (roles []MemberRole, superuser string) {
	tb.Helper()
	ctx := context.Background()
	admin := ConnectPostgres(tb, serverDSN, "")
	superuser = strings.TrimSuffix(Name("sjv_su_"), "_")
	middle := strings.TrimSuffix(Name("sjv_mid_"), "_")
	repl := strings.TrimSuffix(Name("sjv_repl_"), "_")
	for _, q := range []string{
		"CREATE ROLE " + superuser + " NOLOGIN SUPERUSER",
		"CREATE ROLE " + middle + " NOLOGIN NOINHERIT",
		"GRANT " + superuser + " TO " + middle,
		"CREATE ROLE " + repl + " NOLOGIN REPLICATION",
	} {
		if _, err := admin.Exec(ctx, q); err != nil {
			tb.Fatalf("testserver: %s: %v", q, err)
		}
	}
	tb.Cleanup(func() {
		for _, r := range []string{middle, superuser, repl} {
			if _, err := admin.Exec(context.Background(), "DROP ROLE "+r); err != nil {
				tb.Errorf("testserver: drop role %s: %v", r, err)
			}
		}
	})
	for _, c := range []struct{ why, extra, grant string }{
		{"a member of a superuser through a NOINHERIT role", "", middle},
		{"a NOINHERIT member of pg_signal_backend", " NOINHERIT", "pg_signal_backend"},
		{"a member of pg_monitor", "", "pg_monitor"},
		{"a member of pg_read_all_settings", "", "pg_read_all_settings"},
		{"a member of pg_read_all_stats", "", "pg_read_all_stats"},
		{"a member of a role with REPLICATION", "", repl},
	} {
		dsn, role := PostgresRole(tb, serverDSN, attrs+c.extra)
		if _, err := admin.Exec(ctx, "GRANT "+c.grant+" TO "+role); err != nil {
			tb.Fatalf("testserver: grant %s: %v", c.grant, err)
		}
		roles = append(roles, MemberRole{Why: c.why, DSN: dsn, Role: role})
	}
	return roles, superuser
}
