// Package serve is sqljudge's grading service for RL training: an HTTP
// server that grades batches of predicted SQL (or model completions) with
// the same read-only engines and metrics as `sqljudge eval`, caches gold
// results across requests (an LRU bounded in bytes), and turns verdicts
// into rewards with presets (arctic, skyrl-sql, sql-r1, binary). What
// arrives over the network is treated as hostile: db_ids stay inside
// --db, bodies, batches, connections and the work of an item are bounded,
// and a token can be required (see docs/serve.md).
//
// Endpoints: GET /healthz; POST /v1/grade (sqljudge's own batch API);
// POST /v1/openrlhf (OpenRLHF's remote reward model protocol,
// openrlhf/utils/agent.py _fetch_rewards_via_http). verl calls /v1/grade
// through examples/verl_reward.py.
package serve

import (
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/sqljudge/sqljudge/internal/bench"
	"github.com/sqljudge/sqljudge/internal/engine"
	_ "github.com/sqljudge/sqljudge/internal/equiv" // registers the equiv and verdict metrics, as eval does
	"github.com/sqljudge/sqljudge/internal/membudget"
	"github.com/sqljudge/sqljudge/internal/metric"
	"github.com/sqljudge/sqljudge/internal/status"
	"github.com/sqljudge/sqljudge/internal/turn"
)

// Config configures a Server.
type Config struct {
	// Engine runs every query (read-only, as in eval); the caller closes
	// it after the server has stopped.
	Engine engine.Engine
	// Timeout bounds each query, as eval's --timeout; 0 means none.
	Timeout time.Duration
	// MaxItemTime bounds all the work of one item once it has a worker
	// (its prediction and every gold alternative, --max-item-time); 0
	// means twice Timeout (none when Timeout is 0).
	MaxItemTime time.Duration
	// Workers is the number of items that run at once across all
	// requests; 0 means the number of CPUs. Requests share them by time,
	// fairly (scheduler): an item gives its worker up to a waiting one
	// after Quantum.
	Workers int
	// LengthyWorkers bounds the workers that items of lengthy metrics
	// (metric.Lengthy: equiv, verdict) hold at once (--lengthy-workers),
	// so that the other metrics keep the rest; 0 means Workers - 1, at
	// least 1 (with one worker nothing is kept back).
	LengthyWorkers int
	// Quantum is how long an item of a metric that is not lengthy holds a
	// worker before it gives it up, at its next yield point (a SQLite
	// query's progress handler), to an item waiting for one; 0 means
	// DefaultQuantum. See scheduler.
	Quantum time.Duration
	// Metric is the metric of an item that names none and whose request
	// and preset name none; "" means ex.
	Metric string
	// MetricOptions build the metrics (tables.json for em, KeepDistinct).
	MetricOptions metric.Options
	// MaxBody is the largest request body read, in bytes (HTTP 413
	// beyond); 0 means DefaultMaxBody.
	MaxBody int64
	// MaxBatch is the most items one request may hold (HTTP 413 beyond);
	// 0 means DefaultMaxBatch.
	MaxBatch int
	// MaxResponse bounds the verdict details (GradeResult.Verdicts) of one
	// response, in bytes of JSON: each item may take an equal share, and
	// what is over it is left out and named in GradeResult.Cut; 0 means
	// DefaultMaxResponse. The rest of a result echoes the request (id,
	// sql) or is a short text, so a response stays within MaxResponse
	// plus about MaxBody.
	MaxResponse int64
	// GoldCache bounds the gold results kept across requests, in bytes
	// (least recently used go first; see goldCache); 0 means
	// DefaultGoldCache.
	GoldCache int64
	// MaxMemory is the process's memory budget, in bytes (--max-memory;
	// 0 means DefaultMaxMemory): the results items hold (SQLite's, charged
	// as they are read), the gold results kept across requests, request
	// bodies in flight and what equiv derives from an item's text are
	// charged to it; see memory.go.
	MaxMemory int64
	// ReadHeaderTimeout, ReadTimeout and IdleTimeout bound a connection
	// that is slow to send its request's header, its whole request, or
	// that stays idle between requests (http.Server's fields); 0 means
	// DefaultReadHeaderTimeout, DefaultReadTimeout, DefaultIdleTimeout.
	ReadHeaderTimeout, ReadTimeout, IdleTimeout time.Duration
	// MaxConns bounds the connections open at once (--max-conns): past
	// it, new connections wait in the listen queue; 0 means
	// DefaultMaxConns.
	MaxConns int
	// MaxConnsPerAddr bounds the connections of one client address that
	// have not sent a complete request with the token yet (any complete
	// request, without a token): past it a new one is answered HTTP 429
	// and closed (--max-conns-per-addr); 0 means DefaultMaxConnsPerAddr.
	MaxConnsPerAddr int
	// MinBodyRate is the slowest pace of a request body, in bytes per
	// second, after a first ReadHeaderTimeout: a body that falls behind
	// is HTTP 408 and its connection closed; 0 means DefaultMinBodyRate.
	MinBodyRate int64
	// Token, if set, is the bearer token every request but GET /healthz
	// must send (Authorization: Bearer <token>, --token or
	// SQLJUDGE_SERVE_TOKEN); "" lets anyone who can connect grade.
	Token string
	// Labels map an OpenRLHF prompt to its label, for requests that send
	// no labels (--labels FILE); nil when none.
	Labels map[string]Label
	// Log, if set, receives one line per request some of whose items
	// could not be graded for a reason that is not the prediction's (an
	// unknown db_id, a failing gold), and the drain's messages.
	Log io.Writer
}

