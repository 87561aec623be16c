package equiv

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/sqljudge/sqljudge/internal/catalog"
	"github.com/sqljudge/sqljudge/internal/engine"
	"github.com/sqljudge/sqljudge/internal/engine/sqlite"
	"github.com/sqljudge/sqljudge/internal/outdir"
	"github.com/sqljudge/sqljudge/internal/prove/check"
	"github.com/sqljudge/sqljudge/internal/prove/explain"
	"github.com/sqljudge/sqljudge/internal/sandbox"
	sbopen "github.com/sqljudge/sqljudge/internal/sandbox/open"
	"github.com/sqljudge/sqljudge/internal/usage"
)

// CheckOptions are the options of `sqljudge equiv check`.
type CheckOptions struct {
	// Out is the output folder of a `sqljudge equiv` run.
	Out string
	// Pairs is that run's pairs file: its hash must be the one the run's
	// fingerprint records (the schemas are read from it, never from the
	// records).
	Pairs string
	// DB is the folder of SQLite databases the run's db_id pairs named;
	// for a PostgreSQL run, the postgres:// DSN of a server on which the
	// proofs' renamings are planned (engineReading), in scratch databases
	// it creates and drops, as `sqljudge equiv --db` does.
	DB string
	// AllowSuperuser lets DB's role be one that may administer the
	// server (see sandbox/postgres.New).
	AllowSuperuser bool
}

// ErrCheckFailed is the error of RunCheck when a proof does not check.
var ErrCheckFailed = errors.New("proofs do not check")

// RunCheck checks every record of the run in o.Out: each proof is
// re-checked with package check (the kernel, separate from the prover):
// each pair's schema re-read from the pairs file (DDL, or the db_id's
// database under o.DB), each step's rule applied again (its node and the
// bijection's tables read again), each fact looked up in the schema, each
// obligation run on Z3, under the run's rule (under bag the column map
// must be the identity), and each renaming step read by the engine
// (engineReading): on a SQLite run SQLite's programs of the query and of
// its renaming must be the same, on a PostgreSQL run PostgreSQL's plans,
// read in scratch databases on the server of o.DB (a usage error
// without one); and a record whose verdict is equivalent_proved
// must carry a proof (one deleted, or a verdict forged to
// equivalent_proved, fails). It prints one line per record that fails
// (the pair and the part: "q1 step 2 (count_star): ...") and a count; the
// error wraps ErrCheckFailed when one fails, and is a usage.Error for a
// folder or pairs file that is not a run's.
func RunCheck(ctx context.Context, o CheckOptions, w io.Writer) error {
	if o.Out == "" || o.Pairs == "" {
		return usage.Errorf("equiv check needs the output folder and --pairs, the run's pairs file")
	}
	fp, err := readFingerprint(o.Out)
	if err != nil {
		return err
	}
	h, err := outdir.FileHash(o.Pairs)
	if err != nil {
		return usage.Errorf("--pairs: %w", err)
	}
	if fp.Inputs["pairs"] != h {
		return usage.Errorf("--pairs %s is not the pairs file of the run in %s (its hash differs from the fingerprint's)", o.Pairs, o.Out)
	}
	pairs, err := ReadPairs(o.Pairs)
	if err != nil {
		return err
	}
	byID := map[string]PairLine{}
	for _, p := range pairs {
		byID[p.ID] = p
	}
	recs, err := readRecordList(filepath.Join(o.Out, ResultsFile))
	if err != nil {
		return err
	}
	d, _ := engine.ParseDialect(fp.Settings["engine"])
	planner, serverDB, done, err := checkPlanner(ctx, o, d)
	if err != nil {
		return err
	}
	defer done()
	dbDir := o.DB
	if planner != nil {
		dbDir = ""
	}
	if n := dbIDProofs(recs, byID); n > 0 && dbDir == "" && serverDB == nil {
		return usage.Errorf("--db is missing: %d proofs of %s are of pairs that name a database by db_id; pass --db, the folder of SQLite databases the run read", n, o.Out)
	}
	var solver check.Solver
	if z, err := check.FindZ3(); err == nil {
		solver = z
	}
	checked, failed := 0, 0
	for _, r := range recs {
		var err error
		switch {
		case r.Proof != nil:
			checked++
			err = checkRecord(ctx, r, byID, dbDir, serverDB, d, fp.Settings["rule"], solver, planner)
		case r.Verdict == EquivalentProved:
			err = fmt.Errorf("verdict %s without a proof", EquivalentProved)
		}
		if err != nil {
			failed++
			fmt.Fprintf(w, "pair %q: %v\n", r.ID, err)
		}
	}
	if failed > 0 {
		return fmt.Errorf("%w: %d of %d records in %s", ErrCheckFailed, failed, len(recs), o.Out)
	}
	fmt.Fprintf(w, "%d proofs checked, all valid; %d records, none %s without a proof (%s)\n", checked, len(recs), EquivalentProved, filepath.Join(o.Out, ResultsFile))
	return nil
}

