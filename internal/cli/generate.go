package cli

import (
	"errors"
	"fmt"
	"path/filepath"
	"time"

	"github.com/spf13/cobra"

	"github.com/sqljudge/sqljudge/internal/engine"
	"github.com/sqljudge/sqljudge/internal/engine/open"
	"github.com/sqljudge/sqljudge/internal/eval"
	"github.com/sqljudge/sqljudge/internal/generate"
	"github.com/sqljudge/sqljudge/internal/llm"
	"github.com/sqljudge/sqljudge/internal/metric"
	"github.com/sqljudge/sqljudge/internal/report"
)

type generateFlags struct {
	gold, format, db, out, method, config, tables, progress string
	indexDir, embedModel, suite                             string
	embedEntity, embedContext                               string
	noEmbeddings                                            bool
	metrics                                                 []string
	timeout                                                 time.Duration
	workers, maxRows, limit                                 int
	resume, overwrite                                       bool
	textOnly, textAffinity, foldCase, shortScan             bool
	yamlTemps, addConnections, allowSuperuser               bool
	settings                                                metric.Options
	llm                                                     llmFlags
}

func newGenerateCmd() *cobra.Command {
	f := &generateFlags{}
	cmd := &cobra.Command{
		Use:   "generate",
		Short: "Write SQL for benchmark questions with CHESS or one direct prompt, and grade it",
		Long: `generate writes a SQL query for every question of a benchmark file with an
LLM behind any OpenAI-compatible endpoint (the --llm-* flags and environment
variables of eval's judges), then grades the predictions with --metrics by
eval's runner.

--method chess runs the CHESS pipeline (Talaei et al. 2024, code
ShayanTalaei/CHESS) with the official templates and parameters of
--config: CHESS_IR_CG_UT (default: keywords, entity and context retrieval,
20 candidates from two templates, revision of failing or empty ones, 20
unit tests and one evaluation call per test) or CHESS_IR_SS_CG (retrieval,
schema selection: one filter_column call per column, select_tables,
select_columns; one candidate and its revision). --method direct makes one
call per question with the question, its evidence or instructions and the
schema's CREATE statements.

Every request carries X-Sqljudge-Step (the step) and X-Sqljudge-Item (the
question id). Outputs in --out: predictions.sql (one query per line, in
question order), predict_dev.json (BIRD input), ledger.jsonl (per question:
every step, every call's model, temperature, prompt hash, tokens and
latency, the candidates and their execution, clusters, unit tests, why the
winner won), summary.json (calls, tokens, cost, per-step counts) and, with
--metrics, eval/results.jsonl and eval/summary.json. Replies are kept in
--llm-cache (default OUT/llm-cache): a re-run makes no request. --resume
keeps finished questions.

Questions: Spider dev.json, BIRD dev.json (evidence is the hint), a Defog
SQL-Eval CSV (instructions are the hint) or JSONL with "question". CHESS reads
SQLite databases (--db DIR/<db_id>/<db_id>.sqlite); --method direct runs on
every engine eval supports (postgres://, mysql://, duckdb:), the schema's
CREATE statements read from the engine.`,
		Example: `  # CHESS on the first 50 Spider dev questions, graded by ex
  sqljudge generate --gold dev.json --db database/ --method chess --limit 50 \
      --llm-base-url http://localhost:8000/v1 --llm-model qwen2.5-coder \
      --metrics ex --tables tables.json --out out/chess

  # the one-call baseline on BIRD dev
  sqljudge generate --gold dev.json --db dev_databases/ --method direct \
      --metrics ex_bird --out out/direct`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return runGenerate(cmd, f) },
	}
	fl := cmd.Flags()
	fl.StringVar(&f.gold, "gold", "", "question file: Spider or BIRD dev.json, SQL-Eval CSV, JSONL")
	fl.StringVar(&f.format, "format", "", "question file format (default: detect)")
	fl.StringVar(&f.db, "db", "", open.DBHelp+"\n(--method chess reads SQLite databases only)")
	fl.BoolVar(&f.allowSuperuser, "allow-superuser", false, "PostgreSQL: run queries under a --db role that may administer the server; refused by default")
	fl.StringVar(&f.out, "out", "", "output folder")
	fl.StringVar(&f.method, "method", generate.MethodChess, "chess or direct")
	fl.StringVar(&f.config, "config", generate.DefaultConfig, "CHESS configuration: CHESS_IR_CG_UT or CHESS_IR_SS_CG")
	fl.StringVar(&f.tables, "tables", "", "Spider tables.json: for em, and to label Spider items by hardness in the grading")
	fl.StringSliceVar(&f.metrics, "metrics", nil, "grade the predictions at the end with these metrics (as eval's --metrics)")
	fl.StringVar(&f.suite, "suite", "", "ts: test-suite folder, as eval's --suite")
	registerSettings(fl, &f.settings, false) // the metrics' settings, as eval's
	fl.DurationVar(&f.timeout, "timeout", eval.DefaultTimeout, "time limit of each candidate's execution (and of each query of the grading)")
	fl.IntVar(&f.workers, "workers", 2, "questions generated at once")
	fl.IntVar(&f.maxRows, "max-rows", engine.DefaultMaxRows, "row cap of a query result")
	fl.IntVar(&f.limit, "limit", 0, "generate only the first N questions (0: all)")
	fl.BoolVar(&f.resume, "resume", false, "keep the finished questions of OUT/ledger.jsonl and do the rest")
	fl.BoolVar(&f.overwrite, "overwrite", false, "start over in OUT (the LLM cache still answers every earlier request)")
	fl.StringVar(&f.indexDir, "index", "", "chess: folder of the per-database value and description indexes, built on first use (default OUT/index; see sqljudge index)")
	fl.StringVar(&f.embedEntity, "embed-model-entity", "", "chess: embedding model of retrieve_entity (default --embed-model, $"+llm.EnvEmbedModel+", then CHESS's "+generate.DefaultEmbedModelEntity+")")
	fl.StringVar(&f.embedContext, "embed-model-context", "", "chess: embedding model of retrieve_context (default --embed-model, $"+llm.EnvEmbedModel+", then CHESS's "+generate.DefaultEmbedModelContext+")")
	fl.StringVar(&f.embedModel, "embed-model", "", "chess: embedding model of both retrieval steps, unless --embed-model-entity or --embed-model-context says otherwise")
	fl.BoolVar(&f.noEmbeddings, "no-embeddings", false, "chess: skip retrieve_entity and retrieve_context (no embedding endpoint; a departure from CHESS). Without it, an endpoint that serves no embeddings is an error")
	fl.BoolVar(&f.textAffinity, "text-affinity", false, `chess: index every column of SQLite TEXT affinity instead of CHESS's columns declared with "TEXT" (an extension; see sqljudge index)`)
	textTypeOnlyFlag(fl, &f.textOnly)
	fl.BoolVar(&f.foldCase, "fold-case", false, "chess: value index over lower-cased 3-grams (an extension of CHESS; see README)")
	fl.BoolVar(&f.shortScan, "short-scan", false, "chess: also compare short search strings with every value of about their length (an extension of CHESS)")
	fl.BoolVar(&f.yamlTemps, "yaml-temperatures", false, "chess: send each step at its configuration file's temperature (default: the temperature the official code sends, where a step at 0 keeps the previous step's; see docs/generation.md)")
	fl.BoolVar(&f.addConnections, "add-connections", false, "chess: add the key columns of the selected tables to the tentative schema after filter_column and select_tables (the official add_connections_to_tentative_schema changes nothing)")
	fl.StringVar(&f.progress, "progress", "auto", "progress bar on stderr: auto (when a terminal), always, never")
	f.llm.register(fl)
	for name, usage := range map[string]string{
		"llm-base-url":    "OpenAI-compatible API root of the generating LLM, its embeddings and the LLM judges, e.g. http://localhost:8000/v1 (default $" + llm.EnvBaseURL + "; the key is read from $" + llm.EnvAPIKey + ")",
		"llm-model":       "model of every generation step and of the LLM judges (default $" + llm.EnvModel + ")",
		"llm-temperature": "direct: sampling temperature (CHESS steps use their configuration's); judges: theirs",
		"llm-json-schema": "judges only: send JSON schemas (auto, on, off)",
	} {
		fl.Lookup(name).Usage = usage
	}
	for _, s := range metric.Settings() {
		if s.GenerateHelp != "" {
			fl.Lookup(s.Flag).Usage = s.GenerateHelp // the setting's wider meaning here
		}
	}
	return cmd
}

