// Package shareddata locates the benchmark data shared beside the
// repository (../shared/data: Spider, Defog SQL-Eval) for tests and
// benchmarks. The data is read in place, never copied into the repository.
package shareddata

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
)

// Env names the variable that overrides the location of the shared data.
const Env = "SQLJUDGE_SHARED_DATA"

// Dir returns the shared data folder: $SQLJUDGE_SHARED_DATA, or
// ../shared/data from the module root. It fails the test (never skips it)
// when the folder is missing, so a CI run without the data goes red.
func Dir(tb testing.TB) string {
	tb.Helper()
	d, err := Find()
	if err != nil {
		tb.Fatalf("shared benchmark data not found: %v (tests need ../shared/data beside the repository, or $%s)", err, Env)
	}
	return d
}

// Path joins elements onto Dir and fails the test if the result is missing.
func Path(tb testing.TB, elem ...string) string {
	tb.Helper()
	p := filepath.Join(append([]string{Dir(tb)}, elem...)...)
	if _, err := os.Stat(p); err != nil {
		tb.Fatalf("shared benchmark data: %v", err)
	}
	return p
}

// Find returns the shared data folder or an error saying where it looked.
func Find() (string, error) {
	if d := os.Getenv(Env); d != "" {
		if _, err := os.Stat(d); err != nil {
			return "", err
		}
		return d, nil
	}
	wd, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for dir := wd; ; {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			d := filepath.Join(dir, "..", "shared", "data")
			if _, err := os.Stat(d); err != nil {
				return "", err
			}
			return filepath.Clean(d), nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", os.ErrNotExist
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

// Oracle reads spider/oracle/<system>.jsonl, failing the test on error.
func Oracle(tb testing.TB, system string) []OracleRecord {
	tb.Helper()
	f, err := os.Open(Path(tb, "spider", "oracle", system+".jsonl"))
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
