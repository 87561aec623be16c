package generate

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/sqljudge/sqljudge/internal/bench"
	"github.com/sqljudge/sqljudge/internal/engine"
	"github.com/sqljudge/sqljudge/internal/eval"
	"github.com/sqljudge/sqljudge/internal/llm"
	"github.com/sqljudge/sqljudge/internal/metric"
	"github.com/sqljudge/sqljudge/internal/outdir"
	"github.com/sqljudge/sqljudge/internal/report"
	"github.com/sqljudge/sqljudge/internal/run"
)

// Methods of generation.
const (
	MethodChess  = "chess"
	MethodDirect = "direct"
)

// Options configure Run.
type Options struct {
	// Items are the questions, in file order (bench.LoadGold: Spider
	// dev.json, BIRD dev.json, SQL-Eval CSV, JSONL). Each needs a question.
	Items []bench.Item
	// Engine runs candidates and reads schemas (SQLite); the caller opens
	// and closes it.
	Engine engine.Engine
	// Out is the output folder.
	Out string
	// Method is MethodChess or MethodDirect; Config the CHESS configuration
	// (see Configs).
	Method string
	Config Config
	// LLM is the endpoint's configuration; its Temperature is replaced per
	// step. CacheDir "" means Out/llm-cache.
	LLM llm.Config
	// Retriever opens the value and description index of a database for
	// retrieve_entity and retrieve_context; nil runs those steps without
	// one (they then find nothing).
	Retriever func(ctx context.Context, dbID string) (Retriever, error)
	// Embedder and ContextEmbedder, if set, are the clients behind
	// Retriever's embeddings (retrieve_entity's and retrieve_context's;
	// they may be one): their usage goes into the summary.
	Embedder, ContextEmbedder *llm.Client
	// ProbeEmbeddings makes Run send one embedding request ("sqljudge
	// embedding probe") with each embedder before any question, so that a
	// run whose endpoint serves no embeddings stops at once with an error
	// wrapping ErrInput instead of finding nothing question after question.
	ProbeEmbeddings bool
	// Workers is the number of questions generated at once; 0 means 2.
	Workers int
	// Timeout and MaxRows bound each candidate's execution as eval bounds a
	// query; 0 means 30 s and the engine's cap.
	Timeout time.Duration
	// Seed seeds the prompts' table and column shuffles and is sent as the
	// LLM seed.
	Seed int64
	// ParseAttempts is how many requests a step makes while replies cannot
	// be parsed; 0 means 12, the official call_llm_chain's max_attempts.
	ParseAttempts int
	// Resume keeps the finished questions of Out/ledger.jsonl; Overwrite
	// starts over (the LLM cache still serves every earlier reply).
	Resume, Overwrite bool
	// Metrics, if any, grade the predictions at the end with eval's runner
	// into Out/eval (results.jsonl, summary.json), each query bounded by
	// Timeout; MetricOptions configure them, each metric its own (the
	// schemas of MetricOptions.EM also give the hardness labels).
	Metrics       []string
	MetricOptions metric.Options
	// Progress is told about each finished question.
	Progress run.Progress

	// YAMLTemperatures sends each CHESS step at its configuration's
	// temperature as written; by default each step goes out at the
	// temperature the official code sends (Config.SentTemperatures).
	YAMLTemperatures bool
	// AddConnections adds the connecting columns (primary and foreign
	// keys) of every selected table to the tentative schema after
	// filter_column and select_tables, as the official
	// add_connections_to_tentative_schema's docstring says; the official
	// function changes nothing, so by default nothing is added.
	AddConnections bool
	// Departures names the options in effect, set by the caller, that
	// depart from the official code outside this package (the index's
	// "--text-affinity", "--fold-case", "--short-scan", "--no-embeddings");
	// Run adds its own and copies them into Summary.Departures.
	Departures []string
}

// ErrInput is wrapped by errors about the questions (a question missing).
var ErrInput = errors.New("bad generate input")

