package postgres

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/sqljudge/sqljudge/internal/engine"
	"github.com/sqljudge/sqljudge/internal/result"
	"github.com/sqljudge/sqljudge/internal/sandbox"
	"github.com/sqljudge/sqljudge/internal/sandbox/sandboxtest"
	"github.com/sqljudge/sqljudge/internal/status"
	"github.com/sqljudge/sqljudge/internal/testserver"
)

// TestSandboxSuite runs the shared sandbox suite on scratch databases of
// the PostgreSQL test server.
func TestSandboxSuite(t *testing.T) {
	server := testserver.Postgres(t)
	sandboxtest.Run(t, sandboxtest.Config{
		New: func(t *testing.T) sandbox.Sandbox {
			sb, err := New(context.Background(), server, true)
			if err != nil {
				t.Fatal(err)
			}
			return sb
		},
		Fresh: sandboxtest.FreshPostgres,
		Leftovers: func(t *testing.T, sb sandbox.Sandbox) []string {
			return testserver.PostgresDatabases(t, server, sb.(*Sandbox).Prefix()+"_")
		},
	})
}

// TestPostgresRoleVetting: a role that cannot create databases is refused
// (sandbox.ErrSetup); one with CREATEROLE is refused as privileged; one
// made as docs/equiv.md says is accepted; and a role that may signal
// backends in a database is seen to.
func TestPostgresRoleVetting(t *testing.T) {
	server := testserver.Postgres(t)
	ctx := context.Background()
	noCreate, _ := testserver.PostgresRole(t, server, "")
	if _, err := New(ctx, noCreate, false); !errors.Is(err, sandbox.ErrSetup) || !strings.Contains(err.Error(), "may not create databases") {
		t.Errorf("a role without CREATEDB: %v, want ErrSetup", err)
	}
	createRole, _ := testserver.PostgresRole(t, server, "CREATEDB CREATEROLE")
	if _, err := New(ctx, createRole, false); !errors.Is(err, engine.ErrPrivileged) || !strings.Contains(err.Error(), "CREATEROLE") {
		t.Errorf("a role with CREATEROLE: %v, want ErrPrivileged", err)
	}
	fit, role := testserver.PostgresRole(t, server, "CREATEDB")
	sb, err := New(ctx, fit, false)
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
	if got, _, err := pgNewDatabase(ctx, rc); err != nil || got != "pg_terminate_backend" {
		t.Errorf("role %s in a database granting pg_terminate_backend: %q, %v", role, got, err)
	}
}

// TestPostgresMemberRolesRefused (issue 41): a role that may take an
// administering role's rights, whether it inherits them or not, is
// refused (exit 2): a member of a superuser by way of a NOINHERIT role
// passed the vetting (it checked USAGE, not MEMBER), and its pairs
// ran set_config('role', …) inside query_to_xml, read /etc/hostname,
// cancelled a superuser's query and left a replication slot; members of
// pg_monitor and the like read other users' query texts. A role whose
// sessions report their queries (track_activities on) is refused too:
// pg_stat_activity showed the texts of its other sessions (this run's
// other workers) to a pair's query, and they reached witnesses.
func TestPostgresMemberRolesRefused(t *testing.T) {
	server := testserver.Postgres(t)
	ctx := context.Background()
	roles, _ := testserver.PostgresMemberRoles(t, server, "CREATEDB")
	for _, r := range roles {
		sb, err := New(ctx, r.DSN, false)
		if !errors.Is(err, engine.ErrPrivileged) || !strings.Contains(err.Error(), r.Role) {
			t.Errorf("%s: New = %v, want ErrPrivileged naming %s", r.Why, err, r.Role)
		}
		if err == nil {
			sb.Close()
		}
	}
	tracked, role := testserver.PostgresRole(t, server, "CREATEDB")
	admin := testserver.ConnectPostgres(t, server, "")
	if _, err := admin.Exec(ctx, "ALTER ROLE "+role+" SET track_activities = on"); err != nil {
		t.Fatal(err)
	}
	sb, err := New(ctx, tracked, false)
	if !errors.Is(err, engine.ErrPrivileged) || !strings.Contains(err.Error(), "track_activities") {
		t.Errorf("a role whose sessions report their queries: New = %v, want ErrPrivileged naming track_activities", err)
	}
	if err == nil {
		sb.Close()
	}
}

