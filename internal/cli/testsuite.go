package cli

import (
	"fmt"
	"os"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/sqljudge/sqljudge/internal/bench"
	"github.com/sqljudge/sqljudge/internal/engine/sqlite"
	"github.com/sqljudge/sqljudge/internal/eval"
	"github.com/sqljudge/sqljudge/internal/schema"
	"github.com/sqljudge/sqljudge/internal/testsuite"
	"github.com/sqljudge/sqljudge/internal/usage"
)

func newTestsuiteCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "testsuite",
		Short: "Build test suites of databases for test-suite accuracy (ts)",
	}
	cmd.AddCommand(newTestsuiteBuildCmd())
	return cmd
}

func newTestsuiteBuildCmd() *cobra.Command {
	f := &tsBuildFlags{}
	cmd := &cobra.Command{
		Use:     "build",
		Short:   "Fuzz databases, mutate gold queries into neighbours, and distil a suite",
		Long:    tsBuildLong,
		Example: `  sqljudge testsuite build --db database/ --gold dev_gold.sql --tables tables.json --out suites/ --seed 1`,
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return runTestsuiteBuild(cmd, f)
		},
	}
	f.register(cmd.Flags())
	return cmd
}

// tsBuildLong is the long help of sqljudge testsuite build.
const tsBuildLong = `build makes a test suite for every db_id of a gold file, after Zhong, Yu and
Klein (EMNLP 2020): it samples random databases with each original database's
schema (values from the original data and from the gold queries' literals,
keys and foreign keys respected), mutates every gold query into neighbour
queries, and keeps, greedily, the databases that tell neighbours apart from
their gold, until no sampled database tells apart a new one.

The suite is written in the official layout, OUT/<db_id>/<db_id>.sqlite (the
original) and OUT/<db_id>/<db_id>_<k>.sqlite, with OUT/suite.json reporting
databases per db_id and neighbours generated, told apart and never told
apart (with examples). The same --seed gives byte-identical databases.
Grade with: sqljudge eval --metrics ts --suite OUT ...`

// tsBuildFlags are the flags of sqljudge testsuite build.
type tsBuildFlags struct {
	db, gold, format, out    string
	tables                   string
	seed                     uint64
	budget, maxDBs, workers  int
	batch, patience, maxRows int
	timeout                  time.Duration
	keepDistinct             bool
}

// register registers the flags of sqljudge testsuite build on fl.
func (f *tsBuildFlags) register(fl *pflag.FlagSet) {
	fl.StringVar(&f.db, "db", "", "folder of the original databases: DB/<db_id>/<db_id>.sqlite")
	fl.StringVar(&f.gold, "gold", "", "gold file (any eval gold format)")
	fl.StringVar(&f.format, "format", "", "gold format (default: detect)")
	fl.StringVar(&f.tables, "tables", "", "Spider tables.json: checks db_ids and adds foreign keys the databases do not declare")
	fl.StringVar(&f.out, "out", "", "suite folder to write")
	fl.Uint64Var(&f.seed, "seed", 1, "random seed")
	fl.IntVar(&f.budget, "budget", 400, "fuzzed databases sampled per db_id at most")
	fl.IntVar(&f.batch, "batch", 10, "databases sampled per greedy round")
	fl.IntVar(&f.patience, "patience", 10, "rounds without a newly told-apart neighbour before stopping")
	fl.IntVar(&f.maxDBs, "max-databases", 40, "databases per db_id at most, the original included")
	fl.IntVar(&f.workers, "workers", 0, "db_ids built at once (default: CPUs)")
	fl.IntVar(&f.maxRows, "max-rows", 10000, "row cap of each query while building")
	fl.DurationVar(&f.timeout, "timeout", 5*time.Second, "time limit of each query while building")
	fl.BoolVar(&f.keepDistinct, "keep-distinct", false, "build for grading with DISTINCT kept")
}

// runTestsuiteBuild builds the suite f asks for and prints its coverage.
// Missing flags, an unreadable tables.json or an unknown db_id are usage
// errors.
func runTestsuiteBuild(cmd *cobra.Command, f *tsBuildFlags) error {
	if f.db == "" || f.gold == "" || f.out == "" {
		return usage.Errorf("--db, --gold and --out are required")
	}
	items, err := bench.LoadGold(f.gold, bench.Format(f.format))
	if err != nil {
		return err
	}
	var schemas schema.Schemas
	if f.tables != "" {
		if schemas, err = schema.Load(f.tables); err != nil {
			return usage.Error{Err: err}
		}
	}
	golds, err := goldsByDB(cmd, f, items, schemas)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(f.out, 0o755); err != nil {
		return err
	}
	rep, err := testsuite.Build(cmd.Context(), f.db, golds, f.out, testsuite.Options{
		Seed: f.seed, Budget: f.budget, Batch: f.batch, Patience: f.patience, MaxDatabases: f.maxDBs,
		Timeout: f.timeout, MaxRows: f.maxRows, KeepDistinct: f.keepDistinct, Workers: f.workers,
		Log: cmd.ErrOrStderr(), Schemas: schemas,
	})
	if err != nil {
		return err
	}
	fmt.Fprintf(cmd.OutOrStdout(), "%d db_ids, %.1f databases each on average, %d/%d neighbours told apart by the suite (coverage %.4f of those any sampled database told apart), %d never told apart, %.0fs\nsuite: %s\n",
		len(rep.DBs), rep.MeanDatabases, rep.Total.Covered, rep.Total.Runnable, rep.Coverage, rep.Total.NeverDistinguished, rep.Seconds, f.out)
	return nil
}

// goldsByDB groups the items' gold queries by db_id, after checking each
// db_id as eval does (eval.CheckDatabases): it must be in schemas (when
// given) and open as a SQLite database under f.db; otherwise a usage error
// names the item's gold position.
func goldsByDB(cmd *cobra.Command, f *tsBuildFlags, items []bench.Item, schemas schema.Schemas) (map[string][]string, error) {
	eng := sqlite.New(f.db, sqlite.Options{})
	defer eng.Close()
	if err := eval.CheckDatabases(cmd.Context(), items, eng, schemas, f.tables); err != nil {
		return nil, err
	}
	golds := map[string][]string{}
	for _, it := range items {
		golds[it.DBID] = append(golds[it.DBID], it.Gold...)
	}
	return golds, nil
}
