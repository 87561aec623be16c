package equiv

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/sqljudge/sqljudge/internal/sandbox"
	"github.com/sqljudge/sqljudge/internal/sqllex"
	"github.com/sqljudge/sqljudge/internal/testserver"
)

// The hostile-pairs tests run `sqljudge equiv` on PostgreSQL and MariaDB
// with pairs whose schema and queries try to run SQL of their own: a CHECK
// that leaves the DDL through a lexer mismatch ($$…$$ and E'…' on
// PostgreSQL; /*! … */, # comments and backslash escapes on MariaDB), a
// CHECK that turns backslash escapes on in the writer's session, type
// arguments and names that carry statements, and queries that stack a
// statement or reach other sessions. Before and after each run they read
// what an escape would change: the databases, the roles and their
// settings, a canary database the role owns, and the files the payloads
// would write; none may differ, no scratch database may be left, no
// witness may carry a payload, and every pair whose schema carries one is
// Unknown.

// hostilePair is one pair of the hostile-pairs file; refused says that its
// schema must be refused (the record Unknown, naming the reason).
type hostilePair struct {
	ID      string `json:"id"`
	Q1      string `json:"q1"`
	Q2      string `json:"q2"`
	Schema  string `json:"schema"`
	refused string
}

// payloadWords are words of the payloads that must never appear in a
// witness outside a string literal or a quoted name.
var payloadWords = []string{"ALTER", "COPY", "PROGRAM", "DATA", "DIRECTORY", "LOAD_FILE", "BENCHMARK", "SET_CONFIG", "GRANT", "DROP", "SELECT", "PG_SLEEP"}

// checkWitnessSQL checks that a witness's script holds only CREATE TABLE
// and INSERT INTO statements and no payload word outside literals and
// quoted names (where a pair's text belongs, as data).
func checkWitnessSQL(t *testing.T, id, script string) {
	t.Helper()
	for _, st := range sandbox.SplitScript(script) {
		up := strings.ToUpper(st)
		if !strings.HasPrefix(up, "CREATE TABLE ") && !strings.HasPrefix(up, "INSERT INTO ") {
			t.Errorf("pair %s: the witness holds a statement of another kind: %s", id, st)
		}
		for _, tk := range sqllex.Tokenize(st) {
			if tk.Kind == sqllex.Word && slices.Contains(payloadWords, strings.ToUpper(tk.Text)) {
				t.Errorf("pair %s: the witness carries %s outside a literal: %s", id, tk.Text, st)
			}
		}
	}
}