// Server grades items over HTTP. It is safe for concurrent use.
type Server struct {
	cfg    Config
	env    *metric.Env
	golds  *metric.Cache
	mem    *membudget.Budget
	sched  *scheduler
	ctx    context.Context
	cancel context.CancelFunc

	stopOnce sync.Once
	stopWhy  string // set once, before ctx is cancelled

	mu      sync.Mutex
	metrics map[string]metric.Metric
	dbs     sync.Map // db_id -> struct{}, databases checked present
	logMu   sync.Mutex
}

// New returns a server over cfg.Engine. An item is graded under its
// request's context (a client that hangs up cancels its queries; the gold
// cache keeps no cancellation) and the server's, which Close cancels.
func New(cfg Config) *Server {
	if cfg.Workers <= 0 {
		cfg.Workers = runtime.NumCPU()
	}
	if cfg.Metric == "" {
		cfg.Metric = "ex"
	}
	if cfg.MaxItemTime <= 0 {
		cfg.MaxItemTime = 2 * cfg.Timeout
	}
	if cfg.MaxBody <= 0 {
		cfg.MaxBody = DefaultMaxBody
	}
	if cfg.MaxBatch <= 0 {
		cfg.MaxBatch = DefaultMaxBatch
	}
	if cfg.MaxResponse <= 0 {
		cfg.MaxResponse = DefaultMaxResponse
	}
	cfg.ReadHeaderTimeout = cmp.Or(cfg.ReadHeaderTimeout, DefaultReadHeaderTimeout)
	cfg.ReadTimeout = cmp.Or(cfg.ReadTimeout, DefaultReadTimeout)
	cfg.IdleTimeout = cmp.Or(cfg.IdleTimeout, DefaultIdleTimeout)
	cfg.MaxConns = cmp.Or(cfg.MaxConns, DefaultMaxConns)
	cfg.MaxConnsPerAddr = cmp.Or(cfg.MaxConnsPerAddr, DefaultMaxConnsPerAddr)
	cfg.MinBodyRate = cmp.Or(cfg.MinBodyRate, DefaultMinBodyRate)
	if cfg.GoldCache <= 0 {
		cfg.GoldCache = DefaultGoldCache
	}
	cfg.MaxMemory = cmp.Or(cfg.MaxMemory, DefaultMaxMemory)
	ctx, cancel := context.WithCancel(context.Background())
	s := &Server{
		cfg: cfg, golds: newGoldCache(cfg.GoldCache),
		sched: newScheduler(cfg.Workers, cmp.Or(cfg.LengthyWorkers, cfg.Workers-1), cfg.Quantum), ctx: ctx, cancel: cancel,
		metrics: map[string]metric.Metric{},
	}
	s.env = &metric.Env{Engine: cfg.Engine, Timeout: cfg.Timeout, Golds: s.golds}
	s.mem = membudget.New(cfg.MaxMemory)
	s.mem.SetEvictor(s.golds.Evict)
	return s
}

