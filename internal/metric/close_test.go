package metric_test

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/sqljudge/sqljudge/internal/bench"
	"github.com/sqljudge/sqljudge/internal/metric"
	"github.com/sqljudge/sqljudge/internal/shareddata"
)

// openFilesUnder counts this process's open file descriptors on files
// under dir (Linux /proc/self/fd).
func openFilesUnder(t *testing.T, dir string) int {
	t.Helper()
	fds, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Fatalf("cannot list open files: %v", err)
	}
	n := 0
	for _, fd := range fds {
		target, err := os.Readlink(filepath.Join("/proc/self/fd", fd.Name()))
		if err == nil && strings.HasPrefix(target, dir+string(filepath.Separator)) {
			n++
		}
	}
	return n
}

// TestTSClosesItsSuiteDatabases is issue 12.2: ts builds its own SQLite
// engine over the suite and never closed it (a 120-item ex,ts run left ~45
// suite files open at exit). Whoever builds metrics closes them with
// metric.Close, and ts then holds no suite file.
func TestTSClosesItsSuiteDatabases(t *testing.T) {
	suite := concertSingerSuite(t, "concert_singer.sqlite", "concert_singer_1.sqlite", "concert_singer_2.sqlite")
	ms, err := metric.New([]string{"ex", "ts"}, metric.Options{TS: metric.TSOptions{Dir: suite, Timeout: 10 * time.Second}})
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := ms[1].(io.Closer); !ok {
		t.Fatal("ts does not implement io.Closer")
	}
	env := &metric.Env{Engine: nil, Timeout: 10 * time.Second}
	for _, q := range []string{"SELECT count(*) FROM singer", "SELECT name FROM singer ORDER BY age", "SELECT avg(age) FROM singer"} {
		it := bench.Item{DBID: "concert_singer", Gold: []string{q}, Pred: q}
		if v := ms[1].Grade(context.Background(), env.NewExec(), &it); !v.Correct {
			t.Fatalf("ts on %s: %+v", q, v)
		}
	}
	if n := openFilesUnder(t, suite); n == 0 {
		t.Fatal("no suite file open after grading: the test cannot tell a close")
	}
	if err := metric.Close(ms); err != nil {
		t.Fatal(err)
	}
	if n := openFilesUnder(t, suite); n != 0 {
		t.Fatalf("%d suite files still open after metric.Close", n)
	}
}

// concertSingerSuite makes a test suite in a temporary folder whose
// concert_singer databases are copies of Spider's, one per name.
func concertSingerSuite(t *testing.T, names ...string) string {
	t.Helper()
	src, err := os.ReadFile(filepath.Join(shareddata.SubsetPath(t, "spider"), "database", "concert_singer", "concert_singer.sqlite"))
	if err != nil {
		t.Fatal(err)
	}
	suite := t.TempDir()
	if err := os.MkdirAll(filepath.Join(suite, "concert_singer"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, name := range names {
		if err := os.WriteFile(filepath.Join(suite, "concert_singer", name), src, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return suite
}