// pgHostilePairs are the PostgreSQL payloads; canary is the canary
// database's name, file a path the payloads would create on the server's
// machine.
func pgHostilePairs(canary, file string, superuser bool) []hostilePair {
	breakout := func(stmt string) string {
		return "CREATE TABLE t (a TEXT CHECK (a <> $$ ), b TEXT CHECK (b <> ' $$ )) ; " + stmt + " ; -- ' ))"
	}
	pairs := []hostilePair{
		{ID: "dollar-quote-role", Q1: "SELECT a FROM t", Q2: "SELECT b FROM t", Schema: breakout("ALTER ROLE CURRENT_USER SET application_name = 'pwned'"), refused: "CHECK"},
		{ID: "dollar-quote-rename", Q1: "SELECT a FROM t", Q2: "SELECT b FROM t", Schema: breakout("ALTER DATABASE " + canary + " RENAME TO " + canary + "_pwned"), refused: "CHECK"},
		{ID: "dollar-quote-program", Q1: "SELECT a FROM t", Q2: "SELECT b FROM t", Schema: breakout("COPY (SELECT 1) TO PROGRAM 'touch " + file + "'"), refused: "CHECK"},
		{ID: "e-string", Q1: "SELECT a FROM t", Q2: "SELECT a FROM t WHERE a <> 'x'",
			Schema: "CREATE TABLE t (a TEXT CHECK (a <> E'\\' ) ; ALTER ROLE CURRENT_USER SET application_name = ''pwned'' ; --'))", refused: `near ";": syntax error`},
		{ID: "set-config", Q1: "SELECT a FROM t WHERE a = '\\''); ALTER ROLE CURRENT_USER SET application_name = ''pwned''; --'", Q2: "SELECT a FROM t WHERE a = 'y'",
			Schema: "CREATE TABLE t (a TEXT CHECK (set_config('standard_conforming_strings', 'off', false) <> ''))", refused: "set_config"},
		{ID: "backslash-values", Q1: "SELECT a FROM t WHERE a = 'x\\''); ALTER DATABASE " + canary + " RENAME TO " + canary + "_pwned; --'", Q2: "SELECT a FROM t WHERE a = 'y'",
			Schema: "CREATE TABLE t (a TEXT, b INT)"},
		{ID: "type-args", Q1: "SELECT a FROM t", Q2: "SELECT b FROM t",
			Schema: "CREATE TABLE t (a DECIMAL($$ ), b TEXT CHECK (b <> ' $$ )) ; ALTER ROLE CURRENT_USER SET application_name = 'pwned' ; -- '))", refused: `near "$$": syntax error`},
		{ID: "quoted-name", Q1: `SELECT a FROM "t""; ALTER ROLE CURRENT_USER SET application_name = 'pwned'; --"`, Q2: `SELECT a FROM "t""; ALTER ROLE CURRENT_USER SET application_name = 'pwned'; --" WHERE a > 0`,
			Schema: `CREATE TABLE "t""; ALTER ROLE CURRENT_USER SET application_name = 'pwned'; --" (a INT)`},
		{ID: "stacked-query", Q1: "SELECT a FROM t; ALTER ROLE CURRENT_USER SET application_name = 'pwned'", Q2: "SELECT a FROM t",
			Schema: "CREATE TABLE t (a INT)"},
		{ID: "function-check", Q1: "SELECT a FROM t", Q2: "SELECT a FROM t WHERE a > 0",
			Schema: "CREATE TABLE t (a INT CHECK (pg_sleep(5) IS NOT NULL))", refused: "pg_sleep"},
	}
	if !superuser {
		// Under a superuser this would end every session of the server's
		// other tests; under the equiv role it must fail.
		pairs = append(pairs, hostilePair{ID: "terminate", Q1: "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity WHERE usename = current_user AND pid <> pg_backend_pid()", Q2: "SELECT 0", Schema: "CREATE TABLE t (a INT)"})
	}
	return pairs
}

// mysqlHostilePairs are the MariaDB payloads; dir is a path the payloads
// would make the server create.
func mysqlHostilePairs(canary, dir string) []hostilePair {
	return []hostilePair{
		{ID: "versioned-comment", Q1: "SELECT a FROM t", Q2: "SELECT a FROM t WHERE a > 1",
			Schema: "CREATE TABLE t (a INT CHECK (a > 0 /*! ) ) DATA DIRECTORY = '" + dir + "1' # */ ))", refused: "CHECK"},
		{ID: "versioned-comment-benchmark", Q1: "SELECT a FROM t", Q2: "SELECT a FROM t WHERE a > 1",
			Schema: "CREATE TABLE t (a INT CHECK (a > 0 /*! ) ) SELECT BENCHMARK(1000, MD5('x')) AS b WHERE ((1 */ ))", refused: "CHECK"},
		{ID: "backslash-check", Q1: "SELECT a FROM t", Q2: "SELECT a FROM t WHERE a <> 'z'",
			Schema: "CREATE TABLE t (a TEXT, CHECK (a <> 'x\\' AND a <> ')) DATA DIRECTORY=\"" + dir + "2\" #'))", refused: "backslash"},
		{ID: "hash-comment", Q1: "SELECT a FROM t", Q2: "SELECT a FROM t WHERE a > 1",
			Schema: "CREATE TABLE t (a INT CHECK (a > 0 # '\n)) DATA DIRECTORY=\"" + dir + "3\" #'\n))", refused: "CHECK"},
		{ID: "load-file", Q1: "SELECT a FROM t", Q2: "SELECT a FROM t WHERE a > 1",
			Schema: "CREATE TABLE t (a TEXT CHECK (a <> LOAD_FILE('/etc/hostname')))", refused: "LOAD_FILE"},
		{ID: "backslash-values", Q1: "SELECT a FROM t WHERE a = 'x\\\\''); DROP DATABASE " + canary + "; -- '", Q2: "SELECT a FROM t WHERE a = 'y'",
			Schema: "CREATE TABLE t (a TEXT, b INT)"},
		{ID: "stacked-query", Q1: "SELECT a FROM t; DROP DATABASE " + canary, Q2: "SELECT a FROM t", Schema: "CREATE TABLE t (a INT)"},
		{ID: "table-options", Q1: "SELECT a FROM t", Q2: "SELECT a FROM t WHERE a > 0",
			Schema: "CREATE TABLE t (a INT) DATA DIRECTORY = '" + dir + "4'"},
	}
}