// Close stops grading: items still running end with their queries
// cancelled; then it closes the metrics built so far (equiv's scratch
// databases' folder is removed). It does not close the engine. It may be
// called more than once.
func (s *Server) Close() {
	s.stopGrading("not graded: the server is shutting down")
	s.mu.Lock()
	defer s.mu.Unlock()
	for name, m := range s.metrics {
		if err := metric.Close([]metric.Metric{m}); err != nil {
			s.logf("closing metric %s: %v", name, err)
		}
		delete(s.metrics, name)
	}
}

// stopGrading cancels every item still running or waiting; why is the
// error they are answered with.
func (s *Server) stopGrading(why string) {
	s.stopOnce.Do(func() { s.stopWhy = why })
	s.cancel()
}

// Handler returns the HTTP handler: GET /healthz, POST /v1/grade, POST
// /v1/openrlhf. With a Token, every endpoint but /healthz wants it (see
// guard); a POST body must be JSON.
func (s *Server) Handler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, _ *http.Request) {
		writeJSON(w, http.StatusOK, map[string]bool{"ok": true})
	})
	mux.HandleFunc("POST /v1/grade", s.handleGrade)
	mux.HandleFunc("POST /v1/openrlhf", s.handleOpenRLHF)
	return s.guard(mux)
}

// GradeRequest is the body of POST /v1/grade:
//
//	{"preset": "arctic", "metric": "ex", "items": [{"id": "x",
//	 "db_id": "concert_singer", "pred": "SELECT count(*) FROM singer",
//	 "gold": "SELECT count(*) FROM singer"}]}
//
// Preset defaults to binary; Metric to the preset's metric, else the
// server's (ex).
type GradeRequest struct {
	Preset string      `json:"preset"`
	Metric string      `json:"metric"`
	Items  []GradeItem `json:"items"`
}

// GradeItem is one item of a GradeRequest. Gold is a string or a list of
// acceptable alternatives (any match counts, as in eval). Pred is bare
// SQL; Completion is a model's output, from which the SQL is extracted
// (ExtractSQL, or the preset's own format); give one of them. Metric and
// Preset override the request's for this item; ID (any JSON value) is
// echoed back as sent, and without one the result's id is the item's
// index in the request as a string ("0", "1", ...).
type GradeItem struct {
	ID         json.RawMessage `json:"id,omitempty"`
	DBID       string          `json:"db_id"`
	Gold       Gold            `json:"gold"`
	Pred       *string         `json:"pred,omitempty"`
	Completion *string         `json:"completion,omitempty"`
	Metric     string          `json:"metric,omitempty"`
	Preset     string          `json:"preset,omitempty"`
}

// Gold is a gold field: a JSON string or a list of strings.
type Gold []string

// UnmarshalJSON reads a string or a list of strings.
func (g *Gold) UnmarshalJSON(b []byte) error {
	var one string
	if err := json.Unmarshal(b, &one); err == nil {
		*g = Gold{one}
		return nil
	}
	var many []string
	if err := json.Unmarshal(b, &many); err != nil {
		return errors.New(`"gold" must be a SQL string or a list of SQL strings`)
	}
	*g = many
	return nil
}

// GradeResult is one result of POST /v1/grade, in request order:
//
//	{"id": "x", "verdict": "correct", "correct": true, "reward": 1.0,
//	 "sql": "<graded SQL>", "error": "",
//	 "verdicts": {"equiv": {"correct": false, "status": "ok", "verdict": "inequivalent",
//	              "witness": {"sql": "CREATE TABLE …; INSERT …;", "rows": 1, "q1": {…}, "q2": {…}}}}}
//
// Correct equals `sqljudge eval --metrics <metric>` on the same gold,
// prediction and database. Error says why an item is invalid, timed out
// or could not be graded ("" otherwise). Verdicts is present when the
// metric's verdict carries details (equiv's and verdict's witness, em's
// hardness, a judge's score): the metric's verdict keyed by the metric's
// name, the same object as eval's record holds under "verdicts", within
// the item's share of Config.MaxResponse. Cut names what was left out of
// it to stay there, and why ("" when nothing was).
type GradeResult struct {
	ID       json.RawMessage           `json:"id"`
	Verdict  Verdict                   `json:"verdict"`
	Correct  bool                      `json:"correct"`
	Reward   float64                   `json:"reward"`
	SQL      string                    `json:"sql"`
	Error    string                    `json:"error"`
	Verdicts map[string]metric.Verdict `json:"verdicts,omitempty"`
	Cut      string                    `json:"cut,omitempty"`
}