// Summary is OUT/summary.json.
type Summary struct {
	// Method and Config name what ran; Settings holds the configuration.
	Method   string  `json:"method"`
	Config   string  `json:"config,omitempty"`
	Settings *Config `json:"settings,omitempty"`
	// Questions is the number of questions; Generated were done by this
	// run, Resumed kept from an earlier one, Failed have no prediction
	// (their ledger record has an error).
	Questions int `json:"questions"`
	Generated int `json:"generated"`
	Resumed   int `json:"resumed"`
	Failed    int `json:"failed"`
	// Calls, PromptTokens and CompletionTokens sum the ledger over every
	// question (cached replies included, with the tokens the server once
	// reported); PerQuestion divides them by Questions.
	Calls            int64   `json:"calls"`
	PromptTokens     int64   `json:"prompt_tokens"`
	CompletionTokens int64   `json:"completion_tokens"`
	PerQuestion      PerItem `json:"per_question"`
	// Cost prices those tokens with the LLM configuration's prices per
	// million tokens (0 without prices).
	Cost  float64   `json:"cost"`
	Steps StepCount `json:"steps"`
	// OfficialFailures and Recoveries total the steps' counts: where this
	// run asked again or went on and the official code fails the step.
	OfficialFailures int `json:"official_failures"`
	Recoveries       int `json:"recoveries"`
	// HTTP is what this run sent: requests made, replies served from the
	// cache, tokens paid for and their cost (with prices).
	HTTP HTTPUsage `json:"http"`
	// WallSeconds is this run's wall time.
	WallSeconds float64 `json:"wall_seconds"`
	// Departures names the options of this run that depart from the
	// official CHESS code, as the CLI spells them (empty: a run as
	// published; see docs/generation.md).
	Departures []string `json:"departures"`
	// EmbedModels names the embedding model of retrieve_entity and of
	// retrieve_context (keys are the step names; none when embedding
	// retrieval is off).
	EmbedModels map[string]string `json:"embed_models,omitempty"`
	// Model, BaseURL, Seed describe the endpoint.
	Model   string `json:"model"`
	BaseURL string `json:"base_url"`
	Seed    int64  `json:"seed"`
	// Eval is the grading summary when Metrics were given.
	Eval *report.Summary `json:"eval,omitempty"`
}

// PerItem is a per-question average.
type PerItem struct {
	Calls            float64 `json:"calls"`
	PromptTokens     float64 `json:"prompt_tokens"`
	CompletionTokens float64 `json:"completion_tokens"`
}

// StepCount maps a step name to its number of calls and tokens.
type StepCount map[string]*StepUsage

// StepUsage is one step's total over the ledger.
type StepUsage struct {
	Runs             int   `json:"runs"`
	Calls            int   `json:"calls"`
	PromptTokens     int64 `json:"prompt_tokens"`
	CompletionTokens int64 `json:"completion_tokens"`
	Errors           int   `json:"errors,omitempty"`
	// OfficialFailures counts the calls whose reply the official code
	// fails the step on (Call.OfficialFail); Recoveries the steps that went
	// on where the official code fails (Step.Recovery).
	OfficialFailures int `json:"official_failures,omitempty"`
	Recoveries       int `json:"recoveries,omitempty"`
}

// HTTPUsage is the traffic of one run.
type HTTPUsage struct {
	Requests         int64   `json:"requests"`
	CacheHits        int64   `json:"cache_hits"`
	PromptTokens     int64   `json:"prompt_tokens"`
	CompletionTokens int64   `json:"completion_tokens"`
	Cost             float64 `json:"cost"`
	// EmbedRequests and EmbedTokens are the embedding requests answered
	// (by the server or the cache) and their prompt tokens.
	EmbedRequests int64 `json:"embed_requests"`
	EmbedTokens   int64 `json:"embed_tokens"`
}

// generator holds what every question shares.
type generator struct {
	opts Options
	pool *pool
	cats sync.Map // db -> *catalogOnce
}

type catalogOnce struct {
	once sync.Once
	cat  *chessSchema
	err  error
}

// catalog returns db's catalogue, read once per run.
func (g *generator) catalog(ctx context.Context, db string) (*chessSchema, error) {
	v, _ := g.cats.LoadOrStore(db, &catalogOnce{})
	c := v.(*catalogOnce)
	c.once.Do(func() { c.cat, c.err = loadCatalog(ctx, g.opts.Engine, db) })
	return c.cat, c.err
}

