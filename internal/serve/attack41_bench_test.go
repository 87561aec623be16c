package serve

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/sqljudge/sqljudge/internal/shareddata"
)

// BenchmarkServeAttacks41 runs the attacks of issue 41 ("serve under
// load") against a real `sqljudge serve` on 127.0.0.1 at default flags,
// a fresh server per attack, and reports the wait of a healthy request
// (sent from 127.0.0.2, another client) and the server's peak RSS. It
// builds the binary from the checkout, or runs the one
// SQLJUDGE_BENCH_BIN names (another commit's, for a comparison); run it
// once:
//
//	go test ./internal/serve -run '^$' -bench ServeAttacks41 -benchtime 1x -timeout 2h
func BenchmarkServeAttacks41(b *testing.B) {
	bin := os.Getenv("SQLJUDGE_BENCH_BIN")
	if bin == "" {
		bin = buildSQLJudge(b)
	}
	spider := shareddata.Path(b, "spider", "database")
	for _, n := range []int{8, 50} {
		b.Run(fmt.Sprintf("slowEX%d", n), func(b *testing.B) { slowEXAttack(b, bin, spider, n) })
	}
	b.Run("slowEquiv50", func(b *testing.B) { equivFloodAttack(b, bin, spider) })
	b.Run("equivInList300k", func(b *testing.B) { inListAttack(b, bin, spider) })
	b.Run("trickleBodies300", func(b *testing.B) { trickleAttack(b, bin, spider, false) })
	b.Run("trickleHeaders300", func(b *testing.B) { trickleAttack(b, bin, spider, true) })
	b.Run("results10x99k", func(b *testing.B) { resultsAttack(b, bin, spider) })
	b.Run("bodies12x62MB", func(b *testing.B) { bodiesAttack(b, bin, spider) })
}

// healthyBody is a request of one fast ex item.
const healthyBody = `{"items": [{"db_id": "concert_singer", "gold": "SELECT count(*) FROM singer", "pred": "SELECT count(*) FROM singer"}]}`

// healthyWait sends healthyBody from 127.0.0.2 (with token, if any) and
// reports how long its answer took ("no answer" past limit), as
// healthy-wait-s.
func healthyWait(b *testing.B, url, token string, limit time.Duration, what string) {
	client := &http.Client{Timeout: limit, Transport: &http.Transport{DialContext: (&net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP("127.0.0.2")}}).DialContext}}
	req, _ := http.NewRequest("POST", url+"/v1/grade", strings.NewReader(healthyBody))
	req.Header.Set("Content-Type", "application/json")
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	start := time.Now()
	resp, err := client.Do(req)
	wait := time.Since(start)
	if err != nil {
		b.Logf("%s: no answer to a healthy request within %s (%v)", what, limit, err)
		b.ReportMetric(wait.Seconds(), "healthy-wait-s")
		return
	}
	out, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	b.Logf("%s: healthy request HTTP %d after %s: %.120s", what, resp.StatusCode, wait.Round(time.Millisecond), out)
	b.ReportMetric(wait.Seconds(), "healthy-wait-s")
}

// slowEXAttack sends n requests of 4 ex items whose predictions never end
// (each stopped by --timeout, 30 s), then times a healthy request.
func slowEXAttack(b *testing.B, bin, spider string, n int) {
	srv := startServer(b, bin, spider)
	ctx, stop := context.WithCancel(context.Background())
	defer stop()
	for r := range n {
		var req GradeRequest
		for k := range 4 {
			req.Items = append(req.Items, GradeItem{DBID: "concert_singer", Gold: Gold{"SELECT 1"}, Pred: ptr(slowSQL(4*r + k))})
		}
		body, _ := json.Marshal(req)
		go func() {
			hreq, _ := http.NewRequestWithContext(ctx, "POST", srv.url+"/v1/grade", bytes.NewReader(body))
			hreq.Header.Set("Content-Type", "application/json")
			if resp, err := http.DefaultClient.Do(hreq); err == nil {
				io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
			}
		}()
	}
	time.Sleep(3 * time.Second) // the slow requests hold the workers
	healthyWait(b, srv.url, "", 250*time.Second, fmt.Sprintf("behind %d requests of slow ex items", n))
	srv.report(b)
}

// inListAttack grades one equiv item whose prediction holds an IN list
// of 300,000 values, and reports how long it took and the peak RSS.
func inListAttack(b *testing.B, bin, spider string) {
	srv := startServer(b, bin, spider)
	pred := inList(300_000)
	out, _, took := gradeOver(b, srv.url, GradeRequest{Items: []GradeItem{{DBID: "concert_singer", Metric: "equiv", Gold: Gold{"SELECT name FROM singer WHERE age > 40"}, Pred: &pred}}})
	if len(out.Results) == 1 {
		r := out.Results[0]
		b.Logf("an equiv item with a 300,000-value IN list: %s after %s (%.200s)", r.Verdict, took.Round(time.Millisecond), r.Error)
	}
	b.ReportMetric(took.Seconds(), "item-s")
	srv.report(b)
}