func runGenerate(cmd *cobra.Command, f *generateFlags) error {
	stdout, stderr := cmd.OutOrStdout(), cmd.ErrOrStderr()
	if f.textOnly && f.textAffinity {
		return errTextTypeOnly
	}
	sum, err := generate.RunCommand(cmd.Context(), generate.CommandOptions{
		Gold: f.gold, Format: f.format, Limit: f.limit, DB: f.db, Out: f.out, Tables: f.tables,
		Method: f.method, Config: f.config, Timeout: f.timeout, Workers: f.workers, MaxRows: f.maxRows,
		Resume: f.resume, Overwrite: f.overwrite, YAMLTemperatures: f.yamlTemps, AddConnections: f.addConnections, AllowSuperuser: f.allowSuperuser,
		LLM: f.llm.judge(), ParseRetriesSet: cmd.Flags().Changed("llm-parse-retries"),
		IndexDir: f.indexDir, EmbedModel: f.embedModel, EmbedModelEntity: f.embedEntity, EmbedModelContext: f.embedContext, NoEmbeddings: f.noEmbeddings, TextAffinity: f.textAffinity, FoldCase: f.foldCase, ShortScan: f.shortScan,
		Metrics: f.metrics, Suite: f.suite, Settings: &f.settings,
		Progress: newProgress(f.progress, stderr), Log: stderr,
	})
	if err != nil && !errors.Is(err, generate.ErrQuestionsFailed) {
		return err
	}
	fmt.Fprintf(stdout, "%s %s: %d questions (%d generated, %d resumed, %d failed); %.1f LLM calls, %.0f prompt and %.0f completion tokens per question; %d requests sent, %d from the cache\n",
		sum.Method, sum.Config, sum.Questions, sum.Generated, sum.Resumed, sum.Failed,
		sum.PerQuestion.Calls, sum.PerQuestion.PromptTokens, sum.PerQuestion.CompletionTokens, sum.HTTP.Requests, sum.HTTP.CacheHits)
	if sum.Eval != nil {
		report.PrintTable(stdout, sum.Eval)
	}
	fmt.Fprintf(stdout, "predictions: %s\nledger: %s\nsummary: %s\n", filepath.Join(f.out, generate.PredictionsFile),
		filepath.Join(f.out, generate.LedgerFile), filepath.Join(f.out, generate.SummaryFile))
	return err // ErrQuestionsFailed: exit 1 after the summary
}
