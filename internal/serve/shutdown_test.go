package serve

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"
)

// startCut starts a server whose queries run up to an hour, sends it a
// request holding a quick item and a never-ending one, and waits until the
// never-ending query runs. It returns the request's results channel, the
// function that ends Serve's context, and Serve's error channel.
func startCut(t *testing.T, sd Shutdown) (<-chan []GradeResult, func(), <-chan error) {
	t.Helper()
	eng := newCountingEngine(t)
	eng.started = make(chan string, 16)
	s := New(Config{Engine: eng, Timeout: time.Hour, Workers: 2})
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, stop := context.WithCancel(context.Background())
	t.Cleanup(stop)
	served := make(chan error, 1)
	go func() { served <- s.Serve(ctx, ln, sd) }()
	got := make(chan []GradeResult, 1)
	body, _ := json.Marshal(GradeRequest{Items: []GradeItem{
		{DBID: "concert_singer", Gold: Gold{"SELECT 1"}, Pred: ptr("SELECT 1")},
		{DBID: "concert_singer", Gold: Gold{"SELECT 2"}, Pred: ptr(neverEnds)},
	}})
	go func() {
		// No t.Fatal here: after an abort the connection is closed
		// (nil results).
		var resp GradeResponse
		r, err := http.Post("http://"+ln.Addr().String()+"/v1/grade", "application/json", bytes.NewReader(body))
		if err == nil {
			json.NewDecoder(r.Body).Decode(&resp)
			r.Body.Close()
		}
		got <- resp.Results
	}()
	for sql := range eng.started {
		if sql == neverEnds {
			break
		}
	}
	return got, stop, served
}

// TestDrainCutAnswersInFlight: a request still running when --drain runs
// out is answered, its unfinished item an error naming the drain, its
// finished item graded; Serve reports the cut (the CLI exits 3).
func TestDrainCutAnswersInFlight(t *testing.T) {
	got, stop, served := startCut(t, Shutdown{Drain: 100 * time.Millisecond})
	stop()
	select {
	case res := <-got:
		if len(res) != 2 || res[0].Verdict != Correct || res[1].Verdict != Error || !strings.Contains(res[1].Error, "--drain") {
			t.Errorf("results %+v; want the first correct, the second an error naming --drain", res)
		}
	case <-time.After(hangGuard):
		t.Fatal("the request in flight was never answered")
	}
	if err := <-served; !errors.Is(err, ErrDrainCut) {
		t.Errorf("Serve: %v, want ErrDrainCut", err)
	}
}

// TestAbortStopsAtOnce: with an hour of drain, closing Abort (a second
// signal) ends Serve without waiting.
func TestAbortStopsAtOnce(t *testing.T) {
	abort := make(chan struct{})
	_, stop, served := startCut(t, Shutdown{Drain: time.Hour, Abort: abort})
	stop()
	close(abort)
	select {
	case err := <-served:
		if !errors.Is(err, ErrDrainCut) {
			t.Errorf("Serve: %v, want ErrDrainCut", err)
		}
	case <-time.After(hangGuard):
		t.Fatal("Serve still drains after the abort")
	}
}
