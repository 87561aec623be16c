package equiv

import (
	"context"
	"encoding/json"
	"errors"
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/sqljudge/sqljudge/internal/engine"
	"github.com/sqljudge/sqljudge/internal/engine/mysql"
	"github.com/sqljudge/sqljudge/internal/result"
	"github.com/sqljudge/sqljudge/internal/testserver"
)

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

// mysqlHandPairs are decided on MariaDB: hand-written pairs (equivalent and
// inequivalent) over the schema in SQLite/PostgreSQL spelling, and pairs
// over MySQL- and PostgreSQL-spelled DDL that the sandbox renders for
// MySQL.
var mysqlHandPairs = []struct {
	name, q1, q2, ddl string
	want              Verdict
}{
	{"comparison", "SELECT ename FROM emp WHERE sal > 10", "SELECT ename FROM emp WHERE sal >= 10", empDDL, Inequivalent},
	{"not null makes equal", "SELECT empno FROM emp WHERE sal = sal", "SELECT empno FROM emp", empDDL, EquivalentBounded},
	{"null breaks equal", "SELECT empno FROM emp WHERE ename = ename", "SELECT empno FROM emp", empDDL, Inequivalent},
	{"key makes distinct redundant", "SELECT DISTINCT empno FROM emp", "SELECT empno FROM emp", empDDL, EquivalentBounded},
	{"bag: duplicates", "SELECT DISTINCT sal FROM emp", "SELECT sal FROM emp", empDDL, Inequivalent},
	{"NOT IN vs NOT EXISTS", "SELECT name FROM dept WHERE deptno NOT IN (SELECT deptno FROM emp)",
		"SELECT name FROM dept d WHERE NOT EXISTS (SELECT 1 FROM emp e WHERE e.deptno = d.deptno)", empDDL, Inequivalent},
	{"foreign key join, not null", "SELECT e.empno FROM emp e JOIN dept d ON e.deptno = d.deptno", "SELECT empno FROM emp",
		"CREATE TABLE dept (deptno INT PRIMARY KEY); CREATE TABLE emp (empno INT PRIMARY KEY, deptno INT NOT NULL, FOREIGN KEY (deptno) REFERENCES dept (deptno))", EquivalentBounded},
	{"order", "SELECT empno FROM emp ORDER BY empno", "SELECT empno FROM emp ORDER BY empno DESC", empDDL, Inequivalent},
	{"mysql ddl: join through the key", "SELECT e.`ename` FROM `emp` e JOIN `dept` d ON e.`deptno` = d.`deptno`", "SELECT `ename` FROM `emp`", mysqlDDL, EquivalentBounded},
	{"mysql ddl: group count", "SELECT `deptno`, COUNT(*) FROM `emp` GROUP BY `deptno`", "SELECT `deptno`, COUNT(`ename`) FROM `emp` GROUP BY `deptno`", mysqlDDL, Inequivalent},
	{"postgres ddl: unique name", "SELECT DISTINCT name FROM dept", "SELECT name FROM dept", pgDDL, EquivalentBounded},
	{"postgres ddl: a day apart", "SELECT empno FROM emp WHERE hired < '2020-01-02'", "SELECT empno FROM emp WHERE hired <= '2020-01-01'", pgDDL, EquivalentBounded},
	{"schema the server refuses", "SELECT a FROM t", "SELECT a FROM t WHERE a > 0", "CREATE TABLE t (a INT CHECK (a ~ 'x'))", Unknown},
	{"postgres ddl: timestamp", "SELECT empno FROM emp WHERE seen > '2020-01-01 00:00:00'", "SELECT empno FROM emp WHERE seen >= '2020-01-01 00:00:00'", pgDDL, Inequivalent},
}

const mysqlDDL = "CREATE TABLE `dept` (`deptno` INT(11) NOT NULL AUTO_INCREMENT, `name` VARCHAR(20) CHARACTER SET utf8 NOT NULL, PRIMARY KEY (`deptno`), UNIQUE KEY `u` (`name`)) ENGINE=InnoDB DEFAULT CHARSET=utf8;\n" +
	"CREATE TABLE `emp` (`empno` INT UNSIGNED NOT NULL, `ename` VARCHAR(10), `deptno` INT NOT NULL, `job` TEXT COMMENT 'j', PRIMARY KEY (`empno`, `deptno`), KEY `k` (`ename`), CONSTRAINT `f` FOREIGN KEY (`deptno`) REFERENCES `dept` (`deptno`));"

