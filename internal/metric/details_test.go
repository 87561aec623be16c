package metric_test

import (
	"encoding/json"
	"maps"
	"reflect"
	"strings"
	"testing"

	"github.com/sqljudge/sqljudge/internal/judge"
	"github.com/sqljudge/sqljudge/internal/metric"
)

// TestDetailsJSON checks that each metric's typed details write the bytes
// a map of the same keys wrote before details were typed (keys after
// correct, status and detail, sorted), that DecodeVerdict reads them back
// into the same typed value, and that Numbers gives what a summary of the
// generic map gave.
func TestDetailsJSON(t *testing.T) {
	comp := metric.EMComponent{Acc: 1, Rec: 1, F1: 1, LabelTotal: 2, PredTotal: 3}
	yes, no, three, text := true, false, 3, "because"
	run := func() *judge.Run {
		return &judge.Run{Samples: 2, Votes: []*int{&three, nil}, Agreement: 1, PromptTokens: 510, CompletionTokens: 21,
			Replies: []string{"k1", "k2"}, Templates: []string{"xscore.v1@911af7373775"}, ParseErrors: []string{"x"}, FailedSamples: 1}
	}
	cases := []struct {
		metric string
		d      metric.Details
	}{
		{"sqleval", metric.SQLEvalDetails{Exact: true}},
		{"sqleval", metric.SQLEvalDetails{}},
		{"ts", metric.TSDetails{Databases: 3}},
		{"ts", metric.TSDetails{Databases: 3, Witness: "db/a.sqlite", WitnessGold: "[(1,)]", WitnessPred: "[(2,)]"}},
		{"em", metric.EMDetails{Hardness: "extra", Partial: map[string]metric.EMComponent{"select": comp, "where": {}}}},
		{"soft_f1", metric.ScoreDetails{Score: 0.25}},
		{"spider2", metric.ScoreDetails{Score: 1}},
		{"ves", metric.VESDetails{Ratio: 1.44, Score: 1.2}},
		{"rves", metric.RVESDetails{Ratio: 0.3, Reward: 0.5, Score: 0.7071067811865476}},
		{"xscore", judge.Details{Calls: 2, Run: run(), Vote: judge.Vote{Score: &three, Explanation: &text}}},
		{"xscore", judge.Details{Calls: 1, Run: &judge.Run{Samples: 1, Votes: []*int{nil}, Replies: []string{}, Templates: []string{}}}},
		{"rose", judge.Details{Calls: 0}},
		{"rose", judge.Details{Calls: 2, Run: run(), ResultsEqual: &no, Vote: judge.Vote{Prover: &yes, ProverReason: &text, Overturned: &no, Judgement: &text, Ambiguity: &text, GoldCorrect: &yes}}},
		{"flex", judge.Details{Calls: 0, Ex: &no}},
		{"flex", judge.Details{Calls: 1, Run: run(), Ex: &yes, Prompt: "strict", Flipped: &no, Vote: judge.Vote{Analysis: &text}}},
	}
	for _, c := range cases {
		v := metric.Verdict{Correct: true, Status: "ok", Detail: "d", Details: c.d}
		got, err := json.Marshal(v)
		if err != nil {
			t.Fatalf("%s: %v", c.metric, err)
		}
		// The same keys and values as a generic map, the old encoding.
		var fm map[string]any
		b, _ := json.Marshal(c.d)
		if err := json.Unmarshal(b, &fm); err != nil {
			t.Fatal(err)
		}
		want, err := json.Marshal(metric.Verdict{Correct: true, Status: "ok", Detail: "d", Details: rawFields(t, fm)})
		if err != nil {
			t.Fatal(err)
		}
		if string(got) != string(want) || !strings.HasPrefix(string(got), `{"correct":true,"status":"ok","detail":"d",`) {
			t.Errorf("%s: typed %s; map %s", c.metric, got, want)
		}
		back, err := metric.DecodeVerdict(c.metric, got)
		if err != nil || !reflect.DeepEqual(back, v) {
			t.Errorf("%s: DecodeVerdict %+v, %v; want %+v", c.metric, back, err, v)
		}
		var generic metric.Verdict
		if err := json.Unmarshal(got, &generic); err != nil {
			t.Fatal(err)
		}
		if _, isMap := generic.Details.(metric.RawFields); !isMap {
			t.Errorf("%s: a verdict read without its metric has details %T", c.metric, generic.Details)
		}
		if n, g := c.d.Numbers(), generic.Details.Numbers(); c.metric != "em" && !maps.Equal(n, g) {
			t.Errorf("%s: Numbers %v; of the map %v", c.metric, n, g)
		}
	}
}

// TestDecodeVerdict checks the edges of reading a verdict back: a metric
// without typed details keeps RawFields, a verdict without details has
// none, and a value of the wrong type is an error naming the metric.
// (ex has no details of its own: extra keys, say from a newer sqljudge,
// are kept as they are.)
func TestDecodeVerdict(t *testing.T) {
	v, err := metric.DecodeVerdict("ex", []byte(`{"correct":true,"status":"ok","calls":1,"score":3,"votes":[3]}`))
	if _, isMap := v.Details.(metric.RawFields); err != nil || !isMap || !maps.Equal(v.Details.Numbers(), map[string]float64{"calls": 1, "score": 3}) {
		t.Errorf("ex: %+v %v", v, err)
	}
	// Unknown keys keep their bytes: a 20-digit integer is not rounded
	// through float64, an object keeps its key order.
	in := `{"correct":true,"status":"ok","big":12345678901234567890,"obj":{"b":1,"a":[true,null]}}`
	if v, err = metric.DecodeVerdict("ex", []byte(in)); err != nil {
		t.Fatal(err)
	}
	if out, err := json.Marshal(v); err != nil || string(out) != in {
		t.Errorf("ex round trip: %s, %v; want %s", out, err, in)
	}
	if _, err := metric.DecodeVerdict("flex", []byte(`{"correct":true,"status":"ok","calls":1,"ex":"yes"}`)); err == nil || !strings.Contains(err.Error(), "flex verdict") {
		t.Errorf("bad ex: %v", err)
	}
	v, err = metric.DecodeVerdict("ts", []byte(`{"correct":false,"status":"pred_error","detail":"x"}`))
	if err != nil || v.Details != nil || v.Detail != "x" {
		t.Errorf("no details: %+v %v", v, err)
	}
	if _, err := metric.DecodeVerdict("ts", []byte(`{"correct":false,"status":"ok","databases":"three"}`)); err == nil || !strings.Contains(err.Error(), "ts verdict") {
		t.Errorf("bad databases: %v", err)
	}
}

// rawFields is m as a verdict read without its metric holds it: each
// value's JSON.
func rawFields(t testing.TB, m map[string]any) metric.RawFields {
	t.Helper()
	b, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	var r metric.RawFields
	if err := json.Unmarshal(b, &r); err != nil {
		t.Fatal(err)
	}
	return r
}
