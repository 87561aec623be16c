package postgres_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/sqljudge/sqljudge/internal/engine"
	"github.com/sqljudge/sqljudge/internal/engine/enginetest"
	"github.com/sqljudge/sqljudge/internal/engine/postgres"
	"github.com/sqljudge/sqljudge/internal/status"
	"github.com/sqljudge/sqljudge/internal/testserver"
)

// fixture creates the suite's fixture in a fresh database and returns the
// engine's DB prefix and the db_id naming it.
func fixture(t *testing.T, server string) (prefix, db string) {
	t.Helper()
	prefix = testserver.Name("sjt_pg_")
	c := testserver.CreatePostgresDB(t, server, prefix+"fixture")
	for _, s := range enginetest.Fixture(engine.Postgres) {
		if _, err := c.Exec(context.Background(), s); err != nil {
			t.Fatalf("%s: %v", s, err)
		}
	}
	return prefix, "fixture"
}

func TestEngineSuite(t *testing.T) {
	server := testserver.Postgres(t)
	prefix, db := fixture(t, server)
	e, err := postgres.New(server, postgres.Options{MaxRows: enginetest.MaxRows, MaxBytes: enginetest.MaxBytes, DBPrefix: prefix, AllowSuperuser: true})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	enginetest.Run(t, e, db)
}

