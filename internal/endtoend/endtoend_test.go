package endtoend

import (
	"bufio"
	"bytes"
	"encoding/csv"
	"encoding/json"
	"flag"
	"fmt"
	"hash/fnv"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/sqljudge/sqljudge/internal/cli"
	"github.com/sqljudge/sqljudge/internal/llm/llmtest"
	"github.com/sqljudge/sqljudge/internal/shareddata"
)

var update = flag.Bool("update", false, "rewrite the expected outputs of every case from this run")

// goldenVersion is the version the commands report in summary.json, so
// that the files do not change with the build.
const goldenVersion = "golden"

// TestEndToEnd runs every testdata/<case>/cmd and compares its console
// output and its output files with the case's expected ones.
func TestEndToEnd(t *testing.T) {
	cli.Version = goldenVersion
	// eval's own GC settings, which summary.json states (go_memory_limit),
	// whatever the caller's environment says.
	t.Setenv("GOGC", "")
	t.Setenv("GOMEMLIMIT", "")
	data := shareddata.Subset(t)
	cases, err := filepath.Glob(filepath.Join("testdata", "*", "cmd"))
	if err != nil {
		t.Fatal(err)
	}
	if len(cases) == 0 {
		t.Fatal("no testdata/<case>/cmd")
	}
	for _, c := range cases {
		dir := filepath.Dir(c)
		t.Run(filepath.Base(dir), func(t *testing.T) {
			caseDir, err := filepath.Abs(dir)
			if err != nil {
				t.Fatal(err)
			}
			tmp := t.TempDir()
			e := &env{t: t, vars: map[string]string{
				"DATA": data, "CASE": caseDir,
				"WORK": filepath.Join(tmp, "work"), "OUT": filepath.Join(tmp, "out"),
			}}
			for _, d := range []string{e.vars["WORK"], e.vars["OUT"]} {
				if err := os.MkdirAll(d, 0o755); err != nil {
					t.Fatal(err)
				}
			}
			e.run(readScript(t, c))
			got := map[string][]byte{"stdout": e.scrub(e.stdout.Bytes()), "stderr": e.scrub(e.stderr.Bytes())}
			for name, b := range outputFiles(t, e.vars["OUT"]) {
				got[filepath.ToSlash(filepath.Join("out", name))] = e.scrub(b)
			}
			if *update {
				writeExpected(t, caseDir, got)
				return
			}
			cmpDirectory(t, caseDir, got)
		})
	}
}

// env runs one case's script.
type env struct {
	t      *testing.T
	vars   map[string]string
	stdout bytes.Buffer
	stderr bytes.Buffer
	llm    *llmtest.Server
}

// step is one line of a cmd script, with the line it starts on.
type step struct {
	line int
	args []string
}

// readScript reads a cmd file into steps: "#" comments and blank lines
// skipped, a trailing "\" joining the next line, fields split on spaces.
func readScript(t *testing.T, path string) []step {
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var steps []step
	var cur []string
	start := 0
	for i, l := range strings.Split(string(b), "\n") {
		l = strings.TrimSpace(l)
		if len(cur) == 0 && (l == "" || strings.HasPrefix(l, "#")) {
			continue
		}
		if len(cur) == 0 {
			start = i + 1
		}
		cont := strings.HasSuffix(l, "\\")
		cur = append(cur, strings.Fields(strings.TrimSuffix(l, "\\"))...)
		if !cont {
			steps = append(steps, step{line: start, args: cur})
			cur = nil
		}
	}
	if len(cur) > 0 {
		t.Fatalf("%s: the last step ends with \\", path)
	}
	return steps
}

func (e *env) run(steps []step) {
	t := e.t
	for _, s := range steps {
		where := fmt.Sprintf("cmd:%d", s.line)
		args := make([]string, len(s.args))
		for i, a := range s.args {
			args[i] = e.expand(where, a)
		}
		n := func(s string) int {
			k, err := strconv.Atoi(s)
			if err != nil || k <= 0 {
				t.Fatalf("%s: %q is not a positive count", where, s)
			}
			return k
		}
		need := func(k int) {
			if len(args) != k {
				t.Fatalf("%s: %s takes %d arguments, got %d", where, args[0], k-1, len(args)-1)
			}
		}
		switch args[0] {
		case "sqljudge":
			var out, errb bytes.Buffer
			code := cli.Main(args[1:], strings.NewReader(""), &out, &errb)
			cmd := strings.Join(s.args, " ")
			fmt.Fprintf(&e.stdout, "$ %s\n%s[exit %d]\n", cmd, out.String(), code)
			fmt.Fprintf(&e.stderr, "$ %s\n%s", cmd, errb.String())
		case "head":
			need(4)
			e.head(where, n(args[1]), args[2], args[3])
		case "jsonhead":
			need(4)
			e.jsonHead(where, n(args[1]), args[2], args[3])
		case "csvhead":
			need(4)
			e.csvHead(where, n(args[1]), args[2], args[3])
		case "labels":
			need(4)
			e.labels(where, n(args[1]), args[2], args[3])
		case "llm":
			need(2)
			e.startLLM(args[1])
		default:
			t.Fatalf("%s: unknown step %q", where, args[0])
		}
	}
}

