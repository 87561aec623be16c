package shareddata

import (
	"fmt"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// recorder is a testing.TB that records a skip or a failure and stops the
// calling goroutine as the real ones do.
type recorder struct {
	testing.TB
	skipped, failed string
}

func (r *recorder) Helper()             {}
func (r *recorder) Logf(string, ...any) {}
func (r *recorder) Skipf(f string, a ...any) {
	r.skipped = fmt.Sprintf(f, a...)
	runtime.Goexit()
}
func (r *recorder) Fatalf(f string, a ...any) {
	r.failed = fmt.Sprintf(f, a...)
	runtime.Goexit()
}

// call runs f on a recorder in its own goroutine (Skipf and Fatalf end it).
func call(t *testing.T, f func(tb testing.TB)) *recorder {
	r := &recorder{TB: t}
	done := make(chan struct{})
	go func() {
		defer close(done)
		f(r)
	}()
	<-done
	return r
}

// TestMissingFullData: without the full data a test is skipped with a
// message naming SQLJUDGE_DATA, and fails with SQLJUDGE_REQUIRE_DATA=1.
func TestMissingFullData(t *testing.T) {
	t.Setenv(Env, filepath.Join(t.TempDir(), "absent"))
	t.Setenv(RequireEnv, "")
	r := call(t, func(tb testing.TB) { Dir(tb) })
	if r.failed != "" || !strings.Contains(r.skipped, Env) {
		t.Errorf("without the data: skipped %q, failed %q; want a skip naming %s", r.skipped, r.failed, Env)
	}
	if sets := call(t, func(tb testing.TB) {
		if s := Sets(tb); len(s) != 1 || s[0].Name != "subset" {
			tb.Fatalf("sets %+v", s)
		}
	}); sets.failed != "" || sets.skipped != "" {
		t.Errorf("Sets without the full data: %q %q; want the subset alone", sets.failed, sets.skipped)
	}
	t.Setenv(RequireEnv, "1")
	r = call(t, func(tb testing.TB) { Dir(tb) })
	if r.skipped != "" || !strings.Contains(r.failed, Env) || !strings.Contains(r.failed, RequireEnv) {
		t.Errorf("required: skipped %q, failed %q; want a failure naming %s and %s", r.skipped, r.failed, Env, RequireEnv)
	}
	r = call(t, func(tb testing.TB) { Sets(tb) })
	if !strings.Contains(r.failed, RequireEnv) {
		t.Errorf("Sets required: failed %q", r.failed)
	}
}

// TestLegacyEnv: SQLJUDGE_SHARED_DATA still names the folder when
// SQLJUDGE_DATA is unset.
func TestLegacyEnv(t *testing.T) {
	d := t.TempDir()
	t.Setenv(Env, "")
	t.Setenv(LegacyEnv, d)
	got, err := Find()
	if err != nil || got != d {
		t.Fatalf("Find = %q, %v; want %q", got, err, d)
	}
}

// TestSubsetMatchesItsOracle: the committed subset holds the first
// SubsetItems dev items on three databases, and every oracle file has a
// verdict for each, numbered as in the full dev set.
func TestSubsetMatchesItsOracle(t *testing.T) {
	dbs := map[string]bool{}
	for _, sys := range Systems {
		or := SubsetOracle(t, sys)
		if len(or) != SubsetItems {
			t.Fatalf("%s: %d verdicts, want %d", sys, len(or), SubsetItems)
		}
		for i, o := range or {
			if o.I != i {
				t.Fatalf("%s: record %d is item %d", sys, i, o.I)
			}
			dbs[o.DBID] = true
		}
	}
	if len(dbs) != 3 {
		t.Errorf("db_ids %v, want concert_singer, pets_1, car_1", dbs)
	}
	for db := range dbs {
		SubsetPath(t, "spider", "database", db, db+".sqlite")
	}
}
