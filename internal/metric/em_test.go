package metric_test

import (
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sqljudge/sqljudge/internal/bench"
	"github.com/sqljudge/sqljudge/internal/metric"
	"github.com/sqljudge/sqljudge/internal/schema"
	"github.com/sqljudge/sqljudge/internal/shareddata"
	"github.com/sqljudge/sqljudge/internal/sqlast/spider"
	"github.com/sqljudge/sqljudge/internal/status"
)

// loadEMItems loads tables.json and the dev items with sys's predictions
// from the data folder dir (a shareddata.Set's).
func loadEMItems(tb testing.TB, dir, sys string) (schema.Schemas, []bench.Item) {
	tb.Helper()
	spider := filepath.Join(dir, "spider")
	ss, err := schema.Load(filepath.Join(spider, "tables.json"))
	if err != nil {
		tb.Fatal(err)
	}
	items, err := bench.Load(bench.Options{
		Gold: filepath.Join(spider, "dev_gold.sql"),
		Pred: filepath.Join(spider, "predictions", sys+".sql"),
	})
	if err != nil {
		tb.Fatal(err)
	}
	return ss, items
}

// TestEMNeedsSchemas asserts that em refuses to start without tables.json.
func TestEMNeedsSchemas(t *testing.T) {
	_, err := metric.New([]string{"em"}, metric.Options{})
	if err == nil || !strings.Contains(err.Error(), "tables.json") {
		t.Fatalf("em without schemas: %v", err)
	}
}

// TestEMParityWithOfficialEvaluator asserts that the registered em metric
// gives, for every dev item of each prediction file, the official exact
// verdict and hardness, status pred_unparsed_official exactly where the
// official parser rejected the prediction, and that em-fixed never scores
// below the official verdict and reads more predictions: on the subset,
// and on the full dev set when it is available.
func TestEMParityWithOfficialEvaluator(t *testing.T) {
	for _, set := range shareddata.Sets(t) {
		t.Run(set.Name, func(t *testing.T) { emParity(t, set) })
	}
}

func emParity(t *testing.T, set shareddata.Set) {
	for _, sys := range systems {
		t.Run(sys, func(t *testing.T) {
			ss, items := loadEMItems(t, set.Dir, sys)
			ms, err := metric.New([]string{"em"}, metric.Options{EM: metric.EMOptions{Schemas: ss}})
			if err != nil {
				t.Fatal(err)
			}
			fixed, err := metric.New([]string{"em"}, metric.Options{EM: metric.EMOptions{Schemas: ss, Fixed: true}})
			if err != nil {
				t.Fatal(err)
			}
			oracle := shareddata.OracleIn(t, set.Dir, sys)
			if len(items) != set.Items || len(oracle) != set.Items {
				t.Fatalf("%d items, %d oracle records; want %d", len(items), len(oracle), set.Items)
			}
			agree, em, emFixed, unparsed, unparsedFixed := 0, 0, 0, 0, 0
			for i := range items {
				v := ms[0].Grade(context.Background(), nil, &items[i])
				f := fixed[0].Grade(context.Background(), nil, &items[i])
				o := oracle[i]
				wantStatus := "ok"
				if !o.PredParsed {
					wantStatus = "pred_unparsed_official"
					unparsed++
				}
				if v.Correct {
					em++
				}
				if f.Correct {
					emFixed++
				}
				if f.Status == status.PredUnparsed {
					unparsedFixed++
				}
				if v.Correct == (o.Exact == 1) && hardnessOf(v) == o.Hardness && string(v.Status) == wantStatus {
					agree++
				} else {
					t.Errorf("item %d: em %v %s %v; official exact=%d hardness=%s parsed=%v\n  pred: %s", i, v.Correct, v.Status, hardnessOf(v), o.Exact, o.Hardness, o.PredParsed, items[i].Pred)
				}
				if o.PredParsed && f.Correct != v.Correct {
					t.Errorf("item %d: em-fixed %v differs from em %v on a prediction the official parser reads", i, f.Correct, v.Correct)
				}
				if hardnessOf(f) != hardnessOf(v) {
					t.Errorf("item %d: em-fixed hardness %v; em %v", i, hardnessOf(f), hardnessOf(v))
				}
			}
			t.Logf("%s: em agrees with the official verdict on %d/%d; EM %.4f (%d not parsed officially); em-fixed %.4f (%d read by neither parser)",
				sys, agree, len(items), float64(em)/float64(len(items)), unparsed, float64(emFixed)/float64(len(items)), unparsedFixed)
			if emFixed < em || unparsedFixed > unparsed {
				t.Errorf("em-fixed %d correct, %d unread; em %d correct, %d unread", emFixed, unparsedFixed, em, unparsed)
			}
		})
	}
}

// BenchmarkEM grades the 1034 Spider dev items of one prediction file
// (DIN-SQL) per iteration; items/s is reported.
func BenchmarkEM(b *testing.B) {
	for _, mode := range []struct {
		name  string
		fixed bool
	}{{"official", false}, {"fixed", true}} {
		b.Run(mode.name, func(b *testing.B) {
			ss, items := loadEMItems(b, shareddata.Dir(b), "din_sql")
			ms, err := metric.New([]string{"em"}, metric.Options{EM: metric.EMOptions{Schemas: ss, Fixed: mode.fixed}})
			if err != nil {
				b.Fatal(err)
			}
			b.ResetTimer()
			for b.Loop() {
				for i := range items {
					ms[0].Grade(context.Background(), nil, &items[i])
				}
			}
			b.ReportMetric(float64(b.N*len(items))/b.Elapsed().Seconds(), "items/s")
		})
	}
}