// running returns how many backends run a query containing marker, as the
// server's process list (pg_stat_activity) shows them.
func running(t *testing.T, admin *pgx.Conn, marker string) int {
	t.Helper()
	var n int
	err := admin.QueryRow(context.Background(),
		"SELECT count(*) FROM pg_stat_activity WHERE pid <> pg_backend_pid() AND state = 'active' AND strpos(query, $1) > 0", marker).Scan(&n)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// TestTimeoutStopsServerQuery checks that a query stopped by its deadline
// is gone from the server's process list within a second of the deadline,
// for a CPU-bound query and a sleeping one, both with the engine's own
// cancellation and with the server's statement_timeout alone.
func TestTimeoutStopsServerQuery(t *testing.T) {
	server := testserver.Postgres(t)
	prefix, db := fixture(t, server)
	admin := testserver.ConnectPostgres(t, server, "")
	e, err := postgres.New(server, postgres.Options{DBPrefix: prefix, StatementTimeout: 700 * time.Millisecond, AllowSuperuser: true})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	enginetest.ServerTimeout(t, e, db, func(marker string) int { return running(t, admin, marker) })
}

// Every query starts from a clean session: a session-level advisory lock
// taken by one prediction must be released when it ends (not held while
// the run goes on), and a setting or a cursor it leaves must not reach the
// next query, even on a pool of one connection.
func TestNoSessionStateBetweenQueries(t *testing.T) {
	server := testserver.Postgres(t)
	prefix, db := fixture(t, server)
	admin := testserver.ConnectPostgres(t, server, prefix+db) // advisory locks are per database
	e, err := postgres.New(server, postgres.Options{DBPrefix: prefix, MaxConns: 1, AllowSuperuser: true})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	ctx := context.Background()
	one := func(q string) string { t.Helper(); return enginetest.One(t, e, db, q) }
	leaks := 0
	for i := range 5 {
		one("SELECT pg_advisory_lock(424242)")
		var got bool
		if err := admin.QueryRow(ctx, "SELECT pg_try_advisory_lock(424242)").Scan(&got); err != nil {
			t.Fatal(err)
		}
		if got {
			admin.Exec(ctx, "SELECT pg_advisory_unlock(424242)")
		} else {
			leaks++
			t.Errorf("round %d: the advisory lock of a finished query is still held", i)
		}
		if got := one("SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND pid = pg_backend_pid()"); got != "0" {
			leaks++
			t.Errorf("round %d: the next query holds advisory locks: %s", i, got)
		}
		one(fmt.Sprintf("SELECT set_config('sj.v', '%d', false)", i))
		if got := one("SELECT coalesce(current_setting('sj.v', true), '')"); got != "" {
			leaks++
			t.Errorf("round %d: the next query sees sj.v = %q", i, got)
		}
	}
	t.Logf("%d of 15 checks saw state left by an earlier query", leaks)
}

// Server administration functions must not run as predictions. A DSN
// whose role is a superuser (or may read server files or signal other
// backends) is refused unless AllowSuperuser; under a reader role each of
// these calls is an error of the query (pred_error), not a result.
func TestAdminFunctionsAreRefused(t *testing.T) {
	server := testserver.Postgres(t)
	prefix, db := fixture(t, server)
	ctx := context.Background()

	su, err := postgres.New(server, postgres.Options{DBPrefix: prefix})
	if err != nil {
		t.Fatal(err)
	}
	defer su.Close()
	if err := su.Check(ctx, db); !errors.Is(err, engine.ErrPrivileged) || !strings.Contains(err.Error(), "superuser") {
		t.Fatalf("a superuser DSN was accepted: %v", err)
	}
	if _, err := su.Query(ctx, db, "SELECT 1"); !errors.Is(err, engine.ErrPrivileged) {
		t.Fatalf("a superuser DSN ran a query: %v", err)
	}

	admin := testserver.ConnectPostgres(t, server, prefix+db)
	var other int
	if err := admin.QueryRow(ctx, "SELECT pg_backend_pid()").Scan(&other); err != nil {
		t.Fatal(err)
	}
	e, err := postgres.New(testserver.PostgresReader(t, server, prefix+db), postgres.Options{DBPrefix: prefix})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	if err := e.Check(ctx, db); err != nil {
		t.Fatalf("a reader role was refused: %v", err)
	}
	if set, err := e.Query(ctx, db, "SELECT count(*) FROM sj_order"); err != nil || set.Len() != 1 {
		t.Fatalf("a reader cannot read: %v, %v", set, err)
	}
	ran := 0
	for _, q := range []string{
		fmt.Sprintf("SELECT pg_terminate_backend(%d)", other),
		fmt.Sprintf("SELECT pg_cancel_backend(%d)", other),
		"SELECT pg_reload_conf()",
		"SELECT pg_read_file('/etc/hostname')",
		"SELECT lo_import('/etc/hostname')",
		"SELECT * FROM pg_ls_dir('.')",
		"SELECT set_config('log_statement', 'all', false)",
	} {
		_, err := e.Query(ctx, db, q)
		if err == nil || engine.Classify(err, status.PredError) != status.PredError {
			ran++
			t.Errorf("%s: %v; want an error graded pred_error", q, err)
		}
	}
	t.Logf("%d of 7 admin calls ran under the reader role", ran)
	if err := admin.Ping(ctx); err != nil {
		t.Errorf("the admin session was ended: %v", err)
	}
	// With AllowSuperuser the superuser DSN is the user's choice.
	allowed, err := postgres.New(server, postgres.Options{DBPrefix: prefix, AllowSuperuser: true})
	if err != nil {
		t.Fatal(err)
	}
	defer allowed.Close()
	if err := allowed.Check(ctx, db); err != nil {
		t.Errorf("AllowSuperuser: %v", err)
	}
}

// TestRefusesMembersOfAdminRoles (issue 41): a role that may take an
// administering role's rights is refused, whether it inherits them or
// not: pg_has_role(…, 'USAGE') let through a member of a superuser by way
// of a NOINHERIT role, whose prediction then ran set_config('role', …)
// inside query_to_xml and read /etc/hostname as the superuser; members of
// pg_monitor, pg_read_all_settings and pg_read_all_stats (other users'
// query texts, every setting) and a NOINHERIT member of pg_signal_backend
// were let through too.
func TestRefusesMembersOfAdminRoles(t *testing.T) {
	server := testserver.Postgres(t)
	ctx := context.Background()
	roles, superuser := testserver.PostgresMemberRoles(t, server, "")
	for _, r := range roles {
		e, err := postgres.New(r.DSN, postgres.Options{})
		if err != nil {
			t.Fatal(err)
		}
		err = e.Check(ctx, "postgres")
		if !errors.Is(err, engine.ErrPrivileged) {
			// What such a role's prediction could do (issue 41's attack).
			attack := fmt.Sprintf("SELECT query_to_xml('SELECT set_config(''role'', ''%s'', true)', false, false, '')::text || query_to_xml('SELECT pg_read_file(''/etc/hostname'')', false, false, '')::text", superuser)
			set, qerr := e.Query(ctx, "postgres", attack)
			t.Errorf("%s (%s): Check = %v, want ErrPrivileged; as the superuser, its query read /etc/hostname: %v (%v)", r.Why, r.Role, err, set, qerr)
		} else if !strings.Contains(err.Error(), r.Role) {
			t.Errorf("%s: %v does not name the role", r.Why, err)
		}
		e.Close()
	}
}
