package cli

import (
	"bytes"
	"fmt"
	"github.com/spf13/cobra"
	"os"
	"path/filepath"
	"runtime/debug"
	"strings"
	"testing"

	"github.com/sqljudge/sqljudge/internal/bench"
	"github.com/sqljudge/sqljudge/internal/metric"
	"github.com/sqljudge/sqljudge/internal/outdir"
	"github.com/sqljudge/sqljudge/internal/report"
	"github.com/sqljudge/sqljudge/internal/run"
	"github.com/sqljudge/sqljudge/internal/schema"
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
		outcomes[key(r.Verdicts["ex"].Correct, r.Verdicts["ex_bird"].Correct, r.Verdicts["sqleval"].Correct, r.Verdicts["sqleval"].Details == (metric.SQLEvalDetails{Exact: true}))] = true
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

// TestEvalSpiderMatchesOfficial runs eval as a user would on Spider dev
// with --tables, ex and em and --partial, and checks the report against
// the official evaluator: every item labelled with its gold's hardness
// (248/446/174/166), ex and em per hardness equal to the oracle's exec and
// exact per hardness, and the partial-matching table, in summary.json and
// on the console, equal in every cell to the official printout for c3.
func TestEvalSpiderMatchesOfficial(t *testing.T) {
	spider := shareddata.Path(t, "spider")
	out := t.TempDir()
	code, stdout, stderr := runMain(t, "eval",
		"--gold", filepath.Join(spider, "dev_gold.sql"),
		"--pred", filepath.Join(spider, "predictions", "c3.sql"),
		"--db", filepath.Join(spider, "database"),
		"--tables", filepath.Join(spider, "tables.json"),
		"--metrics", "ex,em", "--partial",
		"--timeout", "60s",
		"--out", out)
	if code != ExitOK {
		t.Fatalf("exit %d\n%s\n%s", code, stdout, stderr)
	}
	type tally struct{ count, exec, exact int }
	official := map[string]*tally{report.All: {}}
	for _, o := range shareddata.Oracle(t, "c3") {
		for _, l := range []string{o.Hardness, report.All} {
			if official[l] == nil {
				official[l] = &tally{}
			}
			official[l].count++
			official[l].exec += o.Exec
			official[l].exact += o.Exact
		}
	}
	sum, err := report.ReadSummary(filepath.Join(out, report.SummaryFile))
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(sum.Difficulties, ",") != "easy,medium,hard,extra" || sum.Run.Difficulty != "spider_hardness" {
		t.Fatalf("difficulties %v (%v); want Spider's hardness levels", sum.Difficulties, sum.Run.Difficulty)
	}
	for l, want := range map[string]int{"easy": 248, "medium": 446, "hard": 174, "extra": 166, report.All: 1034} {
		if official[l].count != want {
			t.Fatalf("oracle has %d %s items; the shared data says %d", official[l].count, l, want)
		}
		for m, correct := range map[string]int{"ex": official[l].exec, "em": official[l].exact} {
			sc := sum.Overall[m]
			if l != report.All {
				sc = sum.ByDifficulty[l][m]
			}
			if sc == nil || sc.Count != want || sc.Correct != correct {
				t.Errorf("%s %s: %+v; official %d/%d", l, m, sc, correct, want)
			}
		}
	}
	golden := readOfficialTable(t, filepath.Join("..", "sqlast", "spider", "testdata", "official_match_table_c3.txt"))
	p := sum.Partial
	if p == nil {
		t.Fatal("summary.json has no partial table")
	}
	fromSummary := map[string]map[string]map[string]string{}
	for _, l := range p.Levels {
		pl := p.ByLevel[l]
		cell := func(sec, row, v string) {
			if fromSummary[sec] == nil {
				fromSummary[sec] = map[string]map[string]string{}
			}
			if fromSummary[sec][row] == nil {
				fromSummary[sec][row] = map[string]string{}
			}
			fromSummary[sec][row][l] = v
		}
		cell("", "count", fmt.Sprint(pl.Count))
		cell("", "exact match", fmt.Sprintf("%.3f", pl.Exact))
		for _, c := range p.Components {
			s := pl.Components[c]
			cell("accuracy", c, fmt.Sprintf("%.3f", s.Acc))
			cell("recall", c, fmt.Sprintf("%.3f", s.Rec))
			cell("F1", c, fmt.Sprintf("%.3f", s.F1))
		}
	}
	i := strings.Index(stdout, "em partial matching")
	j := strings.Index(stdout, "│ status")
	if i < 0 || j < i {
		t.Fatalf("no partial table before the status table:\n%s", stdout)
	}
	fromConsole := parseConsoleTable(stdout[i:j])
	for name, got := range map[string]map[string]map[string]map[string]string{"summary.json": fromSummary, "console": fromConsole} {
		cells := 0
		for sec, rows := range golden {
			for row, levels := range rows {
				for l, want := range levels {
					if g := got[sec][row][l]; g != want {
						t.Errorf("%s: %s %s %s = %q; official %s", name, sec, row, l, g, want)
					}
					cells++
				}
			}
		}
		if cells != 5*(2+3*10) {
			t.Fatalf("compared %d cells of the official table; want 160", cells)
		}
	}
}

// readOfficialTable reads the official evaluation.py printout of --etype
// match: section ("" for count and exact match, then accuracy, recall,
// F1), row name, level → the printed number.
func readOfficialTable(t *testing.T, path string) map[string]map[string]map[string]string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	levels := []string{"easy", "medium", "hard", "extra", "all"}
	out := map[string]map[string]map[string]string{}
	sec := ""
	for _, line := range strings.Split(string(b), "\n") {
		switch {
		case strings.Contains(line, "PARTIAL MATCHING ACCURACY"):
			sec = "accuracy"
			continue
		case strings.Contains(line, "PARTIAL MATCHING RECALL"):
			sec = "recall"
			continue
		case strings.Contains(line, "PARTIAL MATCHING F1"):
			sec = "F1"
			continue
		case len(line) < 21 || strings.HasPrefix(line, "="):
			continue
		}
		name, fields := strings.TrimSpace(line[:21]), strings.Fields(line[21:])
		if len(fields) != len(levels) || name == "" {
			continue
		}
		if out[sec] == nil {
			out[sec] = map[string]map[string]string{}
		}
		out[sec][name] = map[string]string{}
		for k, l := range levels {
			out[sec][name][l] = fields[k]
		}
	}
	return out
}

