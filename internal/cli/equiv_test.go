package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sqljudge/sqljudge/internal/prove/check"
	"github.com/sqljudge/sqljudge/internal/testserver"
)

// equivPairs is a small pairs file: one inequivalent pair, one equivalent
// under a NOT NULL (proved with Z3: an obligation), one whose DDL does not
// parse, one equivalent under a key (proved without a solver).
const equivPairs = `{"id": "a", "q1": "SELECT x FROM t WHERE x > 1", "q2": "SELECT x FROM t WHERE x >= 1", "schema": "CREATE TABLE t (x INT PRIMARY KEY)"}
{"id": "b", "q1": "SELECT x FROM t WHERE y = y", "q2": "SELECT x FROM t", "schema": "CREATE TABLE t (x INT PRIMARY KEY, y INT NOT NULL)"}

{"id": "c", "q1": "SELECT 1", "q2": "SELECT 2", "schema": "CREATE TABLE t (x INT"}
{"id": "d", "q1": "SELECT DISTINCT x FROM t", "q2": "SELECT x FROM t", "schema": "CREATE TABLE t (x INTEGER PRIMARY KEY)"}
`

// withZ3 reports whether Z3's executable is on PATH: pair b is proved
// with it, bounded without.
func withZ3() bool {
	_, err := check.FindZ3()
	return err == nil
}

