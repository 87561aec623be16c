package spider_test

import (
	"path/filepath"
	"testing"

	"github.com/sqljudge/sqljudge/internal/bench"
	"github.com/sqljudge/sqljudge/internal/schema"
	"github.com/sqljudge/sqljudge/internal/shareddata"
	"github.com/sqljudge/sqljudge/internal/sqlast/spider"
)

var systems = shareddata.Systems

// loadSpider returns the official schemas of tables.json and the dev items
// of the data set paired with a prediction file (pred "" pairs gold with
// itself).
func loadSpider(t testing.TB, set shareddata.Set, pred string) (map[string]*spider.Schema, []bench.Item) {
	t.Helper()
	dir := filepath.Join(set.Dir, "spider")
	ss, err := schema.Load(filepath.Join(dir, "tables.json"))
	if err != nil {
		t.Fatal(err)
	}
	schemas, err := spider.Schemas(ss)
	if err != nil {
		t.Fatal(err)
	}
	o := bench.Options{Gold: filepath.Join(dir, "dev_gold.sql")}
	if pred != "" {
		o.Pred = filepath.Join(dir, "predictions", pred+".sql")
	} else {
		o.Pred = o.Gold
	}
	items, err := bench.Load(o)
	if err != nil {
		t.Fatal(err)
	}
	if len(items) != set.Items {
		t.Fatalf("%d dev items; want %d", len(items), set.Items)
	}
	return schemas, items
}

// TestEMParityWithOfficialEvaluator asserts that for every Spider dev item
// of each published prediction file, GradeOfficial gives the official
// evaluator's exact, hardness and pred_parsed: on the subset, and on all
// 1034 items when the full data is available.
func TestEMParityWithOfficialEvaluator(t *testing.T) {
	for _, set := range shareddata.Sets(t) {
		t.Run(set.Name, func(t *testing.T) { emParity(t, set) })
	}
}

func emParity(t *testing.T, set shareddata.Set) {
	for _, sys := range systems {
		t.Run(sys, func(t *testing.T) {
			schemas, items := loadSpider(t, set, sys)
			oracle := shareddata.OracleIn(t, set.Dir, sys)
			if len(oracle) != len(items) {
				t.Fatalf("%d oracle records for %d items", len(oracle), len(items))
			}
			agree, exact, parsed := 0, 0, 0
			for i, it := range items {
				o := oracle[i]
				if o.I != i || o.DBID != it.DBID {
					t.Fatalf("oracle record %d is item %d on %s; gold item is on %s", i, o.I, o.DBID, it.DBID)
				}
				g, err := spider.GradeOfficial(schemas[it.DBID], it.Gold[0], it.Pred)
				if err != nil {
					t.Errorf("item %d: %v", i, err)
					continue
				}
				if g.Exact {
					exact++
				}
				if g.PredParsed {
					parsed++
				}
				if g.Exact == (o.Exact == 1) && g.Hardness == o.Hardness && g.PredParsed == o.PredParsed {
					agree++
					continue
				}
				t.Errorf("item %d (%s): exact=%v hardness=%s parsed=%v (%v); official exact=%d hardness=%s parsed=%v\n  gold: %s\n  pred: %s",
					i, it.DBID, g.Exact, g.Hardness, g.PredParsed, g.PredErr, o.Exact, o.Hardness, o.PredParsed, it.Gold[0], it.Pred)
			}
			t.Logf("%s: %d/%d agree with the official exact, hardness and pred_parsed; EM = %.4f, official parser reads %d", sys, agree, len(items), float64(exact)/float64(len(items)), parsed)
		})
	}
}

// TestGoldAgainstGold asserts that every dev gold query matches itself and
// that the hardness counts are the official ones (the oracle's, which the
// data README gives as easy 248, medium 446, hard 174, extra 166).
func TestGoldAgainstGold(t *testing.T) {
	schemas, items := loadSpider(t, shareddata.FullSet(t), "")
	want := map[string]int{}
	for _, o := range shareddata.Oracle(t, "resdsql") {
		want[o.Hardness]++
	}
	readme := map[string]int{spider.Easy: 248, spider.Medium: 446, spider.Hard: 174, spider.Extra: 166}
	got := map[string]int{}
	exact := 0
	for i, it := range items {
		g, err := spider.GradeOfficial(schemas[it.DBID], it.Gold[0], it.Gold[0])
		if err != nil {
			t.Fatalf("item %d: %v", i, err)
		}
		got[g.Hardness]++
		if g.Exact && g.PredParsed {
			exact++
		} else {
			t.Errorf("item %d: gold does not match itself (%v): %s", i, g.PredErr, it.Gold[0])
		}
		h, err := spider.Hardness(dbOf(t, it.DBID), it.Gold[0])
		if h2, err2 := schemas[it.DBID].Hardness(it.Gold[0]); h2 != h || err2 != nil {
			t.Errorf("item %d: Schema.Hardness = %q, %v; Hardness %q", i, h2, err2, h)
		}
		if err != nil || h != g.Hardness {
			t.Errorf("item %d: Hardness = %q, %v; GradeOfficial says %q", i, h, err, g.Hardness)
		}
	}
	for _, l := range spider.Levels {
		if got[l] != want[l] || got[l] != readme[l] {
			t.Errorf("%s: %d gold queries; oracle has %d, README %d", l, got[l], want[l], readme[l])
		}
	}
	t.Logf("gold vs gold: EM %.3f; easy %d, medium %d, hard %d, extra %d", float64(exact)/float64(len(items)), got[spider.Easy], got[spider.Medium], got[spider.Hard], got[spider.Extra])
}

var tablesCache = map[string]*schema.Database{}

func dbOf(t testing.TB, id string) *schema.Database {
	t.Helper()
	if len(tablesCache) == 0 {
		ss, err := schema.Load(shareddata.Path(t, "spider", "tables.json")) // the full data: TestGoldAgainstGold
		if err != nil {
			t.Fatal(err)
		}
		for k, v := range ss {
			tablesCache[k] = v
		}
	}
	return tablesCache[id]
}
