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

	"github.com/sqljudge/sqljudge/internal/engine"
	"github.com/sqljudge/sqljudge/internal/sandbox"
	"github.com/sqljudge/sqljudge/internal/sandbox/sandboxtest"
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
	dsn, _ := testserver.PostgresRole(t, server, "CREATEDB")
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
