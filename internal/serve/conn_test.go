package serve

import (
	"context"
	"io"
	"net"
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
