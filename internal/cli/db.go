package cli

import (
	"errors"
	"fmt"
	"maps"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/sqljudge/sqljudge/internal/dbload"
	"github.com/sqljudge/sqljudge/internal/engine/open"
	"github.com/sqljudge/sqljudge/internal/usage"
)

func newDBCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "db",
		Short: "Manage a benchmark's databases",
		Args:  cobra.NoArgs,
	}
	cmd.AddCommand(newDBLoadCmd())
	return cmd
}

type dbLoadFlags struct {
	dsn, now, prefix, reader string
	replace                  bool
}

// EnvReaderPassword is read by db load --reader for the password of a
// reader role it creates.
const EnvReaderPassword = "SQLJUDGE_READER_PASSWORD"

func newDBLoadCmd() *cobra.Command {
	f := &dbLoadFlags{}
	cmd := &cobra.Command{
		Use:   "load --dsn DSN DUMP.sql...",
		Short: "Create a benchmark's databases from PostgreSQL dumps",
		Long: `load creates one database per dump (named after the file: academic.sql
makes academic) in the server or folder --dsn names, and fills it:

  postgres://user@host:port/postgres   runs the dump verbatim, as psql -f does
  mysql://user:pass@host:port/         translated to MySQL/MariaDB
  sqlite:DIR or DIR                    translated to SQLite files DIR/<name>.sqlite
  duckdb:DIR                           translated to DuckDB files DIR/<name>.duckdb
                                       (binaries built with -tags duckdb)

Translation keeps every table's columns, types (mapped) and NOT NULL, and
stores each value as PostgreSQL would store it: CURRENT_DATE, NOW(), INTERVAL
arithmetic, DATE_TRUNC, EXTRACT and TO_CHAR are evaluated with PostgreSQL's
rules at one clock (--now, default the time of the load). Keys, indexes,
sequences and comments are dropped; schemas too, except for DuckDB.`,
		Example: `  # Defog SQL-Eval as downloaded (git clone defog-ai/defog-data and defog-ai/sql-eval):
  # the SQLite variant, then grading predictions on it
  sqljudge db load --dsn sqlite:sqlite_dbs defog-data/defog_data/*/*.sql
  sqljudge eval --gold sql-eval/data/questions_gen_sqlite.csv --pred pred.jsonl \
      --db sqlite_dbs --metrics sqleval --out out/defog

  # the PostgreSQL variant, graded as a role that may only read
  SQLJUDGE_READER_PASSWORD=pw sqljudge db load --dsn postgres://postgres@127.0.0.1:5432/postgres \
      --reader sqljudge_reader defog-data/defog_data/*/*.sql`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runDBLoad(cmd, f, args)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&f.dsn, "dsn", "", "where to create the databases (see above)")
	fl.BoolVar(&f.replace, "replace", false, "drop or overwrite a database of the same name")
	fl.StringVar(&f.now, "now", "", "clock for CURRENT_DATE and NOW() when translating, RFC 3339 (2024-06-30T12:00:00Z)")
	fl.StringVar(&f.prefix, "prefix", "", "put this before every database name")
	fl.StringVar(&f.reader, "reader", "", "PostgreSQL: let this login role read the loaded databases and nothing else, creating it if needed (password from $"+EnvReaderPassword+"); grade with it as the --db user")
	return cmd
}

func runDBLoad(cmd *cobra.Command, f *dbLoadFlags, args []string) error {
	if f.dsn == "" {
		return usage.Errorf("--dsn is required: a server (postgres://, mysql://) or a folder (sqlite:DIR, duckdb:DIR)")
	}
	o := dbload.Options{Replace: f.replace, Prefix: f.prefix, Reader: f.reader, ReaderPassword: os.Getenv(EnvReaderPassword)}
	if f.now != "" {
		t, err := time.Parse(time.RFC3339Nano, f.now)
		if err != nil {
			return usage.Errorf("--now %q: want RFC 3339, like 2024-06-30T12:00:00Z", f.now)
		}
		o.Now = t
	}
	dumps, err := dbload.ReadDumps(args...)
	if err != nil {
		return usage.Error{Err: err}
	}
	reps, err := dbload.Load(cmd.Context(), f.dsn, dumps, o)
	out := cmd.OutOrStdout()
	for i, r := range reps {
		fmt.Fprintf(out, "%s: %s: %d tables, %d rows", dumps[i].Path, r.Database, r.Tables, r.Rows)
		if len(r.Skipped) > 0 {
			var parts []string
			for _, k := range slices.Sorted(maps.Keys(r.Skipped)) {
				parts = append(parts, fmt.Sprintf("%d %s", r.Skipped[k], k))
			}
			fmt.Fprintf(out, " (skipped %s)", strings.Join(parts, ", "))
		}
		fmt.Fprintln(out)
	}
	if err != nil {
		var de *dbload.Error
		if errors.As(err, &de) || errors.Is(err, dbload.ErrTarget) || errors.Is(err, dbload.ErrExists) {
			return usage.Errorf("db load (--dsn %s): %w", open.Redact(f.dsn), err)
		}
		return fmt.Errorf("db load (--dsn %s): %w", open.Redact(f.dsn), err)
	}
	return nil
}