// GradeResponse is the answer of POST /v1/grade; ElapsedMS is the
// request's grading time in milliseconds; ResultsCut counts the results
// with something left out (GradeResult.Cut), absent when none.
type GradeResponse struct {
	Results    []GradeResult `json:"results"`
	ElapsedMS  int64         `json:"elapsed_ms"`
	ResultsCut int           `json:"results_cut,omitempty"`
}

func (s *Server) handleGrade(w http.ResponseWriter, r *http.Request) {
	start := time.Now()
	led, rerr := s.reserveBody(r)
	if rerr != nil {
		writeError(w, rerr.code, rerr.msg)
		return
	}
	defer led.Release()
	req, rerr := s.decodeGrade(w, r)
	if rerr != nil {
		writeError(w, rerr.code, rerr.msg)
		return
	}
	trust(r) // a complete request, past the token: its connection no longer counts against its address
	if len(req.Items) == 0 {
		writeError(w, http.StatusBadRequest, `no "items" to grade`)
		return
	}
	if rerr := s.checkRequest(&req, "items[%d]"); rerr != nil {
		writeError(w, rerr.code, rerr.msg)
		return
	}
	res := s.Grade(r.Context(), req)
	s.logRequest(r, res)
	cut := 0
	for _, x := range res {
		if x.Cut != "" {
			cut++
		}
	}
	writeJSON(w, http.StatusOK, GradeResponse{Results: res, ElapsedMS: time.Since(start).Milliseconds(), ResultsCut: cut})
}

// Grade grades a request's items concurrently (at most Workers items at
// once across the server, requests taking turns: scheduler) and returns
// their results in order. Items run
// under ctx (the request's) and the server's context: when either ends,
// items not yet graded end as errors saying why. Grade does not check the
// request: the handlers refuse a bad one first (checkRequest). Items that
// are the same (db_id, gold, pred or completion, metric and preset: an RL
// group often samples one completion several times) are graded once. Each
// result's details take at most an equal share of MaxResponse
// (boundVerdict).
func (s *Server) Grade(ctx context.Context, req GradeRequest) []GradeResult {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	defer context.AfterFunc(s.ctx, cancel)()
	out := make([]GradeResult, len(req.Items))
	same := make([]int, len(req.Items))
	first := map[[sha256.Size]byte]int{}
	b := &batch{req: req, queue: s.sched.queue(), share: responseShare(s.cfg.MaxResponse, len(req.Items))}
	var wg sync.WaitGroup
	for i := range req.Items {
		k := itemKey(req, &req.Items[i])
		if j, ok := first[k]; ok {
			same[i] = j
			continue
		}
		first[k], same[i] = i, i
		wg.Go(func() { out[i] = s.gradeItem(ctx, b, i) })
	}
	wg.Wait()
	for i, j := range same {
		out[i] = out[j]
		out[i].ID = req.Items[i].ID
		if len(out[i].ID) == 0 {
			// No id sent: the index as a string, as eval names a JSONL
			// item without an id.
			out[i].ID = json.RawMessage(strconv.Quote(strconv.Itoa(i)))
		}
	}
	return out
}

// itemKey identifies what decides an item's result: the SHA-256 of its
// fields (a map of a request's items keyed by their text would hold the
// body again).
func itemKey(req GradeRequest, it *GradeItem) [sha256.Size]byte {
	b, _ := json.Marshal([]any{it.DBID, it.Gold, it.Pred, it.Completion,
		cmp.Or(it.Metric, req.Metric), cmp.Or(it.Preset, req.Preset)})
	return sha256.Sum256(b)
}

// batch is a request being graded: its items wait for workers in queue,
// and the details of each take at most share bytes of JSON.
type batch struct {
	req   GradeRequest
	queue *queue
	share int
}