// writeHostilePairs writes the pairs file and returns its path.
func writeHostilePairs(t *testing.T, pairs []hostilePair) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "pairs.jsonl")
	var b strings.Builder
	for _, p := range pairs {
		line, err := json.Marshal(p)
		if err != nil {
			t.Fatal(err)
		}
		b.Write(line)
		b.WriteByte('\n')
	}
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// runHostile runs `sqljudge equiv` on the pairs and checks each record.
func runHostile(t *testing.T, dsn string, allowSuperuser bool, pairs []hostilePair) {
	t.Helper()
	out := filepath.Join(t.TempDir(), "out")
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	var console strings.Builder
	err := RunCommand(ctx, CommandOptions{Pairs: writeHostilePairs(t, pairs), Out: out, DB: dsn, AllowSuperuser: allowSuperuser,
		Seed: 1, MaxDatabases: 40, Budget: 30 * time.Second, Workers: 2}, &console)
	if err != nil {
		t.Fatalf("equiv: %v", err)
	}
	f, err := os.Open(filepath.Join(out, ResultsFile))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	byID := map[string]hostilePair{}
	for _, p := range pairs {
		byID[p.ID] = p
	}
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	n := 0
	for sc.Scan() {
		n++
		var r Record
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			t.Fatal(err)
		}
		p := byID[r.ID]
		if p.refused != "" && (r.Verdict != Unknown || !strings.Contains(r.Reason, p.refused)) {
			t.Errorf("pair %s: %s (%s), want unknown naming %q", r.ID, r.Verdict, r.Reason, p.refused)
		}
		if r.Witness != nil {
			checkWitnessSQL(t, r.ID, r.Witness.SQL)
		}
		t.Logf("pair %s: %s %s", r.ID, r.Verdict, r.Reason)
	}
	if n != len(pairs) {
		t.Errorf("%d records for %d pairs", n, len(pairs))
	}
}