// TestSpiderHardnessLabels asserts that SpiderHardness labels every Spider
// dev item with the official hardness of its gold (the oracle's), 248 /
// 446 / 174 / 166 by level, and leaves unlabelled, with a reason, an item
// whose gold the official parser cannot read or whose db_id has no schema.
func TestSpiderHardnessLabels(t *testing.T) {
	ss, items := loadEMItems(t, shareddata.Dir(t), "c3")
	labels, errs := metric.SpiderHardness(ss, items)
	oracle := shareddata.Oracle(t, "c3")
	counts := map[string]int{}
	for i := range items {
		if errs[i] != nil || labels[i] != oracle[i].Hardness {
			t.Errorf("item %d: hardness %q (%v); official %q", i, labels[i], errs[i], oracle[i].Hardness)
		}
		counts[labels[i]]++
	}
	if counts["easy"] != 248 || counts["medium"] != 446 || counts["hard"] != 174 || counts["extra"] != 166 {
		t.Errorf("hardness counts %v; want easy 248, medium 446, hard 174, extra 166", counts)
	}
	bad := []bench.Item{
		{DBID: "concert_singer", Gold: []string{"SELECT no_such_column FROM singer"}},
		{DBID: "no_such_db", Gold: []string{"SELECT 1"}},
		{DBID: "concert_singer"},
		{DBID: "concert_singer", Gold: []string{"SELECT count(*) FROM singer"}},
		// The same gold again, on a database without a schema, and a
		// repeated unreadable gold: labels are per (database, gold).
		{DBID: "no_such_db", Gold: []string{"SELECT count(*) FROM singer"}},
		{DBID: "concert_singer", Gold: []string{"SELECT no_such_column FROM singer"}},
	}
	labels, errs = metric.SpiderHardness(ss, bad)
	for i, want := range []string{"no_such_column", "no_such_db", "no gold", "", "no_such_db", "no_such_column"} {
		switch {
		case want == "" && (errs[i] != nil || labels[i] != "easy"):
			t.Errorf("item %d: %q, %v; want easy", i, labels[i], errs[i])
		case want != "" && (errs[i] == nil || labels[i] != "" || !strings.Contains(errs[i].Error(), want)):
			t.Errorf("item %d: %q, %v; want no label and an error naming %q", i, labels[i], errs[i], want)
		}
	}
}

// TestEMPartialRoundTrip asserts that EMPartial reads back, from an em
// verdict written to JSON and read again as results.jsonl is, the hardness
// and partial scores spider.GradeOfficial computed, on every c3 item; and
// that it refuses malformed fields and says no for a verdict without them.
func TestEMPartialRoundTrip(t *testing.T) {
	ss, items := loadEMItems(t, shareddata.Dir(t), "c3")
	ms, err := metric.New([]string{"em"}, metric.Options{EM: metric.EMOptions{Schemas: ss}})
	if err != nil {
		t.Fatal(err)
	}
	schemas, err := spider.Schemas(ss)
	if err != nil {
		t.Fatal(err)
	}
	for i := range items {
		v := ms[0].Grade(context.Background(), nil, &items[i])
		b, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		back, err := metric.DecodeVerdict("em", b)
		if _, typed := back.Details.(metric.EMDetails); err != nil || (back.Details != nil && !typed) {
			t.Fatalf("item %d: DecodeVerdict: %T, %v", i, back.Details, err)
		}
		h, p, ok, err := metric.EMPartial(back)
		g, gerr := spider.GradeOfficial(schemas[items[i].DBID], items[i].Gold[0], items[i].Pred)
		if err != nil || gerr != nil || !ok || h != g.Hardness || p != g.Partial {
			t.Fatalf("item %d: EMPartial %q %v %v %v; graded %q %v (%v)", i, h, p, ok, err, g.Hardness, g.Partial, gerr)
		}
	}
	if _, _, ok, err := metric.EMPartial(metric.Verdict{Status: "gold_error"}); ok || err != nil {
		t.Errorf("verdict without partial: ok %v, err %v", ok, err)
	}
	good := func() map[string]any {
		p := map[string]any{}
		for _, c := range spider.ComponentNames {
			p[c] = map[string]any{"acc": 1.0, "rec": 1.0, "f1": 1.0, "label_total": 1.0, "pred_total": 1.0}
		}
		return map[string]any{"hardness": "easy", "partial": p}
	}
	for name, edit := range map[string]func(map[string]any){
		"hardness": func(f map[string]any) { f["hardness"] = "trivial" },
		"object":   func(f map[string]any) { f["partial"] = "x" },
		"where":    func(f map[string]any) { delete(f["partial"].(map[string]any), "where") },
		"acc":      func(f map[string]any) { f["partial"].(map[string]any)["order"].(map[string]any)["acc"] = 2.0 },
		"pred_total": func(f map[string]any) {
			f["partial"].(map[string]any)["IUEN"].(map[string]any)["pred_total"] = "one"
		},
	} {
		f := good()
		edit(f)
		if _, _, _, err := metric.EMPartial(metric.Verdict{Details: rawFields(t, f)}); err == nil || !strings.Contains(err.Error(), name) {
			t.Errorf("%s: error %v; want one naming %s", name, err, name)
		}
	}
	if _, _, ok, err := metric.EMPartial(metric.Verdict{Details: rawFields(t, good())}); !ok || err != nil {
		t.Errorf("well-formed fields: ok %v, err %v", ok, err)
	}
}

// hardnessOf is the hardness an em verdict records, "" where it has none.
func hardnessOf(v metric.Verdict) string {
	d, _ := v.Details.(metric.EMDetails)
	return d.Hardness
}
