package serve

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/sqljudge/sqljudge/internal/shareddata"
)

// BenchmarkServeAttacks runs the attacks of issue 20 against a real
// `sqljudge serve` process on 127.0.0.1 at default flags, one fresh server
// per attack, and reports what they cost it: peak RSS (VmHWM), file
// descriptors, and the wait of a healthy request. It builds the binary
// first (a minute), so it is a benchmark, not a test; run it once:
//
//	go test ./internal/serve -run '^$' -bench ServeAttacks -benchtime 1x
func BenchmarkServeAttacks(b *testing.B) {
	bin := buildSQLJudge(b)
	spider := shareddata.Path(b, "spider", "database")
	b.Run("body250MB", func(b *testing.B) {
		srv := startServer(b, bin, spider)
		b.Logf("a 250 MB body: HTTP %d", streamBody(srv.url+"/v1/grade", 250<<20))
		srv.report(b)
	})
	b.Run("bodies4x200MB", func(b *testing.B) {
		srv := startServer(b, bin, spider)
		var wg sync.WaitGroup
		for range 4 {
			wg.Go(func() { b.Logf("a 200 MB body: HTTP %d", streamBody(srv.url+"/v1/grade", 200<<20)) })
		}
		wg.Wait()
		srv.report(b)
	})
	b.Run("batch500k", func(b *testing.B) {
		srv := startServer(b, bin, spider)
		var buf bytes.Buffer
		buf.WriteString(`{"items": [`)
		for k := range 500_000 {
			if k > 0 {
				buf.WriteByte(',')
			}
			fmt.Fprintf(&buf, `{"db_id": "concert_singer", "gold": "SELECT %d", "pred": "SELECT 1"}`, k)
		}
		buf.WriteString("]}")
		code := postRaw(srv.url+"/v1/grade", buf.Bytes())
		b.Logf("batch of 500k items (%d MB): HTTP %d", buf.Len()>>20, code)
		srv.report(b)
	})
	b.Run("golds10x99k", func(b *testing.B) { goldsAttack(b, bin, spider) })
	b.Run("aliases2000", func(b *testing.B) { aliasAttack(b, bin, spider) })
	b.Run("idle390", func(b *testing.B) { idleAttack(b, bin, spider) })
	b.Run("abandoned200", func(b *testing.B) { abandonAttack(b, bin, spider) })
	b.Run("witnessCells30x20MB", func(b *testing.B) { witnessCellsAttack(b, bin, spider) })
	b.Run("equivFlood50", func(b *testing.B) { equivFloodAttack(b, bin, spider) })
}

// slowPad is a prediction whose recursive CTE takes about 1.5 s on each
// database here (12 million rows), under equiv's 2 s query timeout: its
// search runs until --equiv-budget.
const slowPad = "WITH RECURSIVE pad(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM pad WHERE n < 12000000) " +
	"SELECT name FROM singer, (SELECT max(n) AS m FROM pad) WHERE age > 35 AND m > 0"

// equivFloodAttack sends 50 equiv requests whose items hold a worker up
// to --equiv-budget (issue 31), then times a healthy ex request.
func equivFloodAttack(b *testing.B, bin, spider string) {
	srv := startServer(b, bin, spider)
	body, _ := json.Marshal(GradeRequest{Items: []GradeItem{{DBID: "concert_singer",
		Gold: Gold{"SELECT name FROM singer WHERE age > 40"}, Pred: ptr(slowPad), Metric: "equiv"}}})
	for k := range 50 {
		go postRaw(srv.url+"/v1/grade", bytes.Replace(body, []byte("12000000"), []byte(fmt.Sprint(12000000+k)), 1))
	}
	time.Sleep(3 * time.Second) // the flood holds the workers
	start := time.Now()
	code := postRaw(srv.url+"/v1/grade", []byte(`{"items": [{"db_id": "concert_singer", "gold": "SELECT count(*) FROM singer", "pred": "SELECT count(*) FROM singer"}]}`))
	wait := time.Since(start)
	b.Logf("under 50 slow equiv requests: healthy request HTTP %d after %s", code, wait.Round(time.Millisecond))
	b.ReportMetric(wait.Seconds(), "healthy-wait-s")
}

// witnessCellsAttack grades 30 equiv items whose witnesses hold cells of
// 20 MB (issue 31), and reports the response's size and the peak RSS.
func witnessCellsAttack(b *testing.B, bin, spider string) {
	srv := startServer(b, bin, spider)
	body, _ := json.Marshal(GradeRequest{Items: padItems(30, 20<<20, "equiv")})
	resp, err := http.Post(srv.url+"/v1/grade", "application/json", bytes.NewReader(body))
	if err != nil {
		b.Fatal(err)
	}
	n, _ := io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	b.Logf("30 witnesses with 20 MB cells: HTTP %d, a response of %d bytes", resp.StatusCode, n)
	b.ReportMetric(float64(n), "response-bytes")
	time.Sleep(2 * time.Second) // let the collector return what nothing holds
	srv.report(b)
}

