package equiv

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/sqljudge/sqljudge/internal/engine"
	"github.com/sqljudge/sqljudge/internal/engine/open"
	"github.com/sqljudge/sqljudge/internal/engine/postgres"
	"github.com/sqljudge/sqljudge/internal/engine/sqlite"
	"github.com/sqljudge/sqljudge/internal/outdir"
	"github.com/sqljudge/sqljudge/internal/prove/check"
	"github.com/sqljudge/sqljudge/internal/sandbox"
	sbopen "github.com/sqljudge/sqljudge/internal/sandbox/open"
	"github.com/sqljudge/sqljudge/internal/usage"
)

// CommandOptions are the options of `sqljudge equiv`.
type CommandOptions struct {
	// Pairs is the pairs file (ReadPairs).
	Pairs string
	// Out is the output folder: results.jsonl, summary.json,
	// fingerprint.json.
	Out string
	// DB is "" (scratch SQLite files), a folder of SQLite databases
	// (db_id pairs read their schema and values there; scratch SQLite
	// files), a PostgreSQL DSN (postgres://…: scratch databases on that
	// server, created and dropped; the role needs CREATEDB) or a MySQL DSN
	// (mysql://…, MariaDB or MySQL: the same; see sandbox/mysql).
	DB string
	// AllowSuperuser lets a server DSN name an account that may administer
	// the server (a PostgreSQL superuser; MySQL SUPER, FILE, ALL…).
	AllowSuperuser bool
	// Seed, Budget, MaxDatabases, MaxShrinkSteps and Rule are Options'
	// (per pair; 0 for Options' default).
	Seed           int64
	Budget         time.Duration
	MaxDatabases   int
	MaxShrinkSteps int
	Rule           Rule
	// Assume is the assumption mode (AssumeDeclared by default;
	// AssumeObserved adds what a db_id pair's database satisfies).
	Assume Assume
	// Workers decide pairs in parallel (default 1).
	Workers int
	// Resume keeps the records of an earlier run in Out and decides the
	// rest; Overwrite replaces it.
	Resume, Overwrite bool
	// Cleanup only drops the stale scratch databases on the server of DB
	// (see scratch.go) and prints their names; no pair is decided.
	Cleanup bool
	// NoProof skips the prover (Options.NoProof).
	NoProof bool
	// solver is Z3's executable when found on PATH (set by RunCommand).
	solver check.Solver
	// facts remembers the facts of proofs checked on db_id databases
	// (set by RunCommand; Options.facts).
	facts *factMemo
}

// Record is one line of results.jsonl: the pair's id and its Outcome
// (verdict, witness, search, reason, rule).
type Record struct {
	ID string `json:"id"`
	Outcome
}

// ResultsFile is the name of the records file in the output folder.
const ResultsFile = "results.jsonl"