// dbIDProofs counts the records with a proof whose pair names a database
// by db_id (no DDL of its own).
func dbIDProofs(recs []Record, pairs map[string]PairLine) int {
	n := 0
	for _, r := range recs {
		if p, ok := pairs[r.ID]; ok && r.Proof != nil && p.Schema == "" && p.DBID != "" {
			n++
		}
	}
	return n
}

// planner opens a scratch database holding a schema's tables on a
// server and returns its plans (sandbox.Explainer) and the function that
// drops it.
type planner func(ctx context.Context, db *catalog.Database) (explain.PlanFunc, func(), error)

// serverReader reads database dbID of a server as a run's db_id pair
// read it (readServerSchema).
type serverReader func(ctx context.Context, dbID string) (*catalog.Database, error)

// checkPlanner returns, for a PostgreSQL run, the planner on the server
// of o.DB (a postgres:// DSN: a usage error otherwise), the reader of
// that server's db_id databases, and the function that closes its
// sandbox; nil for another engine.
func checkPlanner(ctx context.Context, o CheckOptions, d engine.Dialect) (planner, serverReader, func(), error) {
	if d != engine.Postgres {
		return nil, nil, func() {}, nil
	}
	if dd, ok := sbopen.Dialect(o.DB); !ok || dd != engine.Postgres {
		return nil, nil, nil, usage.Errorf("--db: the proofs of a PostgreSQL run are checked against PostgreSQL's own plans: pass --db, the postgres:// DSN of a server whose role may create scratch databases")
	}
	sb, err := sbopen.Open(ctx, o.DB, sbopen.Options{AllowSuperuser: o.AllowSuperuser})
	if err != nil {
		if errors.Is(err, engine.ErrPrivileged) || errors.Is(err, sandbox.ErrSetup) {
			return nil, nil, nil, usage.Error{Err: privilegeAdvice(err)}
		}
		return nil, nil, nil, err
	}
	p := func(ctx context.Context, db *catalog.Database) (explain.PlanFunc, func(), error) {
		sc, err := sb.Open(ctx, db.CreateStatements(engine.Postgres))
		if err != nil {
			return nil, nil, err
		}
		x, ok := sc.(sandbox.Explainer)
		if !ok {
			sc.Close()
			return nil, nil, fmt.Errorf("the %s sandbox cannot plan queries", d)
		}
		return x.Explain, func() { sc.Close() }, nil
	}
	// Each database is read once, however many proofs name it (the
	// kernel's check only reads the model).
	read := func() serverReader {
		seen := map[string]*catalog.Database{}
		return func(ctx context.Context, dbID string) (*catalog.Database, error) {
			if db, ok := seen[dbID]; ok {
				return db, nil
			}
			db, err := readServerSchema(ctx, sb, dbID)
			if err != nil {
				return nil, fmt.Errorf("db_id %q: %w", dbID, err)
			}
			seen[dbID] = newSchema(db).Database
			return seen[dbID], nil
		}
	}()
	return p, read, func() { sb.Close() }, nil
}

