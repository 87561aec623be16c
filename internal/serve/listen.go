package serve

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"time"
)

// Defaults of the connection bounds (Config).
const (
	// DefaultReadHeaderTimeout: a connection has 10 s to send a request's
	// header.
	DefaultReadHeaderTimeout = 10 * time.Second
	// DefaultReadTimeout: and 2 minutes for the whole request, body
	// included (64 MiB at 0.5 MB/s).
	DefaultReadTimeout = 2 * time.Minute
	// DefaultIdleTimeout: a keep-alive connection idle for a minute is
	// closed.
	DefaultIdleTimeout = time.Minute
	// DefaultMaxConns: at most 256 connections are open at once, so idle
	// or slow clients cannot take every file descriptor.
	DefaultMaxConns = 256
)

// writeTimeout bounds the writing of one response.
const writeTimeout = time.Minute

// httpServer returns the http.Server of Serve, with the connection
// timeouts of the configuration.
func (s *Server) httpServer() *http.Server {
	return &http.Server{
		Handler:           s.Handler(),
		ReadHeaderTimeout: s.cfg.ReadHeaderTimeout,
		ReadTimeout:       s.cfg.ReadTimeout,
		IdleTimeout:       s.cfg.IdleTimeout,
		MaxHeaderBytes:    64 << 10,
		ConnContext:       connContext,
	}
}

// Shutdown says how Serve stops once its context ends.
type Shutdown struct {
	// Drain is how long requests in flight may take to finish (--drain).
	Drain time.Duration
	// Abort, once closed, ends the drain at once (the CLI closes it on a
	// second SIGTERM or SIGINT); nil means never.
	Abort <-chan struct{}
}

// ErrDrainCut is Serve's error when requests were still running at the
// end of the drain (or when Abort closed): their unfinished items were
// answered as errors saying so (connections still open after a short
// grace, or at once on Abort, were closed).
var ErrDrainCut = errors.New("serve: stopped with requests in flight (their unfinished items were answered as errors)")

// cutGrace is how long the requests cut by the end of the drain have to
// write their answers before their connections are closed.
const cutGrace = 5 * time.Second

// Serve answers HTTP on ln until ctx ends (the CLI ends it on SIGTERM or
// SIGINT), accepting at most MaxConns connections at once and at most
// MaxConnsPerAddr from one address before they are trusted
// (connListener), then stops
// accepting connections and lets in-flight requests finish for at most
// sd.Drain. Requests still running then are cancelled: each is answered
// with its unfinished items as errors naming the drain (within cutGrace;
// at once on sd.Abort, connections are closed without waiting). It returns
// nil after a clean shutdown, ErrDrainCut after a cut one, or the
// listener's error.
func (s *Server) Serve(ctx context.Context, ln net.Listener, sd Shutdown) error {
	defer s.Close()
	hs := s.httpServer()
	errc := make(chan error, 1)
	go func() { errc <- hs.Serve(newConnListener(ln, s.cfg.MaxConns, s.cfg.MaxConnsPerAddr)) }()
	select {
	case err := <-errc:
		s.Close()
		return err
	case <-ctx.Done():
	}
	shut, cutShutdown := context.WithCancel(context.Background())
	defer cutShutdown()
	done := make(chan error, 1)
	go func() { done <- hs.Shutdown(shut) }()
	drain := time.NewTimer(sd.Drain)
	defer drain.Stop()
	select {
	case <-done:
		<-errc
		s.Close()
		return nil
	case <-drain.C:
		s.stopGrading(fmt.Sprintf("not graded: the server stopped (--drain %s ran out)", sd.Drain))
	case <-sd.Abort:
		s.stopGrading("not graded: the server was stopped at once (second signal)")
		hs.Close()
	}
	s.logf("stopping with requests in flight; their unfinished items are answered as errors")
	grace := time.NewTimer(cutGrace)
	defer grace.Stop()
	select {
	case <-done:
	case <-grace.C:
	case <-sd.Abort:
	}
	cutShutdown()
	hs.Close()
	<-errc
	return ErrDrainCut
}

// Exposure returns a warning when addr (the listener's) can be reached
// from other hosts, i.e. is not a loopback address, and token is empty:
// anyone who can connect may then grade. It returns "" otherwise.
func Exposure(addr net.Addr, token string) string {
	if token != "" {
		return ""
	}
	if ta, ok := addr.(*net.TCPAddr); ok && ta.IP.IsLoopback() {
		return ""
	}
	return fmt.Sprintf("warning: listening on %s, reachable from other hosts, without a token: anyone who can connect can grade; "+
		"listen on 127.0.0.1, or set SQLJUDGE_SERVE_TOKEN (or --token)", addr)
}