// RunCommand runs `sqljudge equiv`: it decides every pair of o.Pairs,
// writes OUT/results.jsonl (one record per pair, in input order, each
// written as soon as it and every earlier pair are decided),
// OUT/summary.json, and prints the summary table to w, then the paths of
// the records and the summary. The same seed and
// inputs give byte-identical results.jsonl. Bad input (a malformed pairs
// file, an output folder holding another run) is a usage.Error.
func RunCommand(ctx context.Context, o CommandOptions, w io.Writer) error {
	if o.Cleanup {
		return cleanup(ctx, o, w)
	}
	if o.Pairs == "" {
		return usage.Errorf("--pairs is required")
	}
	pairs, err := ReadPairs(o.Pairs)
	if err != nil {
		return err
	}
	if o.Out == "" {
		return usage.Errorf("--out is required")
	}
	if o.Resume && o.Overwrite {
		return usage.Errorf("--resume and --overwrite exclude each other")
	}
	if o.Workers <= 0 {
		o.Workers = 1
	}
	// The defaults spelled out, so that the fingerprint and the summary
	// name the settings used.
	d := Options{Budget: o.Budget, MaxDatabases: o.MaxDatabases, MaxShrinkSteps: o.MaxShrinkSteps}
	d.defaults()
	o.Budget, o.MaxDatabases, o.MaxShrinkSteps = d.Budget, d.MaxDatabases, d.MaxShrinkSteps
	if o.Rule == "" {
		o.Rule = RuleBag
	}
	if o.Rule != RuleBag && o.Rule != RuleSpider {
		return usage.Errorf("--rule %q: want %s or %s", o.Rule, RuleBag, RuleSpider)
	}
	if o.Assume == "" {
		o.Assume = AssumeDeclared
	}
	if !o.Assume.Valid() {
		return usage.Errorf("--assume %q: want %s or %s", o.Assume, AssumeDeclared, AssumeObserved)
	}
	if err := os.MkdirAll(o.Out, 0o755); err != nil {
		return err
	}
	unlock, err := outdir.Lock(o.Out)
	if err != nil {
		return usage.Error{Err: err}
	}
	defer unlock()
	sb, dbDir, err := openSandbox(ctx, o)
	if err != nil {
		return err
	}
	defer sb.Close()
	printSwept(w, sb)
	solverName := o.findSolver(ctx, w)
	prev, err := prepareOutput(o, sb.Dialect())
	if err != nil {
		return err
	}
	start := time.Now()
	recs, times, err := decideAll(ctx, o, sb, dbDir, pairs, prev)
	if err != nil {
		return err
	}
	if err := outdir.WriteJSONL(filepath.Join(o.Out, ResultsFile), recs, outdir.JSONNoEscape[Record]); err != nil {
		return err
	}
	sum := summarize(o, sb.Dialect(), recs, times, len(prev), time.Since(start))
	sum.Solver = solverName
	if err := outdir.WriteFile(filepath.Join(o.Out, "summary.json"), func(f io.Writer) error {
		enc := json.NewEncoder(f)
		enc.SetIndent("", "  ")
		return enc.Encode(sum)
	}); err != nil {
		return err
	}
	sum.print(w)
	fmt.Fprintf(w, "records: %s\nsummary: %s\n", filepath.Join(o.Out, ResultsFile), filepath.Join(o.Out, "summary.json"))
	return nil
}

// cleanup runs `sqljudge equiv --cleanup`: the sandbox of --db sweeps the
// stale scratch databases when it starts.
func cleanup(ctx context.Context, o CommandOptions, w io.Writer) error {
	if _, ok := sbopen.Dialect(o.DB); !ok || strings.HasPrefix(o.DB, "duckdb:") {
		return usage.Errorf("--cleanup drops the stale scratch databases of a server: --db must be a postgres:// or mysql:// DSN")
	}
	sb, _, err := openSandbox(ctx, o)
	if err != nil {
		return err
	}
	defer sb.Close()
	if n := printSwept(w, sb); n == 0 {
		fmt.Fprintf(w, "no stale scratch database (sqljudge_equiv_*, marked as made by sqljudge, made over %s ago, no session connected) on %s\n", sandbox.StaleAfter, dbSetting(o.DB))
	}
	return nil
}

// printSwept names the stale scratch databases the sandbox dropped when it
// started, and returns how many.
func printSwept(w io.Writer, sb sandbox.Sandbox) int {
	var swept []string
	if s, ok := sb.(sandbox.Sweeper); ok {
		swept = s.Swept()
	}
	if len(swept) > 0 {
		fmt.Fprintf(w, "dropped %d stale scratch database(s) of earlier runs (made over %s ago, no session connected): %s\n", len(swept), sandbox.StaleAfter, strings.Join(swept, ", "))
	}
	return len(swept)
}

// openSandbox returns the sandbox --db names (sandbox/open) and the
// folder db_id pairs are read from ("" when none).
func openSandbox(ctx context.Context, o CommandOptions) (sandbox.Sandbox, string, error) {
	if _, ok := sbopen.Dialect(o.DB); ok {
		sb, err := sbopen.Open(ctx, o.DB, sbopen.Options{AllowSuperuser: o.AllowSuperuser})
		if err != nil {
			if errors.Is(err, engine.ErrPrivileged) || errors.Is(err, sandbox.ErrSetup) {
				return nil, "", usage.Error{Err: privilegeAdvice(err)}
			}
			return nil, "", err
		}
		return sb, "", nil
	}
	if o.DB != "" {
		if st, err := os.Stat(o.DB); err != nil || !st.IsDir() {
			return nil, "", usage.Errorf("--db %s: expected a folder of SQLite databases, a postgres:// or a mysql:// DSN", o.DB)
		}
	}
	sb, err := sbopen.Open(ctx, "", sbopen.Options{})
	return sb, o.DB, err
}