// gradeItem grades item i of b under its preset and metric.
func (s *Server) gradeItem(ctx context.Context, b *batch, i int) GradeResult {
	req, it := b.req, &b.req.Items[i]
	p, err := PresetByName(cmp.Or(it.Preset, req.Preset, "binary"))
	if err != nil {
		return errorResult(err.Error())
	}
	var parsed Parsed
	formatOK := true
	switch {
	case it.Pred != nil:
		parsed.SQL = strings.TrimSpace(*it.Pred)
	case it.Completion != nil:
		parsed, formatOK = p.Extract(*it.Completion)
	}
	m, err := s.metric(cmp.Or(it.Metric, req.Metric, p.Metric, s.cfg.Metric))
	o := Outcome{Parsed: parsed, FormatOK: formatOK}
	res := GradeResult{SQL: parsed.SQL}
	switch msg := s.unusable(it, err); {
	case msg != "":
		o.Verdict, res.Error = Error, msg
	case !formatOK:
		o.Verdict, res.Error = Invalid, "the completion does not follow preset "+p.Name+"'s format"
	case parsed.SQL == "":
		o.Verdict, res.Error = Invalid, "no SQL found"
	default:
		var mv metric.Verdict
		o.Verdict, res.Error, mv = s.run(ctx, b, i, m, parsed.SQL)
		if mv.Details != nil {
			res.Verdicts, res.Cut = boundVerdict(m.Name(), mv, b.share)
		}
	}
	res.Verdict, res.Correct, res.Reward = o.Verdict, o.Verdict == Correct, p.Reward(o)
	return res
}

// unusable says why an item of a checked request (checkRequest) cannot be
// graded ("" when it can): its metric failed to build (metricErr), or its
// database does not exist. The message shows no server path.
func (s *Server) unusable(it *GradeItem, metricErr error) string {
	if metricErr != nil {
		return metricErr.Error()
	}
	switch err := s.checkDB(it.DBID); {
	case errors.Is(err, engine.ErrNoDatabase):
		return fmt.Sprintf("db_id %q: no such database under --db", it.DBID)
	case err != nil:
		return fmt.Sprintf("db_id %q: %v", it.DBID, err)
	}
	return ""
}

// run grades sql against the gold of item i of b with metric m (attempt).
// An item that did not fit in the memory budget beside the others
// (membudget.ErrFull) is graded again with the budget to itself
// (membudget.Budget.Exclusive), so that whether it fits never depends on
// its neighbours.
func (s *Server) run(ctx context.Context, b *batch, i int, m metric.Metric, sql string) (v Verdict, detail string, mv metric.Verdict) {
	led := s.mem.Ledger()
	v, detail, mv = s.attempt(ctx, b, i, m, sql, led)
	full := led.Full()
	led.Release()
	if !full || ctx.Err() != nil {
		return v, detail, mv
	}
	release, err := s.mem.Exclusive(ctx, led)
	if err != nil {
		return Error, s.stopReason(), metric.Verdict{}
	}
	defer release()
	defer led.Release()
	return s.attempt(ctx, b, i, m, sql, led)
}

// attempt grades sql against the gold of item i of b with metric m on a
// worker of b's queue (whose slot the work yields: turn), under ctx
// bounded by MaxItemTime of the time it holds a worker, charging what it
// holds to led; mv is the metric's own verdict (zero when it did not
// grade).
func (s *Server) attempt(ctx context.Context, b *batch, i int, m metric.Metric, sql string, led *membudget.Ledger) (v Verdict, detail string, mv metric.Verdict) {
	it := &b.req.Items[i]
	ctx = membudget.With(ctx, led)
	if lengthy(m) {
		if v, detail, ok := s.chargeText(led, it, sql); !ok {
			return v, detail, mv
		}
	}
	sl, ok := b.queue.acquire(ctx, i, lengthy(m))
	if !ok {
		return Error, s.stopReason(), mv
	}
	defer sl.release()
	defer func() {
		if p := recover(); p != nil {
			v, detail = Error, fmt.Sprintf("internal error: %v", p)
		}
	}()
	ctx = turn.With(ctx, sl)
	ictx, cancel := ctx, context.CancelFunc(func() {})
	if s.cfg.MaxItemTime > 0 {
		// The time the item holds a worker, not the time it waits for
		// one: its verdict does not depend on its neighbours.
		ictx, cancel = turn.WithTimeout(ctx, s.cfg.MaxItemTime)
	}
	defer cancel()
	item := bench.Item{ID: string(it.ID), DBID: it.DBID, Gold: it.Gold, GoldText: strings.Join(it.Gold, ";\n"), Pred: sql}
	mv = m.Grade(ictx, s.env.NewExec(), &item)
	v, detail = classify(mv)
	switch {
	case ctx.Err() != nil:
		return Error, s.stopReason(), metric.Verdict{}
	case ictx.Err() != nil:
		if v != Timeout {
			v = Error
		}
		return v, fmt.Sprintf("the item ran past --max-item-time (%s): %s", s.cfg.MaxItemTime, detail), metric.Verdict{}
	}
	return v, detail, mv
}