const pgDDL = `CREATE TABLE public.dept (deptno SERIAL PRIMARY KEY, name CHARACTER VARYING(20) NOT NULL, CONSTRAINT u_name UNIQUE (name));
CREATE TABLE emp (empno integer NOT NULL PRIMARY KEY, hired date NOT NULL, seen timestamp without time zone, note text DEFAULT 'x'::text,
  deptno integer REFERENCES dept);`

// TestMySQLHandWrittenPairs decides the pairs on MariaDB, re-verifies every
// witness on a database the test makes itself (each statement of the
// witness SQL through database/sql, both queries through a MySQL engine of
// its own), and checks that the scratch databases are gone and the
// server's other databases untouched.
func TestMySQLHandWrittenPairs(t *testing.T) {
	server := testserver.MySQL(t)
	ctx := context.Background()
	canary := testserver.Name("sjt_canary_")
	cdb := testserver.CreateMySQLDB(t, server, canary)
	if _, err := cdb.ExecContext(ctx, "CREATE TABLE emp (empno INT PRIMARY KEY, ename VARCHAR(20))"); err != nil {
		t.Fatal(err)
	}
	if _, err := cdb.ExecContext(ctx, "INSERT INTO emp VALUES (7, 'kept')"); err != nil {
		t.Fatal(err)
	}
	before := mysqlDatabases(t, server)
	if _, err := NewMySQLSandbox(ctx, server, false); !errors.Is(err, engine.ErrPrivileged) {
		t.Fatalf("an account with ALL PRIVILEGES on *.* without allowSuperuser: %v, want ErrPrivileged", err)
	}
	sb, err := NewMySQLSandbox(ctx, server, true)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range mysqlHandPairs {
		t.Run(c.name, func(t *testing.T) {
			out, err := Decide(ctx, Pair{Q1: c.q1, Q2: c.q2, Schema: c.ddl}, Options{Sandbox: sb, Seed: 1, Budget: 20 * time.Second, MaxDatabases: 150})
			if err != nil {
				t.Fatal(err)
			}
			if out.Verdict != c.want {
				t.Fatalf("verdict %s (%s), want %s; %+v", out.Verdict, out.Reason, c.want, out.Witness)
			}
			if c.want == EquivalentBounded && (out.Search.Databases < 100 || out.Search.LargestTable < 3) {
				t.Errorf("bounded after a small search: %+v", out.Search)
			}
			if out.Witness != nil {
				reverifyMySQL(t, server, out.Witness, c.q1, c.q2)
			}
		})
	}
	if err := sb.Close(); err != nil {
		t.Fatal(err)
	}
	if after := mysqlDatabases(t, server); !slices.Equal(before, after) {
		t.Fatalf("databases before %v, after %v", before, after)
	}
	var name string
	if err := cdb.QueryRowContext(ctx, "SELECT ename FROM emp WHERE empno = 7").Scan(&name); err != nil || name != "kept" {
		t.Fatalf("the canary database changed: %q, %v", name, err)
	}
}