// privilegeAdvice rewords the PostgreSQL engine's refusal of a role that
// may administer the server with equiv's remedy: the engine advises eval's
// read-only role, which cannot create equiv's scratch databases. (The
// MySQL sandbox's refusal is equiv's own already.)
func privilegeAdvice(err error) error {
	var pe *postgres.PrivilegeError
	if !errors.As(err, &pe) {
		return err
	}
	return fmt.Errorf("%w: %s; connect as a role with CREATEDB and no other privilege (docs/equiv.md, \"Engines\"), or pass --allow-superuser", engine.ErrPrivileged, pe.Risk("a query"))
}

// dbSetting is --db as OUT/fingerprint.json records it: a DSN with its
// password replaced (open.Redact, as eval records it), a folder cleaned.
func dbSetting(db string) string {
	if _, ok := sbopen.Dialect(db); ok {
		return open.Redact(db)
	}
	return filepath.Clean(db)
}

// fingerprint is what results.jsonl depends on (OUT/fingerprint.json).
func fingerprint(o CommandOptions, d engine.Dialect) (*outdir.Fingerprint, error) {
	h, err := outdir.FileHash(o.Pairs)
	if err != nil {
		return nil, err
	}
	return &outdir.Fingerprint{Version: "equiv", Inputs: map[string]string{"pairs": h}, Settings: map[string]string{
		"engine": string(d), "seed": fmt.Sprint(o.Seed), "budget": o.Budget.String(),
		"max_databases": fmt.Sprint(o.MaxDatabases), "max_shrink_steps": fmt.Sprint(o.MaxShrinkSteps),
		"db": dbSetting(o.DB), "rule": string(o.Rule), "assume": string(o.Assume), "prover": proverSetting(o),
	}}, nil
}

// prepareOutput checks the output folder and returns the records of an
// earlier run to keep (Resume), by id, its results.jsonl cut to its
// complete lines.
func prepareOutput(o CommandOptions, d engine.Dialect) (map[string]Record, error) {
	path := filepath.Join(o.Out, ResultsFile)
	fp, err := fingerprint(o, d)
	if err != nil {
		return nil, err
	}
	_, statErr := os.Stat(path)
	exists := statErr == nil
	switch {
	case exists && !o.Resume && !o.Overwrite:
		return nil, usage.Errorf("%w: %s holds an earlier run; use --resume to continue it or --overwrite to replace it", outdir.ErrOutputExists, path)
	case exists && o.Resume:
		if err := checkFingerprint(o.Out, fp); err != nil {
			return nil, err
		}
		return resumeRecords(path)
	}
	_ = os.Remove(path)
	return nil, outdir.WriteFingerprint(o.Out, fp)
}

func checkFingerprint(dir string, fp *outdir.Fingerprint) error {
	old, err := outdir.ReadFingerprint(dir)
	if err != nil {
		return usage.Errorf("%w: %v", outdir.ErrSettingsChanged, err)
	}
	if diff := fp.Diff(old); len(diff) > 0 {
		return usage.Errorf("%w: %v", outdir.ErrSettingsChanged, diff)
	}
	return nil
}

// readRecords reads the complete records of results.jsonl by id; a
// truncated last line (a run that was stopped) is dropped, a line that is
// not a record skipped.
func readRecords(path string) (map[string]Record, error) {
	out := map[string]Record{}
	_, err := outdir.ReadJournal(path, recordsByID(out))
	return out, err
}

// resumeRecords is readRecords, then cuts a truncated last line from the
// file (outdir.ResumeJournal) so that new records follow the complete ones.
func resumeRecords(path string) (map[string]Record, error) {
	out := map[string]Record{}
	return out, outdir.ResumeJournal(path, recordsByID(out))
}

// recordsByID is the outdir.ReadJournal line function that keeps each
// record of results.jsonl in out by id.
func recordsByID(out map[string]Record) func(int, []byte) error {
	return func(_ int, line []byte) error {
		var r Record
		if json.Unmarshal(line, &r) == nil && r.ID != "" && r.Verdict.Valid() {
			out[r.ID] = r
		}
		return nil
	}
}

