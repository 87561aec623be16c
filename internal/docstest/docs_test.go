package docstest

import (
	"bytes"
	"context"
	"debug/buildinfo"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/sqljudge/sqljudge/internal/shareddata"
)

// TestRunnableBlocks runs every ```sh runnable block of README.md and
// docs/*.md with the sqljudge binary built from this checkout on PATH, in
// a fresh folder per page that holds the committed subset (testdata/) and
// miniatures of the benchmarks' download layouts built from it (see
// workspace). The blocks of a page run in order, so a later block may read
// what an earlier one wrote. It logs how many commands it ran.
func TestRunnableBlocks(t *testing.T) {
	root := filepath.Dir(shareddata.Subset(t))
	bin := buildBinary(t, root)
	pages, err := filepath.Glob(filepath.Join(root, "docs", "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	pages = append([]string{filepath.Join(root, "README.md")}, pages...)
	blocks, commands := 0, 0
	for _, page := range pages {
		src, err := os.ReadFile(page)
		if err != nil {
			t.Fatal(err)
		}
		bs := Extract(string(src))
		if len(bs) == 0 {
			continue
		}
		rel, _ := filepath.Rel(root, page)
		t.Run(rel, func(t *testing.T) {
			ws := workspace(t, root)
			for _, b := range bs {
				runBlock(t, rel, b, ws, bin)
			}
		})
		blocks += len(bs)
		for _, b := range bs {
			commands += b.Commands()
		}
	}
	if blocks == 0 {
		t.Fatal("no ```sh runnable block in README.md or docs/*.md")
	}
	t.Logf("ran %d commands in %d runnable blocks of %d pages", commands, blocks, len(pages))
}

// buildBinary builds cmd/sqljudge into a temporary folder and returns that
// folder (for PATH). When the build recorded a commit (a git checkout) it
// checks that --version says "devel (commit ...)" or a tag.
func buildBinary(t *testing.T, root string) string {
	t.Helper()
	dir := t.TempDir()
	bin := filepath.Join(dir, "sqljudge")
	args := []string{"build", "-o", bin}
	if _, err := os.Stat(filepath.Join(root, ".git")); err == nil {
		args = append(args, "-buildvcs=auto")
	}
	cmd := exec.Command("go", append(args, "./cmd/sqljudge")...)
	cmd.Dir = root
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build ./cmd/sqljudge: %v\n%s", err, out)
	}
	out, err := exec.Command(bin, "--version").CombinedOutput()
	if err != nil {
		t.Fatalf("sqljudge --version: %v\n%s", err, out)
	}
	bi, err := buildinfo.ReadFile(bin)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range bi.Settings {
		if s.Key == "vcs.revision" && !regexp.MustCompile(`^sqljudge (devel \(commit [0-9a-f]{12}|v[0-9])`).Match(out) {
			t.Errorf("sqljudge --version of a build at commit %s = %q; want \"sqljudge devel (commit ...)\" or a tag", s.Value, out)
		}
	}
	t.Logf("%s", bytes.TrimSpace(out))
	return dir
}

// runBlock runs one block with bash -e -o pipefail in ws.
func runBlock(t *testing.T, page string, b Block, ws, bin string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "bash", "-e", "-o", "pipefail", "-c", b.Text)
	cmd.Dir = ws
	cmd.Env = blockEnv(bin, ws)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		t.Errorf("%s:%d: the runnable block failed (%v):\n%s\n--- output:\n%s", page, b.Line, err, b.Text, out.String())
	}
}

// blockEnv is the environment of a block: the binary first on PATH, HOME
// in the workspace, and no server DSN or LLM endpoint from the caller.
func blockEnv(bin, ws string) []string {
	env := []string{"PATH=" + bin + string(os.PathListSeparator) + os.Getenv("PATH"), "HOME=" + ws}
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		switch {
		case k == "PATH" || k == "HOME", strings.HasPrefix(k, "SQLJUDGE_"), strings.HasPrefix(k, "OPENAI_"):
			continue
		}
		env = append(env, kv)
	}
	return env
}

