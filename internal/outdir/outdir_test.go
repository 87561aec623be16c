package outdir_test

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/sqljudge/sqljudge/internal/outdir"
)

// TestMain lets the test binary stand in for another sqljudge process
// holding a folder's lock (TestLockHeldByAnotherProcess).
func TestMain(m *testing.M) {
	if dir := os.Getenv("OUTDIR_TEST_HOLD"); dir != "" {
		unlock, err := outdir.Lock(dir)
		if err != nil {
			fmt.Println("error:", err)
			os.Exit(1)
		}
		fmt.Println("locked")
		io.Copy(io.Discard, os.Stdin) // hold until the parent closes stdin
		unlock()
		os.Exit(0)
	}
	os.Exit(m.Run())
}

func TestLockHeldByAnotherProcess(t *testing.T) {
	dir := t.TempDir()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), "OUTDIR_TEST_HOLD="+dir)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	line, _ := bufio.NewReader(stdout).ReadString('\n')
	if line != "locked\n" {
		t.Fatalf("helper process: %q", line)
	}
	_, err = outdir.Lock(dir)
	if !errors.Is(err, outdir.ErrLocked) || !strings.Contains(err.Error(), dir) {
		t.Fatalf("lock held by another process: err = %v, want ErrLocked naming %s", err, dir)
	}
	stdin.Close()
	if err := cmd.Wait(); err != nil {
		t.Fatal(err)
	}
	unlock, err := outdir.Lock(dir)
	if err != nil {
		t.Fatalf("lock after the other process ended: %v", err)
	}
	unlock()
}

func TestLockHeldInThisProcess(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "new", "out")
	unlock, err := outdir.Lock(dir)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, outdir.LockFile)); err != nil {
		t.Fatalf("Lock did not create the folder and its lock file: %v", err)
	}
	if _, err := outdir.Lock(dir); !errors.Is(err, outdir.ErrLocked) {
		t.Fatalf("second lock in the same process: err = %v, want ErrLocked", err)
	}
	unlock()
	unlock2, err := outdir.Lock(dir)
	if err != nil {
		t.Fatalf("lock after unlock: %v", err)
	}
	unlock2()
}

func TestWriteFileFailureKeepsOldAndNoTmp(t *testing.T) {
	for name, write := range map[string]func(string, func(io.Writer) error) error{
		"WriteFile":   outdir.WriteFile,
		"WriteShared": func(p string, w func(io.Writer) error) error { return outdir.WriteShared(p, ".tmp-*", w) },
	} {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, "f.json")
			if err := write(path, func(w io.Writer) error { _, err := io.WriteString(w, "old\n"); return err }); err != nil {
				t.Fatal(err)
			}
			boom := errors.New("boom")
			err := write(path, func(w io.Writer) error {
				io.WriteString(w, "half")
				return boom
			})
			if !errors.Is(err, boom) {
				t.Fatalf("err = %v, want the writer's", err)
			}
			b, _ := os.ReadFile(path)
			if string(b) != "old\n" {
				t.Fatalf("file after a failed write = %q, want the old content", b)
			}
			ents, _ := os.ReadDir(dir)
			if len(ents) != 1 {
				t.Fatalf("folder after a failed write holds %v, want only f.json", ents)
			}
		})
	}
}

func TestFingerprintMismatchNamesSetting(t *testing.T) {
	dir := t.TempDir()
	old := &outdir.Fingerprint{Version: "v1", Inputs: map[string]string{"gold": "sha256:aa"}, Settings: map[string]string{"max_rows": "100", "seed": "1"}}
	if err := outdir.WriteFingerprint(dir, old); err != nil {
		t.Fatal(err)
	}
	got, err := outdir.ReadFingerprint(dir)
	if err != nil {
		t.Fatal(err)
	}
	now := &outdir.Fingerprint{Version: "v1", Inputs: map[string]string{"gold": "sha256:aa", "tables": "sha256:bb"}, Settings: map[string]string{"max_rows": "200", "seed": "1"}}
	want := []string{"tables: (none) -> sha256:bb", "max_rows: 100 -> 200"}
	if d := now.Diff(got); strings.Join(d, "|") != strings.Join(want, "|") {
		t.Fatalf("Diff = %q, want %q", d, want)
	}
	if d := old.Diff(got); len(d) != 0 {
		t.Fatalf("Diff of the same fingerprint = %q", d)
	}
	if _, err := outdir.ReadFingerprint(t.TempDir()); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("missing fingerprint: err = %v, want ErrNotExist", err)
	}
	os.WriteFile(filepath.Join(dir, outdir.FingerprintFile), []byte("{"), 0o644)
	if _, err := outdir.ReadFingerprint(dir); err == nil || !strings.Contains(err.Error(), outdir.FingerprintFile) {
		t.Fatalf("malformed fingerprint: err = %v, want one naming the file", err)
	}
}

type rec struct {
	N int    `json:"n"`
	S string `json:"s,omitempty"`
}