var varRE = regexp.MustCompile(`\$[A-Z]+`)

// expand replaces $NAME by its value; an unknown name fails the test.
func (e *env) expand(where, arg string) string {
	return varRE.ReplaceAllStringFunc(arg, func(v string) string {
		val, ok := e.vars[v[1:]]
		if !ok {
			e.t.Fatalf("%s: %s is not set (have $DATA, $CASE, $WORK, $OUT, and $LLM after an llm step)", where, v)
		}
		return val
	})
}

// data returns the shared data file src, which must exist.
func (e *env) data(where, src string) []byte {
	b, err := os.ReadFile(filepath.Join(e.vars["DATA"], src))
	if err != nil {
		e.t.Fatalf("%s: %v", where, err)
	}
	return b
}

func (e *env) write(where, dst string, b []byte) {
	if err := os.WriteFile(filepath.Join(e.vars["WORK"], dst), b, 0o644); err != nil {
		e.t.Fatalf("%s: %v", where, err)
	}
}

func (e *env) head(where string, n int, src, dst string) {
	lines := strings.SplitAfter(string(e.data(where, src)), "\n")
	if len(lines) < n {
		e.t.Fatalf("%s: %s has %d lines, fewer than %d", where, src, len(lines), n)
	}
	e.write(where, dst, []byte(strings.Join(lines[:n], "")))
}

func (e *env) jsonHead(where string, n int, src, dst string) {
	var all []json.RawMessage
	if err := json.Unmarshal(e.data(where, src), &all); err != nil {
		e.t.Fatalf("%s: %s: %v", where, src, err)
	}
	if len(all) < n {
		e.t.Fatalf("%s: %s has %d elements, fewer than %d", where, src, len(all), n)
	}
	b, err := json.MarshalIndent(all[:n], "", "  ")
	if err != nil {
		e.t.Fatal(err)
	}
	e.write(where, dst, b)
}

func (e *env) csvHead(where string, n int, src, dst string) {
	r := csv.NewReader(bytes.NewReader(e.data(where, src)))
	r.LazyQuotes = true
	r.FieldsPerRecord = -1
	recs, err := r.ReadAll()
	if err != nil {
		e.t.Fatalf("%s: %s: %v", where, src, err)
	}
	if len(recs) < n+1 {
		e.t.Fatalf("%s: %s has %d records, fewer than %d", where, src, len(recs)-1, n)
	}
	var b bytes.Buffer
	w := csv.NewWriter(&b)
	if err := w.WriteAll(recs[:n+1]); err != nil {
		e.t.Fatal(err)
	}
	e.write(where, dst, b.Bytes())
}

// oracle returns the official verdicts of system's Spider dev predictions.
func (e *env) oracle(system string) []shareddata.OracleRecord {
	return shareddata.SubsetOracle(e.t, system)
}

func (e *env) labels(where string, n int, system, dst string) {
	or := e.oracle(system)
	if len(or) < n {
		e.t.Fatalf("%s: %s has %d oracle verdicts, fewer than %d", where, system, len(or), n)
	}
	var b bytes.Buffer
	for _, o := range or[:n] {
		fmt.Fprintf(&b, "{\"id\": %q, \"label\": %v}\n", strconv.Itoa(o.I), o.Exec == 1)
	}
	e.write(where, dst, b.Bytes())
}

// startLLM starts the scripted judge model of a case and sets $LLM: it
// plays every judge (llmtest.Judges) as a model that knows the official
// Spider evaluator's execution verdict on system's prediction for each dev
// question, except that its Execution Score (xscore) is wrong on one
// question in four (those whose FNV-1a hash is a multiple of 4), so the
// judges disagree and agreement is not trivially perfect.
func (e *env) startLLM(system string) {
	var qs []struct {
		Question string `json:"question"`
	}
	if err := json.Unmarshal(e.data("llm", filepath.Join("spider", "dev.json")), &qs); err != nil {
		e.t.Fatal(err)
	}
	or := e.oracle(system)
	truth := map[string]bool{}
	for _, o := range or {
		if _, dup := truth[qs[o.I].Question]; !dup {
			truth[qs[o.I].Question] = o.Exec == 1
		}
	}
	e.llm = llmtest.New(e.t, llmtest.Judges(func(kind, q string) (bool, bool) {
		ok, known := truth[q]
		if kind == "xscore" {
			h := fnv.New32a()
			h.Write([]byte(q))
			if h.Sum32()%4 == 0 {
				ok = !ok
			}
		}
		return ok, known
	}))
	e.vars["LLM"] = e.llm.BaseURL()
}

var (
	wallSecondsRE = regexp.MustCompile(`"(wall_seconds|seconds)": [0-9.e+-]+`)
	wallTimeRE    = regexp.MustCompile(`wall time [0-9.]+[a-zµ]+`)
	suiteTimeRE   = regexp.MustCompile(`never told apart, [0-9]+s`)
	suiteLogRE    = regexp.MustCompile(`(?m)(neighbours told apart) +[0-9.]+s$`)
	// replyKeyRE matches the key of a stored LLM reply (a SHA-256 in hex,
	// quoted): the key covers the server's base URL, whose port changes
	// from run to run.
	replyKeyRE = regexp.MustCompile(`"[0-9a-f]{64}"`)
)

