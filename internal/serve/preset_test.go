package serve

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sqljudge/sqljudge/internal/engine/sqlite"
	"github.com/sqljudge/sqljudge/internal/metric"
	"github.com/sqljudge/sqljudge/internal/shareddata"
	"github.com/sqljudge/sqljudge/internal/status"
)

func TestExtractSQL(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"SELECT 1", "SELECT 1"},
		{"  SELECT 1 \n", "SELECT 1"},
		{"a\n```sql\nSELECT 1\n```\nb\n```SQL\nSELECT 2;\n```", "SELECT 2;"},
		{"```sql SELECT 3```", "SELECT 3"},
		{"```sqlite\nSELECT 4\n```", "```sqlite\nSELECT 4\n```"},
		{"<answer>SELECT 5</answer> then <solution> SELECT 6 </solution>", "SELECT 6"},
		{"<solution>SELECT 6</solution><answer>\nSELECT 7\n</answer>", "SELECT 7"},
		{"<answer>```sql\nSELECT 8\n```</answer>", "SELECT 8"},
		{"<answer>SELECT 9", "<answer>SELECT 9"},
		{"<answer> </answer>", ""},
		{"", ""},
	} {
		if got := ExtractSQL(c.in); got != c.want {
			t.Errorf("ExtractSQL(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

// TestSkyRLFormat follows verify_format_and_extract of SkyRL's
// skyrl_gym/envs/sql/utils.py case by case.
func TestSkyRLFormat(t *testing.T) {
	for _, c := range []struct {
		in  string
		ok  bool
		sql string
	}{
		{"<think>x</think><solution> SELECT 1 </solution>", true, "SELECT 1"},
		{"<think>a</think><sql>SELECT 0</sql><observation>0</observation>\n <think>b</think><solution>SELECT 1</solution>", true, "SELECT 1"},
		{"<think>a</think><sql>SELECT 0</sql><observation>0</observation> oops <think>b</think><solution>SELECT 1</solution>", false, ""},
		{"<solution>SELECT 1</solution>", false, ""},
		{"<think>x</think><solution>SELECT 1</solution><solution>SELECT 2</solution>", false, ""},
		{"<think>x</think><solution>SELECT 1", false, ""},
		{"<think>x</think><solution>SELECT 1</solution></solution>", false, ""},
		{"<think>x</think><solution><think>SELECT 1</solution>", false, ""},
		{"<think>x</think><solution>SELECT 1 <SQL></solution>", false, ""},
		{"<think>x</think><solution>SELECT 1 FROM sqlite_master</solution>", true, "SELECT 1 FROM sqlite_master"},
		{"<think>\nmulti\nline</think><solution>SELECT 1</solution>", true, "SELECT 1"},
	} {
		p, ok := skyrlExtract(c.in)
		if ok != c.ok || p.SQL != c.sql {
			t.Errorf("skyrlExtract(%q) = %q, %v; want %q, %v", c.in, p.SQL, ok, c.sql, c.ok)
		}
	}
}

// TestSQLR1Reward follows compute_score of SQL-R1's synsql.py: format
// +-1, execution +-2, result +-3, and the length reward on a match.
func TestSQLR1Reward(t *testing.T) {
	resp := "<think>abcd</think>\n<answer>```sql\nSELECT  *\nFROM t\n```</answer>"
	p, ok := sqlr1Extract("<|im_start|>user\nq<|im_end|>\n<|im_start|>assistant\n" + resp)
	if !ok || p.SQL != "SELECT * FROM t" || p.Think != "abcd" || p.Answer != "```sql\nSELECT  *\nFROM t\n```" {
		t.Fatalf("sqlr1Extract: %+v %v", p, ok)
	}
	// len(think)=4, len(answer)=27, len(sql)=15.
	length := 0.5*31/2048 + 15.0/27
	for _, c := range []struct {
		v    Verdict
		want float64
	}{
		{Correct, 1 + 2 + 3 + length}, {Wrong, 1 + 2 - 3}, {Invalid, 1 - 2}, {Timeout, 1 - 2}, {Error, 1 + 2 - 3},
	} {
		if got := sqlr1Reward(Outcome{Verdict: c.v, Parsed: p, FormatOK: true}); math.Abs(got-c.want) > 1e-12 {
			t.Errorf("%s: reward %v, want %v", c.v, got, c.want)
		}
	}
	for _, bad := range []string{
		"Assistant: <answer>```sql SELECT 1```</answer><think>x</think>",
		"Assistant: <think>x</think><answer>SELECT 1</answer>",
		"Assistant: <think>x</think><think>y</think><answer>```sql SELECT 1```</answer>",
		"Assistant: <think>x</think><answer>```sql   ```</answer>",
	} {
		if _, ok := sqlr1Extract(bad); ok {
			t.Errorf("sqlr1Extract(%q) accepted", bad)
		}
		if got := sqlr1Reward(Outcome{Verdict: Invalid}); got != -1 {
			t.Errorf("format failure: reward %v, want -1", got)
		}
	}
	// Beyond 2048 characters the length term is capped at 0.5.
	long := Parsed{SQL: "SELECT 1", Think: string(make([]byte, 3000)), Answer: "```sql SELECT 1```"}
	if got, want := sqlr1Reward(Outcome{Verdict: Correct, Parsed: long, FormatOK: true}), 6+0.5+8.0/18; math.Abs(got-want) > 1e-12 {
		t.Errorf("long: %v, want %v", got, want)
	}
}

func TestPresetByName(t *testing.T) {
	for _, n := range []string{"binary", "arctic", "skyrl-sql", "sql-r1"} {
		p, err := PresetByName(n)
		if err != nil || p.Formula == "" || p.Source == "" {
			t.Errorf("%s: %v %+v", n, err, p)
		}
	}
	if _, err := PresetByName("x"); err == nil {
		t.Error("unknown preset accepted")
	}
}

// TestPresetsMatchOracles grades completions built from Spider dev with
// presets skyrl-sql (518 cases, testdata/oracle_skyrl.py) and sql-r1 (346
// cases, testdata/oracle_sqlr1.py) and compares each reward with the one
// SkyRL's calculate_reward_single and SQL-R1's compute_score give on the
// same databases.
func TestPresetsMatchOracles(t *testing.T) {
	eng := sqlite.New(shareddata.Path(t, "spider", "database"), sqlite.Options{}) // the oracles span every dev database
	t.Cleanup(func() { eng.Close() })
	_, _, ts := newTestServer(t, Config{Engine: eng})
	for _, c := range []struct {
		preset, file string
		cases        int
	}{
		{"skyrl-sql", "skyrl_oracle.jsonl", 518},
		{"sql-r1", "sqlr1_oracle.jsonl", 346},
	} {
		b, err := os.ReadFile(filepath.Join("testdata", c.file))
		if err != nil {
			t.Fatal(err)
		}
		var want []float64
		req := GradeRequest{Preset: c.preset}
		for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
			var o struct {
				DBID       string  `json:"db_id"`
				Gold       string  `json:"gold"`
				Completion string  `json:"completion"`
				Reward     float64 `json:"reward"`
			}
			if err := json.Unmarshal([]byte(line), &o); err != nil {
				t.Fatal(err)
			}
			req.Items = append(req.Items, GradeItem{DBID: o.DBID, Gold: Gold{o.Gold}, Completion: ptr(o.Completion)})
			want = append(want, o.Reward)
		}
		rewards := map[float64]bool{}
		for i, r := range grade(t, ts.URL, req) {
			if math.Abs(r.Reward-want[i]) > 1e-9 {
				t.Errorf("%s case %d: reward %v (%s %s), official %v\n%s", c.preset, i+1, r.Reward, r.Verdict, r.Error, want[i], *req.Items[i].Completion)
			}
			rewards[math.Round(want[i])] = true
		}
		if len(want) != c.cases || len(rewards) < 3 {
			t.Errorf("%s: %d cases, rounded rewards %v: the oracle should hold %d cases and several outcomes", c.preset, len(want), rewards, c.cases)
		}
	}
}

// TestNoPresetRewardsAWrongItemAboveWrong: under every preset, every
// status a metric's verdict can carry, and every verdict of the service,
// earns at most the reward of a wrong answer unless the item is correct
// (issue 41: under sql-r1 an item past --max-item-time became error,
// which scored +1 where a wrong answer scores 0), with the format kept or
// broken; a correct item earns more than a wrong one.
func TestNoPresetRewardsAWrongItemAboveWrong(t *testing.T) {
	p := Parsed{SQL: "SELECT 1", Think: "x", Answer: "```sql SELECT 1```"}
	var verdicts []Verdict
	for _, st := range append(status.All(), "some_future_status") {
		v, _ := classify(metric.Verdict{Status: st})
		verdicts = append(verdicts, v)
	}
	verdicts = append(verdicts, Wrong, Invalid, Timeout, Error)
	for _, pr := range Presets() {
		wrong := pr.Reward(Outcome{Verdict: Wrong, Parsed: p, FormatOK: true})
		if right := pr.Reward(Outcome{Verdict: Correct, Parsed: p, FormatOK: true}); right <= wrong {
			t.Errorf("%s: correct %v, wrong %v", pr.Name, right, wrong)
		}
		for _, v := range verdicts {
			for _, ok := range []bool{true, false} {
				if got := pr.Reward(Outcome{Verdict: v, Parsed: p, FormatOK: ok}); got > wrong {
					t.Errorf("%s: verdict %s (format ok %v) earns %v, more than a wrong answer's %v", pr.Name, v, ok, got, wrong)
				}
			}
		}
	}
}