func readAll(t *testing.T, path string) ([]rec, int64) {
	t.Helper()
	var out []rec
	valid, err := outdir.ReadJournal(path, func(n int, b []byte) error {
		var r rec
		if err := json.Unmarshal(b, &r); err != nil {
			return fmt.Errorf("%s:%d: %w", path, n, err)
		}
		out = append(out, r)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out, valid
}

func TestJournalTornLastLine(t *testing.T) {
	path := filepath.Join(t.TempDir(), "j.jsonl")
	os.WriteFile(path, []byte("{\"n\":0}\n\n{\"n\":1}\n{\"n\":2"), 0o644)
	recs, valid := readAll(t, path)
	if len(recs) != 2 || recs[1].N != 1 || valid != int64(len("{\"n\":0}\n\n{\"n\":1}\n")) {
		t.Fatalf("read %v, valid %d: want records 0 and 1 and the torn line dropped", recs, valid)
	}
	if b, _ := os.ReadFile(path); !strings.HasSuffix(string(b), "{\"n\":2") {
		t.Fatalf("ReadJournal changed the file: %q", b)
	}
	n := 0
	if err := outdir.ResumeJournal(path, func(int, []byte) error { n++; return nil }); err != nil || n != 2 {
		t.Fatalf("ResumeJournal: %v, %d lines, want 2", err, n)
	}
	j, err := outdir.OpenJournal(path, outdir.JSON[rec])
	if err != nil {
		t.Fatal(err)
	}
	if err := j.Put(0, rec{N: 2}); err != nil {
		t.Fatal(err)
	}
	if err := j.Close(); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(path)
	if want := "{\"n\":0}\n\n{\"n\":1}\n{\"n\":2}\n"; string(b) != want {
		t.Fatalf("journal after resume = %q, want %q", b, want)
	}
	// A bad complete line is the caller's error, named by line.
	os.WriteFile(path, []byte("{\"n\":0}\nnot json\n"), 0o644)
	_, err = outdir.ReadJournal(path, func(n int, b []byte) error {
		var r rec
		if err := json.Unmarshal(b, &r); err != nil {
			return fmt.Errorf("line %d: %w", n, err)
		}
		return nil
	})
	if err == nil || !strings.HasPrefix(err.Error(), "line 2:") {
		t.Fatalf("bad line: err = %v, want one naming line 2", err)
	}
}

func TestJournalOrderUnderConcurrentCompletion(t *testing.T) {
	path := filepath.Join(t.TempDir(), "j.jsonl")
	j, err := outdir.OpenJournal(path, outdir.JSONNoEscape[rec])
	if err != nil {
		t.Fatal(err)
	}
	var seen []int
	j.After = func(r rec) error { seen = append(seen, r.N); return nil }
	const n = 200
	order := rand.Perm(n)
	var wg sync.WaitGroup
	for _, k := range order {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := j.Put(k, rec{N: k, S: "<&>"}); err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	if err := j.Close(); err != nil {
		t.Fatal(err)
	}
	recs, _ := readAll(t, path)
	for k, r := range recs {
		if r.N != k || seen[k] != k {
			t.Fatalf("record %d is %d (told %d): not in sequence order", k, r.N, seen[k])
		}
	}
	if len(recs) != n {
		t.Fatalf("%d records, want %d", len(recs), n)
	}
	b, _ := os.ReadFile(path)
	if !strings.Contains(string(b), `"s":"<&>"`) {
		t.Fatalf("JSONNoEscape escaped HTML characters: %s", b[:40])
	}
}

func TestJournalAfterErrorStops(t *testing.T) {
	path := filepath.Join(t.TempDir(), "j.jsonl")
	j, err := outdir.OpenJournal(path, outdir.JSON[rec])
	if err != nil {
		t.Fatal(err)
	}
	stop := errors.New("stop")
	j.After = func(r rec) error {
		if r.N == 1 {
			return stop
		}
		return nil
	}
	if err := j.Put(2, rec{N: 2}); err != nil {
		t.Fatal(err)
	}
	if err := j.Put(1, rec{N: 1}); err != nil {
		t.Fatal(err) // waits for 0
	}
	if err := j.Put(0, rec{N: 0}); !errors.Is(err, stop) {
		t.Fatalf("err = %v, want After's", err)
	}
	if err := j.Put(3, rec{N: 3}); !errors.Is(err, stop) {
		t.Fatalf("Put after a stop: err = %v, want After's", err)
	}
	j.Close()
	recs, _ := readAll(t, path)
	if len(recs) != 2 || recs[1].N != 1 {
		t.Fatalf("records after a stop: %v, want 0 and 1 (written, then stopped)", recs)
	}
}

func TestWriteJSONL(t *testing.T) {
	path := filepath.Join(t.TempDir(), "j.jsonl")
	if err := outdir.WriteJSONL(path, []rec{{N: 1}, {N: 0, S: "<"}}, outdir.JSON[rec]); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(path)
	if want := "{\"n\":1}\n{\"n\":0,\"s\":\"\\u003c\"}\n"; string(b) != want {
		t.Fatalf("WriteJSONL wrote %q, want %q", b, want)
	}
}

func TestWriteBytesReplacesWhole(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "predictions.sql")
	for _, data := range []string{"SELECT 1\nSELECT 2\n", "SELECT 3\n"} {
		if err := outdir.WriteBytes(path, []byte(data)); err != nil {
			t.Fatal(err)
		}
		if b, _ := os.ReadFile(path); string(b) != data {
			t.Fatalf("file = %q, want %q", b, data)
		}
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 1 {
		t.Fatalf("folder holds %v, want only the file", ents)
	}
	if err := outdir.WriteBytes(filepath.Join(dir, "missing", "f"), nil); err == nil {
		t.Fatal("WriteBytes into a missing folder succeeded")
	}
}
