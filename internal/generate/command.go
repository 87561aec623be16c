package generate

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"time"

	"github.com/sqljudge/sqljudge/internal/bench"
	"github.com/sqljudge/sqljudge/internal/engine"
	"github.com/sqljudge/sqljudge/internal/engine/open"
	"github.com/sqljudge/sqljudge/internal/eval"
	"github.com/sqljudge/sqljudge/internal/generate/index"
	"github.com/sqljudge/sqljudge/internal/llm"
	"github.com/sqljudge/sqljudge/internal/metric"
	"github.com/sqljudge/sqljudge/internal/outdir"
	"github.com/sqljudge/sqljudge/internal/run"
	"github.com/sqljudge/sqljudge/internal/schema"
	"github.com/sqljudge/sqljudge/internal/usage"
)

// InputError marks an error of RunCommand that is the caller's input (a
// missing or bad option, an unknown configuration, a folder that is not
// SQLite databases, an output folder in use, a bad question); the CLI maps
// it to exit code 2, as it does eval.InputError (the same type).
type InputError = usage.Error

// CommandOptions are the settings of RunCommand, the sqljudge generate
// command: file names and flags, from which RunCommand builds the
// questions, the engine, the LLM clients and the retriever of Run.
type CommandOptions struct {
	// Gold is the question file and Format its format ("" detects it; see
	// bench.LoadGold); Limit > 0 keeps only its first Limit questions.
	Gold, Format string
	Limit        int
	// DB names the databases as eval's --db does (open.Open: a SQLite
	// folder, or postgres://, mysql://, duckdb: for --method direct); Out
	// is the output folder; Tables Spider's tables.json ("" for none).
	DB, Out, Tables string
	// AllowSuperuser lets PostgreSQL run the candidates under a role that
	// may administer the server (open.Options.AllowSuperuser).
	AllowSuperuser bool
	// Method is MethodChess or MethodDirect; Config the name of the CHESS
	// configuration (see Configs; ignored by MethodDirect).
	Method, Config string
	// Timeout bounds each candidate's execution and each graded query;
	// Workers is the number of questions generated at once; MaxRows the
	// row cap of a query result. All must be positive.
	Timeout          time.Duration
	Workers, MaxRows int
	// Resume and Overwrite are Options' fields (they exclude each other);
	// YAMLTemperatures and AddConnections are Options'.
	Resume, Overwrite, YAMLTemperatures, AddConnections bool
	// LLM holds the endpoint's settings, shared by the generation steps
	// and the LLM judges of Metrics (eval.Judge: flags of eval). Its
	// ParseRetries apply to the generation steps only when
	// ParseRetriesSet; otherwise CHESS's official 12 attempts.
	LLM             eval.Judge
	ParseRetriesSet bool
	// IndexDir is the folder of the CHESS indexes ("" means Out/index).
	// EmbedModelEntity and EmbedModelContext are the embedding models of
	// retrieve_entity and retrieve_context; each "" means EmbedModel, then
	// $SQLJUDGE_EMBED_MODEL, then the official model
	// (DefaultEmbedModelEntity, DefaultEmbedModelContext). Run probes
	// both: an endpoint that serves neither is an InputError.
	// NoEmbeddings skips both retrieval steps instead (an explicit
	// departure). TextAffinity, FoldCase, ShortScan are index.Options'
	// fields (extensions, off by default).
	IndexDir, EmbedModel                string
	EmbedModelEntity, EmbedModelContext string
	NoEmbeddings                        bool
	TextAffinity, FoldCase, ShortScan   bool
	// Metrics grade the predictions at the end (as eval's --metrics);
	// Suite and Settings configure them as eval's flags do: Settings
	// holds the metrics' own settings (metric.Settings; nil for their
	// defaults, metric.DefaultOptions).
	Metrics  []string
	Suite    string
	Settings *metric.Options
	// Progress is told about each finished question; Log receives notices
	// (nil: discarded).
	Progress run.Progress
	Log      io.Writer
}

// sqliteFiles is the SQLite engine's file lookup, which the value index
// reads.
type sqliteFiles interface {
	Path(db string) (string, error)
}

