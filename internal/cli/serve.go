package cli

import (
	"context"
	"fmt"
	"net"
	"os"
	"os/signal"
	"runtime"
	"runtime/debug"
	"strings"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/sqljudge/sqljudge/internal/engine"
	"github.com/sqljudge/sqljudge/internal/engine/open"
	"github.com/sqljudge/sqljudge/internal/metric"
	"github.com/sqljudge/sqljudge/internal/schema"
	"github.com/sqljudge/sqljudge/internal/serve"
	"github.com/sqljudge/sqljudge/internal/usage"
)

type serveFlags struct {
	db, addr, tables, labels, metric string
	maxBody, goldCache, token        string
	maxResponse, maxMemory           string
	minBodyRate                      string
	workers, maxRows, maxBatch       int
	maxConns, lengthyWorkers         int
	maxConnsPerAddr                  int
	timeout, drain, maxItemTime      time.Duration
	listPresets                      bool
	settings                         metric.Options
}

func newServeCmd() *cobra.Command {
	f := &serveFlags{}
	cmd := &cobra.Command{
		Use:   "serve --db DIR [--addr HOST:PORT]",
		Short: "Grade predicted SQL over HTTP: a reward server for RL training",
		Long: `serve answers HTTP requests that grade predicted SQL (or a model's
completion) against gold SQL, with the same read-only engines and metrics as
eval, and turns each verdict into a reward with a preset. Gold results are
cached across requests (by db_id and gold SQL); at most --workers items run
at once, shared by time fairly between requests (a query gives its worker
up every 20 ms to a waiting request), and items of equiv and verdict hold at
most --lengthy-workers of them; each query runs under --timeout, each item
under --max-item-time, both counting the time it holds a worker. What
requests hold in memory is bounded by --max-memory.

  GET  /healthz       {"ok": true}
  POST /v1/grade      {"preset": "arctic", "items": [{"id": "x", "db_id": "concert_singer",
                       "pred": "SELECT ...", "gold": "SELECT ...", "metric": "ex"}]}
                      -> {"results": [{"id": "x", "verdict": "correct", "correct": true,
                          "reward": 1.0, "sql": "...", "error": ""}], "elapsed_ms": 12}
  POST /v1/openrlhf   OpenRLHF's remote reward protocol ({"query", "prompts", "labels"}
                      -> {"rewards", "scores", "extra_logs"}); ?preset=NAME (default binary)

"completion" may replace "pred": the SQL is then the last ` + "```sql" + ` block, else the
last <answer> or <solution> element, else the whole text. Verdicts: correct,
wrong, invalid (no SQL, or it fails), timeout, error (not the prediction's
fault: unknown db_id, failing gold).

A db_id must be a database name whose file lies inside --db (symlinks
resolved); with --token (or SQLJUDGE_SERVE_TOKEN) every endpoint but /healthz
wants "Authorization: Bearer TOKEN"; bodies must be application/json, at most
--max-body and --max-batch items. docs/serve.md says how to run it beside a
trainer.

On SIGTERM (or Ctrl-C) serve stops accepting connections, lets requests in
flight finish for at most --drain, and exits 0. Requests still running then
are answered with their unfinished items as errors, and serve exits 3; a
second signal stops it at once (exit 3).`,
		Example: `  sqljudge serve --db database/ --addr 127.0.0.1:8080
  sqljudge serve --list-presets`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return runServe(cmd, f) },
	}
	fl := cmd.Flags()
	fl.StringVar(&f.db, "db", "", open.DBHelp)
	fl.StringVar(&f.addr, "addr", "127.0.0.1:8080", "address to listen on, HOST:PORT (port 0 picks a free one)")
	fl.IntVar(&f.workers, "workers", runtime.NumCPU(), "items graded at once, across all requests")
	fl.IntVar(&f.lengthyWorkers, "lengthy-workers", 0, "workers that items of equiv and verdict (a search of seconds each) may hold at once, so that the other metrics keep the rest (default --workers minus 1, at least 1)")
	fl.DurationVar(&f.timeout, "timeout", 30*time.Second, "time limit of each query")
	fl.DurationVar(&f.maxItemTime, "max-item-time", 0, "time limit of all the work of one item, every gold alternative included (default 2x --timeout)")
	fl.StringVar(&f.maxBody, "max-body", "64MiB", "largest request body, a `SIZE` such as 64MiB; a larger one is HTTP 413")
	fl.StringVar(&f.maxResponse, "max-response", "64MiB", "most bytes of verdict details (witnesses) in one response, a `SIZE`; each item gets an equal share, and what is over it is left out and named in its \"cut\"")
	fl.IntVar(&f.maxBatch, "max-batch", serve.DefaultMaxBatch, "most items (or OpenRLHF queries) in one request; more is HTTP 413")
	fl.IntVar(&f.maxConns, "max-conns", serve.DefaultMaxConns, "most connections open at once; more wait to be accepted (idle ones close after a minute)")
	fl.IntVar(&f.maxConnsPerAddr, "max-conns-per-addr", serve.DefaultMaxConnsPerAddr, "most connections of one client address that have not yet sent a complete request with the token; more are answered HTTP 429 at once")
	fl.StringVar(&f.minBodyRate, "min-body-rate", "64KiB", "slowest pace of a request body, a `SIZE` a second, after the first 10 s: a slower body is HTTP 408")
	fl.StringVar(&f.goldCache, "gold-cache", "256MiB", "memory the cached gold results may hold, a `SIZE`; least recently used go first")
	fl.StringVar(&f.maxMemory, "max-memory", "640MiB", "the process's memory budget, a `SIZE`: query results, cached gold results, request bodies in flight and equiv's work on an item's text are charged to it; an item may take 7/8 of it (more is too_large), a request that finds no room for its body waits, then is HTTP 429")
	fl.DurationVar(&f.drain, "drain", 30*time.Second, "on SIGTERM, how long requests in flight may take to finish")
	fl.IntVar(&f.maxRows, "max-rows", engine.DefaultMaxRows, "row cap of a query result; more rows is a wrong prediction")
	fl.StringVar(&f.tables, "tables", "", "Spider tables.json (needed by the em metric)")
	// The metrics' settings serve offers (metric.Setting.Serve); the
	// others keep their zero value (ves and rves are refused).
	registerSettings(fl, &f.settings, true)
	fl.StringVar(&f.metric, "metric", "ex", "metric of items whose request and preset name none")
	fl.StringVar(&f.token, "token", "", "bearer token every request but /healthz must send (Authorization: Bearer TOKEN); default $SQLJUDGE_SERVE_TOKEN, which keeps it out of ps")
	fl.StringVar(&f.labels, "labels", "", `JSONL {"prompt", "db_id", "gold"}: labels of /v1/openrlhf samples sent without one`)
	fl.BoolVar(&f.listPresets, "list-presets", false, "print each reward preset's formula and source, and exit")
	return cmd
}

