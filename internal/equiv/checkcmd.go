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
	// DB is the folder of SQLite databases the run's db_id pairs named.
	DB string
}

// ErrCheckFailed is the error of RunCheck when a proof does not check.
var ErrCheckFailed = errors.New("proofs do not check")

// RunCheck re-checks every proof of the run in o.Out with package check
// (the kernel, separate from the prover): each pair's schema re-read from
// the pairs file (DDL, or the db_id's database under o.DB), each step's
// rule applied again, each fact looked up in the schema, each obligation
// run on Z3. It prints one line per proof that fails (the pair and the
// part: "q1 step 2 (count_star): ...") and a count; the error wraps
// ErrCheckFailed when one fails, and is a usage.Error for a folder or
// pairs file that is not a run's.
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
	var solver check.Solver
	if z, err := check.FindZ3(); err == nil {
		solver = z
	}
	checked, failed := 0, 0
	for _, r := range recs {
		if r.Proof == nil {
			continue
		}
		checked++
		if err := checkRecord(ctx, r, byID, o.DB, d, fp.Settings["rule"], solver); err != nil {
			failed++
			fmt.Fprintf(w, "pair %q: %v\n", r.ID, err)
		}
	}
	if failed > 0 {
		return fmt.Errorf("%w: %d of %d proofs in %s", ErrCheckFailed, failed, checked, o.Out)
	}
	fmt.Fprintf(w, "%d proofs checked, all valid (%s)\n", checked, filepath.Join(o.Out, ResultsFile))
	return nil
}

// checkRecord re-checks the proof of one record.
func checkRecord(ctx context.Context, r Record, pairs map[string]PairLine, dbDir string, d engine.Dialect, rule string, solver check.Solver) error {
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
	ps := proveSchema(db, d)
	if ps == nil {
		return fmt.Errorf("the run's engine %q is not one the kernel models", d)
	}
	return check.Check(ctx, check.Input{Q1: p.Q1, Q2: p.Q2, Schema: ps, Rule: rule, Solver: solver}, r.Proof)
}

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
