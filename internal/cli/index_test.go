package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sqljudge/sqljudge/internal/llm/llmtest"
	"github.com/sqljudge/sqljudge/internal/shareddata"
)

// TestIndexCommand indexes two Spider databases and a BIRD-like copy of
// one with a description file, embeds the descriptions through the
// scripted server, and checks that a second run reads every cache and
// sends no request.
func TestIndexCommand(t *testing.T) {
	srv := llmtest.New(t, func(*llmtest.Request) llmtest.Reply { return llmtest.Reply{Status: 500} })
	dbs := t.TempDir()
	for _, id := range []string{"concert_singer", "pets_1"} {
		b, err := os.ReadFile(shareddata.SubsetPath(t, "spider", "database", id, id+".sqlite"))
		if err != nil {
			t.Fatal(err)
		}
		os.MkdirAll(filepath.Join(dbs, id, "database_description"), 0o755)
		if err := os.WriteFile(filepath.Join(dbs, id, id+".sqlite"), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	os.WriteFile(filepath.Join(dbs, "pets_1", "database_description", "Pets.csv"),
		[]byte("original_column_name,column_name,column_description,data_format,value_description\nPetType,pet type,the kind of animal,text,\"cat, dog\"\n"), 0o644)
	out := t.TempDir()
	args := []string{"index", "--db", dbs, "--out", out, "--llm-base-url", srv.BaseURL(), "--embed-model", "embed-1"}
	code, stdout, stderr := runMain(t, args...)
	if code != 0 {
		t.Fatalf("exit %d: %s%s", code, stdout, stderr)
	}
	for _, want := range []string{"concert_singer", "pets_1", "built", "2 databases", "embeddings: 1 requests"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("output lacks %q:\n%s", want, stdout)
		}
	}
	for _, id := range []string{"concert_singer", "pets_1"} {
		if _, err := os.Stat(filepath.Join(out, id+".index.json.gz")); err != nil {
			t.Error(err)
		}
	}
	if n := len(srv.EmbedLog()); n != 1 {
		t.Fatalf("%d embedding requests; want 1 (pets_1's three description texts)", n)
	}
	code, stdout, _ = runMain(t, args...)
	if code != 0 || strings.Contains(stdout, "built") || !strings.Contains(stdout, "embeddings: 0 requests") || len(srv.EmbedLog()) != 1 {
		t.Fatalf("second run (exit %d, %d requests):\n%s", code, len(srv.EmbedLog()), stdout)
	}

	// Input errors exit 2 with a clear message.
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"index"}, "--db is required"},
		{[]string{"index", "--db", t.TempDir(), "--out", out}, "no SQLite database"},
		{[]string{"index", "--db", dbs, "--out", out, "--db-id", "nope"}, "no database nope"},
	} {
		code, _, stderr := runMain(t, tc.args...)
		if code != ExitUsage || !strings.Contains(stderr, tc.want) {
			t.Errorf("%v: exit %d, %q; want 2 and %q", tc.args, code, stderr, tc.want)
		}
	}
	// A file that is not a database is reported, the others still indexed.
	os.MkdirAll(filepath.Join(dbs, "broken"), 0o755)
	os.WriteFile(filepath.Join(dbs, "broken", "broken.sqlite"), []byte("not a database"), 0o644)
	code, stdout, stderr = runMain(t, "index", "--db", dbs, "--out", t.TempDir())
	if code != ExitUsage || !strings.Contains(stderr, "broken.sqlite") || !strings.Contains(stdout, "2 databases") {
		t.Errorf("broken database: exit %d\n%s%s", code, stdout, stderr)
	}
}

// TestIndexColumnRule checks the columns indexed by default on Spider's
// pets_1, whose text columns are all declared VARCHAR: CHESS's rule
// (declared type containing "TEXT", case-sensitive) indexes none of them
// (the official _get_unique_values,
// internal/generate/index/testdata/unique_values.json); --text-affinity
// indexes 5; the retired --text-type-only is accepted and changes
// nothing, and contradicts --text-affinity.
func TestIndexColumnRule(t *testing.T) {
	dbs := t.TempDir()
	b, err := os.ReadFile(shareddata.Path(t, "spider", "database", "pets_1", "pets_1.sqlite"))
	if err != nil {
		t.Fatal(err)
	}
	os.MkdirAll(filepath.Join(dbs, "pets_1"), 0o755)
	os.WriteFile(filepath.Join(dbs, "pets_1", "pets_1.sqlite"), b, 0o644)
	columns := func(args ...string) (string, string) {
		code, stdout, stderr := runMain(t, append([]string{"index", "--db", dbs, "--out", t.TempDir()}, args...)...)
		if code != 0 {
			t.Fatalf("%v: exit %d: %s%s", args, code, stdout, stderr)
		}
		for _, line := range strings.Split(stdout, "\n") {
			if f := strings.Fields(line); len(f) > 6 && f[1] == "pets_1" {
				return f[5], stderr
			}
		}
		t.Fatalf("no pets_1 row:\n%s", stdout)
		return "", ""
	}
	if got, _ := columns(); got != "0" {
		t.Errorf("default: %s columns indexed, CHESS 0", got)
	}
	if got, _ := columns("--text-affinity"); got != "5" {
		t.Errorf("--text-affinity: %s columns indexed, want 5", got)
	}
	if got, _ := columns("--text-type-only"); got != "0" {
		t.Errorf("--text-type-only: %s columns indexed, want 0", got)
	}
	code, _, stderr := runMain(t, "index", "--db", dbs, "--out", t.TempDir(), "--text-type-only", "--text-affinity")
	if code != ExitUsage || !strings.Contains(stderr, "contradict") {
		t.Errorf("both flags: exit %d, %q", code, stderr)
	}
}