// RunCommand does what sqljudge generate does: it checks o, loads the
// questions, opens the databases (SQLite for --method chess, every engine
// of eval for --method direct), checks every db_id, builds
// the LLM client, the CHESS retriever and the judges, and calls Run.
// Errors: InputError for bad input (including outdir.ErrOutputExists,
// outdir.ErrLocked: another run writes to --out, and ErrInput), bench.ErrFormat for a bad question file, eval.InputError for
// an unknown db_id, bad judge settings or a metric that cannot grade on
// the engine (equiv and verdict on another engine than SQLite); an interrupted run's error names
// the ledger to resume from. Before any question it checks the endpoint
// (unless o.LLM.Check is false): one that does not answer is an error
// naming its URL. A finished run in which questions failed returns its
// summary and an error wrapping ErrQuestionsFailed that says how many.
func RunCommand(ctx context.Context, o CommandOptions) (*Summary, error) {
	cfg, err := o.check()
	if err != nil {
		return nil, err
	}
	items, err := bench.LoadGold(o.Gold, bench.Format(o.Format))
	if err != nil {
		return nil, err
	}
	if o.Limit > 0 && o.Limit < len(items) {
		items = items[:o.Limit]
	}
	var schemas schema.Schemas
	if o.Tables != "" {
		if schemas, err = schema.Load(o.Tables); err != nil {
			return nil, InputError{Err: err}
		}
	}
	eng, err := open.Open(o.DB, open.Options{MaxRows: o.MaxRows, MaxConns: o.Workers, AllowSuperuser: o.AllowSuperuser})
	if err != nil {
		return nil, InputError{Err: err}
	}
	defer eng.Close()
	files, ok := eng.(sqliteFiles)
	if !ok && o.Method == MethodChess {
		return nil, usage.Errorf("--db: --method chess reads SQLite databases (a folder of <db_id>/<db_id>.sqlite or <db_id>.sqlite files), as the official code does; %s databases run with --method direct", eng.Dialect())
	}
	if err := eval.CheckMetricsDialect(o.Metrics, eng.Dialect()); err != nil {
		return nil, err
	}
	if err := eval.CheckDatabases(ctx, items, eng, schemas, o.Tables); err != nil {
		return nil, err
	}
	opts, err := o.runOptions(items, eng, files, cfg)
	if err != nil {
		return nil, err
	}
	opts.MetricOptions.EM.Schemas = schemas
	if err := checkEndpoint(ctx, opts.LLM, o.LLM.Check); err != nil {
		return nil, err
	}
	sum, err := Run(ctx, opts)
	switch {
	case errors.Is(err, outdir.ErrOutputExists), errors.Is(err, outdir.ErrLocked), errors.Is(err, ErrInput):
		return nil, InputError{Err: err}
	case err != nil && ctx.Err() != nil:
		return nil, fmt.Errorf("interrupted: the finished questions are in %s; continue with --resume", filepath.Join(o.Out, LedgerFile))
	case err != nil:
		return nil, err
	}
	return sum, failedError(sum, o.Out)
}

// check validates o's options and returns the CHESS configuration (zero
// for MethodDirect).
func (o CommandOptions) check() (Config, error) {
	switch {
	case o.Gold == "":
		return Config{}, usage.Errorf("--gold is required: the question file")
	case o.DB == "":
		return Config{}, usage.Errorf("--db is required: the folder of the benchmark's databases")
	case o.Out == "":
		return Config{}, usage.Errorf("--out is required: the output folder")
	case o.Method != MethodChess && o.Method != MethodDirect:
		return Config{}, usage.Errorf("--method %q: want chess or direct", o.Method)
	case o.Timeout <= 0 || o.Workers <= 0 || o.MaxRows <= 0 || o.Limit < 0:
		return Config{}, usage.Errorf("--timeout, --workers and --max-rows must be positive, --limit not negative")
	case o.Resume && o.Overwrite:
		return Config{}, usage.Errorf("--resume and --overwrite exclude each other")
	}
	if o.Settings != nil {
		// The metrics' settings, by the rules they declare, as eval
		// checks them.
		if err := metric.CheckSettings(o.Settings, o.Metrics); err != nil {
			return Config{}, usage.Error{Err: err}
		}
	}
	if o.Method != MethodChess {
		return Config{}, nil
	}
	c, err := LookupConfig(o.Config)
	if err != nil {
		return Config{}, InputError{Err: err}
	}
	return c, nil
}