// TestHostilePairsPostgres runs the PostgreSQL payloads under a role made
// for equiv (CREATEDB, track_activities off) and under the superuser with --allow-superuser.
func TestHostilePairsPostgres(t *testing.T) {
	server := testserver.Postgres(t)
	ctx := context.Background()
	admin := testserver.ConnectPostgres(t, server, "")
	role := testserver.Name("sjh_")
	role = role[:len(role)-1]
	canary := role + "_canary"
	file := filepath.Join(os.TempDir(), role+"_pwned")
	for _, q := range []string{
		"CREATE ROLE " + role + " LOGIN CREATEDB",
		"ALTER ROLE " + role + " SET track_activities = off",
		"CREATE DATABASE " + canary + " OWNER " + role,
	} {
		if _, err := admin.Exec(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	t.Cleanup(func() {
		for _, q := range []string{
			"DROP DATABASE IF EXISTS " + canary + " WITH (FORCE)", "DROP DATABASE IF EXISTS " + canary + "_pwned WITH (FORCE)",
			"DROP ROLE IF EXISTS " + role, "ALTER ROLE CURRENT_USER RESET application_name",
		} {
			if _, err := admin.Exec(context.Background(), q); err != nil {
				t.Errorf("%s: %v", q, err)
			}
		}
		os.Remove(file)
	})
	cc := testserver.ConnectPostgres(t, server, canary)
	for _, q := range []string{"CREATE TABLE secret (s TEXT)", "INSERT INTO secret VALUES ('canary')", "ALTER TABLE secret OWNER TO " + role} {
		if _, err := cc.Exec(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	cc.Close(ctx)
	u, err := url.Parse(server)
	if err != nil {
		t.Fatal(err)
	}
	u.User = url.User(role)
	for _, run := range []struct {
		name  string
		dsn   string
		super bool
	}{{"equiv role", u.String(), false}, {"superuser", server, true}} {
		t.Run(run.name, func(t *testing.T) {
			before := pgServerState(t, server, canary, file)
			scratch := pgScratchNames(t, server)
			runHostile(t, run.dsn, run.super, pgHostilePairs(canary, file, run.super))
			after := pgServerState(t, server, canary, file)
			if !slices.Equal(before, after) {
				t.Errorf("the server changed:\nbefore %q\nafter  %q", before, after)
			}
			noScratchLeft(t, scratch, func() []string { return pgScratchNames(t, server) })
		})
	}
}

// pgServerState reads what an escape would change: the databases (no
// scratch database may remain), the roles with their attributes,
// memberships and settings, the canary's rows, and whether file exists.
func pgServerState(t *testing.T, server, canary, file string) []string {
	t.Helper()
	ctx := context.Background()
	c := testserver.ConnectPostgres(t, server, "")
	defer c.Close(ctx)
	var out []string
	// Other tests of the server make roles of their own meanwhile, named
	// by testserver.Name: those are left out (this test's role is not).
	role := strings.TrimSuffix(canary, "_canary")
	others := "%s !~ '^sj[a-z_]*_[0-9a-f]{8}_?$' OR %s = '" + role + "'"
	for _, q := range []string{
		"SELECT string_agg(datname, ',' ORDER BY datname) FROM pg_database WHERE datname LIKE '" + role + "%'",
		"SELECT string_agg(format('%s:%s%s%s%s:%s', rolname, rolsuper, rolcreaterole, rolcreatedb, rolreplication, coalesce(array_to_string(rolconfig, ';'), '')), ',' ORDER BY rolname) FROM pg_roles WHERE " + fmt.Sprintf(others, "rolname", "rolname"),
		"SELECT coalesce(string_agg(format('%s>%s', roleid::regrole, member::regrole), ',' ORDER BY 1), '') FROM pg_auth_members WHERE " + fmt.Sprintf(others, "member::regrole::text", "member::regrole::text"),
		"SELECT coalesce(string_agg(format('%s/%s:%s', setdatabase, setrole::regrole, array_to_string(setconfig, ';')), ',' ORDER BY 1), '') FROM pg_db_role_setting WHERE setrole = 0 OR " + fmt.Sprintf(others, "setrole::regrole::text", "setrole::regrole::text"),
	} {
		var s *string
		if err := c.QueryRow(ctx, q).Scan(&s); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
		out = append(out, fmt.Sprint(deref(s)))
	}
	cc := testserver.ConnectPostgres(t, server, canary)
	defer cc.Close(ctx)
	var secret string
	if err := cc.QueryRow(ctx, "SELECT string_agg(s, ',') FROM secret").Scan(&secret); err != nil {
		t.Fatalf("canary: %v", err)
	}
	_, statErr := os.Stat(file)
	return append(out, "canary="+secret, fmt.Sprintf("file exists=%v", statErr == nil))
}

// pgScratchNames lists the server's scratch databases no session is
// connected to (a run keeps one on each scratch database it uses: one
// left behind has none).
func pgScratchNames(t *testing.T, server string) []string {
	t.Helper()
	c := testserver.ConnectPostgres(t, server, "")
	defer c.Close(context.Background())
	rows, err := c.Query(context.Background(), "SELECT d.datname FROM pg_database d WHERE d.datname LIKE 'sqljudge\\_equiv\\_%' AND NOT EXISTS (SELECT 1 FROM pg_stat_activity a WHERE a.datname = d.datname)")
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var n string
		if err := rows.Scan(&n); err != nil {
			t.Fatal(err)
		}
		out = append(out, n)
	}
	return out
}

// noScratchLeft fails when a scratch database that no session uses and
// that was not there before the run (before) is still there, unused, 30 s
// after it: other tests of the server make and drop scratch databases of
// their own meanwhile (each used by its run, or unused for the moment
// between its creation and its first session).
func noScratchLeft(t *testing.T, before []string, list func() []string) {
	t.Helper()
	var left []string
	for range 30 {
		left = nil
		for _, n := range list() {
			if !slices.Contains(before, n) {
				left = append(left, n)
			}
		}
		if len(left) == 0 {
			return
		}
		time.Sleep(time.Second)
	}
	t.Errorf("scratch databases left: %v", left)
}

func deref(s *string) string {
	if s == nil {
		return "<null>"
	}
	return *s
}

// TestHostilePairsMySQL runs the MariaDB payloads under an account with
// the documented grant and under the CI account (ALL on *.*, FILE
// included) with --allow-superuser.
func TestHostilePairsMySQL(t *testing.T) {
	server := testserver.MySQL(t)
	ctx := context.Background()
	admin := testserver.OpenMySQL(t, server, "")
	name := testserver.Name("sjh_")
	name = name[:len(name)-1]
	canary := name + "_canary"
	dir := filepath.Join(os.TempDir(), name+"_dir")
	host, _, _ := strings.Cut(testserver.MySQLConfig(t, server).Addr, ":")
	for _, q := range []string{
		"CREATE DATABASE " + canary,
		"CREATE TABLE " + canary + ".secret (s TEXT)",
		"INSERT INTO " + canary + ".secret VALUES ('canary')",
		"CREATE USER '" + name + "'@'" + host + "' IDENTIFIED BY 'pw'",
		"INSERT INTO mysql.db (Host, Db, User, Select_priv, Insert_priv, Delete_priv, Create_priv, Drop_priv, References_priv) VALUES ('" + host + "', 'sqljudge\\\\_equiv\\\\_%', '" + name + "', 'Y', 'Y', 'Y', 'Y', 'Y', 'Y')",
		"FLUSH PRIVILEGES",
	} {
		if _, err := admin.ExecContext(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	t.Cleanup(func() {
		for _, q := range []string{"DROP DATABASE IF EXISTS " + canary, "DROP USER IF EXISTS '" + name + "'@'" + host + "'", "DELETE FROM mysql.db WHERE User = '" + name + "'", "FLUSH PRIVILEGES"} {
			if _, err := admin.ExecContext(context.Background(), q); err != nil {
				t.Errorf("%s: %v", q, err)
			}
		}
		for i := 1; i <= 4; i++ {
			os.RemoveAll(fmt.Sprintf("%s%d", dir, i))
		}
	})
	u, err := url.Parse(server)
	if err != nil {
		t.Fatal(err)
	}
	u.User = url.UserPassword(name, "pw")
	for _, run := range []struct {
		name  string
		dsn   string
		super bool
	}{{"documented grant", u.String(), false}, {"allow-superuser", server, true}} {
		t.Run(run.name, func(t *testing.T) {
			before := mysqlServerState(t, server, canary, dir)
			scratch := mysqlScratchNames(t, server)
			runHostile(t, run.dsn, run.super, mysqlHostilePairs(canary, dir))
			after := mysqlServerState(t, server, canary, dir)
			if !slices.Equal(before, after) {
				t.Errorf("the server changed:\nbefore %q\nafter  %q", before, after)
			}
			noScratchLeft(t, scratch, func() []string { return mysqlScratchNames(t, server) })
		})
	}
}

// mysqlScratchNames lists the server's scratch databases no session is
// connected to (see pgScratchNames).
func mysqlScratchNames(t *testing.T, server string) []string {
	t.Helper()
	rows, err := testserver.OpenMySQL(t, server, "").QueryContext(context.Background(), "SELECT s.SCHEMA_NAME FROM information_schema.SCHEMATA s WHERE s.SCHEMA_NAME LIKE 'sqljudge\\_equiv\\_%' AND NOT EXISTS (SELECT 1 FROM information_schema.PROCESSLIST p WHERE p.DB = s.SCHEMA_NAME)")
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var n string
		if err := rows.Scan(&n); err != nil {
			t.Fatal(err)
		}
		out = append(out, n)
	}
	return out
}

// mysqlServerState reads the databases (no scratch database may remain),
// the accounts, the canary's rows and which of the payloads' folders
// exist.
func mysqlServerState(t *testing.T, server, canary, dir string) []string {
	t.Helper()
	ctx := context.Background()
	db := testserver.OpenMySQL(t, server, "")
	var out []string
	for _, q := range []string{
		"SELECT COALESCE(GROUP_CONCAT(SCHEMA_NAME ORDER BY SCHEMA_NAME), '') FROM information_schema.SCHEMATA WHERE SCHEMA_NAME LIKE '" + strings.TrimSuffix(canary, "_canary") + "%'",
		// Other tests make accounts of their own meanwhile, named by
		// testserver.Name: those are left out (this test's is not).
		"SELECT GROUP_CONCAT(CONCAT(User, '@', Host) ORDER BY User, Host) FROM mysql.user WHERE User NOT REGEXP '^sj[a-z_]*_[0-9a-f]{8}_?$' OR User = '" + strings.TrimSuffix(canary, "_canary") + "'",
		"SELECT GROUP_CONCAT(s) FROM " + canary + ".secret",
		"SELECT @@GLOBAL.sql_mode",
	} {
		var s string
		if err := db.QueryRowContext(ctx, q).Scan(&s); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
		out = append(out, s)
	}
	for i := 1; i <= 4; i++ {
		_, err := os.Stat(fmt.Sprintf("%s%d", dir, i))
		out = append(out, fmt.Sprintf("dir%d exists=%v", i, err == nil))
	}
	return out
}
