package serve

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"sync"
	"time"
)

// DefaultMaxConnsPerAddr is how many connections one client address may
// have open before they have sent a complete request with the server's
// token (Config.MaxConnsPerAddr, --max-conns-per-addr).
const DefaultMaxConnsPerAddr = 32

// DefaultMinBodyRate is the slowest a request body may arrive, in bytes
// per second, after the first ReadHeaderTimeout (Config.MinBodyRate).
const DefaultMinBodyRate = 64 << 10

// connListener accepts connections as the server's listener, at most max
// open at once (past it Accept waits, as netutil.LimitListener does: more
// wait in the listen queue), and at most perAddr from one address that
// have not been trusted yet (servedConn.trust): a connection past that
// is answered HTTP 429 and closed at once, so that clients of one address
// that trickle header lines or bodies (or never authenticate) hold at
// most perAddr of the server's connections and others still get in.
type connListener struct {
	net.Listener
	slots   chan struct{}
	perAddr int

	mu      sync.Mutex
	pending map[string]int // by address: connections not yet trusted
}

func newConnListener(ln net.Listener, max, perAddr int) *connListener {
	return &connListener{Listener: ln, slots: make(chan struct{}, max), perAddr: perAddr, pending: map[string]int{}}
}

// Accept returns the next connection its address may open.
func (l *connListener) Accept() (net.Conn, error) {
	for {
		l.slots <- struct{}{}
		c, err := l.Listener.Accept()
		if err != nil {
			<-l.slots
			return nil, err
		}
		host := addrHost(c.RemoteAddr())
		if l.take(host) {
			return &servedConn{Conn: c, l: l, host: host}, nil
		}
		l.refuse(c, host)
		<-l.slots
	}
}

// take counts one more pending connection of host, false past the cap.
func (l *connListener) take(host string) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.pending[host] >= l.perAddr {
		return false
	}
	l.pending[host]++
	return true
}

// give forgets one pending connection of host.
func (l *connListener) give(host string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.pending[host]--; l.pending[host] <= 0 {
		delete(l.pending, host)
	}
}

// refuse answers c HTTP 429, saying why, and closes it; the write may
// take a second at most.
func (l *connListener) refuse(c net.Conn, host string) {
	msg := fmt.Sprintf(`{"error":"%d connections from %s have not sent a complete request with the server's token yet (--max-conns-per-addr): retry when they have"}`, l.perAddr, host)
	_ = c.SetWriteDeadline(time.Now().Add(time.Second))
	fmt.Fprintf(c, "HTTP/1.1 429 Too Many Requests\r\nContent-Type: application/json\r\nConnection: close\r\nContent-Length: %d\r\n\r\n%s\n", len(msg)+1, msg)
	c.Close()
}

// addrHost is a's IP address (a itself when it has no port).
func addrHost(a net.Addr) string {
	host, _, err := net.SplitHostPort(a.String())
	if err != nil {
		return a.String()
	}
	return host
}

// servedConn is a connection the listener accepted: pending until
// trusted, holding one of the listener's slots until closed.
type servedConn struct {
	net.Conn
	l       *connListener
	host    string
	trusted sync.Once
	closed  sync.Once
}

// trust stops counting c against its address's cap: it sent a complete
// request with the server's token (any complete request, without one).
func (c *servedConn) trust() { c.trusted.Do(func() { c.l.give(c.host) }) }

// Close closes the connection and gives its slot back.
func (c *servedConn) Close() error {
	err := c.Conn.Close()
	c.closed.Do(func() {
		c.trust()
		<-c.l.slots
	})
	return err
}

type connKey struct{}

// connContext puts the connection in its requests' contexts (trust).
func connContext(ctx context.Context, c net.Conn) context.Context {
	return context.WithValue(ctx, connKey{}, c)
}

// trust marks r's connection trusted (servedConn.trust), when it came
// through the server's listener.
func trust(r *http.Request) {
	if c, ok := r.Context().Value(connKey{}).(*servedConn); ok {
		c.trust()
	}
}

// pacedBody reads a request body that must keep a pace: by grace after
// the reading began plus one second per rate bytes read, capped at end;
// a body that falls behind fails with a timeout (the connection's read
// deadline) and the request is HTTP 408 (see bodyDecoder.fail).
type pacedBody struct {
	r     io.Reader
	rc    *http.ResponseController
	start time.Time
	end   time.Time
	grace time.Duration
	rate  int64
	n     int64
}

func (s *Server) pace(w http.ResponseWriter, body io.Reader) io.Reader {
	now := time.Now()
	return &pacedBody{r: body, rc: http.NewResponseController(w), start: now, end: now.Add(s.cfg.ReadTimeout),
		grace: s.cfg.ReadHeaderTimeout, rate: s.cfg.MinBodyRate}
}

func (p *pacedBody) Read(b []byte) (int, error) {
	dl := p.start.Add(p.grace + time.Duration(float64(p.n)/float64(p.rate)*float64(time.Second)))
	if dl.After(p.end) {
		dl = p.end
	}
	// ErrNotSupported (a handler called without a connection, in
	// tests): no deadline.
	_ = p.rc.SetReadDeadline(dl)
	n, err := p.r.Read(b)
	p.n += int64(n)
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		err = &slowBodyError{n: p.n, rate: p.rate, grace: p.grace}
	}
	return n, err
}

// slowBodyError is the error of a body that fell behind its pace.
type slowBodyError struct {
	n     int64
	rate  int64
	grace time.Duration
}

func (e *slowBodyError) Error() string {
	return fmt.Sprintf("the body came slower than %d bytes a second after %s (%d bytes read): send it faster", e.rate, e.grace, e.n)
}
