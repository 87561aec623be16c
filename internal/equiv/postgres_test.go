package equiv

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/sqljudge/sqljudge/internal/engine"
	pgsb "github.com/sqljudge/sqljudge/internal/sandbox/postgres"
	"github.com/sqljudge/sqljudge/internal/testserver"
)

// TestPostgresHandWrittenPairs decides the hand-written pairs on
// PostgreSQL, re-verifies each witness on a database of its own made by
// the test (the witness SQL as one script), and checks that every scratch
// database was dropped.
func TestPostgresHandWrittenPairs(t *testing.T) {
	server := testserver.Postgres(t)
	ctx := context.Background()
	if _, err := pgsb.New(ctx, server, false); !errors.Is(err, engine.ErrPrivileged) {
		t.Fatalf("a superuser DSN without allowSuperuser: %v, want ErrPrivileged", err)
	}
	sb, err := pgsb.New(ctx, server, true)
	if err != nil {
		t.Fatal(err)
	}
	defer sb.Close()
	for _, c := range handPairs {
		switch c.name {
		case "like", "empty table aggregate", "count vs count column":
			continue // shown on SQLite; one PostgreSQL run of each kind is enough
		case "order of a bag":
			// Only q1 orders, so rows are compared in order: SQLite reads
			// emp through its primary key index (in order), PostgreSQL in
			// insertion order, and tells the two apart (a witness).
			continue
		}
		t.Run(c.name, func(t *testing.T) {
			out, err := Decide(ctx, Pair{Q1: c.q1, Q2: c.q2, Schema: c.ddl}, Options{NoProof: true, Sandbox: sb, Seed: 1, Budget: 20 * time.Second, MaxDatabases: 150})
			if err != nil {
				t.Fatal(err)
			}
			if out.Verdict != c.want {
				t.Fatalf("verdict %s (%s), want %s; %+v", out.Verdict, out.Reason, c.want, out.Witness)
			}
			if out.Witness == nil {
				return
			}
			name := testserver.Name("sjt_equiv_")
			conn := testserver.CreatePostgresDB(t, server, name)
			defer testserver.DropPostgresDB(t, server, name)
			if _, err := conn.Exec(ctx, out.Witness.SQL); err != nil {
				t.Fatalf("witness SQL does not run on PostgreSQL: %v\n%s", err, out.Witness.SQL)
			}
			var got [2]string
			for i, q := range []string{c.q1, c.q2} {
				rows, err := conn.Query(ctx, q)
				if err != nil {
					t.Fatal(err)
				}
				var b strings.Builder
				for rows.Next() {
					vals, _ := rows.Values()
					b.WriteString(strings.TrimSpace(strings.ReplaceAll(strings.Trim(fmtRow(vals), "[]"), "<nil>", "NULL")) + ";")
				}
				rows.Close()
				got[i] = b.String()
			}
			if got[0] == got[1] && !strings.Contains(c.q1, "ORDER") {
				t.Fatalf("the queries agree on the witness: %q", got[0])
			}
		})
	}
	var left int
	conn := testserver.ConnectPostgres(t, server, "")
	if err := conn.QueryRow(ctx, "SELECT count(*) FROM pg_database WHERE datname LIKE $1", sb.Prefix()+"%").Scan(&left); err != nil || left != 0 {
		t.Fatalf("%d scratch databases left (%v)", left, err)
	}
}

func fmtRow(vals []any) string {
	return strings.TrimSpace(strings.Join(strings.Fields(fmtAny(vals)), " "))
}

func fmtAny(v any) string { return strings.ReplaceAll(fmtSprint(v), "\n", " ") }

var fmtSprint = func(v any) string { return fmt.Sprint(v) }

// calciteDDL is the shape of VeriEQL's Calcite schemas: upper-case names
// without quotes (PostgreSQL folds them), VARCHAR without a length,
// BOOLEAN and DATE columns.
const calciteDDL = `CREATE TABLE DEPT (DEPTNO INT PRIMARY KEY, NAME VARCHAR NOT NULL);
CREATE TABLE EMP (EMPNO INT PRIMARY KEY, DEPTNO INT NOT NULL REFERENCES DEPT (DEPTNO), ENAME VARCHAR NOT NULL,
  JOB VARCHAR NOT NULL, MGR INT, HIREDATE DATE NOT NULL, SAL INT NOT NULL, COMM INT NOT NULL, SLACKER BOOLEAN NOT NULL);`

func TestPostgresCalciteShapedPairs(t *testing.T) {
	server := testserver.Postgres(t)
	ctx := context.Background()
	sb, err := pgsb.New(ctx, server, true)
	if err != nil {
		t.Fatal(err)
	}
	defer sb.Close()
	cases := []struct {
		q1, q2 string
		want   Verdict
	}{
		{"SELECT NAME FROM DEPT WHERE EXISTS (SELECT 1 FROM (SELECT 2 * DEPTNO AS f0 FROM DEPT GROUP BY 2 * DEPTNO) AS t0 WHERE DEPT.DEPTNO = t0.f0)",
			"SELECT NAME FROM (SELECT DEPTNO, NAME FROM DEPT WHERE EXISTS (SELECT 1 FROM (SELECT 2 * DEPTNO AS f0 FROM DEPT GROUP BY 2 * DEPTNO) AS t5 WHERE DEPTNO = t5.f0)) AS t2", EquivalentBounded},
		{"SELECT ENAME FROM EMP WHERE SLACKER AND HIREDATE > DATE '2000-01-01'", "SELECT ENAME FROM EMP WHERE SLACKER AND HIREDATE >= DATE '2000-01-01'", Inequivalent},
		{"SELECT E.ENAME, D.NAME FROM EMP E JOIN DEPT D ON E.DEPTNO = D.DEPTNO", "SELECT ENAME, (SELECT NAME FROM DEPT WHERE DEPT.DEPTNO = EMP.DEPTNO) FROM EMP", EquivalentBounded},
		{"SELECT DEPTNO, SUM(SAL) FROM EMP GROUP BY DEPTNO", "SELECT DEPTNO, SUM(SAL + COMM) FROM EMP GROUP BY DEPTNO", Inequivalent},
	}
	for i, c := range cases {
		out, err := Decide(ctx, Pair{Q1: c.q1, Q2: c.q2, Schema: calciteDDL}, Options{NoProof: true, Sandbox: sb, Seed: 1, Budget: 20 * time.Second, MaxDatabases: 150})
		if err != nil {
			t.Fatal(err)
		}
		if out.Verdict != c.want {
			t.Errorf("pair %d: %s (%s), want %s; %+v", i, out.Verdict, out.Reason, c.want, out.Witness)
		}
	}
}
