package equiv

import (
	"context"
	"testing"

	pgsb "github.com/sqljudge/sqljudge/internal/sandbox/postgres"
	"github.com/sqljudge/sqljudge/internal/testserver"
)

// TestPostgresFoldsUnquotedNames: PostgreSQL folds an unquoted name to lower
// case, so the scratch database must hold table emp for DDL `CREATE TABLE
// EMP`, where the queries' unquoted EMP finds it, and keep a quoted "Dept"
// as written. Before the fix every Calcite pair (upper-case unquoted DDL)
// was unknown: relation "emp" does not exist.
func TestPostgresFoldsUnquotedNames(t *testing.T) {
	dsn := testserver.Postgres(t)
	sb, err := pgsb.New(context.Background(), dsn, true)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { sb.Close() })
	ddl := `CREATE TABLE "Dept" ("DeptNo" INT PRIMARY KEY);
CREATE TABLE EMP (EMPNO INT PRIMARY KEY, ENAME VARCHAR(20), SAL INT NOT NULL, DEPTNO INT REFERENCES "Dept" ("DeptNo"));`
	out := decide(t, sb, Pair{ID: "fold", Schema: ddl,
		Q1: `SELECT ENAME FROM EMP JOIN "Dept" ON DEPTNO = "DeptNo" WHERE SAL > 10`,
		Q2: `SELECT ENAME FROM EMP JOIN "Dept" ON DEPTNO = "DeptNo" WHERE SAL >= 10`})
	if out.Verdict != Inequivalent || out.Witness == nil {
		t.Fatalf("verdict %s (%s), want inequivalent with a witness", out.Verdict, out.Reason)
	}
	t.Logf("witness:\n%s", out.Witness.SQL)
}