// parseConsoleTable reads the partial table eval prints: a header row of
// levels, rows of cells, and section rows (accuracy, recall, F1) with
// empty cells.
func parseConsoleTable(s string) map[string]map[string]map[string]string {
	out := map[string]map[string]map[string]string{}
	var levels []string
	sec := ""
	for _, line := range strings.Split(s, "\n") {
		f := strings.Split(line, "│")
		if len(f) < 3 {
			continue
		}
		cells := make([]string, 0, len(f)-2)
		for _, c := range f[1 : len(f)-1] {
			cells = append(cells, strings.TrimSpace(c))
		}
		switch {
		case cells[0] == "" && len(cells) > 1:
			levels = cells[1:]
			continue
		case len(cells) > 1 && cells[1] == "":
			sec = cells[0]
			continue
		}
		if out[sec] == nil {
			out[sec] = map[string]map[string]string{}
		}
		out[sec][cells[0]] = map[string]string{}
		for k, l := range levels {
			if k+1 < len(cells) {
				out[sec][cells[0]][l] = cells[k+1]
			}
		}
	}
	return out
}

// TestEvalDifficultyLabels checks which labels eval's report is broken
// down by: a JSONL benchmark's own difficulties are kept even with
// --tables; without them each item gets its gold's Spider hardness, and an
// item whose gold the official parser cannot read gets none but still
// counts under "all".
func TestEvalDifficultyLabels(t *testing.T) {
	spider := shareddata.SubsetPath(t, "spider")
	db, tables := filepath.Join(spider, "database"), filepath.Join(spider, "tables.json")
	dir := t.TempDir()
	lines := []string{
		`{"id": "a", "db_id": "concert_singer", "gold": "SELECT count(*) FROM singer", "pred": "SELECT count(*) FROM singer"%s}`,
		`{"id": "b", "db_id": "concert_singer", "gold": "SELECT name FROM singer WHERE age > 30 ORDER BY age", "pred": "SELECT name FROM singer"%s}`,
		`{"id": "c", "db_id": "concert_singer", "gold": "SELECT no_such_column FROM singer", "pred": "SELECT 1"%s}`,
	}
	write := func(name string, diffs ...string) string {
		var b strings.Builder
		for i, l := range lines {
			d := ""
			if diffs != nil {
				d = fmt.Sprintf(`, "difficulty": %q`, diffs[i])
			}
			fmt.Fprintf(&b, l+"\n", d)
		}
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	eval := func(gold string, extra ...string) (*report.Summary, []run.Record, string) {
		t.Helper()
		out := filepath.Join(dir, filepath.Base(gold)+".out")
		code, stdout, stderr := runMain(t, append([]string{"eval", "--gold", gold, "--db", db, "--tables", tables, "--metrics", "ex,em", "--out", out}, extra...)...)
		if code != ExitOK {
			t.Fatalf("exit %d\n%s\n%s", code, stdout, stderr)
		}
		sum, err := report.ReadSummary(filepath.Join(out, report.SummaryFile))
		if err != nil {
			t.Fatal(err)
		}
		recs, _, err := run.ReadRecords(filepath.Join(out, run.ResultsFile))
		if err != nil {
			t.Fatal(err)
		}
		return sum, recs, stderr
	}

	sum, recs, _ := eval(write("own.jsonl", "simple", "moderate", "simple"))
	if strings.Join(sum.Difficulties, ",") != "simple,moderate" || recs[2].Difficulty != "simple" || sum.Run.Difficulty != "benchmark" {
		t.Errorf("own difficulties not kept: %v, %q, %v", sum.Difficulties, recs[2].Difficulty, sum.Run.Difficulty)
	}

	schemas, err := schema.Load(tables)
	if err != nil {
		t.Fatal(err)
	}
	probe := []bench.Item{{DBID: "concert_singer", Gold: []string{"SELECT count(*) FROM singer"}},
		{DBID: "concert_singer", Gold: []string{"SELECT name FROM singer WHERE age > 30 ORDER BY age"}}}
	want, errs := metric.SpiderHardness(schemas, probe)
	if errs[0] != nil || errs[1] != nil || want[0] == want[1] {
		t.Fatalf("probe hardness %v %v", want, errs)
	}
	// Item c's gold names a column no table has: the official parser
	// cannot read it, so it has no hardness.
	sum, recs, stderr := eval(write("spider.jsonl"))
	if recs[0].Difficulty != want[0] || recs[1].Difficulty != want[1] || recs[2].Difficulty != "" {
		t.Errorf("labels %q %q %q; want %q %q and none", recs[0].Difficulty, recs[1].Difficulty, recs[2].Difficulty, want[0], want[1])
	}
	if sum.Run.Difficulty != "spider_hardness" || !strings.Contains(stderr, "spider.jsonl:3: no label") {
		t.Errorf("run difficulty %v, stderr %q", sum.Run.Difficulty, stderr)
	}
	n := 0
	for _, l := range sum.Difficulties {
		n += sum.ByDifficulty[l]["ex"].Count
	}
	if sum.Overall["ex"].Count != 3 || n != 2 || sum.Overall["em"].Status["gold_error"] != 1 {
		t.Errorf("ex counted %d overall, %d by level; em %+v", sum.Overall["ex"].Count, n, sum.Overall["em"])
	}
}

// TestEvalEMFixed checks that --em-fixed reaches em: on c3 it grades
// predictions the official parser rejects (no pred_unparsed_official
// verdict is left, more are correct), and summary.json says so.
func TestEvalEMFixed(t *testing.T) {
	spider := shareddata.SubsetPath(t, "spider")
	args := []string{"eval",
		"--gold", filepath.Join(spider, "dev_gold.sql"),
		"--pred", filepath.Join(spider, "predictions", "c3.sql"),
		"--db", filepath.Join(spider, "database"),
		"--tables", filepath.Join(spider, "tables.json"),
		"--metrics", "em"}
	var sums [2]*report.Summary
	for k, extra := range [][]string{nil, {"--em-fixed"}} {
		out := t.TempDir()
		code, stdout, stderr := runMain(t, append(append(args, "--out", out), extra...)...)
		if code != ExitOK {
			t.Fatalf("exit %d\n%s\n%s", code, stdout, stderr)
		}
		s, err := report.ReadSummary(filepath.Join(out, report.SummaryFile))
		if err != nil {
			t.Fatal(err)
		}
		sums[k] = s
	}
	official, fixed := sums[0].Overall["em"], sums[1].Overall["em"]
	if official.Status["pred_unparsed_official"] == 0 || fixed.Status["pred_unparsed_official"] != 0 ||
		fixed.Correct <= official.Correct || sums[1].Run.EMFixed != true || sums[0].Run.EMFixed != false {
		t.Errorf("official %+v; fixed %+v; run %v %v", official, fixed, sums[0].Run.EMFixed, sums[1].Run.EMFixed)
	}
}

func TestBadInputExitsWithFileAndLine(t *testing.T) {
	spider := shareddata.SubsetPath(t, "spider")
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
		{"partial without em", []string{"eval", "--gold", gold, "--pred", two, "--db", db, "--tables", tables, "--partial", "--out", dir}, "--partial prints em's partial-matching table: add em to --metrics"},
		{"em-fixed without em", []string{"eval", "--gold", gold, "--pred", two, "--db", db, "--tables", tables, "--metrics", "ex", "--em-fixed", "--out", dir}, "--em-fixed sets how em grades: add em to --metrics"},
		{"em without tables", []string{"eval", "--demo", "--metrics", "em", "--out", dir}, "give --tables with the benchmark's tables.json"},
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

// TestEvalDBIDMustStayInsideDB: a db_id that is a path, or whose file is a
// symlink to a database outside --db, stops eval with exit 2 and the gold
// file's line.
func TestEvalDBIDMustStayInsideDB(t *testing.T) {
	spider := shareddata.Path(t, "spider")
	dir := t.TempDir()
	pred := filepath.Join(dir, "pred.sql")
	os.WriteFile(pred, []byte("SELECT 1\nSELECT 1\n"), 0o644)
	byPath := filepath.Join(dir, "path.sql")
	os.WriteFile(byPath, []byte("SELECT 1\tconcert_singer\nSELECT 1\tconcert_singer/../concert_singer\n"), 0o644)
	linkRoot := filepath.Join(dir, "db")
	os.MkdirAll(filepath.Join(linkRoot, "linked"), 0o755)
	if err := os.Symlink(filepath.Join(spider, "database", "concert_singer", "concert_singer.sqlite"), filepath.Join(linkRoot, "linked", "linked.sqlite")); err != nil {
		t.Fatal(err)
	}
	byLink := filepath.Join(dir, "link.sql")
	os.WriteFile(byLink, []byte("SELECT 1\tlinked\nSELECT 1\tlinked\n"), 0o644)
	for _, c := range []struct{ gold, db, want string }{
		{byPath, filepath.Join(spider, "database"), byPath + ":2: db_id \"concert_singer/../concert_singer\": bad db_id"},
		{byLink, linkRoot, byLink + ":1: db_id \"linked\": bad db_id \"linked\": its database file lies outside"},
	} {
		code, _, stderr := runMain(t, "eval", "--gold", c.gold, "--pred", pred, "--db", c.db, "--out", filepath.Join(dir, "out"))
		if code != ExitUsage || !strings.Contains(stderr, c.want) {
			t.Errorf("%s: exit %d, stderr %q; want exit %d with %q", c.gold, code, stderr, ExitUsage, c.want)
		}
	}
}

func TestVersion(t *testing.T) {
	code, stdout, _ := runMain(t, "version")
	if code != ExitOK || !strings.HasPrefix(stdout, "sqljudge ") {
		t.Fatalf("exit %d %q", code, stdout)
	}
}

// TestFormatVersion: a tagged build prints its module version, a build in
// a checkout "devel (commit ...)". docstest checks the built binary.
func TestFormatVersion(t *testing.T) {
	vcs := []debug.BuildSetting{{Key: "vcs.revision", Value: "36fdd6f0123456789abcdef"}, {Key: "vcs.time", Value: "2026-11-26T12:00:00Z"}}
	for _, c := range []struct {
		mod      string
		settings []debug.BuildSetting
		want     string
	}{
		{"v1.2.3", nil, "v1.2.3"},
		{"v0.0.0-20261126120000-36fdd6f01234", nil, "v0.0.0-20261126120000-36fdd6f01234"},
		{"(devel)", vcs, "devel (commit 36fdd6f01234, 2026-11-26T12:00:00Z)"},
		{"(devel)", append(vcs, debug.BuildSetting{Key: "vcs.modified", Value: "true"}), "devel (commit 36fdd6f01234-dirty, 2026-11-26T12:00:00Z)"},
		{"(devel)", nil, "devel"},
		// Go 1.24+ stamps a checkout build with a pseudo-version or its tag.
		{"v0.0.0-20261126120000-36fdd6f01234", vcs, "devel (commit 36fdd6f01234, 2026-11-26T12:00:00Z)"},
		{"v0.0.0-20261126120000-36fdd6f01234+dirty", append(vcs, debug.BuildSetting{Key: "vcs.modified", Value: "true"}), "devel (commit 36fdd6f01234-dirty, 2026-11-26T12:00:00Z)"},
		{"v1.2.3", vcs, "v1.2.3"},
		{"v1.2.3+dirty", append(vcs, debug.BuildSetting{Key: "vcs.modified", Value: "true"}), "devel (commit 36fdd6f01234-dirty, 2026-11-26T12:00:00Z)"},
	} {
		if got := formatVersion(c.mod, c.settings); got != c.want {
			t.Errorf("formatVersion(%q, %v) = %q; want %q", c.mod, c.settings, got, c.want)
		}
	}
}

// TestEMWithoutTablesNamesTheFlag: em without --tables says which flag to
// give, exit 2, before any work.
func TestEMWithoutTablesNamesTheFlag(t *testing.T) {
	spider := shareddata.SubsetPath(t, "spider")
	out := t.TempDir()
	code, _, stderr := runMain(t, "eval", "--gold", filepath.Join(spider, "dev_gold.sql"), "--pred", filepath.Join(spider, "predictions", "c3.sql"),
		"--db", filepath.Join(spider, "database"), "--metrics", "ex,em", "--out", out)
	if code != ExitUsage || !strings.Contains(stderr, "give --tables") {
		t.Fatalf("exit %d, stderr %q; want exit %d naming --tables", code, stderr, ExitUsage)
	}
}

// TestBadInputFilesExit2 is issue 10.3: a BIRD gold file with a duplicated
// question_id panicked (or silently paired one prediction twice); a gold
// path that is a folder, a missing prediction file, an --out that is a
// file or cannot be created exited 1. Each is now exit 2 naming the path.
func TestBadInputFilesExit2(t *testing.T) {
	spider := shareddata.SubsetPath(t, "spider")
	db := filepath.Join(spider, "database")
	dir := t.TempDir()
	write := func(name, body string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	item := func(id int) string {
		return fmt.Sprintf(`{"question_id": %d, "db_id": "concert_singer", "question": "How many singers?", "evidence": "", "SQL": "SELECT count(*) FROM singer", "difficulty": "simple"}`, id)
	}
	dupGold := write("dup_dev.json", "[\n"+item(0)+",\n"+item(1)+",\n"+item(1)+"\n]\n")
	gold := write("dev.json", "[\n"+item(0)+",\n"+item(1)+"\n]\n")
	pred2 := write("predict_dev.json", `{"0": "SELECT count(*) FROM singer\t----- bird -----\tconcert_singer", "1": "SELECT 1\t----- bird -----\tconcert_singer"}`)
	pred3 := write("predict_extra.json", `{"0": "SELECT count(*) FROM singer\t----- bird -----\tconcert_singer", "1": "SELECT 1\t----- bird -----\tconcert_singer", "7": "SELECT 2\t----- bird -----\tconcert_singer"}`)
	aFile := write("not_a_folder", "x")
	cases := []struct {
		name string
		args []string
		want string
	}{
		{"duplicate question_id", []string{"eval", "--gold", dupGold, "--pred", pred2, "--db", db, "--out", filepath.Join(dir, "o1")}, dupGold + ":4: duplicate question_id 1 (first at line 3)"},
		{"prediction without gold", []string{"eval", "--gold", gold, "--pred", pred3, "--db", db, "--out", filepath.Join(dir, "o2")}, `prediction for id "7" has no gold item in ` + gold},
		{"gold is a folder", []string{"eval", "--gold", dir, "--pred", pred2, "--db", db, "--out", filepath.Join(dir, "o3")}, dir + ": is a folder"},
		{"missing prediction file", []string{"eval", "--gold", gold, "--pred", filepath.Join(dir, "nope.json"), "--db", db, "--out", filepath.Join(dir, "o4")}, filepath.Join(dir, "nope.json")},
		{"out is a file", []string{"eval", "--gold", gold, "--pred", pred2, "--db", db, "--out", aFile}, "--out " + aFile + ": not a folder"},
		{"out cannot be created", []string{"eval", "--gold", gold, "--pred", pred2, "--db", db, "--out", filepath.Join(aFile, "sub")}, "--out " + filepath.Join(aFile, "sub")},
		{"bad --max-bytes", []string{"eval", "--gold", gold, "--pred", pred2, "--db", db, "--max-bytes", "lots", "--out", filepath.Join(dir, "o5")}, `--max-bytes "lots"`},
	}
	for _, c := range cases {
		code, _, stderr := runMain(t, c.args...)
		if code != ExitUsage || !strings.Contains(stderr, c.want) {
			t.Errorf("%s: exit %d, stderr %q; want exit %d with %q", c.name, code, stderr, ExitUsage, c.want)
		}
	}
	// The good pair still grades.
	if code, _, stderr := runMain(t, "eval", "--gold", gold, "--pred", pred2, "--db", db, "--out", filepath.Join(dir, "ok")); code != ExitOK {
		t.Fatalf("good input: exit %d: %s", code, stderr)
	}
}

// spiderSubset writes the first n Spider dev gold lines and one system's
// predictions to dir and returns their paths and the database folder.
func spiderSubset(t *testing.T, dir string, n int) (gold, pred, db string) {
	t.Helper()
	spider := shareddata.SubsetPath(t, "spider")
	return headFile(t, filepath.Join(spider, "dev_gold.sql"), dir, "gold.sql", n),
		headFile(t, filepath.Join(spider, "predictions", "resdsql.sql"), dir, "pred.sql", n), filepath.Join(spider, "database")
}

// headFile writes the first n lines of src to dir/dst and returns its path.
func headFile(t *testing.T, src, dir, dst string, n int) string {
	t.Helper()
	b, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.SplitAfter(string(b), "\n")
	p := filepath.Join(dir, dst)
	if err := os.WriteFile(p, []byte(strings.Join(lines[:n], "")), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestResumeUnderOtherSettingsExit2 is issue 10.4 as a user meets it:
// --resume with another grading flag or another gold file is exit 2 with
// what differs and --overwrite suggested; the records stay as they were.
func TestResumeUnderOtherSettingsExit2(t *testing.T) {
	dir := t.TempDir()
	gold, pred, db := spiderSubset(t, dir, 12)
	out := filepath.Join(dir, "out")
	base := []string{"eval", "--gold", gold, "--pred", pred, "--db", db, "--out", out, "--progress", "never"}
	if code, _, stderr := runMain(t, base...); code != ExitOK {
		t.Fatalf("first run: exit %d: %s", code, stderr)
	}
	before := readFile(t, filepath.Join(out, run.ResultsFile))
	code, _, stderr := runMain(t, append(base, "--resume", "--keep-distinct", "--max-rows", "500")...)
	for _, want := range []string{"cannot resume: the inputs or settings changed", "keep_distinct: false -> true", "max_rows: 100000 -> 500", "--overwrite"} {
		if code != ExitUsage || !strings.Contains(stderr, want) {
			t.Errorf("resume with other flags: exit %d, stderr %q; want exit 2 with %q", code, stderr, want)
		}
	}
	t.Logf("a user sees:\n%s", stderr)
	// Another gold file: the first query's keywords in lower case.
	gold2 := filepath.Join(dir, "gold2.sql")
	os.WriteFile(gold2, []byte(strings.Replace(string(readFile(t, gold)), "SELECT", "select", 1)), 0o644)
	code, _, stderr = runMain(t, "eval", "--gold", gold2, "--pred", pred, "--db", db, "--out", out, "--resume")
	if code != ExitUsage || !strings.Contains(stderr, "gold: sha256:") {
		t.Errorf("resume with another gold file: exit %d, stderr %q", code, stderr)
	}
	if !bytes.Equal(before, readFile(t, filepath.Join(out, run.ResultsFile))) {
		t.Fatal("a refused resume changed results.jsonl")
	}
	if code, _, stderr := runMain(t, append(base, "--resume")...); code != ExitOK {
		t.Fatalf("resume under the same settings: exit %d: %s", code, stderr)
	}
}

// TestResumeVerdictUnderOtherEquivSettingsExit2: the verdict metric's
// equiv step reads --equiv-seed, --equiv-budget and
// --equiv-max-databases, so resuming a verdict run with another of them
// is refused (exit 2, naming the setting), as it is for equiv.
func TestResumeVerdictUnderOtherEquivSettingsExit2(t *testing.T) {
	dir := t.TempDir()
	gold, pred, db := spiderSubset(t, dir, 3)
	out := filepath.Join(dir, "out")
	base := []string{"eval", "--gold", gold, "--pred", pred, "--db", db, "--out", out, "--progress", "never", "--metrics", "verdict", "--equiv-max-databases", "20"}
	if code, _, stderr := runMain(t, base...); code != ExitOK {
		t.Fatalf("first run: exit %d: %s", code, stderr)
	}
	before := readFile(t, filepath.Join(out, run.ResultsFile))
	code, _, stderr := runMain(t, append(base, "--resume", "--equiv-seed", "7")...)
	if code != ExitUsage || !strings.Contains(stderr, "equiv_seed: 1 -> 7") {
		t.Errorf("resume with another --equiv-seed: exit %d, stderr %q; want exit 2 naming equiv_seed", code, stderr)
	}
	if !bytes.Equal(before, readFile(t, filepath.Join(out, run.ResultsFile))) {
		t.Fatal("a refused resume changed results.jsonl")
	}
}

func readFile(t *testing.T, p string) []byte {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestSecondRunOnTheSameOutExit2 is issue 10.5 as a user meets it: while
// a run holds --out, another eval on it is exit 2 naming the folder.
func TestSecondRunOnTheSameOutExit2(t *testing.T) {
	dir := t.TempDir()
	gold, pred, db := spiderSubset(t, dir, 5)
	out := filepath.Join(dir, "out")
	os.MkdirAll(out, 0o755)
	unlock, err := outdir.Lock(out)
	if err != nil {
		t.Fatal(err)
	}
	code, _, stderr := runMain(t, "eval", "--gold", gold, "--pred", pred, "--db", db, "--out", out)
	unlock()
	if code != ExitUsage || !strings.Contains(stderr, "another sqljudge run is writing to "+out) {
		t.Fatalf("exit %d, stderr %q; want exit 2 naming %s", code, stderr, out)
	}
	t.Logf("a user sees:\n%s", stderr)
	if _, err := os.Stat(filepath.Join(out, run.ResultsFile)); err == nil {
		t.Fatal("the refused run wrote results")
	}
	if code, _, stderr := runMain(t, "eval", "--gold", gold, "--pred", pred, "--db", db, "--out", out); code != ExitOK {
		t.Fatalf("after unlock: exit %d: %s", code, stderr)
	}
}

// TestCLIBasics is issue 10.6: --version works, eval --help lists every
// gold format with real placeholders, and a bogus --progress is exit 2.
func TestCLIBasics(t *testing.T) {
	code, stdout, _ := runMain(t, "--version")
	_, want, _ := runMain(t, "version")
	if code != ExitOK || !strings.HasPrefix(stdout, "sqljudge ") || stdout != want {
		t.Fatalf("--version: exit %d %q; want what `version` prints, %q", code, stdout, want)
	}
	code, help, _ := runMain(t, "eval", "--help")
	if code != ExitOK {
		t.Fatalf("eval --help: exit %d", code)
	}
	for _, f := range bench.Formats {
		if !strings.Contains(help, string(f)+",") && !strings.Contains(help, string(f)+" (default") {
			t.Errorf("eval --help does not list format %q in --format", f)
		}
	}
	for _, want := range []string{"--suite DIR ", "--format FORMAT ", "--progress WHEN ", "--max-bytes SIZE "} {
		if !strings.Contains(help, want) {
			t.Errorf("eval --help lacks %q", want)
		}
	}
	code, _, stderr := runMain(t, "eval", "--demo", "--progress", "bogus", "--out", t.TempDir())
	if code != ExitUsage || !strings.Contains(stderr, `--progress "bogus"`) {
		t.Fatalf("--progress bogus: exit %d %q; want exit 2", code, stderr)
	}
}

// TestEvalSQLEvalFixed: the official mode counts an item wrong when a gold
// alternative tried after a subset match fails (compare_query_results
// raises); --sqleval-fixed skips that alternative. The summary names the
// mode, and --sqleval-fixed without sqleval is a usage error.
func TestEvalSQLEvalFixed(t *testing.T) {
	gold := filepath.Join(t.TempDir(), "b.jsonl")
	data := `{"id": "1", "db_id": "concert_singer", "question": "How many singers?", "gold": ["SELECT count(*) FROM singer", "SELECT no_such_column FROM singer"], "pred": "SELECT count(*), 1 FROM singer"}
{"id": "2", "db_id": "concert_singer", "question": "Names and countries of singers", "gold": "SELECT name, country FROM singer", "pred": "SELECT country, name FROM singer"}
`
	if err := os.WriteFile(gold, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
	args := []string{"eval", "--gold", gold, "--db", shareddata.SubsetPath(t, "spider", "database"), "--metrics", "sqleval"}
	var sums [2]*report.Summary
	var recs [2][]run.Record
	for k, extra := range [][]string{nil, {"--sqleval-fixed"}} {
		out := t.TempDir()
		code, stdout, stderr := runMain(t, append(append(args, "--out", out), extra...)...)
		if code != ExitOK {
			t.Fatalf("exit %d\n%s\n%s", code, stdout, stderr)
		}
		want := map[int]string{0: "sqleval mode: official", 1: "sqleval mode: fixed"}[k]
		if !strings.Contains(stdout, want) {
			t.Errorf("stdout lacks %q:\n%s", want, stdout)
		}
		s, err := report.ReadSummary(filepath.Join(out, report.SummaryFile))
		if err != nil {
			t.Fatal(err)
		}
		sums[k] = s
		if recs[k], _, err = run.ReadRecords(filepath.Join(out, run.ResultsFile)); err != nil {
			t.Fatal(err)
		}
	}
	if sums[0].Run.SQLEvalMode != "official" || sums[1].Run.SQLEvalMode != "fixed" {
		t.Errorf("run.sqleval_mode %v, %v", sums[0].Run.SQLEvalMode, sums[1].Run.SQLEvalMode)
	}
	off, fix := recs[0][0].Verdicts["sqleval"], recs[1][0].Verdicts["sqleval"]
	if off.Correct || off.Status != "gold_error" || !fix.Correct || fix.Status != "ok" || fix.Details == (metric.SQLEvalDetails{Exact: true}) {
		t.Errorf("item 1: official %+v (want wrong, gold_error); fixed %+v (want correct, not exact)", off, fix)
	}
	for k := range recs {
		if v := recs[k][1].Verdicts["sqleval"]; !v.Correct || v.Details != (metric.SQLEvalDetails{Exact: true}) {
			t.Errorf("mode %d, item 2 (columns reordered, SQLite names them): %+v, want exact", k, v)
		}
	}
	code, _, stderr := runMain(t, "eval", "--gold", gold, "--db", shareddata.SubsetPath(t, "spider", "database"), "--metrics", "ex", "--sqleval-fixed", "--out", t.TempDir())
	if code != ExitUsage || !strings.Contains(stderr, "add sqleval to --metrics") {
		t.Errorf("--sqleval-fixed without sqleval: exit %d, %s", code, stderr)
	}
}

// TestResumeUnderOtherSQLEvalModeExit2: --sqleval-fixed changes sqleval's
// verdicts, so a --resume that adds it is refused like any other grading
// flag (it used to be accepted, and summary.json then named the fixed mode
// over official verdicts).
func TestResumeUnderOtherSQLEvalModeExit2(t *testing.T) {
	dir := t.TempDir()
	gold, pred, db := spiderSubset(t, dir, 6)
	out := filepath.Join(dir, "out")
	base := []string{"eval", "--gold", gold, "--pred", pred, "--db", db, "--out", out, "--metrics", "ex,sqleval", "--progress", "never"}
	if code, _, stderr := runMain(t, base...); code != ExitOK {
		t.Fatalf("first run: exit %d: %s", code, stderr)
	}
	code, _, stderr := runMain(t, append(base, "--resume", "--sqleval-fixed")...)
	if code != ExitUsage || !strings.Contains(stderr, "sqleval_fixed: false -> true") {
		t.Errorf("resume with --sqleval-fixed: exit %d, stderr %q; want exit 2 naming sqleval_fixed", code, stderr)
	}
}

// TestHelpExamplesParse: every sqljudge command line in a command's help
// examples names a command and flags that exist, with the arguments the
// command takes (continuation lines joined, leading VAR=value dropped).
func TestHelpExamplesParse(t *testing.T) {
	checked := 0
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		for _, line := range exampleLines(c.Example) {
			f := strings.Fields(strings.NewReplacer("&", " ", ";", " ", `"`, "").Replace(line))
			for len(f) > 0 && strings.Contains(f[0], "=") {
				f = f[1:]
			}
			if len(f) == 0 || f[0] != "sqljudge" {
				continue
			}
			root := Command()
			cmd, rest, err := root.Find(f[1:])
			if err == nil {
				err = cmd.ParseFlags(rest)
			}
			if err == nil {
				err = cmd.ValidateArgs(cmd.Flags().Args())
			}
			if err != nil {
				t.Errorf("%s --help example %q: %v", c.CommandPath(), line, err)
			}
			checked++
		}
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(Command())
	if checked < 10 {
		t.Errorf("checked %d example lines", checked)
	}
	t.Logf("%d help example command lines parse", checked)
}

// exampleLines joins an Example's lines that end in "\" with the next and
// drops comments and shell keywords before a command (do, then).
func exampleLines(ex string) []string {
	var out []string
	cur := ""
	for _, l := range strings.Split(ex, "\n") {
		l = strings.TrimSpace(l)
		if strings.HasPrefix(l, "#") {
			continue
		}
		for _, kw := range []string{"do ", "then "} {
			l = strings.TrimPrefix(l, kw)
		}
		if strings.HasSuffix(l, "\\") {
			cur += strings.TrimSuffix(l, "\\") + " "
			continue
		}
		out = append(out, cur+l)
		cur = ""
	}
	return out
}
