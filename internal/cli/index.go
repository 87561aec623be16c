package cli

import (
	"fmt"
	"io"
	"time"

	"github.com/jedib0t/go-pretty/v6/table"
	"github.com/jedib0t/go-pretty/v6/text"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/sqljudge/sqljudge/internal/generate/index"
	"github.com/sqljudge/sqljudge/internal/llm"
	"github.com/sqljudge/sqljudge/internal/usage"
)

type indexFlags struct {
	db, out, dbIDs               string
	baseURL, embedModel, cache   string
	timeout                      time.Duration
	retries, concurrency         int
	rebuild, textOnly, noValDesc bool
	textAffinity                 bool
}

func newIndexCmd() *cobra.Command {
	f := &indexFlags{}
	cmd := &cobra.Command{
		Use:   "index --db DIR [--embed-model M] [--out CACHE]",
		Short: "Build the CHESS value index and description embeddings of a benchmark's databases",
		Long: `index preprocesses every SQLite database of DIR as CHESS does once per
database (ShayanTalaei/CHESS, src/preprocess.py): the distinct values of its
text columns in a MinHash LSH (signature 100, character 3-grams, threshold
0.01), and the column descriptions of BIRD's database_description/*.csv with
their embeddings. The result is cached in CACHE/<db_id>.index.json.gz and
reused until the database or its description files change; sqljudge
generate --method chess reads the same cache.

Databases are DIR/<db_id>/<db_id>.sqlite (Spider, BIRD) or DIR/<db_id>.sqlite.
Descriptions are embedded only when an embedding model is given (--embed-model
or $` + llm.EnvEmbedModel + `, with --llm-base-url or $` + llm.EnvBaseURL + `); otherwise
generate embeds them on first use. Spider has no descriptions: nothing is
embedded.`,
		Example: `  sqljudge index --db ../shared/data/spider/database --out index/
  sqljudge index --db bird/dev_databases --embed-model text-embedding-3-large --out index/`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return runIndex(cmd, f)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&f.db, "db", "", "folder of the databases: DIR/<db_id>/<db_id>.sqlite or DIR/<db_id>.sqlite (or one .sqlite file)")
	fl.StringVar(&f.out, "out", "index", "folder of the index cache")
	fl.StringVar(&f.dbIDs, "db-id", "", "index only these databases (comma-separated db_ids)")
	fl.StringVar(&f.baseURL, "llm-base-url", "", "OpenAI-compatible API root for the embeddings (default $"+llm.EnvBaseURL+"; the key is read from $"+llm.EnvAPIKey+")")
	fl.StringVar(&f.embedModel, "embed-model", "", "embedding model of the description embeddings (default $"+llm.EnvEmbedModel+"; none: not embedded now)")
	fl.StringVar(&f.cache, "llm-cache", "", "folder of the LLM reply store (default CACHE/llm-cache)")
	fl.DurationVar(&f.timeout, "llm-timeout", 120*time.Second, "time limit of one embedding request")
	fl.IntVar(&f.retries, "llm-retries", llm.DefaultMaxRetries, "retries of a request on 408/409/429/5xx or a connection error")
	fl.IntVar(&f.concurrency, "llm-concurrency", 4, "requests in flight at once")
	fl.BoolVar(&f.rebuild, "rebuild", false, "build even when the cache is current")
	fl.BoolVar(&f.textAffinity, "text-affinity", false, `index every column of SQLite TEXT affinity (CHAR, VARCHAR, any-case text; an extension) instead of CHESS's columns declared with "TEXT"`)
	textTypeOnlyFlag(fl, &f.textOnly)
	fl.BoolVar(&f.noValDesc, "no-value-description", false, "leave value_description out of the descriptions (CHESS's use_value_description=False)")
	return cmd
}

func runIndex(cmd *cobra.Command, f *indexFlags) error {
	if f.textOnly && f.textAffinity {
		return errTextTypeOnly
	}
	rep, err := index.BuildAll(cmd.Context(), index.BuildOptions{
		DB: f.db, Out: f.out, DBIDs: f.dbIDs, BaseURL: f.baseURL, EmbedModel: f.embedModel, Cache: f.cache,
		Timeout: f.timeout, Retries: f.retries, Concurrency: f.concurrency,
		Rebuild: f.rebuild, TextAffinity: f.textAffinity, NoValueDescription: f.noValDesc,
	})
	if rep == nil {
		return err
	}
	printIndexReport(cmd.OutOrStdout(), rep, f.out)
	for _, e := range rep.Failed {
		fmt.Fprintln(cmd.ErrOrStderr(), "sqljudge index:", e)
	}
	return err
}

// printIndexReport prints BuildAll's table (one row per indexed database
// and a total), the embedding usage and the cache folder.
func printIndexReport(w io.Writer, rep *index.BuildReport, out string) {
	t := table.NewWriter()
	t.SetOutputMirror(w)
	t.SetStyle(table.StyleLight)
	t.Style().Format.Header = text.FormatDefault
	t.Style().Format.Footer = text.FormatDefault
	t.AppendHeader(table.Row{"db_id", "tables", "columns", "values", "descriptions", "embedded", "cache", "seconds"})
	for _, r := range rep.Rows {
		st := r.Stats
		state := "read"
		if r.Built {
			state = "built"
		}
		embedded := "-"
		if st.Descriptions > 0 {
			embedded = map[bool]string{true: "yes", false: "no"}[st.DescriptionsEmbedded]
		}
		t.AppendRow(table.Row{r.DBID, st.Tables, st.Columns, st.Values, st.Descriptions, embedded, state,
			fmt.Sprintf("%.2f", r.Seconds)})
	}
	tot := rep.Total
	t.AppendFooter(table.Row{fmt.Sprintf("%d databases", len(rep.Rows)), tot.Tables, tot.Columns, tot.Values, tot.Descriptions, "", "",
		fmt.Sprintf("%.2f", rep.Seconds)})
	t.Render()
	if rep.Embedder != nil {
		u := rep.Embedder.Usage()
		fmt.Fprintf(w, "embeddings: %d requests (%d from the store), %d tokens, model %s\n", u.EmbedCalls, u.CacheHits, u.EmbedTokens, rep.EmbedModel)
	}
	fmt.Fprintf(w, "index cache: %s\n", out)
}

// errTextTypeOnly is the error of --text-type-only with --text-affinity.
var errTextTypeOnly = usage.Errorf("--text-type-only and --text-affinity contradict each other: CHESS's rule (columns declared with \"TEXT\") is the default now; --text-affinity indexes every column of TEXT affinity")

// textTypeOnlyFlag registers the retired --text-type-only: CHESS's column
// rule is now the default, so the flag changes nothing; cobra prints a
// deprecation notice when it is used.
func textTypeOnlyFlag(fl *pflag.FlagSet, v *bool) {
	fl.BoolVar(v, "text-type-only", false, `retired: CHESS's rule (columns declared with "TEXT") is the default`)
	_ = fl.MarkDeprecated("text-type-only", "CHESS's column rule is now the default; use --text-affinity for every column of TEXT affinity")
}