// runOptions builds Run's options: the generating LLM's configuration,
// the retriever (CHESS with an embedding model), the judges' client.
func (o CommandOptions) runOptions(items []bench.Item, eng engine.Engine, files sqliteFiles, cfg Config) (Options, error) {
	lc := o.llmConfig()
	if _, err := llm.New(lc); err != nil {
		return Options{}, InputError{Err: err}
	}
	opts := Options{
		Items: items, Engine: eng, Out: o.Out, Method: o.Method, Config: cfg, LLM: lc,
		Workers: o.Workers, Timeout: o.Timeout, Seed: o.LLM.Seed,
		Resume: o.Resume, Overwrite: o.Overwrite, Metrics: o.Metrics, YAMLTemperatures: o.YAMLTemperatures, AddConnections: o.AddConnections,
		MetricOptions: o.metricOptions(),
		Progress:      o.Progress,
	}
	if o.ParseRetriesSet {
		opts.ParseAttempts = o.metricOptions().Judge.ParseRetries + 1
	}
	if o.Method == MethodChess {
		if err := o.retriever(&opts, lc, files); err != nil {
			return Options{}, err
		}
	}
	client, err := eval.NewJudgeClient(o.LLM, o.Out, o.Metrics)
	if err != nil {
		return Options{}, err
	}
	opts.MetricOptions.Judge.Client = client
	return opts, nil
}

// llmConfig is the generating LLM's configuration: the judges' (environment
// defaults, the reply store in Out/llm-cache unless set) without JSON
// schemas.
func (o CommandOptions) llmConfig() llm.Config {
	lc := o.LLM.LLMConfig(o.Out)
	lc.Schema = llm.SchemaOff
	return lc
}

// The official embedding models: retrieve_entity.py embeds with
// text-embedding-3-small, db_catalog/preprocess.py (the vector database of
// retrieve_context) with text-embedding-3-large.
const (
	DefaultEmbedModelEntity  = "text-embedding-3-small"
	DefaultEmbedModelContext = "text-embedding-3-large"
)

// embedModels returns the embedding models of retrieve_entity and
// retrieve_context (see CommandOptions).
func (o CommandOptions) embedModels() (entity, contextModel string) {
	pick := func(own, def string) string {
		for _, m := range []string{own, o.EmbedModel, os.Getenv(llm.EnvEmbedModel)} {
			if m != "" {
				return m
			}
		}
		return def
	}
	return pick(o.EmbedModelEntity, DefaultEmbedModelEntity), pick(o.EmbedModelContext, DefaultEmbedModelContext)
}

// retriever sets opts' Retriever and embedders from the embedding models
// of o, and lists the index options that depart from CHESS; with
// NoEmbeddings it tells o.Log that both retrieval steps are skipped.
func (o CommandOptions) retriever(opts *Options, lc llm.Config, files sqliteFiles) error {
	if o.NoEmbeddings {
		if o.Log != nil {
			fmt.Fprintln(o.Log, "generate: --no-embeddings: retrieve_entity and retrieve_context are skipped (no example values, no column descriptions)")
		}
		opts.Departures = append(opts.Departures, "--no-embeddings")
		return nil
	}
	entity, contextModel := o.embedModels()
	clients := make([]*llm.Client, 2)
	for i, m := range []string{entity, contextModel} {
		ec := lc
		ec.EmbedModel = m
		c, err := llm.New(ec)
		if err != nil {
			return InputError{Err: err}
		}
		clients[i] = c
	}
	if entity == contextModel {
		clients[1] = clients[0]
	}
	dir := o.IndexDir
	if dir == "" {
		dir = filepath.Join(o.Out, "index")
	}
	opts.Embedder, opts.ContextEmbedder, opts.ProbeEmbeddings = clients[0], clients[1], true
	opts.Retriever = IndexRetriever(dir, files.Path, index.Options{
		EmbedModel: contextModel, TextAffinity: o.TextAffinity, FoldCase: o.FoldCase, ShortScan: o.ShortScan,
	}, clients[0], clients[1])
	for flag, on := range map[string]bool{"--text-affinity": o.TextAffinity, "--fold-case": o.FoldCase, "--short-scan": o.ShortScan} {
		if on {
			opts.Departures = append(opts.Departures, flag)
		}
	}
	slices.Sort(opts.Departures)
	return nil
}

// metricOptions gives each grading metric the options eval gives it at
// its defaults (eval.Defaults), but for what generate's flags set: the
// time limit and row cap of each query, the test suite, the metrics' own
// settings and the judges' settings. The schemas and the judges' client
// are added once opened.
func (o CommandOptions) metricOptions() metric.Options {
	eo := eval.Defaults()
	eo.Timeout, eo.MaxRows, eo.Suite = o.Timeout, o.MaxRows, o.Suite
	if o.Settings != nil {
		eo.Settings = *o.Settings
	}
	eo.Judge = o.LLM
	return eo.MetricOptions(nil, nil)
}