// checkRecord re-checks the proof of one record; plan makes the scratch
// database a PostgreSQL proof's renamings are planned on (nil on
// SQLite), serverDB reads a db_id pair's database on that server (nil
// on SQLite, whose db_id pairs are read under dbDir). A proof of a pair
// that names a table the model leaves out (catalog.Table.Unmodelled,
// which the run refuses) fails.
func checkRecord(ctx context.Context, r Record, pairs map[string]PairLine, dbDir string, serverDB serverReader, d engine.Dialect, rule string, solver check.Solver, plan planner) error {
	p, ok := pairs[r.ID]
	if !ok {
		return fmt.Errorf("no pair with this id in the pairs file")
	}
	var db *catalog.Database
	var err error
	switch {
	case p.Schema != "":
		if db, err = catalog.ParseDDL(p.Schema); err == nil {
			err = refuseGenerated(db)
		}
	case serverDB != nil:
		db, err = serverDB(ctx, p.DBID)
	case dbDir == "":
		return fmt.Errorf("db_id %q: pass --db, the folder of SQLite databases the run read", p.DBID)
	default:
		var path string
		if path, err = sqlite.New(dbDir, sqlite.Options{}).Path(p.DBID); err == nil {
			var s *schema
			if s, err = readSQLiteDB(ctx, path); err == nil {
				db = s.Database
			}
		}
	}
	if err != nil {
		return fmt.Errorf("schema: %w", err)
	}
	if why := unmodelledRead(db, true, p.Q1, p.Q2); why != "" {
		return fmt.Errorf("schema: %s, which the kernel does not model", why)
	}
	ps := proveSchema(db, d)
	if ps == nil {
		return fmt.Errorf("the run's engine %q is not one the kernel models", d)
	}
	if err := kernelCheck(ctx, check.Input{Q1: p.Q1, Q2: p.Q2, Schema: ps, Rule: rule, Solver: solver}, r.Proof); err != nil {
		return err
	}
	var plans explain.PlanFunc
	if plan != nil && hasRenaming(r.Proof) {
		p, done, err := plan(ctx, db)
		if err != nil {
			return fmt.Errorf("its renaming could not be compared with PostgreSQL's reading: %w", err)
		}
		defer done()
		plans = p
	}
	return engineReading(ctx, db, d, r.Proof, plans)
}

// kernelCheck is the kernel's check RunCheck runs (a test swaps in one
// that accepts a wrong renaming, to show engineReading catches it).
var kernelCheck = check.Check

// readFingerprint reads dir's fingerprint.json (outdir.ReadFingerprint),
// which must be an equiv run's; an error is a usage.Error naming the file.
func readFingerprint(dir string) (*outdir.Fingerprint, error) {
	fp, err := outdir.ReadFingerprint(dir)
	var pe *fs.PathError
	switch {
	case errors.As(err, &pe):
		return nil, usage.Errorf("%v (is the folder the output of sqljudge equiv?)", err)
	case err != nil || fp.Version != "equiv":
		return nil, usage.Errorf("%s: not the fingerprint of a sqljudge equiv run", filepath.Join(dir, outdir.FingerprintFile))
	}
	return fp, nil
}

// readRecordList reads results.jsonl in order; a line that is not a
// record is an error naming it.
func readRecordList(path string) ([]Record, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, usage.Errorf("%v", err)
	}
	var out []Record
	for i, line := range strings.Split(string(b), "\n") {
		if strings.TrimSpace(line) == "" {
			continue
		}
		var r Record
		if err := json.Unmarshal([]byte(line), &r); err != nil {
			return nil, usage.Errorf("%s:%d: %v", path, i+1, err)
		}
		out = append(out, r)
	}
	return out, nil
}