func (g *generator) exec(ctx context.Context, db, sql string) execResult {
	qctx, cancel := context.WithTimeout(ctx, g.opts.Timeout)
	defer cancel()
	set, err := g.opts.Engine.Query(qctx, db, sql)
	if err != nil && ctx.Err() == nil && qctx.Err() != nil {
		err = engine.TimeoutError(qctx, db)
	}
	return execResult{set: set, err: err}
}

// Run generates SQL for every question and writes Out/ledger.jsonl (as
// questions finish, then rewritten in question order),
// Out/predictions.sql (one query per line, in question order),
// Out/predict_dev.json (BIRD's format, keyed by question id) and
// Out/summary.json, then grades the predictions when Metrics are given.
// Records of finished questions stay on disk whatever happens.
func Run(ctx context.Context, o Options) (*Summary, error) {
	start := time.Now()
	if err := o.defaults(); err != nil {
		return nil, err
	}
	if err := o.checkQuestions(); err != nil {
		return nil, err
	}
	metrics, err := o.buildMetrics(ctx)
	if err != nil {
		return nil, err
	}
	// A metric may hold resources until closed (equiv's scratch folder).
	defer metric.Close(metrics)
	unlock, err := outdir.Lock(o.Out)
	if err != nil {
		return nil, err
	}
	defer unlock()
	ledgerPath := filepath.Join(o.Out, LedgerFile)
	prev, err := o.previous(ledgerPath)
	if err != nil {
		return nil, err
	}
	if err := o.probeEmbeddings(ctx); err != nil {
		return nil, err
	}
	p, err := newPool(o.LLM)
	if err != nil {
		return nil, err
	}
	g := &generator{opts: o, pool: p}

	todo := o.pending(prev)
	sum := &Summary{Method: o.Method, Questions: len(o.Items), Resumed: len(o.Items) - len(todo),
		Model: o.LLM.Model, BaseURL: o.LLM.BaseURL, Seed: o.Seed}
	if o.Method == MethodChess {
		sum.Config, sum.Settings = o.Config.Name, &o.Config
		sum.Departures = slices.Sorted(slices.Values(o.Departures))
		sum.EmbedModels = o.embedModels()
	}
	if sum.Departures == nil {
		sum.Departures = []string{}
	}

	recs := prev
	if err := g.generateAll(ctx, todo, ledgerPath, recs); err != nil {
		return nil, err
	}
	if err := writeLedgerInOrder(ledgerPath, recs); err != nil {
		return nil, err
	}
	sum.Generated = len(todo)
	if err := o.writePredictions(recs); err != nil {
		return nil, err
	}
	sum.tally(o.Items, recs)
	sum.usage(&o, p)
	if len(o.Metrics) > 0 {
		if sum.Eval, err = o.grade(ctx, metrics, recs); err != nil {
			return nil, err
		}
	}
	sum.WallSeconds = time.Since(start).Seconds()
	b, err := json.MarshalIndent(sum, "", "  ")
	if err != nil {
		return nil, err
	}
	if err := outdir.WriteBytes(filepath.Join(o.Out, SummaryFile), append(b, '\n')); err != nil {
		return nil, err
	}
	return sum, nil
}

// checkQuestions refuses items without a question: generation needs one.
func (o *Options) checkQuestions() error {
	for i := range o.Items {
		if strings.TrimSpace(o.Items[i].Question) == "" {
			return fmt.Errorf("%w: %s: item %q has no question (give a file with questions: Spider dev.json, BIRD dev.json, a SQL-Eval CSV, JSONL with \"question\")",
				ErrInput, o.Items[i].GoldPos, o.Items[i].ID)
		}
	}
	return nil
}

// pending returns the positions in o.Items of the questions still to
// generate: those without a record in prev, or whose record failed.
func (o *Options) pending(prev map[int]Record) []int {
	var todo []int
	for i := range o.Items {
		if r, ok := prev[o.Items[i].Index]; ok && r.Error == "" {
			continue
		}
		todo = append(todo, i)
	}
	return todo
}

