package mysql_test

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/sqljudge/sqljudge/internal/engine"
	"github.com/sqljudge/sqljudge/internal/engine/enginetest"
	"github.com/sqljudge/sqljudge/internal/engine/mysql"
	"github.com/sqljudge/sqljudge/internal/testserver"
)

// fixture creates the suite's fixture in a fresh database and returns the
// engine's DB prefix and the db_id naming it.
func fixture(t *testing.T, server string) (prefix, db string) {
	t.Helper()
	prefix = testserver.Name("sjt_my_")
	p := testserver.CreateMySQLDB(t, server, prefix+"fixture")
	ctx := context.Background()
	c, err := p.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if _, err := c.ExecContext(ctx, "SET time_zone = '+00:00'"); err != nil {
		t.Fatal(err)
	}
	for _, s := range enginetest.Fixture(engine.MySQL) {
		if _, err := c.ExecContext(ctx, s); err != nil {
			t.Fatalf("%s: %v", s, err)
		}
	}
	return prefix, "fixture"
}

func TestEngineSuite(t *testing.T) {
	server := testserver.MySQL(t)
	prefix, db := fixture(t, server)
	e, err := mysql.New(server, mysql.Options{MaxRows: enginetest.MaxRows, MaxBytes: enginetest.MaxBytes, DBPrefix: prefix})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	enginetest.Run(t, e, db)
}

func TestParseDSN(t *testing.T) {
	for _, c := range []struct{ in, addr, user, pass, db string }{
		{"mysql://u:p@127.0.0.1:3307/x?charset=utf8mb4", "127.0.0.1:3307", "u", "p", "x"},
		{"mysql://u@db.example/", "db.example:3306", "u", "", ""},
		{"mysql://u:p%40ss@h:1/", "h:1", "u", "p@ss", ""},
		{"mysql://u:p@ss@h/", "h:3306", "u", "p@ss", ""},
		{"u:p@tcp(h:2)/y", "h:2", "u", "p", "y"},
	} {
		cfg, err := mysql.ParseDSN(c.in)
		if err != nil {
			t.Errorf("%s: %v", c.in, err)
			continue
		}
		if cfg.Addr != c.addr || cfg.User != c.user || cfg.Passwd != c.pass || cfg.DBName != c.db {
			t.Errorf("%s: addr %q user %q pass %q db %q", c.in, cfg.Addr, cfg.User, cfg.Passwd, cfg.DBName)
		}
	}
	if _, err := mysql.ParseDSN("mysql://u@h/x?parseTime=maybe"); err == nil {
		t.Errorf("a parameter without a value was accepted")
	}
}

