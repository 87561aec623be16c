package serve

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"time"

	"golang.org/x/net/netutil"
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
	}
}

// Serve answers HTTP on ln until ctx ends (the CLI ends it on SIGTERM or
// SIGINT), accepting at most MaxConns connections at once, then stops
// accepting connections and lets in-flight requests finish for at most
// drain; requests still running then are cancelled (their items end as
// errors) and their connections closed. It returns nil after a shutdown,
// or the listener's error.
func (s *Server) Serve(ctx context.Context, ln net.Listener, drain time.Duration) error {
	hs := s.httpServer()
	errc := make(chan error, 1)
	go func() { errc <- hs.Serve(netutil.LimitListener(ln, s.cfg.MaxConns)) }()
	select {
	case err := <-errc:
		s.Close()
		return err
	case <-ctx.Done():
	}
	sctx, cancel := context.WithTimeout(context.Background(), drain)
	defer cancel()
	if err := hs.Shutdown(sctx); err != nil {
		s.logf("drain: %v after %s; cancelling the requests still running", err, drain)
		s.Close()
		hs.Close()
	}
	<-errc
	s.Close()
	return nil
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