// mysqlDatabases lists the server's databases (SHOW DATABASES).
func mysqlDatabases(t *testing.T, server string) []string {
	t.Helper()
	rows, err := testserver.OpenMySQL(t, server, "").Query("SHOW DATABASES")
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

// reverifyMySQL builds the witness in a database of the test's own and
// requires the recorded results and a difference.
func reverifyMySQL(t *testing.T, server string, w *Witness, q1, q2 string) {
	t.Helper()
	ctx := context.Background()
	name := testserver.Name("sjt_equiv_")
	db := testserver.CreateMySQLDB(t, server, name)
	for _, st := range splitScript(w.SQL) {
		if _, err := db.ExecContext(ctx, st); err != nil {
			t.Fatalf("witness SQL does not run on MariaDB: %v\n%s", err, w.SQL)
		}
	}
	eng, err := mysql.New(server, mysql.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer eng.Close()
	var got [2]string
	for i, q := range []string{q1, q2} {
		set, err := eng.Query(ctx, name, q)
		if err != nil {
			t.Fatalf("q%d fails on the witness: %v", i+1, err)
		}
		b, _ := json.Marshal(resultJSON(set))
		got[i] = string(b)
	}
	want1, _ := json.Marshal(w.Q1)
	want2, _ := json.Marshal(w.Q2)
	if got[0] != string(want1) || got[1] != string(want2) {
		t.Fatalf("witness results differ from the record:\n got %s / %s\nwant %s / %s\n%s", got[0], got[1], want1, want2, w.SQL)
	}
	if got[0] == got[1] {
		t.Fatalf("the queries agree on the witness: %s", got[0])
	}
	if !strings.Contains(w.SQL, "`") {
		t.Errorf("the witness SQL does not quote names as MySQL does:\n%s", w.SQL)
	}
}

// TestMySQLLimitedAccount runs the sandbox as an account that holds only
// the privileges the sandbox documents, on the scratch databases' names:
// it is not refused, and it decides pairs. (The CI account may not GRANT,
// so the grant is written into mysql.db as GRANT would write it.)
func TestMySQLLimitedAccount(t *testing.T) {
	server := testserver.MySQL(t)
	ctx := context.Background()
	admin := testserver.OpenMySQL(t, server, "")
	user := testserver.Name("sjt_lim_")
	host := testserver.MySQLConfig(t, server).Addr
	host, _, _ = strings.Cut(host, ":")
	for _, q := range []string{
		"CREATE USER '" + user + "'@'" + host + "' IDENTIFIED BY 'pw'",
		"INSERT INTO mysql.db (Host, Db, User, Select_priv, Insert_priv, Delete_priv, Create_priv, Drop_priv, References_priv) VALUES ('" + host + "', 'sqljudge\\\\_equiv\\\\_%', '" + user + "', 'Y', 'Y', 'Y', 'Y', 'Y', 'Y')",
		"FLUSH PRIVILEGES",
	} {
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
	sb, err := NewMySQLSandbox(ctx, u.String(), false)
	if err != nil {
		t.Fatalf("an account with CREATE, DROP, SELECT, INSERT, DELETE, REFERENCES on the scratch databases only: %v", err)
	}
	defer sb.Close()
	for _, c := range []struct {
		q1, q2 string
		want   Verdict
	}{
		{"SELECT empno FROM emp WHERE ename = ename", "SELECT empno FROM emp", Inequivalent},
		{"SELECT DISTINCT empno FROM emp", "SELECT empno FROM emp", EquivalentBounded},
	} {
		out, err := Decide(ctx, Pair{Q1: c.q1, Q2: c.q2, Schema: empDDL}, Options{Sandbox: sb, Seed: 1, Budget: 20 * time.Second, MaxDatabases: 100})
		if err != nil {
			t.Fatal(err)
		}
		if out.Verdict != c.want {
			t.Errorf("%s / %s: %s (%s), want %s", c.q1, c.q2, out.Verdict, out.Reason, c.want)
		}
	}
}

// TestMySQLCancelDropsScratch stops a search by its context: the scratch
// database is dropped all the same.
func TestMySQLCancelDropsScratch(t *testing.T) {
	server := testserver.MySQL(t)
	sb, err := NewMySQLSandbox(context.Background(), server, true)
	if err != nil {
		t.Fatal(err)
	}
	defer sb.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 1500*time.Millisecond)
	defer cancel()
	_, err = Decide(ctx, Pair{Q1: "SELECT empno FROM emp WHERE sal = sal", Q2: "SELECT empno FROM emp", Schema: empDDL}, Options{Sandbox: sb, Seed: 1, Budget: time.Minute, MaxDatabases: 100_000})
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Decide under a cancelled context: %v", err)
	}
	if sb.n.Load() == 0 {
		t.Fatal("no scratch database was made")
	}
	for _, d := range mysqlDatabases(t, server) {
		if strings.HasPrefix(d, sb.prefix) {
			t.Fatalf("scratch database %s left after a cancelled search", d)
		}
	}
}

// BenchmarkMySQLDatabase measures what one database of the search costs on
// MariaDB: a Load of two rows and two queries (each on a fresh session,
// as the MySQL engine runs every query).
func BenchmarkMySQLDatabase(b *testing.B) {
	server := testserver.MySQL(b)
	ctx := context.Background()
	sb, err := NewMySQLSandbox(ctx, server, true)
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
		if err := sc.Load(ctx, []TableRows{{Name: "`t`", Cols: 2, Rows: [][]result.Value{{result.IntValue(1), result.IntValue(2)}, {result.IntValue(2), result.IntValue(3)}}}}); err != nil {
			b.Fatal(err)
		}
		for range 2 {
			if _, err := sc.Query(ctx, "SELECT y FROM t WHERE x > 1"); err != nil {
				b.Fatal(err)
			}
		}
	}
}