// workspace makes a folder holding testdata/ (a link to the subset),
// examples/ (the repository's examples) and
// miniatures of the download layouts the documentation's quickstarts read,
// each built from the subset:
//
//	spider_data/                  Spider's spider_data.zip: dev.json, dev_gold.sql, tables.json, database/
//	pred.sql                      DIN-SQL's predictions for spider_data/dev_gold.sql
//	dev_20240627/                 BIRD's dev.zip: dev.json (BIRD's fields), dev_databases/
//	predict_dev.json              BIRD's prediction format for it
//	minidev/MINIDEV/              BIRD mini-dev: mini_dev_sqlite.json, dev_databases/
//	predict_mini_dev_sqlite.json  its predictions
//	sql-eval/data/                Defog sql-eval's questions_gen_sqlite.csv
//	defog-data/defog_data/        Defog defog-data's dumps (academic)
//	pred.jsonl                    predictions for the Defog questions
func workspace(t *testing.T, root string) string {
	t.Helper()
	ws := t.TempDir()
	td := filepath.Join(root, "testdata")
	sp, df := filepath.Join(td, "spider"), filepath.Join(td, "defog")
	links := map[string]string{
		"testdata":                               td,
		"examples":                               filepath.Join(root, "examples"),
		"spider_data/dev.json":                   filepath.Join(sp, "dev.json"),
		"spider_data/dev_gold.sql":               filepath.Join(sp, "dev_gold.sql"),
		"spider_data/tables.json":                filepath.Join(sp, "tables.json"),
		"spider_data/database":                   filepath.Join(sp, "database"),
		"pred.sql":                               filepath.Join(sp, "predictions", "din_sql.sql"),
		"dev_20240627/dev_databases":             filepath.Join(sp, "database"),
		"minidev/MINIDEV/dev_databases":          filepath.Join(sp, "database"),
		"sql-eval/data/questions_gen_sqlite.csv": filepath.Join(df, "questions", "questions_gen_sqlite.csv"),
		"defog-data/defog_data/academic":         filepath.Join(df, "defog_data", "academic"),
		"pred.jsonl":                             filepath.Join(df, "predictions", "academic_sqlite.jsonl"),
		"defog-data/LICENSE":                     filepath.Join(df, "LICENSE-defog-data"),
		"sql-eval/LICENSE":                       filepath.Join(df, "LICENSE-sql-eval"),
	}
	for dst, src := range links {
		p := filepath.Join(ws, dst)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(src, p); err != nil {
			t.Fatal(err)
		}
	}
	birdFiles(t, ws, sp, 40)
	return ws
}

// birdFiles writes the first n Spider subset items in BIRD's formats: the
// gold file (question_id, db_id, question, evidence, SQL, difficulty) as
// dev_20240627/dev.json and minidev/MINIDEV/mini_dev_sqlite.json, and
// DIN-SQL's predictions as predict_dev.json and
// predict_mini_dev_sqlite.json ({"<question_id>": "SQL\t----- bird -----\tdb_id"}).
func birdFiles(t *testing.T, ws, spider string, n int) {
	t.Helper()
	var dev []struct {
		DBID     string `json:"db_id"`
		Question string `json:"question"`
		Query    string `json:"query"`
	}
	b, err := os.ReadFile(filepath.Join(spider, "dev.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &dev); err != nil {
		t.Fatal(err)
	}
	pb, err := os.ReadFile(filepath.Join(spider, "predictions", "din_sql.sql"))
	if err != nil {
		t.Fatal(err)
	}
	preds := strings.Split(string(pb), "\n")
	gold := make([]map[string]any, 0, n)
	pred := map[string]string{}
	for i := range n {
		d := dev[i]
		gold = append(gold, map[string]any{"question_id": i, "db_id": d.DBID, "question": d.Question, "evidence": "", "SQL": d.Query, "difficulty": "simple"})
		pred[fmt.Sprint(i)] = preds[i] + "\t----- bird -----\t" + d.DBID
	}
	for name, v := range map[string]any{
		"dev_20240627/dev.json": gold, "minidev/MINIDEV/mini_dev_sqlite.json": gold,
		"predict_dev.json": pred, "predict_mini_dev_sqlite.json": pred,
	} {
		out, err := json.MarshalIndent(v, "", "    ")
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(ws, name), out, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}