// lengthy reports whether m's items may hold a worker for seconds by
// design (metric.Lengthy).
func lengthy(m metric.Metric) bool {
	l, ok := m.(metric.Lengthy)
	return ok && l.Lengthy()
}

// stopReason says why the items of a request whose context ended were not
// graded: the server stopped, or the client went away.
func (s *Server) stopReason() string {
	if s.ctx.Err() != nil {
		return s.stopWhy
	}
	return "not graded: the request was cancelled (the client went away)"
}

// classify maps a metric verdict onto the service's verdicts.
func classify(v metric.Verdict) (Verdict, string) {
	switch {
	case v.Correct:
		return Correct, ""
	case v.Status == status.OK, v.Status == status.TooLarge:
		return Wrong, v.Detail
	case v.Status == status.Timeout:
		return Timeout, v.Detail
	case v.Status.PredFailure():
		// pred_error, and em's pred_unparsed(_official): the
		// prediction cannot be read or run.
		return Invalid, v.Detail
	}
	return Error, cmp.Or(v.Detail, string(v.Status))
}

// metric returns the named metric, built once (an unknown name is not
// remembered, so that requests cannot grow the map).
func (s *Server) metric(name string) (metric.Metric, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if m, ok := s.metrics[name]; ok {
		return m, nil
	}
	if s.ctx.Err() != nil {
		// Closed: a metric built now would never be closed.
		return nil, errors.New("the server is shutting down")
	}
	ms, err := metric.New([]string{name}, s.cfg.MetricOptions)
	if err != nil {
		return nil, err
	}
	s.metrics[name] = ms[0]
	return ms[0], nil
}

// checkDB checks once that a database exists (a missing one is checked
// again on the next request: it may have been added).
func (s *Server) checkDB(db string) error {
	if _, ok := s.dbs.Load(db); ok {
		return nil
	}
	if err := s.cfg.Engine.Check(s.ctx, db); err != nil {
		return err
	}
	s.dbs.Store(db, struct{}{})
	return nil
}

// logRequest writes one log line for a request whose items could not all
// be graded for a reason that is not the prediction's (verdict error): how
// many, and the first reason.
func (s *Server) logRequest(r *http.Request, res []GradeResult) {
	n, first := 0, ""
	for i, x := range res {
		if x.Verdict == Error {
			if n == 0 {
				first = fmt.Sprintf("item %d: %s", i, x.Error)
			}
			n++
		}
	}
	if n > 0 {
		s.logf("%s %s: %d of %d items not graded (first: %s)", r.Method, r.URL.Path, n, len(res), clip(first))
	}
}

func errorResult(msg string) GradeResult { return GradeResult{Verdict: Error, Error: msg} }

func (s *Server) logf(format string, args ...any) {
	if s.cfg.Log == nil {
		return
	}
	s.logMu.Lock()
	defer s.logMu.Unlock()
	fmt.Fprintf(s.cfg.Log, "serve: "+format+"\n", args...)
}

func writeJSON(w http.ResponseWriter, code int, v any) {
	b, err := json.Marshal(v)
	if err != nil {
		code, b = http.StatusInternalServerError, []byte(`{"error":"cannot encode the response"}`)
	}
	// A client that does not read its answer holds the connection at
	// most writeTimeout (the handler's own time is not bounded here).
	_ = http.NewResponseController(w).SetWriteDeadline(time.Now().Add(writeTimeout))
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	w.Write(b) // not append(b, '\n'): a copy of a response of 100 MB
	w.Write([]byte{'\n'})
}

func writeError(w http.ResponseWriter, code int, msg string) {
	writeJSON(w, code, map[string]string{"error": msg})
}