// goldsAttack grades 10 distinct gold queries of 99,000 rows of ~1 kB
// each (about 110 MB each as the engine counts it) in one request.
func goldsAttack(b *testing.B, bin, spider string) {
	srv := startServer(b, bin, spider)
	req := GradeRequest{}
	for k := range 10 {
		g := fmt.Sprintf("WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c LIMIT 99000) SELECT x, printf('%%0%dd', x) FROM c", 1000+k)
		req.Items = append(req.Items, GradeItem{DBID: "concert_singer", Gold: Gold{g}, Pred: ptr("SELECT 1")})
	}
	body, _ := json.Marshal(req)
	code := postRaw(srv.url+"/v1/grade", body)
	b.Logf("10 golds of 99k rows: HTTP %d", code)
	time.Sleep(2 * time.Second) // let the collector return what the cache does not hold
	srv.report(b)
}

// aliasAttack sends 2,000 db_ids that are paths to one database (all
// refused), then grades 2,000 db_ids that are symlinks inside --db to one
// file (allowed: they share one pool), and counts the server's fds.
func aliasAttack(b *testing.B, bin, spider string) {
	root := b.TempDir()
	data, err := os.ReadFile(filepath.Join(spider, "concert_singer", "concert_singer.sqlite"))
	if err != nil {
		b.Fatal(err)
	}
	target := filepath.Join(root, "concert_singer.sqlite")
	if err := os.WriteFile(target, data, 0o644); err != nil {
		b.Fatal(err)
	}
	var req GradeRequest
	for k := range 2000 {
		name := fmt.Sprintf("alias%d", k)
		if err := os.Symlink(target, filepath.Join(root, name+".sqlite")); err != nil {
			b.Fatal(err)
		}
		req.Items = append(req.Items, GradeItem{DBID: name, Gold: Gold{"SELECT count(*) FROM singer"}, Pred: ptr("SELECT count(*) FROM singer")})
	}
	srv := startServer(b, bin, spider)
	before := srv.fds()
	refused := 0
	for k := range 2000 {
		db := strings.Repeat("./", k%40) + "concert_singer/../concert_singer"
		body, _ := json.Marshal(GradeRequest{Items: []GradeItem{{DBID: db, Gold: Gold{"SELECT 1"}, Pred: ptr("SELECT 1")}}})
		if postRaw(srv.url+"/v1/grade", body) == 400 {
			refused++
		}
	}
	b.Logf("2,000 path aliases: %d refused (400); fds %d before, %d after", refused, before, srv.fds())
	b.ReportMetric(float64(srv.fds()), "fds-after-path-aliases")
	symlinkAliases(b, bin, root, req)
}

// symlinkAliases is aliasAttack's second half, on its own server over the
// folder of symlinks.
func symlinkAliases(b *testing.B, bin, root string, req GradeRequest) {
	srv := startServer(b, bin, root)
	before := srv.fds()
	body, _ := json.Marshal(req)
	code := postRaw(srv.url+"/v1/grade", body)
	b.Logf("2,000 symlink aliases of one file graded: HTTP %d; fds %d before, %d after", code, before, srv.fds())
	b.ReportMetric(float64(srv.fds()), "fds-after-symlink-aliases")
}

// idleAttack opens 390 idle connections to a server limited to 400 file
// descriptors, then times a healthy request and counts fds.
func idleAttack(b *testing.B, bin, spider string) {
	srv := startServer(b, bin, spider, "ulimit -n 400")
	var conns []net.Conn
	for range 390 {
		c, err := net.Dial("tcp", strings.TrimPrefix(srv.url, "http://"))
		if err != nil {
			b.Logf("dial: %v", err)
			break
		}
		conns = append(conns, c)
	}
	time.Sleep(time.Second)
	during := srv.fds()
	start := time.Now()
	code := postRaw(srv.url+"/v1/grade", []byte(`{"items": [{"db_id": "concert_singer", "gold": "SELECT 1", "pred": "SELECT 1"}]}`))
	wait := time.Since(start)
	b.Logf("%d idle connections: server fds %d; healthy request HTTP %d after %s", len(conns), during, code, wait.Round(time.Millisecond))
	b.ReportMetric(float64(during), "fds-with-390-idle")
	b.ReportMetric(wait.Seconds(), "healthy-wait-s")
	for _, c := range conns {
		c.Close()
	}
}