// generateAll runs the questions at positions todo, at most Workers at
// once, adding each finished record to recs, keyed by item index, and
// appending it to the ledger at ledgerPath (an outdir.Journal: in the
// order of todo, each once the earlier ones are written). The first error
// (a cancelled context, a ledger write) stops the others.
func (g *generator) generateAll(ctx context.Context, todo []int, ledgerPath string, recs map[int]Record) error {
	jn, err := outdir.OpenJournal(ledgerPath, outdir.JSON[Record])
	if err != nil {
		return err
	}
	var mu sync.Mutex
	if g.opts.Progress != nil {
		g.opts.Progress.Start(len(todo))
	}
	eg, ectx := errgroup.WithContext(ctx)
	eg.SetLimit(g.opts.Workers)
	for k, i := range todo {
		it := &g.opts.Items[i]
		eg.Go(func() error {
			rec := g.question(ectx, it)
			if ectx.Err() != nil {
				return ectx.Err()
			}
			mu.Lock()
			recs[rec.Index] = rec
			if g.opts.Progress != nil {
				g.opts.Progress.Done()
			}
			mu.Unlock()
			return jn.Put(k, rec)
		})
	}
	runErr := eg.Wait()
	if g.opts.Progress != nil {
		g.opts.Progress.Finish()
	}
	if err := jn.Close(); err != nil && runErr == nil {
		runErr = err
	}
	return runErr
}

// usage fills the summary's cost and HTTP usage from the pool's and the
// embedder's counters.
func (sum *Summary) usage(o *Options, p *pool) {
	sum.Cost = float64(sum.PromptTokens)/1e6*o.LLM.PricePromptPerM + float64(sum.CompletionTokens)/1e6*o.LLM.PriceCompletionPerM
	u := p.usage()
	sum.HTTP = HTTPUsage{Requests: u.Calls - u.CacheHits, CacheHits: u.CacheHits, PromptTokens: u.PromptTokens,
		CompletionTokens: u.CompletionTokens, Cost: u.Cost}
	for _, e := range o.embedders() {
		eu := e.Usage()
		sum.HTTP.EmbedRequests += eu.EmbedCalls
		sum.HTTP.EmbedTokens += eu.EmbedTokens
	}
}

// embedders returns the distinct embedding clients of o.
func (o *Options) embedders() []*llm.Client {
	var out []*llm.Client
	for _, e := range []*llm.Client{o.Embedder, o.ContextEmbedder} {
		if e != nil && !slices.Contains(out, e) {
			out = append(out, e)
		}
	}
	return out
}

// embedModels names the embedding model of each retrieval step, nil
// without embedders.
func (o *Options) embedModels() map[string]string {
	m := map[string]string{}
	if o.Embedder != nil {
		m[StepRetrieveEntity] = o.Embedder.Config().EmbedModel
	}
	if o.ContextEmbedder != nil {
		m[StepRetrieveContext] = o.ContextEmbedder.Config().EmbedModel
	}
	if len(m) == 0 {
		return nil
	}
	return m
}

// probeEmbeddings sends one embedding request with each embedder when
// ProbeEmbeddings is set; a failure is an ErrInput naming the model.
func (o *Options) probeEmbeddings(ctx context.Context) error {
	if !o.ProbeEmbeddings {
		return nil
	}
	for _, e := range o.embedders() {
		if _, err := e.Embed(ctx, []string{"sqljudge embedding probe"}); err != nil {
			return fmt.Errorf("%w: embedding model %q at %s: %v (retrieve_entity and retrieve_context need embeddings: give --embed-model-entity and --embed-model-context an endpoint serves, or --no-embeddings to run without them)",
				ErrInput, e.Config().EmbedModel, e.Config().BaseURL, err)
		}
	}
	return nil
}

