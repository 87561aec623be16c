package cli

import (
	"fmt"
	"os"
	"time"

	"github.com/spf13/cobra"

	"github.com/sqljudge/sqljudge/internal/bench"
	"github.com/sqljudge/sqljudge/internal/engine/sqlite"
	"github.com/sqljudge/sqljudge/internal/schema"
	"github.com/sqljudge/sqljudge/internal/testsuite"
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
	var (
		db, gold, format, out    string
		tables                   string
		seed                     uint64
		budget, maxDBs, workers  int
		batch, patience, maxRows int
		timeout                  time.Duration
		keepDistinct             bool
	)
	cmd := &cobra.Command{
		Use:   "build",
		Short: "Fuzz databases, mutate gold queries into neighbours, and distil a suite",
		Long: `build makes a test suite for every db_id of a gold file, after Zhong, Yu and
Klein (EMNLP 2020): it samples random databases with each original database's
schema (values from the original data and from the gold queries' literals,
keys and foreign keys respected), mutates every gold query into neighbour
queries, and keeps, greedily, the databases that tell neighbours apart from
their gold, until no sampled database tells apart a new one.

The suite is written in the official layout, OUT/<db_id>/<db_id>.sqlite (the
original) and OUT/<db_id>/<db_id>_<k>.sqlite, with OUT/suite.json reporting
databases per db_id and neighbours generated, told apart and never told
apart (with examples). The same --seed gives byte-identical databases.
Grade with: sqljudge eval --metrics ts --suite OUT ...`,
		Example: `  sqljudge testsuite build --db database/ --gold dev_gold.sql --tables tables.json --out suites/ --seed 1`,
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if db == "" || gold == "" || out == "" {
				return usagef("--db, --gold and --out are required")
			}
			items, err := bench.LoadGold(gold, bench.Format(format))
			if err != nil {
				return err
			}
			var schemas schema.Schemas
			if tables != "" {
				if schemas, err = schema.Load(tables); err != nil {
					return usageError{err}
				}
			}
			eng := sqlite.New(db, sqlite.Options{})
			defer eng.Close()
			golds := map[string][]string{}
			for _, it := range items {
				if _, ok := golds[it.DBID]; !ok {
					if schemas != nil && schemas[it.DBID] == nil {
						return usagef("%s: unknown db_id %q: it is not in %s", it.GoldPos, it.DBID, tables)
					}
					if err := eng.Check(cmd.Context(), it.DBID); err != nil {
						return usagef("%s: db_id %q: %v", it.GoldPos, it.DBID, err)
					}
				}
				golds[it.DBID] = append(golds[it.DBID], it.Gold...)
			}
			if err := os.MkdirAll(out, 0o755); err != nil {
				return err
			}
			rep, err := testsuite.Build(cmd.Context(), db, golds, out, testsuite.Options{
				Seed: seed, Budget: budget, Batch: batch, Patience: patience, MaxDatabases: maxDBs,
				Timeout: timeout, MaxRows: maxRows, KeepDistinct: keepDistinct, Workers: workers,
				Log: cmd.ErrOrStderr(), Schemas: schemas,
			})
			if err != nil {
				return err
			}
			fmt.Fprintf(cmd.OutOrStdout(), "%d db_ids, %.1f databases each on average, %d/%d neighbours told apart by the suite (coverage %.4f of those any sampled database told apart), %d never told apart, %.0fs\nsuite: %s\n",
				len(rep.DBs), rep.MeanDatabases, rep.Total.Covered, rep.Total.Runnable, rep.Coverage, rep.Total.NeverDistinguished, rep.Seconds, out)
			return nil
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&db, "db", "", "folder of the original databases: DB/<db_id>/<db_id>.sqlite")
	fl.StringVar(&gold, "gold", "", "gold file (any eval gold format)")
	fl.StringVar(&format, "format", "", "gold format (default: detect)")
	fl.StringVar(&tables, "tables", "", "Spider tables.json: checks db_ids and adds foreign keys the databases do not declare")
	fl.StringVar(&out, "out", "", "suite folder to write")
	fl.Uint64Var(&seed, "seed", 1, "random seed")
	fl.IntVar(&budget, "budget", 400, "fuzzed databases sampled per db_id at most")
	fl.IntVar(&batch, "batch", 10, "databases sampled per greedy round")
	fl.IntVar(&patience, "patience", 10, "rounds without a newly told-apart neighbour before stopping")
	fl.IntVar(&maxDBs, "max-databases", 40, "databases per db_id at most, the original included")
	fl.IntVar(&workers, "workers", 0, "db_ids built at once (default: CPUs)")
	fl.IntVar(&maxRows, "max-rows", 10000, "row cap of each query while building")
	fl.DurationVar(&timeout, "timeout", 5*time.Second, "time limit of each query while building")
	fl.BoolVar(&keepDistinct, "keep-distinct", false, "build for grading with DISTINCT kept")
	return cmd
}