// staleName is a scratch database name made at t with the random part r.
func staleName(at time.Time, r string, n int) string {
	return fmt.Sprintf("sqljudge_equiv_%d_%s_%d", at.Unix(), r, n)
}

// TestPostgresSweep: a new sandbox drops the role's scratch databases that
// are old, idle and marked as a sandbox marks them (sandbox.Marker), and
// no other: not a fresh one, not one a session is connected to, not
// another role's, not one the role made under a stale scratch name
// without the marker (issue 41: --cleanup dropped a database it had not
// made).
func TestPostgresSweep(t *testing.T) {
	server := testserver.Postgres(t)
	ctx := context.Background()
	dsn, _ := testserver.PostgresRole(t, server, "CREATEDB")
	old := time.Now().Add(-time.Hour)
	stale, fresh, busy := staleName(old, "deadbee1", 1), staleName(time.Now(), "deadbee1", 2), staleName(old, "deadbee1", 3)
	legacy, other, unmarked := "sqljudge_equiv_deadbee2_1", staleName(old, "deadbee3", 1), staleName(old, "deadbee1", 4)
	mine := testserver.ConnectPostgres(t, dsn, "postgres")
	for _, n := range []string{stale, fresh, busy, legacy, unmarked} {
		if _, err := mine.Exec(ctx, "CREATE DATABASE "+n); err != nil {
			t.Fatal(err)
		}
		if n == unmarked {
			continue
		}
		if _, err := mine.Exec(ctx, "COMMENT ON DATABASE "+n+" IS '"+sandbox.Marker(n)+"'"); err != nil {
			t.Fatal(err)
		}
	}
	testserver.CreatePostgresDB(t, server, other) // the superuser's
	hold := testserver.ConnectPostgres(t, dsn, busy)
	sb, err := New(ctx, dsn, false)
	if err != nil {
		t.Fatal(err)
	}
	defer sb.Close()
	if !slices.Equal(sb.Swept(), []string{stale, legacy}) {
		t.Errorf("swept %v, want [%s %s]", sb.Swept(), stale, legacy)
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
	for _, n := range []string{fresh, busy, other, unmarked} {
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

// TestSandboxSessionsPinned: the writer and reader sessions read SQL text
// the same way whatever the role's own settings say (a role set to
// standard_conforming_strings off and another search_path still gets on
// and public), and the writer has a statement timeout of its own.
func TestSandboxSessionsPinned(t *testing.T) {
	ctx := context.Background()
	server := testserver.Postgres(t)
	dsn, role := testserver.PostgresRole(t, server, "CREATEDB")
	admin := testserver.ConnectPostgres(t, server, "")
	for _, q := range []string{"ALTER ROLE " + role + " SET standard_conforming_strings = off", "ALTER ROLE " + role + " SET search_path = evil", "ALTER ROLE " + role + " SET statement_timeout = 0"} {
		if _, err := admin.Exec(ctx, q); err != nil {
			t.Fatal(err)
		}
	}
	sb, err := New(ctx, dsn, false)
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
}

// TestScratchQueryConfined: a query of a pair runs read-only inside its
// savepoint on the scratch's session, and nothing it does outlives it:
// it cannot make the transaction read-write again (set_config, local or
// not) nor write; a setting it changes is back after it; a session-level
// advisory lock it takes is released; a statement that is not a query is
// refused before it is sent; a query stopped by its context loses
// nothing (the rows are put back on a new session), and q2 still runs
// after q1 fails.
func TestScratchQueryConfined(t *testing.T) {
	ctx := context.Background()
	server := testserver.Postgres(t)
	dsn, _ := testserver.PostgresRole(t, server, "CREATEDB")
	sb, err := New(ctx, dsn, true)
	if err != nil {
		t.Fatal(err)
	}
	defer sb.Close()
	scr, err := sb.Open(ctx, []string{`CREATE TABLE "t" ("a" INTEGER PRIMARY KEY)`})
	if err != nil {
		t.Fatal(err)
	}
	defer scr.Close()
	sc := scr.(*pgScratch)
	rows := []sandbox.TableRows{{Name: `"t"`, Cols: 1, Rows: [][]result.Value{{result.IntValue(1)}, {result.IntValue(2)}}}}
	if err := sc.Load(ctx, rows); err != nil {
		t.Fatal(err)
	}
	count := func() string {
		t.Helper()
		set, err := sc.Query(ctx, "SELECT count(*) FROM t")
		if err != nil {
			t.Fatalf("count: %v", err)
		}
		return result.PyStr(set.Rows[0][0])
	}
	one := func(q string) (string, error) {
		set, err := sc.Query(ctx, q)
		if err != nil {
			return "", err
		}
		return result.PyStr(set.Rows[0][0]), nil
	}
	for _, q := range []string{
		"SELECT set_config('transaction_read_only', 'off', true)",
		"SELECT set_config('transaction_read_only', 'off', false)",
		"SELECT set_config('default_transaction_read_only', 'off', false), set_config('transaction_read_only', 'off', true)",
		"WITH x AS (INSERT INTO t VALUES (9) RETURNING a) SELECT * FROM x",
		"WITH x AS (DELETE FROM t RETURNING a) SELECT count(*) FROM x",
		"SELECT query_to_xml('INSERT INTO t VALUES (8) RETURNING a', false, false, '')",
		"SELECT query_to_xml('COMMIT', false, false, '')",
		"SELECT query_to_xml('ROLLBACK TO SAVEPOINT sqljudge_q', false, false, '')",
	} {
		got, err := one(q)
		if err == nil {
			t.Errorf("%s ran: %s", q, got)
		}
		t.Logf("%s: %v", q, err)
		if got := count(); got != "2" {
			t.Errorf("after %s, %s rows, want 2", q, got)
		}
	}
	for _, q := range []string{"INSERT INTO t VALUES (7)", "SET transaction_read_only = off", "COMMIT", "SELECT 1; COMMIT"} {
		_, err := sc.Query(ctx, q)
		if err == nil {
			t.Errorf("%s ran", q)
		}
		t.Logf("%s: %v", q, err)
	}
	// A large object is not refused in a read-only transaction, but the
	// rollback to the savepoint takes it back.
	if _, err := one("SELECT lo_from_bytea(0, 'x')"); err != nil {
		t.Logf("lo_from_bytea: %v", err)
	}
	if got, err := one("SELECT count(*) FROM pg_largeobject_metadata"); err != nil || got != "0" {
		t.Errorf("large objects after a query made one: %s (%v), want 0", got, err)
	}
	if got, err := one("SELECT current_setting('transaction_read_only')"); err != nil || got != "on" {
		t.Errorf("transaction_read_only in a query = %q (%v), want on", got, err)
	}
	if _, err := one("SELECT set_config('search_path', 'pg_catalog', false), set_config('statement_timeout', '0', false), set_config('TimeZone', 'Asia/Tokyo', false)"); err != nil {
		t.Fatal(err)
	}
	for name, want := range map[string]string{"search_path": "public", "TimeZone": "UTC", "transaction_read_only": "on"} {
		if got, err := one("SELECT current_setting('" + name + "')"); err != nil || got != want {
			t.Errorf("after a query set it, %s = %q (%v), want %q", name, got, err, want)
		}
	}
	if got, err := one("SELECT pg_advisory_lock(42)::text || pg_advisory_xact_lock(43)::text"); err != nil {
		t.Fatalf("advisory lock: %v (%s)", err, got)
	}
	other := testserver.ConnectPostgres(t, server, sc.name)
	defer other.Close(ctx)
	var free bool
	if err := other.QueryRow(ctx, "SELECT pg_try_advisory_lock(42) AND pg_try_advisory_lock(43)").Scan(&free); err != nil || !free {
		t.Errorf("an advisory lock taken by a query outlived it (%v)", err)
	}
	other.Close(ctx)
	// Each query's savepoint is gone after it (no nesting one deeper per
	// query).
	if err := execPG(ctx, sc.conn.PgConn(), []string{"ROLLBACK TO SAVEPOINT sqljudge_q"}, nil, nil); err == nil {
		t.Error("the savepoint of a query outlived it")
	} else {
		sc.rollback(ctx, "") // the failed statement aborted the transaction
		if err := sc.Load(ctx, rows); err != nil {
			t.Fatal(err)
		}
	}
	// q1 fails, q2 runs on the same rows.
	if _, err := sc.Query(ctx, "SELECT 1/0"); err == nil {
		t.Error("1/0 ran")
	}
	if got := count(); got != "2" {
		t.Errorf("after a failed query, %s rows, want 2", got)
	}
	// A query stopped by its context: the session is discarded, the rows
	// come back on the next.
	qctx, cancel := context.WithTimeout(ctx, 300*time.Millisecond)
	_, err = sc.Query(qctx, "SELECT pg_sleep(5)")
	cancel()
	if engine.Classify(err, status.OK) != status.Timeout {
		t.Errorf("pg_sleep past the deadline: %v, want a timeout", err)
	}
	if got := count(); got != "2" {
		t.Errorf("after a query timed out, %s rows, want 2", got)
	}
	// Past the row cap the session is discarded too, and the rows stay.
	if _, err := sc.Query(ctx, "SELECT g FROM generate_series(1, 20000) g"); err == nil {
		t.Error("20000 rows read past the cap")
	}
	if got := count(); got != "2" {
		t.Errorf("after a query past the cap, %s rows, want 2", got)
	}
	// Nothing was committed: a new session sees no rows.
	fresh := testserver.ConnectPostgres(t, server, sc.name)
	defer fresh.Close(ctx)
	var n int
	if err := fresh.QueryRow(ctx, "SELECT count(*) FROM t").Scan(&n); err != nil || n != 0 {
		t.Errorf("another session sees %d rows (%v), want 0: rows were committed", n, err)
	}
}

// TestScratchCloseDropsLater: a scratch database whose drop fails is
// dropped again by Close (retries), and else by the sandbox's Close.
func TestScratchCloseDropsLater(t *testing.T) {
	ctx := context.Background()
	server := testserver.Postgres(t)
	sb, err := New(ctx, server, true)
	if err != nil {
		t.Fatal(err)
	}
	exists := func(name string) bool {
		return len(testserver.PostgresDatabases(t, server, name)) > 0
	}
	sc1, err := sb.Open(ctx, []string{`CREATE TABLE "t" ("a" INTEGER)`})
	if err != nil {
		t.Fatal(err)
	}
	sb.failDrops.Store(1)
	if err := sc1.Close(); err != nil {
		t.Errorf("Close with one failed drop: %v", err)
	}
	if n := sc1.(*pgScratch).name; exists(n) {
		t.Errorf("%s left after Close", n)
	}
	sc2, err := sb.Open(ctx, []string{`CREATE TABLE "t" ("a" INTEGER)`})
	if err != nil {
		t.Fatal(err)
	}
	sb.failDrops.Store(pgDropTries)
	if err := sc2.Close(); err == nil {
		t.Error("Close with every drop failed: no error")
	}
	n2 := sc2.(*pgScratch).name
	if !exists(n2) {
		t.Fatalf("%s gone though every drop failed", n2)
	}
	if err := sb.Close(); err != nil {
		t.Errorf("sandbox Close: %v", err)
	}
	if exists(n2) {
		t.Errorf("%s left after the sandbox's Close", n2)
	}
}

// TestScratchQueriesUnseen (issue 41): the two queries of a pair never see
// each other's text. q2 read q1's text from pg_prepared_statements (q1
// was prepared after its first run) and ran it through query_to_xml, and
// came out equivalent without reading the table; now q1 is never
// prepared under a name, and q2 finds nothing to run. Each query still
// reads each Load's rows, a failed query leaves the next one running, and
// a discarded session starts again.
func TestScratchQueriesUnseen(t *testing.T) {
	ctx := context.Background()
	server := testserver.Postgres(t)
	dsn, _ := testserver.PostgresRole(t, server, "CREATEDB")
	sb, err := New(ctx, dsn, false)
	if err != nil {
		t.Fatal(err)
	}
	defer sb.Close()
	scr, err := sb.Open(ctx, []string{`CREATE TABLE "t" ("a" INTEGER PRIMARY KEY)`})
	if err != nil {
		t.Fatal(err)
	}
	defer scr.Close()
	sc := scr.(*pgScratch)
	const q1 = "SELECT count(*) AS n, coalesce(sum(a), 0) AS s FROM t"
	const q2 = `SELECT x.n, x.s FROM xmltable('/table/row' PASSING query_to_xml(
	(SELECT statement FROM pg_prepared_statements WHERE statement LIKE 'SELECT count(*) AS n%' LIMIT 1), false, false, '')
	COLUMNS n bigint PATH 'n', s bigint PATH 's') x`
	const seen = "SELECT count(*) FROM pg_prepared_statements WHERE statement NOT LIKE 'INSERT INTO %'"
	for _, n := range []int{2, 5, 0, 3} {
		var rows [][]result.Value
		sum := 0
		for i := range n {
			rows = append(rows, []result.Value{result.IntValue(int64(i + 1))})
			sum += i + 1
		}
		if err := sc.Load(ctx, []sandbox.TableRows{{Name: `"t"`, Cols: 1, Rows: rows}}); err != nil {
			t.Fatal(err)
		}
		set, err := sc.Query(ctx, q1)
		if err != nil {
			t.Fatal(err)
		}
		if got, want := result.PyStr(set.Rows[0][0])+","+result.PyStr(set.Rows[0][1]), fmt.Sprintf("%d,%d", n, sum); got != want {
			t.Errorf("%d rows loaded: %s, want %s", n, got, want)
		}
		if set, err := sc.Query(ctx, q2); err != nil || len(set.Rows) != 0 {
			t.Errorf("q2 ran q1's text from pg_prepared_statements: %v (%v), want no row", set, err)
		}
		if set, err := sc.Query(ctx, seen); err != nil || result.PyStr(set.Rows[0][0]) != "0" {
			t.Errorf("statements prepared on the session besides Load's INSERTs: %v (%v), want none", set, err)
		}
	}
	if _, err := sc.Query(ctx, "SELECT 1/a FROM t WHERE a = 0 OR 1/0 = 1"); err == nil {
		t.Error("1/0 ran")
	}
	if _, err := sc.Query(ctx, "SELECT nosuch FROM t"); err == nil {
		t.Error("a query of a missing column ran")
	}
	sc.discard()
	if set, err := sc.Query(ctx, q1); err != nil || result.PyStr(set.Rows[0][0]) != "3" {
		t.Errorf("after a new session: %v (%v), want 3 rows", set, err)
	}
	// Nor does a query see the texts of the role's other sessions (other
	// workers, other runs): its sessions do not report them
	// (track_activities off, which New requires).
	other := testserver.ConnectPostgres(t, dsn, "postgres")
	if _, err := other.Exec(ctx, "SELECT 'sjv_other_session_text'"); err != nil {
		t.Fatal(err)
	}
	if set, err := sc.Query(ctx, "SELECT count(*) FROM pg_stat_activity WHERE query LIKE '%sjv_other_session%' AND pid <> pg_backend_pid()"); err != nil || result.PyStr(set.Rows[0][0]) != "0" {
		t.Errorf("pg_stat_activity shows another session's query: %v (%v)", set, err)
	}
}

// BenchmarkPostgresDatabase measures what one database of the search costs
// on PostgreSQL: a Load (of two rows, as BenchmarkMySQLDatabase, and of 20
// rows in each of two tables) and two queries on the scratch's session.
func BenchmarkPostgresDatabase(b *testing.B) {
	server := testserver.Postgres(b)
	ctx := context.Background()
	sb, err := New(ctx, server, true)
	if err != nil {
		b.Fatal(err)
	}
	defer sb.Close()
	sc, err := sb.Open(ctx, []string{`CREATE TABLE "t" ("x" INTEGER PRIMARY KEY, "y" INTEGER)`, `CREATE TABLE "u" ("x" INTEGER, "s" TEXT)`})
	if err != nil {
		b.Fatal(err)
	}
	defer sc.Close()
	for _, n := range []int{2, 20} {
		tables := []sandbox.TableRows{{Name: `"t"`, Cols: 2}}
		if n > 2 {
			tables = append(tables, sandbox.TableRows{Name: `"u"`, Cols: 2})
		}
		for i := range n {
			tables[0].Rows = append(tables[0].Rows, []result.Value{result.IntValue(int64(i + 1)), result.IntValue(int64(i + 2))})
			if n > 2 {
				tables[1].Rows = append(tables[1].Rows, []result.Value{result.IntValue(int64(i)), result.TextValue(fmt.Sprint("s", i))})
			}
		}
		b.Run(fmt.Sprintf("rows=%d", n), func(b *testing.B) {
			for b.Loop() {
				if err := sc.Load(ctx, tables); err != nil {
					b.Fatal(err)
				}
				for range 2 {
					if _, err := sc.Query(ctx, "SELECT y FROM t WHERE x > 1"); err != nil {
						b.Fatal(err)
					}
				}
			}
		})
	}
}

// TestScratchLoadMultiRow: a Load sends one multi-row INSERT per table with
// rows, and splits a table whose rows×cols pass PostgreSQL's 65535
// parameters (30,000 rows of 3 columns: two INSERTs); every row arrives,
// values as they were; a repeated key in the second INSERT fails the
// whole Load with the server's error, as a single-row INSERT did, and
// leaves no row; the next Load works. Each INSERT is prepared after the
// Load that first ran it and runs prepared from then on, until the
// session is discarded.
func TestScratchLoadMultiRow(t *testing.T) {
	ctx := context.Background()
	server := testserver.Postgres(t)
	sb, err := New(ctx, server, true)
	if err != nil {
		t.Fatal(err)
	}
	defer sb.Close()
	scr, err := sb.Open(ctx, []string{`CREATE TABLE "t" ("a" INTEGER PRIMARY KEY, "b" TEXT, "c" INTEGER)`, `CREATE TABLE "u" ("x" INTEGER)`})
	if err != nil {
		t.Fatal(err)
	}
	defer scr.Close()
	sc := scr.(*pgScratch)

	small := []sandbox.TableRows{
		{Name: `"t"`, Cols: 3, Rows: [][]result.Value{{result.IntValue(1), result.TextValue("it's"), result.NullValue()}, {result.IntValue(2), result.TextValue(""), result.IntValue(7)}}},
		{Name: `"u"`, Cols: 1},
	}
	for i := range 20 {
		small[1].Rows = append(small[1].Rows, []result.Value{result.IntValue(int64(i))})
	}
	stmts, params := pgInserts(nil, nil, small[0])
	stmts, params = pgInserts(stmts, params, small[1])
	stmts, _ = pgInserts(stmts, params, sandbox.TableRows{Name: `"t"`, Cols: 3})
	if len(stmts) != 2 || len(params[0]) != 6 || len(params[1]) != 20 {
		t.Fatalf("a Load of 2 and 20 rows (and an empty table): %d INSERTs (%q), want one per table with rows", len(stmts), stmts)
	}
	if err := sc.Load(ctx, small); err != nil {
		t.Fatal(err)
	}
	got, err := sc.Query(ctx, `SELECT string_agg(a || ':' || quote_nullable(b) || ':' || coalesce(c::text, 'NULL'), ' ' ORDER BY a), (SELECT sum(x) FROM u) FROM t`)
	if err != nil {
		t.Fatal(err)
	}
	if s := result.PyStr(got.Rows[0][0]) + " " + result.PyStr(got.Rows[0][1]); s != `1:'it''s':NULL 2:'':7 190` {
		t.Errorf("rows loaded: %s", s)
	}
	// Each INSERT is prepared after its first run, and runs prepared
	// from then on (the server counts the plans of each execution).
	const prepQ = `SELECT count(*) || ' ' || coalesce(sum(generic_plans + custom_plans), 0) FROM pg_prepared_statements WHERE name LIKE 'sqljudge\_i%'`
	plans := func() string {
		t.Helper()
		set, err := sc.Query(ctx, prepQ)
		if err != nil {
			t.Fatal(err)
		}
		return result.PyStr(set.Rows[0][0])
	}
	if got := plans(); got != "2 0" {
		t.Errorf("after the first Load, prepared INSERTs and their runs: %s, want 2 0", got)
	}
	for range 2 {
		if err := sc.Load(ctx, small); err != nil {
			t.Fatal(err)
		}
	}
	if got := plans(); got != "2 4" {
		t.Errorf("after two more Loads, prepared INSERTs and their runs: %s, want 2 4", got)
	}

	const n = 30_000
	big := sandbox.TableRows{Name: `"t"`, Cols: 3}
	for i := range n {
		big.Rows = append(big.Rows, []result.Value{result.IntValue(int64(i)), result.TextValue(fmt.Sprint("v", i)), result.IntValue(int64(i % 7))})
	}
	stmts, params = pgInserts(nil, nil, big)
	if len(stmts) != 2 {
		t.Errorf("%d rows of 3 columns: %d INSERTs, want 2", n, len(stmts))
	}
	for i, p := range params {
		if len(p) > pgMaxParams {
			t.Errorf("INSERT %d has %d parameters", i+1, len(p))
		}
	}
	if err := sc.Load(ctx, []sandbox.TableRows{big}); err != nil {
		t.Fatal(err)
	}
	count := func() string {
		t.Helper()
		set, err := sc.Query(ctx, "SELECT count(*) || ' ' || count(DISTINCT b) || ' ' || coalesce(sum(a), 0) || ' ' || coalesce(sum(c), 0) FROM t")
		if err != nil {
			t.Fatal(err)
		}
		return result.PyStr(set.Rows[0][0])
	}
	sumC := 0
	for i := range n {
		sumC += i % 7
	}
	if got, want := count(), fmt.Sprintf("%d %d %d %d", n, n, n*(n-1)/2, sumC); got != want {
		t.Errorf("after a split Load: %s, want %s", got, want)
	}

	big.Rows = append(big.Rows[:n-1:n-1], []result.Value{result.IntValue(5), result.TextValue("again"), result.NullValue()})
	err = sc.Load(ctx, []sandbox.TableRows{big})
	var pe *pgconn.PgError
	if !errors.As(err, &pe) || pe.Code != "23505" || !strings.Contains(err.Error(), "duplicate key") {
		t.Errorf("a Load repeating a key in its second INSERT: %v", err)
	}
	if got := count(); got != "0 0 0 0" {
		t.Errorf("after a failed Load: %s, want no row", got)
	}
	if err := sc.Load(ctx, small); err != nil {
		t.Fatalf("a Load after a failed one: %v", err)
	}
	if got := count(); got != "2 2 3 7" {
		t.Errorf("after a Load following a failed one: %s", got)
	}
	// A discarded session forgets its INSERTs, and the next prepares them
	// again.
	sc.discard()
	if sc.inserts != nil {
		t.Error("a discarded session's INSERTs are still named")
	}
	if err := sc.Load(ctx, small); err != nil {
		t.Fatal(err)
	}
	if got, want := count()+" / "+plans(), "2 2 3 7 / 2 0"; got != want {
		t.Errorf("on a new session: %s, want %s", got, want)
	}
}