func (o *Options) defaults() error {
	switch o.Method {
	case MethodChess:
		if len(o.Config.Generators) == 0 {
			c, err := LookupConfig("")
			if err != nil {
				return err
			}
			o.Config = c
		}
		if o.AddConnections {
			o.Departures = slices.Concat(o.Departures, []string{"--add-connections"})
		}
		if o.YAMLTemperatures {
			o.Departures = slices.Concat(o.Departures, []string{"--yaml-temperatures"})
		} else {
			o.Config = o.Config.SentTemperatures()
		}
	case MethodDirect:
	default:
		return fmt.Errorf("%w: method %q (want chess or direct)", ErrInput, o.Method)
	}
	if o.Engine == nil || o.Out == "" {
		return fmt.Errorf("%w: an engine and an output folder are needed", ErrInput)
	}
	if o.Workers <= 0 {
		o.Workers = 2
	}
	if o.Timeout <= 0 {
		o.Timeout = 30 * time.Second
	}
	if o.ParseAttempts <= 0 {
		o.ParseAttempts = 12
	}
	if o.LLM.CacheDir == "" {
		o.LLM.CacheDir = filepath.Join(o.Out, "llm-cache")
	}
	o.LLM.Seed = o.Seed
	return nil
}

// previous reads the ledger of an earlier run and checks it belongs to
// these questions.
func (o *Options) previous(path string) (map[int]Record, error) {
	_, err := os.Stat(path)
	switch {
	case err == nil && o.Overwrite:
		if err := os.Remove(path); err != nil {
			return nil, err
		}
		return map[int]Record{}, nil
	case err == nil && !o.Resume:
		return nil, fmt.Errorf("%w: %s (give --resume to continue it or --overwrite to start over)", outdir.ErrOutputExists, path)
	case err != nil && !errors.Is(err, os.ErrNotExist):
		return nil, err
	}
	recs, err := readLedger(path, true)
	if err != nil {
		return nil, err
	}
	byIndex := map[int]*bench.Item{}
	for i := range o.Items {
		byIndex[o.Items[i].Index] = &o.Items[i]
	}
	for idx, r := range recs {
		it, ok := byIndex[idx]
		if !ok {
			continue // beyond --limit: kept in the ledger, not predicted
		}
		if it.ID != r.ID || it.DBID != r.DBID {
			return nil, fmt.Errorf("%w: %s: record %d (id %q, db %q) is not a question of this file: resume with the same questions, or --overwrite",
				ErrInput, path, idx, r.ID, r.DBID)
		}
		if r.Method != o.Method || (o.Method == MethodChess && r.Config != o.Config.Name) {
			return nil, fmt.Errorf("%w: %s: record %d was made by %s %s, not %s %s: use another --out or --overwrite",
				ErrInput, path, idx, r.Method, r.Config, o.Method, o.Config.Name)
		}
	}
	return recs, nil
}

// question generates one question's SQL; a failure is kept in the record.
func (g *generator) question(ctx context.Context, it *bench.Item) Record {
	t0 := time.Now()
	rec := Record{Index: it.Index, ID: it.ID, DBID: it.DBID, Question: it.Question, Method: g.opts.Method, Steps: []Step{}}
	if g.opts.Method == MethodChess {
		rec.Config = g.opts.Config.Name
	}
	var err error
	if g.opts.Method == MethodDirect {
		err = g.direct(ctx, it, &rec)
	} else {
		var cat *chessSchema
		if cat, err = g.catalog(ctx, it.DBID); err == nil {
			r := &chessRun{g: g, it: it, cat: cat, rec: &rec, hint: hintOf(it)}
			err = r.run(ctx)
		}
	}
	if err != nil {
		rec.Error = err.Error()
	}
	rec.total()
	rec.WallMS = float64(time.Since(t0).Microseconds()) / 1000
	return rec
}

// hintOf is the question's hint: BIRD's evidence, or SQL-Eval's
// instructions.
func hintOf(it *bench.Item) string {
	if it.Evidence != "" {
		return it.Evidence
	}
	return it.Instructions
}

// noPrediction stands in predictions.sql for a question that got none, so
// lines keep pairing by position.
const noPrediction = "SELECT 'sqljudge: no prediction'"

func predLine(r Record, ok bool) string {
	if !ok || strings.TrimSpace(r.Pred) == "" {
		return noPrediction
	}
	return oneLine.Replace(strings.TrimSpace(r.Pred))
}

