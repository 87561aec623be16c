package cli

import (
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/sqljudge/sqljudge/internal/equiv"
	sbopen "github.com/sqljudge/sqljudge/internal/sandbox/open"
)

// equivLong is the long help of sqljudge equiv.
const equivLong = `equiv decides pairs of queries by searching for a counterexample: a small
database, satisfying the schema's keys, UNIQUE, NOT NULL and foreign keys, on
which the two queries return different results (after VeriEQL, He et al.,
OOPSLA 2024). Each pair gets one verdict:

  inequivalent         with the smallest database found (its SQL, its rows and
                       both results), re-verified on a fresh database built
                       from that SQL alone;
  equivalent_proved    the two return the same result on every database
                       satisfying the schema: the record's "proof" is a
                       certificate that "sqljudge equiv check OUT" re-checks
                       (the search still ran, to 60 databases);
  equivalent_bounded   no database tried told them apart (what was tried is in
                       the record: databases, largest table, values, phases);
  unknown              the pair could not be searched, with the reason
                       ("internal: proof and witness disagree" for a pair both
                       proved and refuted: a bug to report).

The prover rewrites both queries by the rules of a small proof kernel (each
relying on schema facts: keys, NOT NULL, foreign keys) into normal forms and
compares them, discharging conditions with Z3 (the z3 executable; without it
only proofs that need no SMT obligation are found); --no-proof skips it.

PAIRS is JSON Lines: {"id", "q1", "q2", "schema"} with DDL text (SQLite,
PostgreSQL or MySQL spelling), or {"id", "q1", "q2", "db_id"} for a database
under --db (a folder of SQLite databases; its schema and values seed the
search). --db may also be a server DSN, postgres://… or mysql://… (MariaDB or
MySQL): each pair then runs in a scratch database created and dropped on that
server, and no other database is opened (PostgreSQL: the role needs CREATEDB,
and template1 must not let PUBLIC run pg_terminate_backend; MariaDB/MySQL: the
account needs CREATE, DROP, SELECT, INSERT, DELETE and REFERENCES on
sqljudge\_equiv\_%, and SELECT on the db_id databases). An account with more
(a PostgreSQL superuser, CREATEROLE, pg_execute_server_program…; on MySQL any
privilege beyond that grant) is refused unless --allow-superuser, and one that
cannot create a scratch database is refused before the first pair (exit 2;
docs/equiv.md, "The account"). The pair's DDL is parsed and rendered again,
its CHECKs printed from a small grammar or refused: no text of a pair runs as a
statement. Scratch databases that killed runs left (sqljudge_equiv_*, older
than 10 minutes, no session) are dropped when a run starts; --cleanup does
only that. --db duckdb:[DIR] runs each pair in scratch
DuckDB files (under DIR, else the system's temporary folder; binaries built
with -tags duckdb). With a postgres:// or mysql:// DSN, db_id names a
database on that server, which is only read (catalog queries and SELECTs).
Without --db, pairs run in scratch SQLite files.

The search of a pair ends after --max-databases databases and the shrinking
of a witness after --max-shrink-steps, so that the outcome does not depend on
the machine's speed; --budget is only a safety net for queries that run long
(a pair it stops says "budget_exhausted": true, and the summary counts them).

OUT/results.jsonl holds one record per pair in input order:
{"id", "verdict", "witness", "proof", "prover", "search", "reason", "rule"};
the same --seed
gives the same bytes (but for the pairs marked budget_exhausted).
OUT/summary.json and the table printed hold the counts per verdict, witness
sizes and time per pair.`

// equivFlags are the flags of sqljudge equiv.
type equivFlags struct {
	o equiv.CommandOptions
}