// abandonAttack sends 200 never-ending requests whose clients hang up
// after 5 s, then times a healthy request.
func abandonAttack(b *testing.B, bin, spider string) {
	srv := startServer(b, bin, spider)
	body, _ := json.Marshal(GradeRequest{Items: []GradeItem{{DBID: "concert_singer", Gold: Gold{"SELECT 1"}, Pred: ptr(neverEnds)}}})
	var wg sync.WaitGroup
	client := &http.Client{Timeout: 5 * time.Second}
	for range 200 {
		wg.Go(func() {
			if resp, err := client.Post(srv.url+"/v1/grade", "application/json", bytes.NewReader(body)); err == nil {
				resp.Body.Close()
			}
		})
	}
	wg.Wait()
	start := time.Now()
	code := postRaw(srv.url+"/v1/grade", []byte(`{"items": [{"db_id": "concert_singer", "gold": "SELECT count(*) FROM singer", "pred": "SELECT count(*) FROM singer"}]}`))
	wait := time.Since(start)
	b.Logf("after 200 abandoned never-ending requests: healthy request HTTP %d after %s", code, wait.Round(time.Millisecond))
	b.ReportMetric(wait.Seconds(), "healthy-wait-s")
}

// server is a running `sqljudge serve`.
type server struct {
	cmd *exec.Cmd
	url string
}

func buildSQLJudge(b *testing.B) string {
	b.Helper()
	bin := filepath.Join(b.TempDir(), "sqljudge")
	cmd := exec.Command("go", "build", "-o", bin, "./cmd/sqljudge")
	cmd.Dir = "../.."
	if out, err := cmd.CombinedOutput(); err != nil {
		b.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

// startServer starts `bin serve --db db --addr 127.0.0.1:0` (after the
// shell commands of pre, e.g. a ulimit) and stops it when b ends.
func startServer(b *testing.B, bin, db string, pre ...string) *server {
	b.Helper()
	script := strings.Join(append(pre, `exec "$0" serve --db "$1" --addr 127.0.0.1:0`), "; ")
	cmd := exec.Command("sh", "-c", script, bin, db)
	stderr, err := cmd.StderrPipe()
	if err != nil {
		b.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	sc := bufio.NewScanner(stderr)
	srv := &server{cmd: cmd}
	for sc.Scan() {
		if _, after, ok := strings.Cut(sc.Text(), "listening on "); ok {
			srv.url, _, _ = strings.Cut(after, " ")
			break
		}
	}
	go io.Copy(io.Discard, stderr)
	if srv.url == "" {
		b.Fatal("the server did not start")
	}
	b.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	return srv
}

// status returns a field of /proc/PID/status in kB.
func (s *server) status(field string) float64 {
	out, _ := os.ReadFile(fmt.Sprintf("/proc/%d/status", s.cmd.Process.Pid))
	for _, line := range strings.Split(string(out), "\n") {
		if rest, ok := strings.CutPrefix(line, field+":"); ok {
			kb, _ := strconv.ParseFloat(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 64)
			return kb
		}
	}
	return 0
}

func (s *server) fds() int {
	ents, _ := os.ReadDir(fmt.Sprintf("/proc/%d/fd", s.cmd.Process.Pid))
	return len(ents)
}

// report logs and reports the server's peak and current RSS in MiB.
func (s *server) report(b *testing.B) {
	peak, now := s.status("VmHWM")/1024, s.status("VmRSS")/1024
	b.Logf("peak RSS %.0f MiB, RSS now %.0f MiB, fds %d", peak, now, s.fds())
	b.ReportMetric(peak, "peak-RSS-MiB")
}

// streamBody posts a /v1/grade body of about size bytes, generated as it
// is sent (items whose prediction is 1 kB of SQL), and returns the status.
func streamBody(url string, size int) int {
	pr, pw := io.Pipe()
	go func() {
		w := bufio.NewWriter(pw)
		w.WriteString(`{"items": [`)
		item := `{"db_id": "concert_singer", "gold": "SELECT 1", "pred": "SELECT '` + strings.Repeat("x", 1000) + `'"}`
		for n := 0; n < size; n += len(item) + 1 {
			if n > 0 {
				w.WriteByte(',')
			}
			if _, err := w.WriteString(item); err != nil {
				break
			}
		}
		w.WriteString("]}")
		pw.CloseWithError(w.Flush())
	}()
	resp, err := http.Post(url, "application/json", pr)
	pr.Close()
	if err != nil {
		return 0
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	return resp.StatusCode
}

func postRaw(url string, body []byte) int {
	resp, err := http.Post(url, "application/json", bytes.NewReader(body))
	if err != nil {
		return 0
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	return resp.StatusCode
}