// writePredictions writes predictions.sql (and predict_dev.json, keyed by
// question id, when the items have BIRD ids).
func (o *Options) writePredictions(recs map[int]Record) error {
	var b strings.Builder
	bird := map[string]string{}
	for i := range o.Items {
		it := &o.Items[i]
		r, ok := recs[it.Index]
		line := predLine(r, ok)
		b.WriteString(line + "\n")
		bird[it.ID] = line + "\t----- bird -----\t" + it.DBID
	}
	if err := outdir.WriteBytes(filepath.Join(o.Out, PredictionsFile), []byte(b.String())); err != nil {
		return err
	}
	if !o.birdInput() {
		return nil
	}
	data, err := json.MarshalIndent(bird, "", "    ")
	if err != nil {
		return err
	}
	return outdir.WriteBytes(filepath.Join(o.Out, BirdPredictionsFile), append(data, '\n'))
}

// birdInput tells whether the questions came from a BIRD file.
func (o *Options) birdInput() bool {
	for i := range o.Items {
		if o.Items[i].Evidence != "" || o.Items[i].Difficulty != "" {
			f, err := bench.Detect(o.Items[i].GoldPos.File)
			return err == nil && f == bench.FormatBird
		}
	}
	return false
}

func (s *Summary) tally(items []bench.Item, recs map[int]Record) {
	s.Steps = StepCount{}
	for i := range items {
		r, ok := recs[items[i].Index]
		if !ok {
			continue
		}
		if r.Error != "" {
			s.Failed++
		}
		s.Calls += int64(r.Calls)
		s.PromptTokens += r.PromptTokens
		s.CompletionTokens += r.CompletionTokens
		for _, st := range r.Steps {
			u := s.Steps[st.Name]
			if u == nil {
				u = &StepUsage{}
				s.Steps[st.Name] = u
			}
			u.Runs++
			u.Calls += len(st.Calls)
			for _, c := range st.Calls {
				u.PromptTokens += c.PromptTokens
				u.CompletionTokens += c.CompletionTokens
				if c.OfficialFail {
					u.OfficialFailures++
					s.OfficialFailures++
				}
			}
			if st.Recovery != "" {
				u.Recoveries++
				s.Recoveries++
			}
			if st.Error != "" {
				u.Errors++
			}
		}
	}
	if n := float64(len(items)); n > 0 {
		s.PerQuestion = PerItem{float64(s.Calls) / n, float64(s.PromptTokens) / n, float64(s.CompletionTokens) / n}
	}
}

// buildMetrics makes the grading metrics before any question is generated,
// so a metric that cannot run (em without tables.json, ts without a suite
// for some db_id) is an input error up front.
func (o *Options) buildMetrics(ctx context.Context) ([]metric.Metric, error) {
	if len(o.Metrics) == 0 {
		return nil, nil
	}
	metrics, err := metric.New(o.Metrics, o.MetricOptions)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrInput, err)
	}
	// Every item has its question (checkQuestions), so only the checks
	// per db_id can fail here.
	if err := eval.CheckMetrics(ctx, o.Items, metrics); err != nil {
		metric.Close(metrics)
		return nil, fmt.Errorf("%w: %v", ErrInput, err)
	}
	return metrics, nil
}

// grade grades the predictions into Out/eval with eval's grading step
// (eval.Grade) and writes its summary.json.
func (o *Options) grade(ctx context.Context, metrics []metric.Metric, recs map[int]Record) (*report.Summary, error) {
	items := make([]bench.Item, len(o.Items))
	copy(items, o.Items)
	for i := range items {
		r, ok := recs[items[i].Index]
		items[i].Pred = predLine(r, ok)
	}
	dir := filepath.Join(o.Out, "eval")
	difficulty, _ := eval.HardnessLabels(io.Discard, items, o.MetricOptions.EM.Schemas)
	rn := &run.Runner{
		Env:     &metric.Env{Engine: o.Engine, Timeout: o.Timeout},
		Metrics: metrics,
		Opts:    run.Options{OutDir: dir, Workers: o.Workers, Overwrite: true, Difficulty: difficulty},
	}
	sum, _, _, err := eval.Grade(ctx, rn, items)
	if err != nil {
		return nil, err
	}
	if err := sum.Write(filepath.Join(dir, report.SummaryFile)); err != nil {
		return nil, err
	}
	return sum, nil
}
