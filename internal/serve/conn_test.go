package serve

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"
)

// startServe runs s.Serve on a loopback listener until the test ends and
// returns its address.
func startServe(t *testing.T, s *Server) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, stop := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- s.Serve(ctx, ln, Shutdown{Drain: time.Second}) }()
	t.Cleanup(func() { stop(); <-done })
	return ln.Addr().String()
}

// TestSlowAndIdleConnectionsClosed: a connection that never finishes its
// header, one that never finishes its body, and a keep-alive connection
// left idle after a request are each closed by the server (their file
// descriptors freed), here with short timeouts.
func TestSlowAndIdleConnectionsClosed(t *testing.T) {
	eng := newCountingEngine(t)
	s := New(Config{Engine: eng, ReadHeaderTimeout: 200 * time.Millisecond, ReadTimeout: 400 * time.Millisecond, IdleTimeout: 200 * time.Millisecond})
	addr := startServe(t, s)
	for name, send := range map[string]string{
		"slow header": "POST /v1/grade HTTP/1.1\r\nHost: x\r\n",
		"slow body":   "POST /v1/grade HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{\"items\": [",
		"idle":        "GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n",
	} {
		c, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := io.WriteString(c, send); err != nil {
			t.Fatal(err)
		}
		// Read until the server closes the connection; the deadline only
		// stops a hung test.
		c.SetReadDeadline(time.Now().Add(hangGuard))
		_, err = io.Copy(io.Discard, c)
		if ne, ok := err.(net.Error); ok && ne.Timeout() {
			t.Errorf("%s: the server kept the connection open %s", name, hangGuard)
		}
		c.Close()
	}
}

// dialFrom dials addr from the loopback address local (127.0.0.2: another
// client than the tests' 127.0.0.1).
func dialFrom(t *testing.T, local, addr string) net.Conn {
	t.Helper()
	d := net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(local)}}
	c, err := d.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// TestPendingConnectionsCappedPerAddress (issue 41): ten clients of one
// address that trickle a request's header (a 1-minute header timeout)
// hold at most --max-conns-per-addr (4) of the server's 8 connections:
// the other six are answered 429 at once, and a client of another
// address is answered while the four still trickle. Before, they took
// every connection: unauthenticated clients trickling header lines kept
// a healthy request waiting 24 s (300 connections; 115 s trickling
// bodies).
func TestPendingConnectionsCappedPerAddress(t *testing.T) {
	eng := newCountingEngine(t)
	s := New(Config{Engine: eng, MaxConns: 8, MaxConnsPerAddr: 4, ReadHeaderTimeout: time.Minute, ReadTimeout: time.Minute})
	addr := startServe(t, s)
	var held []net.Conn
	refused := 0
	for range 10 {
		c := dialFrom(t, "127.0.0.1", addr)
		defer c.Close()
		if _, err := io.WriteString(c, "POST /v1/grade HTTP/1.1\r\nHost: x\r\n"); err != nil {
			t.Fatal(err)
		}
		c.SetReadDeadline(time.Now().Add(200 * time.Millisecond))
		b, err := io.ReadAll(c)
		switch {
		case strings.HasPrefix(string(b), "HTTP/1.1 429") && strings.Contains(string(b), "--max-conns-per-addr"):
			refused++
		case isTimeout(err):
			held = append(held, c) // still open: the server waits for its header
		default:
			t.Fatalf("a trickling client: %q, %v", b, err)
		}
	}
	if len(held) != 4 || refused != 6 {
		t.Fatalf("%d connections held, %d refused; want 4 and 6", len(held), refused)
	}
	c := dialFrom(t, "127.0.0.2", addr)
	defer c.Close()
	body := `{"items": [{"db_id": "concert_singer", "gold": "SELECT 1", "pred": "SELECT 1"}]}`
	fmt.Fprintf(c, "POST /v1/grade HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n%s", len(body), body)
	c.SetReadDeadline(time.Now().Add(hangGuard))
	resp, err := http.ReadResponse(bufio.NewReader(c), nil)
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("a client of another address: %v %v", resp, err)
	}
	for _, h := range held {
		h.SetReadDeadline(time.Now().Add(time.Millisecond))
		if _, err := h.Read(make([]byte, 1)); !isTimeout(err) {
			t.Errorf("a trickling client was closed before the other was answered: %v", err)
		}
	}
}

func isTimeout(err error) bool {
	var ne net.Error
	return errors.As(err, &ne) && ne.Timeout()
}

// TestSlowBodyCut (issue 41): a body that arrives slower than
// --min-body-rate after its grace (the header timeout, 200 ms here) is
// HTTP 408 before its client has sent it all (200 bytes at one byte
// every 20 ms: 4 s). Before, only the request's 2-minute read timeout
// bounded it: 300 clients trickling bodies held every connection 115 s.
func TestSlowBodyCut(t *testing.T) {
	eng := newCountingEngine(t)
	s := New(Config{Engine: eng, ReadHeaderTimeout: 200 * time.Millisecond, ReadTimeout: time.Minute, MinBodyRate: 1 << 20})
	addr := startServe(t, s)
	c := dialFrom(t, "127.0.0.1", addr)
	defer c.Close()
	fmt.Fprintf(c, "POST /v1/grade HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 200\r\n\r\n")
	answered := make(chan *http.Response, 1)
	go func() {
		c.SetReadDeadline(time.Now().Add(hangGuard))
		resp, _ := http.ReadResponse(bufio.NewReader(c), nil)
		answered <- resp
	}()
	for i := range 200 {
		select {
		case resp := <-answered:
			if resp == nil || resp.StatusCode != http.StatusRequestTimeout {
				t.Fatalf("after %d bytes: %v; want 408", i, resp)
			}
			return
		case <-time.After(20 * time.Millisecond):
		}
		if _, err := c.Write([]byte{' '}); err != nil {
			break // closed by the server
		}
	}
	if resp := <-answered; resp == nil || resp.StatusCode != http.StatusRequestTimeout {
		t.Fatalf("the whole body was sent at one byte every 20 ms: %v; want 408 before its end", resp)
	}
}