// decideAll decides the pairs not in prev with o.Workers workers,
// appending each record to results.jsonl (an outdir.Journal) once every
// earlier pair's is written,
// and returns every record in input order with the time each new pair
// took.
func decideAll(ctx context.Context, o CommandOptions, sb sandbox.Sandbox, dbDir string, pairs []PairLine, prev map[string]Record) ([]Record, []time.Duration, error) {
	recs := make([]Record, len(pairs))
	var todo []int
	for i, p := range pairs {
		if r, ok := prev[p.ID]; ok {
			recs[i] = r
			continue
		}
		todo = append(todo, i)
	}
	times := make([]time.Duration, len(pairs))
	jn, err := outdir.OpenJournal(filepath.Join(o.Out, ResultsFile), outdir.JSONNoEscape[Record])
	if err != nil {
		return nil, nil, err
	}
	defer jn.Close()
	g, gctx := errgroup.WithContext(ctx)
	feed := make(chan int)
	g.Go(func() error {
		defer close(feed)
		for k := range todo {
			select {
			case feed <- k:
			case <-gctx.Done():
				return gctx.Err()
			}
		}
		return nil
	})
	for range o.Workers {
		g.Go(func() error {
			for k := range feed {
				i := todo[k]
				t0 := time.Now()
				out, err := decideLine(gctx, o, sb, dbDir, pairs[i])
				if err != nil {
					return fmt.Errorf("pair %q (line %d): %w", pairs[i].ID, pairs[i].Line, err)
				}
				recs[i], times[i] = Record{ID: pairs[i].ID, Outcome: out}, time.Since(t0)
				if err := jn.Put(k, recs[i]); err != nil {
					return err
				}
			}
			return nil
		})
	}
	if err := g.Wait(); err != nil {
		return nil, nil, err
	}
	var took []time.Duration
	for _, i := range todo {
		took = append(took, times[i])
	}
	return recs, took, nil
}

// decideLine decides one pair of the file.
func decideLine(ctx context.Context, o CommandOptions, sb sandbox.Sandbox, dbDir string, p PairLine) (Outcome, error) {
	pair := Pair{ID: p.ID, Q1: p.Q1, Q2: p.Q2, Schema: p.Schema}
	if _, server := sb.(sandbox.DBReader); p.DBID != "" && server {
		pair.DBID = p.DBID
	} else if p.DBID != "" {
		if dbDir == "" {
			return Outcome{Verdict: Unknown, Reason: fmt.Sprintf("db_id %q: a db_id pair needs --db, a folder of SQLite databases, a postgres:// or a mysql:// DSN", p.DBID), Rule: newComparer(o.Rule, p.Q1, p.Q2).describe()}, nil
		}
		path, err := sqlite.New(dbDir, sqlite.Options{}).Path(p.DBID)
		if err != nil {
			return Outcome{Verdict: Unknown, Reason: fmt.Sprintf("db_id %q: %v", p.DBID, err), Rule: newComparer(o.Rule, p.Q1, p.Q2).describe()}, nil
		}
		pair.DB = path
	}
	return Decide(ctx, pair, Options{Sandbox: sb, Seed: o.Seed, Budget: o.Budget, MaxDatabases: o.MaxDatabases, MaxShrinkSteps: o.MaxShrinkSteps, Rule: o.Rule, Assume: o.Assume,
		NoProof: o.NoProof, Solver: o.solver, facts: o.facts})
}

// findSolver looks for Z3's executable (unless NoProof) and returns the
// summary's name for the prover's solver: its version line, "none" (with
// a note on w: only proofs without obligations are found) or "off".
func (o *CommandOptions) findSolver(ctx context.Context, w io.Writer) string {
	if o.NoProof {
		return "off"
	}
	z, err := check.FindZ3()
	if err != nil {
		fmt.Fprintf(w, "note: %v; the prover proves only pairs that need no SMT obligation\n", err)
		return "none"
	}
	o.solver, o.facts = z, &factMemo{}
	v, err := z.Version(ctx)
	if err != nil || v == "" {
		return "z3"
	}
	return v
}

// proverSetting names the prover's setting for the fingerprint: what a
// record's proof depends on.
func proverSetting(o CommandOptions) string {
	switch {
	case o.NoProof:
		return "off"
	case o.solver == nil:
		return "no solver"
	}
	return "z3"
}