// trickleAttack opens 300 connections from 127.0.0.1 that trickle a
// request's body (a byte a second of a declared megabyte), or, with
// headers, its header lines to a server with a token (a line a second,
// never the token), then times a healthy request from 127.0.0.2.
func trickleAttack(b *testing.B, bin, spider string, headers bool) {
	var pre []string
	token := ""
	if headers {
		token = "sekrit-41"
		pre = append(pre, "export SQLJUDGE_SERVE_TOKEN="+token)
	}
	srv := startServer(b, bin, spider, pre...)
	addr := strings.TrimPrefix(srv.url, "http://")
	var mu sync.Mutex
	var conns []net.Conn
	stop := make(chan struct{})
	defer close(stop)
	for range 300 {
		go func() {
			c, err := net.Dial("tcp", addr)
			if err != nil {
				return
			}
			mu.Lock()
			conns = append(conns, c)
			mu.Unlock()
			if headers {
				io.WriteString(c, "POST /v1/grade HTTP/1.1\r\nHost: x\r\n")
			} else {
				io.WriteString(c, "POST /v1/grade HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 1000000\r\n\r\n{\"items\": [")
			}
			for {
				select {
				case <-stop:
					c.Close()
					return
				case <-time.After(time.Second):
				}
				line := " "
				if headers {
					line = "X-Pad: 1\r\n"
				}
				if _, err := io.WriteString(c, line); err != nil {
					return
				}
			}
		}()
	}
	time.Sleep(3 * time.Second)
	what := "300 connections trickling bodies"
	if headers {
		what = "300 unauthenticated connections trickling header lines"
	}
	healthyWait(b, srv.url, token, 250*time.Second, what)
	srv.report(b)
}

// resultsAttack grades 10 ex items whose gold and prediction each return
// 99,000 rows of 2.5 kB (about 250 MB, within the caps), and reports the
// verdicts and the peak RSS, and the RSS after.
func resultsAttack(b *testing.B, bin, spider string) {
	srv := startServer(b, bin, spider)
	var req GradeRequest
	for k := range 10 {
		q := wide(99_000, k)
		req.Items = append(req.Items, GradeItem{DBID: "concert_singer", Gold: Gold{q}, Pred: ptr(strings.Replace(q, "FROM c", "FROM c AS d", 1))})
	}
	out, code, took := gradeOver(b, srv.url, req)
	verdicts := map[Verdict]int{}
	for _, r := range out.Results {
		verdicts[r.Verdict]++
	}
	b.Logf("10 items of 2 x 99,000 rows of 2.5 kB: HTTP %d after %s, verdicts %v", code, took.Round(time.Millisecond), verdicts)
	time.Sleep(2 * time.Second)
	srv.report(b)
}

// gradeOver posts req to the server at url and returns its response,
// status and time.
func gradeOver(b *testing.B, url string, req GradeRequest) (GradeResponse, int, time.Duration) {
	body, _ := json.Marshal(req)
	start := time.Now()
	resp, err := http.Post(url+"/v1/grade", "application/json", bytes.NewReader(body))
	if err != nil {
		b.Fatal(err)
	}
	var out GradeResponse
	json.NewDecoder(resp.Body).Decode(&out)
	resp.Body.Close()
	return out, resp.StatusCode, time.Since(start)
}

// bodiesAttack posts 12 bodies of 62 MB at once (10,000 items whose
// predictions hold 6,200 bytes each: within --max-body and --max-batch)
// and reports their statuses and the peak RSS.
func bodiesAttack(b *testing.B, bin, spider string) {
	srv := startServer(b, bin, spider)
	var wg sync.WaitGroup
	var mu sync.Mutex
	codes := map[int]int{}
	var buf bytes.Buffer
	buf.WriteString(`{"items": [`)
	pad := strings.Repeat("x", 6200)
	for k := range 10_000 {
		if k > 0 {
			buf.WriteByte(',')
		}
		fmt.Fprintf(&buf, `{"db_id": "concert_singer", "gold": "SELECT 1", "pred": "SELECT '%d%s' IS NOT NULL"}`, k, pad)
	}
	buf.WriteString("]}")
	body := buf.Bytes()
	b.Logf("a body of %d bytes", len(body))
	for range 12 {
		wg.Go(func() {
			code := postRaw(srv.url+"/v1/grade", body)
			mu.Lock()
			codes[code]++
			mu.Unlock()
		})
	}
	wg.Wait()
	b.Logf("12 bodies of 62 MB at once: HTTP statuses %v", codes)
	srv.report(b)
}