// scrub replaces what changes from run to run: the absolute folders of the
// case by their variable names (the scripted server's URL too), the keys
// of stored LLM replies (they cover that URL) by "$KEY", and wall times by 0.
func (e *env) scrub(b []byte) []byte {
	s := string(b)
	if e.llm != nil {
		s = strings.ReplaceAll(s, e.llm.BaseURL(), "$LLM")
		s = strings.ReplaceAll(s, e.llm.URL, "$LLM")
	}
	names := []string{"OUT", "WORK", "CASE", "DATA"}
	for _, n := range names {
		s = strings.ReplaceAll(s, e.vars[n], "$"+n)
	}
	if e.llm != nil {
		s = replyKeyRE.ReplaceAllString(s, `"$$KEY"`)
	}
	s = wallSecondsRE.ReplaceAllString(s, `"$1": 0`)
	s = wallTimeRE.ReplaceAllString(s, "wall time 0s")
	s = suiteTimeRE.ReplaceAllString(s, "never told apart, 0s")
	s = suiteLogRE.ReplaceAllString(s, "$1 0s")
	return []byte(s)
}

// outputFiles returns the JSON and JSONL files under out by their relative
// path; the LLM reply store (llm-cache/) and databases are not compared.
func outputFiles(t *testing.T, out string) map[string][]byte {
	files := map[string][]byte{}
	err := filepath.WalkDir(out, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if d.Name() == "llm-cache" {
				return filepath.SkipDir
			}
			return nil
		}
		if ext := filepath.Ext(p); ext != ".json" && ext != ".jsonl" {
			return nil
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(out, p)
		if err != nil {
			return err
		}
		files[rel] = b
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return files
}

// expectedFiles returns the expected outputs of a case: stdout, stderr and
// every file under out/.
func expectedFiles(t *testing.T, caseDir string) map[string][]byte {
	want := map[string][]byte{}
	err := filepath.WalkDir(caseDir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, err := filepath.Rel(caseDir, p)
		if err != nil {
			return err
		}
		rel = filepath.ToSlash(rel)
		if rel != "stdout" && rel != "stderr" && !strings.HasPrefix(rel, "out/") {
			return nil
		}
		b, err := os.ReadFile(p)
		want[rel] = b
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return want
}

// cmpDirectory fails the test for every expected file that is missing,
// differs or was not expected, showing the first differing line.
func cmpDirectory(t *testing.T, caseDir string, got map[string][]byte) {
	want := expectedFiles(t, caseDir)
	for _, name := range sortedKeys(want, got) {
		w, inWant := want[name]
		g, inGot := got[name]
		switch {
		case !inGot:
			t.Errorf("%s: expected, but the run did not write it", name)
		case !inWant:
			t.Errorf("%s: written by the run, but not expected (refresh with -update)", name)
		case !bytes.Equal(w, g):
			t.Errorf("%s differs from %s (refresh with -update if the change is meant):\n%s",
				name, filepath.Join(caseDir, name), firstDiff(w, g))
		}
	}
}

// firstDiff describes the first line where want and got differ.
func firstDiff(want, got []byte) string {
	ws, gs := bufio.NewScanner(bytes.NewReader(want)), bufio.NewScanner(bytes.NewReader(got))
	ws.Buffer(nil, 64<<20)
	gs.Buffer(nil, 64<<20)
	for line := 1; ; line++ {
		wok, gok := ws.Scan(), gs.Scan()
		if !wok && !gok {
			return fmt.Sprintf("same lines, different bytes (%d expected, %d got)", len(want), len(got))
		}
		if wok != gok || ws.Text() != gs.Text() {
			w, g := ws.Text(), gs.Text()
			col := 0
			for col < len(w) && col < len(g) && w[col] == g[col] {
				col++
			}
			return fmt.Sprintf("line %d, byte %d:\n- %s\n+ %s", line, col+1, window(w, col), window(g, col))
		}
	}
}

// window returns up to 200 bytes of s around byte col.
func window(s string, col int) string {
	from, to := max(col-100, 0), min(col+100, len(s))
	out := s[from:to]
	if from > 0 {
		out = "…" + out
	}
	if to < len(s) {
		out += "…"
	}
	return out
}

func sortedKeys(a, b map[string][]byte) []string {
	var keys []string
	for k := range a {
		keys = append(keys, k)
	}
	for k := range b {
		if _, ok := a[k]; !ok {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys)
	return keys
}

// writeExpected replaces the expected outputs of a case with got.
func writeExpected(t *testing.T, caseDir string, got map[string][]byte) {
	if err := os.RemoveAll(filepath.Join(caseDir, "out")); err != nil {
		t.Fatal(err)
	}
	for name, b := range got {
		p := filepath.Join(caseDir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}
