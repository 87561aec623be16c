// Package shareddata locates the benchmark data of the tests: the small
// real subset committed under testdata/ at the repository root (three
// Spider dev databases, one Defog database; see testdata/README.md), and
// the full data sets (all of Spider dev, every Defog database) read in
// place from $SQLJUDGE_DATA, by default ../shared/data beside the
// repository.
//
// A test that needs the full data calls Dir, Path or Oracle: when the data
// is absent the test is skipped with a message naming SQLJUDGE_DATA, except
// when SQLJUDGE_REQUIRE_DATA=1 (CI sets it), where it fails. A test that
// runs on the subset calls Subset, SubsetPath or SubsetOracle, and so runs
// on a bare clone.
package shareddata

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

// Env names the variable giving the folder of the full data.
const Env = "SQLJUDGE_DATA"

// LegacyEnv is the former name of Env, still honoured when Env is unset.
const LegacyEnv = "SQLJUDGE_SHARED_DATA"

// RequireEnv names the variable that, set to 1, turns a missing full data
// folder from a skipped test into a failed one (CI sets it).
const RequireEnv = "SQLJUDGE_REQUIRE_DATA"

// Required reports whether $SQLJUDGE_REQUIRE_DATA is 1.
func Required() bool { return os.Getenv(RequireEnv) == "1" }

// Dir returns the folder of the full data (see Find). When it is missing
// the test is skipped with a message naming SQLJUDGE_DATA, or fails when
// Required.
func Dir(tb testing.TB) string {
	tb.Helper()
	d, err := Find()
	if err != nil {
		Missing(tb, fmt.Sprintf("the full benchmark data is not available (%v); set %s to its folder (see docs/data.md)", err, Env))
	}
	return d
}

// Missing skips the test with why, or fails it with why when Required:
// the one way a test reacts to a missing data folder or test server.
func Missing(tb testing.TB, why string) {
	tb.Helper()
	if Required() {
		tb.Fatalf("%s (%s=1: required)", why, RequireEnv)
	}
	tb.Skipf("skipped: %s", why)
}

// Path joins elem onto Dir; a missing file fails the test (the folder is
// there but incomplete).
func Path(tb testing.TB, elem ...string) string {
	tb.Helper()
	return join(tb, Dir(tb), elem)
}

// DefogDumps returns the paths of the 11 Defog SQL-Eval dumps of the
// full data (defog/defog_data/<db>/<db>.sql, in name order); fewer or more
// fail the test, a missing folder skips or fails it as Dir does.
func DefogDumps(tb testing.TB) []string {
	tb.Helper()
	files, err := filepath.Glob(filepath.Join(Path(tb, "defog", "defog_data"), "*", "*.sql"))
	if err != nil || len(files) != 11 {
		tb.Fatalf("want the 11 Defog dumps, found %d (%v)", len(files), err)
	}
	return files
}

// Subset returns the committed subset, testdata/ at the module root; its
// absence fails the test.
func Subset(tb testing.TB) string {
	tb.Helper()
	root, err := moduleRoot()
	if err != nil {
		tb.Fatalf("module root: %v", err)
	}
	return join(tb, root, []string{"testdata"})
}

// SubsetPath joins elem onto Subset; a missing file fails the test.
func SubsetPath(tb testing.TB, elem ...string) string {
	tb.Helper()
	return join(tb, Subset(tb), elem)
}

func join(tb testing.TB, dir string, elem []string) string {
	tb.Helper()
	p := filepath.Join(append([]string{dir}, elem...)...)
	if _, err := os.Stat(p); err != nil {
		tb.Fatalf("benchmark data: %v", err)
	}
	return p
}

// Set is one data folder laid out like ../shared/data: Name is "subset" or
// "full", Items the number of Spider dev items it holds (SubsetItems or
// FullItems).
type Set struct {
	Name  string
	Dir   string
	Items int
}

// Spider dev items in the subset (items 0-178: concert_singer, pets_1,
// car_1) and in the full data.
const (
	SubsetItems = 179
	FullItems   = 1034
)