func (f *equivFlags) register(fl *pflag.FlagSet) {
	fl.StringVar(&f.o.Pairs, "pairs", "", "pairs file (JSON Lines: id, q1, q2, schema or db_id)")
	fl.StringVar(&f.o.Out, "out", "", "output folder")
	fl.StringVar(&f.o.DB, "db", "", sbopen.DBHelp)
	fl.Int64Var(&f.o.Seed, "seed", 1, "random seed")
	fl.IntVar(&f.o.MaxDatabases, "max-databases", equiv.DefaultMaxDatabases, "databases the search of a pair tries (its bound: the same bytes on any machine)")
	fl.IntVar(&f.o.MaxShrinkSteps, "max-shrink-steps", equiv.DefaultMaxShrinkSteps, "databases tried while shrinking a witness at most")
	fl.DurationVar(&f.o.Budget, "budget", equiv.DefaultBudget, "time per pair at most: a safety net for slow queries; a pair it stops is marked budget_exhausted")
	fl.StringVar((*string)(&f.o.Assume), "assume", "declared", "constraints a database of the search satisfies: declared (the schema's) or observed (also what a db_id pair's database satisfies: NOT NULL where it holds no NULL, a row in every table it fills, UNIQUE where its values are distinct)")
	fl.StringVar((*string)(&f.o.Rule), "rule", "bag", "comparison: bag (columns by position, rows as a multiset, in order when a query orders) or spider (Spider's execution match: any column order, order when q1 orders)")
	fl.IntVar(&f.o.Workers, "workers", 1, "pairs decided in parallel")
	fl.BoolVar(&f.o.Resume, "resume", false, "continue the run in --out")
	fl.BoolVar(&f.o.Overwrite, "overwrite", false, "replace the run in --out")
	fl.BoolVar(&f.o.Cleanup, "cleanup", false, "only drop the scratch databases that killed runs left on the --db server (sqljudge_equiv_*, made over 10 minutes ago, no session connected) and exit")
	fl.BoolVar(&f.o.AllowSuperuser, "allow-superuser", false, "let a --db account that may administer the server (PostgreSQL superuser, MySQL SUPER/ALL) run the queries")
	fl.BoolVar(&f.o.NoProof, "no-proof", false, "skip the prover: the search alone decides (no equivalent_proved)")
}

func newEquivCmd() *cobra.Command {
	f := &equivFlags{}
	cmd := &cobra.Command{
		Use:     "equiv",
		Short:   "Decide pairs of queries: a counterexample database, or equivalent on every database tried",
		Long:    equivLong,
		Example: `  sqljudge equiv --pairs pairs.jsonl --out out/ --seed 1 --max-databases 600`,
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return equiv.RunCommand(cmd.Context(), f.o, cmd.OutOrStdout())
		},
	}
	f.register(cmd.Flags())
	cmd.AddCommand(newEquivCheckCmd())
	return cmd
}

func newEquivCheckCmd() *cobra.Command {
	var o equiv.CheckOptions
	cmd := &cobra.Command{
		Use:   "check OUT",
		Short: "Re-check every proof of an equiv run with the kernel",
		Long: `check re-checks every proof (the "proof" of each equivalent_proved record)
of the sqljudge equiv run in OUT with the proof kernel (package
internal/prove/check, separate from the prover): each pair's schema is read
again from --pairs (which must be the run's: its hash is the fingerprint's)
or, for db_id pairs, from the database under --db; each step's rule is applied
again to its SQL and must give the step's result, relying on exactly the
facts it lists, each of which must hold in the schema; the steps must chain
from each query to its normal form; the normal forms must be the same query,
or compare under the bijection with exactly the certificate's obligations,
each answered unsat by Z3 (the z3 executable). A proof that fails is printed
with its pair and part; the exit code is then 1, and 0 when all check.
Each renaming step (the kernel's reading of names) is also compared with the
engine's own: SQLite's program of both texts, or on a PostgreSQL run the
plans of both texts on the server of --db (EXPLAIN, never run).`,
		Example: `  sqljudge equiv check out/ --pairs pairs.jsonl`,
		Args:    cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			o.Out = args[0]
			return equiv.RunCheck(cmd.Context(), o, cmd.OutOrStdout())
		},
	}
	cmd.Flags().StringVar(&o.Pairs, "pairs", "", "the run's pairs file")
	cmd.Flags().StringVar(&o.DB, "db", "", "the folder of SQLite databases the run's db_id pairs read; for a PostgreSQL run, the postgres:// DSN of a server on which the proofs' renamings are planned (scratch databases, as equiv makes) and whose databases the db_id pairs name")
	cmd.Flags().BoolVar(&o.AllowSuperuser, "allow-superuser", false, "let a --db account that may administer the server (PostgreSQL superuser) plan the renamings")
	return cmd
}
