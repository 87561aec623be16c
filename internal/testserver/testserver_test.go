package testserver

import (
	"fmt"
	"runtime"
	"testing"
)

// skipRecorder is a testing.TB that records a skip or a failure and ends
// the calling goroutine, as the real ones do.
type skipRecorder struct {
	testing.TB
	said string
}

func (r *skipRecorder) Helper() {}
func (r *skipRecorder) Skipf(f string, a ...any) {
	r.said = fmt.Sprintf(f, a...)
	runtime.Goexit()
}
func (r *skipRecorder) Fatalf(f string, a ...any) { r.Skipf(f, a...) }

// TestMissingServerMessage: without a DSN a server test is skipped with a
// message that names the variable and reads as English ("there is no
// PostgreSQL server", not "no a PostgreSQL server"), and fails under CI.
func TestMissingServerMessage(t *testing.T) {
	t.Setenv(PostgresEnv, "")
	t.Setenv(MySQLEnv, "")
	for _, c := range []struct {
		ci   string
		f    func(testing.TB) string
		want string
	}{
		{"false", Postgres, "skipped: $SQLJUDGE_TEST_POSTGRES is not set, so there is no PostgreSQL server to test against"},
		{"false", MySQL, "skipped: $SQLJUDGE_TEST_MYSQL is not set, so there is no MariaDB server to test against"},
		{"true", Postgres, "$SQLJUDGE_TEST_POSTGRES is not set: CI must start a PostgreSQL server"},
	} {
		t.Setenv("CI", c.ci)
		t.Setenv("SQLJUDGE_REQUIRE_DATA", "")
		r := &skipRecorder{TB: t}
		done := make(chan struct{})
		go func() {
			defer close(done)
			c.f(r)
		}()
		<-done
		if r.said[:min(len(r.said), len(c.want))] != c.want {
			t.Errorf("CI=%s: %q, want %q...", c.ci, r.said, c.want)
		}
	}
}