// Sets returns the subset, then the full data when it is available: a
// parity test runs on each. A missing full data folder is logged (naming
// SQLJUDGE_DATA), or fails the test when Required.
func Sets(tb testing.TB) []Set {
	tb.Helper()
	sets := []Set{SubsetSet(tb)}
	d, err := Find()
	switch {
	case err == nil:
		sets = append(sets, Set{Name: "full", Dir: d, Items: FullItems})
	case Required():
		tb.Fatalf("the full benchmark data is not available (%v); set %s (%s=1: required)", err, Env, RequireEnv)
	default:
		tb.Logf("full benchmark data not available (%v): running on the subset only; set %s to run on the full data", err, Env)
	}
	return sets
}

// SubsetSet returns the subset as a Set.
func SubsetSet(tb testing.TB) Set {
	tb.Helper()
	return Set{Name: "subset", Dir: Subset(tb), Items: SubsetItems}
}

// FullSet returns the full data as a Set; see Dir for when it is missing.
func FullSet(tb testing.TB) Set {
	tb.Helper()
	return Set{Name: "full", Dir: Dir(tb), Items: FullItems}
}

// Find returns the full data folder: $SQLJUDGE_DATA, else
// $SQLJUDGE_SHARED_DATA, else ../shared/data from the module root, or an
// error saying where it looked.
func Find() (string, error) {
	for _, v := range []string{Env, LegacyEnv} {
		if d := os.Getenv(v); d != "" {
			if _, err := os.Stat(d); err != nil {
				return "", fmt.Errorf("$%s: %w", v, err)
			}
			return d, nil
		}
	}
	root, err := moduleRoot()
	if err != nil {
		return "", err
	}
	d := filepath.Clean(filepath.Join(root, "..", "shared", "data"))
	if _, err := os.Stat(d); err != nil {
		return "", fmt.Errorf("%s is missing", d)
	}
	return d, nil
}

// moduleRoot returns the nearest folder at or above the working directory
// that holds go.mod.
func moduleRoot() (string, error) {
	wd, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for dir := wd; ; {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("no go.mod at or above " + wd)
		}
		dir = parent
	}
}

// OracleRecord is one line of spider/oracle/<system>.jsonl: the unmodified
// official Spider evaluator's verdicts for one dev item (see the shared
// data README).
type OracleRecord struct {
	I          int    `json:"i"`
	DBID       string `json:"db_id"`
	Hardness   string `json:"hardness"`
	PredParsed bool   `json:"pred_parsed"`
	Exec       int    `json:"exec"`
	Exact      int    `json:"exact"`
}

// Systems are the published systems whose Spider dev predictions and
// official verdicts the shared data holds.
var Systems = []string{"din_sql", "c3", "dail_sql_gpt35", "resdsql"}

// Oracle reads spider/oracle/<system>.jsonl of the full data (see Dir).
func Oracle(tb testing.TB, system string) []OracleRecord {
	tb.Helper()
	return OracleIn(tb, Dir(tb), system)
}

// SubsetOracle reads spider/oracle/<system>.jsonl of the subset: the
// verdicts of items 0-178.
func SubsetOracle(tb testing.TB, system string) []OracleRecord {
	tb.Helper()
	return OracleIn(tb, Subset(tb), system)
}

// OracleIn reads spider/oracle/<system>.jsonl under the data folder dir,
// failing the test on error.
func OracleIn(tb testing.TB, dir, system string) []OracleRecord {
	tb.Helper()
	f, err := os.Open(join(tb, dir, []string{"spider", "oracle", system + ".jsonl"}))
	if err != nil {
		tb.Fatal(err)
	}
	defer f.Close()
	var out []OracleRecord
	sc := bufio.NewScanner(f)
	for ln := 1; sc.Scan(); ln++ {
		var r OracleRecord
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			tb.Fatalf("%s:%d: %v", f.Name(), ln, err)
		}
		out = append(out, r)
	}
	if err := sc.Err(); err != nil {
		tb.Fatal(err)
	}
	return out
}
