package cli

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sqljudge/sqljudge/internal/report"
	"github.com/sqljudge/sqljudge/internal/run"
	"github.com/sqljudge/sqljudge/internal/shareddata"
)

func runMain(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errb bytes.Buffer
	code = Main(args, strings.NewReader(""), &out, &errb)
	return code, out.String(), errb.String()
}

func TestDemo(t *testing.T) {
	out := t.TempDir()
	code, stdout, stderr := runMain(t, "eval", "--demo", "--out", out)
	if code != ExitOK {
		t.Fatalf("exit %d\n%s\n%s", code, stdout, stderr)
	}
	for _, want := range []string{"ex_bird", "sqleval exact", "pred_error", "31 items"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("table lacks %q:\n%s", want, stdout)
		}
	}
	recs, _, err := run.ReadRecords(filepath.Join(out, run.ResultsFile))
	if err != nil {
		t.Fatal(err)
	}
	if len(recs) != 31 {
		t.Fatalf("%d records, want 31", len(recs))
	}
	statuses := map[string]bool{}
	outcomes := map[string]bool{}
	for _, r := range recs {
		for _, v := range r.Verdicts {
			statuses[string(v.Status)] = true
		}
		outcomes[key(r.Verdicts["ex"].Correct, r.Verdicts["ex_bird"].Correct, r.Verdicts["sqleval"].Correct, r.Verdicts["sqleval"].Fields["exact"] == true)] = true
	}
	for _, s := range []string{"ok", "pred_error", "gold_error", "timeout", "too_large"} {
		if !statuses[s] {
			t.Errorf("the demo has no %s verdict", s)
		}
	}
	// correct everywhere; reordered columns (ex yes, BIRD no); extra column
	// (only sqleval, not exact); wrong everywhere.
	for _, o := range []string{key(true, true, true, true), key(true, false, true, true), key(false, false, true, false), key(false, false, false, false)} {
		if !outcomes[o] {
			t.Errorf("the demo has no item with outcome %s", o)
		}
	}
	sum, err := report.ReadSummary(filepath.Join(out, report.SummaryFile))
	if err != nil {
		t.Fatal(err)
	}
	if sum.Items != 31 || sum.Overall["ex"].Count != 31 || len(sum.Difficulties) == 0 {
		t.Errorf("summary %+v", sum)
	}
}

func key(b ...bool) string {
	var s []string
	for _, x := range b {
		if x {
			s = append(s, "1")
		} else {
			s = append(s, "0")
		}
	}
	return strings.Join(s, "")
}

// TestEvalSpiderMatchesOfficialEX runs eval as a user would on Spider dev
// and checks the summary against the official evaluator's verdicts.
func TestEvalSpiderMatchesOfficialEX(t *testing.T) {
	spider := shareddata.Path(t, "spider")
	out := t.TempDir()
	code, stdout, stderr := runMain(t, "eval",
		"--gold", filepath.Join(spider, "dev_gold.sql"),
		"--pred", filepath.Join(spider, "predictions", "c3.sql"),
		"--db", filepath.Join(spider, "database"),
		"--tables", filepath.Join(spider, "tables.json"),
		"--timeout", "60s",
		"--out", out)
	if code != ExitOK {
		t.Fatalf("exit %d\n%s\n%s", code, stdout, stderr)
	}
	official := 0
	for _, o := range shareddata.Oracle(t, "c3") {
		official += o.Exec
	}
	sum, err := report.ReadSummary(filepath.Join(out, report.SummaryFile))
	if err != nil {
		t.Fatal(err)
	}
	if got := sum.Overall["ex"]; got.Count != 1034 || got.Correct != official {
		t.Fatalf("ex %d/%d correct, official exec %d/1034", got.Correct, got.Count, official)
	}
}

func TestBadInputExitsWithFileAndLine(t *testing.T) {
	spider := shareddata.Path(t, "spider")
	dir := t.TempDir()
	gold := filepath.Join(dir, "gold.sql")
	os.WriteFile(gold, []byte("SELECT count(*) FROM singer\tconcert_singer\nSELECT 1\tno_such_db\n"), 0o644)
	pred := filepath.Join(dir, "pred.sql")
	os.WriteFile(pred, []byte("SELECT count(*) FROM singer\n"), 0o644)
	two := filepath.Join(dir, "two.sql")
	os.WriteFile(two, []byte("SELECT 1\nSELECT 2\n"), 0o644)
	db := filepath.Join(spider, "database")
	tables := filepath.Join(spider, "tables.json")
	cases := []struct {
		name string
		args []string
		want string
	}{
		{"no gold", []string{"eval", "--db", db, "--out", dir}, "--gold is required"},
		{"count mismatch", []string{"eval", "--gold", gold, "--pred", pred, "--db", db, "--out", dir}, pred + ":1: 1 predictions for 2 gold items"},
		{"unknown db_id", []string{"eval", "--gold", gold, "--pred", two, "--db", db, "--tables", tables, "--out", dir}, gold + ":2: unknown db_id \"no_such_db\""},
		{"missing database", []string{"eval", "--gold", gold, "--pred", two, "--db", db, "--out", dir}, gold + ":2: db_id \"no_such_db\": database not found"},
		{"unknown metric", []string{"eval", "--demo", "--metrics", "ex,nope", "--out", dir}, "unknown metric \"nope\""},
		{"bad flag", []string{"eval", "--timeout", "soon"}, "invalid argument"},
	}
	for _, c := range cases {
		code, _, stderr := runMain(t, c.args...)
		if code != ExitUsage || !strings.Contains(stderr, c.want) {
			t.Errorf("%s: exit %d, stderr %q; want exit %d with %q", c.name, code, stderr, ExitUsage, c.want)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, run.ResultsFile)); err == nil {
		t.Error("a refused run wrote results")
	}
}

func TestVersion(t *testing.T) {
	code, stdout, _ := runMain(t, "version")
	if code != ExitOK || !strings.HasPrefix(stdout, "sqljudge ") {
		t.Fatalf("exit %d %q", code, stdout)
	}
}
