package serve

import (
	"encoding/json"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/sqljudge/sqljudge/internal/engine/sqlite"
	"github.com/sqljudge/sqljudge/internal/metric"
	"github.com/sqljudge/sqljudge/internal/shareddata"
)

// completionFor wraps sql in the completion format preset p checks
// (skyrl-sql, sql-r1), or returns it bare.
func completionFor(p, sql string) GradeItem {
	switch p {
	case "skyrl-sql":
		return GradeItem{Completion: ptr("<think>count them</think><solution>" + sql + "</solution>")}
	case "sql-r1":
		return GradeItem{Completion: ptr("<think>count them</think>\n<answer>```sql\n" + sql + "\n```</answer>")}
	}
	return GradeItem{Pred: ptr(sql)}
}

// TestFallbackAttacksEarnAtMostWrong sends the wrong predictions of issue
// 41 that made equiv fall back to the item's database (they fail or turn
// nondeterministic on every scratch database, or pad the prover's work
// past the budget, and return the gold's result on concert_singer) to
// /v1/grade under every preset, with the equiv and verdict metrics: none
// earns more than a wrong answer. Before, they scored 1 under binary,
// arctic and skyrl-sql and 6.97 under sql-r1. No response shows a path of
// the server (the --db folder, equiv's scratch folder).
func TestFallbackAttacksEarnAtMostWrong(t *testing.T) {
	root := shareddata.SubsetPath(t, "spider", "database")
	eng := sqlite.New(root, sqlite.Options{})
	t.Cleanup(func() { eng.Close() })
	_, _, ts := newTestServer(t, Config{Engine: eng, Workers: 2, MetricOptions: metric.Options{
		Equiv: metric.EquivOptions{Seed: 1, Budget: 8 * time.Second, MaxDatabases: 100}}})
	guards := []string{
		"(SELECT count(*) FROM singer) = 6",
		"(SELECT instr(sql, char(10)) FROM sqlite_master WHERE name = 'singer') > 0",
		"(SELECT file FROM pragma_database_list) NOT LIKE '%sqljudge-equiv-%'",
	}
	var preds []string
	for _, g := range guards {
		preds = append(preds, "SELECT 6 WHERE json(CASE WHEN "+g+" THEN '1' ELSE '{' END) IS NOT NULL")
	}
	preds = append(preds,
		"SELECT CASE WHEN "+guards[0]+" THEN 6 ELSE random() END",
		"SELECT count(*) FROM singer WHERE name <> '"+strings.Repeat("x", 100_000)+"'",
		// The path in a result, and in an error message.
		"SELECT file FROM pragma_database_list",
		"SELECT json_extract('{}', (SELECT file FROM pragma_database_list))",
	)
	for _, p := range Presets() {
		var req GradeRequest
		for _, m := range []string{"equiv", "verdict"} {
			for _, sql := range preds {
				it := completionFor(p.Name, sql)
				it.DBID, it.Gold, it.Metric, it.Preset = "concert_singer", Gold{"SELECT count(*) FROM singer"}, m, p.Name
				req.Items = append(req.Items, it)
			}
		}
		wrong := p.Reward(Outcome{Verdict: Wrong, Parsed: Parsed{SQL: "x", Think: "x", Answer: "x"}, FormatOK: true})
		for i, r := range grade(t, ts.URL, req) {
			b, _ := json.Marshal(r)
			if r.Correct || r.Reward > wrong {
				t.Errorf("%s, %s, attack %d: reward %v (wrong answers earn %v): %.400s", p.Name, req.Items[i].Metric, i%len(preds), r.Reward, wrong, b)
			}
			r.SQL = "" // the request's own text, echoed
			shown, _ := json.Marshal(r)
			for _, path := range []string{root, os.TempDir() + "/sqljudge-equiv-", "sqljudge-equiv-"} {
				if strings.Contains(string(shown), path) {
					t.Errorf("%s, attack %d: the response shows a server path (%s): %.400s", p.Name, i, path, b)
				}
			}
		}
	}
}

// TestPastMaxItemTimeEarnsAtMostWrong: an item that runs past
// --max-item-time earns at most a wrong answer's reward under sql-r1,
// where it became error and scored +1 (a wrong answer scores 0). The
// prediction counts to 10^9 in a recursive CTE: the item's held time
// passes 200 ms long before the query's own timeout. (The case,
// an equiv item padded with a 100 kB literal, no longer runs long: the
// prover refuses a query over 64 KiB.)
func TestPastMaxItemTimeEarnsAtMostWrong(t *testing.T) {
	eng := sqlite.New(shareddata.SubsetPath(t, "spider", "database"), sqlite.Options{})
	t.Cleanup(func() { eng.Close() })
	_, _, ts := newTestServer(t, Config{Engine: eng, MaxItemTime: 200 * time.Millisecond})
	it := completionFor("sql-r1", "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 1000000000) SELECT count(*) FROM c")
	it.DBID, it.Gold, it.Metric = "concert_singer", Gold{"SELECT count(*) FROM singer"}, "ex"
	r := grade(t, ts.URL, GradeRequest{Preset: "sql-r1", Items: []GradeItem{it}})[0]
	if r.Correct || r.Reward > 0 || !strings.Contains(r.Error, "max-item-time") {
		t.Errorf("reward %v, verdict %s (%s): want at most a wrong answer's 0, past --max-item-time", r.Reward, r.Verdict, r.Error)
	}
}
