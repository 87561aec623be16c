package equiv

import (
	"context"
	"errors"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/sqljudge/sqljudge/internal/engine"
	"github.com/sqljudge/sqljudge/internal/sandbox"
	mysqlsb "github.com/sqljudge/sqljudge/internal/sandbox/mysql"
	"github.com/sqljudge/sqljudge/internal/testserver"
)

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
	before := durableMySQLDatabases(t, server)
	if _, err := mysqlsb.New(ctx, server, false); !errors.Is(err, engine.ErrPrivileged) {
		t.Fatalf("an account with ALL PRIVILEGES on *.* without allowSuperuser: %v, want ErrPrivileged", err)
	}
	sb, err := mysqlsb.New(ctx, server, true)
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
				reverifyMySQL(t, out.Witness, c.q1, c.q2)
			}
		})
	}
	if err := sb.Close(); err != nil {
		t.Fatal(err)
	}
	if after := durableMySQLDatabases(t, server); !slices.Equal(before, after) {
		t.Fatalf("databases before %v, after %v", before, after)
	}
	if left := testserver.MySQLDatabases(t, server, sb.Prefix()+"_"); len(left) > 0 {
		t.Fatalf("scratch databases %v left", left)
	}
	var name string
	if err := cdb.QueryRowContext(ctx, "SELECT ename FROM emp WHERE empno = 7").Scan(&name); err != nil || name != "kept" {
		t.Fatalf("the canary database changed: %q, %v", name, err)
	}
}

// TestMySQLCancelDropsScratch stops a search by its context: the scratch
// database is dropped all the same.
func TestMySQLCancelDropsScratch(t *testing.T) {
	server := testserver.MySQL(t)
	sb, err := mysqlsb.New(context.Background(), server, true)
	if err != nil {
		t.Fatal(err)
	}
	defer sb.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 1500*time.Millisecond)
	defer cancel()
	counted := &countingSandbox{Sandbox: sb}
	_, err = Decide(ctx, Pair{Q1: "SELECT empno FROM emp WHERE sal = sal", Q2: "SELECT empno FROM emp", Schema: empDDL}, Options{Sandbox: counted, Seed: 1, Budget: time.Minute, MaxDatabases: 100_000})
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Decide under a cancelled context: %v", err)
	}
	if counted.opens.Load() == 0 {
		t.Fatal("no scratch database was made")
	}
	for _, d := range testserver.MySQLDatabases(t, server, "") {
		if strings.HasPrefix(d, sb.Prefix()) {
			t.Fatalf("scratch database %s left after a cancelled search", d)
		}
	}
}

// countingSandbox counts the scratch databases a sandbox opens.
type countingSandbox struct {
	sandbox.Sandbox
	opens atomic.Int64
}

func (s *countingSandbox) Open(ctx context.Context, ddl []string) (sandbox.Scratch, error) {
	s.opens.Add(1)
	return s.Sandbox.Open(ctx, ddl)
}

// durableMySQLDatabases lists the server's databases but the test and
// scratch databases that test binaries running beside this one make and
// drop (names starting with "sj" or "sqljudge_"): the system databases
// and any other a sandbox must never create or drop.
func durableMySQLDatabases(t *testing.T, server string) []string {
	t.Helper()
	var out []string
	for _, d := range testserver.MySQLDatabases(t, server, "") {
		if !strings.HasPrefix(d, "sj") && !strings.HasPrefix(d, "sqljudge_") {
			out = append(out, d)
		}
	}
	return out
}
