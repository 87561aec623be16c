package metric_test

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sqljudge/sqljudge/internal/bench"
	"github.com/sqljudge/sqljudge/internal/metric"
	"github.com/sqljudge/sqljudge/internal/schema"
	"github.com/sqljudge/sqljudge/internal/shareddata"
)

func loadEMItems(tb testing.TB, sys string) (schema.Schemas, []bench.Item) {
	tb.Helper()
	spider := shareddata.Path(tb, "spider")
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
// below the official verdict and reads more predictions.
func TestEMParityWithOfficialEvaluator(t *testing.T) {
	for _, sys := range systems {
		t.Run(sys, func(t *testing.T) {
			ss, items := loadEMItems(t, sys)
			ms, err := metric.New([]string{"em"}, metric.Options{Schemas: ss})
			if err != nil {
				t.Fatal(err)
			}
			fixed, err := metric.New([]string{"em"}, metric.Options{Schemas: ss, EMFixed: true})
			if err != nil {
				t.Fatal(err)
			}
			oracle := shareddata.Oracle(t, sys)
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
				if f.Status == metric.StatusPredUnparsed {
					unparsedFixed++
				}
				if v.Correct == (o.Exact == 1) && v.Fields["hardness"] == o.Hardness && string(v.Status) == wantStatus {
					agree++
				} else {
					t.Errorf("item %d: em %v %s %v; official exact=%d hardness=%s parsed=%v\n  pred: %s", i, v.Correct, v.Status, v.Fields["hardness"], o.Exact, o.Hardness, o.PredParsed, items[i].Pred)
				}
				if o.PredParsed && f.Correct != v.Correct {
					t.Errorf("item %d: em-fixed %v differs from em %v on a prediction the official parser reads", i, f.Correct, v.Correct)
				}
				if f.Fields["hardness"] != v.Fields["hardness"] {
					t.Errorf("item %d: em-fixed hardness %v; em %v", i, f.Fields["hardness"], v.Fields["hardness"])
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
			ss, items := loadEMItems(b, "din_sql")
			ms, err := metric.New([]string{"em"}, metric.Options{Schemas: ss, EMFixed: mode.fixed})
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