func runServe(cmd *cobra.Command, f *serveFlags) error {
	stdout, stderr := cmd.OutOrStdout(), cmd.ErrOrStderr()
	if f.listPresets {
		for _, p := range serve.Presets() {
			m := "--metric (ex), unless the item or request names one"
			if p.Metric != "" {
				m = p.Metric + ", unless the item or request names one"
			}
			fmt.Fprintf(stdout, "%s\n  reward: %s\n  metric: %s\n  source: %s\n\n", p.Name, p.Formula, m, p.Source)
		}
		return nil
	}
	switch {
	case f.db == "":
		return usage.Errorf("--db is required: the benchmark's databases")
	case f.workers <= 0:
		return usage.Errorf("--workers must be at least 1")
	case f.lengthyWorkers < 0 || f.lengthyWorkers > f.workers:
		return usage.Errorf("--lengthy-workers must be between 1 and --workers (%d), or 0 for --workers minus 1", f.workers)
	case f.timeout <= 0:
		return usage.Errorf("--timeout must be positive")
	case f.drain < 0:
		return usage.Errorf("--drain must not be negative")
	case f.maxRows <= 0:
		return usage.Errorf("--max-rows must be at least 1")
	case f.maxItemTime < 0:
		return usage.Errorf("--max-item-time must not be negative")
	case f.maxBatch <= 0:
		return usage.Errorf("--max-batch must be at least 1")
	case f.maxConns <= 0:
		return usage.Errorf("--max-conns must be at least 1")
	case f.maxConnsPerAddr <= 0:
		return usage.Errorf("--max-conns-per-addr must be at least 1")
	}
	maxBody, err := parseBytes(f.maxBody)
	if err != nil {
		return usage.Errorf("--max-body %q: %v", f.maxBody, err)
	}
	goldCache, err := parseBytes(f.goldCache)
	if err != nil {
		return usage.Errorf("--gold-cache %q: %v", f.goldCache, err)
	}
	maxResponse, err := parseBytes(f.maxResponse)
	if err != nil {
		return usage.Errorf("--max-response %q: %v", f.maxResponse, err)
	}
	maxMemory, err := parseBytes(f.maxMemory)
	if err != nil {
		return usage.Errorf("--max-memory %q: %v", f.maxMemory, err)
	}
	minBodyRate, err := parseBytes(f.minBodyRate)
	if err != nil {
		return usage.Errorf("--min-body-rate %q: %v", f.minBodyRate, err)
	}
	opts := f.settings
	if f.tables != "" {
		s, err := schema.Load(f.tables)
		if err != nil {
			return usage.Error{Err: err}
		}
		opts.EM.Schemas = s
	}
	if _, err := metric.New([]string{f.metric}, opts); err != nil {
		return usage.Errorf("--metric: %v", err)
	}
	var labels map[string]serve.Label
	if f.labels != "" {
		if labels, err = serve.ReadLabels(f.labels); err != nil {
			return usage.Error{Err: err}
		}
	}
	eng, err := open.Open(f.db, open.Options{MaxRows: f.maxRows, MaxConns: f.workers})
	if err != nil {
		return usage.Error{Err: err}
	}
	defer eng.Close()
	ln, err := net.Listen("tcp", f.addr)
	if err != nil {
		return usage.Errorf("--addr: %v", err)
	}
	token := f.token
	if token == "" {
		token = strings.TrimSpace(os.Getenv("SQLJUDGE_SERVE_TOKEN"))
	}
	s := serve.New(serve.Config{
		Engine: eng, Timeout: f.timeout, MaxItemTime: f.maxItemTime, Workers: f.workers, LengthyWorkers: f.lengthyWorkers, Metric: f.metric,
		MetricOptions: opts, Labels: labels, Log: stderr, MaxBody: maxBody, MaxBatch: f.maxBatch, GoldCache: goldCache, MaxResponse: maxResponse,
		MaxConns: f.maxConns, MaxConnsPerAddr: f.maxConnsPerAddr, MinBodyRate: minBodyRate, Token: token, MaxMemory: maxMemory,
	})
	fmt.Fprintf(stderr, "sqljudge serve: listening on http://%s (%s, %d workers)\n", ln.Addr(), eng.Dialect(), f.workers)
	if w := serve.Exposure(ln.Addr(), token); w != "" {
		fmt.Fprintln(stderr, "sqljudge serve:", w)
	}
	if os.Getenv("GOMEMLIMIT") == "" {
		// Collect garbage harder as the heap nears the budget, so that
		// what the budget counts and the garbage it leaves stay under
		// 1 GiB together at the defaults (768 MiB for 640 MiB).
		debug.SetMemoryLimit(maxMemory + maxMemory/5)
	}
	abort, stopSignals := secondSignal(cmd.Context())
	defer stopSignals()
	if err := s.Serve(cmd.Context(), ln, serve.Shutdown{Drain: f.drain, Abort: abort}); err != nil {
		return err
	}
	fmt.Fprintln(stderr, "sqljudge serve: stopped")
	return nil
}

// secondSignal returns a channel closed when SIGTERM or SIGINT arrives
// after ctx has ended (ctx ends on the first, see Main): serve then stops
// without waiting for the drain. stop releases the signals.
func secondSignal(ctx context.Context) (abort <-chan struct{}, stop func()) {
	ch := make(chan struct{})
	sigs := make(chan os.Signal, 2)
	quit := make(chan struct{})
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	go func() {
		select {
		case <-ctx.Done():
		case <-quit:
			return
		}
		for n := 0; n < 2; n++ {
			select {
			case <-sigs: // the first is the one that ended ctx
			case <-quit:
				return
			}
		}
		close(ch)
	}()
	return ch, func() { signal.Stop(sigs); close(quit) }
}