// running returns how many server threads run a query containing marker,
// as the process list (information_schema.PROCESSLIST) shows them.
func running(t *testing.T, admin *sql.DB, marker string) int {
	t.Helper()
	var n int
	err := admin.QueryRow("SELECT COUNT(*) FROM information_schema.PROCESSLIST WHERE ID <> CONNECTION_ID() AND COMMAND = 'Query' AND LOCATE(?, INFO) > 0", marker).Scan(&n)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// TestTimeoutStopsServerQuery checks that a query stopped by its deadline
// is gone from the server's process list within a second of the deadline,
// for a CPU-bound query and a sleeping one, both with the engine's KILL
// QUERY and with the server's max_statement_time alone.
func TestTimeoutStopsServerQuery(t *testing.T) {
	server := testserver.MySQL(t)
	prefix, db := fixture(t, server)
	admin := testserver.OpenMySQL(t, server, "")
	e, err := mysql.New(server, mysql.Options{DBPrefix: prefix, StatementTimeout: 700 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	enginetest.ServerTimeout(t, e, db, func(marker string) int { return running(t, admin, marker) })
}

// TestReadOnlyTransaction checks the server-side guard under the lexical
// one: a SELECT calling a stored function that writes passes the keyword
// check and must be refused by the read-only transaction.
func TestReadOnlyTransaction(t *testing.T) {
	server := testserver.MySQL(t)
	prefix, db := fixture(t, server)
	w := testserver.OpenMySQL(t, server, prefix+db)
	if _, err := w.Exec(`CREATE FUNCTION sj_write() RETURNS INT MODIFIES SQL DATA
		BEGIN INSERT INTO sj_order (id, k, s) VALUES (99, 0, 'z'); RETURN 1; END`); err != nil {
		t.Fatal(err)
	}
	e, err := mysql.New(server, mysql.Options{DBPrefix: prefix})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	_, err = e.Query(context.Background(), db, "SELECT sj_write()")
	if err == nil {
		t.Fatal("SELECT sj_write() ran")
	}
	t.Logf("refused: %v", err)
	var n int
	if err := w.QueryRow("SELECT COUNT(*) FROM sj_order").Scan(&n); err != nil || n != 12 {
		t.Errorf("sj_order has %d rows (%v), want 12", n, err)
	}
}

// A query stopped by its time limit is a timeout whatever the server
// returned: MariaDB's BENCHMARK() stopped by max_statement_time or KILL
// QUERY returns 0 without an error, which was graded as a result (correct
// against a gold SELECT 0). Repeated, since with a deadline in the context
// the outcome is a race between the server's limit and the engine's kill.
func TestKilledBenchmarkIsTimeout(t *testing.T) {
	server := testserver.MySQL(t)
	prefix, db := fixture(t, server)
	const limit = 250 * time.Millisecond
	e, err := mysql.New(server, mysql.Options{DBPrefix: prefix, StatementTimeout: limit})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	q := "SELECT BENCHMARK(10000000000, MD5('a'))"
	graded := 0
	for i := range 10 {
		ctx, cancel := context.Background(), func() {}
		if i >= 2 { // the first two with the server's limit alone
			ctx, cancel = context.WithTimeout(ctx, limit)
		}
		set, err := e.Query(ctx, db, q)
		cancel()
		if !errors.Is(err, engine.ErrTimeout) {
			graded++
			t.Errorf("run %d (deadline in ctx: %v): got %v, %v; want ErrTimeout", i, i >= 2, set, err)
		}
	}
	t.Logf("%d of 10 killed BENCHMARK runs returned a result", graded)
	// A query that ends well within its limit is a result.
	if set, err := e.Query(context.Background(), db, "SELECT BENCHMARK(1000, MD5('a'))"); err != nil || set.Len() != 1 {
		t.Errorf("short BENCHMARK: %v, %v", set, err)
	}
}

// Every query starts from a clean session: what one prediction leaves in
// its session (a named lock, a user variable, LAST_INSERT_ID) must not be
// seen by the next query, even on a pool of one connection, nor hold a
// lock other clients wait for while the run goes on.
func TestNoSessionStateBetweenQueries(t *testing.T) {
	server := testserver.MySQL(t)
	prefix, db := fixture(t, server)
	admin := testserver.OpenMySQL(t, server, "")
	e, err := mysql.New(server, mysql.Options{DBPrefix: prefix, MaxConns: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	one := func(q string) string { t.Helper(); return enginetest.One(t, e, db, q) }
	lock := testserver.Name("sj_lock_")
	leaks := 0
	for i := range 5 {
		if got := one(fmt.Sprintf("SELECT GET_LOCK('%s', 0)", lock)); got != "1" {
			t.Fatalf("GET_LOCK: %s", got)
		}
		var free int
		if err := admin.QueryRow("SELECT IS_FREE_LOCK(?)", lock).Scan(&free); err != nil {
			t.Fatal(err)
		}
		if free != 1 {
			leaks++
			t.Errorf("round %d: the lock taken by a finished query is still held", i)
		}
		one(fmt.Sprintf("SELECT @sj_v := %d", 5+i))
		if got := one("SELECT @sj_v"); got != "None" {
			leaks++
			t.Errorf("round %d: the next query sees @sj_v = %s", i, got)
		}
		one("SELECT LAST_INSERT_ID(42)")
		if got := one("SELECT LAST_INSERT_ID()"); got != "0" {
			leaks++
			t.Errorf("round %d: the next query sees LAST_INSERT_ID() = %s", i, got)
		}
	}
	t.Logf("%d of 15 checks saw state left by an earlier query", leaks)
}

// BenchmarkQuery measures one trivial query through the engine (its
// per-query cost: connection, session settings, transaction).
func BenchmarkQuery(b *testing.B) {
	server := testserver.MySQL(b)
	prefix := testserver.Name("sjt_my_")
	testserver.CreateMySQLDB(b, server, prefix+"bench")
	e, err := mysql.New(server, mysql.Options{DBPrefix: prefix, MaxConns: 4})
	if err != nil {
		b.Fatal(err)
	}
	defer e.Close()
	for b.Loop() {
		if _, err := e.Query(context.Background(), "bench", "SELECT 1"); err != nil {
			b.Fatal(err)
		}
	}
}
