package equiv

import (
	"context"
	"testing"
	"time"
)

func newSQLite(t testing.TB) Sandbox {
	t.Helper()
	sb, err := NewSQLiteSandbox(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { sb.Close() })
	return sb
}

func decide(t testing.TB, sb Sandbox, p Pair) Outcome {
	t.Helper()
	out, err := Decide(context.Background(), p, Options{Sandbox: sb, Seed: 1, Budget: 10 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

const empDDL = `CREATE TABLE dept (deptno INT PRIMARY KEY, name VARCHAR(20) NOT NULL);
CREATE TABLE emp (empno INT PRIMARY KEY, ename VARCHAR(20), sal INT NOT NULL, deptno INT REFERENCES dept(deptno));`

func TestSmoke(t *testing.T) {
	sb := newSQLite(t)
	out := decide(t, sb, Pair{ID: "x", Q1: "SELECT ename FROM emp WHERE sal > 10", Q2: "SELECT ename FROM emp WHERE sal >= 10", Schema: empDDL})
	t.Logf("%+v", out)
	if out.Witness != nil {
		t.Log(out.Witness.SQL)
	}
}