func TestEquivCommand(t *testing.T) {
	dir := t.TempDir()
	pairs := filepath.Join(dir, "pairs.jsonl")
	if err := os.WriteFile(pairs, []byte(equivPairs), 0o644); err != nil {
		t.Fatal(err)
	}
	var results [2][]byte
	for i := range 2 {
		out := filepath.Join(dir, "out")
		code, stdout, stderr := runMain(t, "equiv", "--pairs", pairs, "--out", out, "--seed", "7", "--budget", "5s", "--max-databases", "200", "--overwrite", "--workers", "2")
		if code != ExitOK {
			t.Fatalf("exit %d\n%s\n%s", code, stdout, stderr)
		}
		for _, want := range []string{"inequivalent", "equivalent_proved", "equivalent_bounded", "unknown", "witness rows: median 1", "proofs: "} {
			if !strings.Contains(stdout, want) {
				t.Errorf("console lacks %q:\n%s", want, stdout)
			}
		}
		// The console ends naming the files written, as eval's does.
		if want := "records: " + filepath.Join(out, "results.jsonl") + "\nsummary: " + filepath.Join(out, "summary.json") + "\n"; !strings.HasSuffix(stdout, want) {
			t.Errorf("console does not end with\n%s:\n%s", want, stdout)
		}
		b, err := os.ReadFile(filepath.Join(out, "results.jsonl"))
		if err != nil {
			t.Fatal(err)
		}
		results[i] = b
	}
	if !bytes.Equal(results[0], results[1]) {
		t.Fatalf("the same seed gave different results.jsonl:\n%s\n%s", results[0], results[1])
	}
	lines := strings.Split(strings.TrimSpace(string(results[0])), "\n")
	b := `{"id":"b","verdict":"equivalent_bounded"`
	if withZ3() {
		b = `{"id":"b","verdict":"equivalent_proved"`
	}
	if len(lines) != 4 || !strings.HasPrefix(lines[0], `{"id":"a","verdict":"inequivalent"`) || !strings.HasPrefix(lines[1], b) || !strings.HasPrefix(lines[2], `{"id":"c","verdict":"unknown"`) ||
		!strings.HasPrefix(lines[3], `{"id":"d","verdict":"equivalent_proved","proof":{`) {
		t.Fatalf("records:\n%s", results[0])
	}
	// Without --resume or --overwrite the folder is refused; --resume
	// decides nothing again and keeps the bytes.
	out := filepath.Join(dir, "out")
	if code, _, stderr := runMain(t, "equiv", "--pairs", pairs, "--out", out, "--seed", "7", "--budget", "5s", "--max-databases", "200"); code != ExitUsage || !strings.Contains(stderr, "--resume") {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	code, stdout, _ := runMain(t, "equiv", "--pairs", pairs, "--out", out, "--seed", "7", "--budget", "5s", "--max-databases", "200", "--resume")
	if code != ExitOK || !strings.Contains(stdout, "0 pairs decided now, 4 resumed") {
		t.Fatalf("resume: exit %d\n%s", code, stdout)
	}
	if b, _ := os.ReadFile(filepath.Join(out, "results.jsonl")); !bytes.Equal(b, results[0]) {
		t.Fatalf("resume changed results.jsonl:\n%s", b)
	}
	if code, _, stderr := runMain(t, "equiv", "--pairs", pairs, "--out", out, "--seed", "8", "--budget", "5s", "--max-databases", "200", "--resume"); code != ExitUsage || !strings.Contains(stderr, "seed") {
		t.Fatalf("resume with another seed: exit %d: %s", code, stderr)
	}
}

func TestEquivBadPairsFile(t *testing.T) {
	dir := t.TempDir()
	cases := map[string]string{
		"not json":           "{\"id\": \"a\", \"q1\": \"SELECT 1\", \"q2\": \"SELECT 1\", \"schema\": \"CREATE TABLE t (x INT)\"}\nnot json\n",
		"both schema and db": "{\"id\": \"a\", \"q1\": \"SELECT 1\", \"q2\": \"SELECT 1\", \"schema\": \"x\", \"db_id\": \"y\"}\n",
		"duplicate id":       "{\"id\": \"a\", \"q1\": \"SELECT 1\", \"q2\": \"SELECT 1\", \"schema\": \"x\"}\n{\"id\": \"a\", \"q1\": \"SELECT 1\", \"q2\": \"SELECT 1\", \"schema\": \"x\"}\n",
		"unknown key":        "{\"id\": \"a\", \"q\": \"SELECT 1\", \"q2\": \"SELECT 1\", \"schema\": \"x\"}\n",
	}
	wantLine := map[string]string{"not json": ":2:", "both schema and db": ":1:", "duplicate id": ":2:", "unknown key": ":1:"}
	for name, body := range cases {
		pairs := filepath.Join(dir, strings.ReplaceAll(name, " ", "_")+".jsonl")
		if err := os.WriteFile(pairs, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		code, _, stderr := runMain(t, "equiv", "--pairs", pairs, "--out", filepath.Join(dir, "o"))
		if code != ExitUsage || !strings.Contains(stderr, pairs+wantLine[name]) {
			t.Errorf("%s: exit %d, stderr %q; want exit 2 with %s%s", name, code, stderr, pairs, wantLine[name])
		}
	}
}

// TestEquivCommandMySQL runs equiv with --db a MariaDB DSN: an account
// with ALL PRIVILEGES on *.* is refused (exit 2) without
// --allow-superuser, and the pairs are decided with it.
func TestEquivCommandMySQL(t *testing.T) {
	server := testserver.MySQL(t)
	dir := t.TempDir()
	pairs := filepath.Join(dir, "pairs.jsonl")
	if err := os.WriteFile(pairs, []byte(equivPairs), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "out")
	if code, _, stderr := runMain(t, "equiv", "--pairs", pairs, "--out", out, "--db", server); code != ExitUsage || !strings.Contains(stderr, "--allow-superuser") {
		t.Fatalf("a privileged account: exit %d: %s", code, stderr)
	}
	code, stdout, stderr := runMain(t, "equiv", "--pairs", pairs, "--out", out, "--db", server, "--allow-superuser", "--budget", "10s", "--max-databases", "100", "--overwrite")
	if code != ExitOK {
		t.Fatalf("exit %d\n%s\n%s", code, stdout, stderr)
	}
	b, err := os.ReadFile(filepath.Join(out, "results.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	pw := testserver.MySQLConfig(t, server).Passwd
	for _, f := range []string{"fingerprint.json", "summary.json", "results.jsonl"} {
		written, _ := os.ReadFile(filepath.Join(out, f))
		if pw != "" && strings.Contains(string(written), ":"+pw+"@") {
			t.Errorf("%s holds the DSN's password:\n%s", f, written)
		}
	}
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	// The prover does not model MySQL (its collations): pairs b and d are
	// bounded, never proved, and each record says the prover was skipped.
	if len(lines) != 4 || !strings.HasPrefix(lines[0], `{"id":"a","verdict":"inequivalent","witness":{"sql":"CREATE TABLE `+"`t`") || !strings.HasPrefix(lines[1], `{"id":"b","verdict":"equivalent_bounded","prover":{"result":"skipped"`) ||
		!strings.HasPrefix(lines[2], `{"id":"c","verdict":"unknown"`) || !strings.HasPrefix(lines[3], `{"id":"d","verdict":"equivalent_bounded","prover":{"result":"skipped"`) {
		t.Fatalf("records:\n%s", b)
	}
}

// TestEquivPostgresSuperuserAdvice checks that equiv's refusal of a
// PostgreSQL superuser gives equiv's advice (a role with CREATEDB), not
// eval's (a role that may only read, which cannot create the scratch
// databases).
func TestEquivPostgresSuperuserAdvice(t *testing.T) {
	server := testserver.Postgres(t)
	dir := t.TempDir()
	pairs := filepath.Join(dir, "pairs.jsonl")
	if err := os.WriteFile(pairs, []byte(equivPairs), 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, stderr := runMain(t, "equiv", "--pairs", pairs, "--out", filepath.Join(dir, "out"), "--db", server)
	if code != ExitUsage || !strings.Contains(stderr, "CREATEDB") || !strings.Contains(stderr, "--allow-superuser") || strings.Contains(stderr, "only read") {
		t.Fatalf("exit %d: %s\nwant exit 2 advising a role with CREATEDB", code, stderr)
	}
}

// TestEquivCheck: sqljudge equiv check re-checks the proofs of a run
// (exit 0 and a count), fails with exit 1 naming the pair and the part
// when a proof was tampered with, and refuses (exit 2) a pairs file that
// is not the run's.
func TestEquivCheck(t *testing.T) {
	dir := t.TempDir()
	pairs := filepath.Join(dir, "pairs.jsonl")
	if err := os.WriteFile(pairs, []byte(equivPairs), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "out")
	if code, _, stderr := runMain(t, "equiv", "--pairs", pairs, "--out", out, "--max-databases", "50"); code != ExitOK {
		t.Fatalf("equiv: exit %d: %s", code, stderr)
	}
	n := "1 proofs checked"
	if withZ3() {
		n = "2 proofs checked"
	}
	if code, stdout, stderr := runMain(t, "equiv", "check", out, "--pairs", pairs); code != ExitOK || !strings.Contains(stdout, n+", all valid") {
		t.Fatalf("check: exit %d\n%s\n%s", code, stdout, stderr)
	}
	results := filepath.Join(out, "results.jsonl")
	b, err := os.ReadFile(results)
	if err != nil {
		t.Fatal(err)
	}
	// The DISTINCT step of pair d claims a fact it does not rely on.
	tampered := strings.Replace(string(b), `"facts":[{"fact":"key","table":"t","columns":["x"]},{"fact":"not_null","table":"t","column":"x"}]`, `"facts":[{"fact":"key","table":"t","columns":["x"]}]`, 1)
	if tampered == string(b) {
		t.Fatalf("no facts to drop in:\n%s", b)
	}
	if err := os.WriteFile(results, []byte(tampered), 0o644); err != nil {
		t.Fatal(err)
	}
	code, stdout, stderr := runMain(t, "equiv", "check", out, "--pairs", pairs)
	if code != ExitError || !strings.Contains(stdout, `pair "d": q1 step 2 (distinct_key)`) || !strings.Contains(stderr, "proofs do not check") {
		t.Fatalf("tampered: exit %d\n%s\n%s", code, stdout, stderr)
	}
	// Every record is checked, not only those that carry a proof: a
	// proof deleted, or a verdict forged to equivalent_proved, fails.
	var recs []map[string]any
	for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		var r map[string]any
		if err := json.Unmarshal([]byte(line), &r); err != nil {
			t.Fatal(err)
		}
		recs = append(recs, r)
	}
	for name, edit := range map[string]func(r map[string]any) string{
		"a proof deleted": func(r map[string]any) string {
			if r["id"] != "d" {
				return ""
			}
			delete(r, "proof")
			return "d"
		},
		"a verdict forged": func(r map[string]any) string {
			if r["id"] != "a" {
				return ""
			}
			r["verdict"] = "equivalent_proved"
			return "a"
		},
	} {
		var lines []string
		id := ""
		for _, r := range recs {
			c := map[string]any{}
			for k, v := range r {
				c[k] = v
			}
			if got := edit(c); got != "" {
				id = got
			}
			line, _ := json.Marshal(c)
			lines = append(lines, string(line))
		}
		if err := os.WriteFile(results, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		code, stdout, stderr := runMain(t, "equiv", "check", out, "--pairs", pairs)
		if code != ExitError || !strings.Contains(stdout, `pair "`+id+`": verdict equivalent_proved without a proof`) {
			t.Errorf("%s: exit %d\n%s\n%s", name, code, stdout, stderr)
		}
	}
	other := filepath.Join(dir, "other.jsonl")
	if err := os.WriteFile(other, []byte(strings.Replace(equivPairs, "x > 1", "x > 2", 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	if code, _, stderr := runMain(t, "equiv", "check", out, "--pairs", other); code != ExitUsage || !strings.Contains(stderr, "not the pairs file of the run") {
		t.Fatalf("another pairs file: exit %d: %s", code, stderr)
	}
}

// TestEquivCheckPostgresDBID: the proofs of a run of db_id pairs on a
// PostgreSQL server are re-checked against the databases on that server
// (equiv check --db DSN reads them as the run did), where the check once
// asked for a folder of SQLite databases; a table the model leaves out (a
// trigger) is refused by the run.
func TestEquivCheckPostgresDBID(t *testing.T) {
	server := testserver.Postgres(t)
	name := strings.TrimSuffix(testserver.Name("sjt_check_"), "_")
	conn := testserver.CreatePostgresDB(t, server, name)
	if _, err := conn.Exec(context.Background(), `CREATE TABLE plain (id INT PRIMARY KEY, x INT);
		CREATE TABLE trg (id INT PRIMARY KEY, x INT);
		CREATE FUNCTION trg_f() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RETURN NEW; END $$;
		CREATE TRIGGER trg_t BEFORE INSERT ON trg FOR EACH ROW EXECUTE FUNCTION trg_f()`); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	pairs := filepath.Join(dir, "pairs.jsonl")
	lines := `{"id": "a", "q1": "SELECT DISTINCT id FROM plain", "q2": "SELECT id FROM plain", "db_id": "` + name + `"}
{"id": "b", "q1": "SELECT DISTINCT id FROM trg", "q2": "SELECT id FROM trg", "db_id": "` + name + `"}
`
	if err := os.WriteFile(pairs, []byte(lines), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "out")
	if code, _, stderr := runMain(t, "equiv", "--pairs", pairs, "--out", out, "--db", server, "--allow-superuser", "--max-databases", "50"); code != ExitOK {
		t.Fatalf("equiv: exit %d: %s", code, stderr)
	}
	b, err := os.ReadFile(filepath.Join(out, "results.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	recs := strings.Split(strings.TrimSpace(string(b)), "\n")
	if len(recs) != 2 || !strings.Contains(recs[0], `"verdict":"equivalent_proved"`) || !strings.Contains(recs[1], `"verdict":"unknown"`) || !strings.Contains(recs[1], "table trg: a trigger") {
		t.Fatalf("records:\n%s\nwant a proved, b unknown for its trigger", b)
	}
	if code, stdout, stderr := runMain(t, "equiv", "check", out, "--pairs", pairs, "--db", server, "--allow-superuser"); code != ExitOK || !strings.Contains(stdout, "1 proofs checked, all valid") {
		t.Fatalf("check: exit %d\n%s\n%s", code, stdout, stderr)
	}
}
